// SPDX-License-Identifier: MIT
/*
 * libvkdrv.so: the "Vulkan driver" of vkapp (see vk.h), shaped like Mesa's
 * ANV on the Vulkan runtime's vk_drm_syncobj: fences and timeline
 * semaphores are DRM syncobjs of the render node, and every wait goes
 *
 *   drv_WaitForFences / drv_WaitSemaphores -> drv_sync_wait_many
 *     -> drmSyncobjWait / drmSyncobjTimelineWait (Debian's libdrm)
 *     -> drmIoctl -> ioctl() (glibc) -> DRM_IOCTL_SYNCOBJ_(TIMELINE_)WAIT
 *
 * with the flags Mesa passes: WAIT_FOR_SUBMIT always, WAIT_ALL unless the
 * wait is for any.  A submit takes its fence from the mock GPU
 * (I915_STALL_MOCK_FENCE: a sync_file of a mock i915 request) and imports
 * it into the fence's syncobj (drmSyncobjImportSyncFile), or puts it on a
 * timeline point (drmSyncobjTransfer), as Mesa imports a sync_file.
 * vkImportFenceFdKHR takes an opaque syncobj fd (drmSyncobjFDToHandle).
 *
 * Built -O2 -fomit-frame-pointer, like Mesa: the kernel's frame-pointer
 * walk of the user stack finds no frame of this library, nor of libdrm.
 * What it does find: glibc's ioctl() keeps no frame, and libdrm's drmIoctl()
 * keeps its ioctl argument in %rbp, so the walk takes the argument struct
 * as a frame: its first word (the handle array's address) as the next
 * frame pointer, its second (timeout_nsec of a wait, the point array's
 * address of a timeline wait) as a return address.  The handle and point
 * arrays are allocated once, in vkCreateDevice on the main thread's heap,
 * below every stack, so the walk ends there, after those two entries.
 * (Mesa's STACK_ARRAY keeps up to 8 handles on the stack instead: the
 * walk would go on through whatever that stack holds.)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>

#include "i915_stall_mock.h"
#include "vk.h"

#define VK_EXPORT __attribute__((visibility("default")))
#define WAIT_SLOTS 4		/* threads waiting at once */
#define WAIT_MAX 16		/* fences or semaphores in one wait */

struct drv_device {
	const struct vk_dispatch *disp;	/* first: the loader reads it */
	int drm_fd, mock_fd;
	atomic_uint busy;		/* a bit per wait slot in use */
	uint32_t *handles;		/* WAIT_SLOTS x WAIT_MAX, on the heap */
	uint64_t *points;
};

struct VkFence_T {
	uint32_t syncobj;
};

struct VkSemaphore_T {
	uint32_t syncobj;
};

static _Thread_local struct vkdrv_debug_info dbg;

static struct drv_device *dev_of(VkDevice device)
{
	return (struct drv_device *)(void *)device;
}

static VkResult vk_errno(int err)
{
	if (err == -ETIME || err == -ETIMEDOUT)
		return VK_TIMEOUT;
	return err == -ENOMEM ? VK_ERROR_OUT_OF_HOST_MEMORY : VK_ERROR_DEVICE_LOST;
}

/* Mesa's os_time_get_absolute_timeout(), clamped to INT64_MAX as
 * vk_drm_syncobj_wait_many() clamps it */
static int64_t abs_timeout(uint64_t timeout)
{
	struct timespec ts;
	uint64_t now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	if (timeout > (uint64_t)INT64_MAX - now)
		return INT64_MAX;
	return (int64_t)(now + timeout);
}

static int slot_get(struct drv_device *d)
{
	unsigned int old = atomic_load(&d->busy);
	int i;

	for (;;) {
		for (i = 0; i < WAIT_SLOTS && (old & (1u << i)); i++)
			;
		if (i == WAIT_SLOTS)
			return -1;
		if (atomic_compare_exchange_weak(&d->busy, &old, old | (1u << i)))
			return i;
	}
}

static void slot_put(struct drv_device *d, int i)
{
	atomic_fetch_and(&d->busy, ~(1u << i));
}

/* vk_drm_syncobj_wait_many(): one syncobj wait for all the handles */
static VkResult drv_sync_wait_many(struct drv_device *d, uint32_t n, const uint32_t *syncobjs,
				   const uint64_t *values, int any, uint64_t timeout)
{
	uint32_t flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, i;
	uint32_t *handles;
	uint64_t *points;
	int64_t abs = abs_timeout(timeout);
	int slot, err;

	if (!n || n > WAIT_MAX)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	slot = slot_get(d);
	if (slot < 0)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	handles = d->handles + slot * WAIT_MAX;
	points = d->points + slot * WAIT_MAX;
	for (i = 0; i < n; i++) {
		handles[i] = syncobjs[i];
		points[i] = values ? values[i] : 0;
	}
	if (!any)
		flags |= DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL;
	dbg.wait_handles_addr = (uint64_t)(uintptr_t)handles;
	dbg.wait_points_addr = values ? (uint64_t)(uintptr_t)points : 0;
	dbg.wait_abs_timeout_ns = abs;
	dbg.wait_flags = flags;
	dbg.wait_count = n;
	if (values)
		err = drmSyncobjTimelineWait(d->drm_fd, handles, points, n, abs, flags, NULL);
	else
		err = drmSyncobjWait(d->drm_fd, handles, n, abs, flags, NULL);
	slot_put(d, slot);
	return err ? vk_errno(err) : VK_SUCCESS;
}

static VkResult drv_WaitForFences(VkDevice device, uint32_t count, const VkFence *fences,
				  VkBool32 waitAll, uint64_t timeout)
{
	uint32_t syncobjs[WAIT_MAX], i;

	if (count > WAIT_MAX)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	for (i = 0; i < count; i++)
		syncobjs[i] = fences[i]->syncobj;
	return drv_sync_wait_many(dev_of(device), count, syncobjs, NULL, !waitAll, timeout);
}

static VkResult drv_WaitSemaphores(VkDevice device, const VkSemaphoreWaitInfo *info,
				   uint64_t timeout)
{
	uint32_t syncobjs[WAIT_MAX], i;

	if (info->semaphoreCount > WAIT_MAX)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	for (i = 0; i < info->semaphoreCount; i++)
		syncobjs[i] = info->pSemaphores[i]->syncobj;
	return drv_sync_wait_many(dev_of(device), info->semaphoreCount, syncobjs, info->pValues,
				  !!(info->flags & VK_SEMAPHORE_WAIT_ANY_BIT), timeout);
}

static VkResult drv_QueueSubmit(VkDevice device, uint32_t ms, VkFence fence, VkSemaphore sem,
				uint64_t value)
{
	struct drv_device *d = dev_of(device);
	struct i915_stall_mock_fence mf = { .ms = ms, .fd = -1 };
	uint32_t tmp;
	int err;

	/* the mock GPU's "execbuf": a request of ms milliseconds, its fence */
	if (ioctl(d->mock_fd, I915_STALL_MOCK_FENCE, &mf))
		return vk_errno(-errno);
	dbg.last_context = mf.context;
	dbg.last_seqno = mf.seqno;
	err = 0;
	if (fence)
		err = drmSyncobjImportSyncFile(d->drm_fd, fence->syncobj, mf.fd);
	if (!err && sem) {
		/* a signal operation on a timeline point: a binary syncobj
		 * holding the fence, transferred onto the point */
		err = drmSyncobjCreate(d->drm_fd, 0, &tmp);
		if (!err) {
			err = drmSyncobjImportSyncFile(d->drm_fd, tmp, mf.fd);
			if (!err)
				err = drmSyncobjTransfer(d->drm_fd, sem->syncobj, value, tmp, 0, 0);
			drmSyncobjDestroy(d->drm_fd, tmp);
		}
	}
	close(mf.fd);
	return err ? vk_errno(err) : VK_SUCCESS;
}

static VkResult drv_CreateFence(VkDevice device, VkFence *pFence)
{
	struct VkFence_T *f = calloc(1, sizeof(*f));
	int err;

	if (!f)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	err = drmSyncobjCreate(dev_of(device)->drm_fd, 0, &f->syncobj);
	if (err) {
		free(f);
		return vk_errno(err);
	}
	*pFence = f;
	return VK_SUCCESS;
}

static void drv_DestroyFence(VkDevice device, VkFence fence)
{
	if (!fence)
		return;
	drmSyncobjDestroy(dev_of(device)->drm_fd, fence->syncobj);
	free(fence);
}

static VkResult drv_GetFenceFdKHR(VkDevice device, VkFence fence, int *pFd)
{
	int err = drmSyncobjHandleToFD(dev_of(device)->drm_fd, fence->syncobj, pFd);

	return err ? vk_errno(err) : VK_SUCCESS;
}

/* vk_drm_syncobj_import_opaque_fd(): the fd's syncobj replaces the fence's */
static VkResult drv_ImportFenceFdKHR(VkDevice device, VkFence fence, int fd)
{
	struct drv_device *d = dev_of(device);
	uint32_t h;
	int err = drmSyncobjFDToHandle(d->drm_fd, fd, &h);

	if (err)
		return vk_errno(err);
	drmSyncobjDestroy(d->drm_fd, fence->syncobj);
	fence->syncobj = h;
	close(fd);	/* the import took ownership of the fd */
	return VK_SUCCESS;
}

static VkResult drv_CreateTimelineSemaphore(VkDevice device, VkSemaphore *pSemaphore)
{
	struct VkSemaphore_T *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	err = drmSyncobjCreate(dev_of(device)->drm_fd, 0, &s->syncobj);
	if (err) {
		free(s);
		return vk_errno(err);
	}
	*pSemaphore = s;
	return VK_SUCCESS;
}

static void drv_DestroySemaphore(VkDevice device, VkSemaphore sem)
{
	if (!sem)
		return;
	drmSyncobjDestroy(dev_of(device)->drm_fd, sem->syncobj);
	free(sem);
}

static void drv_GetDebugInfo(VkDevice device, struct vkdrv_debug_info *info)
{
	(void)device;
	*info = dbg;
}

static PFN_vkVoidFunction drv_GetDeviceProcAddr(VkDevice device, const char *name)
{
	(void)device;
	if (!strcmp(name, "vkdrvGetDebugInfo"))
		return (PFN_vkVoidFunction)drv_GetDebugInfo;
	return NULL;
}

static void drv_DestroyDevice(VkDevice device)
{
	struct drv_device *d = dev_of(device);

	close(d->drm_fd);
	close(d->mock_fd);
	free(d->handles);
	free(d->points);
	free(d);
}

static const struct vk_dispatch drv_dispatch = {
	.DestroyDevice = drv_DestroyDevice,
	.CreateFence = drv_CreateFence,
	.DestroyFence = drv_DestroyFence,
	.GetFenceFdKHR = drv_GetFenceFdKHR,
	.ImportFenceFdKHR = drv_ImportFenceFdKHR,
	.CreateTimelineSemaphore = drv_CreateTimelineSemaphore,
	.DestroySemaphore = drv_DestroySemaphore,
	.QueueSubmit = drv_QueueSubmit,
	.WaitForFences = drv_WaitForFences,
	.WaitSemaphores = drv_WaitSemaphores,
	.GetDeviceProcAddr = drv_GetDeviceProcAddr,
};

VK_EXPORT VkResult vkdrv_CreateDevice(const char *render_node, const char *mock_fence,
				      VkDevice *pDevice)
{
	struct drv_device *d = calloc(1, sizeof(*d));
	uint64_t cap = 0;

	if (!d)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	d->disp = &drv_dispatch;
	d->mock_fd = -1;
	d->drm_fd = open(render_node, O_RDWR | O_CLOEXEC);
	if (d->drm_fd < 0) {
		fprintf(stderr, "vkdrv: %s: %s\n", render_node, strerror(errno));
		goto fail;
	}
	if (drmGetCap(d->drm_fd, DRM_CAP_SYNCOBJ_TIMELINE, &cap) || !cap) {
		fprintf(stderr, "vkdrv: %s: no DRM_CAP_SYNCOBJ_TIMELINE\n", render_node);
		goto fail;
	}
	d->mock_fd = open(mock_fence, O_RDWR | O_CLOEXEC);
	if (d->mock_fd < 0) {
		fprintf(stderr, "vkdrv: %s: %s\n", mock_fence, strerror(errno));
		goto fail;
	}
	/* the wait arrays: on this thread's heap (brk), below every stack */
	d->handles = calloc(WAIT_SLOTS * WAIT_MAX, sizeof(*d->handles));
	d->points = calloc(WAIT_SLOTS * WAIT_MAX, sizeof(*d->points));
	if (!d->handles || !d->points)
		goto fail;
	*pDevice = (VkDevice)(void *)d;
	return VK_SUCCESS;
fail:
	if (d->drm_fd >= 0)
		close(d->drm_fd);
	if (d->mock_fd >= 0)
		close(d->mock_fd);
	free(d->handles);
	free(d->points);
	free(d);
	return VK_ERROR_INITIALIZATION_FAILED;
}
