/* SPDX-License-Identifier: MIT */
/*
 * stallpie: a PIE client with two shared libraries that waits through
 * glibc's real write() and ioctl() (issue 12).  See stallpie.c.
 *
 *   main -> run_frame (stallpie) -> present_frame (libstallfmt.so)
 *        -> wait_idle (libstallio.so) -> write() or ioctl() (glibc)
 */
#ifndef STALLPIE_H
#define STALLPIE_H

#include <stdint.h>

struct stall_dev {
	int ctl_fd;		/* dri/N/i915_stalls_mock_wait, for write() */
	int drm_fd;		/* the render node, for DRM_IOCTL_SYNCOBJ_WAIT */
	uint32_t handle;	/* 0: write() the delay; else wait on this syncobj */
	unsigned int ms;
	long ret;		/* what write()/ioctl() returned */
	int err;		/* its errno */
	unsigned int frames;
};

typedef long (*wait_fn)(struct stall_dev *dev, unsigned int ms);

long wait_idle(struct stall_dev *dev, unsigned int ms);		/* libstallio.so */
long present_frame(struct stall_dev *dev, unsigned int ms);	/* libstallfmt.so */

#endif
