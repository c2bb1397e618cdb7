// SPDX-License-Identifier: MIT
/*
 * i915-stalls diff OLD NEW and diff OLD... -- NEW...: per wait site and
 * per user stack (--submitter: per submitter's stack), the count, total and p99 per capture of each side, the
 * change of the metric per capture (the effect size) with its bootstrap
 * interval and Mann-Whitney's p (stats.c); -F folded and -F svg give the
 * two sides' folded stacks and the differential flame graph instead.  With
 * "--" (or --alpha, --min-growth, --max-lost) the exit status is the
 * bisect verdict of all stalls: 0 good, 1 bad, 125 skip, 128 abort.
 *
 * Every input is one capture.  Each is read once: its groups (with their
 * durations, for the p99) are built, then folded into one table per kind
 * keyed by hash, each key holding the list of the captures it is in
 * (sparse: a stack seen in one capture costs one entry), and freed.  So
 * the join is linear in the groups, and the sort of the rows is the
 * n log n part.  The tables are not built for folded and SVG, whose
 * stacks stay in the bounded fagg's of aggregate.c.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

/* One capture's figures of one group, in a list per group. */
struct dobs {
	uint32_t cap;		/* capture: OLD 0..n_old-1, then NEW */
	uint32_t next;		/* index + 1 of the group's next, 0 at the end */
	struct stats_obs o;
};

/* One kind's groups over every capture. */
struct dtable {
	const char *kind;
	struct groups G;	/* keys only (no durations) */
	uint32_t *head, *tail;	/* per group: first and last dobs, index + 1 */
	size_t cap;
	struct dobs *obs;
	size_t nobs, obscap;
};

struct capture {
	struct session S;
	bool open;
	/* while it is read */
	struct groups sites, stacks;
	struct group all;
	/* what the verdict looks at */
	struct stats_capture c;
	char release[I915_STALL_RELEASE_LEN + 1];
	char device[I915_STALL_NAME_LEN + 1];
};

struct dctx {
	struct opts *o;
	struct capture *C;
	struct fagg *fold;	/* -F folded/svg: the side's fagg, else NULL */
	struct sbuf key;
	struct fstack fold_line;
	size_t stalls;
};

static int capture_one(void *ctx, const struct stall *s, const struct srec *r)
{
	struct dctx *d = ctx;
	struct capture *C = d->C;
	struct sstall ss;

	sym_stall(s, r, &ss);
	group_add(&C->all, r);
	d->stalls++;
	if (d->o->submitter)
		sym_submit(&ss);
	if (d->fold) {
		unsigned int depth = fold_stack(&d->fold_line, &ss, d->o->root, d->o->submitter);

		fagg_add_ids(d->fold, d->fold_line.ids, d->fold_line.n, depth,
			 d->o->weight == W_COUNT ? 1 :
			 r->duration_ns / 1000 + (r->duration_ns % 1000 != 0));
		return 0;
	}
	site_key(&d->key, r->site);
	group_add(groups_get(&C->sites, sb_str(&d->key), d->key.len), r);
	/* the runs have other addresses: unresolved frames merge */
	if (d->o->submitter)
		group_add(submit_group(&C->stacks, &ss, false, &d->key), r);
	else
		group_add(stack_group(&C->stacks, &ss, false, &d->key), r);
	return 0;
}

static void obs_of(struct group *g, struct stats_obs *o)
{
	o->count = g->n;
	o->total_ns = g->total;
	o->p99_ns = group_pct(g, 99);
}

/* Fold capture k's groups into the table and free them. */
static void table_add(struct dtable *T, struct groups *G, uint32_t k)
{
	size_t i;

	for (i = 0; i < G->n; i++) {
		struct group *g = groups_get(&T->G, G->g[i].key, G->g[i].key_len);
		size_t gi = (size_t)(g - T->G.g);
		struct dobs *b;

		if (gi >= T->cap) {
			size_t nc = T->cap ? T->cap * 2 : 256;

			while (nc <= gi)
				nc *= 2;
			T->head = xreallocarray(T->head, nc, sizeof(*T->head));
			T->tail = xreallocarray(T->tail, nc, sizeof(*T->tail));
			memset(T->head + T->cap, 0, (nc - T->cap) * sizeof(*T->head));
			memset(T->tail + T->cap, 0, (nc - T->cap) * sizeof(*T->tail));
			T->cap = nc;
		}
		if (T->nobs == T->obscap) {
			T->obscap = T->obscap ? T->obscap * 2 : 1024;
			T->obs = xreallocarray(T->obs, T->obscap, sizeof(*T->obs));
		}
		b = &T->obs[T->nobs++];
		b->cap = k;
		b->next = 0;
		obs_of(&G->g[i], &b->o);
		if (T->tail[gi])
			T->obs[T->tail[gi] - 1].next = (uint32_t)T->nobs;
		else
			T->head[gi] = (uint32_t)T->nobs;
		T->tail[gi] = (uint32_t)T->nobs;
	}
	groups_free(G);
}

static void table_free(struct dtable *T)
{
	groups_free(&T->G);
	free(T->head);
	free(T->tail);
	free(T->obs);
}

/* Group gi's per-capture figures, zeros where it has none. */
static void table_obs(const struct dtable *T, size_t gi, struct stats_obs *all, size_t ncap)
{
	uint32_t j;

	memset(all, 0, ncap * sizeof(*all));
	for (j = T->head[gi]; j; j = T->obs[j - 1].next)
		all[T->obs[j - 1].cap] = T->obs[j - 1].o;
}

static int load(struct dctx *d, struct capture *C, char *name, uint32_t k,
		struct dtable *T)
{
	struct stall_file *f;

	if (session_open(&C->S, &name, 1))
		return -1;
	C->open = true;
	sym_add_session(&C->S);
	d->C = C;
	if (session_each(&C->S, &d->o->F, capture_one, &sym_lookahead, d))
		return -1;
	if (!C->S.nfiles) {
		errx_("%s: no stall file in it", name);
		return -1;
	}
	f = C->S.files[0];
	fixstr(C->release, f->hdr.release, I915_STALL_RELEASE_LEN);
	fixstr(C->device, f->hdr.device, I915_STALL_NAME_LEN);
	C->c.release = C->release;
	C->c.device = C->device;
	C->c.threshold_ns = f->hdr.threshold_ns;
	/* the session's sums: session_open() refused any that overflows */
	C->c.seen = C->S.seen;
	C->c.lost = session_lost(&C->S);
	obs_of(&C->all, &C->c.all);
	free(C->all.d);
	C->all.d = NULL;
	if (T) {
		table_add(&T[0], &C->sites, k);
		table_add(&T[1], &C->stacks, k);
	}
	return 0;
}

static enum stats_metric stats_metric_of(enum metric m)
{
	return m == M_COUNT ? STATS_COUNT : m == M_P99 ? STATS_P99 : STATS_TOTAL;
}

static int cmp_abs_delta(const void *x, const void *y)
{
	const struct drow *a = x, *b = y;
	double da = fabs(a->r.delta), db = fabs(b->r.delta);

	if (da != db)
		return da > db ? -1 : 1;
	return strcmp(a->key, b->key);
}

static int cmp_row(const void *x, const void *y)
{
	const struct drow *a = x, *b = y;
	int c;

	if (a->r.delta != b->r.delta)
		return a->r.delta > b->r.delta ? -1 : 1;
	c = strcmp(a->kind, b->kind);
	return c ? c : strcmp(a->key, b->key);
}

/* One table's rows: every group compared (no interval), adjusted together;
 * the first `keep` by |delta| then get their interval. */
static int table_rows(struct dtable *T, const struct stats_cfg *cfg, size_t n_old,
		      size_t n_new, struct drow **rows, size_t *nrows, size_t keep)
{
	struct stats_cfg quick = *cfg;
	struct stats_obs *ob = xcalloc(n_old + n_new ? n_old + n_new : 1, sizeof(*ob));
	struct stats_result **pr;
	struct drow *R = xcalloc(T->G.n ? T->G.n : 1, sizeof(*R));
	size_t i;
	int rc = 0;

	quick.resamples = 0;
	for (i = 0; i < T->G.n && !rc; i++) {
		R[i].kind = T->kind;
		R[i].key = T->G.g[i].key;
		table_obs(T, i, ob, n_old + n_new);
		rc = stats_compare(&quick, ob, n_old, ob + n_old, n_new,
				   stats_stream(T->kind, R[i].key), &R[i].r);
	}
	pr = xcalloc(T->G.n ? T->G.n : 1, sizeof(*pr));
	for (i = 0; i < T->G.n; i++)
		pr[i] = &R[i].r;
	if (!rc)
		rc = stats_adjust(cfg, pr, T->G.n);
	free(pr);
	/* the largest changes are shown; their interval is computed now */
	xqsort(R, T->G.n, sizeof(*R), cmp_abs_delta);
	if (keep > T->G.n)
		keep = T->G.n;
	for (i = 0; i < keep && !rc && cfg->resamples; i++) {
		struct stats_result r;
		size_t gi;
		struct group *g = groups_find(&T->G, R[i].key, strlen(R[i].key));

		gi = (size_t)(g - T->G.g);
		table_obs(T, gi, ob, n_old + n_new);
		rc = stats_compare(cfg, ob, n_old, ob + n_old, n_new,
				   stats_stream(T->kind, R[i].key), &r);
		r.q = R[i].r.q;
		r.change = R[i].r.change;
		R[i].r = r;
	}
	free(ob);
	*rows = xreallocarray(*rows, *nrows + keep + 1, sizeof(**rows));
	memcpy(*rows + *nrows, R, keep * sizeof(*R));
	*nrows += keep;
	free(R);
	return rc;
}

int cmd_diff(struct opts *o)
{
	bool bisect = o->verdict;
	bool folded = o->fmt == F_FOLDED || o->fmt == F_SVG;
	size_t n_new = o->nnew >= 0 ? (size_t)o->nnew : 1, n_old, ncap = o->ninputs, i;
	struct capture *C = NULL;
	struct dtable T[2] = { { .kind = "site" },
			       { .kind = o->submitter ? "submitter" : "stack" } };
	struct fagg fold[2];
	struct stats_cfg cfg;
	struct stats_capture *sc = NULL;
	struct stats_verdict_result v;
	struct diff D = { 0 };
	struct dctx d = { .o = o };
	struct out out;
	bool out_ok = false;
	int rc = 0;

	if (o->nnew < 0 && o->ninputs != 2) {
		errx_("diff needs OLD and NEW, or OLD... -- NEW...");
		return bisect ? EXIT_BISECT_ABORT : EXIT_USAGE;
	}
	n_old = ncap - n_new;
	stats_cfg_init(&cfg);
	cfg.metric = stats_metric_of(o->metric);
	cfg.alpha = o->alpha;
	cfg.min_growth = o->min_growth;
	cfg.max_lost_ppm = o->max_lost_ppm;
	cfg.seed = o->seed;
	if (n_old < 2 || n_new < 2)
		cfg.resamples = 0;	/* no interval from one capture */
	D.cfg = &cfg;
	D.n_old = n_old;
	D.n_new = n_new;
	D.metric = o->metric;
	D.submitter = o->submitter;
	if (folded) {
		size_t budget = o->sym.budget ? o->sym.budget : (size_t)SYM_BUDGET_DEFAULT_MB << 20;

		/* the two sides share the budget */
		fagg_init(&fold[0], budget / 2);
		fagg_init(&fold[1], budget / 2);
	}
	/* the verdict groups stacks by their frames' texts; folded and SVG
	 * take their numbers only */
	o->sym.fetch_frames = !folded;
	sym_init(&o->sym);
	C = xcalloc(ncap, sizeof(*C));
	for (i = 0; i < ncap; i++) {
		d.fold = folded ? &fold[i >= n_old] : NULL;
		if (load(&d, &C[i], o->inputs[i], (uint32_t)i, folded ? NULL : T)) {
			if (bisect)
				warnx_("%s: unusable %s capture: %s", o->inputs[i],
				       i < n_old ? "OLD" : "NEW", i < n_old ? "abort" : "skip");
			rc = bisect ? i < n_old ? EXIT_BISECT_ABORT : EXIT_BISECT_SKIP : EXIT_FATAL;
			goto done;
		}
	}
	if (out_open(&out, o->out_path)) {
		rc = bisect ? EXIT_BISECT_ABORT : EXIT_FATAL;
		goto done;
	}
	out_ok = true;
	for (i = 0; i < ncap; i++)
		session_warn_loss(&C[i].S);

	/* the verdict, and the comparison of all stalls */
	sc = xcalloc(ncap, sizeof(*sc));
	for (i = 0; i < ncap; i++)
		sc[i] = C[i].c;
	if (stats_verdict(&cfg, sc, n_old, sc + n_old, n_new, &v)) {
		errx_("diff: %s", strerror(errno));
		rc = bisect ? EXIT_BISECT_ABORT : EXIT_FATAL;
		goto done;
	}
	{
		struct stats_obs *ob = xcalloc(ncap, sizeof(*ob));

		for (i = 0; i < ncap; i++)
			ob[i] = sc[i].all;
		/* stream 0, as stats_verdict(): the same interval as the verdict's */
		rc = stats_compare(&cfg, ob, n_old, ob + n_old, n_new, 0, &D.all);
		free(ob);
		if (rc) {
			errx_("diff: %s", strerror(errno));
			rc = bisect ? EXIT_BISECT_ABORT : EXIT_FATAL;
			goto done;
		}
	}
	if (bisect) {
		char **names = o->inputs;
		char line[512];

		D.verdict = stats_verdict_name(v.verdict);
		D.verdict_exit = stats_verdict_exit(v.verdict);
		D.reasons = xcalloc(v.nreasons + 1, sizeof(*D.reasons));
		for (i = 0; i < v.nreasons && i < STATS_REASONS_MAX; i++) {
			stats_reason_text(line, sizeof(line), &cfg, &v.reason[i], sc,
					  (const char *const *)names, sc + n_old,
					  (const char *const *)names + n_old);
			D.reasons[D.nreasons++] = xstrdup(line);
		}
	}

	if (folded) {
		if (fagg_finish(&fold[0]) || fagg_finish(&fold[1])) {
			rc = bisect ? EXIT_BISECT_ABORT : EXIT_FATAL;
		} else if (o->fmt == F_FOLDED) {
			rc = folded_diff_write(&out, &fold[0], n_old, &fold[1], n_new) ? EXIT_FATAL : 0;
		} else {
			struct svg_info info = {
				.title = "i915 stalls: differential", .stalls = d.stalls,
				.unit = o->weight == W_COUNT ? "stalls" : "us",
			};

			for (i = 0; i < ncap; i++)
				info.lost = add_sat(info.lost, session_lost(&C[i].S));
			rc = svg_diff_write(&out, &fold[0], n_old, &fold[1], n_new, &info) ?
				EXIT_FATAL : 0;
		}
	} else {
		rc = table_rows(&T[0], &cfg, n_old, n_new, &D.rows, &D.n, SIZE_MAX);
		D.nsites = T[0].G.n;
		if (!rc)
			rc = table_rows(&T[1], &cfg, n_old, n_new, &D.rows, &D.n, o->top);
		D.nstacks = T[1].G.n;
		D.stacks_shown = D.n - D.nsites;
		if (rc) {
			errx_("diff: %s", strerror(errno));
			rc = bisect ? EXIT_BISECT_ABORT : EXIT_FATAL;
			goto done;
		}
		xqsort(D.rows, D.n, sizeof(*D.rows), cmp_row);
		if (o->fmt == F_JSON)
			json_diff(&out, &D);
		else
			text_diff(&out, &D);
	}
	if (rc && bisect)
		rc = EXIT_BISECT_ABORT;
	if (out_close(&out)) {
		rc = bisect ? EXIT_BISECT_ABORT : EXIT_FATAL;
	} else if (rc) {
		;
	} else if (bisect) {
		for (i = 0; i < D.nreasons; i++)
			warnx_("%s", D.reasons[i]);
		if (v.tested) {
			struct sbuf t = { 0 };

			diff_effect(&t, o->metric, &v.all);
			warnx_("%zu OLD, %zu NEW captures: %s, U %.1f of %zu, p(NEW higher) %.3g: %s",
			       n_old, n_new, sb_str(&t), v.all.u, n_old * n_new, v.all.p_greater,
			       D.verdict);
			sb_free(&t);
		} else
			warnx_("%s", D.verdict);
		rc = D.verdict_exit;
	} else if (sym_unresolved) {
		rc = EXIT_PARTIAL;	/* as for every command: some frames unresolved */
	}
	out_ok = false;
done:
	if (out_ok)
		out_close(&out);
	free(D.rows);
	for (i = 0; i < D.nreasons; i++)
		free(D.reasons[i]);
	free(D.reasons);
	free(sc);
	table_free(&T[0]);
	table_free(&T[1]);
	if (folded) {
		fagg_free(&fold[0]);
		fagg_free(&fold[1]);
	}
	for (i = 0; C && i < ncap; i++) {
		groups_free(&C[i].sites);
		groups_free(&C[i].stacks);
		free(C[i].all.d);
		if (C[i].open || C[i].S.nin)
			session_close(&C[i].S);
	}
	free(C);
	sb_free(&d.key);
	fstack_free(&d.fold_line);
	sym_cleanup();
	return rc;
}
