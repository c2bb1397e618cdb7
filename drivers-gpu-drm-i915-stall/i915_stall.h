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

struct dentry;
struct dma_fence;
struct drm_i915_private;
struct i915_request;
struct i915_stall_log;

/**
 * struct i915_stall_info - what a wait site knows about one stall
 * @start_ns: ktime_get_ns() at wait entry, from i915_stall_begin()
 * @spin_ns: part of the wait spent busy-spinning
 * @timeout: the timeout the caller asked for, in jiffies
 * @ret: what the wait returned
 * @caller: return address into the caller of the wait function
 * @fence: the awaited fence, or NULL
 * @rq: the awaited request, or NULL; gives engine and owner
 * @wait_flags: I915_WAIT_* flags the caller passed
 * @site: enum i915_stall_site
 * @skip: stack frames between the wait site and i915_stall_record()
 */
struct i915_stall_info {
	u64 start_ns;
	u64 spin_ns;
	long timeout;
	long ret;
	unsigned long caller;
	struct dma_fence *fence;
	struct i915_request *rq;
	unsigned int wait_flags;
	unsigned int site;
	unsigned int skip;
};

#if IS_ENABLED(CONFIG_DRM_I915_STALL_LOG)

DECLARE_STATIC_KEY_FALSE(i915_stall_key);

/**
 * i915_stall_begin - note the start of a wait that may stall
 *
 * With no stall log enabled on any device this is a patched-out jump.
 *
 * Return: the start time to pass to the matching end hook, 0 if disabled.
 */
static __always_inline u64 i915_stall_begin(void)
{
	if (static_branch_unlikely(&i915_stall_key))
		return ktime_get_ns();
	return 0;
}

/**
 * i915_stall_since - time elapsed since i915_stall_begin()
 * @start: what i915_stall_begin() returned
 *
 * Return: nanoseconds since @start, or 0 if the log was disabled at @start.
 */
static __always_inline u64 i915_stall_since(u64 start)
{
	if (static_branch_unlikely(&i915_stall_key) && start)
		return ktime_get_ns() - start;
	return 0;
}

/**
 * i915_stall_active - whether i915_stall_begin() started a recording
 * @start: what i915_stall_begin() returned
 *
 * Lets a wait site do extra work, such as finding the device, only when
 * the stall will be considered for the log.
 *
 * Return: true if a stall starting at @start may be recorded.
 */
static __always_inline bool i915_stall_active(u64 start)
{
	return static_branch_unlikely(&i915_stall_key) && start;
}

void __i915_stall_request_end(struct i915_request *rq, u64 start, u64 spin,
			      unsigned int flags, long timeout, long ret,
			      unsigned long caller);
void __i915_stall_active_end(struct drm_i915_private *i915, u64 start,
			     int ret, unsigned long caller);
void __i915_stall_fence_end(struct drm_i915_private *i915,
			    struct dma_fence *fence, u64 start,
			    unsigned int flags, long timeout, long ret,
			    unsigned long caller);
void __i915_stall_dma_fence_end(struct drm_i915_private *i915,
				struct dma_fence *fence, u64 start, bool intr,
				long ret, unsigned long caller);

/**
 * i915_stall_request_end - record a stall in i915_request_wait_timeout()
 * @rq: the awaited request
 * @start: what i915_stall_begin() returned at wait entry
 * @spin: what i915_stall_since() returned after the busy-spin
 * @flags: the I915_WAIT_* flags of the wait
 * @timeout: the timeout asked for, in jiffies
 * @ret: the wait's return value
 */
static __always_inline void
i915_stall_request_end(struct i915_request *rq, u64 start, u64 spin,
		       unsigned int flags, long timeout, long ret)
{
	if (i915_stall_active(start))
		__i915_stall_request_end(rq, start, spin, flags, timeout, ret,
					 _RET_IP_);
}

/**
 * i915_stall_active_end - record a stall in __i915_active_wait()
 * @i915: the device owning the awaited requests, or NULL if unknown
 * @start: what i915_stall_begin() returned at wait entry
 * @ret: the wait's return value
 */
static __always_inline void
i915_stall_active_end(struct drm_i915_private *i915, u64 start, int ret)
{
	if (i915_stall_active(start) && i915)
		__i915_stall_active_end(i915, start, ret, _RET_IP_);
}

/**
 * i915_stall_fence_end - record a stall on a fence that is not i915's
 * @i915: the device whose object waited
 * @fence: the awaited fence
 * @start: what i915_stall_begin() returned at wait entry
 * @flags: the I915_WAIT_* flags of the wait
 * @timeout: the timeout asked for, in jiffies
 * @ret: the wait's return value
 */
static __always_inline void
i915_stall_fence_end(struct drm_i915_private *i915, struct dma_fence *fence,
		     u64 start, unsigned int flags, long timeout, long ret)
{
	if (i915_stall_active(start))
		__i915_stall_fence_end(i915, fence, start, flags, timeout, ret,
				       _RET_IP_);
}

/**
 * i915_stall_dma_fence_wait - dma_fence_wait() that records the stall
 * @i915: the device that waits
 * @fence: the fence to wait on
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
	u64 start = i915_stall_begin();
	long ret = dma_fence_wait(fence, intr);

	if (i915_stall_active(start))
		__i915_stall_dma_fence_end(i915, fence, start, intr, ret,
					   _RET_IP_);
	return ret;
}

void i915_stall_record(struct i915_stall_log *log,
		       const struct i915_stall_info *info);

int i915_stall_init(struct drm_i915_private *i915);
void i915_stall_fini(struct drm_i915_private *i915);
void i915_stall_debugfs_register(struct drm_i915_private *i915,
				 struct dentry *root);

#else

static inline u64 i915_stall_begin(void) { return 0; }
static inline u64 i915_stall_since(u64 start) { return 0; }
static inline bool i915_stall_active(u64 start) { return false; }
static inline void
i915_stall_request_end(struct i915_request *rq, u64 start, u64 spin,
		       unsigned int flags, long timeout, long ret) { }
static inline void
i915_stall_active_end(struct drm_i915_private *i915, u64 start, int ret) { }
static inline void
i915_stall_fence_end(struct drm_i915_private *i915, struct dma_fence *fence,
		     u64 start, unsigned int flags, long timeout, long ret) { }
static inline long
i915_stall_dma_fence_wait(struct drm_i915_private *i915,
			  struct dma_fence *fence, bool intr)
{
	return dma_fence_wait(fence, intr);
}

static inline void i915_stall_record(struct i915_stall_log *log,
				     const struct i915_stall_info *info) { }

static inline int i915_stall_init(struct drm_i915_private *i915) { return 0; }
static inline void i915_stall_fini(struct drm_i915_private *i915) { }
static inline void i915_stall_debugfs_register(struct drm_i915_private *i915,
					       struct dentry *root) { }

#endif

#endif /* __I915_STALL_H__ */
