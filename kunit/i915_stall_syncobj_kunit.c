// SPDX-License-Identifier: MIT
/*
 * Copyright © 2026 The i915 stall log authors
 *
 * KUnit tests of the syncobj wait sites of the stall log, #included at the
 * end of i915_stall_sites.c after i915_stall_sites_kunit.c, whose mock
 * fixture they use: suite i915_stall_syncobj.
 *
 * The syncobj waits of userspace.  Each case opens a DRM file on the mock
 * device, puts mock requests into syncobjs with the in-kernel syncobj API,
 * and waits with the real ioctl through drm_ioctl(), the arguments in user
 * memory mapped for the test (kunit_vm_mmap()).
 */

#include <linux/tracepoint.h>
#include <linux/workqueue.h>

#include <trace/events/drm_syncobj.h>

struct syncobj_fixture {
	struct mock_fixture *f;
	struct file *file;
	void __user *args;	/* the ioctl's argument */
	u32 __user *handles;
	u64 __user *points;
	u64 timeout_nsec;	/* the last wait's absolute timeout */
};

static void syncobj_file_put(void *file)
{
	fput(file);
	/* The release is deferred from a kernel thread: run it now. */
	flush_delayed_fput();
}

static struct syncobj_fixture *syncobj_fixture(struct kunit *test)
{
	struct syncobj_fixture *sf = kunit_kzalloc(test, sizeof(*sf), GFP_KERNEL);
	unsigned long user;

	KUNIT_ASSERT_NOT_NULL(test, sf);
	sf->f = test->priv;
	sf->file = mock_drm_getfile(sf->f->i915->drm.primary, O_RDWR);
	KUNIT_ASSERT_FALSE(test, IS_ERR(sf->file));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, syncobj_file_put, sf->file), 0);

	user = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE_MSG(test, user, 0, "no user memory");
	sf->args = (void __user *)user;
	sf->handles = (u32 __user *)(user + 256);
	sf->points = (u64 __user *)(user + 512);
	return sf;
}

/* A new syncobj of the file holding @fence (NULL: none yet). */
static u32 syncobj_new(struct kunit *test, struct syncobj_fixture *sf,
		       struct dma_fence *fence, struct drm_syncobj **out)
{
	struct drm_syncobj *syncobj;
	u32 handle;

	KUNIT_ASSERT_EQ(test, drm_syncobj_create(&syncobj, 0, fence), 0);
	KUNIT_ASSERT_EQ(test, drm_syncobj_get_handle(to_drm_file(sf->file), syncobj,
						     &handle), 0);
	if (out)
		*out = syncobj;	/* the file's handle holds it */
	drm_syncobj_put(syncobj);
	return handle;
}

/* Not a tail call, so that the function shows in the stack. */
static noinline long syncobj_wait_caller(struct kunit *test, struct syncobj_fixture *sf,
					 const u32 *handles, const u64 *points,
					 u32 count, u32 flags, s64 timeout_ms)
{
	s64 abs = timeout_ms < 0 ? S64_MAX :
		  ktime_get_ns() + timeout_ms * NSEC_PER_MSEC;
	long ret;

	sf->timeout_nsec = abs;

	KUNIT_ASSERT_EQ(test, copy_to_user(sf->handles, handles, count * sizeof(*handles)), 0);
	if (points) {
		struct drm_syncobj_timeline_wait args = {
			.handles = (uintptr_t)sf->handles,
			.points = (uintptr_t)sf->points,
			.timeout_nsec = abs,
			.count_handles = count,
			.flags = flags,
		};

		KUNIT_ASSERT_EQ(test, copy_to_user(sf->points, points, count * sizeof(*points)),
				0);
		KUNIT_ASSERT_EQ(test, copy_to_user(sf->args, &args, sizeof(args)), 0);
		ret = drm_ioctl(sf->file, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT,
				(unsigned long)sf->args);
	} else {
		struct drm_syncobj_wait args = {
			.handles = (uintptr_t)sf->handles,
			.timeout_nsec = abs,
			.count_handles = count,
			.flags = flags,
		};

		KUNIT_ASSERT_EQ(test, copy_to_user(sf->args, &args, sizeof(args)), 0);
		ret = drm_ioctl(sf->file, DRM_IOCTL_SYNCOBJ_WAIT, (unsigned long)sf->args);
	}
	OPTIMIZER_HIDE_VAR(ret);
	return ret;
}

/* The one record a wait made, with what every syncobj record has. */
static const struct i915_stall_record *
syncobj_record(struct kunit *test, struct syncobj_fixture *sf, u16 site, u32 count,
	       u32 sync_flags)
{
	struct stall_snapshot *snap = i915_stall_test_snapshot(test, sf->f->log);
	const struct i915_stall_record *r;

	/* One record: the request hooks saw nothing of the same wait. */
	KUNIT_ASSERT_EQ(test, snap_header(snap)->record_count, 1);
	r = snap_rec(snap, 0);
	KUNIT_EXPECT_EQ(test, r->site, site);
	KUNIT_EXPECT_EQ(test, r->fence_count, count);
	KUNIT_EXPECT_EQ(test, r->sync_flags, sync_flags);
	KUNIT_EXPECT_EQ(test, r->wait_flags, I915_WAIT_INTERRUPTIBLE);
	KUNIT_EXPECT_EQ(test, r->pid, task_pid_nr(current));
	KUNIT_EXPECT_EQ(test, r->spin_ns, 0);
	KUNIT_EXPECT_TRUE(test, kstack_has(test, r, "drm_syncobj_array_wait_timeout"));
	KUNIT_EXPECT_TRUE(test, kstack_has(test, r, "drm_ioctl"));
	KUNIT_EXPECT_TRUE(test, kstack_has(test, r, "syncobj_wait_caller"));
	return r;
}

static void expect_request(struct kunit *test, const struct i915_stall_record *r,
			   const struct i915_request *rq)
{
	/* the mock engine counts the requests ahead: see stall_mock_ahead */
	KUNIT_EXPECT_EQ(test, r->flags & ~I915_STALL_F_KSTACK_TRUNC,
			I915_STALL_F_KTHREAD | I915_STALL_F_FENCE | I915_STALL_F_ENGINE |
			I915_STALL_F_AHEAD);
	KUNIT_EXPECT_EQ(test, r->fence_context, rq->fence.context);
	KUNIT_EXPECT_EQ(test, r->fence_seqno, rq->fence.seqno);
	KUNIT_EXPECT_EQ(test, r->engine_class, rq->engine->uabi_class);
	KUNIT_EXPECT_EQ(test, r->engine_instance, rq->engine->uabi_instance);
}

/*
 * The ioctl turned the absolute timeout into the jiffies left, plus one
 * (drm_timeout_abs_to_jiffies()), after syncobj_wait_caller() computed it
 * @ms ahead and before the wait began: more than was left at start_ns, at
 * most @ms and a tick.  Under TCG the page faults and the lookup between
 * the two take ticks: the jiffies left depend on them, not on @ms alone.
 */
static void expect_timeout(struct kunit *test, const struct syncobj_fixture *sf,
			   const struct i915_stall_record *r, unsigned int ms)
{
	KUNIT_EXPECT_GT(test, r->timeout_ns, sf->timeout_nsec - r->start_ns);
	KUNIT_EXPECT_LE(test, r->timeout_ns, ms * NSEC_PER_MSEC + TICK_NSEC);
}

/* See expect_ended_after(): @t0 precedes what starts the clock. */
static void expect_duration(struct kunit *test, const struct i915_stall_record *r,
			    u64 t0, unsigned long jiffies)
{
	expect_ended_after(test, r, t0, jiffies);
	KUNIT_EXPECT_LT(test, r->duration_ns, jiffies_to_nsecs(jiffies) + MOCK_SLACK_NS);
}

/* All of two requests: one record, named by the first, as long as both. */
static void stall_syncobj_all(struct kunit *test)
{
	struct syncobj_fixture *sf = syncobj_fixture(test);
	const u64 t0 = ktime_get_ns();
	struct intel_context *ce = sf->f->engine->kernel_context;
	struct i915_request *a = submit(test, ce, MOCK_DELAY);
	struct i915_request *b = submit(test, ce, MOCK_DELAY);
	const struct i915_stall_record *r;
	u32 h[2];

	h[0] = syncobj_new(test, sf, &a->fence, NULL);
	h[1] = syncobj_new(test, sf, &b->fence, NULL);
	KUNIT_ASSERT_EQ(test, syncobj_wait_caller(test, sf, h, NULL, 2,
						  DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, -1), 0);
	KUNIT_EXPECT_TRUE(test, i915_request_completed(b));

	r = syncobj_record(test, sf, I915_STALL_SITE_SYNCOBJ, 2, I915_STALL_SYNC_WAIT_ALL);
	expect_request(test, r, a);
	expect_duration(test, r, t0, 2 * MOCK_DELAY);
	KUNIT_EXPECT_EQ(test, r->outcome, I915_STALL_COMPLETED);
	KUNIT_EXPECT_EQ(test, r->timeout_ns, I915_STALL_TIMEOUT_NONE);
}

/* Any of two: ends with the first, which names it; the second still runs. */
static void stall_syncobj_any(struct kunit *test)
{
	struct syncobj_fixture *sf = syncobj_fixture(test);
	const u64 t0 = ktime_get_ns();
	struct intel_context *ce = sf->f->engine->kernel_context;
	struct i915_request *a = submit(test, ce, MOCK_DELAY);
	/* b runs after a, and cannot end on its own before the test does */
	struct i915_request *b = submit(test, ce, MOCK_FOREVER);
	const struct i915_stall_record *r;
	u32 h[2];

	h[0] = syncobj_new(test, sf, &b->fence, NULL);
	h[1] = syncobj_new(test, sf, &a->fence, NULL);
	KUNIT_ASSERT_EQ(test, syncobj_wait_caller(test, sf, h, NULL, 2, 0, 10000), 0);
	KUNIT_EXPECT_FALSE(test, i915_request_completed(b));
	mock_complete_now(b);

	r = syncobj_record(test, sf, I915_STALL_SITE_SYNCOBJ, 2, 0);
	/* The first unsignalled request in handle order. */
	expect_request(test, r, b);
	expect_duration(test, r, t0, MOCK_DELAY);
	KUNIT_EXPECT_LT(test, r->duration_ns, jiffies_to_nsecs(MOCK_FOREVER));
	KUNIT_EXPECT_EQ(test, r->outcome, I915_STALL_COMPLETED);
	expect_timeout(test, sf, r, 10000);
	KUNIT_ASSERT_GT(test, i915_request_wait(b, 0, 10 * HZ), 0);
}

/* A timeline point: the request is found inside the dma_fence_chain. */
static void stall_syncobj_timeline(struct kunit *test)
{
	struct syncobj_fixture *sf = syncobj_fixture(test);
	const u64 t0 = ktime_get_ns();
	struct i915_request *rq = submit(test, sf->f->engine->kernel_context, MOCK_DELAY);
	const struct i915_stall_record *r;
	struct drm_syncobj *syncobj;
	struct dma_fence_chain *chain;
	u64 point = 5;
	u32 h;

	h = syncobj_new(test, sf, NULL, &syncobj);
	chain = dma_fence_chain_alloc();
	KUNIT_ASSERT_NOT_NULL(test, chain);
	drm_syncobj_add_point(syncobj, chain, &rq->fence, point);

	KUNIT_ASSERT_EQ(test, syncobj_wait_caller(test, sf, &h, &point, 1,
						  DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, -1), 0);
	r = syncobj_record(test, sf, I915_STALL_SITE_SYNCOBJ_TIMELINE, 1,
			   I915_STALL_SYNC_WAIT_ALL);
	expect_request(test, r, rq);
	expect_duration(test, r, t0, MOCK_DELAY);
}

/* A fence array (a merged sync_file): the unsignalled request inside. */
static void stall_syncobj_array(struct kunit *test)
{
	struct syncobj_fixture *sf = syncobj_fixture(test);
	const u64 t0 = ktime_get_ns();
	struct intel_context *ce = sf->f->engine->kernel_context;
	struct i915_request *done = submit(test, ce, 0);
	struct i915_request *rq;
	struct dma_fence_array *array;
	struct dma_fence **fences;
	const struct i915_stall_record *r;
	u32 h;

	KUNIT_ASSERT_GT(test, i915_request_wait(done, 0, HZ), 0);
	rq = submit(test, ce, MOCK_DELAY);
	fences = kmalloc_array(2, sizeof(*fences), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fences);
	fences[0] = dma_fence_get(&done->fence);
	fences[1] = dma_fence_get(&rq->fence);
	array = dma_fence_array_create(2, fences, dma_fence_context_alloc(1), 1, false);
	KUNIT_ASSERT_NOT_NULL(test, array);

	h = syncobj_new(test, sf, &array->base, NULL);
	dma_fence_put(&array->base);
	KUNIT_ASSERT_EQ(test, syncobj_wait_caller(test, sf, &h, NULL, 1, 0, -1), 0);
	r = syncobj_record(test, sf, I915_STALL_SITE_SYNCOBJ, 1, 0);
	expect_request(test, r, rq);
	expect_duration(test, r, t0, MOCK_DELAY);
}

struct late_fence {
	struct work_struct work;
	struct drm_syncobj *syncobj;
	struct dma_fence *fence;
};

static void late_fence_fn(struct work_struct *work)
{
	struct late_fence *lf = container_of(work, typeof(*lf), work);

	drm_syncobj_replace_fence(lf->syncobj, lf->fence);
}

/*
 * A probe on drm_syncobj_wait_begin below the default priority, so that
 * it runs after the log's: the wait is about to sleep and the log has
 * seen no fence.  Only then does the fence arrive.
 */
static void late_fence_begin(void *data, const struct drm_syncobj_wait_info *wait)
{
	struct late_fence *lf = data;

	queue_work(system_unbound_wq, &lf->work);
}

/*
 * WAIT_FOR_SUBMIT on a syncobj with no fence yet: the fence arrives once
 * the wait is about to sleep (ordered by a probe, not by a delay), and is
 * never named: a fence that appears during the wait may be signalled and
 * retired by its end.
 */
static void stall_syncobj_for_submit(struct kunit *test)
{
	struct syncobj_fixture *sf = syncobj_fixture(test);
	struct late_fence lf = {};
	const struct i915_stall_record *r;
	struct i915_request *rq;
	u64 t0, t1;
	int err;
	u32 h;

	h = syncobj_new(test, sf, NULL, &lf.syncobj);
	t0 = ktime_get_ns();
	rq = submit(test, sf->f->engine->kernel_context, 2 * MOCK_DELAY);
	lf.fence = &rq->fence;
	INIT_WORK_ONSTACK(&lf.work, late_fence_fn);
	err = register_trace_prio_drm_syncobj_wait_begin(late_fence_begin, &lf,
							 TRACEPOINT_DEFAULT_PRIO - 1);
	KUNIT_ASSERT_EQ(test, err, 0);

	KUNIT_EXPECT_EQ(test, syncobj_wait_caller(test, sf, &h, NULL, 1,
						  DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, -1), 0);
	t1 = ktime_get_ns();
	unregister_trace_drm_syncobj_wait_begin(late_fence_begin, &lf);
	tracepoint_synchronize_unregister();
	flush_work(&lf.work);
	destroy_work_on_stack(&lf.work);

	r = syncobj_record(test, sf, I915_STALL_SITE_SYNCOBJ, 1,
			   I915_STALL_SYNC_FOR_SUBMIT | I915_STALL_SYNC_UNSUBMITTED);
	KUNIT_EXPECT_EQ(test, r->flags & ~I915_STALL_F_KSTACK_TRUNC, I915_STALL_F_KTHREAD);
	KUNIT_EXPECT_EQ(test, r->engine_class, I915_STALL_ENGINE_NONE);
	/* It ended with the request, which ran from its submission on. */
	KUNIT_EXPECT_GE(test, r->start_ns, t0);
	KUNIT_EXPECT_GE(test, r->start_ns + r->duration_ns,
			t0 + jiffies_to_nsecs(2 * MOCK_DELAY) - 2 * TICK_NSEC);
	KUNIT_EXPECT_LE(test, r->start_ns + r->duration_ns, t1);
}

static void stall_syncobj_timeout(struct kunit *test)
{
	struct syncobj_fixture *sf = syncobj_fixture(test);
	const u64 t0 = ktime_get_ns();
	struct i915_request *rq = submit(test, sf->f->engine->kernel_context, MOCK_FOREVER);
	const struct i915_stall_record *r;
	u32 h = syncobj_new(test, sf, &rq->fence, NULL);

	KUNIT_EXPECT_EQ(test, syncobj_wait_caller(test, sf, &h, NULL, 1, 0,
						  jiffies_to_msecs(MOCK_DELAY)), -ETIME);
	mock_complete_now(rq);
	r = syncobj_record(test, sf, I915_STALL_SITE_SYNCOBJ, 1, 0);
	expect_request(test, r, rq);
	KUNIT_EXPECT_EQ(test, r->outcome, I915_STALL_TIMEDOUT);
	KUNIT_EXPECT_EQ(test, r->error, 0);
	expect_duration(test, r, t0, MOCK_DELAY);
	expect_timeout(test, sf, r, jiffies_to_msecs(MOCK_DELAY));
	KUNIT_ASSERT_GT(test, i915_request_wait(rq, 0, 10 * HZ), 0);
}

struct late_signal {
	struct delayed_work work;
	struct task_struct *task;
};

static void late_signal_fn(struct work_struct *work)
{
	struct late_signal *ls = container_of(work, typeof(*ls), work.work);

	send_sig(SIGUSR1, ls->task, 1);
}

/* A signal ends the wait while it sleeps. */
static void stall_syncobj_interrupted(struct kunit *test)
{
	struct syncobj_fixture *sf = syncobj_fixture(test);
	const u64 t0 = ktime_get_ns();
	struct i915_request *rq = submit(test, sf->f->engine->kernel_context, MOCK_FOREVER);
	struct late_signal ls = { .task = current };
	const struct i915_stall_record *r;
	u32 h = syncobj_new(test, sf, &rq->fence, NULL);
	long ret;

	allow_signal(SIGUSR1);
	INIT_DELAYED_WORK_ONSTACK(&ls.work, late_signal_fn);
	schedule_delayed_work(&ls.work, MOCK_DELAY);
	ret = syncobj_wait_caller(test, sf, &h, NULL, 1, 0, -1);
	flush_delayed_work(&ls.work);
	destroy_delayed_work_on_stack(&ls.work);
	flush_signals(current);
	disallow_signal(SIGUSR1);

	KUNIT_EXPECT_EQ(test, ret, -ERESTARTSYS);
	r = syncobj_record(test, sf, I915_STALL_SITE_SYNCOBJ, 1, 0);
	expect_request(test, r, rq);
	KUNIT_EXPECT_EQ(test, r->outcome, I915_STALL_INTERRUPTED);
	expect_duration(test, r, t0, MOCK_DELAY);
	mock_complete_now(rq);
	KUNIT_ASSERT_GT(test, i915_request_wait(rq, 0, 10 * HZ), 0);
}

/* Signalled already: the wait never sleeps and nothing is recorded. */
static void stall_syncobj_signalled(struct kunit *test)
{
	struct syncobj_fixture *sf = syncobj_fixture(test);
	struct i915_request *rq = submit(test, sf->f->engine->kernel_context, 0);
	struct stall_snapshot *snap;
	u32 h = syncobj_new(test, sf, &rq->fence, NULL);

	KUNIT_ASSERT_GT(test, i915_request_wait(rq, 0, HZ), 0);
	i915_stall_test_threshold_us(sf->f->log, 0);
	KUNIT_EXPECT_EQ(test, syncobj_wait_caller(test, sf, &h, NULL, 1, 0, -1), 0);
	snap = i915_stall_test_snapshot(test, sf->f->log);
	KUNIT_EXPECT_EQ(test, snap_header(snap)->record_count, 0);
}

/* With the log disabled, DRM core calls no hook: nothing is recorded. */
static void stall_syncobj_disabled(struct kunit *test)
{
	struct syncobj_fixture *sf = syncobj_fixture(test);
	struct i915_request *rq = submit(test, sf->f->engine->kernel_context, MOCK_DELAY);
	struct stall_snapshot *snap;
	u32 h = syncobj_new(test, sf, &rq->fence, NULL);

	KUNIT_ASSERT_EQ(test, i915_stall_test_enable(sf->f->log, false), 0);
	KUNIT_EXPECT_FALSE(test, static_key_enabled(&i915_stall_key));
	KUNIT_EXPECT_EQ(test, syncobj_wait_caller(test, sf, &h, NULL, 1, 0, -1), 0);
	KUNIT_ASSERT_EQ(test, i915_stall_test_enable(sf->f->log, true), 0);
	snap = i915_stall_test_snapshot(test, sf->f->log);
	KUNIT_EXPECT_EQ(test, snap_header(snap)->record_count, 0);
}

static struct kunit_case stall_syncobj_cases[] = {
	KUNIT_CASE(stall_syncobj_all),
	KUNIT_CASE(stall_syncobj_any),
	KUNIT_CASE(stall_syncobj_timeline),
	KUNIT_CASE(stall_syncobj_array),
	KUNIT_CASE(stall_syncobj_for_submit),
	KUNIT_CASE(stall_syncobj_timeout),
	KUNIT_CASE(stall_syncobj_interrupted),
	KUNIT_CASE(stall_syncobj_signalled),
	KUNIT_CASE(stall_syncobj_disabled),
	{}
};

static struct kunit_suite stall_syncobj_suite = {
	.name = "i915_stall_syncobj",
	.init = mock_init,
	.test_cases = stall_syncobj_cases,
};

kunit_test_suite(stall_syncobj_suite);
