/* SPDX-License-Identifier: MIT */
/*
 * libgpu: the demo client's stand-in for a userspace graphics driver.  It
 * "waits for the GPU" by writing a delay to i915_stalls_mock_wait, which
 * blocks the calling thread in i915_request_wait() on the mock GPU.
 */
#ifndef GPU_DEMO_GPU_H
#define GPU_DEMO_GPU_H

/* Open the control file; returns an fd or -errno. */
int gpu_open(const char *ctl_path);

/*
 * Wait "for the GPU" for @ms milliseconds: one write(2) of the decimal
 * number, issued with the syscall instruction from inside this function so
 * that the kernel's frame-pointer walk of the user stack starts here.
 * Returns the bytes written or -errno.
 */
long gpu_wait(int fd, unsigned int ms);

/* Write @len bytes of @buf to @fd the same way; returns bytes or -errno. */
long gpu_write_raw(int fd, const char *buf, unsigned long len);

#endif
