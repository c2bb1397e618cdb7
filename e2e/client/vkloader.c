// SPDX-License-Identifier: MIT
/*
 * libvkloader.so: the "Vulkan loader" of vkapp (see vk.h).  vkCreateDevice
 * dlopen()s the driver, libvkdrv.so, as the Khronos loader opens an ICD;
 * every other entry point is a trampoline that loads the device's dispatch
 * table (its first word) and jumps to the driver's function: a tail call,
 * as the real loader's trampolines compile to, so the loader leaves no
 * frame of its own on the stack while the driver runs.  Built -O2 without
 * frame pointers, as Debian builds libvulkan1; tests/check.sh asserts the
 * jumps.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "vk.h"

#define VK_EXPORT __attribute__((visibility("default")))

static inline const struct vk_dispatch *disp(VkDevice device)
{
	return *(const struct vk_dispatch *const *)(const void *)device;
}

VK_EXPORT VkResult vkCreateDevice(const char *render_node, const char *mock_fence,
				  VkDevice *pDevice)
{
	const char *icd = getenv("VKAPP_ICD");
	PFN_vkdrv_CreateDevice create;
	void *h;

	h = dlopen(icd && *icd ? icd : "libvkdrv.so", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "vkloader: %s\n", dlerror());
		return VK_ERROR_INITIALIZATION_FAILED;
	}
	create = (PFN_vkdrv_CreateDevice)dlsym(h, VKDRV_CREATE_DEVICE);
	if (!create) {
		fprintf(stderr, "vkloader: %s\n", dlerror());
		return VK_ERROR_INITIALIZATION_FAILED;
	}
	return create(render_node, mock_fence, pDevice);	/* the ICD stays loaded */
}

VK_EXPORT void vkDestroyDevice(VkDevice device)
{
	disp(device)->DestroyDevice(device);
}

VK_EXPORT VkResult vkCreateFence(VkDevice device, VkFence *pFence)
{
	return disp(device)->CreateFence(device, pFence);
}

VK_EXPORT void vkDestroyFence(VkDevice device, VkFence fence)
{
	disp(device)->DestroyFence(device, fence);
}

VK_EXPORT VkResult vkGetFenceFdKHR(VkDevice device, VkFence fence, int *pFd)
{
	return disp(device)->GetFenceFdKHR(device, fence, pFd);
}

VK_EXPORT VkResult vkImportFenceFdKHR(VkDevice device, VkFence fence, int fd)
{
	return disp(device)->ImportFenceFdKHR(device, fence, fd);
}

VK_EXPORT VkResult vkCreateTimelineSemaphore(VkDevice device, VkSemaphore *pSemaphore)
{
	return disp(device)->CreateTimelineSemaphore(device, pSemaphore);
}

VK_EXPORT void vkDestroySemaphore(VkDevice device, VkSemaphore semaphore)
{
	disp(device)->DestroySemaphore(device, semaphore);
}

VK_EXPORT VkResult vkQueueSubmit(VkDevice device, uint32_t ms, VkFence fence,
				 VkSemaphore semaphore, uint64_t value)
{
	return disp(device)->QueueSubmit(device, ms, fence, semaphore, value);
}

VK_EXPORT VkResult vkWaitForFences(VkDevice device, uint32_t fenceCount, const VkFence *pFences,
				   VkBool32 waitAll, uint64_t timeout)
{
	return disp(device)->WaitForFences(device, fenceCount, pFences, waitAll, timeout);
}

VK_EXPORT VkResult vkWaitSemaphores(VkDevice device, const VkSemaphoreWaitInfo *pWaitInfo,
				    uint64_t timeout)
{
	return disp(device)->WaitSemaphores(device, pWaitInfo, timeout);
}

VK_EXPORT PFN_vkVoidFunction vkGetDeviceProcAddr(VkDevice device, const char *pName)
{
	return disp(device)->GetDeviceProcAddr(device, pName);
}
