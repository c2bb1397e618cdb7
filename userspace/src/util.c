// SPDX-License-Identifier: MIT
/* Small helpers: allocation, whole-file reads and maps, JSON strings, messages. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stalls.h"

int verbose;
bool quiet;

/* One diagnostic line on stderr. */
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

/* Read fd to EOF into a heap buffer. */
static int read_fd(int fd, unsigned char **bufp, size_t *sizep)
{
	size_t size = 0, cap = 1 << 16;
	unsigned char *buf;
	int err = 0;

	buf = xmalloc(cap);
	for (;;) {
		ssize_t n;

		if (size == cap) {
			if (cap > SIZE_MAX / 2) {
				err = -EFBIG;
				break;
			}
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		n = read(fd, buf + size, cap - size);
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
	err = read_fd(fd, bufp, sizep);
	if (fd != STDIN_FILENO)
		close(fd);
	return err;
}

/*
 * Pages of a map count in the RSS once read.  They are given back from
 * time to time as records are walked (they stay in the page cache and come
 * back with a minor fault), so the RSS does not grow with the input.
 */
#define SHED_BYTES (64u << 20)

static struct { void *p; size_t size; const char *path; } *maps;
static size_t nmaps, touched;

/* A mapped file cut short while it is read: an error, not a crash. */
static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	static const char pre[] = "i915-stalls: ", post[] = ": truncated while being read\n";
	const char *path = "a mapped file";
	uintptr_t a = (uintptr_t)si->si_addr;
	char num[40], *n = num + sizeof(num);
	size_t i, off = 0;
	bool found = false;

	(void)sig;
	(void)uc;
	for (i = 0; i < nmaps; i++)
		if (a - (uintptr_t)maps[i].p < maps[i].size) {
			path = maps[i].path;
			off = a - (uintptr_t)maps[i].p;
			found = true;
		}
	/* async-signal-safe: write() and _exit() only, digits by hand */
	do
		*--n = (char)('0' + off % 10);
	while (off /= 10);
	n -= sizeof(": offset ") - 1;
	memcpy(n, ": offset ", sizeof(": offset ") - 1);
	if (write(STDERR_FILENO, pre, sizeof(pre) - 1) > 0 &&
	    write(STDERR_FILENO, path, strlen(path)) > 0 &&
	    (!found || write(STDERR_FILENO, n, (size_t)(num + sizeof(num) - n)) > 0))
		(void)!write(STDERR_FILENO, post, sizeof(post) - 1);
	_exit(EXIT_FATAL);
}

void input_touched(size_t bytes)
{
	size_t i;

	touched += bytes;
	if (touched < SHED_BYTES)
		return;
	touched = 0;
	for (i = 0; i < nmaps; i++)
		madvise(maps[i].p, maps[i].size, MADV_DONTNEED);
}

/*
 * A regular file with a size is mapped: no copy, and its pages stay in the
 * page cache.  Anything else (stdin, a pipe, a debugfs file, whose size
 * reads as 0 and whose content is made at open) is read until EOF.
 */
int input_load(const char *path, struct input_buf *in)
{
	struct stat st;
	int fd, err;
	void *p;

	memset(in, 0, sizeof(*in));
	if (!strcmp(path, "-"))
		return read_fd(STDIN_FILENO, &in->buf, &in->size);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size <= SIZE_MAX) {
		p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED) {
			struct sigaction sa = { .sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO };

			close(fd);
			in->buf = p;
			in->size = (size_t)st.st_size;
			in->mapped = true;
			maps = xreallocarray(maps, nmaps + 1, sizeof(*maps));
			maps[nmaps].p = p;
			maps[nmaps].path = path;
			maps[nmaps++].size = in->size;
			sigaction(SIGBUS, &sa, NULL);
			return 0;
		}
	}
	err = read_fd(fd, &in->buf, &in->size);
	close(fd);
	return err;
}

void input_free(struct input_buf *in)
{
	size_t i;

	if (in->mapped) {
		munmap(in->buf, in->size);
		for (i = 0; i < nmaps && maps[i].p != in->buf; i++)
			;
		if (i < nmaps)
			maps[i] = maps[--nmaps];
		if (!nmaps) {
			free(maps);
			maps = NULL;
		}
	} else {
		free(in->buf);
	}
	memset(in, 0, sizeof(*in));
}

void json_strn(FILE *f, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	fputc('"', f);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		case '\b': fputs("\\b", f); break;
		case '\f': fputs("\\f", f); break;
		default:
			if (c < 0x20 || c == 0x7f) {
				fprintf(f, "\\u00%c%c", hex[c >> 4], hex[c & 15]);
			} else if (c >= 0x80) {
				/* Task names are bytes, not UTF-8: keep valid UTF-8,
				 * escape the rest as U+FFFD-free \u00XX (Latin-1). */
				size_t len = 0, k;
				unsigned int need = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc2 ? 1 : 0;

				if (need && i + need < n) {
					for (k = 1; k <= need; k++)
						if (((unsigned char)s[i + k] & 0xc0) != 0x80)
							break;
					if (k > need)
						len = need + 1;
				}
				if (len) {
					fwrite(s + i, 1, len, f);
					i += len - 1;
				} else {
					fprintf(f, "\\u00%c%c", hex[c >> 4], hex[c & 15]);
				}
			} else {
				fputc(c, f);
			}
		}
	}
	fputc('"', f);
}

void json_str(FILE *f, const char *s)
{
	if (!s)
		fputs("null", f);
	else
		json_strn(f, s, strlen(s));
}

void fixstr(char *dst, const char *src, size_t n)
{
	size_t len = strnlen(src, n);

	memcpy(dst, src, len);
	dst[len] = 0;
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
