// SPDX-License-Identifier: MIT
/*
 * wlsync: three processes shaped like a Wayland compositor and its
 * clients under explicit sync (linux-drm-syncobj-v1), for the end-to-end
 * test of submit records (who submitted the work a stall waited for).
 *
 *   wl-compositor  the parent: for each frame, receives the client's
 *                  acquire fence over a Unix socket (a sync_file fd, with
 *                  SCM_RIGHTS), imports it into a syncobj of the render
 *                  node and waits on it through Debian's libdrm, then
 *                  sends the buffer's release
 *   wl-client      submits each frame's work on the mock GPU
 *                  (I915_STALL_MOCK_FENCE, the mock's execbuf) and sends
 *                  its fence to the compositor
 *   wl-busy        another client, whose long piece of work is queued on
 *                  the same engine just before the client's first frame
 *
 * The frames' call chains, built with frame pointers:
 *   compositor: main -> compositor_main -> compositor_repaint
 *               -> wait_client_buffer -> drmSyncobjWait -> drmIoctl -> ioctl
 *   client:     main -> client_main -> client_draw_frame -> submit_buffer
 *               -> ioctl (I915_STALL_MOCK_FENCE)
 *   busy:       main -> busy_main -> busy_submit -> ioctl
 *
 * Frame 0 waits behind the busy work (BUSY ms) and then its own (FRAME
 * ms): one request ahead of it when the wait begins.  Frame 1 waits for
 * its own work alone.  The client and the busy process wait for the
 * compositor's word before they exit, as a Wayland client waits for the
 * release of its buffer; all three have exited when wlsync returns.
 *
 * One JSON line per event on stdout:
 *   {"event":"submit","role":R,"pid":P,"tid":T,"frame":F,"context":C,"seqno":S,"ms":M,"ts_ns":N}
 *   {"event":"stall","role":"compositor","pid":P,"tid":T,"frame":F,"context":C,"seqno":S,
 *    "t0_ns":A,"t1_ns":B,"ret":R}
 *   {"event":"exit","role":R,"pid":P,"failures":N}
 *
 *   wlsync [--render PATH] [--mock PATH] [--busy-ms N] [--frame-ms N]
 * Exit status: 0 if everything worked, 1 if not, 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xf86drm.h>

#include "clientio.h"
#include "i915_stall_mock.h"

#define FRAMES	2

/* What travels over the sockets, with a sync_file fd for a frame. */
struct wl_msg {
	uint32_t kind;		/* MSG_* */
	uint32_t frame;
	uint64_t context;
	uint64_t seqno;
};

enum { MSG_GO = 1, MSG_QUEUED, MSG_FRAME, MSG_RELEASE, MSG_BYE };

static const char *render_path, *mock_path;
static unsigned int busy_ms = 300, frame_ms = 60;

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static const char *first_match(const char *pattern)
{
	static char buf[256];
	glob_t g;

	if (glob(pattern, 0, NULL, &g) || !g.gl_pathc)
		return NULL;
	snprintf(buf, sizeof(buf), "%s", g.gl_pathv[0]);
	globfree(&g);
	return buf;
}

/* Send @m, and @fd with it if not -1 (SCM_RIGHTS). */
static int send_msg(int sock, const struct wl_msg *m, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = (void *)m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0) {
		struct cmsghdr *c;

		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	return sendmsg(sock, &mh, 0) == (ssize_t)sizeof(*m) ? 0 : -1;
}

/* Receive a message of @kind into @m, and a fd into *@fd if one came. */
static int recv_msg(int sock, struct wl_msg *m, uint32_t kind, int *fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c;

	if (fd)
		*fd = -1;
	if (recvmsg(sock, &mh, MSG_CMSG_CLOEXEC) != (ssize_t)sizeof(*m) || m->kind != kind)
		return -1;
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (fd && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			memcpy(fd, CMSG_DATA(c), sizeof(int));
	return 0;
}

/* Take the name @role, open @path; -1 said on stderr if it fails. */
static int open_as(const char *role, const char *path)
{
	char name[16];
	int fd;

	snprintf(name, sizeof(name), "wl-%s", role);
	fd = open(path, O_RDWR | O_CLOEXEC);
	prctl(PR_SET_NAME, name);
	if (fd < 0)
		fprintf(stderr, "wlsync: %s: %s: %s\n", role, path, strerror(errno));
	return fd;
}

static void print_submit(const char *role, unsigned int frame,
			 const struct i915_stall_mock_fence *mf, unsigned int ms, uint64_t ts)
{
	printf("{\"event\":\"submit\",\"role\":\"%s\",\"pid\":%d,\"tid\":%d,\"frame\":%u,"
	       "\"context\":%llu,\"seqno\":%llu,\"ms\":%u,\"ts_ns\":%llu}\n",
	       role, getpid(), gettid_(), frame, (unsigned long long)mf->context,
	       (unsigned long long)mf->seqno, ms, (unsigned long long)ts);
	fflush(stdout);
}

static void print_exit(const char *role, int failures)
{
	printf("{\"event\":\"exit\",\"role\":\"%s\",\"pid\":%d,\"failures\":%d}\n",
	       role, getpid(), failures);
	fflush(stdout);
}

/* The mock GPU's execbuf: a request of @ms, its fence as a sync_file. */
static __attribute__((noinline)) int submit_buffer(int mock_fd, unsigned int ms,
						   struct i915_stall_mock_fence *mf)
{
	int ret;

	mf->ms = ms;
	mf->fd = -1;
	ret = ioctl(mock_fd, I915_STALL_MOCK_FENCE, mf);
	__asm__ volatile("" ::: "memory");	/* not a tail call */
	return ret;
}

static __attribute__((noinline)) int client_draw_frame(int mock_fd, int sock, unsigned int frame)
{
	struct i915_stall_mock_fence mf;
	struct wl_msg m = { .kind = MSG_FRAME, .frame = frame };
	uint64_t ts = mono_ns();
	int ret;

	if (submit_buffer(mock_fd, frame_ms, &mf))
		return -1;
	print_submit("client", frame, &mf, frame_ms, ts);
	m.context = mf.context;
	m.seqno = mf.seqno;
	ret = send_msg(sock, &m, mf.fd);
	close(mf.fd);
	return ret;
}

static __attribute__((noinline)) int client_main(int sock)
{
	int mock_fd = open_as("client", mock_path);
	struct wl_msg m;
	unsigned int f;
	int failures = 0;

	if (mock_fd < 0)
		return 1;
	for (f = 0; f < FRAMES; f++) {
		/* the compositor asks for a frame once the one before is released */
		if (recv_msg(sock, &m, MSG_GO, NULL) || client_draw_frame(mock_fd, sock, f) ||
		    recv_msg(sock, &m, MSG_RELEASE, NULL)) {
			failures++;
			break;
		}
	}
	recv_msg(sock, &m, MSG_BYE, NULL);
	close(mock_fd);
	print_exit("client", failures);
	return failures ? 1 : 0;
}

static __attribute__((noinline)) int busy_submit(int mock_fd, int sock)
{
	struct i915_stall_mock_fence mf;
	struct wl_msg m = { .kind = MSG_QUEUED };
	uint64_t ts = mono_ns();

	if (submit_buffer(mock_fd, busy_ms, &mf))
		return -1;
	print_submit("busy", 0, &mf, busy_ms, ts);
	close(mf.fd);
	m.context = mf.context;
	m.seqno = mf.seqno;
	return send_msg(sock, &m, -1);
}

static __attribute__((noinline)) int busy_main(int sock)
{
	int mock_fd = open_as("busy", mock_path);
	struct wl_msg m;
	int failures = 0;

	if (mock_fd < 0 || recv_msg(sock, &m, MSG_GO, NULL) || busy_submit(mock_fd, sock))
		failures++;
	recv_msg(sock, &m, MSG_BYE, NULL);
	if (mock_fd >= 0)
		close(mock_fd);
	print_exit("busy", failures);
	return failures ? 1 : 0;
}

/* The compositor's wait for a client's buffer: an explicit-sync acquire point. */
static __attribute__((noinline)) int wait_client_buffer(int drm_fd, int fence_fd,
							const struct wl_msg *m)
{
	uint32_t syncobj;
	uint64_t t0, t1;
	int ret;

	if (drmSyncobjCreate(drm_fd, 0, &syncobj))
		return -1;
	ret = drmSyncobjImportSyncFile(drm_fd, syncobj, fence_fd);
	t0 = mono_ns();
	if (!ret)
		ret = drmSyncobjWait(drm_fd, &syncobj, 1, INT64_MAX,
				     DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL);
	t1 = mono_ns();
	drmSyncobjDestroy(drm_fd, syncobj);
	printf("{\"event\":\"stall\",\"role\":\"compositor\",\"pid\":%d,\"tid\":%d,\"frame\":%u,"
	       "\"context\":%llu,\"seqno\":%llu,\"t0_ns\":%llu,\"t1_ns\":%llu,\"ret\":%d}\n",
	       getpid(), gettid_(), m->frame, (unsigned long long)m->context,
	       (unsigned long long)m->seqno, (unsigned long long)t0, (unsigned long long)t1, ret);
	fflush(stdout);
	return ret;
}

static __attribute__((noinline)) int compositor_repaint(int drm_fd, int client, int busy,
							unsigned int frame)
{
	struct wl_msg go = { .kind = MSG_GO, .frame = frame }, m;
	struct wl_msg rel = { .kind = MSG_RELEASE, .frame = frame };
	int fd, ret;

	/* frame 0: the busy client's work goes on the engine first */
	if (frame == 0 && (send_msg(busy, &go, -1) || recv_msg(busy, &m, MSG_QUEUED, NULL)))
		return -1;
	if (send_msg(client, &go, -1) || recv_msg(client, &m, MSG_FRAME, &fd) || fd < 0)
		return -1;
	ret = wait_client_buffer(drm_fd, fd, &m);
	close(fd);
	if (send_msg(client, &rel, -1))
		return -1;
	return ret;
}

static __attribute__((noinline)) int compositor_main(int client, int busy)
{
	struct wl_msg bye = { .kind = MSG_BYE };
	int drm_fd = open_as("compositor", render_path);
	unsigned int f;
	int failures = 0;

	if (drm_fd < 0)
		return 1;
	for (f = 0; f < FRAMES; f++) {
		if (compositor_repaint(drm_fd, client, busy, f)) {
			fprintf(stderr, "wlsync: compositor: frame %u: %s\n", f, strerror(errno));
			failures++;
		}
	}
	send_msg(client, &bye, -1);
	send_msg(busy, &bye, -1);
	close(drm_fd);
	return failures;
}

static pid_t spawn(int (*fn)(int), int sock, int other)
{
	pid_t pid = fork();

	if (pid == 0) {
		close(other);
		exit(fn(sock));
	}
	return pid;
}

int main(int argc, char **argv)
{
	int client[2], busy[2], failures, status, i;
	pid_t cpid, bpid;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--render") && i + 1 < argc)
			render_path = argv[++i];
		else if (!strcmp(argv[i], "--mock") && i + 1 < argc)
			mock_path = argv[++i];
		else if (!strcmp(argv[i], "--busy-ms") && i + 1 < argc)
			busy_ms = (unsigned int)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--frame-ms") && i + 1 < argc)
			frame_ms = (unsigned int)strtoul(argv[++i], NULL, 10);
		else {
			fprintf(stderr, "usage: wlsync [--render PATH] [--mock PATH] "
				"[--busy-ms N] [--frame-ms N]\n");
			return 2;
		}
	}
	if (!render_path)
		render_path = strdup(first_match("/dev/dri/renderD*") ?: "");
	if (!mock_path)
		mock_path = strdup(first_match("/sys/kernel/debug/dri/*/i915_stalls_mock_fence") ?: "");
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, client) ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, busy)) {
		fprintf(stderr, "wlsync: socketpair: %s\n", strerror(errno));
		return 1;
	}
	bpid = spawn(busy_main, busy[1], client[1]);
	cpid = spawn(client_main, client[1], busy[1]);
	close(busy[1]);
	close(client[1]);
	if (bpid < 0 || cpid < 0) {
		fprintf(stderr, "wlsync: fork: %s\n", strerror(errno));
		return 1;
	}

	failures = compositor_main(client[0], busy[0]);
	if (waitpid(cpid, &status, 0) != cpid || !WIFEXITED(status) || WEXITSTATUS(status))
		failures++;
	if (waitpid(bpid, &status, 0) != bpid || !WIFEXITED(status) || WEXITSTATUS(status))
		failures++;
	print_exit("compositor", failures);
	return failures ? 1 : 0;
}
