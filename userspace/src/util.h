/* SPDX-License-Identifier: MIT */
/* i915-stalls: allocation, diagnostics, exit statuses, small helpers. */
#ifndef I915_STALLS_UTIL_H
#define I915_STALLS_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "i915-stalls reads the little-endian stall format natively; port the decoder first"
#endif

/*
 * Exit statuses.  The one list: --help prints it and the man page test
 * holds i915-stalls(1) to it (tests/mancheck.c).
 */
#define EXIT_STATUSES(X)						\
	X(EXIT_OK, 0, "success; every frame shown was resolved")	\
	X(EXIT_PARTIAL, 1, "output complete, but some frames could not be resolved; " \
	  "diff verdict: bad, NEW stalls significantly more than OLD") \
	X(EXIT_FATAL, 2, "bad input (the message names the file and byte offset), " \
	  "a write error or another fatal error")			\
	X(EXIT_USAGE, 64, "usage error")				\
	X(EXIT_BISECT_SKIP, 125, "diff verdict: a NEW capture is unusable (skip)") \
	X(EXIT_BISECT_ABORT, 128, "diff verdict: an OLD capture is unusable, too few captures " \
	  "or a usage error (abort)")

enum {
#define EXIT_ENUM(name, value, text) name = value,
	EXIT_STATUSES(EXIT_ENUM)
#undef EXIT_ENUM
};

extern int verbose;
extern bool quiet;
/* "i915-stalls: ..." on stderr: a warning (not with -q), verbose info, an error */
void warnx_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void infox(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void errx_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void *xmalloc(size_t n);
void *xaligned_alloc(size_t align, size_t n);	/* n a multiple of align */
/*
 * Zeroed memory for big tables and arenas (from 1 MiB: a mapping of its
 * own that the kernel may back with transparent huge pages, which it
 * does on request in its default "madvise" mode), and its release with
 * the same n and m.
 */
void *xhuge_calloc(size_t n, size_t m);
void huge_free(void *p, size_t n, size_t m);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
void *xreallocarray(void *p, size_t n, size_t m);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A problem in an input: where (byte offset) and what. */
struct diag {
	uint64_t off;
	char msg[240];
};
/* Set *d to "@off: fmt..." and return -1. */
int diag_fail(struct diag *d, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Print "NAME: offset N: MSG" and return -1. */
int diag_print(const char *name, const struct diag *d);

/* Copy a fixed-size, maybe unterminated char field into dst[n + 1]. */
void fixstr(char *dst, const char *src, size_t n);

uint64_t now_ns(clockid_t c);

/*
 * Open a file that must be a regular file, without blocking: a FIFO or a
 * device named by an archive or found under --symfs is refused, never
 * opened for reading (open() of a FIFO would wait for a writer).
 * Returns the fd or -errno (-EINVAL: not a regular file).
 */
int open_regular(const char *path);
/* Does path exist as something other than a regular file? */
bool path_is_special(const char *path);

/* Read fd to its end into a heap buffer, NUL terminated; 0 or -errno. */
int read_fd_all(int fd, unsigned char **buf, size_t *size);
/* Read a whole file or pipe ("-" is stdin).  Returns 0 or -errno. */
int read_all(const char *path, unsigned char **buf, size_t *size);
/* The same for a regular file only (open_regular()), NUL terminated. */
int read_regular(const char *path, char **buf, size_t *size);

/* qsort() that accepts n == 0 with a NULL base. */
void xqsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

/* 64-bit mixing step for hash tables (not cryptographic). */
static inline uint64_t hash_mix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

uint64_t hash_bytes(const void *p, size_t n, uint64_t seed);

/* Saturating arithmetic for totals of untrusted durations. */
static inline uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
