// SPDX-License-Identifier: MIT
/*
 * gpu-demo: a client shaped like a graphics program, for the end-to-end
 * test and `make demo`.  Each frame goes
 *
 *   main -> render_frame -> submit_batch -> wait_for_gpu -> gpu_wait (libgpu.so)
 *
 * and gpu_wait() blocks in i915_request_wait() on the mock GPU for the
 * frame's delay (see libgpu.c).  A second thread, "gpu-worker", renders its
 * own frames after main's (worker_main -> render_frame -> ...), so that one
 * wait at a time is on the mock GPU and each lasts its own delay.
 *
 * Everything it does is printed on stdout as one JSON object per line, for
 * the test to check the stall log against:
 *
 *   {"event":"start","tag":T,"pid":P,"comm":C,"ctl":PATH}
 *   {"event":"stall","tag":T,"pid":P,"tid":TID,"comm":C,"thread":"main"|"worker",
 *    "frame":N,"delay_ms":D,"t0_ns":A,"t1_ns":B,"ret":R,"errno":E}
 *   {"event":"exit","tag":T,"pid":P,"failures":N}
 *
 * t0_ns/t1_ns are CLOCK_MONOTONIC just before and after the wait, the clock
 * of the stall records' start_ns.  "errno" is "" on success.
 *
 *   gpu-demo [--ctl PATH] [--tag T] [--frames D,D,...] [--worker D,D,...]
 *            [--ready FILE] [--hold FILE]
 *   gpu-demo write PATH VALUE   one write(2) of VALUE to PATH, reported as
 *            {"event":"write","path":P,"value":V,"pid":P,"ret":R,"errno":E}
 *
 * --ready FILE is created once every frame is done; with --hold FILE the
 * process then stays alive until FILE exists (so that `i915-stalls record`
 * can save its maps).  The control file defaults to $GPU_DEMO_CTL, else the
 * first /sys/kernel/debug/dri/ * /i915_stalls_mock_wait.
 *
 * Exit status: 0 if every write wrote everything, 1 if one failed, 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "clientio.h"
#include "gpu.h"

#define MAX_FRAMES 64
#define NOINLINE __attribute__((noinline))

struct plan {
	const char *thread;	/* "main" or "worker" */
	unsigned int delay[MAX_FRAMES];
	int n;
	int failures;
};

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *tag = "";
static int ctl_fd = -1;

static void thread_comm(char comm[17])
{
	memset(comm, 0, 17);
	prctl(PR_GET_NAME, comm, 0, 0, 0);
}

/* The chain of the demo; noinline and no sibling calls keep every frame. */

static NOINLINE long wait_for_gpu(int fd, unsigned int ms)
{
	long ret = gpu_wait(fd, ms);

	__asm__ volatile("" ::: "memory");	/* not a tail call */
	return ret;
}

static NOINLINE long submit_batch(int fd, unsigned int ms)
{
	volatile unsigned int batch[16] = { 0 };	/* "build" a batch */
	long ret;

	batch[0] = ms;
	ret = wait_for_gpu(fd, batch[0]);
	__asm__ volatile("" ::: "memory");
	return ret;
}

static NOINLINE int render_frame(struct plan *p, int frame)
{
	unsigned int ms = p->delay[frame];
	uint64_t t0, t1;
	long ret;
	char comm[17];

	t0 = mono_ns();
	ret = submit_batch(ctl_fd, ms);
	t1 = mono_ns();
	thread_comm(comm);

	pthread_mutex_lock(&out_lock);
	printf("{\"event\":\"stall\",\"tag\":");
	json_str(tag);
	printf(",\"pid\":%d,\"tid\":%d,\"comm\":", getpid(), gettid());
	json_str(comm);
	printf(",\"thread\":\"%s\",\"frame\":%d,\"delay_ms\":%u,\"t0_ns\":%llu,\"t1_ns\":%llu,"
	       "\"ret\":%ld,\"errno\":\"%s\"}\n",
	       p->thread, frame, ms, (unsigned long long)t0, (unsigned long long)t1,
	       ret, errname(ret < 0 ? -ret : 0));
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
	return ret < 0 ? -1 : 0;
}

static NOINLINE void *worker_main(void *arg)
{
	struct plan *p = arg;
	int i;

	pthread_setname_np(pthread_self(), "gpu-worker");
	for (i = 0; i < p->n; i++)
		if (render_frame(p, i))
			p->failures++;
	return NULL;
}

static int parse_list(const char *s, struct plan *p)
{
	char *end;

	p->n = 0;
	while (*s) {
		unsigned long v;

		if (p->n == MAX_FRAMES || *s < '0' || *s > '9')
			return -1;
		errno = 0;
		v = strtoul(s, &end, 10);
		if (errno || v > 1000000)
			return -1;
		p->delay[p->n++] = (unsigned int)v;
		s = end;
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return 0;
}

static char *default_ctl(void)
{
	const char *env = getenv("GPU_DEMO_CTL");
	glob_t g;
	char *p = NULL;

	if (env && *env)
		return strdup(env);
	if (!glob("/sys/kernel/debug/dri/*/i915_stalls_mock_wait", 0, NULL, &g)) {
		p = strdup(g.gl_pathv[0]);
		globfree(&g);
	}
	return p;
}

static int touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0) {
		fprintf(stderr, "gpu-demo: %s: %s\n", path, strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

static int cmd_write(const char *path, const char *value)
{
	int fd = gpu_open(path);
	long ret = fd;

	if (fd >= 0) {
		ret = gpu_write_raw(fd, value, strlen(value));
		close(fd);
	}
	printf("{\"event\":\"write\",\"path\":");
	json_str(path);
	printf(",\"value\":");
	json_str(value);
	printf(",\"pid\":%d,\"ret\":%ld,\"errno\":\"%s\"}\n", getpid(), ret,
	       errname(ret < 0 ? -ret : 0));
	return ret == (long)strlen(value) ? 0 : 1;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: gpu-demo [--ctl PATH] [--tag T] [--frames D,D,...] [--worker D,D,...]\n"
		"                [--ready FILE] [--hold FILE]\n"
		"       gpu-demo write PATH VALUE\n"
		"Delays D are in milliseconds.\n");
}

int main(int argc, char **argv)
{
	struct plan mainp = { .thread = "main" }, workp = { .thread = "worker" };
	const char *ready = NULL, *hold = NULL;
	char *ctl = NULL, comm[17];
	pthread_t th;
	int i, failures, rc;

	if (argc == 4 && !strcmp(argv[1], "write"))
		return cmd_write(argv[2], argv[3]);
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
		if (!strcmp(a, "--ctl"))
			ctl = strdup(v);
		else if (!strcmp(a, "--tag"))
			tag = v;
		else if (!strcmp(a, "--frames") && !parse_list(v, &mainp))
			;
		else if (!strcmp(a, "--worker") && !parse_list(v, &workp))
			;
		else if (!strcmp(a, "--ready"))
			ready = v;
		else if (!strcmp(a, "--hold"))
			hold = v;
		else {
			fprintf(stderr, "gpu-demo: bad argument: %s %s\n", a, v);
			usage();
			return 2;
		}
	}
	if (!ctl)
		ctl = default_ctl();
	if (!ctl) {
		fprintf(stderr, "gpu-demo: no control file: set --ctl or GPU_DEMO_CTL, or mount "
			"debugfs on a kernel with the i915 stall log\n");
		return 1;
	}
	ctl_fd = gpu_open(ctl);
	if (ctl_fd < 0) {
		fprintf(stderr, "gpu-demo: %s: %s\n", ctl, strerror(-ctl_fd));
		return 1;
	}
	thread_comm(comm);
	printf("{\"event\":\"start\",\"tag\":");
	json_str(tag);
	printf(",\"pid\":%d,\"comm\":", getpid());
	json_str(comm);
	printf(",\"ctl\":");
	json_str(ctl);
	printf("}\n");
	fflush(stdout);

	/* main's frames, then the worker's: one wait at a time on the mock GPU */
	for (i = 0; i < mainp.n; i++)
		if (render_frame(&mainp, i))
			mainp.failures++;
	if (workp.n) {
		rc = pthread_create(&th, NULL, worker_main, &workp);
		if (rc) {
			fprintf(stderr, "gpu-demo: pthread_create: %s\n", strerror(rc));
			return 1;
		}
		pthread_join(th, NULL);
	}
	failures = mainp.failures + workp.failures;

	if (ready && touch(ready))
		return 1;
	if (hold)
		while (access(hold, F_OK))
			usleep(20000);
	printf("{\"event\":\"exit\",\"tag\":");
	json_str(tag);
	printf(",\"pid\":%d,\"failures\":%d}\n", getpid(), failures);
	fflush(stdout);
	close(ctl_fd);
	free(ctl);
	return failures ? 1 : 0;
}
