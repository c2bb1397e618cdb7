// SPDX-License-Identifier: MIT
/*
 * libstallio.so: wait_idle(), the function that waits, through glibc's own
 * write() or ioctl() wrappers (which keep no frame: a frame-pointer walk
 * goes from them straight to wait_idle's caller).  Not a tail call: it
 * stores the result after the call.
 *
 * -DVARIANT=2 builds the library that replaces it on disk in the test (same
 * soname, same entry point, another build-id, 1 KiB of other code in
 * front): a reader that symbolized an old record's wait_idle frame with it
 * would print stallio_v2_decoy.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <drm.h>

#include "stallpie.h"

#define EXPORT __attribute__((visibility("default")))

#if VARIANT == 2
EXPORT __attribute__((noinline)) long stallio_v2_decoy(struct stall_dev *dev, unsigned int n)
{
	unsigned int i;
	long s = 0;

	for (i = 0; i < n; i++)
		s += (long)dev->frames * i + (long)(i ^ 0x5a5a) * (s | 1) + (s >> 3);
	/* 1 KiB of code: the old wait_idle's offsets fall in here */
	__asm__ volatile(".fill 1024, 1, 0x90" ::: "memory");
	return s;
}

EXPORT __attribute__((noinline)) long stallio_v2_decoy2(struct stall_dev *dev, unsigned int n)
{
	return stallio_v2_decoy(dev, n * 3 + 1) ^ stallio_v2_decoy(dev, n);
}
#endif

EXPORT __attribute__((noinline)) long wait_idle(struct stall_dev *dev, unsigned int ms)
{
	long ret;

	if (dev->handle) {
		struct drm_syncobj_wait w = {
			.handles = (uintptr_t)&dev->handle,
			.timeout_nsec = INT64_MAX,
			.count_handles = 1,
			.flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL |
				 DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
		};

		ret = ioctl(dev->drm_fd, DRM_IOCTL_SYNCOBJ_WAIT, &w);
	} else {
		char buf[16];
		int n = snprintf(buf, sizeof(buf), "%u", ms);

		ret = write(dev->ctl_fd, buf, (size_t)n);
	}
	dev->err = ret < 0 ? errno : 0;
	dev->ret = ret;
	dev->ms = ms;
	return ret;
}
