// SPDX-License-Identifier: MIT
/*
 * Copyright © 2026 The i915 stall log authors
 *
 * The wait sites of i915 that record into the stall log, the log of each
 * device and its parameters: the i915-specific part of the log.
 */

#include <linux/dma-fence-array.h>
#include <linux/dma-fence-chain.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/string.h>

#include "gem/i915_gem_context.h"
#include "gt/intel_context_types.h"
#include "gt/intel_engine.h"
#include "gt/intel_engine_types.h"

#include "i915_drv.h"
#include "i915_request.h"
#include "i915_scheduler_types.h"
#include "i915_stall.h"
#include "i915_stall_format.h"
#include "i915_stall_log.h"
#include "i915_stall_trace.h"

/**
 * i915_stall_fini - destroy the stall log of a device
 * @i915: the device
 *
 * The log is unpublished first; i915_stall_log_destroy() then waits for
 * the writers that may still see it, which use it in RCU read-side
 * critical sections, before it frees anything.
 *
 * Context: Process context; waits for an RCU grace period.
 */
void i915_stall_fini(struct drm_i915_private *i915)
{
	i915_stall_log_destroy(rcu_replace_pointer(i915->stall_log, NULL, true));
}

/*
 * Wait-site hooks.  Each is called through an inline wrapper in
 * i915_stall.h only while some log is enabled, and adds two frames between
 * the wait function and i915_stall_record(): the hook and this.
 */
#define STALL_SITE_SKIP	2

/*
 * Record into the log of @i915, looked up in an RCU read-side critical
 * section, so that i915_stall_fini()'s grace period waits for us.
 */
static noinline void stall_record_device(struct drm_i915_private *i915,
					 const struct i915_stall_info *info)
{
	rcu_read_lock();
	i915_stall_record(rcu_dereference(i915->stall_log), info);
	rcu_read_unlock();
}

/* Requests of an engine's list looked at, at most, to count those ahead. */
#define STALL_AHEAD_WALK	1024

/* Whether stall_count_ahead() can count on @engine. */
static bool stall_can_count_ahead(const struct intel_engine_cs *engine)
{
	return !intel_engine_is_virtual(engine) && !intel_engine_uses_guc(engine);
}

/*
 * Count in @w the requests that @engine had been given before @rq and had
 * not completed; all of them if @rq is not on the engine yet.  Only the
 * backends that keep an engine's requests in order on its scheduler's
 * list, under its lock, are counted (stall_can_count_ahead()): execlists,
 * ring submission and the mock GPU.  GuC keeps them per context, and a
 * virtual engine has no list of its own and may be freed once @rq moves
 * on.  A physical engine lives as long as its device, which the waiter's
 * reference on @rq keeps.
 *
 * Context: Process context, no spinlock held: the engine's lock is taken
 * before a request's lock, never after.
 */
static void stall_count_ahead(struct i915_stall_wait *w,
			      const struct intel_engine_cs *engine,
			      struct i915_request *rq)
{
	struct i915_sched_engine *se = engine->sched_engine;
	struct i915_request *pos;
	unsigned long irqflags;
	unsigned int walked = 0;
	u16 ahead = 0;

	spin_lock_irqsave(&se->lock, irqflags);
	list_for_each_entry(pos, &se->requests, sched.link) {
		if (pos == rq)
			break;
		if (++walked > STALL_AHEAD_WALK) {
			ahead = I915_STALL_AHEAD_MANY;
			break;
		}
		if (!__i915_request_is_complete(pos))
			ahead++;
	}
	spin_unlock_irqrestore(&se->lock, irqflags);

	/* Completed since its capture: it waited behind nothing. */
	if (__i915_request_is_complete(rq))
		ahead = 0;
	w->ahead = ahead;
	w->flags |= I915_STALL_F_AHEAD;
}

/**
 * __i915_stall_capture_request - capture what a request wait waits on
 * @w: the wait, started by i915_stall_begin()
 * @rq: the awaited request; the caller holds a reference
 *
 * Once @rq signals it may be retired at any time, and retirement unpins
 * its context: the context, a virtual engine (freed with kfree() under
 * GuC submission) and the GEM context's pid (put_pid() frees at once) may
 * then go.  So the engine and the owner are read here, at wait entry,
 * under rq->lock: i915_request_retire() signals the fence under that lock
 * before it unpins anything, so while the lock is held and the fence is
 * unsignalled, the context and the engine stay.  The GEM context may be
 * closed regardless: it is taken with kref_get_unless_zero() under RCU, as
 * i915_gpu_error.c does, and its reference holds ctx->pid.
 *
 * The capture also says whether the request's submission was recorded
 * (F_SUBMITTED), and counts the requests ahead of it on its engine
 * (F_AHEAD) once rq->lock is dropped: an engine's lock is taken before a
 * request's.
 *
 * Context: Process context.
 */
void __i915_stall_capture_request(struct i915_stall_wait *w,
				  struct i915_request *rq)
{
	const struct intel_engine_cs *engine = NULL;
	struct i915_gem_context *ctx = NULL;
	unsigned long irqflags;

	w->fence_context = rq->fence.context;
	w->fence_seqno = rq->fence.seqno;
	w->flags = I915_STALL_F_FENCE;
	if (test_bit(I915_FENCE_FLAG_STALL_SUBMIT, &rq->fence.flags))
		w->flags |= I915_STALL_F_SUBMITTED;

	spin_lock_irqsave(&rq->lock, irqflags);
	if (!i915_request_signaled(rq)) {
		/* A virtual engine's request may move to a sibling. */
		const struct intel_engine_cs *e = READ_ONCE(rq->engine);

		w->engine_class = e->uabi_class;
		w->engine_instance = e->uabi_instance;
		w->flags |= I915_STALL_F_ENGINE;
		if (stall_can_count_ahead(e))
			engine = e;

		rcu_read_lock();
		ctx = rcu_dereference(rq->context->gem_context);
		if (ctx && !kref_get_unless_zero(&ctx->ref))
			ctx = NULL;
		rcu_read_unlock();
	}
	spin_unlock_irqrestore(&rq->lock, irqflags);

	if (engine)
		stall_count_ahead(w, engine, rq);
	if (!ctx)
		return;
	if (ctx->pid) {
		const char *open = strchr(ctx->name, '[');
		size_t len = open ? open - ctx->name : strlen(ctx->name);

		memset(w->owner_comm, 0, sizeof(w->owner_comm));
		memcpy(w->owner_comm, ctx->name,
		       min(len, sizeof(w->owner_comm) - 1));
		w->owner_pid = pid_nr(ctx->pid);
		w->flags |= I915_STALL_F_OWNER;
	}
	i915_gem_context_put(ctx);
}

/**
 * __i915_stall_submit - record who submitted a request
 * @rq: the request, being committed to its timeline
 * @caller: return address into the function that committed it
 *
 * Every request goes through __i915_request_commit(): those of execbuf
 * (eb_request_add()) and of i915_request_add(), which every other path,
 * the mock GPU's included, takes.  Only a request a user task submits is
 * recorded: the requests of kernel threads and workers are the driver's
 * own (heartbeats, power management, retirement).  The request's fence
 * then says so, and a stall on it looks for the submit record.
 *
 * Context: Process context, the request's timeline mutex held.
 */
noinline void __i915_stall_submit(struct i915_request *rq, unsigned long caller)
{
	const struct intel_engine_cs *engine = rq->engine;
	const struct i915_stall_submit sub = {
		.fence_context = rq->fence.context,
		.fence_seqno = rq->fence.seqno,
		.caller = caller,
		.engine_class = engine->uabi_class,
		.engine_instance = engine->uabi_instance,
	};
	bool recorded;

	if (current->flags & (PF_KTHREAD | PF_USER_WORKER))
		return;

	rcu_read_lock();
	recorded = i915_stall_record_submit(rcu_dereference(rq->i915->stall_log), &sub);
	rcu_read_unlock();
	if (recorded)
		set_bit(I915_FENCE_FLAG_STALL_SUBMIT, &rq->fence.flags);
}

/**
 * __i915_stall_request_end - record a stall in i915_request_wait_timeout()
 * @i915: the device of the awaited request
 * @w: the wait, from i915_stall_request_begin()
 * @spin: time spent busy-spinning, from i915_stall_since()
 * @flags: the I915_WAIT_* flags of the wait
 * @timeout: the timeout asked for, in jiffies
 * @ret: the wait's return value
 * @caller: return address into the wait's caller
 *
 * Context: Process context, see i915_stall_record().
 */
noinline void __i915_stall_request_end(struct drm_i915_private *i915,
				       const struct i915_stall_wait *w,
				       u64 spin, unsigned int flags,
				       long timeout, long ret,
				       unsigned long caller)
{
	const struct i915_stall_info info = {
		.wait = w,
		.spin_ns = spin,
		.timeout = timeout,
		.ret = ret,
		.caller = caller,
		.wait_flags = flags,
		.site = I915_STALL_SITE_REQUEST,
		.skip = STALL_SITE_SKIP,
	};

	stall_record_device(i915, &info);
}

/**
 * __i915_stall_active_end - record a stall in __i915_active_wait()
 * @i915: the device owning the awaited requests
 * @w: the wait, from i915_stall_begin()
 * @ret: the wait's return value
 * @caller: return address into the wait's caller
 *
 * Context: Process context, see i915_stall_record().
 */
noinline void __i915_stall_active_end(struct drm_i915_private *i915,
				      const struct i915_stall_wait *w, int ret,
				      unsigned long caller)
{
	const struct i915_stall_info info = {
		.wait = w,
		.timeout = MAX_SCHEDULE_TIMEOUT,
		.ret = ret,
		.caller = caller,
		.site = I915_STALL_SITE_ACTIVE,
		.skip = STALL_SITE_SKIP,
	};

	stall_record_device(i915, &info);
}

/**
 * __i915_stall_fence_end - record a stall on a fence that is not i915's
 * @i915: the device whose object waited
 * @w: the wait, from i915_stall_fence_begin()
 * @flags: the I915_WAIT_* flags of the wait
 * @timeout: the timeout asked for, in jiffies
 * @ret: the wait's return value (dma_fence_wait_timeout() semantics)
 * @caller: return address into the wait's caller
 *
 * Context: Process context, see i915_stall_record().
 */
noinline void __i915_stall_fence_end(struct drm_i915_private *i915,
				     const struct i915_stall_wait *w,
				     unsigned int flags, long timeout, long ret,
				     unsigned long caller)
{
	const struct i915_stall_info info = {
		.wait = w,
		.timeout = timeout,
		/* dma_fence_wait_timeout() returns 0 when it timed out */
		.ret = ret == 0 && timeout ? -ETIME : ret,
		.caller = caller,
		.wait_flags = flags,
		.site = I915_STALL_SITE_OBJECT_FENCE,
		.skip = STALL_SITE_SKIP,
	};

	stall_record_device(i915, &info);
}

/**
 * __i915_stall_dma_fence_begin - capture the fence of i915_stall_dma_fence_wait()
 * @w: the wait, started by i915_stall_begin()
 * @fence: the awaited fence; the caller holds a reference
 *
 * A wait on an i915 request is recorded by i915_request_wait_timeout(),
 * which dma_fence_wait() reaches: this site then records nothing.
 *
 * Context: Process context.
 */
void __i915_stall_dma_fence_begin(struct i915_stall_wait *w,
				  const struct dma_fence *fence)
{
	if (dma_fence_is_i915(fence)) {
		w->start_ns = 0;
		return;
	}
	w->fence_context = fence->context;
	w->fence_seqno = fence->seqno;
	w->flags = I915_STALL_F_FENCE;
}

/**
 * __i915_stall_dma_fence_end - record a stall in i915_stall_dma_fence_wait()
 * @i915: the device that waited
 * @w: the wait, from __i915_stall_dma_fence_begin()
 * @intr: whether the wait was interruptible
 * @ret: what dma_fence_wait() returned
 * @caller: return address into the wait's caller
 *
 * Context: Process context, see i915_stall_record().
 */
noinline void __i915_stall_dma_fence_end(struct drm_i915_private *i915,
					 const struct i915_stall_wait *w,
					 bool intr, long ret,
					 unsigned long caller)
{
	const struct i915_stall_info info = {
		.wait = w,
		.timeout = MAX_SCHEDULE_TIMEOUT,
		.ret = ret,
		.caller = caller,
		.wait_flags = intr ? I915_WAIT_INTERRUPTIBLE : 0,
		.site = I915_STALL_SITE_FENCE,
		.skip = STALL_SITE_SKIP,
	};

	stall_record_device(i915, &info);
}

/*
 * The request of @i915 that a wait on @fence waits for, if one can be
 * told: @fence itself, or, for a timeline point, the fence of that point
 * (the earlier points are not walked), or the one member of a fence array
 * (a merged sync_file, a dma_resv singleton) not yet signalled.  An array
 * with more members not signalled names none: a wait for any of them may
 * end on any.  A request of another device is not this device's to name.
 */
static struct i915_request *stall_fence_request(struct drm_i915_private *i915,
						struct dma_fence *fence)
{
	struct dma_fence_array *array;
	struct dma_fence *f = dma_fence_chain_contained(fence), *pending = NULL;
	unsigned int i;

	array = to_dma_fence_array(f);
	if (array) {
		for (i = 0; i < array->num_fences; i++) {
			struct dma_fence *m = dma_fence_chain_contained(array->fences[i]);

			if (dma_fence_is_signaled(m))
				continue;
			if (pending)
				return NULL;
			pending = m;
		}
		f = pending;
	}
	if (!f || !dma_fence_is_i915(f) || to_request(f)->i915 != i915 ||
	    dma_fence_is_signaled(f))
		return NULL;
	return to_request(f);
}

/*
 * &i915_stall_log.capture: what a syncobj wait on @fence waits for, if it
 * is a request of this device, captured as for i915_request_wait_timeout().
 */
static bool stall_capture_fence(struct drm_device *drm, struct i915_stall_wait *w,
				struct dma_fence *fence)
{
	struct i915_request *rq = stall_fence_request(to_i915(drm), fence);

	if (!rq)
		return false;
	__i915_stall_capture_request(w, rq);
	return true;
}

/*
 * Boot and module parameters, applied to each device's log when it is
 * created: they switch the log on where debugfs refuses writes (lockdown),
 * and from the first wait of the probe on.
 */
static bool stall_param_enable;
module_param_named(stall_log, stall_param_enable, bool, 0400);
MODULE_PARM_DESC(stall_log,
		 "Enable the stall log of each device at probe (default: false)");

static uint stall_param_threshold_us = 1000;
module_param_named(stall_log_threshold_us, stall_param_threshold_us, uint, 0400);
MODULE_PARM_DESC(stall_log_threshold_us,
		 "Record waits at least this long, in microseconds (default: 1000)");

static uint stall_param_slots;
module_param_named(stall_log_slots, stall_param_slots, uint, 0400);
MODULE_PARM_DESC(stall_log_slots,
		 "Records per CPU ring, a power of two from 16 to 16384 (default: 0, sized by the number of CPUs)");

static int stall_param_ustack_bytes = -1;
module_param_named(stall_log_ustack_bytes, stall_param_ustack_bytes, int, 0400);
MODULE_PARM_DESC(stall_log_ustack_bytes,
		 "Bytes of user stack saved per stall, a multiple of 8 up to 16384 (default: -1, 8192)");

/**
 * i915_stall_init - create the stall log of a device
 * @i915: the device
 *
 * The log starts as the i915.stall_log parameters say, by default disabled;
 * it allocates its rings on first enable.  Bad parameters are reported and
 * leave the log at its defaults; they do not fail the probe.
 *
 * Context: Process context.
 * Return: 0 or -ENOMEM.
 */
int i915_stall_init(struct drm_i915_private *i915)
{
	struct i915_stall_log *log;
	int err;

	if (rcu_access_pointer(i915->stall_log))
		return 0;	/* a mock device's, see i915_stall_init_mock() */
	log = i915_stall_log_create(&i915->drm);
	if (!log)
		return -ENOMEM;
	log->capture = stall_capture_fence;
	RCU_INIT_POINTER(i915->stall_log, log);

	err = i915_stall_log_apply_params(log, stall_param_enable, stall_param_threshold_us,
					  stall_param_slots, stall_param_ustack_bytes);
	if (err)
		drm_warn(&i915->drm, "stall log: parameters not applied: %pe\n",
			 ERR_PTR(err));
	return 0;
}

/**
 * i915_stall_debugfs_register - create the stall log's debugfs files
 * @i915: the device
 * @root: the device's debugfs directory, dri/N
 *
 * See i915_stall_log_debugfs().
 *
 * Context: Process context.
 */
void i915_stall_debugfs_register(struct drm_i915_private *i915,
				 struct dentry *root)
{
	/* Registered after i915_stall_init(), removed before i915_stall_fini(). */
	struct i915_stall_log *log = rcu_dereference_protected(i915->stall_log, true);

	if (log)
		i915_stall_log_debugfs(log, root);
}

/**
 * i915_stall_debugfs_unregister - remove the stall log's debugfs files
 * @i915: the device
 * @root: the directory i915_stall_debugfs_register() made them in
 *
 * For a directory that outlives the log, as a mock device's does.
 *
 * Context: Process context.
 */
void i915_stall_debugfs_unregister(struct drm_i915_private *i915, struct dentry *root)
{
	i915_stall_log_debugfs_remove(root);
}

/*
 * What a mock device's log recorded, by site: counted by a probe on the
 * i915_stall tracepoint, which fires once for each record made, so that
 * i915_stall_mock_report() names every site the device's waits reached,
 * and not only those whose records were not yet overwritten.  A probe per
 * mock device with a log, from i915_stall_init_mock() to the report.
 */
struct stall_mock_sites {
	struct list_head link;
	const struct drm_device *drm;
	atomic64_t count[I915_STALL_SITE_TEST + 1];
};

static LIST_HEAD(stall_mock_sites_list);
static DEFINE_MUTEX(stall_mock_sites_lock); /* stall_mock_sites_list */

static void stall_mock_count(void *data, const struct drm_device *drm,
			     const struct i915_stall_record *r)
{
	struct stall_mock_sites *s = data;

	if (drm == s->drm && r->site < ARRAY_SIZE(s->count))
		atomic64_inc(&s->count[r->site]);
}

/* The counts of @drm, no longer counted; NULL if it had none. */
static struct stall_mock_sites *stall_mock_sites_take(const struct drm_device *drm)
{
	struct stall_mock_sites *s, *found = NULL;

	mutex_lock(&stall_mock_sites_lock);
	list_for_each_entry(s, &stall_mock_sites_list, link) {
		if (s->drm == drm) {
			list_del(&s->link);
			found = s;
			break;
		}
	}
	mutex_unlock(&stall_mock_sites_lock);
	if (found) {
		unregister_trace_i915_stall(stall_mock_count, found);
		tracepoint_synchronize_unregister();
	}
	return found;
}

/**
 * i915_stall_init_mock - the stall log of a mock device, if asked for
 * @i915: a mock device (selftests/mock_gem_device.c)
 *
 * With i915.stall_log=1, Intel's mock selftests then run the enabled
 * path of every wait site they reach; i915_stall_mock_report() says what
 * each device recorded when it goes.
 *
 * Context: Process context.
 * Return: 0 or -ENOMEM.
 */
int i915_stall_init_mock(struct drm_i915_private *i915)
{
	struct stall_mock_sites *s;
	int err;

	if (!stall_param_enable)
		return 0;
	err = i915_stall_init(i915);
	if (err)
		return err;
	/* Without the counts, the report gives the records kept only. */
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return 0;
	s->drm = &i915->drm;
	if (register_trace_i915_stall(stall_mock_count, s)) {
		kfree(s);
		return 0;
	}
	mutex_lock(&stall_mock_sites_lock);
	list_add(&s->link, &stall_mock_sites_list);
	mutex_unlock(&stall_mock_sites_lock);
	return 0;
}

static int stall_mock_sites_line(char *line, size_t size, const u64 *count, unsigned int nr)
{
	unsigned int site;
	int n = 0;

	for (site = 0; site < nr; site++) {
		const char *name = i915_stall_site_name(site);

		if (count[site] && name)
			n += scnprintf(line + n, size - n, " %s %llu", name, count[site]);
	}
	if (!n)
		n = scnprintf(line, size, " none");
	return n;
}

/**
 * i915_stall_mock_report - say what a mock device's log recorded, by site
 * @i915: the mock device, whose waits are over
 *
 * One line: the records made since the last clear, and by site as the
 * i915_stall tracepoint counted them; then the records the rings still
 * keep, by site.  The log is disabled first: the device's workers may
 * still wait, and both counts must be of the same records.
 *
 * Context: Process context; waits for an RCU grace period.
 */
void i915_stall_mock_report(struct drm_i915_private *i915)
{
	struct i915_stall_log *log = rcu_dereference_protected(i915->stall_log, true);
	u64 count[I915_STALL_SITE_TEST + 1] = {}, traced[ARRAY_SIZE(count)] = {};
	char by_trace[256], by_ring[256];
	struct stall_mock_sites *s;
	u64 recorded = 0, kept;
	unsigned int site;
	bool enabled = false;

	if (log) {
		mutex_lock(&log->lock);
		enabled = log->enabled;
		i915_stall_log_enable(log, false);
		mutex_unlock(&log->lock);
		/* Writers record inside rcu_read_lock(): none is left after this. */
		synchronize_rcu();
	}
	s = stall_mock_sites_take(&i915->drm);
	if (enabled) {
		kept = i915_stall_log_count_sites(log, count, ARRAY_SIZE(count), &recorded);
		if (s) {
			for (site = 0; site < ARRAY_SIZE(traced); site++)
				traced[site] = atomic64_read(&s->count[site]);
			stall_mock_sites_line(by_trace, sizeof(by_trace), traced,
					      ARRAY_SIZE(traced));
		} else {
			strscpy(by_trace, " not counted");
		}
		stall_mock_sites_line(by_ring, sizeof(by_ring), count, ARRAY_SIZE(count));
		drm_info(&i915->drm, "stall log: %llu stalls recorded:%s; %llu kept:%s\n",
			 recorded, by_trace, kept, by_ring);
	}
	kfree(s);
}

#if IS_ENABLED(CONFIG_DRM_I915_STALL_LOG_KUNIT_TEST)
#include "tests/i915_stall_sites_kunit.c"
#include "tests/i915_stall_syncobj_kunit.c"
#endif
