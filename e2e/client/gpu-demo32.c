// SPDX-License-Identifier: MIT
/*
 * gpu-demo32: a 32-bit (i386) client for the end-to-end test, built
 * -m32 -static with frame pointers.  It stalls twice on the mock GPU, each
 * time along
 *
 *   main -> render_frame32 -> submit_batch32 -> wait_for_gpu32 -> ...
 *
 * first through gpu_wait32(), which makes the write(2) to
 * i915_stalls_mock_wait itself with int $0x80, so that the user pc and
 * every frame of the chain are in this binary; then through gpu_write32(),
 * which calls glibc's write() as a real client does: glibc enters the
 * kernel through the vDSO's __kernel_vsyscall (sysenter or syscall), so
 * the user pc is in the vDSO, and write() keeps no frame pointer, so
 * gpu_write32() is not in the chain.  The host reads this binary's
 * addresses with nm.
 * One line for each wait:
 *
 *   {"event":"stall32","via":V,"pid":P,"tid":T,"delay_ms":D,
 *    "t0_ns":A,"t1_ns":B,"ret":R,"vdso":S,"vdso_end":E}
 *
 * V is "int80" or "libc"; [S, E) is the vDSO's text.
 *
 *   gpu-demo32 DELAY_MS [CTL]   (CTL: the first dri/ * /i915_stalls_mock_wait)
 *
 * Exit status: 0 if both writes wrote everything, 1 if not, 2 usage.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* write(2) by hand: the kernel is entered from this function. */
NOINLINE static long gpu_wait32(int fd, const char *buf, unsigned long len)
{
	long ret;

	asm volatile("int $0x80"
		     : "=a"(ret)
		     : "0"(4 /* __NR_write */), "b"(fd), "c"(buf), "d"(len)
		     : "memory");
	return ret;
}

/* write(2) through glibc, which enters the kernel through the vDSO. */
NOINLINE static long gpu_write32(int fd, const char *buf, unsigned long len)
{
	long ret = write(fd, buf, len);

	asm volatile("" : : : "memory");
	return ret;
}

NOINLINE static long wait_for_gpu32(int fd, const char *buf, unsigned long len, int libc)
{
	long ret = libc ? gpu_write32(fd, buf, len) : gpu_wait32(fd, buf, len);

	asm volatile("" : : : "memory");
	return ret;
}

NOINLINE static long submit_batch32(int fd, const char *buf, unsigned long len, int libc)
{
	long ret = wait_for_gpu32(fd, buf, len, libc);

	asm volatile("" : : : "memory");
	return ret;
}

NOINLINE static long render_frame32(int fd, const char *buf, unsigned long len, int libc)
{
	long ret = submit_batch32(fd, buf, len, libc);

	asm volatile("" : : : "memory");
	return ret;
}

/* The end of the vDSO's text: its PT_LOAD segment, linked at 0. */
static unsigned long vdso_end(unsigned long base)
{
	const Elf32_Ehdr *eh = (const Elf32_Ehdr *)base;
	const Elf32_Phdr *ph;
	int i;

	if (!base)
		return 0;
	ph = (const Elf32_Phdr *)(base + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD)
			return base + ph[i].p_vaddr + ph[i].p_memsz;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long vdso = getauxval(AT_SYSINFO_EHDR);
	unsigned long long t0, t1;
	int fd, n, libc, bad = 0;
	const char *ctl;
	glob_t g = { 0 };
	char buf[16];
	long ret;

	if (argc < 2 || argc > 3 || atoi(argv[1]) <= 0) {
		fprintf(stderr, "usage: gpu-demo32 DELAY_MS [CTL]\n");
		return 2;
	}
	if (argc == 3) {
		ctl = argv[2];
	} else if (glob("/sys/kernel/debug/dri/*/i915_stalls_mock_wait", 0, NULL, &g) == 0) {
		ctl = g.gl_pathv[0];
	} else {
		fprintf(stderr, "gpu-demo32: no i915_stalls_mock_wait\n");
		return 1;
	}
	fd = open(ctl, O_WRONLY);
	if (fd < 0) {
		perror(ctl);
		return 1;
	}
	n = snprintf(buf, sizeof(buf), "%d", atoi(argv[1]));
	for (libc = 0; libc < 2; libc++) {
		t0 = now_ns();
		ret = render_frame32(fd, buf, n, libc);
		t1 = now_ns();
		printf("{\"event\":\"stall32\",\"via\":\"%s\",\"pid\":%d,\"tid\":%d,"
		       "\"delay_ms\":%d,\"t0_ns\":%llu,\"t1_ns\":%llu,\"ret\":%ld,"
		       "\"vdso\":%lu,\"vdso_end\":%lu}\n",
		       libc ? "libc" : "int80", getpid(), gettid(), atoi(argv[1]), t0, t1,
		       ret, vdso, vdso_end(vdso));
		bad |= ret != n;
	}
	close(fd);
	return bad;
}
