// SPDX-License-Identifier: MIT
/*
 * stall-bench: the guest side of `make bench`.  Every mode prints one JSON
 * line on stdout.
 *
 *   stall-bench kernel DIR MODE ITER KDEPTH UDEPTH [CPU]
 *	recurse UDEPTH user frames (frame pointers), then run the kernel
 *	microbenchmark MODE (empty, hook, unwind, uwalk, record, record-remap,
 *	remap, submit, submit-record, ...: see stall_bench_write() in the mock
 *	GPU) through DIR/i915_stalls_mock_bench with ITER iterations at KDEPTH
 *	extra kernel frames; pinned to CPU if given.  From the environment:
 *	  STALL_BENCH_FLAT=1	every user frame in the executable
 *	  STALL_BENCH_MAPS=N	first make 2N one-page mappings that cannot
 *				merge and EXEC_MAPS executable mappings of this
 *				program, as a GPU client has its buffers and
 *				libraries (issue 22)
 *	  STALL_BENCH_PAD=BYTES	that much stack, written, above the UDEPTH
 *				frames: a record's stack snapshot is then full
 *	  STALL_BENCH_SECTIONS=1	have the kernel time the record path's
 *				preemption-disabled sections during the run
 *	The JSON line says how many mappings the process had ("maps").
 *   stall-bench waits DIR N MS [CPU]
 *	N mock waits of MS milliseconds from a 32-frame user stack; the
 *	waiting thread's CPU time per wait (what recording adds) and wall
 *	time; pinned to CPU if given
 *   stall-bench syncwaits DIR DEV N MS [CPU]
 *	N syncobj waits of MS milliseconds each on the render node DEV, as
 *	Mesa waits: a mock request's sync_file (DIR/i915_stalls_mock_fence)
 *	imported into a syncobj, then DRM_IOCTL_SYNCOBJ_WAIT through libc's
 *	ioctl() from a 32-frame user stack; the wait alone is timed, thread
 *	CPU time and wall time, as for waits
 *   stall-bench snap DIR N
 *	N snapshots of DIR/i915_stalls: open, read all, close; time each
 */
#define _GNU_SOURCE
#include <alloca.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <drm.h>		/* libdrm's copy of the uAPI */
#include "i915_stall_mock.h"

#define NOINLINE __attribute__((noinline))

static const char *dir;

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void die(const char *what)
{
	fprintf(stderr, "stall-bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

typedef int (*bench_back_fn)(int depth, int (*leaf)(void *), void *arg);
int bench_deep1(int depth, int (*leaf)(void *), void *arg, bench_back_fn back);
int bench_deep2(int depth, int (*leaf)(void *), void *arg, bench_back_fn back);
int bench_deep3(int depth, int (*leaf)(void *), void *arg, bench_back_fn back);

/* STALL_BENCH_FLAT=1: every frame in the executable, none in the libraries. */
static int flat;
/* STALL_BENCH_SECTIONS=1: the kernel times the preemption-disabled sections. */
static int sections;

/*
 * The user stack the kernel walks: @depth frames, of this function and,
 * every other frame, of bench_deep1/2/3 in three shared libraries
 * (libbenchdeep.c), in turn.
 */
static NOINLINE int deep(int depth, int (*leaf)(void *), void *arg)
{
	int ret;

	if (!depth)
		return leaf(arg);
	switch (flat ? 0 : depth % 6) {
	case 1:
		ret = bench_deep1(depth - 1, leaf, arg, deep);
		break;
	case 3:
		ret = bench_deep2(depth - 1, leaf, arg, deep);
		break;
	case 5:
		ret = bench_deep3(depth - 1, leaf, arg, deep);
		break;
	default:
		ret = deep(depth - 1, leaf, arg);
		break;
	}
	__asm__ volatile("" : "+r"(ret));	/* not a tail call */
	return ret;
}

struct wargs {
	int fd;
	const char *ms;
};

struct kargs {
	const char *mode;
	unsigned long long iter;
	unsigned int kdepth;
};

/* The mappings of this process: the lines of /proc/self/maps. */
static int count_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	int c, n = 0;

	if (!f)
		die("/proc/self/maps");
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

/* Executable mappings of this program that STALL_BENCH_MAPS adds. */
#define EXEC_MAPS 32

/*
 * STALL_BENCH_MAPS=N: a GPU client's address space, 2,000 mappings and
 * more (buffers, their guard pages, libraries): one region of 2N pages,
 * read-only, of which every other page is made writable, so that it is 2N
 * mappings that cannot merge; and EXEC_MAPS mappings of this program's
 * first page, read and execute, which cannot merge either (each is at
 * file offset 0), so that the identity of its code has that many more
 * mappings to check.  Nothing is touched: no page is populated.
 */
static void make_maps(int n)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *p;
	int i, fd;

	p = mmap(NULL, 2 * (size_t)n * pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap");
	for (i = 0; i < n; i++)
		if (mprotect(p + (2 * (size_t)i + 1) * pg, pg, PROT_READ | PROT_WRITE))
			die("mprotect");
	fd = open("/proc/self/exe", O_RDONLY);
	if (fd < 0)
		die("/proc/self/exe");
	for (i = 0; i < EXEC_MAPS; i++)
		if (mmap(NULL, pg, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED)
			die("mmap /proc/self/exe");
	close(fd);
}

static int kernel_leaf(void *p)
{
	const struct kargs *a = p;
	char cmd[128], res[256], path[512];
	int fd, maps = count_maps();
	ssize_t n;

	snprintf(path, sizeof(path), "%s/i915_stalls_mock_bench", dir);
	fd = open(path, O_RDWR);
	if (fd < 0)
		die(path);
	snprintf(cmd, sizeof(cmd), "%s %llu %u%s", a->mode, a->iter, a->kdepth,
		 sections ? " 1" : "");
	if (write(fd, cmd, strlen(cmd)) < 0)
		die(cmd);
	n = pread(fd, res, sizeof(res) - 1, 0);
	if (n <= 0)
		die("read result");
	res[n] = 0;
	close(fd);
	{
		char mode[32];
		unsigned long long iter, ns, count, sum, max;
		int got = sscanf(res, "%31s %llu %llu %llu %llu %llu", mode, &iter, &ns,
				 &count, &sum, &max);

		if (got != 3 && got != 6)
			die("parse result");
		printf("{\"bench\":\"kernel\",\"mode\":\"%s\",\"iter\":%llu,"
		       "\"ns\":%llu,\"ns_per_iter\":%.1f,\"cpu\":%d,\"maps\":%d",
		       mode, iter, ns, (double)ns / (double)iter, sched_getcpu(), maps);
		if (got == 6)
			printf(",\"sections\":%llu,\"section_ns_mean\":%.1f,"
			       "\"section_ns_max\":%llu", count,
			       count ? (double)sum / (double)count : 0.0, max);
		printf("}\n");
	}
	return 0;
}

/* One mock wait on the open i915_stalls_mock_wait. */
static int wait_leaf(void *p)
{
	const struct wargs *a = p;

	if (write(a->fd, a->ms, strlen(a->ms)) < 0)
		die("mock wait");
	return 0;
}

struct sargs {
	int dev;
	uint32_t handle;
};

/* One DRM_IOCTL_SYNCOBJ_WAIT on @handle, no timeout (INT64_MAX, as Mesa). */
static int syncwait_leaf(void *p)
{
	const struct sargs *a = p;
	struct drm_syncobj_wait w = {
		.handles = (uintptr_t)&a->handle,
		.timeout_nsec = INT64_MAX,
		.count_handles = 1,
		.flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL,
	};

	if (ioctl(a->dev, DRM_IOCTL_SYNCOBJ_WAIT, &w))
		die("DRM_IOCTL_SYNCOBJ_WAIT");
	return 0;
}

/* A syncobj holding the fence of a new mock request of @ms. */
static uint32_t mock_syncobj(int mock, int dev, unsigned int ms)
{
	struct i915_stall_mock_fence f = { .ms = ms };
	struct drm_syncobj_create c = { 0 };
	struct drm_syncobj_handle h = { 0 };

	if (ioctl(mock, I915_STALL_MOCK_FENCE, &f))
		die("I915_STALL_MOCK_FENCE");
	if (ioctl(dev, DRM_IOCTL_SYNCOBJ_CREATE, &c))
		die("DRM_IOCTL_SYNCOBJ_CREATE");
	h.handle = c.handle;
	h.fd = f.fd;
	h.flags = DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE;
	if (ioctl(dev, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &h))
		die("DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE");
	close(f.fd);
	return c.handle;
}

/* The JSON line of a waits or syncwaits run: per-wait CPU and wall times. */
static void print_waits(const char *bench, int n, const char *ms, uint64_t *cpu,
			uint64_t *wall, uint64_t sum)
{
	qsort(cpu, n, sizeof(*cpu), cmp_u64);
	qsort(wall, n, sizeof(*wall), cmp_u64);
	printf("{\"bench\":\"%s\",\"n\":%d,\"ms\":%s,\"cpu_ns_min\":%llu,"
	       "\"cpu_ns_p10\":%llu,\"cpu_ns_median\":%llu,\"cpu_ns_mean\":%.0f,"
	       "\"wall_ns_median\":%llu}\n", bench, n, ms,
	       (unsigned long long)cpu[0], (unsigned long long)cpu[n / 10],
	       (unsigned long long)cpu[n / 2], (double)sum / n,
	       (unsigned long long)wall[n / 2]);
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

int main(int argc, char **argv)
{
	flat = getenv("STALL_BENCH_FLAT") && !strcmp(getenv("STALL_BENCH_FLAT"), "1");
	sections = getenv("STALL_BENCH_SECTIONS") && !strcmp(getenv("STALL_BENCH_SECTIONS"), "1");
	if (argc >= 8 && !strcmp(argv[1], "kernel")) {
		struct kargs a = { argv[3], strtoull(argv[4], NULL, 0),
				   (unsigned int)atoi(argv[5]) };
		size_t pad = getenv("STALL_BENCH_PAD") ? strtoul(getenv("STALL_BENCH_PAD"), NULL, 0) : 0;
		int ret;

		dir = argv[2];
		if (argc >= 8 && argv[7][0] != '-')
			pin(atoi(argv[7]));
		if (getenv("STALL_BENCH_MAPS"))
			make_maps(atoi(getenv("STALL_BENCH_MAPS")));
		if (pad) {
			/* above every frame deep() makes, and resident */
			char *stack = alloca(pad);

			memset(stack, 1, pad);
			__asm__ volatile("" : : "r"(stack) : "memory");
		}
		ret = deep(atoi(argv[6]), kernel_leaf, &a);
		__asm__ volatile("" : "+r"(ret));	/* the pad stays until deep() returns */
		return ret;
	}
	if (argc >= 5 && !strcmp(argv[1], "waits")) {
		int i, n = atoi(argv[3]);
		uint64_t *cpu = calloc(n, sizeof(*cpu)), *wall = calloc(n, sizeof(*wall));
		struct wargs w = { -1, argv[4] };
		uint64_t sum = 0;
		char path[512];

		if (!cpu || !wall)
			die("calloc");
		if (argc >= 6)
			pin(atoi(argv[5]));
		/* opened once: the waits alone are timed, not path lookups */
		snprintf(path, sizeof(path), "%s/i915_stalls_mock_wait", argv[2]);
		w.fd = open(path, O_WRONLY);
		if (w.fd < 0)
			die(path);
		for (i = 0; i < n; i++) {
			uint64_t c0 = now_ns(CLOCK_THREAD_CPUTIME_ID), w0 = now_ns(CLOCK_MONOTONIC);

			deep(32, wait_leaf, &w);
			cpu[i] = now_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
			wall[i] = now_ns(CLOCK_MONOTONIC) - w0;
			sum += cpu[i];
		}
		close(w.fd);
		print_waits("waits", n, argv[4], cpu, wall, sum);
		return 0;
	}
	if (argc >= 6 && !strcmp(argv[1], "syncwaits")) {
		int i, n = atoi(argv[4]), mock;
		uint64_t *cpu = calloc(n, sizeof(*cpu)), *wall = calloc(n, sizeof(*wall));
		struct sargs a;
		uint64_t sum = 0;
		char path[512];

		if (!cpu || !wall)
			die("calloc");
		if (argc >= 7)
			pin(atoi(argv[6]));
		snprintf(path, sizeof(path), "%s/i915_stalls_mock_fence", argv[2]);
		mock = open(path, O_RDWR);
		if (mock < 0)
			die(path);
		a.dev = open(argv[3], O_RDWR);
		if (a.dev < 0)
			die(argv[3]);
		for (i = 0; i < n; i++) {
			struct drm_syncobj_destroy d;
			uint64_t c0, w0;

			a.handle = mock_syncobj(mock, a.dev, (unsigned int)atoi(argv[5]));
			c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
			w0 = now_ns(CLOCK_MONOTONIC);
			deep(32, syncwait_leaf, &a);
			cpu[i] = now_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
			wall[i] = now_ns(CLOCK_MONOTONIC) - w0;
			sum += cpu[i];
			d = (struct drm_syncobj_destroy){ .handle = a.handle };
			if (ioctl(a.dev, DRM_IOCTL_SYNCOBJ_DESTROY, &d))
				die("DRM_IOCTL_SYNCOBJ_DESTROY");
		}
		close(a.dev);
		close(mock);
		print_waits("syncwaits", n, argv[5], cpu, wall, sum);
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "snap")) {
		int i, n = atoi(argv[3]);
		uint64_t *t = calloc(n, sizeof(*t));
		static char buf[1 << 16];
		char path[512];
		size_t bytes = 0;

		if (!t)
			die("calloc");
		snprintf(path, sizeof(path), "%s/i915_stalls", argv[2]);
		for (i = 0; i < n; i++) {
			uint64_t t0 = now_ns(CLOCK_MONOTONIC);
			ssize_t r;
			int fd = open(path, O_RDONLY);

			if (fd < 0)
				die(path);
			bytes = 0;
			while ((r = read(fd, buf, sizeof(buf))) > 0)
				bytes += r;
			close(fd);
			t[i] = now_ns(CLOCK_MONOTONIC) - t0;
		}
		qsort(t, n, sizeof(*t), cmp_u64);
		printf("{\"bench\":\"snap\",\"n\":%d,\"bytes\":%zu,\"ns_median\":%llu,"
		       "\"ns_max\":%llu}\n", n, bytes, (unsigned long long)t[n / 2],
		       (unsigned long long)t[n - 1]);
		return 0;
	}
	fprintf(stderr, "usage: stall-bench kernel DIR MODE ITER KDEPTH UDEPTH [CPU] | "
		"waits DIR N MS [CPU] | snap DIR N\n");
	return 64;
}
