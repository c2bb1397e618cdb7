/* SPDX-License-Identifier: MIT */
/*
 * Copyright © 2026 The i915 stall log authors
 *
 * The test-only uAPI of the stall log's mock GPU
 * (CONFIG_DRM_I915_STALL_LOG_MOCK), shared with the end-to-end clients.
 */

#ifndef __I915_STALL_MOCK_H__
#define __I915_STALL_MOCK_H__

#include <linux/ioctl.h>
#include <linux/types.h>

/*
 * struct i915_stall_mock_fence - a fence the mock GPU signals after @ms
 *
 * I915_STALL_MOCK_FENCE on debugfs dri/N/i915_stalls_mock_fence submits a
 * mock request of @ms milliseconds on a GEM context owned by the opener
 * and returns its fence as a sync_file, which a client imports into a
 * syncobj of the mock device's render node with DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE
 * (DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE), as Mesa imports a
 * sync_file.  @context and @seqno name the fence, as the stall log will.
 */
struct i915_stall_mock_fence {
	__u32 ms;		/* in: the request's length, at most 60000 */
	__s32 fd;		/* out: a sync_file of the request's fence, O_CLOEXEC */
	__u64 context;		/* out: the fence's dma_fence context */
	__u64 seqno;		/* out: its seqno */
};

#define I915_STALL_MOCK_FENCE	_IOWR('S', 1, struct i915_stall_mock_fence)

#ifdef __KERNEL__
/* The mock device, made and unmade with i915 (i915_module.c). */
int i915_stall_mock_init(void);
void i915_stall_mock_exit(void);
#endif

#endif /* __I915_STALL_MOCK_H__ */
