/* SPDX-License-Identifier: MIT */
/*
 * Copyright © 2026 The i915 stall log authors
 */

#ifndef __I915_STALL_H__
#define __I915_STALL_H__

#include <linux/dma-fence.h>
#include <linux/jump_label.h>
#include <linux/timekeeping.h>
#include <linux/types.h>

#include "i915_stall_format.h"

struct dentry;
struct dma_fence;
struct drm_i915_private;
struct i915_request;
struct i915_stall_log;

/**
 * struct i915_stall_wait - one wait, as its site saw it at wait entry
 * @start_ns: ktime_get_ns() at wait entry, 0 if no log was enabled then
 * @fence_context: dma_fence context of the awaited fence, if F_FENCE
 * @fence_seqno: its seqno, if F_FENCE
 * @owner_pid: creator of the awaited request's GEM context, if F_OWNER
 * @fence_count: fences the wait is on
 * @sync_flags: I915_STALL_SYNC_* of a syncobj wait
 * @flags: I915_STALL_F_FENCE, _ENGINE, _OWNER, _SUBMITTED and _AHEAD: the
 *	fields captured
 * @ahead: requests ahead of the awaited one on its engine, if F_AHEAD
 * @engine_class: uabi class of the awaited request's engine, if F_ENGINE
 * @engine_instance: its uabi instance, if F_ENGINE
 * @owner_comm: the GEM context's name up to its "[pid]", if F_OWNER
 *
 * Everything a record says about the awaited work is copied here at wait
 * entry, while the caller holds a reference to it and it has not
 * signalled: at wait exit a request may have been retired, and its
 * context, its engine and its owner's pid freed.
 */
struct i915_stall_wait {
	u64 start_ns;
	u64 fence_context;
	u64 fence_seqno;
	u32 owner_pid;
	u32 fence_count;
	u32 sync_flags;
	u16 flags;
	u16 ahead;
	u8 engine_class;
	u8 engine_instance;
	char owner_comm[I915_STALL_COMM_LEN];
};

/**
 * struct i915_stall_submit - a request user space submitted
 * @fence_context: its dma_fence context
 * @fence_seqno: its dma_fence seqno
 * @caller: kernel return address into the function that submitted it
 * @engine_class: uabi class of the engine it went to
 * @engine_instance: uabi instance of that engine
 */
struct i915_stall_submit {
	u64 fence_context;
	u64 fence_seqno;
	unsigned long caller;
	u8 engine_class;
	u8 engine_instance;
};

/**
 * struct i915_stall_info - what a wait site knows about one stall
 * @wait: what the site captured at wait entry
 * @spin_ns: part of the wait spent busy-spinning
 * @timeout: the timeout the caller asked for, in jiffies
 * @ret: what the wait returned
 * @caller: return address into the caller of the wait function
 * @wait_flags: I915_WAIT_* flags the caller passed
 * @site: enum i915_stall_site
 * @skip: stack frames between the wait site and i915_stall_record()
 * @tracepoint: recorded from a tracepoint's probe, which the tracepoint may
 *	call through its iterator: a frame more, left out too
 */
struct i915_stall_info {
	const struct i915_stall_wait *wait;
	u64 spin_ns;
	long timeout;
	long ret;
	unsigned long caller;
	unsigned int wait_flags;
	unsigned int site;
	unsigned int skip;
	bool tracepoint;
};

/**
 * struct i915_stall_sections - preemption-disabled sections of the record
 *	path that a benchmark of the mock GPU timed
 * @count: sections timed
 * @sum_ns: their total length
 * @max_ns: the longest
 */
struct i915_stall_sections {
	u64 count;
	u64 sum_ns;
	u64 max_ns;
};

#if IS_ENABLED(CONFIG_DRM_I915_STALL_LOG)

DECLARE_STATIC_KEY_FALSE(i915_stall_key);

/**
 * i915_stall_begin - note the start of a wait that may stall
 * @w: the wait, on the wait site's stack
 *
 * With no stall log enabled on any device this is a patched-out jump and
 * a store of 0.
 *
 * Return: true if the stall may be recorded: the site then captures what
 * it waits on into @w.
 */
static __always_inline bool i915_stall_begin(struct i915_stall_wait *w)
{
	if (static_branch_unlikely(&i915_stall_key)) {
		*w = (struct i915_stall_wait){
			.start_ns = ktime_get_ns(),
			.fence_count = 1,
		};
		return true;
	}
	w->start_ns = 0;
	return false;
}

/**
 * i915_stall_active - whether i915_stall_begin() started a recording
 * @w: the wait
 *
 * Return: true if a stall starting at @w may be recorded.
 */
static __always_inline bool i915_stall_active(const struct i915_stall_wait *w)
{
	return static_branch_unlikely(&i915_stall_key) && w->start_ns;
}

/**
 * i915_stall_since - time elapsed since i915_stall_begin()
 * @w: the wait
 *
 * Return: nanoseconds since wait entry, or 0 if the log was disabled then.
 */
static __always_inline u64 i915_stall_since(const struct i915_stall_wait *w)
{
	if (i915_stall_active(w))
		return ktime_get_ns() - w->start_ns;
	return 0;
}

void __i915_stall_capture_request(struct i915_stall_wait *w,
				  struct i915_request *rq);

/**
 * i915_stall_request_begin - note the start of a wait on an i915 request
 * @w: the wait, on the wait site's stack
 * @rq: the awaited request; the caller holds a reference
 *
 * Captures the fence, the engine and the owner of @rq now: nothing of @rq
 * but its device is read at wait exit.
 */
static __always_inline void
i915_stall_request_begin(struct i915_stall_wait *w, struct i915_request *rq)
{
	if (i915_stall_begin(w))
		__i915_stall_capture_request(w, rq);
}

/**
 * i915_stall_fence_begin - note the start of a wait on a fence
 * @w: the wait, on the wait site's stack
 * @fence: the awaited fence; the caller holds a reference
 *
 * Return: true if the stall may be recorded, as i915_stall_begin().
 */
static __always_inline bool
i915_stall_fence_begin(struct i915_stall_wait *w, const struct dma_fence *fence)
{
	if (!i915_stall_begin(w))
		return false;
	w->fence_context = fence->context;
	w->fence_seqno = fence->seqno;
	w->flags = I915_STALL_F_FENCE;
	return true;
}

void __i915_stall_request_end(struct drm_i915_private *i915,
			      const struct i915_stall_wait *w, u64 spin,
			      unsigned int flags, long timeout, long ret,
			      unsigned long caller);
void __i915_stall_active_end(struct drm_i915_private *i915,
			     const struct i915_stall_wait *w, int ret,
			     unsigned long caller);
void __i915_stall_fence_end(struct drm_i915_private *i915,
			    const struct i915_stall_wait *w,
			    unsigned int flags, long timeout, long ret,
			    unsigned long caller);
void __i915_stall_dma_fence_begin(struct i915_stall_wait *w,
				  const struct dma_fence *fence);
void __i915_stall_dma_fence_end(struct drm_i915_private *i915,
				const struct i915_stall_wait *w, bool intr,
				long ret, unsigned long caller);

/**
 * i915_stall_request_end - record a stall in i915_request_wait_timeout()
 * @i915: the device of the awaited request
 * @w: the wait, from i915_stall_request_begin()
 * @spin: what i915_stall_since() returned after the busy-spin
 * @flags: the I915_WAIT_* flags of the wait
 * @timeout: the timeout asked for, in jiffies
 * @ret: the wait's return value
 */
static __always_inline void
i915_stall_request_end(struct drm_i915_private *i915,
		       const struct i915_stall_wait *w, u64 spin,
		       unsigned int flags, long timeout, long ret)
{
	if (i915_stall_active(w))
		__i915_stall_request_end(i915, w, spin, flags, timeout, ret,
					 _RET_IP_);
}

/**
 * i915_stall_active_end - record a stall in __i915_active_wait()
 * @i915: the device owning the awaited requests, as the caller knows it
 * @w: the wait, from i915_stall_begin()
 * @ret: the wait's return value
 */
static __always_inline void
i915_stall_active_end(struct drm_i915_private *i915,
		      const struct i915_stall_wait *w, int ret)
{
	if (i915_stall_active(w))
		__i915_stall_active_end(i915, w, ret, _RET_IP_);
}

/**
 * i915_stall_fence_end - record a stall on a fence that is not i915's
 * @i915: the device whose object waited
 * @w: the wait, from i915_stall_fence_begin()
 * @flags: the I915_WAIT_* flags of the wait
 * @timeout: the timeout asked for, in jiffies
 * @ret: the wait's return value
 */
static __always_inline void
i915_stall_fence_end(struct drm_i915_private *i915,
		     const struct i915_stall_wait *w, unsigned int flags,
		     long timeout, long ret)
{
	if (i915_stall_active(w))
		__i915_stall_fence_end(i915, w, flags, timeout, ret, _RET_IP_);
}

/**
 * i915_stall_dma_fence_wait - dma_fence_wait() that records the stall
 * @i915: the device that waits
 * @fence: the fence to wait on; the caller holds a reference
 * @intr: whether a signal ends the wait
 *
 * For the waits on fences that may not be i915 requests: bind and unbind
 * fences, and fences of other drivers.  A wait on an i915 request is
 * recorded by i915_request_wait_timeout(), and not twice.
 *
 * Return: what dma_fence_wait() returns.
 */
static __always_inline long
i915_stall_dma_fence_wait(struct drm_i915_private *i915,
			  struct dma_fence *fence, bool intr)
{
	struct i915_stall_wait stall;
	long ret;

	if (i915_stall_begin(&stall))
		__i915_stall_dma_fence_begin(&stall, fence);
	ret = dma_fence_wait(fence, intr);
	if (i915_stall_active(&stall))
		__i915_stall_dma_fence_end(i915, &stall, intr, ret, _RET_IP_);
	return ret;
}

void i915_stall_record(struct i915_stall_log *log,
		       const struct i915_stall_info *info);
bool i915_stall_record_submit(struct i915_stall_log *log,
			      const struct i915_stall_submit *sub);
void __i915_stall_submit(struct i915_request *rq, unsigned long caller);

/**
 * i915_stall_submit - record who submits a request
 * @rq: the request, committed to its timeline now
 *
 * While a log is enabled, a request a user task submits gets a submit
 * record, which a stall on it is joined to: see __i915_stall_submit().
 * With no log enabled, a patched-out jump.
 */
static __always_inline void i915_stall_submit(struct i915_request *rq)
{
	if (static_branch_unlikely(&i915_stall_key))
		__i915_stall_submit(rq, _RET_IP_);
}

int i915_stall_init(struct drm_i915_private *i915);
int i915_stall_init_mock(struct drm_i915_private *i915);
void i915_stall_mock_report(struct drm_i915_private *i915);
void i915_stall_fini(struct drm_i915_private *i915);
void i915_stall_debugfs_register(struct drm_i915_private *i915,
				 struct dentry *root);
void i915_stall_debugfs_unregister(struct drm_i915_private *i915, struct dentry *root);

#if IS_ENABLED(CONFIG_DRM_I915_STALL_LOG_MOCK)
void i915_stall_sections_start(void);
void i915_stall_sections_stop(struct i915_stall_sections *out);
#endif

#else

static inline bool i915_stall_begin(struct i915_stall_wait *w) { return false; }
static inline bool i915_stall_active(const struct i915_stall_wait *w) { return false; }
static inline u64 i915_stall_since(const struct i915_stall_wait *w) { return 0; }
static inline void
i915_stall_request_begin(struct i915_stall_wait *w, struct i915_request *rq) { }
static inline bool
i915_stall_fence_begin(struct i915_stall_wait *w, const struct dma_fence *fence)
{
	return false;
}

static inline void
i915_stall_request_end(struct drm_i915_private *i915,
		       const struct i915_stall_wait *w, u64 spin,
		       unsigned int flags, long timeout, long ret) { }
static inline void
i915_stall_active_end(struct drm_i915_private *i915,
		      const struct i915_stall_wait *w, int ret) { }
static inline void
i915_stall_fence_end(struct drm_i915_private *i915,
		     const struct i915_stall_wait *w, unsigned int flags,
		     long timeout, long ret) { }
static inline long
i915_stall_dma_fence_wait(struct drm_i915_private *i915,
			  struct dma_fence *fence, bool intr)
{
	return dma_fence_wait(fence, intr);
}

static inline void i915_stall_record(struct i915_stall_log *log,
				     const struct i915_stall_info *info) { }
static inline void i915_stall_submit(struct i915_request *rq) { }

static inline int i915_stall_init(struct drm_i915_private *i915) { return 0; }
static inline int i915_stall_init_mock(struct drm_i915_private *i915) { return 0; }
static inline void i915_stall_mock_report(struct drm_i915_private *i915) { }
static inline void i915_stall_fini(struct drm_i915_private *i915) { }
static inline void i915_stall_debugfs_register(struct drm_i915_private *i915,
					       struct dentry *root) { }
static inline void i915_stall_debugfs_unregister(struct drm_i915_private *i915,
						 struct dentry *root) { }
static inline void i915_stall_sections_start(void) { }
static inline void i915_stall_sections_stop(struct i915_stall_sections *out)
{
	*out = (struct i915_stall_sections){};
}

#endif

#endif /* __I915_STALL_H__ */
