// SPDX-License-Identifier: MIT
/*
 * stallpie: a client built like a real one (issue 12): a PIE program with
 * two shared libraries, whose waits go through glibc's ordinary write()
 * and ioctl(), with no inline syscall:
 *
 *   main -> run_frame -> present_frame (libstallfmt.so)
 *        -> wait_idle (libstallio.so) -> write() / ioctl() (glibc)
 *
 * glibc's wrappers keep no frame, so a frame-pointer walk loses wait_idle;
 * the stack snapshot and CFI get it back.  Built twice (e2e/client/Makefile):
 * with frame pointers (stallpie-fp/) and without (stallpie-nofp/).
 *
 * Each operation on the command line is one wait:
 *   write:MS   write MS to dri/N/i915_stalls_mock_wait (a request_wait stall)
 *   ioctl:MS   a mock request of MS ms (I915_STALL_MOCK_FENCE), imported into
 *              a syncobj of the render node, then DRM_IOCTL_SYNCOBJ_WAIT
 *              (a syncobj_wait stall), WAIT_ALL | WAIT_FOR_SUBMIT as Mesa
 *   anon:MS    as write:, but run_frame calls wait_idle through a trampoline
 *              copied into anonymous executable memory (as a JIT would)
 *
 * It prints one JSON line per wait, then exits (nothing holds it):
 *   {"event":"start","tag":T,"pid":P,"comm":C}
 *   {"event":"stall","tag":T,"pid":P,"tid":TID,"comm":C,"kind":K,"site":S,
 *    "delay_ms":D,"t0_ns":A,"t1_ns":B,"ret":R,"errno":E
 *    [,"anon_start":X,"anon_end":Y]}
 *   {"event":"exit","tag":T,"pid":P,"failures":N}
 *
 *   stallpie --dir DRI_DIR [--render NODE] [--tag T] OP...
 *   stallpie --ctl FILE [--tag T] write:MS...   (any file: the host's test)
 * Exit status: 0 if every wait succeeded, 1 if one failed, 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <drm.h>

#include "i915_stall_mock.h"
#include "clientio.h"
#include "stallpie.h"

#define NOINLINE __attribute__((noinline))

static const char *tag = "";
static unsigned char *anon;	/* the trampoline, PROT_EXEC anonymous memory */
static const size_t anon_len = 4096;

/*
 * long tramp(wait_fn fn, struct stall_dev *dev, unsigned int ms):
 *   push %rbp; mov %rsp,%rbp; mov %rdi,%rax; mov %rsi,%rdi; mov %rdx,%rsi;
 *   call *%rax; pop %rbp; ret
 * It keeps a frame pointer, so a frame-pointer walk reaches its return
 * address into run_frame; no CFI describes it.
 */
static const unsigned char tramp_code[] = {
	0x55, 0x48, 0x89, 0xe5, 0x48, 0x89, 0xf8, 0x48, 0x89, 0xf7,
	0x48, 0x89, 0xd6, 0xff, 0xd0, 0x5d, 0xc3,
};
typedef long (*tramp_fn)(wait_fn fn, struct stall_dev *dev, unsigned int ms);

static NOINLINE long run_frame(struct stall_dev *dev, const char *kind, unsigned int ms)
{
	char comm[17] = { 0 };
	uint64_t t0, t1;
	long ret;

	t0 = mono_ns();
	if (anon && !strcmp(kind, "anon"))
		ret = ((tramp_fn)(void *)anon)(wait_idle, dev, ms);
	else
		ret = present_frame(dev, ms);
	t1 = mono_ns();
	prctl(PR_GET_NAME, comm, 0, 0, 0);
	printf("{\"event\":\"stall\",\"tag\":");
	json_str(tag);
	printf(",\"pid\":%d,\"tid\":%d,\"comm\":", getpid(), gettid());
	json_str(comm);
	printf(",\"kind\":\"%s\",\"site\":\"%s\",\"delay_ms\":%u,\"t0_ns\":%llu,\"t1_ns\":%llu,"
	       "\"ret\":%ld,\"errno\":\"%s\"", kind, dev->handle ? "syncobj_wait" : "request_wait",
	       ms, (unsigned long long)t0, (unsigned long long)t1, ret, errname(dev->err));
	if (anon && !strcmp(kind, "anon"))
		printf(",\"anon_start\":%llu,\"anon_end\":%llu",
		       (unsigned long long)(uintptr_t)anon,
		       (unsigned long long)(uintptr_t)(anon + anon_len));
	printf("}\n");
	fflush(stdout);
	return ret;
}

/* a syncobj of the render node holding a mock request of ms ms */
static int submit(struct stall_dev *dev, int mock_fd, unsigned int ms)
{
	struct i915_stall_mock_fence mf = { .ms = ms, .fd = -1 };
	struct drm_syncobj_create c = { 0 };
	struct drm_syncobj_handle h = { 0 };

	if (ioctl(mock_fd, I915_STALL_MOCK_FENCE, &mf))
		return -errno;
	if (ioctl(dev->drm_fd, DRM_IOCTL_SYNCOBJ_CREATE, &c)) {
		close(mf.fd);
		return -errno;
	}
	h.handle = c.handle;
	h.fd = mf.fd;
	h.flags = DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE;
	if (ioctl(dev->drm_fd, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &h)) {
		close(mf.fd);
		return -errno;
	}
	close(mf.fd);
	dev->handle = c.handle;
	return 0;
}

static void unsubmit(struct stall_dev *dev)
{
	struct drm_syncobj_destroy d = { .handle = dev->handle };

	ioctl(dev->drm_fd, DRM_IOCTL_SYNCOBJ_DESTROY, &d);
	dev->handle = 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: stallpie (--dir DRI_DIR [--render NODE] | --ctl FILE) [--tag T] "
		"write:MS|ioctl:MS|anon:MS...\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *dir = NULL, *ctl = NULL, *render = "/dev/dri/renderD128";
	struct stall_dev dev = { .ctl_fd = -1, .drm_fd = -1 };
	char path[4096], comm[17] = { 0 };
	int i, mock_fd = -1, failures = 0;

	for (i = 1; i < argc && !strncmp(argv[i], "--", 2); i += 2) {
		if (i + 1 >= argc)
			return usage();
		if (!strcmp(argv[i], "--dir"))
			dir = argv[i + 1];
		else if (!strcmp(argv[i], "--ctl"))
			ctl = argv[i + 1];
		else if (!strcmp(argv[i], "--render"))
			render = argv[i + 1];
		else if (!strcmp(argv[i], "--tag"))
			tag = argv[i + 1];
		else
			return usage();
	}
	if (i == argc || !!dir == !!ctl)
		return usage();
	if (dir) {
		snprintf(path, sizeof(path), "%s/i915_stalls_mock_wait", dir);
		ctl = path;
	}
	dev.ctl_fd = open(ctl, O_WRONLY | O_CLOEXEC);
	if (dev.ctl_fd < 0) {
		fprintf(stderr, "stallpie: %s: %s\n", ctl, strerror(errno));
		return 1;
	}
	anon = mmap(NULL, anon_len, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (anon == MAP_FAILED) {
		fprintf(stderr, "stallpie: mmap PROT_EXEC: %s\n", strerror(errno));
		return 1;
	}
	memcpy(anon, tramp_code, sizeof(tramp_code));
	__builtin___clear_cache((char *)anon, (char *)anon + sizeof(tramp_code));

	prctl(PR_GET_NAME, comm, 0, 0, 0);
	printf("{\"event\":\"start\",\"tag\":");
	json_str(tag);
	printf(",\"pid\":%d,\"comm\":", getpid());
	json_str(comm);
	printf("}\n");
	fflush(stdout);

	for (; i < argc; i++) {
		char *colon = strchr(argv[i], ':'), *end;
		unsigned long ms;
		int err = 0;

		if (!colon)
			return usage();
		errno = 0;
		ms = strtoul(colon + 1, &end, 10);
		if (errno || *end || end == colon + 1 || ms > 60000)
			return usage();
		*colon = 0;
		if (!strcmp(argv[i], "ioctl")) {
			if (!dir)
				return usage();
			if (mock_fd < 0) {
				snprintf(path, sizeof(path), "%s/i915_stalls_mock_fence", dir);
				mock_fd = open(path, O_RDWR | O_CLOEXEC);
				dev.drm_fd = open(render, O_RDWR | O_CLOEXEC);
				if (mock_fd < 0 || dev.drm_fd < 0) {
					fprintf(stderr, "stallpie: %s or %s: %s\n", path, render,
						strerror(errno));
					return 1;
				}
			}
			err = submit(&dev, mock_fd, (unsigned int)ms);
			if (err) {
				fprintf(stderr, "stallpie: submit: %s\n", strerror(-err));
				failures++;
				continue;
			}
		} else if (strcmp(argv[i], "write") && strcmp(argv[i], "anon")) {
			return usage();
		}
		if (run_frame(&dev, argv[i], (unsigned int)ms) < 0)
			failures++;
		if (dev.handle)
			unsubmit(&dev);
	}
	printf("{\"event\":\"exit\",\"tag\":");
	json_str(tag);
	printf(",\"pid\":%d,\"failures\":%d}\n", getpid(), failures);
	return failures ? 1 : 0;
}
