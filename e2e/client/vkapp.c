// SPDX-License-Identifier: MIT
/*
 * vkapp: a client shaped like a Vulkan application, for the end-to-end
 * test and `make demo`.  It links only the "loader" (libvkloader.so), which
 * loads the "driver" (libvkdrv.so), which waits with Debian's libdrm on DRM
 * syncobjs of the mock GPU's render node (see vk.h, vkdrv.c).  Its frames:
 *
 *   main -> draw_frame -> vkWaitForFences (loader, a tail call)
 *        -> drv_WaitForFences -> drv_sync_wait_many (driver, no frame pointers)
 *        -> drmSyncobjWait -> drmIoctl (libdrm) -> ioctl (glibc)
 *   timeline_main -> wait_timeline -> vkWaitSemaphores -> drv_WaitSemaphores
 *        -> drv_sync_wait_many -> drmSyncobjTimelineWait -> drmIoctl -> ioctl
 *
 * the second in a thread named "vk-timeline".  This file and the loader
 * are built as gpu-demo is (frame pointers, no sibling calls here); the
 * driver as Mesa is, without frame pointers.
 *
 * The waits, in order (delays in ms, --ms A,B,C,D,E,F,G; default
 * 100,20,100,40,100,40,50), one piece of work at a time on the mock engine,
 * which runs requests one after the other.  The first handle of each wait
 * is the work that ends last (or, for "any", first), so that it is still
 * running when the wait sleeps however long the submits took (tens of ms
 * under TCG): the record names it.
 *   all          main: vkWaitForFences on fences A, B, wait all; B (imported
 *                as an opaque fd, drmSyncobjFDToHandle) was submitted
 *                first: B + A
 *   any          main: fences C, D, submitted in that order, wait any: C
 *   rest         main: fence D alone: C + D after C was submitted
 *   timeline     vk-timeline: point 1 of a timeline semaphore, which main
 *                submitted (E) just before starting the thread
 *   unsubmitted  vk-timeline: point 2, before it is submitted; main waits
 *                G ms, then submits F on it (drmSyncobjTransfer)
 *
 * One JSON line per wait:
 *   {"event":"stall","tag":T,"kind":K,"pid":P,"tid":TID,"comm":C,"thread":"main"|"timeline",
 *    "site":S,"fence_count":N,"wait_flags":F,"needed_ms":M,"ts_ns":A,"t0_ns":B,"t1_ns":C,
 *    "ret":R,"named":{"context":X,"seqno":Y}|null,"abs_timeout_ns":T,"handles_addr":H,
 *    "points_addr":Q}
 * ts_ns is CLOCK_MONOTONIC just before the first piece of work the wait
 * needs was submitted, needed_ms how much work (ms) the wait needs from
 * then; t0_ns, t1_ns just before and after the call; named the fence of
 * the first handle (what the stall record names), null when the wait
 * starts before its fence exists; wait_flags, abs_timeout_ns, handles_addr
 * and points_addr what the driver passed to libdrm.  Also
 *   {"event":"start","tag":T,"pid":P,"comm":C,"render":PATH,"mock":PATH}
 *   {"event":"exit","tag":T,"pid":P,"failures":N}
 *
 *   vkapp [--render PATH] [--mock PATH] [--tag T] [--ms A,B,C,D,E,F,G]
 *         [--ready FILE] [--hold FILE]
 * The render node defaults to the first /dev/dri/renderD*, the mock fence
 * file to the first /sys/kernel/debug/dri/ * /i915_stalls_mock_fence.
 * Exit status: 0 if every wait succeeded, 1 if not, 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "clientio.h"
#include "vk.h"

#define NOINLINE __attribute__((noinline))
#define NMS 7
#define FOREVER UINT64_MAX
#define TIMELINE_TIMEOUT_NS 10000000000ull

enum { MS_A, MS_B, MS_C, MS_D, MS_E, MS_F, MS_G };

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *tag = "";
static unsigned int ms[NMS] = { 100, 20, 100, 40, 100, 40, 50 };
static VkDevice dev;
static PFN_vkdrvGetDebugInfo get_debug;
static VkSemaphore timeline;
static atomic_int failures;
/* main -> vk-timeline: point 1's submit; point 2's wait has begun; its submit */
static uint64_t tl1_ts;
static struct vkdrv_debug_info tl1_info;
static atomic_int tl2_waiting;
static _Atomic uint64_t tl2_ts;

struct wait {
	const char *kind, *thread, *site;
	unsigned int fence_count, needed_ms;
	uint64_t ts, t0, t1;
	VkResult ret;
	int named;			/* 0: null */
	uint64_t context, seqno;
};

static void report(const struct wait *w)
{
	struct vkdrv_debug_info di;
	char comm[17] = { 0 };

	get_debug(dev, &di);	/* this thread's last wait */
	prctl(PR_GET_NAME, comm, 0, 0, 0);
	pthread_mutex_lock(&out_lock);
	printf("{\"event\":\"stall\",\"tag\":");
	json_str(tag);
	printf(",\"kind\":\"%s\",\"pid\":%d,\"tid\":%d,\"comm\":", w->kind, getpid(), gettid());
	json_str(comm);
	printf(",\"thread\":\"%s\",\"site\":\"%s\",\"fence_count\":%u,\"wait_flags\":%u,"
	       "\"needed_ms\":%u,\"ts_ns\":%llu,\"t0_ns\":%llu,\"t1_ns\":%llu,\"ret\":%d,\"named\":",
	       w->thread, w->site, w->fence_count, di.wait_flags, w->needed_ms,
	       (unsigned long long)w->ts, (unsigned long long)w->t0, (unsigned long long)w->t1,
	       w->ret);
	if (w->named)
		printf("{\"context\":%llu,\"seqno\":%llu}", (unsigned long long)w->context,
		       (unsigned long long)w->seqno);
	else
		printf("null");
	printf(",\"abs_timeout_ns\":%lld,\"handles_addr\":%llu,\"points_addr\":%llu}\n",
	       (long long)di.wait_abs_timeout_ns, (unsigned long long)di.wait_handles_addr,
	       (unsigned long long)di.wait_points_addr);
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
	if (w->ret != VK_SUCCESS) {
		fprintf(stderr, "vkapp: %s wait: VkResult %d\n", w->kind, w->ret);
		failures++;
	}
}

/* submit ms of work signalling fence; note the fence's context/seqno */
static int submit(unsigned int t, VkFence fence, VkSemaphore sem, uint64_t value,
		  uint64_t *ctx, uint64_t *seqno)
{
	struct vkdrv_debug_info di;
	VkResult r = vkQueueSubmit(dev, t, fence, sem, value);

	if (r != VK_SUCCESS) {
		fprintf(stderr, "vkapp: vkQueueSubmit: VkResult %d\n", r);
		failures++;
		return -1;
	}
	get_debug(dev, &di);
	if (ctx) {
		*ctx = di.last_context;
		*seqno = di.last_seqno;
	}
	return 0;
}

/* The chains of the client; noinline and no sibling calls keep every frame. */

static NOINLINE VkResult draw_frame(const VkFence *fences, uint32_t n, VkBool32 all)
{
	VkResult r = vkWaitForFences(dev, n, fences, all, FOREVER);

	__asm__ volatile("" ::: "memory");	/* not a tail call */
	return r;
}

static NOINLINE VkResult wait_timeline(uint64_t value)
{
	VkSemaphoreWaitInfo wi = {
		.flags = 0, .semaphoreCount = 1, .pSemaphores = &timeline, .pValues = &value,
	};
	VkResult r = vkWaitSemaphores(dev, &wi, TIMELINE_TIMEOUT_NS);

	__asm__ volatile("" ::: "memory");
	return r;
}

static NOINLINE void *timeline_main(void *arg)
{
	struct wait w = { .thread = "timeline", .site = "syncobj_timeline_wait",
			  .fence_count = 1 };

	(void)arg;
	pthread_setname_np(pthread_self(), "vk-timeline");
	/* point 1: submitted by main before this thread started */
	w.kind = "timeline";
	w.needed_ms = ms[MS_E];
	w.ts = tl1_ts;
	w.named = 1;
	w.context = tl1_info.last_context;
	w.seqno = tl1_info.last_seqno;
	w.t0 = mono_ns();
	w.ret = wait_timeline(1);
	w.t1 = mono_ns();
	report(&w);

	/* point 2: not submitted yet; main submits it once we wait */
	w.kind = "unsubmitted";
	w.needed_ms = ms[MS_F];
	w.named = 0;
	w.t0 = mono_ns();
	atomic_store(&tl2_waiting, 1);
	w.ret = wait_timeline(2);
	w.t1 = mono_ns();
	w.ts = atomic_load(&tl2_ts);
	report(&w);
	return NULL;
}

static int parse_ms(const char *s)
{
	char *end;
	int n = 0;

	while (*s) {
		unsigned long v;

		if (n == NMS || *s < '0' || *s > '9')
			return -1;
		errno = 0;
		v = strtoul(s, &end, 10);
		if (errno || v > 60000)
			return -1;
		ms[n++] = (unsigned int)v;
		s = end;
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return n == NMS ? 0 : -1;
}

static char *first(const char *pattern)
{
	glob_t g;
	char *p = NULL;

	if (!glob(pattern, 0, NULL, &g)) {
		p = strdup(g.gl_pathv[0]);
		globfree(&g);
	}
	return p;
}

static int touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0) {
		fprintf(stderr, "vkapp: %s: %s\n", path, strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: vkapp [--render PATH] [--mock PATH] [--tag T] [--ms A,B,C,D,E,F,G]\n"
		"             [--ready FILE] [--hold FILE]\n");
}

static int frames(void)
{
	struct wait w = { .thread = "main", .site = "syncobj_wait", .named = 1 };
	VkFence a, b, bsrc, c, d, pair[2];
	pthread_t th;
	int fd, rc;

	if (vkCreateFence(dev, &a) || vkCreateFence(dev, &b) || vkCreateFence(dev, &bsrc) ||
	    vkCreateFence(dev, &c) || vkCreateFence(dev, &d) ||
	    vkCreateTimelineSemaphore(dev, &timeline)) {
		fprintf(stderr, "vkapp: cannot create fences\n");
		return -1;
	}

	/* all: B, which comes back as an opaque fd (FDToHandle), then A */
	w.ts = mono_ns();
	if (submit(ms[MS_B], bsrc, NULL, 0, NULL, NULL) ||
	    submit(ms[MS_A], a, NULL, 0, &w.context, &w.seqno))
		return -1;
	if (vkGetFenceFdKHR(dev, bsrc, &fd) || vkImportFenceFdKHR(dev, b, fd)) {
		fprintf(stderr, "vkapp: fence fd export/import failed\n");
		return -1;
	}
	pair[0] = a;
	pair[1] = b;
	w.kind = "all";
	w.fence_count = 2;
	w.needed_ms = ms[MS_A] + ms[MS_B];
	w.t0 = mono_ns();
	w.ret = draw_frame(pair, 2, VK_TRUE);
	w.t1 = mono_ns();
	report(&w);

	/* any: C, then D; the wait ends with C */
	w.ts = mono_ns();
	if (submit(ms[MS_C], c, NULL, 0, &w.context, &w.seqno))
		return -1;
	{
		uint64_t dctx, dseq, cts = w.ts;

		if (submit(ms[MS_D], d, NULL, 0, &dctx, &dseq))
			return -1;
		pair[0] = c;
		pair[1] = d;
		w.kind = "any";
		w.needed_ms = ms[MS_C];
		w.t0 = mono_ns();
		w.ret = draw_frame(pair, 2, VK_FALSE);
		w.t1 = mono_ns();
		report(&w);

		/* rest: D alone, C + D after C's submit */
		w.kind = "rest";
		w.fence_count = 1;
		w.needed_ms = ms[MS_C] + ms[MS_D];
		w.ts = cts;
		w.context = dctx;
		w.seqno = dseq;
		w.t0 = mono_ns();
		w.ret = draw_frame(&d, 1, VK_TRUE);
		w.t1 = mono_ns();
		report(&w);
	}

	/* timeline: point 1 now, then the thread that waits for it */
	tl1_ts = mono_ns();
	if (submit(ms[MS_E], NULL, timeline, 1, NULL, NULL))
		return -1;
	get_debug(dev, &tl1_info);
	rc = pthread_create(&th, NULL, timeline_main, NULL);
	if (rc) {
		fprintf(stderr, "vkapp: pthread_create: %s\n", strerror(rc));
		return -1;
	}
	/* unsubmitted: point 2 once the thread waits for it, and G ms more */
	while (!atomic_load(&tl2_waiting))
		usleep(1000);
	usleep(ms[MS_G] * 1000);
	atomic_store(&tl2_ts, mono_ns());
	if (submit(ms[MS_F], NULL, timeline, 2, NULL, NULL))
		failures++;
	pthread_join(th, NULL);

	vkDestroyFence(dev, a);
	vkDestroyFence(dev, b);
	vkDestroyFence(dev, bsrc);
	vkDestroyFence(dev, c);
	vkDestroyFence(dev, d);
	vkDestroySemaphore(dev, timeline);
	return 0;
}

int main(int argc, char **argv)
{
	const char *ready = NULL, *hold = NULL;
	char *render = NULL, *mock = NULL, comm[17] = { 0 };
	VkResult r;
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage();
			return 0;
		}
		if (!v) {
			usage();
			return 2;
		}
		i++;
		if (!strcmp(a, "--render"))
			render = strdup(v);
		else if (!strcmp(a, "--mock"))
			mock = strdup(v);
		else if (!strcmp(a, "--tag"))
			tag = v;
		else if (!strcmp(a, "--ms") && !parse_ms(v))
			;
		else if (!strcmp(a, "--ready"))
			ready = v;
		else if (!strcmp(a, "--hold"))
			hold = v;
		else {
			fprintf(stderr, "vkapp: bad argument: %s %s\n", a, v);
			usage();
			return 2;
		}
	}
	if (!render)
		render = first("/dev/dri/renderD*");
	if (!mock)
		mock = first("/sys/kernel/debug/dri/*/i915_stalls_mock_fence");
	if (!render || !mock) {
		fprintf(stderr, "vkapp: no %s: pass --render and --mock, or run on a kernel with "
			"the stall log's mock GPU\n", !render ? "render node" : "mock fence file");
		return 1;
	}
	r = vkCreateDevice(render, mock, &dev);
	if (r != VK_SUCCESS) {
		fprintf(stderr, "vkapp: vkCreateDevice: VkResult %d\n", r);
		return 1;
	}
	get_debug = (PFN_vkdrvGetDebugInfo)vkGetDeviceProcAddr(dev, "vkdrvGetDebugInfo");
	if (!get_debug) {
		fprintf(stderr, "vkapp: the driver has no vkdrvGetDebugInfo\n");
		return 1;
	}
	prctl(PR_GET_NAME, comm, 0, 0, 0);
	printf("{\"event\":\"start\",\"tag\":");
	json_str(tag);
	printf(",\"pid\":%d,\"comm\":", getpid());
	json_str(comm);
	printf(",\"render\":");
	json_str(render);
	printf(",\"mock\":");
	json_str(mock);
	printf("}\n");
	fflush(stdout);

	if (frames())
		failures++;
	if (ready && touch(ready))
		return 1;
	if (hold)
		while (access(hold, F_OK))
			usleep(20000);
	printf("{\"event\":\"exit\",\"tag\":");
	json_str(tag);
	printf(",\"pid\":%d,\"failures\":%d}\n", getpid(), atomic_load(&failures));
	fflush(stdout);
	vkDestroyDevice(dev);
	free(render);
	free(mock);
	return atomic_load(&failures) ? 1 : 0;
}
