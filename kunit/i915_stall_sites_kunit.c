// SPDX-License-Identifier: MIT
/*
 * Copyright © 2026 The i915 stall log authors
 *
 * KUnit tests of the wait sites of the stall log, #included at the end of
 * i915_stall_sites.c so they reach its static functions: suite
 * i915_stall_mock, stalls on i915's mock GPU through the real wait paths
 * (i915_request_wait(), i915_active_wait(), i915_gem_object_wait(), bind
 * and unbind).  Test cases run in kernel threads: their records have the
 * KTHREAD flag and no user stack.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/dma-fence-array.h>
#include <linux/dma-fence-chain.h>
#include <linux/file.h>
#include <linux/kthread.h>
#include <linux/mman.h>
#include <linux/tracepoint.h>

#include "gem/i915_gem_context.h"
#include "gem/i915_gem_internal.h"
#include "gem/selftests/mock_context.h"
#include "gt/intel_context.h"
#include "gt/intel_gt.h"
#include "gt/mock_engine.h"
#include "i915_active.h"
#include "i915_trace.h"
#include "i915_vma.h"
#include "selftests/mock_drm.h"
#include "selftests/mock_gem_device.h"
#include "selftests/mock_request.h"

#include <drm/drm_file.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_syncobj.h>

#include "i915_stall_kunit.h"
#include "i915_stall_trace.h"

/* Stalls on i915's mock GPU, through the real wait code. */

struct mock_fixture {
	struct drm_i915_private *i915;
	struct intel_engine_cs *engine;
	struct i915_stall_log *log;
};

/* A deferred action, so that it runs after the test's own (LIFO). */
static void mock_teardown(void *arg)
{
	struct drm_i915_private *i915 = arg;

	mock_device_flush(i915);
	i915_stall_fini(i915);
	mock_destroy_device(i915);
}

static int mock_init(struct kunit *test)
{
	struct mock_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->i915 = mock_gem_device();
	KUNIT_ASSERT_NOT_NULL(test, f->i915);
	if (i915_stall_init(f->i915)) {
		mock_destroy_device(f->i915);
		KUNIT_FAIL_AND_ABORT(test, "no stall log");
	}
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mock_teardown, f->i915), 0);
	f->engine = to_gt(f->i915)->engine[RCS0];
	f->log = rcu_dereference_protected(f->i915->stall_log, true);
	i915_stall_test_threshold_us(f->log, 1000); /* 1 ms */
	KUNIT_ASSERT_EQ(test, i915_stall_test_enable(f->log, true), 0);
	test->priv = f;
	return 0;
}

static bool kstack_has(struct kunit *test, const struct i915_stall_record *r,
		       const char *fn)
{
	unsigned int i;

	for (i = 0; i < r->kstack_depth; i++)
		if (i915_stall_test_frame_is(r->kstack[i], fn))
			return true;

	kunit_info(test, "%s not in the kernel stack:\n", fn);
	for (i = 0; i < r->kstack_depth; i++)
		kunit_info(test, "  #%u %pS\n", i, (void *)r->kstack[i]);
	return false;
}

static void request_put(void *rq)
{
	i915_request_put(rq);
}

/* Submit a mock request of @delay jiffies on @ce; put when the test ends. */
static struct i915_request *submit(struct kunit *test, struct intel_context *ce,
				   unsigned long delay)
{
	struct i915_request *rq = mock_request(ce, delay);

	KUNIT_ASSERT_FALSE(test, IS_ERR(rq));
	i915_request_get(rq);
	i915_request_add(rq);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, request_put, rq), 0);
	return rq;
}

/*
 * End the request the mock engine is running, @rq, now: its timer fires
 * at once, whatever delay the request was given.
 */
static void mock_complete_now(struct i915_request *rq)
{
	struct mock_engine *engine = container_of(rq->engine, struct mock_engine, base);

	mod_timer(&engine->hw_delay, jiffies);
}

/* Not a tail call, so that the function shows in the stack. */
static noinline long mock_wait_caller(struct i915_request *rq, long timeout)
{
	long ret = i915_request_wait(rq, 0, timeout);

	OPTIMIZER_HIDE_VAR(ret);
	return ret;
}

#define MOCK_DELAY	(HZ / 10)

/*
 * The wait of @r ended no sooner than @delay jiffies after @t0, taken
 * before the work it waited for was made: by events, not by how soon the
 * test reached the wait, which TCG on a busy host can delay.
 */
static void expect_ended_after(struct kunit *test, const struct i915_stall_record *r,
			       u64 t0, unsigned long delay)
{
	KUNIT_EXPECT_GE(test, r->start_ns, t0);
	KUNIT_EXPECT_GE(test, r->start_ns + r->duration_ns,
			t0 + jiffies_to_nsecs(delay) - 2 * TICK_NSEC);
}

/* A request that no test waits out: it ends when mock_complete_now() says. */
#define MOCK_FOREVER	(60 * HZ)
/* TCG, KASAN and lockdep slow everything down: allow two seconds. */
#define MOCK_SLACK_NS	(2 * NSEC_PER_SEC)

static void stall_mock_request_wait(struct kunit *test)
{
	struct mock_fixture *f = test->priv;
	const struct i915_stall_record *r;
	struct stall_snapshot *snap;
	struct i915_request *rq;
	u64 t0;
	long ret;

	t0 = ktime_get_ns();
	rq = submit(test, f->engine->kernel_context, MOCK_DELAY);

	ret = mock_wait_caller(rq, HZ);
	KUNIT_EXPECT_GT(test, ret, 0);

	snap = i915_stall_test_snapshot(test, f->log);
	KUNIT_ASSERT_EQ(test, snap_header(snap)->record_count, 1);
	r = snap_rec(snap, 0);
	KUNIT_EXPECT_EQ(test, r->site, I915_STALL_SITE_REQUEST);
	KUNIT_EXPECT_EQ(test, r->outcome, I915_STALL_COMPLETED);
	KUNIT_EXPECT_EQ(test, r->engine_class, f->engine->uabi_class);
	KUNIT_EXPECT_EQ(test, r->engine_instance, f->engine->uabi_instance);
	KUNIT_EXPECT_EQ(test, r->fence_context, rq->fence.context);
	KUNIT_EXPECT_EQ(test, r->fence_seqno, rq->fence.seqno);
	KUNIT_EXPECT_EQ(test, r->timeout_ns, jiffies_to_nsecs(HZ));
	KUNIT_EXPECT_EQ(test, r->flags & ~I915_STALL_F_KSTACK_TRUNC,
			I915_STALL_F_KTHREAD | I915_STALL_F_ENGINE | I915_STALL_F_FENCE |
			I915_STALL_F_AHEAD);
	KUNIT_EXPECT_EQ(test, r->ahead, 0);
	expect_ended_after(test, r, t0, MOCK_DELAY);
	KUNIT_EXPECT_LT(test, r->duration_ns, jiffies_to_nsecs(MOCK_DELAY) + MOCK_SLACK_NS);
	KUNIT_EXPECT_LE(test, r->spin_ns, r->duration_ns);
	KUNIT_EXPECT_EQ(test, r->pid, task_pid_nr(current));

	KUNIT_EXPECT_TRUE_MSG(test,
			      i915_stall_test_frame_is(r->kstack[0], "i915_request_wait_timeout"),
			      "%pS", (void *)r->kstack[0]);
	KUNIT_EXPECT_TRUE(test, kstack_has(test, r, "mock_wait_caller"));
	KUNIT_EXPECT_TRUE(test, kstack_has(test, r, "stall_mock_request_wait"));
	KUNIT_EXPECT_TRUE_MSG(test, i915_stall_test_frame_is(r->caller, "i915_request_wait"),
			      "%pS", (void *)r->caller);
}

struct trace_seen {
	unsigned int count;
	const struct drm_device *drm;
	struct i915_stall_record r;
};

static void trace_probe(void *data, const struct drm_device *drm,
			const struct i915_stall_record *r)
{
	struct trace_seen *seen = data;

	/* data race ok: the test reads it once the probe is unregistered */
	if (!seen->count++) {
		seen->drm = drm;
		memcpy(&seen->r, r, offsetof(struct i915_stall_record, kstack));
	}
}

/*
 * The i915_stall tracepoint fires once per record, with the record's
 * fields, and not for a stall under the threshold.
 */
static void stall_mock_tracepoint(struct kunit *test)
{
	struct mock_fixture *f = test->priv;
	struct trace_seen seen = {};
	const struct i915_stall_record *r;
	struct stall_snapshot *snap;
	struct i915_request *rq;

	KUNIT_ASSERT_EQ(test, register_trace_i915_stall(trace_probe, &seen), 0);
	rq = submit(test, f->engine->kernel_context, MOCK_DELAY);
	KUNIT_EXPECT_GT(test, mock_wait_caller(rq, HZ), 0);
	i915_stall_test_threshold_us(f->log, 60 * USEC_PER_SEC);
	rq = submit(test, f->engine->kernel_context, MOCK_DELAY);
	KUNIT_EXPECT_GT(test, mock_wait_caller(rq, HZ), 0);
	unregister_trace_i915_stall(trace_probe, &seen);
	tracepoint_synchronize_unregister();

	snap = i915_stall_test_snapshot(test, f->log);
	KUNIT_ASSERT_EQ(test, snap_header(snap)->record_count, 1);
	KUNIT_ASSERT_EQ(test, seen.count, 1);
	r = snap_rec(snap, 0);
	KUNIT_EXPECT_PTR_EQ(test, seen.drm, &f->i915->drm);
	KUNIT_EXPECT_EQ(test, seen.r.site, I915_STALL_SITE_REQUEST);
	KUNIT_EXPECT_EQ(test, seen.r.start_ns, r->start_ns);
	KUNIT_EXPECT_EQ(test, seen.r.duration_ns, r->duration_ns);
	KUNIT_EXPECT_EQ(test, seen.r.fence_context, r->fence_context);
	KUNIT_EXPECT_EQ(test, seen.r.fence_seqno, r->fence_seqno);
	KUNIT_EXPECT_EQ(test, seen.r.pid, r->pid);
	KUNIT_EXPECT_EQ(test, seen.r.flags, r->flags);
}

/*
 * A probe on i915_request_wait_begin: a wait on the request @data is past
 * its first look at the fence, so it will sleep and be recorded; only now
 * is the request given its end, MOCK_DELAY from here.
 */
static void end_on_wait_begin(void *data, struct i915_request *rq, unsigned int flags)
{
	if (rq == data)
		mod_timer(&container_of(rq->engine, struct mock_engine, base)->hw_delay,
			  jiffies + MOCK_DELAY);
}

static void stall_mock_request_timeout(struct kunit *test)
{
	struct mock_fixture *f = test->priv;
	const struct i915_stall_record *r, *done;
	struct stall_snapshot *snap;
	struct i915_request *rq;

	/* It cannot end on its own before the timed wait does. */
	rq = submit(test, f->engine->kernel_context, MOCK_FOREVER);

	KUNIT_EXPECT_EQ(test, mock_wait_caller(rq, MOCK_DELAY), -ETIME);
	/*
	 * Ended once the second wait has begun, not before it: a request
	 * ended first (mock_complete_now()) may be done before that wait
	 * looks, which then records nothing, as a busy host showed.
	 */
	KUNIT_ASSERT_EQ(test, register_trace_i915_request_wait_begin(end_on_wait_begin, rq), 0);
	KUNIT_EXPECT_GT(test, mock_wait_caller(rq, 10 * HZ), 0);
	unregister_trace_i915_request_wait_begin(end_on_wait_begin, rq);
	tracepoint_synchronize_unregister();

	snap = i915_stall_test_snapshot(test, f->log);
	KUNIT_ASSERT_EQ(test, snap_header(snap)->record_count, 2);
	/* The file groups records by CPU: the waiter may have migrated. */
	r = snap_rec(snap, 0);
	done = snap_rec(snap, 1);
	if (r->start_ns > done->start_ns)
		swap(r, done);
	KUNIT_EXPECT_EQ(test, r->outcome, I915_STALL_TIMEDOUT);
	KUNIT_EXPECT_EQ(test, r->error, 0);
	KUNIT_EXPECT_GE(test, r->duration_ns, jiffies_to_nsecs(MOCK_DELAY) - TICK_NSEC);
	KUNIT_EXPECT_EQ(test, done->outcome, I915_STALL_COMPLETED);
	KUNIT_EXPECT_EQ(test, done->fence_seqno, r->fence_seqno);
	KUNIT_EXPECT_GE(test, done->start_ns, r->start_ns + r->duration_ns);
}

/*
 * A stall counts the requests its engine had to run before the awaited one
 * when the wait began, and says whether that one has a submit record; a
 * kernel thread's requests make none.
 */
static void stall_mock_ahead(struct kunit *test)
{
	struct mock_fixture *f = test->priv;
	struct intel_context *ce = f->engine->kernel_context;
	const struct i915_stall_record *r = NULL;
	struct stall_snapshot *snap;
	struct i915_request *a, *b;
	struct i915_stall_wait w;
	u64 i;

	/* b cannot end before a, and a not before the test says so. */
	a = submit(test, ce, MOCK_FOREVER);
	b = submit(test, ce, MOCK_DELAY);
	KUNIT_EXPECT_FALSE(test, test_bit(I915_FENCE_FLAG_STALL_SUBMIT, &a->fence.flags));
	KUNIT_EXPECT_FALSE(test, test_bit(I915_FENCE_FLAG_STALL_SUBMIT, &b->fence.flags));

	KUNIT_ASSERT_TRUE(test, i915_stall_begin(&w));
	__i915_stall_capture_request(&w, b);
	KUNIT_EXPECT_EQ(test, w.flags, I915_STALL_F_FENCE | I915_STALL_F_ENGINE |
			I915_STALL_F_AHEAD);
	KUNIT_EXPECT_EQ(test, w.ahead, 1);
	KUNIT_ASSERT_TRUE(test, i915_stall_begin(&w));
	__i915_stall_capture_request(&w, a);
	KUNIT_EXPECT_EQ(test, w.flags & I915_STALL_F_AHEAD, I915_STALL_F_AHEAD);
	KUNIT_EXPECT_EQ(test, w.ahead, 0);

	/* As if a user task had submitted b: its stall says so. */
	set_bit(I915_FENCE_FLAG_STALL_SUBMIT, &b->fence.flags);
	KUNIT_EXPECT_EQ(test, mock_wait_caller(b, MOCK_DELAY), -ETIME);

	mock_complete_now(a);
	KUNIT_EXPECT_GT(test, i915_request_wait(a, 0, 10 * HZ), 0);
	KUNIT_ASSERT_TRUE(test, i915_stall_begin(&w));
	__i915_stall_capture_request(&w, b);
	KUNIT_EXPECT_EQ(test, w.flags & (I915_STALL_F_AHEAD | I915_STALL_F_SUBMITTED),
			I915_STALL_F_AHEAD | I915_STALL_F_SUBMITTED);
	KUNIT_EXPECT_EQ(test, w.ahead, 0);
	KUNIT_EXPECT_GT(test, i915_request_wait(b, 0, 10 * HZ), 0);

	snap = i915_stall_test_snapshot(test, f->log);
	KUNIT_EXPECT_EQ(test, snap_header(snap)->submit_record_count, 0);
	for (i = 0; i < snap_header(snap)->record_count; i++) {
		const struct i915_stall_record *q = snap_rec(snap, i);

		if (q->fence_seqno == b->fence.seqno && q->outcome == I915_STALL_TIMEDOUT)
			r = q;
	}
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->flags & (I915_STALL_F_AHEAD | I915_STALL_F_SUBMITTED),
			I915_STALL_F_AHEAD | I915_STALL_F_SUBMITTED);
	KUNIT_EXPECT_EQ(test, r->ahead, 1);
}

/* Waiting on a request that already completed records nothing. */
static void stall_mock_request_complete(struct kunit *test)
{
	struct mock_fixture *f = test->priv;
	struct stall_snapshot *snap;
	struct i915_request *rq;

	rq = submit(test, f->engine->kernel_context, MOCK_DELAY);
	KUNIT_ASSERT_GT(test, mock_wait_caller(rq, HZ), 0);

	i915_stall_test_threshold_us(f->log, 0);
	KUNIT_EXPECT_GT(test, mock_wait_caller(rq, HZ), 0);
	KUNIT_EXPECT_GT(test, mock_wait_caller(rq, HZ), 0);

	snap = i915_stall_test_snapshot(test, f->log);
	KUNIT_EXPECT_EQ(test, snap_header(snap)->record_count, 1);
}

static void stall_mock_threshold(struct kunit *test)
{
	struct mock_fixture *f = test->priv;
	struct stall_snapshot *snap;
	struct i915_request *rq;

	i915_stall_test_threshold_us(f->log, 2 * USEC_PER_SEC);
	rq = submit(test, f->engine->kernel_context, MOCK_DELAY);
	KUNIT_EXPECT_GT(test, mock_wait_caller(rq, HZ), 0);

	snap = i915_stall_test_snapshot(test, f->log);
	KUNIT_EXPECT_EQ(test, snap_header(snap)->record_count, 0);
}

static void stall_mock_disabled(struct kunit *test)
{
	struct mock_fixture *f = test->priv;
	struct stall_snapshot *snap;
	struct i915_request *rq;
	unsigned int cpu;

	KUNIT_ASSERT_EQ(test, i915_stall_test_enable(f->log, false), 0);
	rq = submit(test, f->engine->kernel_context, MOCK_DELAY);
	KUNIT_EXPECT_GT(test, mock_wait_caller(rq, HZ), 0);

	snap = i915_stall_test_snapshot(test, f->log);
	KUNIT_EXPECT_EQ(test, snap_header(snap)->record_count, 0);
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		KUNIT_EXPECT_EQ(test, snap_cpu(snap, cpu)->recorded, 0);
}

/* The awaited work's owner is the GEM context's creator. */
static void stall_mock_owner(struct kunit *test)
{
	struct mock_fixture *f = test->priv;
	const struct i915_stall_record *r;
	struct i915_gem_context *ctx;
	struct stall_snapshot *snap;
	struct intel_context *ce;
	struct i915_request *rq;

	ctx = mock_context(f->i915, "owner");
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->pid = get_task_pid(current, PIDTYPE_PID);
	snprintf(ctx->name, sizeof(ctx->name), "%s[%d]", current->comm,
		 pid_nr(ctx->pid));
	ce = i915_gem_context_get_engine(ctx, RCS0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ce));

	rq = submit(test, ce, MOCK_DELAY);
	KUNIT_EXPECT_GT(test, mock_wait_caller(rq, HZ), 0);

	snap = i915_stall_test_snapshot(test, f->log);
	KUNIT_ASSERT_EQ(test, snap_header(snap)->record_count, 1);
	r = snap_rec(snap, 0);
	KUNIT_EXPECT_TRUE(test, r->flags & I915_STALL_F_OWNER);
	KUNIT_EXPECT_EQ(test, r->owner_pid, task_pid_nr(current));
	KUNIT_EXPECT_STREQ(test, r->owner_comm, current->comm);

	intel_context_put(ce);
	mock_context_close(ctx);
}

static noinline int mock_active_caller(struct i915_active *ref, struct drm_i915_private *i915)
{
	int ret = i915_active_wait(ref, i915);

	OPTIMIZER_HIDE_VAR(ret);
	return ret;
}

static void stall_mock_active_wait(struct kunit *test)
{
	struct mock_fixture *f = test->priv;
	const struct i915_stall_record *r;
	struct stall_snapshot *snap;
	struct i915_request *rq;
	u64 t0;
	struct i915_active *ref;

	ref = kunit_kzalloc(test, sizeof(*ref), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ref);
	i915_active_init(ref, NULL, NULL, 0);

	t0 = ktime_get_ns();
	rq = mock_request(f->engine->kernel_context, MOCK_DELAY);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rq));
	KUNIT_ASSERT_EQ(test, i915_active_add_request(ref, rq), 0);
	i915_request_add(rq);

	KUNIT_EXPECT_EQ(test, mock_active_caller(ref, f->i915), 0);

	snap = i915_stall_test_snapshot(test, f->log);
	KUNIT_ASSERT_EQ(test, snap_header(snap)->record_count, 1);
	r = snap_rec(snap, 0);
	KUNIT_EXPECT_EQ(test, r->site, I915_STALL_SITE_ACTIVE);
	KUNIT_EXPECT_EQ(test, r->outcome, I915_STALL_COMPLETED);
	KUNIT_EXPECT_EQ(test, r->timeout_ns, I915_STALL_TIMEOUT_NONE);
	expect_ended_after(test, r, t0, MOCK_DELAY);
	KUNIT_EXPECT_LT(test, r->duration_ns, jiffies_to_nsecs(MOCK_DELAY) + MOCK_SLACK_NS);
	KUNIT_EXPECT_TRUE_MSG(test, i915_stall_test_frame_is(r->kstack[0], "__i915_active_wait"),
			      "%pS", (void *)r->kstack[0]);
	KUNIT_EXPECT_TRUE(test, kstack_has(test, r, "mock_active_caller"));
	i915_active_fini(ref);
}

/*
 * A fence of some other driver, signalled by a delayed work; freed by
 * dma_fence_free() when the last reference goes (@base comes first).
 */
struct foreign_fence {
	struct dma_fence base;
	spinlock_t lock; /* protects base */
	struct delayed_work work;
};

static const char *foreign_fence_name(struct dma_fence *fence)
{
	return "stall-test";
}

static const struct dma_fence_ops foreign_fence_ops = {
	.get_driver_name = foreign_fence_name,
	.get_timeline_name = foreign_fence_name,
};

static void foreign_fence_signal(struct work_struct *work)
{
	struct foreign_fence *ff = container_of(work, typeof(*ff), work.work);

	dma_fence_signal(&ff->base);
}

static void foreign_fence_free(void *arg)
{
	struct foreign_fence *ff = arg;

	cancel_delayed_work_sync(&ff->work);
	if (!dma_fence_is_signaled(&ff->base))
		dma_fence_signal(&ff->base);
	dma_fence_put(&ff->base);
}

/* A fence of another driver that signals @delay jiffies from now. */
static struct foreign_fence *foreign_fence(struct kunit *test, unsigned long delay)
{
	struct foreign_fence *ff;

	ff = kzalloc(sizeof(*ff), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ff);
	spin_lock_init(&ff->lock);
	dma_fence_init(&ff->base, &foreign_fence_ops, &ff->lock,
		       dma_fence_context_alloc(1), 7);
	INIT_DELAYED_WORK(&ff->work, foreign_fence_signal);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, foreign_fence_free, ff), 0);
	schedule_delayed_work(&ff->work, delay);
	return ff;
}

static void object_put(void *obj)
{
	i915_gem_object_put(obj);
}

static struct drm_i915_gem_object *test_object(struct kunit *test,
					       struct mock_fixture *f)
{
	struct drm_i915_gem_object *obj;

	obj = i915_gem_object_create_internal(f->i915, PAGE_SIZE);
	KUNIT_ASSERT_FALSE(test, IS_ERR(obj));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, object_put, obj), 0);
	return obj;
}

static void check_fence_record(struct kunit *test, const struct i915_stall_record *r,
			       unsigned int site, u64 context, u64 seqno, u64 t0)
{
	KUNIT_EXPECT_EQ(test, r->site, site);
	KUNIT_EXPECT_EQ(test, r->outcome, I915_STALL_COMPLETED);
	KUNIT_EXPECT_EQ(test, r->fence_context, context);
	KUNIT_EXPECT_EQ(test, r->fence_seqno, seqno);
	KUNIT_EXPECT_EQ(test, r->engine_class, I915_STALL_ENGINE_NONE);
	KUNIT_EXPECT_EQ(test, r->flags & ~I915_STALL_F_KSTACK_TRUNC,
			I915_STALL_F_KTHREAD | I915_STALL_F_FENCE);
	expect_ended_after(test, r, t0, MOCK_DELAY);
	KUNIT_EXPECT_LT(test, r->duration_ns, jiffies_to_nsecs(MOCK_DELAY) + MOCK_SLACK_NS);
}

static noinline long mock_object_wait_caller(struct drm_i915_gem_object *obj)
{
	long ret = i915_gem_object_wait(obj, 0, 10 * HZ);

	OPTIMIZER_HIDE_VAR(ret);
	return ret;
}

/* GEM_WAIT on an object whose reservation holds another driver's fence. */
static void stall_mock_object_wait(struct kunit *test)
{
	struct mock_fixture *f = test->priv;
	struct drm_i915_gem_object *obj = test_object(test, f);
	const u64 t0 = ktime_get_ns();
	struct foreign_fence *ff = foreign_fence(test, MOCK_DELAY);
	const struct i915_stall_record *r;
	struct stall_snapshot *snap;

	KUNIT_ASSERT_EQ(test, dma_resv_lock(obj->base.resv, NULL), 0);
	KUNIT_ASSERT_EQ(test, dma_resv_reserve_fences(obj->base.resv, 1), 0);
	dma_resv_add_fence(obj->base.resv, &ff->base, DMA_RESV_USAGE_WRITE);
	dma_resv_unlock(obj->base.resv);

	KUNIT_EXPECT_EQ(test, mock_object_wait_caller(obj), 0);

	snap = i915_stall_test_snapshot(test, f->log);
	KUNIT_ASSERT_EQ(test, snap_header(snap)->record_count, 1);
	r = snap_rec(snap, 0);
	check_fence_record(test, r, I915_STALL_SITE_OBJECT_FENCE, ff->base.context, 7, t0);
	/* i915_gem_object_wait_fence() may be inlined into its caller */
	KUNIT_EXPECT_TRUE_MSG(test,
			      i915_stall_test_frame_is(r->kstack[0],
						       "i915_gem_object_wait_fence") ||
			      i915_stall_test_frame_is(r->kstack[0],
						       "i915_gem_object_wait_reservation"),
			      "%pS", (void *)r->kstack[0]);
	KUNIT_EXPECT_TRUE(test, kstack_has(test, r, "i915_gem_object_wait"));
	KUNIT_EXPECT_TRUE(test, kstack_has(test, r, "mock_object_wait_caller"));
}

static struct i915_vma *test_ggtt_vma(struct kunit *test, struct mock_fixture *f)
{
	struct i915_vma *vma;

	vma = i915_vma_instance(test_object(test, f), &to_gt(f->i915)->ggtt->vm, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(vma));
	return vma;
}

static noinline int mock_pin_caller(struct i915_vma *vma)
{
	int ret = i915_ggtt_pin(vma, NULL, 0, PIN_GLOBAL);

	OPTIMIZER_HIDE_VAR(ret);
	return ret;
}

/* Pinning a vma waits for its bind fence: a foreign one, or an i915 request. */
static void stall_mock_bind_wait(struct kunit *test)
{
	struct mock_fixture *f = test->priv;
	struct i915_vma *vma = test_ggtt_vma(test, f);
	const u64 t0 = ktime_get_ns();
	struct foreign_fence *ff = foreign_fence(test, MOCK_DELAY);
	const struct i915_stall_record *r, *q;
	struct i915_request *rq;
	struct stall_snapshot *snap;

	/* The bind still in flight, as an async bind leaves it. */
	KUNIT_ASSERT_EQ(test, i915_active_acquire(&vma->active), 0);
	KUNIT_EXPECT_NULL(test, i915_active_set_exclusive(&vma->active, &ff->base));
	i915_active_release(&vma->active);

	KUNIT_ASSERT_EQ(test, mock_pin_caller(vma), 0);
	i915_vma_unpin(vma);

	/* An i915 request is recorded once, by the request wait. */
	rq = submit(test, f->engine->kernel_context, MOCK_DELAY);
	KUNIT_ASSERT_EQ(test, i915_active_acquire(&vma->active), 0);
	KUNIT_EXPECT_NULL(test, i915_active_set_exclusive(&vma->active, &rq->fence));
	i915_active_release(&vma->active);

	KUNIT_ASSERT_EQ(test, mock_pin_caller(vma), 0);
	i915_vma_unpin(vma);

	snap = i915_stall_test_snapshot(test, f->log);
	KUNIT_ASSERT_EQ(test, snap_header(snap)->record_count, 2);
	r = snap_rec(snap, 0);
	q = snap_rec(snap, 1);
	if (r->site != I915_STALL_SITE_FENCE)
		swap(r, q);
	check_fence_record(test, r, I915_STALL_SITE_FENCE, ff->base.context, 7, t0);
	KUNIT_EXPECT_TRUE_MSG(test,
			      i915_stall_test_frame_is(r->kstack[0], "i915_vma_wait_for_bind"),
			      "%pS", (void *)r->kstack[0]);
	KUNIT_EXPECT_TRUE(test, kstack_has(test, r, "i915_ggtt_pin"));
	KUNIT_EXPECT_TRUE(test, kstack_has(test, r, "mock_pin_caller"));

	KUNIT_EXPECT_EQ(test, q->site, I915_STALL_SITE_REQUEST);
	KUNIT_EXPECT_EQ(test, q->fence_context, rq->fence.context);
	KUNIT_EXPECT_EQ(test, q->fence_seqno, rq->fence.seqno);
	KUNIT_EXPECT_TRUE(test, kstack_has(test, q, "i915_vma_wait_for_bind"));
}

static noinline int mock_unbind_caller(struct i915_vma *vma)
{
	int ret;

	i915_gem_object_lock(vma->obj, NULL);
	ret = i915_vma_unbind(vma);
	i915_gem_object_unlock(vma->obj);
	OPTIMIZER_HIDE_VAR(ret);
	return ret;
}

/*
 * Unbinding a vma waits for the requests that use it (active_wait) and
 * then for its unbind fence, here held back by a foreign fence.
 */
static void stall_mock_unbind_wait(struct kunit *test)
{
	struct mock_fixture *f = test->priv;
	struct i915_vma *vma = test_ggtt_vma(test, f);
	struct foreign_fence *ff;
	const struct i915_stall_record *r, *q;
	struct stall_snapshot *snap;
	struct i915_request *rq;
	u64 unbind_context;

	KUNIT_ASSERT_EQ(test, i915_ggtt_pin(vma, NULL, 0, PIN_GLOBAL), 0);
	rq = mock_request(f->engine->kernel_context, MOCK_DELAY);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rq));
	KUNIT_ASSERT_EQ(test, i915_active_add_request(&vma->active, rq), 0);
	i915_request_add(rq);
	i915_vma_unpin(vma);

	/* Hold the unbind fence back until a foreign fence signals. */
	ff = foreign_fence(test, 2 * MOCK_DELAY);
	KUNIT_ASSERT_GE(test, i915_sw_fence_await_dma_fence(&vma->resource->chain,
							    &ff->base, 0, GFP_KERNEL), 0);
	unbind_context = vma->resource->unbind_fence.context;

	KUNIT_ASSERT_EQ(test, mock_unbind_caller(vma), 0);

	snap = i915_stall_test_snapshot(test, f->log);
	KUNIT_ASSERT_EQ(test, snap_header(snap)->record_count, 2);
	r = snap_rec(snap, 0);
	q = snap_rec(snap, 1);
	if (r->site != I915_STALL_SITE_ACTIVE)
		swap(r, q);
	KUNIT_EXPECT_EQ(test, r->site, I915_STALL_SITE_ACTIVE);
	KUNIT_EXPECT_TRUE_MSG(test, i915_stall_test_frame_is(r->kstack[0], "__i915_active_wait"),
			      "%pS", (void *)r->kstack[0]);
	KUNIT_EXPECT_TRUE(test, kstack_has(test, r, "i915_vma_unbind"));
	KUNIT_EXPECT_EQ(test, q->site, I915_STALL_SITE_FENCE);
	KUNIT_EXPECT_EQ(test, q->fence_context, unbind_context);
	KUNIT_EXPECT_TRUE(test, kstack_has(test, q, "__i915_vma_evict"));
	KUNIT_EXPECT_TRUE(test, kstack_has(test, q, "mock_unbind_caller"));
}

static int owner_fn(void *arg)
{
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/*
 * The request hook after the request retired and its context and owner
 * were freed: what another CPU may do while the waiter is preempted
 * between the end of its wait and the record.  Only what the begin hook
 * captured may be used; under KASAN, reading the request's context, engine
 * or owner at the end hook is a use-after-free report.
 */
static void stall_mock_request_retired(struct kunit *test)
{
	struct mock_fixture *f = test->priv;
	const struct i915_stall_record *r;
	struct i915_gem_context *ctx;
	struct stall_snapshot *snap;
	struct i915_stall_wait w;
	struct task_struct *owner;
	struct intel_context *ce;
	struct i915_request *rq;
	u64 context, seqno;
	pid_t owner_pid;
	int i;

	/* An owner whose pid only the GEM context references, once it exits. */
	owner = kthread_run(owner_fn, NULL, "stall-owner");
	KUNIT_ASSERT_FALSE(test, IS_ERR(owner));
	ctx = mock_context(f->i915, "retired");
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->pid = get_task_pid(owner, PIDTYPE_PID);
	owner_pid = pid_nr(ctx->pid);
	snprintf(ctx->name, sizeof(ctx->name), "stall-owner[%d]", owner_pid);
	ce = i915_gem_context_get_engine(ctx, RCS0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ce));
	rq = mock_request(ce, MOCK_DELAY);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rq));
	i915_request_get(rq);
	i915_request_add(rq);
	context = rq->fence.context;
	seqno = rq->fence.seqno;

	i915_stall_request_begin(&w, rq);
	KUNIT_ASSERT_GT(test, i915_request_wait(rq, 0, HZ), 0);

	kthread_stop(owner);
	intel_context_put(ce);
	mock_context_close(ctx);
	for (i = 0; i < 3; i++) {
		mock_device_flush(f->i915);
		flush_workqueue(f->i915->wq);
		rcu_barrier();
	}
	kvfree_rcu_barrier();

	/*
	 * One record from the wait itself, one from this end hook; the
	 * flushes above may wait too (they are stalls of their own).
	 */
	__i915_stall_request_end(rq->i915, &w, 0, 0, HZ, 1, _THIS_IP_);
	i915_request_put(rq);

	snap = i915_stall_test_snapshot(test, f->log);
	r = NULL;
	for (i = 0; i < snap_header(snap)->record_count; i++) {
		const struct i915_stall_record *q = snap_rec(snap, i);

		kunit_info(test, "record %d: site %u, caller %pS\n", i, q->site,
			   (void *)q->caller);
		if (i915_stall_test_frame_is(q->caller, "stall_mock_request_retired")) {
			KUNIT_EXPECT_NULL(test, r);
			r = q;
		}
	}
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_TRUE(test, i915_stall_test_frame_is(r->caller, "stall_mock_request_retired"));
	KUNIT_EXPECT_EQ(test, r->site, I915_STALL_SITE_REQUEST);
	KUNIT_EXPECT_EQ(test, r->flags & ~I915_STALL_F_KSTACK_TRUNC,
			I915_STALL_F_KTHREAD | I915_STALL_F_FENCE | I915_STALL_F_ENGINE |
			I915_STALL_F_OWNER | I915_STALL_F_AHEAD);
	KUNIT_EXPECT_EQ(test, r->ahead, 0);
	KUNIT_EXPECT_EQ(test, r->fence_context, context);
	KUNIT_EXPECT_EQ(test, r->fence_seqno, seqno);
	KUNIT_EXPECT_EQ(test, r->engine_class, f->engine->uabi_class);
	KUNIT_EXPECT_EQ(test, r->engine_instance, f->engine->uabi_instance);
	KUNIT_EXPECT_EQ(test, r->owner_pid, owner_pid);
	KUNIT_EXPECT_STREQ(test, r->owner_comm, "stall-owner");
}

/* A request that signalled before the begin hook gives no engine or owner. */
static void stall_mock_capture_signalled(struct kunit *test)
{
	struct mock_fixture *f = test->priv;
	struct i915_request *rq = submit(test, f->engine->kernel_context, 0);
	struct i915_stall_wait w;

	KUNIT_ASSERT_GT(test, i915_request_wait(rq, 0, HZ), 0);
	KUNIT_ASSERT_TRUE(test, i915_request_signaled(rq));
	i915_stall_request_begin(&w, rq);
	KUNIT_EXPECT_NE(test, w.start_ns, 0);
	KUNIT_EXPECT_EQ(test, w.flags, I915_STALL_F_FENCE);
	KUNIT_EXPECT_EQ(test, w.fence_context, rq->fence.context);
	KUNIT_EXPECT_EQ(test, w.fence_seqno, rq->fence.seqno);
}

static struct kunit_case stall_mock_cases[] = {
	KUNIT_CASE(stall_mock_request_wait),
	KUNIT_CASE(stall_mock_tracepoint),
	KUNIT_CASE(stall_mock_request_timeout),
	KUNIT_CASE(stall_mock_ahead),
	KUNIT_CASE(stall_mock_request_complete),
	KUNIT_CASE(stall_mock_threshold),
	KUNIT_CASE(stall_mock_disabled),
	KUNIT_CASE(stall_mock_owner),
	KUNIT_CASE(stall_mock_active_wait),
	KUNIT_CASE(stall_mock_object_wait),
	KUNIT_CASE(stall_mock_bind_wait),
	KUNIT_CASE(stall_mock_unbind_wait),
	KUNIT_CASE(stall_mock_request_retired),
	KUNIT_CASE(stall_mock_capture_signalled),
	{}
};

static struct kunit_suite stall_mock_suite = {
	.name = "i915_stall_mock",
	.init = mock_init,
	.test_cases = stall_mock_cases,
};

kunit_test_suite(stall_mock_suite);
