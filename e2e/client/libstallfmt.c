// SPDX-License-Identifier: MIT
/* libstallfmt.so: present_frame(), the caller of the waiting function. */
#include "stallpie.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT __attribute__((noinline)) long present_frame(struct stall_dev *dev, unsigned int ms)
{
	long ret = wait_idle(dev, ms);

	dev->frames++;		/* not a tail call */
	return ret;
}
