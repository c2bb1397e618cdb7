// SPDX-License-Identifier: MIT
/* Output formats: report, summary, folded, JSON, SVG flame graph, diff. */
#include <inttypes.h>
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

/* ---------------------------------------------------------------- frames */

static void kframe(struct run *R, const struct stall *s, unsigned int i, struct frame *fr)
{
	ksym_resolve(s->f, s->r.kstack[i], true, fr);
	if (fr->reason)
		R->unresolved++;
}

static void cframe(struct run *R, const struct stall *s, struct frame *fr)
{
	ksym_resolve(s->f, s->r.caller, true, fr);
	if (fr->reason)
		R->unresolved++;
}

static void uframe(struct run *R, const struct stall *s, unsigned int i, struct frame *fr)
{
	usym_resolve(s->f, &s->r, i, fr);
	if (fr->reason)
		R->unresolved++;
}

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

/* comm for text: control bytes shown as '?'; folded also loses ';' */
#define frame_short(b, n, fr) frame_short_(b, n, fr, false)

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
	int64_t t = (int64_t)s->r.start_ns + s->f->hdr.realtime_offset_ns;
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

static void report_one(FILE *o, struct run *R, const struct stall *s)
{
	const struct i915_stall_record *r = &s->r;
	char comm[I915_STALL_COMM_LEN + 1], ocomm[I915_STALL_COMM_LEN + 1];
	char wall[64], d[32], sp[32], site[32], buf[1024];
	const char *oc = outcome_name(r->outcome), *ec;
	struct frame fr;
	unsigned int i;

	comm_clean(comm, r->comm, I915_STALL_COMM_LEN);
	fmt_wall(wall, sizeof(wall), s);
	fmt_ms(d, sizeof(d), r->duration_ns);
	fmt_ms(sp, sizeof(sp), r->spin_ns);
	site_str(site, sizeof(site), r->site);
	fprintf(o, "%" PRIu64 ".%09" PRIu64 " %s %s[%u/%u] cpu %u seq %" PRIu64 "\n",
		(uint64_t)r->start_ns / 1000000000, (uint64_t)r->start_ns % 1000000000, wall, comm,
		r->tgid, r->pid, r->cpu, (uint64_t)r->seq);
	fprintf(o, "  site %s, waited %s ms (spun %s ms), outcome ", site, d, sp);
	if (oc)
		fprintf(o, "%s", oc);
	else
		fprintf(o, "outcome#%u", r->outcome);
	if (r->outcome == I915_STALL_ERROR || r->error)
		fprintf(o, " %d", r->error);
	fputc('\n', o);
	fprintf(o, "  engine ");
	ec = engine_class_name(r->engine_class);
	if (!(r->flags & I915_STALL_F_ENGINE) || r->engine_class == I915_STALL_ENGINE_NONE)
		fprintf(o, "unknown");
	else if (ec)
		fprintf(o, "%s%u", ec, r->engine_instance);
	else
		fprintf(o, "class%u:%u", r->engine_class, r->engine_instance);
	if (r->flags & I915_STALL_F_FENCE)
		fprintf(o, ", fence %" PRIu64 ":%" PRIu64, (uint64_t)r->fence_context,
			(uint64_t)r->fence_seqno);
	if (r->flags & I915_STALL_F_OWNER) {
		comm_clean(ocomm, r->owner_comm, I915_STALL_COMM_LEN);
		fprintf(o, ", owner %s[%u]", ocomm, r->owner_pid);
	}
	if (r->timeout_ns == I915_STALL_TIMEOUT_NONE) {
		fprintf(o, ", no timeout");
	} else {
		fmt_ms(buf, sizeof(buf), r->timeout_ns);
		fprintf(o, ", timeout %s ms", buf);
	}
	if (r->wait_flags)
		fprintf(o, ", wait_flags 0x%x", r->wait_flags);
	fputc('\n', o);
	if (r->caller) {
		cframe(R, s, &fr);
		frame_text(buf, sizeof(buf), &fr, false);
		fprintf(o, "  caller 0x%016" PRIx64 " %s\n", (uint64_t)r->caller, buf);
	} else {
		fprintf(o, "  caller unknown\n");
	}
	fprintf(o, "  kernel stack:%s\n", r->flags & I915_STALL_F_KSTACK_TRUNC ? " (truncated)" :
		r->kstack_depth ? "" : " none");
	for (i = 0; i < r->kstack_depth; i++) {
		kframe(R, s, i, &fr);
		frame_text(buf, sizeof(buf), &fr, false);
		fprintf(o, "    #%-2u 0x%016" PRIx64 " %s\n", i, (uint64_t)r->kstack[i], buf);
	}
	if (r->flags & I915_STALL_F_KTHREAD)
		fprintf(o, "  user stack: none (kernel thread)\n");
	else if (r->flags & I915_STALL_F_COMPAT)
		fprintf(o, "  user stack: not walked (32-bit task)\n");
	else
		fprintf(o, "  user stack:%s\n", r->flags & I915_STALL_F_USTACK_TRUNC ? " (truncated)" :
			r->ustack_depth ? "" : " none");
	for (i = 0; i < r->ustack_depth; i++) {
		uframe(R, s, i, &fr);
		frame_text(buf, sizeof(buf), &fr, true);
		fprintf(o, "    #%-2u 0x%016" PRIx64 " %s\n", i, (uint64_t)r->ustack[i], buf);
	}
	fputc('\n', o);
}

/* --stream: the input line of one stall file, then its records one by one */
void out_stream_input(FILE *o, const struct stall_file *f)
{
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
	for (i = 0; i < R->n; i++)
		report_one(o, R, &R->st[i]);
}

/* ---------------------------------------------------------------- groups */

struct group {
	char *key;
	uint64_t *d;
	size_t n, cap;
	uint64_t total, max, weight;
	const struct stall *rep;
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
	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 8;
		g->d = xreallocarray(g->d, g->cap, sizeof(*g->d));
	}
	g->d[g->n++] = s->r.duration_ns;
	g->total += s->r.duration_ns;
	if (s->r.duration_ns > g->max)
		g->max = s->r.duration_ns;
	g->weight += w;
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
	xqsort(g->d, g->n, sizeof(*g->d), cmp_u64);
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

/* User stack key, root first: "main;fx_mid;fx_wait". */
static char *ustack_key(struct run *R, const struct stall *s, bool addr)
{
	size_t cap = 256, len = 0;
	char *k = xmalloc(cap), b[600];
	struct frame fr;
	int i;

	k[0] = 0;
	if (s->r.flags & I915_STALL_F_KTHREAD)
		return strcpy(xrealloc(k, 32), "[kernel thread]");
	if (!s->r.ustack_depth)
		return strcpy(xrealloc(k, 32), "[no user stack]");
	for (i = s->r.ustack_depth - 1; i >= 0; i--) {
		size_t l;

		uframe(R, s, (unsigned int)i, &fr);
		frame_short_(b, sizeof(b), &fr, addr);	/* unknown frames apart? */
		l = strlen(b);
		if (len + l + 2 > cap) {
			cap = (len + l + 2) * 2;
			k = xrealloc(k, cap);
		}
		if (len)
			k[len++] = ';';
		memcpy(k + len, b, l + 1);
		len += l;
	}
	return k;
}

static void build_site_groups(struct run *R, struct groups *G)
{
	size_t i;
	char site[32];

	for (i = 0; i < R->n; i++) {
		site_str(site, sizeof(site), R->st[i].r.site);
		group_add(group_get(G, site), &R->st[i], 1);
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
	size_t i;

	for (i = 0; i < R->n; i++) {
		char *k = ustack_key(R, &R->st[i], by_addr);

		group_add(group_get(G, k), &R->st[i], 1);
		free(k);
	}
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
	for (i = 0; i < R->n; i++)
		total += R->st[i].r.duration_ns;
	fmt_ms(t, sizeof(t), total);
	fprintf(o, "\n%zu stalls, %s ms stalled\n", R->n, t);

	build_site_groups(R, &S);
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

		comm_clean(comm, U.g[i].rep->r.comm, I915_STALL_COMM_LEN);
		row(o, &U.g[i]);
		fprintf(o, "  e.g. %s[%u]\n", comm, U.g[i].rep->r.tgid);
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
	return (s->r.duration_ns + 999) / 1000;	/* µs, rounded up: never 0 */
}

static void build_folded(struct run *R, struct groups *G)
{
	size_t i, cap = 1024;
	char *line = xmalloc(cap), b[600];

	for (i = 0; i < R->n; i++) {
		const struct stall *s = &R->st[i];
		char comm[I915_STALL_COMM_LEN + 1];
		struct frame fr;
		size_t len;
		int k;

		comm_clean_(comm, s->r.comm, I915_STALL_COMM_LEN, true);
		if (R->root == ROOT_TID)
			snprintf(line, cap, "%s-%u/%u", comm, s->r.tgid, s->r.pid);
		else if (R->root == ROOT_PID)
			snprintf(line, cap, "%s-%u", comm, s->r.tgid);
		else
			snprintf(line, cap, "%s", comm);
		len = strlen(line);
		for (k = (int)s->r.ustack_depth + (int)s->r.kstack_depth - 1; k >= 0; k--) {
			size_t l;

			if (k >= s->r.kstack_depth) {
				uframe(R, s, (unsigned int)(k - s->r.kstack_depth), &fr);
				frame_short(b, sizeof(b) - 4, &fr);
			} else {
				kframe(R, s, (unsigned int)k, &fr);
				frame_short(b, sizeof(b) - 4, &fr);
				strcat(b, "_[k]");
			}
			l = strlen(b);
			if (len + l + 2 > cap) {
				cap = (len + l + 2) * 2;
				line = xrealloc(line, cap);
			}
			line[len++] = ';';
			memcpy(line + len, b, l + 1);
			len += l;
		}
		group_add(group_get(G, line), s, weight_of(R, s));
	}
	free(line);
	xqsort(G->g, G->n, sizeof(*G->g), cmp_key);
	free(G->ht);
	G->ht = NULL;
	G->hcap = 0;
}

/* user frames come after kstack in the loop index: k >= kstack_depth is user
 * frame k - kstack_depth; counting down from the top emits the outermost user
 * frame first and the innermost kernel frame last. */

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
	const struct i915_stall_record *r = &s->r;
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
		cframe(R, s, &fr);
		json_frame(o, &fr);
	} else {
		fprintf(o, "null");
	}
	fprintf(o, ",\"kstack\":[");
	for (i = 0; i < r->kstack_depth; i++) {
		kframe(R, s, i, &fr);
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
	for (i = 0; i < R->n; i++)
		total += R->st[i].r.duration_ns;
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
