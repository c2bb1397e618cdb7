// SPDX-License-Identifier: MIT
/* Small helpers: allocation, whole-file reads, JSON strings, messages. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
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

int read_all(const char *path, unsigned char **bufp, size_t *sizep)
{
	size_t size = 0, cap = 1 << 16;
	unsigned char *buf;
	int fd, err = 0;

	if (!strcmp(path, "-"))
		fd = STDIN_FILENO;
	else
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
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
	if (fd != STDIN_FILENO)
		close(fd);
	if (err) {
		free(buf);
		return err;
	}
	*bufp = buf;
	*sizep = size;
	return 0;
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
