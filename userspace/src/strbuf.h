/* SPDX-License-Identifier: MIT */
/*
 * i915-stalls: a growing string buffer, number formatting into it, and the
 * output file it is written to (with every write error kept and reported).
 */
#ifndef I915_STALLS_STRBUF_H
#define I915_STALLS_STRBUF_H

#include <stdarg.h>
#include <string.h>

#include "util.h"

struct sbuf {
	char *p;		/* NUL terminated when cap > 0 */
	size_t len, cap;
};

void sb_grow(struct sbuf *b, size_t n);

/* room for n more bytes and the NUL */
static inline void sb_need(struct sbuf *b, size_t n)
{
	if (b->len + n + 1 > b->cap)
		sb_grow(b, n);
}

static inline void sb_put(struct sbuf *b, const char *s, size_t n)
{
	sb_need(b, n);
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

static inline void sb_puts(struct sbuf *b, const char *s)
{
	sb_put(b, s, strlen(s));
}

static inline void sb_putc(struct sbuf *b, char c)
{
	sb_need(b, 1);
	b->p[b->len++] = c;
	b->p[b->len] = 0;
}

static inline void sb_reset(struct sbuf *b)
{
	b->len = 0;
	if (b->cap)
		b->p[0] = 0;
}

/* The contents, "" when empty. */
static inline const char *sb_str(const struct sbuf *b)
{
	return b->cap ? b->p : "";
}

/* The 8 lowercase hex digits of x, most significant first, as 8 bytes
 * in memory order: each nibble spread to a byte, then '0' or 'a' - 10
 * added to all eight at once. */
static inline uint64_t hex8(uint32_t x)
{
	uint64_t v = x, ge10;

	v = (v | v << 16) & 0x0000ffff0000ffffull;
	v = (v | v << 8) & 0x00ff00ff00ff00ffull;
	v = (v | v << 4) & 0x0f0f0f0f0f0f0f0full;	/* byte i: nibble i */
	ge10 = ((v + 0x0606060606060606ull) >> 4) & 0x0101010101010101ull;
	v += 0x3030303030303030ull + ge10 * ('a' - '0' - 10);
	v = __builtin_bswap64(v);	/* byte 0: the highest nibble */
	if (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
		v = __builtin_bswap64(v);
	return v;
}

/* 0x%016llx at p (18 bytes, no NUL) */
static inline void put_hex16(char *p, uint64_t v)
{
	uint64_t hi = hex8((uint32_t)(v >> 32)), lo = hex8((uint32_t)v);

	p[0] = '0';
	p[1] = 'x';
	memcpy(p + 2, &hi, 8);
	memcpy(p + 10, &lo, 8);
}

void sb_free(struct sbuf *b);
/* %0*llu: at least width digits */
void sb_dec(struct sbuf *b, uint64_t v, int width);
/* signed decimal */
void sb_sdec(struct sbuf *b, int64_t v);
/* 0x%016llx */
void sb_hex16(struct sbuf *b, uint64_t v);
/* 0x%llx */
void sb_hex(struct sbuf *b, uint64_t v);
/* "%llu.%03llu" of ns in ms */
void sb_ms(struct sbuf *b, uint64_t ns);
/* the same with a sign: "+1.000", "-0.500" */
void sb_ms_signed(struct sbuf *b, int64_t ns);
/* a decimal number with at most 3 fraction digits, no exponent: "12", "0.5" */
void sb_num(struct sbuf *b, double v);
void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A JSON string literal of s[0, n) (bytes: valid UTF-8 kept, the rest \u00XX). */
void sb_json_strn(struct sbuf *b, const char *s, size_t n);
void sb_json_str(struct sbuf *b, const char *s);	/* NULL: null */
/* XML text: markup escaped, control and non-ASCII bytes as '?', at most max
 * bytes of s, then ".." if cut */
void sb_xml(struct sbuf *b, const char *s, size_t n, size_t max);

/*
 * The output: standard output or a file.  Writes go through out_put(); the
 * first error is kept, later writes are dropped, and out_close() reports
 * it ("NAME: write error: ...") so that the command exits 2.
 */
struct out {
	FILE *f;
	const char *name;	/* for messages: the path or "standard output" */
	int err;		/* first errno, 0 if none */
	struct sbuf b;		/* formatted, not yet written */
};

#define OUT_CHUNK (64u << 10)	/* written in pieces this large */

int out_open(struct out *o, const char *path);	/* NULL or "-": stdout; 0 or -1 */
void out_put(struct out *o, const void *p, size_t n);
/* write o->b if it holds a chunk (or always with force) */
void out_flush(struct out *o, bool force);
static inline bool out_failed(const struct out *o)
{
	return o->err != 0;
}
/* Flush and close; returns 0, or -1 after printing the write error. */
int out_close(struct out *o);

#endif
