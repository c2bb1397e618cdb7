// SPDX-License-Identifier: MIT
/*
 * libgpu.so: see gpu.h.  Built with frame pointers; the write is a raw
 * syscall instruction because glibc's write() wrapper has no frame of its
 * own, which would hide its caller from a frame-pointer unwinder.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>

#include "gpu.h"

#define GPU_EXPORT __attribute__((visibility("default")))

static inline __attribute__((always_inline)) long
raw_write(int fd, const void *buf, unsigned long len)
{
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_write), "D"((long)fd), "S"(buf), "d"(len)
			 : "rcx", "r11", "memory");
	return ret;
}

GPU_EXPORT int gpu_open(const char *ctl_path)
{
	int fd = open(ctl_path, O_WRONLY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

GPU_EXPORT __attribute__((noinline)) long gpu_wait(int fd, unsigned int ms)
{
	char buf[16];
	int n = snprintf(buf, sizeof(buf), "%u", ms);

	/* raw_write is static and inlined: the syscall is in gpu_wait itself */
	return raw_write(fd, buf, (unsigned long)n);
}

GPU_EXPORT __attribute__((noinline)) long gpu_write_raw(int fd, const char *buf,
							unsigned long len)
{
	return raw_write(fd, buf, len);
}
