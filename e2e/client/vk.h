/* SPDX-License-Identifier: MIT */
/*
 * vk.h: the few Vulkan entry points vkapp uses, shaped as Vulkan's (a
 * dispatchable VkDevice whose first word is the loader's dispatch table,
 * VkResult, nanosecond timeouts, fences and timeline semaphores), not the
 * real API: the end-to-end test must not depend on a Vulkan driver.
 *
 * libvkloader.so (vkloader.c) exports the vk* functions and forwards each
 * by a tail call through the device's dispatch table, as the Khronos loader's
 * trampolines do; libvkdrv.so (vkdrv.c), the "driver", implements them on
 * DRM syncobjs through libdrm, as Mesa's vk_drm_syncobj does, with fences
 * from the mock GPU (i915_stall_mock.h) in place of a real GPU's.
 */
#ifndef E2E_VK_H
#define E2E_VK_H

#include <stdint.h>

typedef int32_t VkResult;
#define VK_SUCCESS			0
#define VK_TIMEOUT			2
#define VK_ERROR_OUT_OF_HOST_MEMORY	(-1)
#define VK_ERROR_INITIALIZATION_FAILED	(-3)
#define VK_ERROR_DEVICE_LOST		(-4)

typedef uint32_t VkBool32;
#define VK_TRUE		1u
#define VK_FALSE	0u

typedef struct VkDevice_T *VkDevice;
typedef struct VkFence_T *VkFence;
typedef struct VkSemaphore_T *VkSemaphore;
typedef void (*PFN_vkVoidFunction)(void);

#define VK_SEMAPHORE_WAIT_ANY_BIT 0x1u

typedef struct VkSemaphoreWaitInfo {
	uint32_t flags;			/* VK_SEMAPHORE_WAIT_ANY_BIT */
	uint32_t semaphoreCount;
	const VkSemaphore *pSemaphores;
	const uint64_t *pValues;
} VkSemaphoreWaitInfo;

/*
 * vkCreateDevice: the render node (e.g. /dev/dri/renderD128) and the mock
 * GPU's fence file (dri/N/i915_stalls_mock_fence in debugfs).  The loader
 * finds the driver as libvkdrv.so ($VKAPP_ICD overrides).
 */
VkResult vkCreateDevice(const char *render_node, const char *mock_fence, VkDevice *pDevice);
void vkDestroyDevice(VkDevice device);
VkResult vkCreateFence(VkDevice device, VkFence *pFence);
void vkDestroyFence(VkDevice device, VkFence fence);
/* VK_KHR_external_fence_fd with OPAQUE_FD handles: a syncobj fd */
VkResult vkGetFenceFdKHR(VkDevice device, VkFence fence, int *pFd);
VkResult vkImportFenceFdKHR(VkDevice device, VkFence fence, int fd);
VkResult vkCreateTimelineSemaphore(VkDevice device, VkSemaphore *pSemaphore);
void vkDestroySemaphore(VkDevice device, VkSemaphore semaphore);
/*
 * "Submit" work of @ms milliseconds to the mock GPU; when it completes it
 * signals @fence (if not NULL) or point @value of the timeline @semaphore.
 */
VkResult vkQueueSubmit(VkDevice device, uint32_t ms, VkFence fence, VkSemaphore semaphore,
		       uint64_t value);
VkResult vkWaitForFences(VkDevice device, uint32_t fenceCount, const VkFence *pFences,
			 VkBool32 waitAll, uint64_t timeout);
VkResult vkWaitSemaphores(VkDevice device, const VkSemaphoreWaitInfo *pWaitInfo,
			  uint64_t timeout);
PFN_vkVoidFunction vkGetDeviceProcAddr(VkDevice device, const char *pName);

/*
 * The driver's test-only entry point, from vkGetDeviceProcAddr(device,
 * "vkdrvGetDebugInfo"): the fence the last submit made (the mock GPU's
 * dma_fence context and seqno), and what the last wait passed to libdrm
 * (the kernel's frame-pointer walk reads that ioctl argument as a frame:
 * see vkdrv.c).
 */
struct vkdrv_debug_info {
	uint64_t last_context, last_seqno;	/* fence of the last vkQueueSubmit */
	uint64_t wait_handles_addr;		/* the handle array passed to libdrm */
	uint64_t wait_points_addr;		/* the point array (timeline waits) */
	int64_t wait_abs_timeout_ns;		/* the absolute timeout passed */
	uint32_t wait_flags;			/* DRM_SYNCOBJ_WAIT_FLAGS_* passed */
	uint32_t wait_count;
};
typedef void (*PFN_vkdrvGetDebugInfo)(VkDevice device, struct vkdrv_debug_info *info);

/* The driver's dispatch table; the loader calls through it. */
struct vk_dispatch {
	void (*DestroyDevice)(VkDevice);
	VkResult (*CreateFence)(VkDevice, VkFence *);
	void (*DestroyFence)(VkDevice, VkFence);
	VkResult (*GetFenceFdKHR)(VkDevice, VkFence, int *);
	VkResult (*ImportFenceFdKHR)(VkDevice, VkFence, int);
	VkResult (*CreateTimelineSemaphore)(VkDevice, VkSemaphore *);
	void (*DestroySemaphore)(VkDevice, VkSemaphore);
	VkResult (*QueueSubmit)(VkDevice, uint32_t, VkFence, VkSemaphore, uint64_t);
	VkResult (*WaitForFences)(VkDevice, uint32_t, const VkFence *, VkBool32, uint64_t);
	VkResult (*WaitSemaphores)(VkDevice, const VkSemaphoreWaitInfo *, uint64_t);
	PFN_vkVoidFunction (*GetDeviceProcAddr)(VkDevice, const char *);
};

/* The driver's one export, found by the loader with dlsym() */
typedef VkResult (*PFN_vkdrv_CreateDevice)(const char *, const char *, VkDevice *);
#define VKDRV_CREATE_DEVICE "vkdrv_CreateDevice"

#endif
