// SPDX-License-Identifier: MIT
/*
 * Copyright © 2026 The i915 stall log authors
 */

/**
 * DOC: i915 stall log syncobj waits
 *
 * DRM_IOCTL_SYNCOBJ_WAIT and DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, the waits of
 * Mesa's iris and of the Vulkan runtime, sleep on fence callbacks in DRM
 * core and never reach a driver.  DRM core traces each of them that
 * sleeps, with the drm_syncobj_wait_begin and drm_syncobj_wait_end
 * tracepoints, and the log records them with probes on those, as any
 * tracer would: no driver callback exists for it.
 *
 * The probes are registered while some log of a DRM device is enabled,
 * once for all of them.  A wait of a device with no enabled log costs
 * what a tracepoint with one probe costs: the probe finds no log for the
 * device in a list of those enabled, and returns.
 *
 * At begin, the probe captures what the wait waits on while the wait holds
 * the fences, as the wait sites of i915 do at wait entry: the device's
 * driver names the first of its requests not yet signalled, with its
 * engine and owner (&i915_stall_log.capture).  What begin captured waits
 * for end in a small table of the waits in progress, keyed by the wait,
 * since a tracepoint has nowhere else to keep it; a wait whose begin the
 * probe did not see (the log enabled while it slept) is not recorded.
 * Probes run with preemption disabled, so that table takes memory
 * without sleeping; a wait that finds none is not recorded either.
 */

#include <linux/hashtable.h>
#include <linux/kallsyms.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include <drm/drm.h>
#include <drm/drm_device.h>
#include <drm/drm_syncobj.h>

#include <trace/events/drm_syncobj.h>

#include "i915_stall.h"
#include "i915_stall_format.h"
#include "i915_stall_log.h"

/* The logs whose syncobj waits are recorded: enabled, of a DRM device. */
static LIST_HEAD(stall_syncobj_logs);
/* Serialises the list's writers and the probes' registration. */
static DEFINE_MUTEX(stall_syncobj_lock);

/**
 * struct stall_syncobj_wait - a syncobj wait begun and not yet ended
 * @node: in stall_syncobj_waits
 * @wait: the wait, as DRM core traces it; compared only
 * @w: what begin captured of it
 */
struct stall_syncobj_wait {
	struct hlist_node node;
	const struct drm_syncobj_wait_info *wait;
	struct i915_stall_wait w;
};

static DEFINE_SPINLOCK(stall_syncobj_waits_lock);
static DEFINE_HASHTABLE(stall_syncobj_waits, 6);

/* The enabled log of @drm, or NULL.  Context: an RCU read-side section. */
static struct i915_stall_log *stall_syncobj_log(const struct drm_device *drm)
{
	struct i915_stall_log *log;

	list_for_each_entry_rcu(log, &stall_syncobj_logs, syncobj_link)
		if (log->drm == drm)
			return log;
	return NULL;
}

static void stall_syncobj_begin(void *data, const struct drm_syncobj_wait_info *wait)
{
	struct stall_syncobj_wait *p;
	struct i915_stall_log *log;
	struct i915_stall_wait w;
	struct dma_fence *other = NULL;
	bool found = false;
	u32 i;

	BUILD_BUG_ON(I915_STALL_SYNC_WAIT_ALL != DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL);
	BUILD_BUG_ON(I915_STALL_SYNC_FOR_SUBMIT != DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT);
	BUILD_BUG_ON(I915_STALL_SYNC_AVAILABLE != DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE);
	BUILD_BUG_ON(I915_STALL_SYNC_DEADLINE != DRM_SYNCOBJ_WAIT_FLAGS_WAIT_DEADLINE);

	rcu_read_lock();
	log = stall_syncobj_log(wait->dev);
	if (!log || !i915_stall_begin(&w)) {
		rcu_read_unlock();
		return;
	}
	w.fence_count = wait->count;
	w.sync_flags = wait->flags & (I915_STALL_SYNC_WAIT_ALL | I915_STALL_SYNC_FOR_SUBMIT |
				      I915_STALL_SYNC_AVAILABLE | I915_STALL_SYNC_DEADLINE);

	/*
	 * The first request of the device not yet signalled that the wait is
	 * known to wait for, in the order of the handles; else the first
	 * fence not yet signalled.  A fence that does not exist yet
	 * (WAIT_FOR_SUBMIT) is noted: nothing is read of fences that appear
	 * later, once they may be signalled and retired.
	 */
	for (i = 0; i < wait->count; i++) {
		struct dma_fence *fence = drm_syncobj_wait_fence(wait, i);

		if (!fence) {
			w.sync_flags |= I915_STALL_SYNC_UNSUBMITTED;
			continue;
		}
		if (found)
			continue;
		if (log->capture && log->capture(log->drm, &w, fence))
			found = true;
		else if (!other && !dma_fence_is_signaled(fence))
			other = fence;
	}
	rcu_read_unlock();
	if (!found && other) {
		w.fence_context = other->context;
		w.fence_seqno = other->seqno;
		w.flags = I915_STALL_F_FENCE;
	}

	/* Preemption is disabled in a probe: no sleeping for memory. */
	p = kmalloc(sizeof(*p), GFP_NOWAIT | __GFP_NOWARN);
	if (!p)
		return;
	p->wait = wait;
	p->w = w;
	spin_lock(&stall_syncobj_waits_lock);
	hash_add(stall_syncobj_waits, &p->node, (unsigned long)wait);
	spin_unlock(&stall_syncobj_waits_lock);
}

static struct stall_syncobj_wait *stall_syncobj_take(const struct drm_syncobj_wait_info *wait)
{
	struct stall_syncobj_wait *p;

	spin_lock(&stall_syncobj_waits_lock);
	hash_for_each_possible(stall_syncobj_waits, p, node, (unsigned long)wait) {
		if (p->wait == wait) {
			hash_del(&p->node);
			spin_unlock(&stall_syncobj_waits_lock);
			return p;
		}
	}
	spin_unlock(&stall_syncobj_waits_lock);
	return NULL;
}

static void stall_syncobj_end(void *data, const struct drm_syncobj_wait_info *wait)
{
	struct stall_syncobj_wait *p = stall_syncobj_take(wait);
	struct i915_stall_info info = {
		/*
		 * The ioctls take an absolute deadline, and Mesa passes
		 * INT64_MAX for none: record a deadline centuries away as
		 * no timeout.
		 */
		.timeout = jiffies64_to_nsecs(wait->timeout) >= KTIME_MAX / 2 ?
			   MAX_SCHEDULE_TIMEOUT : wait->timeout,
		.ret = wait->ret,
		.caller = _RET_IP_,
		.wait_flags = STALL_WAIT_INTERRUPTIBLE,
		.site = wait->timeline ? I915_STALL_SITE_SYNCOBJ_TIMELINE :
					 I915_STALL_SITE_SYNCOBJ,
		/* this probe, and the tracepoint's iterator if it shows */
		.skip = 1,
		.tracepoint = true,
	};

	if (!p)
		return;
	if (i915_stall_active(&p->w)) {
		info.wait = &p->w;
		rcu_read_lock();
		i915_stall_record(stall_syncobj_log(wait->dev), &info);
		rcu_read_unlock();
	}
	kfree(p);
}

/* Forget every wait in progress: their end will not be seen. */
static void stall_syncobj_forget(void)
{
	struct stall_syncobj_wait *p;
	struct hlist_node *n;
	unsigned int b;

	spin_lock(&stall_syncobj_waits_lock);
	hash_for_each_safe(stall_syncobj_waits, b, n, p, node) {
		hash_del(&p->node);
		kfree(p);
	}
	spin_unlock(&stall_syncobj_waits_lock);
}

/**
 * i915_stall_syncobj_watch - record the syncobj waits of a log's device
 * @log: the log, just enabled, or about to be disabled
 * @watch: whether to
 *
 * Context: Process context; sleeps.
 */
void i915_stall_syncobj_watch(struct i915_stall_log *log, bool watch)
{
	bool first, last;
	int err;

	if (!log->drm || !IS_ENABLED(CONFIG_TRACEPOINTS))
		return;

	mutex_lock(&stall_syncobj_lock);
	if (watch) {
		first = list_empty(&stall_syncobj_logs);
		list_add_rcu(&log->syncobj_link, &stall_syncobj_logs);
		if (first) {
			err = register_trace_drm_syncobj_wait_begin(stall_syncobj_begin, NULL);
			if (!err) {
				err = register_trace_drm_syncobj_wait_end(stall_syncobj_end, NULL);
				if (err)
					unregister_trace_drm_syncobj_wait_begin(stall_syncobj_begin,
										NULL);
			}
			if (err)
				pr_warn("i915 stall log: syncobj waits not recorded: %pe\n",
					ERR_PTR(err));
		}
	} else {
		list_del_rcu(&log->syncobj_link);
		last = list_empty(&stall_syncobj_logs);
		if (last) {
			unregister_trace_drm_syncobj_wait_begin(stall_syncobj_begin, NULL);
			unregister_trace_drm_syncobj_wait_end(stall_syncobj_end, NULL);
			tracepoint_synchronize_unregister();
			stall_syncobj_forget();
		} else {
			/* Probes that found the log are done with it. */
			synchronize_rcu();
		}
	}
	mutex_unlock(&stall_syncobj_lock);
}
