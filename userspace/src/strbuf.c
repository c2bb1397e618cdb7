// SPDX-License-Identifier: MIT
/* The string buffer, number formatting, and the checked output file. */
#include <errno.h>
#include <stdlib.h>

#include "strbuf.h"

void sb_grow(struct sbuf *b, size_t n)
{
	size_t want = b->len + n + 1;

	b->cap = want < 64 ? 64 : want * 2;
	b->p = xrealloc(b->p, b->cap);
	b->p[b->len] = 0;
}

void sb_free(struct sbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* The number of decimal digits of v (0 for 0). */
static inline unsigned int dec_digits(uint64_t v)
{
	static const uint64_t p10[20] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
		100000000ull, 1000000000ull, 10000000000ull, 100000000000ull,
		1000000000000ull, 10000000000000ull, 100000000000000ull,
		1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
		1000000000000000000ull, 10000000000000000000ull,
	};
	/* floor(log10(2) * bits), then one more unless below that power */
	unsigned int t = (unsigned int)(64 - __builtin_clzll(v | 1)) * 1233 >> 12;

	return t + 1 - (v < p10[t]);
}

void sb_dec(struct sbuf *b, uint64_t v, int width)
{
	static const char d2[] =
		"0001020304050607080910111213141516171819"
		"2021222324252627282930313233343536373839"
		"4041424344454647484950515253545556575859"
		"6061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	size_t n = dec_digits(v);
	char *start, *p;

	if (v < 10 && width <= 1) {	/* frame numbers, CPUs */
		sb_putc(b, (char)('0' + v));
		return;
	}
	if (n < (size_t)(width > 0 ? width : 1))
		n = (size_t)(width > 0 ? width : 1);
	/* the digits written in place, from the last */
	sb_need(b, n);
	start = b->p + b->len;
	p = start + n;
	while (v >= 100) {
		p -= 2;
		memcpy(p, d2 + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, d2 + 2 * v, 2);
	} else {
		*--p = (char)('0' + v);
	}
	while (p > start)
		*--p = '0';
	b->len += n;
	b->p[b->len] = 0;
}

void sb_sdec(struct sbuf *b, int64_t v)
{
	if (v < 0) {
		sb_putc(b, '-');
		sb_dec(b, (uint64_t)0 - (uint64_t)v, 0);	/* no overflow for INT64_MIN */
	} else {
		sb_dec(b, (uint64_t)v, 0);
	}
}

void sb_hex16(struct sbuf *b, uint64_t v)
{
	sb_need(b, 18);
	put_hex16(b->p + b->len, v);
	b->len += 18;
	b->p[b->len] = 0;
}

void sb_hex(struct sbuf *b, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	char t[18], *p = t + sizeof(t);

	do
		*--p = hex[v & 15];
	while (v >>= 4);
	*--p = 'x';
	*--p = '0';
	sb_put(b, p, (size_t)(t + sizeof(t) - p));
}

void sb_ms(struct sbuf *b, uint64_t ns)
{
	sb_dec(b, ns / 1000000, 0);
	sb_putc(b, '.');
	sb_dec(b, (ns / 1000) % 1000, 3);
}

void sb_ms_signed(struct sbuf *b, int64_t ns)
{
	sb_putc(b, ns < 0 ? '-' : '+');
	sb_ms(b, ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns);
}

void sb_num(struct sbuf *b, double v)
{
	size_t start = b->len;

	if (!(v > -1e18 && v < 1e18))
		v = v < 0 ? -1e18 : 1e18;	/* NAN and huge: never an exponent */
	sb_printf(b, "%.3f", v);
	while (b->len > start && b->p[b->len - 1] == '0')
		b->len--;
	if (b->len > start && b->p[b->len - 1] == '.')
		b->len--;
	b->p[b->len] = 0;
	if (b->len - start == 2 && !memcmp(b->p + start, "-0", 2)) {
		b->p[start] = '0';
		b->len = start + 1;
		b->p[b->len] = 0;
	}
}

void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	sb_need(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void sb_json_strn(struct sbuf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, run = 0;

	sb_putc(b, '"');
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *esc = NULL;

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			run++;
			continue;
		}
		sb_put(b, s + i - run, run);
		run = 0;
		switch (c) {
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\n': esc = "\\n"; break;
		case '\t': esc = "\\t"; break;
		case '\r': esc = "\\r"; break;
		case '\b': esc = "\\b"; break;
		case '\f': esc = "\\f"; break;
		}
		if (esc) {
			sb_puts(b, esc);
		} else if (c >= 0x80) {
			/* names are bytes, not UTF-8: keep valid UTF-8 sequences,
			 * give the other bytes as Latin-1 code points */
			unsigned int need = c >= 0xf0 && c < 0xf5 ? 3 : c >= 0xe0 ? 2 : c >= 0xc2 ? 1 : 0;
			size_t k;

			if (c >= 0xf5)
				need = 0;
			if (need && i + need < n) {
				for (k = 1; k <= need; k++)
					if (((unsigned char)s[i + k] & 0xc0) != 0x80)
						break;
				if (k > need) {
					sb_put(b, s + i, need + 1);
					i += need;
					continue;
				}
			}
			sb_puts(b, "\\u00");
			sb_putc(b, hex[c >> 4]);
			sb_putc(b, hex[c & 15]);
		} else {
			sb_puts(b, "\\u00");
			sb_putc(b, hex[c >> 4]);
			sb_putc(b, hex[c & 15]);
		}
	}
	sb_put(b, s + n - run, run);
	sb_putc(b, '"');
}

void sb_json_str(struct sbuf *b, const char *s)
{
	if (!s)
		sb_put(b, "null", 4);
	else
		sb_json_strn(b, s, strlen(s));
}

void sb_xml(struct sbuf *b, const char *s, size_t n, size_t max)
{
	size_t i;

	for (i = 0; i < n && i < max; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '<')
			sb_puts(b, "&lt;");
		else if (c == '>')
			sb_puts(b, "&gt;");
		else if (c == '&')
			sb_puts(b, "&amp;");
		else if (c == '"')
			sb_puts(b, "&quot;");
		else if (c < 0x20 || c >= 0x7f)
			sb_putc(b, '?');
		else
			sb_putc(b, (char)c);
	}
	if (i < n && max >= 2)
		sb_puts(b, "..");
}

int out_open(struct out *o, const char *path)
{
	memset(o, 0, sizeof(*o));
	if (!path || !strcmp(path, "-")) {
		o->f = stdout;
		o->name = "standard output";
		return 0;
	}
	o->name = path;
	o->f = fopen(path, "w");
	if (!o->f) {
		errx_("%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

void out_put(struct out *o, const void *p, size_t n)
{
	if (o->err || !n)
		return;
	errno = 0;
	if (fwrite(p, 1, n, o->f) != n || ferror(o->f))
		o->err = errno ? errno : EIO;
}

void out_flush(struct out *o, bool force)
{
	if (o->b.len && (force || o->b.len >= OUT_CHUNK))
		out_put(o, o->b.p, o->b.len);
	if (force || o->b.len >= OUT_CHUNK)
		sb_reset(&o->b);
}

int out_close(struct out *o)
{
	int rc = 0;

	if (!o->f)
		return 0;
	errno = 0;
	out_flush(o, true);
	if (!o->err && (fflush(o->f) || ferror(o->f)))
		o->err = errno ? errno : EIO;
	if (o->f != stdout && fclose(o->f) && !o->err)
		o->err = errno ? errno : EIO;
	o->f = NULL;
	if (o->err) {
		errx_("%s: write error: %s", o->name, strerror(o->err));
		rc = -1;
	}
	sb_free(&o->b);
	return rc;
}
