// SPDX-License-Identifier: MIT
/*
 * i915-stalls diff OLD NEW: per wait site and per user stack, the count,
 * total and p99 on each side, sorted by the growth of the total; with
 * --threshold, the exit status is a verdict for git bisect run.
 *
 * The sides are joined by hash: each side's groups are keyed by their text
 * (the stack's frame names root first), and each group of one side is
 * looked up in the other's table, so the join is linear in the groups and
 * the rows' sort is the n log n part.  Issue 15 extends this to several
 * captures per side.
 */
#include <stdlib.h>
#include <string.h>

#include "options.h"

struct side {
	struct session S;
	struct groups sites, stacks;
	struct group all;
	struct sbuf key;
	bool open;
};

static int side_one(void *ctx, const struct stall *s, const struct srec *r)
{
	struct side *d = ctx;
	struct sstall ss;

	sym_stall(s, r, &ss);
	site_key(&d->key, r->site);
	group_add(groups_get(&d->sites, sb_str(&d->key), d->key.len), r);
	/* the runs have other addresses: unresolved frames merge */
	group_add(stack_group(&d->stacks, &ss, false, &d->key), r);
	group_add(&d->all, r);
	return 0;
}

static int side_load(struct side *d, struct opts *o, char *name)
{
	if (session_open(&d->S, &name, 1))
		return -1;
	d->open = true;
	sym_add_session(&d->S);
	return session_each(&d->S, &o->F, side_one, d) ? -1 : 0;
}

static void side_free(struct side *d)
{
	groups_free(&d->sites);
	groups_free(&d->stacks);
	free(d->all.d);
	sb_free(&d->key);
	session_close(&d->S);
}

static int64_t growth(const struct group *a, const struct group *b)
{
	__int128 g = (__int128)(b ? b->total : 0) - (__int128)(a ? a->total : 0);

	return g > INT64_MAX ? INT64_MAX : g < INT64_MIN ? INT64_MIN : (int64_t)g;
}

/* rows: OLD's groups with their NEW match, then NEW's without an OLD one */
static void join(struct diff *D, const char *kind, struct groups *A, struct groups *B)
{
	size_t i;

	D->rows = xreallocarray(D->rows, D->n + A->n + B->n, sizeof(*D->rows));
	for (i = 0; i < A->n; i++) {
		struct drow *r = &D->rows[D->n++];

		r->kind = kind;
		r->key = A->g[i].key;
		r->a = &A->g[i];
		r->b = groups_find(B, A->g[i].key, A->g[i].key_len);
		r->growth_ns = growth(r->a, r->b);
	}
	for (i = 0; i < B->n; i++) {
		struct drow *r;

		if (groups_find(A, B->g[i].key, B->g[i].key_len))
			continue;
		r = &D->rows[D->n++];
		r->kind = kind;
		r->key = B->g[i].key;
		r->a = NULL;
		r->b = &B->g[i];
		r->growth_ns = growth(NULL, r->b);
	}
}

static int cmp_row(const void *x, const void *y)
{
	const struct drow *a = x, *b = y;
	int c;

	if (a->growth_ns != b->growth_ns)
		return a->growth_ns > b->growth_ns ? -1 : 1;
	c = strcmp(a->kind, b->kind);
	return c ? c : strcmp(a->key, b->key);
}

static double metric_of(struct group *all, enum metric m)
{
	if (m == M_COUNT)
		return (double)all->n;
	if (m == M_P99)
		return (double)group_pct(all, 99);
	return (double)all->total;
}

int cmd_diff(struct opts *o)
{
	bool bisect = o->threshold >= 0;
	struct side A = { 0 }, B = { 0 };
	struct diff D = { 0 };
	struct out out;
	double ma, mb;
	int rc = 0;

	if (o->ninputs != 2) {
		errx_("diff needs OLD and NEW");
		return bisect ? EXIT_BISECT_ABORT : EXIT_USAGE;
	}
	sym_init(&o->sym);
	if (side_load(&A, o, o->inputs[0])) {
		rc = bisect ? EXIT_BISECT_ABORT : EXIT_FATAL;
		goto done;
	}
	if (side_load(&B, o, o->inputs[1])) {
		rc = bisect ? EXIT_BISECT_SKIP : EXIT_FATAL;
		goto done;
	}
	if (out_open(&out, o->out_path)) {
		rc = bisect ? EXIT_BISECT_ABORT : EXIT_FATAL;
		goto done;
	}
	session_warn_loss(&A.S);
	session_warn_loss(&B.S);
	D.SA = &A.S;
	D.SB = &B.S;
	D.metric = o->metric;
	join(&D, "site", &A.sites, &B.sites);
	join(&D, "stack", &A.stacks, &B.stacks);
	xqsort(D.rows, D.n, sizeof(*D.rows), cmp_row);
	D.all_a = A.all;
	D.all_b = B.all;
	ma = metric_of(&A.all, o->metric);
	mb = metric_of(&B.all, o->metric);
	D.growth_pct = ma ? 100.0 * (mb - ma) / ma : mb ? 1e9 : 0;
	if (o->fmt == F_JSON)
		json_diff(&out, &D);
	else
		text_diff(&out, &D);
	A.all = D.all_a;	/* the percentile sorted it */
	B.all = D.all_b;
	if (out_close(&out)) {
		rc = bisect ? EXIT_BISECT_ABORT : EXIT_FATAL;
	} else if (bisect) {
		if (!B.all.n) {
			warnx_("%s: no stalls: cannot judge (skip)", o->inputs[1]);
			rc = EXIT_BISECT_SKIP;
		} else {
			rc = D.growth_pct > o->threshold ? 1 : 0;
			infox("growth %.2f%% %s threshold %.2f%%", D.growth_pct, rc ? ">" : "<=",
			      o->threshold);
		}
	} else if (sym_unresolved) {
		rc = EXIT_PARTIAL;	/* as for every command: some frames unresolved */
	}
done:
	free(D.rows);
	if (A.open || A.S.nin)
		side_free(&A);
	if (B.open || B.S.nin)
		side_free(&B);
	sym_cleanup();
	return rc;
}
