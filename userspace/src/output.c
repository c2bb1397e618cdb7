// SPDX-License-Identifier: MIT
/* Output formats: report, summary, folded, JSON, SVG flame graph, diff. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stalls.h"

/* qsort() must not see a NULL base, even with no elements */
static void xqsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n)
		qsort(base, n, size, cmp);
}

/* ---------------------------------------------------------------- text */

/* A growing string: records are formatted into one and written at once. */
struct sbuf {
	char *p;
	size_t len, cap;
};

static void sb_grow(struct sbuf *b, size_t n)
{
	b->cap = (b->len + n + 1) * 2;
	b->p = xrealloc(b->p, b->cap);
}

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

/* %0*llu: at least width digits, two at a time */
static void sb_dec(struct sbuf *b, uint64_t v, int width)
{
	static const char d2[] =
		"0001020304050607080910111213141516171819"
		"2021222324252627282930313233343536373839"
		"4041424344454647484950515253545556575859"
		"6061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	char t[24], *p = t + sizeof(t);

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
	while (t + sizeof(t) - p < width)
		*--p = '0';
	sb_put(b, p, (size_t)(t + sizeof(t) - p));
}

/* 0x%016llx */
static void sb_hex16(struct sbuf *b, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	char t[18];
	int i;

	t[0] = '0';
	t[1] = 'x';
	for (i = 17; i >= 2; i--, v >>= 4)
		t[i] = hex[v & 15];
	sb_put(b, t, sizeof(t));
}

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
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

/* ---------------------------------------------------------------- frames */

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;

	return s ? s + 1 : p;
}

/* "sym+0xoff [mod]" (kernel) / "sym+0xoff (path)" (user) */
static void frame_text(char *b, size_t n, const struct frame *fr, bool user)
{
	if (fr->name) {
		if (!fr->module)
			snprintf(b, n, "%s+0x%" PRIx64, fr->name, fr->off);
		else if (user)
			snprintf(b, n, "%s+0x%" PRIx64 " (%s)", fr->name, fr->off, fr->module);
		else
			snprintf(b, n, "%s+0x%" PRIx64 " [%s]", fr->name, fr->off, fr->module);
	} else if (fr->module && fr->has_modoff && !strcmp(fr->reason, "no symbol")) {
		snprintf(b, n, "[%s+0x%" PRIx64 "]", base_name(fr->module), fr->modoff);
	} else if (fr->module && fr->has_modoff) {
		snprintf(b, n, "[unknown: %s] %s+0x%" PRIx64, fr->reason, base_name(fr->module),
			 fr->modoff);
	} else if (fr->module) {
		snprintf(b, n, user ? "[unknown: %s] (%s)" : "[unknown: %s] [%s]", fr->reason,
			 fr->module);
	} else {
		snprintf(b, n, "[unknown: %s]", fr->reason);
	}
	if (fr->src) {
		size_t l = strlen(b);

		snprintf(b + l, n - l, " at %s:%d", fr->src, fr->line);
	}
}

/* Folded frame: no offsets, no ';' (stackcollapse-perf conventions). */
static void frame_short_(char *b, size_t n, const struct frame *fr, bool addr)
{
	char *p;

	if (fr->name)
		snprintf(b, n, "%s", fr->name);
	else if (addr && !fr->module)
		snprintf(b, n, "[unknown 0x%" PRIx64 "]", fr->addr);
	else if (fr->module && fr->reason && strcmp(fr->reason, "anon"))
		snprintf(b, n, "[%s]", base_name(fr->module));
	else
		snprintf(b, n, "[unknown]");
	for (p = b; *p; p++)
		if (*p == ';')
			*p = ':';
		else if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
}

/*
 * Symbolized frames, cached: a log repeats the same few stacks, so each
 * address is resolved and formatted once.  A kernel frame depends on the
 * stall file (its KASLR anchors) and the address; a user frame also on the
 * process and on being the PC or a return address, and, with live maps, on
 * the pid not being reused since (checked per record, never cached).
 * Bounded: when full the cache starts over, so --stream stays small.
 */
enum { FK_KERNEL, FK_USER_PC, FK_USER_RET };
/* texts of a frame, as the outputs truncate them */
enum { FT_REPORT, FT_KEY, FT_KEY_ADDR, FT_FOLD, FT_N };
static const size_t ft_size[FT_N] = { 1024, 600, 600, 596 };

struct fent {
	const struct stall_file *f;
	uint64_t addr;
	uint32_t tgid;
	uint8_t kind;
	struct frame fr;
	char *text[FT_N];	/* lazily */
	size_t len[FT_N];
};

#define CACHE_MAX_ENTRIES (1u << 16)
#define CACHE_MAX_BYTES (16u << 20)

static struct {
	void **t;		/* struct fent *, see slot_put() */
	size_t n, cap, bytes;
	struct fent scratch;	/* an uncached frame (pid reused) */
} FC;

/* one step of the caches' hash */
static uint64_t mix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

/*
 * The caches' tables: open addressing with linear probing, NULL empty, a
 * power-of-two number of slots kept at most half full.
 */
static void slot_put(void **t, size_t cap, uint64_t hash, void *e)
{
	size_t h = hash & (cap - 1);

	while (t[h])
		h = (h + 1) & (cap - 1);
	t[h] = e;
}

/* Room for one more entry in *@tp (*@capp slots, @n used; @first to start). */
static void slot_reserve(void ***tp, size_t *capp, size_t n, size_t first,
			 uint64_t (*hash)(const void *))
{
	void **old = *tp;
	size_t oc = *capp, i;

	if ((n + 1) * 2 <= oc)
		return;
	*capp = oc ? oc * 2 : first;
	*tp = xcalloc(*capp, sizeof(**tp));
	for (i = 0; i < oc; i++)
		if (old[i])
			slot_put(*tp, *capp, hash(old[i]), old[i]);
	free(old);
}

static void fent_clear_texts(struct fent *e)
{
	int t;

	for (t = 0; t < FT_N; t++) {
		free(e->text[t]);
		e->text[t] = NULL;
	}
}

static void fcache_reset(void)
{
	size_t i;

	for (i = 0; i < FC.cap; i++)
		if (FC.t[i]) {
			fent_clear_texts(FC.t[i]);
			free(FC.t[i]);
		}
	free(FC.t);
	FC.t = NULL;
	FC.n = FC.cap = FC.bytes = 0;
}

static uint64_t fent_hash(const struct stall_file *f, uint32_t tgid, int kind, uint64_t addr)
{
	return mix(mix(mix((uintptr_t)f, tgid), (uint64_t)kind), addr);
}

static uint64_t fent_hash_of(const void *p)
{
	const struct fent *e = p;

	return fent_hash(e->f, e->tgid, e->kind, e->addr);
}

static void fcache_insert(struct fent *e)
{
	slot_reserve(&FC.t, &FC.cap, FC.n, 1024, fent_hash_of);
	slot_put(FC.t, FC.cap, fent_hash_of(e), e);
	FC.n++;
	FC.bytes += sizeof(*e);
}

/*
 * Frame i of a stall's kernel stack (kind FK_KERNEL, i == -1: the caller)
 * or user stack; counts it if unresolved.  Valid until the next call.
 */
static struct fent *frame_get(struct run *R, const struct stall *s, int kind, int i)
{
	const struct i915_stall_record *r = s->r;
	uint64_t addr = kind == FK_KERNEL ? (i < 0 ? r->caller : r->kstack[i]) : r->ustack[i];
	uint32_t tgid = kind == FK_KERNEL ? 0 : r->tgid;
	struct fent *e;
	size_t h;

	if (kind != FK_KERNEL && usym_pid_reused(s->f, r)) {
		e = &FC.scratch;
		fent_clear_texts(e);
		usym_resolve(s->f, r, (unsigned int)i, &e->fr);
		e->kind = (uint8_t)kind;
		goto out;
	}
	if (FC.cap) {
		h = fent_hash(s->f, tgid, kind, addr) & (FC.cap - 1);
		for (; (e = FC.t[h]); h = (h + 1) & (FC.cap - 1))
			if (e->addr == addr && e->f == s->f && e->tgid == tgid && e->kind == kind)
				goto out;
	}
	if (FC.n >= CACHE_MAX_ENTRIES || FC.bytes >= CACHE_MAX_BYTES)
		fcache_reset();
	e = xcalloc(1, sizeof(*e));
	e->f = s->f;
	e->addr = addr;
	e->tgid = tgid;
	e->kind = (uint8_t)kind;
	if (kind == FK_KERNEL)
		ksym_resolve(s->f, addr, true, &e->fr);
	else
		usym_resolve(s->f, r, (unsigned int)i, &e->fr);
	fcache_insert(e);
out:
	if (e->fr.reason)
		R->unresolved++;
	return e;
}

/* One of the frame's texts (FT_*), made on first use. */
static const char *fent_text(struct fent *e, int t, size_t *len)
{
	if (!e->text[t]) {
		char b[1024];

		if (t == FT_REPORT)
			frame_text(b, ft_size[t], &e->fr, e->kind != FK_KERNEL);
		else
			frame_short_(b, ft_size[t], &e->fr, t == FT_KEY_ADDR);
		e->len[t] = strlen(b);
		e->text[t] = xmalloc(e->len[t] + 1);
		memcpy(e->text[t], b, e->len[t] + 1);
		if (e != &FC.scratch)
			FC.bytes += e->len[t] + 1;
	}
	*len = e->len[t];
	return e->text[t];
}

static void kframe(struct run *R, const struct stall *s, int i, struct frame *fr)
{
	*fr = frame_get(R, s, FK_KERNEL, i)->fr;
}

static void uframe(struct run *R, const struct stall *s, unsigned int i, struct frame *fr)
{
	*fr = frame_get(R, s, i ? FK_USER_RET : FK_USER_PC, (int)i)->fr;
}

/*
 * Whole stacks, formatted, cached the same way: the kernel or user stack
 * block of a report, the user stack key of summary and diff, the folded
 * user and kernel frames.  Keyed by kind, file, process and the addresses.
 */
enum { BK_KREPORT, BK_UREPORT, BK_UKEY, BK_UKEY_ADDR, BK_KFOLD, BK_UFOLD };

struct bent {
	const struct stall_file *f;
	uint64_t hash;
	uint32_t tgid;
	uint8_t kind, depth;
	unsigned int unresolved;	/* frames in it */
	char *text;
	size_t len;
	__u64 addrs[];
};

static struct sbuf OB;	/* report records formatted, not yet written */
#define OB_CHUNK (64u << 10)	/* written in pieces this large */

static struct {
	void **t;		/* struct bent *, see slot_put() */
	size_t n, cap, bytes;
	struct sbuf tmp;
} BC;

static void bcache_reset(void)
{
	size_t i;

	for (i = 0; i < BC.cap; i++) {
		struct bent *e = BC.t[i];

		if (e) {
			free(e->text);
			free(e);
		}
	}
	free(BC.t);
	BC.t = NULL;
	BC.n = BC.cap = BC.bytes = 0;
}

static uint64_t bent_hash_of(const void *p)
{
	return ((const struct bent *)p)->hash;
}

static void bcache_insert(struct bent *e)
{
	slot_reserve(&BC.t, &BC.cap, BC.n, 256, bent_hash_of);
	slot_put(BC.t, BC.cap, e->hash, e);
	BC.n++;
	BC.bytes += sizeof(*e) + e->depth * sizeof(e->addrs[0]) + e->len + 1;
}

static uint64_t stack_hash(const struct stall_file *f, uint32_t tgid, int kind,
			   unsigned int depth, const __u64 *a)
{
	uint64_t h = mix(mix(mix((uintptr_t)f, tgid), (uint64_t)kind), depth);
	unsigned int i;

	for (i = 0; i < depth; i++)
		h = mix(h, a[i]);
	return h | 1;	/* never 0 */
}

/* Format stack block kind of s into b; returns the unresolved frames. */
static unsigned int block_make(struct run *R, const struct stall *s, int kind, struct sbuf *b)
{
	const struct i915_stall_record *r = s->r;
	unsigned long before = R->unresolved;
	struct fent *e;
	const char *t;
	size_t l;
	int i;

	switch (kind) {
	case BK_KREPORT:
	case BK_UREPORT: {
		bool user = kind == BK_UREPORT;
		int n = user ? r->ustack_depth : r->kstack_depth;

		for (i = 0; i < n; i++) {
			e = frame_get(R, s, user ? (i ? FK_USER_RET : FK_USER_PC) : FK_KERNEL, i);
			t = fent_text(e, FT_REPORT, &l);
			sb_put(b, "    #", 5);
			sb_dec(b, (uint64_t)i, 0);
			if (i < 10)
				sb_putc(b, ' ');
			sb_putc(b, ' ');
			sb_hex16(b, user ? r->ustack[i] : r->kstack[i]);
			sb_putc(b, ' ');
			sb_put(b, t, l);
			sb_putc(b, '\n');
		}
		break;
	}
	case BK_UKEY:
	case BK_UKEY_ADDR: {	/* root first: "main;fx_mid;fx_wait" */
		size_t start = b->len;

		for (i = r->ustack_depth - 1; i >= 0; i--) {
			e = frame_get(R, s, i ? FK_USER_RET : FK_USER_PC, i);
			t = fent_text(e, kind == BK_UKEY_ADDR ? FT_KEY_ADDR : FT_KEY, &l);
			if (b->len > start)
				sb_putc(b, ';');
			sb_put(b, t, l);
		}
		break;
	}
	case BK_UFOLD:
		for (i = r->ustack_depth - 1; i >= 0; i--) {
			e = frame_get(R, s, i ? FK_USER_RET : FK_USER_PC, i);
			t = fent_text(e, FT_FOLD, &l);
			sb_putc(b, ';');
			sb_put(b, t, l);
		}
		break;
	case BK_KFOLD:
		for (i = r->kstack_depth - 1; i >= 0; i--) {
			e = frame_get(R, s, FK_KERNEL, i);
			t = fent_text(e, FT_FOLD, &l);
			sb_putc(b, ';');
			sb_put(b, t, l);
			sb_put(b, "_[k]", 4);
		}
		break;
	}
	return (unsigned int)(R->unresolved - before);
}

/* Append stack block kind of s to out, from the cache when it can be. */
static void block(struct run *R, const struct stall *s, int kind, struct sbuf *out)
{
	const struct i915_stall_record *r = s->r;
	bool user = kind != BK_KREPORT && kind != BK_KFOLD;
	const __u64 *a = user ? r->ustack : r->kstack;
	uint8_t depth = user ? r->ustack_depth : r->kstack_depth;
	uint32_t tgid = user ? r->tgid : 0;
	uint64_t h;
	struct bent *e;
	size_t k;

	if (!depth)
		return;
	if (user && usym_pid_reused(s->f, r)) {
		block_make(R, s, kind, out);
		return;
	}
	h = stack_hash(s->f, tgid, kind, depth, a);
	if (BC.cap) {
		for (k = h & (BC.cap - 1); (e = BC.t[k]); k = (k + 1) & (BC.cap - 1))
			if (e->hash == h && e->f == s->f && e->tgid == tgid && e->kind == kind &&
			    e->depth == depth && !memcmp(e->addrs, a, depth * sizeof(*a))) {
				R->unresolved += e->unresolved;
				sb_put(out, e->text, e->len);
				return;
			}
	}
	if (BC.n >= CACHE_MAX_ENTRIES || BC.bytes >= CACHE_MAX_BYTES)
		bcache_reset();
	BC.tmp.len = 0;
	e = xmalloc(sizeof(*e) + depth * sizeof(*a));
	e->unresolved = block_make(R, s, kind, &BC.tmp);
	e->f = s->f;
	e->hash = h;
	e->tgid = tgid;
	e->kind = (uint8_t)kind;
	e->depth = depth;
	memcpy(e->addrs, a, depth * sizeof(*a));
	e->len = BC.tmp.len;
	e->text = xmalloc(e->len + 1);
	memcpy(e->text, BC.tmp.p ? BC.tmp.p : "", e->len);
	e->text[e->len] = 0;
	bcache_insert(e);
	sb_put(out, e->text, e->len);
}

void out_cleanup(void)
{
	fcache_reset();
	fent_clear_texts(&FC.scratch);
	bcache_reset();
	free(BC.tmp.p);
	memset(&BC.tmp, 0, sizeof(BC.tmp));
	free(OB.p);
	memset(&OB, 0, sizeof(OB));
}

/* comm for text: control bytes shown as '?'; folded also loses ';' */
static void comm_clean_(char *dst, const char *src, size_t n, bool folded)
{
	size_t i;

	fixstr(dst, src, n);
	for (i = 0; dst[i]; i++)
		if ((unsigned char)dst[i] < 0x20 || dst[i] == 0x7f || (folded && dst[i] == ';'))
			dst[i] = folded && dst[i] == ';' ? ':' : '?';
}

#define comm_clean(d, s, n) comm_clean_(d, s, n, false)

/* ---------------------------------------------------------------- misc */

static void fmt_ms(char *b, size_t n, uint64_t ns)
{
	snprintf(b, n, "%" PRIu64 ".%03" PRIu64, ns / 1000000, (ns / 1000) % 1000);
}

static void fmt_wall(char *b, size_t n, const struct stall *s)
{
	int64_t t = (int64_t)s->r->start_ns + s->f->hdr.realtime_offset_ns;
	time_t sec;
	struct tm tm;

	if (t < 0) {
		snprintf(b, n, "-");
		return;
	}
	sec = (time_t)(t / 1000000000);
	if (!gmtime_r(&sec, &tm)) {
		snprintf(b, n, "-");
		return;
	}
	snprintf(b, n, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)((t % 1000000000) / 1000));
}

static void site_str(char *b, size_t n, unsigned int site)
{
	const char *s = site_name(site);

	if (s)
		snprintf(b, n, "%s", s);
	else
		snprintf(b, n, "site#%u", site);
}

static uint64_t lost_total(const struct stall_file *f)
{
	return f->lost_overwritten + f->lost_torn + f->lost_dropped;
}

void warn_loss(struct run *R)
{
	size_t i;

	for (i = 0; i < R->nfiles; i++) {
		const struct stall_file *f = R->files[i];

		if (lost_total(f))
			warnx_("%s: LOST %" PRIu64 " stalls (overwritten %" PRIu64 ", torn %" PRIu64
			       ", dropped %" PRIu64 "): totals are incomplete",
			       f->name, lost_total(f), f->lost_overwritten, f->lost_torn,
			       f->lost_dropped);
	}
}

static void text_input(FILE *o, const struct stall_file *f)
{
	char dev[I915_STALL_NAME_LEN + 1], rel[I915_STALL_RELEASE_LEN + 1], th[32];

	fixstr(dev, f->hdr.device, I915_STALL_NAME_LEN);
	fixstr(rel, f->hdr.release, I915_STALL_RELEASE_LEN);
	fmt_ms(th, sizeof(th), f->hdr.threshold_ns);
	fprintf(o, "# input %s @%" PRIu64 ": format %u.%u, device %s (dri/%u), kernel %s, "
		"%" PRIu64 " records, threshold %s ms%s\n", f->name, f->base,
		f->hdr.version_major, f->hdr.version_minor, dev, f->hdr.drm_minor, rel,
		(uint64_t)f->hdr.record_count, th,
		f->hdr.flags & I915_STALL_H_ENABLED ? "" : ", log disabled");
	if (lost_total(f))
		fprintf(o, "# LOST %" PRIu64 " stalls: overwritten %" PRIu64 ", torn %" PRIu64
			", dropped %" PRIu64 " (of %" PRIu64 " recorded)\n", lost_total(f),
			f->lost_overwritten, f->lost_torn, f->lost_dropped, f->recorded);
	else
		fprintf(o, "# no stalls lost\n");
}

static void text_inputs(FILE *o, struct run *R)
{
	size_t i;

	for (i = 0; i < R->nfiles; i++)
		text_input(o, R->files[i]);
}

/* ---------------------------------------------------------------- report */

/*
 * In time order the records are visited hopping between the CPUs' parts of
 * the input, which defeats the hardware prefetcher: fetch the header and
 * the stacks of the record a few stalls ahead.
 */
static inline void prefetch_ahead(const struct run *R, size_t i)
{
	const struct i915_stall_record *r;

	if (i + 8 >= R->n)
		return;
	r = R->st[i + 8].r;
	__builtin_prefetch(r);
	__builtin_prefetch(&r->flags);
	__builtin_prefetch(r->kstack);
	__builtin_prefetch(r->ustack);
}

/* "%llu.%03llu" of ns in ms */
static void sb_ms(struct sbuf *b, uint64_t ns)
{
	sb_dec(b, ns / 1000000, 0);
	sb_putc(b, '.');
	sb_dec(b, (ns / 1000) % 1000, 3);
}

/* fmt_wall(), made once a second: the date part is kept */
static void sb_wall(struct sbuf *b, const struct stall *s)
{
	static int64_t last_sec = -1;
	static char date[64];
	int64_t t = (int64_t)s->r->start_ns + s->f->hdr.realtime_offset_ns;

	if (t < 0) {
		sb_putc(b, '-');
		return;
	}
	if (t / 1000000000 != last_sec) {
		char *dot;

		fmt_wall(date, sizeof(date), s);
		dot = strchr(date, '.');
		if (!dot) {	/* "-": no date, and none kept */
			last_sec = -1;
			sb_puts(b, date);
			return;
		}
		*dot = '\0';
		last_sec = t / 1000000000;
	}
	sb_puts(b, date);
	sb_putc(b, '.');
	sb_dec(b, (uint64_t)((t % 1000000000) / 1000), 6);
	sb_putc(b, 'Z');
}

static void report_one(FILE *o, struct run *R, const struct stall *s)
{
	const struct i915_stall_record *r = s->r;
	char comm[I915_STALL_COMM_LEN + 1], ocomm[I915_STALL_COMM_LEN + 1];
	const char *oc = outcome_name(r->outcome), *ec, *site = site_name(r->site), *t;
	struct sbuf *b = &OB;
	struct fent *e;
	size_t l;

	input_touched(sizeof(*r));
	comm_clean(comm, r->comm, I915_STALL_COMM_LEN);
	sb_dec(b, r->start_ns / 1000000000, 0);
	sb_putc(b, '.');
	sb_dec(b, r->start_ns % 1000000000, 9);
	sb_putc(b, ' ');
	sb_wall(b, s);
	sb_putc(b, ' ');
	sb_puts(b, comm);
	sb_putc(b, '[');
	sb_dec(b, r->tgid, 0);
	sb_putc(b, '/');
	sb_dec(b, r->pid, 0);
	sb_put(b, "] cpu ", 6);
	sb_dec(b, r->cpu, 0);
	sb_put(b, " seq ", 5);
	sb_dec(b, r->seq, 0);
	sb_put(b, "\n  site ", 8);
	if (site)
		sb_puts(b, site);
	else
		sb_printf(b, "site#%u", r->site);
	sb_put(b, ", waited ", 9);
	sb_ms(b, r->duration_ns);
	sb_put(b, " ms (spun ", 10);
	sb_ms(b, r->spin_ns);
	sb_put(b, " ms), outcome ", 14);
	if (oc)
		sb_puts(b, oc);
	else
		sb_printf(b, "outcome#%u", r->outcome);
	if (r->outcome == I915_STALL_ERROR || r->error)
		sb_printf(b, " %d", r->error);
	sb_put(b, "\n  engine ", 10);
	ec = engine_class_name(r->engine_class);
	if (!(r->flags & I915_STALL_F_ENGINE) || r->engine_class == I915_STALL_ENGINE_NONE) {
		sb_puts(b, "unknown");
	} else if (ec) {
		sb_puts(b, ec);
		sb_dec(b, r->engine_instance, 0);
	} else {
		sb_printf(b, "class%u:%u", r->engine_class, r->engine_instance);
	}
	if (r->flags & I915_STALL_F_FENCE) {
		sb_put(b, ", fence ", 8);
		sb_dec(b, r->fence_context, 0);
		sb_putc(b, ':');
		sb_dec(b, r->fence_seqno, 0);
	}
	if (r->flags & I915_STALL_F_OWNER) {
		comm_clean(ocomm, r->owner_comm, I915_STALL_COMM_LEN);
		sb_put(b, ", owner ", 8);
		sb_puts(b, ocomm);
		sb_putc(b, '[');
		sb_dec(b, r->owner_pid, 0);
		sb_putc(b, ']');
	}
	if (r->timeout_ns == I915_STALL_TIMEOUT_NONE) {
		sb_puts(b, ", no timeout");
	} else {
		sb_puts(b, ", timeout ");
		sb_ms(b, r->timeout_ns);
		sb_puts(b, " ms");
	}
	if (r->wait_flags)
		sb_printf(b, ", wait_flags 0x%x", r->wait_flags);
	sb_putc(b, '\n');
	if (r->caller) {
		e = frame_get(R, s, FK_KERNEL, -1);
		t = fent_text(e, FT_REPORT, &l);
		sb_put(b, "  caller ", 9);
		sb_hex16(b, r->caller);
		sb_putc(b, ' ');
		sb_put(b, t, l);
		sb_putc(b, '\n');
	} else {
		sb_puts(b, "  caller unknown\n");
	}
	sb_puts(b, "  kernel stack:");
	sb_puts(b, r->flags & I915_STALL_F_KSTACK_TRUNC ? " (truncated)\n" :
		r->kstack_depth ? "\n" : " none\n");
	block(R, s, BK_KREPORT, b);
	if (r->flags & I915_STALL_F_KTHREAD)
		sb_puts(b, "  user stack: none (kernel thread)\n");
	else if (r->flags & I915_STALL_F_COMPAT)
		sb_puts(b, "  user stack: not walked (32-bit task)\n");
	else
		sb_puts(b, r->flags & I915_STALL_F_USTACK_TRUNC ? "  user stack: (truncated)\n" :
			r->ustack_depth ? "  user stack:\n" : "  user stack: none\n");
	block(R, s, BK_UREPORT, b);
	sb_putc(b, '\n');
	if (b->len >= OB_CHUNK)
		out_stream_end(o);
}

/* Write the records formatted so far. */
void out_stream_end(FILE *o)
{
	if (OB.len)
		fwrite(OB.p, 1, OB.len, o);
	OB.len = 0;
}

/* --stream: the input line of one stall file, then its records one by one */
void out_stream_input(FILE *o, const struct stall_file *f)
{
	out_stream_end(o);
	text_input(o, f);
	fputc('\n', o);
}

void out_stream_stall(FILE *o, struct run *R, const struct stall *s)
{
	report_one(o, R, s);
}

void out_report_text(FILE *o, struct run *R)
{
	size_t i;

	text_inputs(o, R);
	fprintf(o, "# %zu stalls shown\n\n", R->n);
	for (i = 0; i < R->n; i++) {
		prefetch_ahead(R, i);
		report_one(o, R, &R->st[i]);
	}
	out_stream_end(o);
}

/* ---------------------------------------------------------------- groups */

struct group {
	char *key;
	uint64_t *d;
	size_t n, cap;
	uint64_t total, max, weight;
	const struct stall *rep;
	bool sorted;		/* d[] */
};

struct groups {
	struct group *g;
	size_t n, cap;
	size_t *ht;		/* index + 1, 0 empty */
	size_t hcap;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static struct group *group_get(struct groups *G, const char *key)
{
	size_t i, h;

	if ((G->n + 1) * 2 > G->hcap) {
		size_t nc = G->hcap ? G->hcap * 2 : 64;

		free(G->ht);
		G->ht = xcalloc(nc, sizeof(*G->ht));
		G->hcap = nc;
		for (i = 0; i < G->n; i++) {
			h = hash_str(G->g[i].key) & (nc - 1);
			while (G->ht[h])
				h = (h + 1) & (nc - 1);
			G->ht[h] = i + 1;
		}
	}
	h = hash_str(key) & (G->hcap - 1);
	while (G->ht[h]) {
		if (!strcmp(G->g[G->ht[h] - 1].key, key))
			return &G->g[G->ht[h] - 1];
		h = (h + 1) & (G->hcap - 1);
	}
	if (G->n == G->cap) {
		G->cap = G->cap ? G->cap * 2 : 64;
		G->g = xreallocarray(G->g, G->cap, sizeof(*G->g));
	}
	G->ht[h] = G->n + 1;
	memset(&G->g[G->n], 0, sizeof(G->g[0]));
	G->g[G->n].key = xstrdup(key);
	return &G->g[G->n++];
}

static void group_add(struct group *g, const struct stall *s, uint64_t w)
{
	input_touched(sizeof(*s->r));
	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 8;
		g->d = xreallocarray(g->d, g->cap, sizeof(*g->d));
	}
	g->d[g->n++] = s->r->duration_ns;
	g->total += s->r->duration_ns;
	if (s->r->duration_ns > g->max)
		g->max = s->r->duration_ns;
	g->weight += w;
	g->sorted = false;
	if (!g->rep)
		g->rep = s;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* nearest-rank percentile */
static uint64_t pct(struct group *g, unsigned int p)
{
	size_t k;

	if (!g->n)
		return 0;
	if (!g->sorted)
		xqsort(g->d, g->n, sizeof(*g->d), cmp_u64);
	g->sorted = true;
	k = (g->n * p + 99) / 100;
	return g->d[k ? k - 1 : 0];
}

static int cmp_total_desc(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->key, y->key);
}

static int cmp_key(const void *a, const void *b)
{
	return strcmp(((const struct group *)a)->key, ((const struct group *)b)->key);
}

static void groups_free(struct groups *G)
{
	size_t i;

	for (i = 0; i < G->n; i++) {
		free(G->g[i].key);
		free(G->g[i].d);
	}
	free(G->g);
	free(G->ht);
	memset(G, 0, sizeof(*G));
}

/* User stack key, root first: "main;fx_mid;fx_wait", into b. */
static void ustack_key(struct run *R, const struct stall *s, bool addr, struct sbuf *b)
{
	b->len = 0;
	if (s->r->flags & I915_STALL_F_KTHREAD)
		sb_puts(b, "[kernel thread]");
	else if (!s->r->ustack_depth)
		sb_puts(b, "[no user stack]");
	else
		block(R, s, addr ? BK_UKEY_ADDR : BK_UKEY, b);	/* unknown frames apart? */
}

static void build_site_groups(struct run *R, struct groups *G)
{
	size_t i, gi = 0;
	unsigned int last = 0;
	char site[32];

	for (i = 0; i < R->n; i++) {
		unsigned int id = R->st[i].r->site;

		prefetch_ahead(R, i);
		if (!i || id != last) {	/* runs of one site are the rule */
			site_str(site, sizeof(site), id);
			gi = (size_t)(group_get(G, site) - G->g);
			last = id;
		}
		group_add(&G->g[gi], &R->st[i], 1);
	}
	xqsort(G->g, G->n, sizeof(*G->g), cmp_total_desc);
	free(G->ht);
	G->ht = NULL;
	G->hcap = 0;
}

/* by_addr: unresolved frames without a file keep their address apart
 * (summary); diff compares runs with other addresses, so it merges them */
static void build_stack_groups(struct run *R, struct groups *G, bool by_addr)
{
	/* stacks seen, by identity: no key to format and hash per stall */
	struct seen {
		uint64_t hash;
		const struct i915_stall_record *r;
		const struct stall_file *f;
		size_t gi;
		unsigned int unresolved;
	} *t = NULL;
	size_t i, n = 0, cap = 0, h, gi;
	struct sbuf k = { 0 };

	for (i = 0; i < R->n; i++) {
		const struct stall *s = &R->st[i];
		const struct i915_stall_record *r = s->r;
		unsigned long before = R->unresolved;
		struct seen *e = NULL;
		uint64_t hash = 0;

		prefetch_ahead(R, i);
		if (!(r->flags & I915_STALL_F_KTHREAD) && r->ustack_depth &&
		    !usym_pid_reused(s->f, r)) {
			hash = stack_hash(s->f, r->tgid, by_addr, r->ustack_depth, r->ustack);
			for (h = hash & (cap - 1); cap && (e = &t[h])->r; h = (h + 1) & (cap - 1))
				if (e->hash == hash && e->f == s->f && e->r->tgid == r->tgid &&
				    e->r->ustack_depth == r->ustack_depth &&
				    !memcmp(e->r->ustack, r->ustack, r->ustack_depth * sizeof(r->ustack[0])))
					break;
			if (e && e->r) {
				R->unresolved += e->unresolved;
				group_add(&G->g[e->gi], s, 1);
				continue;
			}
		}
		ustack_key(R, s, by_addr, &k);
		gi = (size_t)(group_get(G, k.p) - G->g);
		group_add(&G->g[gi], s, 1);
		if (!hash)
			continue;
		if ((n + 1) * 2 > cap) {	/* grow, then find the new slot */
			struct seen *old = t;
			size_t oc = cap, j;

			cap = cap ? cap * 2 : 256;
			t = xcalloc(cap, sizeof(*t));
			for (j = 0; j < oc; j++)
				if (old[j].r) {
					for (h = old[j].hash & (cap - 1); t[h].r; h = (h + 1) & (cap - 1))
						;
					t[h] = old[j];
				}
			free(old);
		}
		for (h = hash & (cap - 1); t[h].r; h = (h + 1) & (cap - 1))
			;
		t[h].hash = hash;
		t[h].r = r;
		t[h].f = s->f;
		t[h].gi = gi;
		t[h].unresolved = (unsigned int)(R->unresolved - before);
		n++;
	}
	free(k.p);
	free(t);
	xqsort(G->g, G->n, sizeof(*G->g), cmp_total_desc);
	free(G->ht);
	G->ht = NULL;
	G->hcap = 0;
}

/* ---------------------------------------------------------------- summary */

static void row(FILE *o, struct group *g)
{
	char t[32], m[32], p50[32], p99[32];

	fmt_ms(t, sizeof(t), g->total);
	fmt_ms(m, sizeof(m), g->max);
	fmt_ms(p50, sizeof(p50), pct(g, 50));
	fmt_ms(p99, sizeof(p99), pct(g, 99));
	fprintf(o, "%8zu %12s %10s %10s %10s", g->n, t, m, p50, p99);
}

void out_summary_text(FILE *o, struct run *R)
{
	struct groups S = { 0 }, U = { 0 };
	uint64_t total = 0;
	size_t i, j;
	char t[32];

	text_inputs(o, R);
	build_site_groups(R, &S);
	for (i = 0; i < S.n; i++)	/* one pass less over the records */
		total += S.g[i].total;
	fmt_ms(t, sizeof(t), total);
	fprintf(o, "\n%zu stalls, %s ms stalled\n", R->n, t);

	fprintf(o, "\nBy site:\n%8s %12s %10s %10s %10s  %s\n", "count", "total_ms", "max_ms",
		"p50_ms", "p99_ms", "site");
	for (i = 0; i < S.n; i++) {
		row(o, &S.g[i]);
		fprintf(o, "  %s\n", S.g[i].key);
	}

	build_stack_groups(R, &U, true);
	fprintf(o, "\nBy user stack (top %zu of %zu):\n%8s %12s %10s %10s %10s  %s\n",
		R->top < U.n ? R->top : U.n, U.n, "count", "total_ms", "max_ms", "p50_ms",
		"p99_ms", "stack (innermost first)");
	for (i = 0; i < U.n && i < R->top; i++) {
		char *k = U.g[i].key, *p;
		char comm[I915_STALL_COMM_LEN + 1];

		comm_clean(comm, U.g[i].rep->r->comm, I915_STALL_COMM_LEN);
		row(o, &U.g[i]);
		fprintf(o, "  e.g. %s[%u]\n", comm, U.g[i].rep->r->tgid);
		/* print innermost first, one frame per line */
		for (;;) {
			p = strrchr(k, ';');
			fprintf(o, "%56s  %s\n", "", p ? p + 1 : k);
			if (!p)
				break;
			*p = 0;
		}
	}

	fprintf(o, "\nPer CPU:\n%6s %12s %12s %12s %12s %12s\n", "cpu", "recorded", "emitted",
		"overwritten", "torn", "dropped");
	for (i = 0; i < R->nfiles; i++)
		for (j = 0; j < R->files[i]->hdr.cpu_count; j++) {
			const struct i915_stall_cpu_entry *c = &R->files[i]->cpus[j];

			if (!c->recorded && !c->dropped)
				continue;
			fprintf(o, "%6u %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64
				" %12" PRIu64 "%s\n", c->cpu, (uint64_t)c->recorded,
				(uint64_t)c->emitted, (uint64_t)c->overwritten, (uint64_t)c->torn,
				(uint64_t)c->dropped,
				c->overwritten + c->torn + c->dropped ? "  LOST" : "");
		}
	groups_free(&S);
	groups_free(&U);
}

/* ---------------------------------------------------------------- folded */

static uint64_t weight_of(struct run *R, const struct stall *s)
{
	if (R->weight == W_COUNT)
		return 1;
	return (s->r->duration_ns + 999) / 1000;	/* µs, rounded up: never 0 */
}

static void build_folded(struct run *R, struct groups *G)
{
	struct sbuf line = { 0 };
	size_t i;

	for (i = 0; i < R->n; i++) {
		const struct stall *s = &R->st[i];
		char comm[I915_STALL_COMM_LEN + 1];

		prefetch_ahead(R, i);
		comm_clean_(comm, s->r->comm, I915_STALL_COMM_LEN, true);
		line.len = 0;
		sb_puts(&line, comm);
		if (R->root != ROOT_COMM) {
			sb_putc(&line, '-');
			sb_dec(&line, s->r->tgid, 0);
		}
		if (R->root == ROOT_TID) {
			sb_putc(&line, '/');
			sb_dec(&line, s->r->pid, 0);
		}
		/* outermost user frame first, innermost kernel frame last */
		block(R, s, BK_UFOLD, &line);
		block(R, s, BK_KFOLD, &line);
		group_add(group_get(G, line.p), s, weight_of(R, s));
	}
	free(line.p);
	xqsort(G->g, G->n, sizeof(*G->g), cmp_key);
	free(G->ht);
	G->ht = NULL;
	G->hcap = 0;
}

void out_folded(FILE *o, struct run *R)
{
	struct groups G = { 0 };
	size_t i;

	build_folded(R, &G);
	for (i = 0; i < G.n; i++)
		fprintf(o, "%s %" PRIu64 "\n", G.g[i].key, G.g[i].weight);
	groups_free(&G);
}

/* ---------------------------------------------------------------- svg */

struct node {
	char *name;
	uint64_t value;
	struct node **kids;
	size_t nkids;
};

static struct node *node_child(struct node *n, const char *name, size_t len)
{
	size_t i;
	struct node *c;

	for (i = 0; i < n->nkids; i++)
		if (strlen(n->kids[i]->name) == len && !memcmp(n->kids[i]->name, name, len))
			return n->kids[i];
	c = xcalloc(1, sizeof(*c));
	c->name = xmalloc(len + 1);
	memcpy(c->name, name, len);
	c->name[len] = 0;
	n->kids = xreallocarray(n->kids, n->nkids + 1, sizeof(*n->kids));
	n->kids[n->nkids++] = c;
	return c;
}

static void node_free(struct node *n)
{
	size_t i;

	for (i = 0; i < n->nkids; i++)
		node_free(n->kids[i]);
	free(n->kids);
	free(n->name);
	free(n);
}

static int node_depth(const struct node *n)
{
	int d = 0, x;
	size_t i;

	for (i = 0; i < n->nkids; i++)
		if ((x = node_depth(n->kids[i])) > d)
			d = x;
	return d + 1;
}

static void xml_text(FILE *o, const char *s, size_t max)
{
	size_t i;

	for (i = 0; s[i] && i < max; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '<') fputs("&lt;", o);
		else if (c == '>') fputs("&gt;", o);
		else if (c == '&') fputs("&amp;", o);
		else if (c == '"') fputs("&quot;", o);
		else if (c < 0x20 || c >= 0x7f) fputc('?', o);
		else fputc(c, o);
	}
	if (s[i] && max >= 2)
		fputs("..", o);
}

#define SVG_W 1200.0
#define SVG_PAD 10.0
#define SVG_FH 16

static void svg_node(FILE *o, const struct node *n, double x, int depth, int maxdepth,
		     uint64_t total, const char *unit)
{
	double w = (SVG_W - 2 * SVG_PAD) * (double)n->value / (double)total;
	double y = 30 + (double)(maxdepth - depth - 1) * SVG_FH;
	uint64_t h = hash_str(n->name);
	bool kern = strlen(n->name) > 4 && !strcmp(n->name + strlen(n->name) - 4, "_[k]");
	int r, g, b;
	size_t i;
	double cx = x;

	if (w < 0.1)
		return;
	if (kern) {
		r = 220 + (int)(h % 35);
		g = 110 + (int)((h >> 8) % 60);
		b = 30 + (int)((h >> 16) % 30);
	} else {
		r = 200 + (int)(h % 55);
		g = 180 + (int)((h >> 8) % 60);
		b = 40 + (int)((h >> 16) % 40);
	}
	fprintf(o, "<g><title>");
	xml_text(o, n->name, 4096);
	fprintf(o, " (%" PRIu64 " %s, %.2f%%)</title>", n->value, unit,
		100.0 * (double)n->value / (double)total);
	fprintf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" rx=\"2\" "
		"fill=\"rgb(%d,%d,%d)\"/>", x, y, w, SVG_FH - 1, r, g, b);
	if (w > 21) {
		fprintf(o, "<text x=\"%.1f\" y=\"%.1f\">", x + 3, y + SVG_FH - 4);
		xml_text(o, n->name, (size_t)((w - 6) / 7));
		fprintf(o, "</text>");
	}
	fprintf(o, "</g>\n");
	for (i = 0; i < n->nkids; i++) {
		svg_node(o, n->kids[i], cx, depth + 1, maxdepth, total, unit);
		cx += (SVG_W - 2 * SVG_PAD) * (double)n->kids[i]->value / (double)total;
	}
}

void out_svg(FILE *o, struct run *R, const char *title)
{
	struct groups G = { 0 };
	struct node *root = xcalloc(1, sizeof(*root));
	const char *unit = R->weight == W_COUNT ? "stalls" : "us";
	uint64_t lost = 0;
	size_t i;
	int depth;

	root->name = xstrdup("all");
	build_folded(R, &G);	/* sorted: children come out alphabetical */
	for (i = 0; i < G.n; i++) {
		const char *p = G.g[i].key;
		struct node *n = root;

		root->value += G.g[i].weight;
		for (;;) {
			const char *e = strchr(p, ';');
			size_t len = e ? (size_t)(e - p) : strlen(p);

			n = node_child(n, p, len);
			n->value += G.g[i].weight;
			if (!e)
				break;
			p = e + 1;
		}
	}
	for (i = 0; i < R->nfiles; i++)
		lost += lost_total(R->files[i]);
	depth = node_depth(root);
	fprintf(o, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<style>text{font-family:monospace;font-size:12px;fill:#000}"
		"g:hover rect{stroke:#000;stroke-width:0.5}</style>\n"
		"<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#f8f8f0\"/>\n"
		"<text x=\"%d\" y=\"20\" text-anchor=\"middle\" style=\"font-size:15px\">",
		(int)SVG_W, depth * SVG_FH + 60, (int)SVG_W, depth * SVG_FH + 60, (int)SVG_W / 2);
	xml_text(o, title, 200);
	fprintf(o, " (%zu stalls, %" PRIu64 " %s)</text>\n", R->n, root->value, unit);
	if (lost)
		fprintf(o, "<text x=\"%d\" y=\"%d\" fill=\"#c00\">LOST %" PRIu64
			" stalls: totals are incomplete</text>\n", (int)SVG_PAD,
			depth * SVG_FH + 50, lost);
	if (root->value)
		svg_node(o, root, SVG_PAD, 0, depth, root->value, unit);
	fprintf(o, "</svg>\n");
	node_free(root);
	groups_free(&G);
}

/* ---------------------------------------------------------------- json */

static void json_frame(FILE *o, const struct frame *fr)
{
	fprintf(o, "{\"addr\":\"0x%" PRIx64 "\",\"symbol\":", fr->addr);
	json_str(o, fr->name);
	if (fr->name)
		fprintf(o, ",\"offset\":\"0x%" PRIx64 "\"", fr->off);
	else
		fprintf(o, ",\"offset\":null");
	fprintf(o, ",\"module\":");
	json_str(o, fr->module);
	if (fr->has_modoff)
		fprintf(o, ",\"module_offset\":\"0x%" PRIx64 "\"", fr->modoff);
	else
		fprintf(o, ",\"module_offset\":null");
	fprintf(o, ",\"reason\":");
	json_str(o, fr->reason);
	if (fr->src) {
		fprintf(o, ",\"file\":");
		json_str(o, fr->src);
		fprintf(o, ",\"line\":%d", fr->line);
	}
	fputc('}', o);
}

static void json_lost(FILE *o, uint64_t ow, uint64_t torn, uint64_t dr)
{
	fprintf(o, "{\"overwritten\":%" PRIu64 ",\"torn\":%" PRIu64 ",\"dropped\":%" PRIu64
		",\"total\":%" PRIu64 "}", ow, torn, dr, ow + torn + dr);
}

static void json_stall(FILE *o, struct run *R, const struct stall *s)
{
	const struct i915_stall_record *r = s->r;
	char wall[64], site[32];
	const char *x;
	struct frame fr;
	unsigned int i;
	static const struct { unsigned int bit; const char *name; } fl[] = {
		{ I915_STALL_F_KTHREAD, "kthread" }, { I915_STALL_F_COMPAT, "compat" },
		{ I915_STALL_F_KSTACK_TRUNC, "kstack_truncated" },
		{ I915_STALL_F_USTACK_TRUNC, "ustack_truncated" },
		{ I915_STALL_F_ENGINE, "engine" }, { I915_STALL_F_FENCE, "fence" },
		{ I915_STALL_F_OWNER, "owner" },
	};
	unsigned int known = 0;
	bool first = true;

	input_touched(sizeof(*r));
	fmt_wall(wall, sizeof(wall), s);
	site_str(site, sizeof(site), r->site);
	fprintf(o, "{\"input\":%d,\"cpu\":%u,\"seq\":%" PRIu64 ",\"start_ns\":%" PRIu64
		",\"wall_time\":\"%s\",\"duration_ns\":%" PRIu64 ",\"spin_ns\":%" PRIu64
		",\"pid\":%u,\"tid\":%u,\"comm\":", s->f->index, r->cpu, (uint64_t)r->seq,
		(uint64_t)r->start_ns, wall, (uint64_t)r->duration_ns, (uint64_t)r->spin_ns,
		r->tgid, r->pid);
	json_strn(o, r->comm, strnlen(r->comm, I915_STALL_COMM_LEN));
	fprintf(o, ",\"site\":\"%s\",\"site_id\":%u,\"outcome\":", site, r->site);
	x = outcome_name(r->outcome);
	if (x)
		fprintf(o, "\"%s\"", x);
	else
		fprintf(o, "\"outcome#%u\"", r->outcome);
	fprintf(o, ",\"error\":%d,\"engine\":", r->error);
	if ((r->flags & I915_STALL_F_ENGINE) && r->engine_class != I915_STALL_ENGINE_NONE) {
		fprintf(o, "{\"class\":");
		json_str(o, engine_class_name(r->engine_class));
		fprintf(o, ",\"class_id\":%u,\"instance\":%u}", r->engine_class, r->engine_instance);
	} else {
		fprintf(o, "null");
	}
	if (r->flags & I915_STALL_F_FENCE)
		fprintf(o, ",\"fence\":{\"context\":\"0x%" PRIx64 "\",\"seqno\":%" PRIu64 "}",
			(uint64_t)r->fence_context, (uint64_t)r->fence_seqno);
	else
		fprintf(o, ",\"fence\":null");
	if (r->flags & I915_STALL_F_OWNER) {
		fprintf(o, ",\"owner\":{\"pid\":%u,\"comm\":", r->owner_pid);
		json_strn(o, r->owner_comm, strnlen(r->owner_comm, I915_STALL_COMM_LEN));
		fputc('}', o);
	} else {
		fprintf(o, ",\"owner\":null");
	}
	if (r->timeout_ns == I915_STALL_TIMEOUT_NONE)
		fprintf(o, ",\"timeout_ns\":null");
	else
		fprintf(o, ",\"timeout_ns\":%" PRIu64, (uint64_t)r->timeout_ns);
	fprintf(o, ",\"wait_flags\":\"0x%x\",\"flags\":[", r->wait_flags);
	for (i = 0; i < sizeof(fl) / sizeof(fl[0]); i++) {
		known |= fl[i].bit;
		if (r->flags & fl[i].bit) {
			fprintf(o, "%s\"%s\"", first ? "" : ",", fl[i].name);
			first = false;
		}
	}
	for (i = 0; i < 16; i++)	/* from a newer writer */
		if (r->flags & ~known & (1u << i)) {
			fprintf(o, "%s\"0x%x\"", first ? "" : ",", 1u << i);
			first = false;
		}
	fprintf(o, "],\"caller\":");
	if (r->caller) {
		kframe(R, s, -1, &fr);
		json_frame(o, &fr);
	} else {
		fprintf(o, "null");
	}
	fprintf(o, ",\"kstack\":[");
	for (i = 0; i < r->kstack_depth; i++) {
		kframe(R, s, (int)i, &fr);
		if (i)
			fputc(',', o);
		json_frame(o, &fr);
	}
	fprintf(o, "],\"ustack\":[");
	for (i = 0; i < r->ustack_depth; i++) {
		uframe(R, s, i, &fr);
		if (i)
			fputc(',', o);
		json_frame(o, &fr);
	}
	fprintf(o, "]}");
}

static void json_group(FILE *o, struct group *g, const char *keyname, bool stack)
{
	fprintf(o, "{\"%s\":", keyname);
	if (stack) {
		const char *p = g->key;

		fputc('[', o);
		for (;;) {
			const char *e = strchr(p, ';');

			json_strn(o, p, e ? (size_t)(e - p) : strlen(p));
			if (!e)
				break;
			fputc(',', o);
			p = e + 1;
		}
		fputc(']', o);
	} else {
		json_str(o, g->key);
	}
	fprintf(o, ",\"count\":%zu,\"total_ns\":%" PRIu64 ",\"max_ns\":%" PRIu64
		",\"p50_ns\":%" PRIu64 ",\"p99_ns\":%" PRIu64 "}", g->n, g->total, g->max,
		pct(g, 50), pct(g, 99));
}

void out_json(FILE *o, struct run *R, bool with_stalls, bool with_summary)
{
	uint64_t ow = 0, torn = 0, dr = 0, total = 0;
	size_t i, j;

	fprintf(o, "{\"format\":\"i915-stalls\",\"version\":1,\"inputs\":[");
	for (i = 0; i < R->nfiles; i++) {
		const struct stall_file *f = R->files[i];
		const struct i915_stall_file_header *h = &f->hdr;

		ow += f->lost_overwritten;
		torn += f->lost_torn;
		dr += f->lost_dropped;
		fprintf(o, "%s{\"file\":", i ? "," : "");
		json_str(o, f->name);
		fprintf(o, ",\"offset\":%" PRIu64 ",\"version\":\"%u.%u\",\"device\":", f->base,
			h->version_major, h->version_minor);
		json_strn(o, h->device, strnlen(h->device, I915_STALL_NAME_LEN));
		fprintf(o, ",\"release\":");
		json_strn(o, h->release, strnlen(h->release, I915_STALL_RELEASE_LEN));
		fprintf(o, ",\"drm_minor\":%u,\"enabled\":%s,\"i915_module\":%s,\"threshold_ns\":%"
			PRIu64 ",\"slots_per_cpu\":%u,\"snapshot_ns\":%" PRIu64
			",\"realtime_offset_ns\":%" PRId64 ",\"records\":%" PRIu64 ",\"lost\":",
			h->drm_minor, h->flags & I915_STALL_H_ENABLED ? "true" : "false",
			h->flags & I915_STALL_H_I915_MODULE ? "true" : "false",
			(uint64_t)h->threshold_ns, h->slots_per_cpu, (uint64_t)h->snapshot_ns,
			(int64_t)h->realtime_offset_ns, (uint64_t)h->record_count);
		json_lost(o, f->lost_overwritten, f->lost_torn, f->lost_dropped);
		fprintf(o, ",\"cpus\":[");
		for (j = 0; j < h->cpu_count; j++) {
			const struct i915_stall_cpu_entry *c = &f->cpus[j];

			fprintf(o, "%s{\"cpu\":%u,\"flags\":%u,\"recorded\":%" PRIu64 ",\"emitted\":%"
				PRIu64 ",\"overwritten\":%" PRIu64 ",\"torn\":%" PRIu64
				",\"dropped\":%" PRIu64 "}", j ? "," : "", c->cpu, c->flags,
				(uint64_t)c->recorded, (uint64_t)c->emitted,
				(uint64_t)c->overwritten, (uint64_t)c->torn, (uint64_t)c->dropped);
		}
		fprintf(o, "]}");
	}
	fprintf(o, "],\"lost\":");
	json_lost(o, ow, torn, dr);
	for (i = 0; i < R->n; i++) {
		total += R->st[i].r->duration_ns;
		input_touched(sizeof(*R->st[i].r));
	}
	fprintf(o, ",\"count\":%zu,\"total_ns\":%" PRIu64, R->n, total);
	if (with_stalls) {
		fprintf(o, ",\"stalls\":[");
		for (i = 0; i < R->n; i++) {
			if (i)
				fputc(',', o);
			fputs("\n", o);
			json_stall(o, R, &R->st[i]);
		}
		fprintf(o, "]");
	}
	if (with_summary) {
		struct groups S = { 0 }, U = { 0 };

		build_site_groups(R, &S);
		build_stack_groups(R, &U, true);
		fprintf(o, ",\"sites\":[");
		for (i = 0; i < S.n; i++) {
			fputs(i ? ",\n" : "\n", o);
			json_group(o, &S.g[i], "site", false);
		}
		fprintf(o, "],\"stacks\":[");
		for (i = 0; i < U.n && i < R->top; i++) {
			fputs(i ? ",\n" : "\n", o);
			json_group(o, &U.g[i], "stack", true);
		}
		fprintf(o, "]");
		groups_free(&S);
		groups_free(&U);
	}
	fprintf(o, "}\n");
}

/* ---------------------------------------------------------------- diff */

struct drow {
	const char *kind;	/* "site" or "stack" */
	const char *key;
	struct group *a, *b;
	int64_t growth;		/* of total ns */
};

static int cmp_drow(const void *x, const void *y)
{
	const struct drow *a = x, *b = y;
	int c;

	if (a->growth != b->growth)
		return a->growth > b->growth ? -1 : 1;
	c = strcmp(a->kind, b->kind);
	return c ? c : strcmp(a->key, b->key);
}

static struct group *find_group(struct groups *G, const char *key)
{
	size_t i;

	for (i = 0; i < G->n; i++)
		if (!strcmp(G->g[i].key, key))
			return &G->g[i];
	return NULL;
}

static void add_rows(struct drow **rows, size_t *n, const char *kind, struct groups *A,
		     struct groups *B)
{
	size_t i;

	for (i = 0; i < A->n + B->n; i++) {
		struct group *g = i < A->n ? &A->g[i] : &B->g[i - A->n];
		struct group *a = i < A->n ? g : find_group(A, g->key);
		struct group *b = i < A->n ? find_group(B, g->key) : g;
		struct drow *r;

		if (i >= A->n && a)
			continue;	/* already paired */
		*rows = xreallocarray(*rows, *n + 1, sizeof(**rows));
		r = &(*rows)[(*n)++];
		r->kind = kind;
		r->key = g->key;
		r->a = a;
		r->b = b;
		r->growth = (int64_t)(b ? b->total : 0) - (int64_t)(a ? a->total : 0);
	}
}

static uint64_t metric_of(struct run *R, struct group *all, enum metric m)
{
	if (m == M_COUNT)
		return R->n;
	if (m == M_P99)
		return pct(all, 99);
	return all->total;
}

void out_diff(FILE *o, struct run *A, struct run *B, bool json, enum metric m,
	      double *growth_pct)
{
	struct groups SA = { 0 }, SB = { 0 }, UA = { 0 }, UB = { 0 };
	struct group ga = { 0 }, gb = { 0 };
	struct drow *rows = NULL;
	size_t n = 0, i;
	uint64_t ma, mb;

	for (i = 0; i < A->n; i++)
		group_add(&ga, &A->st[i], 1);
	for (i = 0; i < B->n; i++)
		group_add(&gb, &B->st[i], 1);
	build_site_groups(A, &SA);
	build_site_groups(B, &SB);
	build_stack_groups(A, &UA, false);
	build_stack_groups(B, &UB, false);
	add_rows(&rows, &n, "site", &SA, &SB);
	add_rows(&rows, &n, "stack", &UA, &UB);
	xqsort(rows, n, sizeof(*rows), cmp_drow);
	ma = metric_of(A, &ga, m);
	mb = metric_of(B, &gb, m);
	if (ma)
		*growth_pct = 100.0 * ((double)mb - (double)ma) / (double)ma;
	else
		*growth_pct = mb ? 1e9 : 0;

	if (json) {
		fprintf(o, "{\"format\":\"i915-stalls-diff\",\"version\":1,\"metric\":\"%s\","
			"\"old\":{\"count\":%zu,\"total_ns\":%" PRIu64 ",\"p99_ns\":%" PRIu64 "},"
			"\"new\":{\"count\":%zu,\"total_ns\":%" PRIu64 ",\"p99_ns\":%" PRIu64 "},"
			"\"growth_pct\":%.2f,\"rows\":[",
			m == M_COUNT ? "count" : m == M_P99 ? "p99" : "total", A->n, ga.total,
			pct(&ga, 99), B->n, gb.total, pct(&gb, 99), *growth_pct);
		for (i = 0; i < n; i++) {
			struct drow *r = &rows[i];

			fprintf(o, "%s{\"kind\":\"%s\",\"key\":", i ? ",\n" : "\n", r->kind);
			json_str(o, r->key);
			fprintf(o, ",\"old\":{\"count\":%zu,\"total_ns\":%" PRIu64 ",\"p99_ns\":%"
				PRIu64 "},\"new\":{\"count\":%zu,\"total_ns\":%" PRIu64
				",\"p99_ns\":%" PRIu64 "},\"growth_ns\":%" PRId64 "}",
				r->a ? r->a->n : 0, r->a ? r->a->total : 0, r->a ? pct(r->a, 99) : 0,
				r->b ? r->b->n : 0, r->b ? r->b->total : 0, r->b ? pct(r->b, 99) : 0,
				r->growth);
		}
		fprintf(o, "]}\n");
	} else {
		char t1[32], t2[32], p1[32], p2[32], g[32];

		fmt_ms(t1, sizeof(t1), ga.total);
		fmt_ms(t2, sizeof(t2), gb.total);
		fmt_ms(p1, sizeof(p1), pct(&ga, 99));
		fmt_ms(p2, sizeof(p2), pct(&gb, 99));
		fprintf(o, "old: %zu stalls, %s ms, p99 %s ms\nnew: %zu stalls, %s ms, p99 %s ms\n"
			"growth (%s): %+.2f%%\n\n", A->n, t1, p1, B->n, t2, p2,
			m == M_COUNT ? "count" : m == M_P99 ? "p99" : "total", *growth_pct);
		fprintf(o, "%6s %6s %12s %12s %10s %10s %12s  %s\n", "old_n", "new_n", "old_ms",
			"new_ms", "old_p99", "new_p99", "growth_ms", "site/stack");
		for (i = 0; i < n; i++) {
			struct drow *r = &rows[i];
			uint64_t ag = r->growth < 0 ? (uint64_t)-r->growth : (uint64_t)r->growth;

			fmt_ms(t1, sizeof(t1), r->a ? r->a->total : 0);
			fmt_ms(t2, sizeof(t2), r->b ? r->b->total : 0);
			fmt_ms(p1, sizeof(p1), r->a ? pct(r->a, 99) : 0);
			fmt_ms(p2, sizeof(p2), r->b ? pct(r->b, 99) : 0);
			fmt_ms(g + 1, sizeof(g) - 1, ag);
			g[0] = r->growth < 0 ? '-' : '+';
			fprintf(o, "%6zu %6zu %12s %12s %10s %10s %12s  %s %s\n", r->a ? r->a->n : 0,
				r->b ? r->b->n : 0, t1, t2, p1, p2, g, r->kind, r->key);
		}
	}
	free(rows);
	free(ga.d);
	free(gb.d);
	groups_free(&SA);
	groups_free(&SB);
	groups_free(&UA);
	groups_free(&UB);
}
