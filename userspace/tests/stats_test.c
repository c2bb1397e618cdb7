// SPDX-License-Identifier: MIT
/*
 * Tests of src/stats.c: exact values where they are exact (U, p-values
 * against brute-force enumeration, effect sizes, BH q-values, the verdict
 * and the text of each skip reason), and rates over many seeds of
 * synthetic captures (false positives at the stated level, detection at a
 * stated effect size, family-wise errors over many groups).
 *
 *   stats_test            one "ok NAME" / "not ok NAME" line per check,
 *                         exit 1 if any failed
 *   stats_test --table    also the tables of docs/bisect.md
 *
 * The synthetic captures are generated here, independently of stats.c:
 * own PRNG (splitmix64), Poisson stall counts with a capture-to-capture
 * load factor, lognormal durations, and now and then a capture with a
 * burst of long stalls (the "noisy capture" of a bisect step).
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

/* ------------------------------------------------------------ harness */

static int npass, nfail;

struct t {
	const char *name;
	int bad;
};

static void t_begin(struct t *t, const char *name)
{
	t->name = name;
	t->bad = 0;
}

static void t_end(struct t *t)
{
	printf("%s %s\n", t->bad ? "not ok" : "ok", t->name);
	if (t->bad)
		nfail++;
	else
		npass++;
	fflush(stdout);
}

static void t_fail(struct t *t, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void t_fail(struct t *t, int line, const char *fmt, ...)
{
	va_list ap;

	t->bad++;
	printf("#   line %d: ", line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

#define EXPECT(t, cond, ...) do {					\
		if (!(cond))						\
			t_fail((t), __LINE__, __VA_ARGS__);		\
	} while (0)
#define EXPECT_EQ(t, got, want) EXPECT(t, (got) == (want), "%s = %.17g, want %.17g", \
				       #got, (double)(got), (double)(want))
#define EXPECT_NEAR(t, got, want, tol) EXPECT(t, fabs((double)(got) - (double)(want)) <= (tol), \
					      "%s = %.17g, want %.17g +- %g", #got,	\
					      (double)(got), (double)(want), (double)(tol))

/* ------------------------------------------------------------ test PRNG */

struct trng {
	uint64_t x;
};

static uint64_t tr_next(struct trng *g)
{
	uint64_t z = (g->x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double tr_unif(struct trng *g)	/* (0, 1) */
{
	return ((double)(tr_next(g) >> 11) + 0.5) / 9007199254740992.0;
}

static double tr_normal(struct trng *g)
{
	double u = tr_unif(g), v = tr_unif(g);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* Poisson(lambda): arrivals of a unit-rate process in [0, lambda]. */
static uint64_t tr_poisson(struct trng *g, double lambda)
{
	double s = 0;
	uint64_t k = 0;

	for (;;) {
		s += -log(tr_unif(g));
		if (s > lambda)
			return k;
		k++;
	}
}

/* ------------------------------------------------------------ synthetic captures */

#define MAXG 32

struct model {
	size_t groups;
	double lambda[MAXG];	/* mean stalls per capture in each group */
	double mu, sigma;	/* durations: lognormal, median exp(mu) ns */
	double tau;		/* load factor of a capture: lognormal, sd tau */
	double p_out;		/* chance that a capture has a burst */
	double burst;		/* a burst: lambda/4 more stalls, burst times longer */
};

static void model_default(struct model *m)
{
	memset(m, 0, sizeof(*m));
	m->groups = 1;
	m->lambda[0] = 200;
	m->mu = log(2e6);	/* 2 ms */
	m->sigma = 0.5;
	m->tau = 0.1;
	m->p_out = 0.05;
	m->burst = 4;
}

/* Expected total ns of one capture of group gi (effect 0). */
static double model_mean_total(const struct model *m, size_t gi)
{
	double ed = exp(m->mu + m->sigma * m->sigma / 2);
	double ek = m->lambda[gi] * exp(m->tau * m->tau / 2);

	return ek * ed + m->p_out * (m->lambda[gi] / 4) * m->burst * ed;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t *dbuf;
static size_t dcap;

static void fill_obs(struct stats_obs *o, uint64_t *d, size_t k)
{
	size_t i;

	o->count = k;
	o->total_ns = 0;
	for (i = 0; i < k; i++)
		o->total_ns += d[i];
	qsort(d, k, sizeof(*d), cmp_u64);
	o->p99_ns = k ? d[(size_t)ceil(0.99 * (double)k) - 1] : 0;	/* nearest rank */
}

static void push(uint64_t v, size_t *n)
{
	if (*n == dcap) {
		dcap = dcap ? 2 * dcap : 4096;
		dbuf = realloc(dbuf, dcap * sizeof(*dbuf));
		if (!dbuf)
			abort();
	}
	dbuf[(*n)++] = v;
}

/*
 * One capture: per group (effect[g]: durations scaled by 1 + effect) and
 * all groups together.
 */
static void gen_capture(struct trng *g, const struct model *m, const double *effect,
			struct stats_obs *per_group, struct stats_obs *all)
{
	double load = exp(m->tau * tr_normal(g));
	bool out = tr_unif(g) < m->p_out;
	size_t gi, n = 0, start;

	for (gi = 0; gi < m->groups; gi++) {
		double scale = 1 + (effect ? effect[gi] : 0);
		uint64_t k = tr_poisson(g, m->lambda[gi] * load), i;

		start = n;
		for (i = 0; i < k; i++)
			push((uint64_t)(scale * exp(m->mu + m->sigma * tr_normal(g))), &n);
		if (out) {
			k = tr_poisson(g, m->lambda[gi] / 4);
			for (i = 0; i < k; i++)
				push((uint64_t)(scale * m->burst *
						exp(m->mu + m->sigma * tr_normal(g))), &n);
		}
		if (per_group) {
			uint64_t *cp = malloc((n - start + 1) * sizeof(*cp));

			if (!cp)
				abort();
			memcpy(cp, dbuf + start, (n - start) * sizeof(*cp));
			fill_obs(&per_group[gi], cp, n - start);
			free(cp);
		}
	}
	fill_obs(all, dbuf, n);
}

static struct stats_capture cap_of(struct stats_obs all)
{
	return (struct stats_capture){ "6.12.0", "0000:00:02.0", 1000000, all.count, 0, all };
}

/* ------------------------------------------------------------ references */

/*
 * Brute force over every way to pick the NEW captures out of the pooled
 * ones: U counted pair by pair (doubled, so a tie is 1), nothing shared
 * with stats.c's midranks and dynamic programming.
 */
struct brute {
	double pg, pl, pfloor, pfloor_g, u;
};

static uint64_t u2_of(const uint64_t *v, size_t N, uint32_t mask)
{
	uint64_t u2 = 0;
	size_t i, j;

	for (j = 0; j < N; j++)
		if (mask & (1u << j))
			for (i = 0; i < N; i++)
				if (!(mask & (1u << i)))
					u2 += v[j] > v[i] ? 2 : v[j] == v[i] ? 1 : 0;
	return u2;
}

static void brute_mw(const uint64_t *xo, size_t no, const uint64_t *xn, size_t nn,
		     struct brute *b)
{
	uint64_t v[24], obs, mx = 0, mn = UINT64_MAX;
	size_t N = no + nn, i;
	uint32_t mask, omask = 0;
	double ge = 0, le = 0, tot = 0, cmx = 0, cmn = 0;

	for (i = 0; i < no; i++)
		v[i] = xo[i];
	for (i = 0; i < nn; i++) {
		v[no + i] = xn[i];
		omask |= 1u << (no + i);
	}
	obs = u2_of(v, N, omask);
	for (mask = 0; mask < (1u << N); mask++) {
		uint64_t u2;

		if ((size_t)__builtin_popcount(mask) != nn)
			continue;
		u2 = u2_of(v, N, mask);
		tot++;
		ge += u2 >= obs;
		le += u2 <= obs;
		if (u2 > mx) {
			mx = u2;
			cmx = 0;
		}
		if (u2 == mx)
			cmx++;
		if (u2 < mn) {
			mn = u2;
			cmn = 0;
		}
		if (u2 == mn)
			cmn++;
	}
	b->u = (double)obs / 2;
	b->pg = ge / tot;
	b->pl = le / tot;
	b->pfloor_g = cmx / tot;
	b->pfloor = mx == mn ? 1 : fmin(1, 2 * fmin(cmx, cmn) / tot);
}

/* Exact P(U >= u) without ties, by the recurrence on (n, m). */
static double *ucount;
static size_t uc_n, uc_m;

static double ucnt(size_t n, size_t m, long u)
{
	size_t umax = uc_n * uc_m + 1;
	double *c;

	if (u < 0 || (size_t)u > n * m)
		return 0;
	if (!n || !m)
		return u == 0;
	c = &ucount[(n * (uc_m + 1) + m) * umax + (size_t)u];
	if (*c < 0)	/* the largest NEW value is NEW's (m pairs won) or OLD's */
		*c = ucnt(n - 1, m, u - (long)m) + ucnt(n, m - 1, u);
	return *c;
}

/* P(U >= u) for n NEW, m OLD, continuous values. */
static double exact_ge(size_t n, size_t m, double u)
{
	size_t sz = (n + 1) * (m + 1) * (n * m + 1), i;
	double ge = 0, tot = 0;
	long k;

	uc_n = n;
	uc_m = m;
	ucount = malloc(sz * sizeof(*ucount));
	if (!ucount)
		abort();
	for (i = 0; i < sz; i++)
		ucount[i] = -1;
	for (k = 0; k <= (long)(n * m); k++) {
		double c = ucnt(n, m, k);

		tot += c;
		if ((double)k >= u - 1e-9)
			ge += c;
	}
	free(ucount);
	return ge / tot;
}

/* Largest P(U >= u) <= alpha: the size of the exact one-sided test. */
static double exact_size(size_t n, size_t m, double alpha)
{
	double u, best = 0;

	for (u = (double)(n * m); u >= 0; u--) {
		double p = exact_ge(n, m, u);

		if (p > alpha)
			break;
		best = p;
	}
	return best;
}

static double binom_sd(double p, double n)
{
	return sqrt(p * (1 - p) / n);
}

/* ------------------------------------------------------------ exact checks */

static struct stats_obs ob(uint64_t total)
{
	return (struct stats_obs){ 1, total, total };
}

static void compare_totals(const struct stats_cfg *c, const uint64_t *xo, size_t no,
			   const uint64_t *xn, size_t nn, struct stats_result *r)
{
	struct stats_obs o[64], n[64];
	size_t i;

	for (i = 0; i < no; i++)
		o[i] = ob(xo[i]);
	for (i = 0; i < nn; i++)
		n[i] = ob(xn[i]);
	if (stats_compare(c, o, no, n, nn, 7, r)) {
		perror("stats_compare");
		exit(2);
	}
}

static void test_u_and_tables(void)
{
	struct stats_cfg c;
	struct stats_result r;
	struct t t;

	stats_cfg_init(&c);
	t_begin(&t, "stats_mw_exact_tables");
	/* n = m = 3, NEW all above: U = 9, P = 1 / C(6,3) */
	compare_totals(&c, (uint64_t[]){ 1, 2, 3 }, 3, (uint64_t[]){ 4, 5, 6 }, 3, &r);
	EXPECT_EQ(&t, r.u, 9);
	EXPECT_EQ(&t, r.p_greater, 1.0 / 20);
	EXPECT_EQ(&t, r.p_less, 1);
	EXPECT_EQ(&t, r.p, 0.1);
	EXPECT_EQ(&t, r.p_floor, 0.1);
	EXPECT(&t, r.exact, "exact");
	/* n = m = 5, NEW all above: P = 1 / 252 */
	compare_totals(&c, (uint64_t[]){ 10, 11, 12, 13, 14 }, 5,
		       (uint64_t[]){ 20, 21, 22, 23, 24 }, 5, &r);
	EXPECT_EQ(&t, r.u, 25);
	EXPECT_EQ(&t, r.p_greater, 1.0 / 252);
	EXPECT_EQ(&t, r.p, 2.0 / 252);
	/* n = m = 5, two pairs won by NEW: U = 2, P(U <= 2) = 4 / 252 (tables) */
	compare_totals(&c, (uint64_t[]){ 10, 20, 30, 40, 50 }, 5,
		       (uint64_t[]){ 1, 2, 3, 4, 25 }, 5, &r);
	EXPECT_EQ(&t, r.u, 2);
	EXPECT_NEAR(&t, r.p_less * 252, 4, 1e-9);
	EXPECT_NEAR(&t, r.p_greater * 252, 252 - 2, 1e-9);	/* all but U = 0, 1 */
	/* unbalanced: 2 OLD, 4 NEW interleaved */
	compare_totals(&c, (uint64_t[]){ 2, 5 }, 2, (uint64_t[]){ 1, 3, 4, 6 }, 4, &r);
	EXPECT_EQ(&t, r.u, 4);	/* 3>2, 4>2, 6>2, 6>5 */
	EXPECT_NEAR(&t, r.p_greater * 15, 9, 1e-9);	/* U >= 4 in 9 of C(6,2) = 15 */
	t_end(&t);
}

static void test_bruteforce(void)
{
	struct stats_cfg c;
	struct t t;
	struct trng g = { 42 };
	int k;

	stats_cfg_init(&c);
	t_begin(&t, "stats_mw_exact_vs_enumeration_with_ties");
	for (k = 0; k < 400; k++) {
		uint64_t xo[8], xn[8];
		size_t no = 1 + tr_next(&g) % 7, nn = 1 + tr_next(&g) % 7, i;
		uint64_t range = 1 + tr_next(&g) % 6;	/* small range: many ties */
		struct stats_result r;
		struct brute b;

		for (i = 0; i < no; i++)
			xo[i] = tr_next(&g) % range;
		for (i = 0; i < nn; i++)
			xn[i] = tr_next(&g) % range;
		compare_totals(&c, xo, no, xn, nn, &r);
		brute_mw(xo, no, xn, nn, &b);
		EXPECT(&t, r.u == b.u && fabs(r.p_greater - b.pg) < 1e-12 &&
		       fabs(r.p_less - b.pl) < 1e-12 && fabs(r.p_floor - b.pfloor) < 1e-12 &&
		       fabs(r.p_floor_greater - b.pfloor_g) < 1e-12,
		       "case %d (%zu old, %zu new, range %llu): u %g/%g pg %g/%g pl %g/%g "
		       "floor %g/%g floor_g %g/%g", k, no, nn, (unsigned long long)range, r.u, b.u,
		       r.p_greater, b.pg, r.p_less, b.pl, r.p_floor, b.pfloor,
		       r.p_floor_greater, b.pfloor_g);
		if (t.bad > 5)
			break;
	}
	t_end(&t);
}

static void test_normal(void)
{
	struct stats_cfg c;
	struct t t;
	struct trng g = { 7 };
	int k;

	stats_cfg_init(&c);
	t_begin(&t, "stats_mw_normal_approximation_above_exact_max");
	for (k = 0; k < 20; k++) {
		uint64_t xo[16], xn[16];
		size_t i;
		struct stats_result r;
		double want;

		for (i = 0; i < 16; i++) {
			xo[i] = tr_next(&g) % 1000000;
			xn[i] = tr_next(&g) % 1000000 + (uint64_t)k * 30000;
		}
		compare_totals(&c, xo, 16, xn, 16, &r);	/* 32 > STATS_EXACT_MAX */
		want = exact_ge(16, 16, r.u);
		EXPECT(&t, !r.exact, "32 captures: normal approximation");
		EXPECT(&t, fabs(r.p_greater - want) <= 0.003, "u %g: p_greater %g, exact %g", r.u,
		       r.p_greater, want);
	}
	t_end(&t);
}

static void test_effect(void)
{
	struct stats_cfg c;
	struct stats_result r;
	struct stats_obs o[3] = { { 10, 100, 30 }, { 20, 200, 10 }, { 30, 300, 20 } };
	struct stats_obs n[4] = { { 5, 400, 50 }, { 5, 500, 70 }, { 5, 600, 60 }, { 9, 700, 80 } };
	struct t t;

	stats_cfg_init(&c);
	t_begin(&t, "stats_effect_size_exact");
	if (stats_compare(&c, o, 3, n, 4, 1, &r))
		abort();
	EXPECT_EQ(&t, r.n_old, 3);
	EXPECT_EQ(&t, r.n_new, 4);
	EXPECT_EQ(&t, r.old_mean, 200);
	EXPECT_EQ(&t, r.new_mean, 550);
	EXPECT_EQ(&t, r.delta, 350);
	EXPECT_EQ(&t, r.rel, 1.75);
	EXPECT_EQ(&t, r.shift, 350);	/* median of {100..600}: 300 and 400 -> 350 */
	EXPECT_EQ(&t, r.old_median, 200);
	EXPECT_EQ(&t, r.old_count, 20);
	EXPECT_EQ(&t, r.new_count, 6);
	EXPECT_EQ(&t, r.old_total, 200);
	EXPECT_EQ(&t, r.new_total, 550);
	EXPECT_EQ(&t, r.old_p99, 20);
	EXPECT_EQ(&t, r.new_p99, 65);
	EXPECT_EQ(&t, r.u, 12);
	EXPECT_EQ(&t, r.p_greater, 1.0 / 35);
	EXPECT(&t, r.ci_lo > 0 && r.ci_lo <= r.delta && r.delta <= r.ci_hi, "ci [%g, %g]",
	       r.ci_lo, r.ci_hi);
	/* the interval's extremes are the extremes of the resampled means */
	EXPECT(&t, r.ci_lo >= 400 - 300 && r.ci_hi <= 700 - 100, "ci [%g, %g]", r.ci_lo, r.ci_hi);
	EXPECT(&t, isnan(r.q) && r.change == 0, "q NAN before stats_adjust");

	/* the metric chosen: counts */
	c.metric = STATS_COUNT;
	if (stats_compare(&c, o, 3, n, 4, 1, &r))
		abort();
	EXPECT_EQ(&t, r.old_mean, 20);
	EXPECT_EQ(&t, r.new_mean, 6);
	EXPECT_EQ(&t, r.delta, -14);
	EXPECT_EQ(&t, r.rel, -0.7);
	EXPECT_EQ(&t, r.u, 0);
	EXPECT_EQ(&t, r.p_less, 1.0 / 35);
	EXPECT_EQ(&t, r.old_total, 200);	/* descriptive: the same whatever the metric */
	/* and p99 */
	c.metric = STATS_P99;
	if (stats_compare(&c, o, 3, n, 4, 1, &r))
		abort();
	EXPECT_EQ(&t, r.old_mean, 20);
	EXPECT_EQ(&t, r.new_mean, 65);
	EXPECT_EQ(&t, r.shift, 45);	/* differences 20..70, median of 12: 40 and 50 */
	t_end(&t);

	t_begin(&t, "stats_effect_size_zeros");
	stats_cfg_init(&c);
	{
		struct stats_obs z[3] = { { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 } };
		struct stats_obs y[3] = { { 1, 5, 5 }, { 0, 0, 0 }, { 2, 9, 7 } };

		if (stats_compare(&c, z, 3, z, 3, 1, &r))
			abort();
		EXPECT_EQ(&t, r.delta, 0);
		EXPECT_EQ(&t, r.rel, 0);
		EXPECT_EQ(&t, r.p, 1);
		EXPECT_EQ(&t, r.p_floor, 1);	/* all tied: untestable */
		EXPECT_EQ(&t, r.ci_lo, 0);
		EXPECT_EQ(&t, r.ci_hi, 0);
		if (stats_compare(&c, z, 3, y, 3, 1, &r))
			abort();
		EXPECT(&t, isinf(r.rel) && r.rel > 0, "rel %g", r.rel);
		EXPECT_EQ(&t, r.u, 2 * 3 + 1.5);	/* 5 and 9 beat three zeros, 0 ties three */
		/* zeros tied: 4 of the 6 captures, NEW on top only as {x, 5, 9} */
		EXPECT_EQ(&t, r.p_floor_greater, 4.0 / 20);
	}
	t_end(&t);
}

static void test_bootstrap(void)
{
	struct stats_cfg c;
	struct stats_result a, b;
	struct stats_obs o[5] = { { 1, 1003, 1 }, { 1, 1310, 1 }, { 1, 907, 1 }, { 1, 1651, 1 },
				  { 1, 1229, 1 } };
	struct stats_obs n[5] = { { 1, 1502, 1 }, { 1, 1733, 1 }, { 1, 1418, 1 }, { 1, 2117, 1 },
				  { 1, 1871, 1 } };
	struct stats_obs k1[3] = { { 1, 100, 1 }, { 1, 100, 1 }, { 1, 100, 1 } };
	struct stats_obs k2[2] = { { 1, 150, 1 }, { 1, 150, 1 } };
	struct t t;

	stats_cfg_init(&c);
	t_begin(&t, "stats_bootstrap_seeded_and_exact");
	if (stats_compare(&c, o, 5, n, 5, stats_stream("site", "gem_wait"), &a) ||
	    stats_compare(&c, o, 5, n, 5, stats_stream("site", "gem_wait"), &b))
		abort();
	EXPECT(&t, a.ci_lo == b.ci_lo && a.ci_hi == b.ci_hi, "same seed and stream: same CI");
	if (stats_compare(&c, o, 5, n, 5, stats_stream("site", "fence_wait"), &b))
		abort();
	EXPECT(&t, a.ci_lo != b.ci_lo || a.ci_hi != b.ci_hi, "another stream: another CI");
	c.seed = 99;
	if (stats_compare(&c, o, 5, n, 5, stats_stream("site", "gem_wait"), &b))
		abort();
	EXPECT(&t, a.ci_lo != b.ci_lo || a.ci_hi != b.ci_hi, "another seed: another CI");
	EXPECT(&t, stats_stream("ab", "c") != stats_stream("a", "bc"), "stream keys separated");
	EXPECT(&t, stats_stream("site", "x") == stats_stream("site", "x"), "stream is a function");
	/* constant sides: every resample gives the same difference */
	stats_cfg_init(&c);
	if (stats_compare(&c, k1, 3, k2, 2, 5, &a))
		abort();
	EXPECT_EQ(&t, a.ci_lo, 50);
	EXPECT_EQ(&t, a.ci_hi, 50);
	c.resamples = 0;
	if (stats_compare(&c, o, 5, n, 5, 5, &a))
		abort();
	EXPECT(&t, isnan(a.ci_lo) && isnan(a.ci_hi), "no resamples: no interval");
	t_end(&t);
}

static struct stats_result mkres(double p, double pfloor, double u)
{
	struct stats_result r;

	memset(&r, 0, sizeof(r));
	r.p = p;
	r.p_floor = pfloor;
	r.u = u;
	r.n_old = r.n_new = 4;
	return r;
}

static void test_adjust(void)
{
	struct stats_cfg c;
	struct stats_result r[6];
	struct stats_result *rp[6];
	struct t t;
	size_t i;

	stats_cfg_init(&c);
	t_begin(&t, "stats_adjust_benjamini_hochberg_exact");
	r[0] = mkres(0.04, 0.001, 16);
	r[1] = mkres(0.001, 0.001, 16);
	r[2] = mkres(0.03, 0.001, 0);
	r[3] = mkres(0.2, 0.001, 12);
	r[4] = mkres(0.01, 0.001, 14);
	r[5] = mkres(1, 0.5, 8);	/* cannot reach 0.05: left out, m = 5 */
	for (i = 0; i < 6; i++)
		rp[i] = &r[i];
	if (stats_adjust(&c, rp, 6))
		abort();
	/* sorted p: .001 .01 .03 .04 .2; m p / k: .005 .025 .05 .05 .2 */
	EXPECT_NEAR(&t, r[1].q, 0.005, 1e-15);
	EXPECT_NEAR(&t, r[4].q, 0.025, 1e-15);
	EXPECT_NEAR(&t, r[2].q, 0.05, 1e-15);
	EXPECT_NEAR(&t, r[0].q, 0.05, 1e-15);
	EXPECT_NEAR(&t, r[3].q, 0.2, 1e-15);
	EXPECT(&t, isnan(r[5].q), "untestable group: q NAN, got %g", r[5].q);
	EXPECT_EQ(&t, r[1].change, 1);
	EXPECT_EQ(&t, r[2].change, -1);	/* u 0 of 16: shrank */
	EXPECT_EQ(&t, r[0].change, 1);
	EXPECT_EQ(&t, r[3].change, 0);
	EXPECT_EQ(&t, r[5].change, 0);
	/* step-up: a p above its own threshold is carried by a later one */
	r[0] = mkres(0.02, 0.001, 16);	/* 2 * .02 / 1 = .04 */
	r[1] = mkres(0.03, 0.001, 16);	/* 2 * .03 / 2 = .03 */
	if (stats_adjust(&c, rp, 2))
		abort();
	EXPECT_NEAR(&t, r[0].q, 0.03, 1e-15);
	EXPECT_NEAR(&t, r[1].q, 0.03, 1e-15);
	EXPECT(&t, stats_adjust(&c, rp, 0) == 0, "empty family");
	t_end(&t);
}

/* ------------------------------------------------------------ verdict checks */

static struct stats_capture cap(const char *rel, const char *dev, uint64_t thr, uint64_t seen,
				uint64_t lost, uint64_t total)
{
	return (struct stats_capture){ rel, dev, thr, seen, lost, { total ? 10 : 0, total, 0 } };
}

static enum stats_verdict run_verdict(const struct stats_cfg *c, const struct stats_capture *o,
				      size_t no, const struct stats_capture *n, size_t nn,
				      struct stats_verdict_result *v)
{
	if (stats_verdict(c, o, no, n, nn, v)) {
		perror("stats_verdict");
		exit(2);
	}
	return v->verdict;
}

static void reason_is(struct t *t, int line, const struct stats_verdict_result *v, size_t k,
		      enum stats_why why, enum stats_side side, size_t index)
{
	if (k >= v->nreasons) {
		t_fail(t, line, "reason %zu missing (%zu reasons)", k, v->nreasons);
		return;
	}
	if (v->reason[k].why != why || v->reason[k].side != side || v->reason[k].index != index)
		t_fail(t, line, "reason %zu: %s side %d index %zu, want %s side %d index %zu", k,
		       stats_why_name(v->reason[k].why), v->reason[k].side, v->reason[k].index,
		       stats_why_name(why), side, index);
}

static void text_is(struct t *t, int line, const struct stats_cfg *c,
		    const struct stats_verdict_result *v, size_t k, const struct stats_capture *o,
		    const char *const *on, const struct stats_capture *n, const char *const *nn,
		    const char *want)
{
	char buf[256];

	stats_reason_text(buf, sizeof(buf), c, &v->reason[k], o, on, n, nn);
	if (strcmp(buf, want))
		t_fail(t, line, "reason text \"%s\", want \"%s\"", buf, want);
}

static void test_verdict_skips(void)
{
	static const char *const on[] = { "old.1", "old.2", "old.3", "old.4", "old.5" };
	static const char *const nn[] = { "new.1", "new.2", "new.3", "new.4", "new.5" };
	const char *R = "6.12.0", *D = "0000:00:02.0";
	struct stats_capture o[5], n[5];
	struct stats_verdict_result v;
	struct stats_cfg c;
	struct t t;
	size_t i;

	stats_cfg_init(&c);
	for (i = 0; i < 5; i++) {
		o[i] = cap(R, D, 1000000, 1000, 0, 100 + i);
		n[i] = cap("6.12.0-bisect", D, 1000000, 1000, 0, 200 + i);
	}

	t_begin(&t, "stats_verdict_exit_codes");
	EXPECT_EQ(&t, stats_verdict_exit(STATS_GOOD), 0);
	EXPECT_EQ(&t, stats_verdict_exit(STATS_BAD), 1);
	EXPECT_EQ(&t, stats_verdict_exit(STATS_SKIP), 125);
	EXPECT_EQ(&t, stats_verdict_exit(STATS_ABORT), 128);
	EXPECT(&t, !strcmp(stats_verdict_name(STATS_SKIP), "skip"), "name");
	EXPECT(&t, !strcmp(stats_why_name(STATS_WHY_NO_STALLS), "no-stalls"), "why name");
	t_end(&t);

	t_begin(&t, "stats_verdict_clean_bad_and_good");
	EXPECT_EQ(&t, run_verdict(&c, o, 5, n, 5, &v), STATS_BAD);
	EXPECT_EQ(&t, v.nreasons, 0);
	EXPECT(&t, v.tested, "tested");
	EXPECT_EQ(&t, v.all.u, 25);
	EXPECT_EQ(&t, v.all.p_greater, 1.0 / 252);
	EXPECT_EQ(&t, v.all.delta, 100);
	EXPECT_EQ(&t, stats_verdict_exit(v.verdict), 1);
	/* the same captures as NEW and OLD: good */
	EXPECT_EQ(&t, run_verdict(&c, o, 5, o, 5, &v), STATS_GOOD);
	EXPECT_EQ(&t, v.all.u, 12.5);
	EXPECT_EQ(&t, v.all.delta, 0);
	/* shrinkage is good too */
	EXPECT_EQ(&t, run_verdict(&c, n, 5, o, 5, &v), STATS_GOOD);
	EXPECT_EQ(&t, v.all.u, 0);
	t_end(&t);

	t_begin(&t, "stats_verdict_lost_threshold_exact");
	n[2].lost = 10;	/* 10 of 1000 = 1%: not more than 1% */
	EXPECT_EQ(&t, run_verdict(&c, o, 5, n, 5, &v), STATS_BAD);
	n[2].lost = 11;
	EXPECT_EQ(&t, run_verdict(&c, o, 5, n, 5, &v), STATS_SKIP);
	EXPECT_EQ(&t, v.nreasons, 1);
	reason_is(&t, __LINE__, &v, 0, STATS_WHY_LOST, STATS_NEW, 2);
	EXPECT_EQ(&t, v.reason[0].a, 11);
	EXPECT_EQ(&t, v.reason[0].b, 1000);
	EXPECT(&t, !v.tested, "not tested");
	text_is(&t, __LINE__, &c, &v, 0, o, on, n, nn,
		"new.3: lost 1.10% of its stalls (11 of 1000), more than 1.00%");
	text_is(&t, __LINE__, &c, &v, 0, o, NULL, n, NULL,
		"NEW capture 3: lost 1.10% of its stalls (11 of 1000), more than 1.00%");
	c.max_lost_ppm = 20000;
	EXPECT_EQ(&t, run_verdict(&c, o, 5, n, 5, &v), STATS_BAD);
	c.max_lost_ppm = 0;	/* no loss allowed */
	n[2].lost = 1;
	EXPECT_EQ(&t, run_verdict(&c, o, 5, n, 5, &v), STATS_SKIP);
	/* huge counts: exact products, no overflow */
	n[2].seen = UINT64_MAX;
	n[2].lost = UINT64_MAX / 100;	/* 1% minus a little */
	c.max_lost_ppm = 10000;
	EXPECT_EQ(&t, run_verdict(&c, o, 5, n, 5, &v), STATS_BAD);
	n[2].lost = UINT64_MAX / 100 + 1;	/* just over */
	EXPECT_EQ(&t, run_verdict(&c, o, 5, n, 5, &v), STATS_SKIP);
	n[2].seen = 1000;
	n[2].lost = 0;
	stats_cfg_init(&c);
	t_end(&t);

	t_begin(&t, "stats_verdict_skip_release");
	n[4].release = "6.12.0";
	EXPECT_EQ(&t, run_verdict(&c, o, 5, n, 5, &v), STATS_SKIP);
	EXPECT_EQ(&t, v.nreasons, 1);
	reason_is(&t, __LINE__, &v, 0, STATS_WHY_RELEASE, STATS_NEW, 4);
	text_is(&t, __LINE__, &c, &v, 0, o, on, n, nn,
		"new.5: kernel 6.12.0, but new.1 is from kernel 6.12.0-bisect");
	n[4].release = "6.12.0-bisect";
	/* OLD and NEW on other releases is what bisecting is: no reason */
	EXPECT_EQ(&t, run_verdict(&c, o, 5, n, 5, &v), STATS_BAD);
	t_end(&t);

	t_begin(&t, "stats_verdict_skip_device");
	n[0].device = "0000:03:00.0";
	EXPECT_EQ(&t, run_verdict(&c, o, 5, n, 5, &v), STATS_SKIP);
	EXPECT_EQ(&t, v.nreasons, 1);
	reason_is(&t, __LINE__, &v, 0, STATS_WHY_DEVICE, STATS_NEW, 0);
	text_is(&t, __LINE__, &c, &v, 0, o, on, n, nn,
		"new.1: device 0000:03:00.0, but old.1 is of device 0000:00:02.0");
	n[0].device = D;
	t_end(&t);

	t_begin(&t, "stats_verdict_skip_threshold");
	n[1].threshold_ns = 500000;
	EXPECT_EQ(&t, run_verdict(&c, o, 5, n, 5, &v), STATS_SKIP);
	reason_is(&t, __LINE__, &v, 0, STATS_WHY_THRESHOLD, STATS_NEW, 1);
	text_is(&t, __LINE__, &c, &v, 0, o, on, n, nn,
		"new.2: recorded with threshold 500 us, but old.1 with 1000 us");
	n[1].threshold_ns = 1000000;
	t_end(&t);

	t_begin(&t, "stats_verdict_skip_no_stalls");
	n[3].all.count = 0;
	n[3].all.total_ns = 0;
	EXPECT_EQ(&t, run_verdict(&c, o, 5, n, 5, &v), STATS_SKIP);
	reason_is(&t, __LINE__, &v, 0, STATS_WHY_NO_STALLS, STATS_NEW, 3);
	text_is(&t, __LINE__, &c, &v, 0, o, on, n, nn, "new.4: no stalls to compare");
	n[3] = cap("6.12.0-bisect", D, 1000000, 1000, 0, 203);
	t_end(&t);

	t_begin(&t, "stats_verdict_abort_on_reference");
	o[1].lost = 500;
	n[0].all.count = 0;
	EXPECT_EQ(&t, run_verdict(&c, o, 5, n, 5, &v), STATS_ABORT);
	EXPECT_EQ(&t, stats_verdict_exit(v.verdict), 128);
	EXPECT_EQ(&t, v.nreasons, 2);	/* both sides reported */
	reason_is(&t, __LINE__, &v, 0, STATS_WHY_LOST, STATS_OLD, 1);
	reason_is(&t, __LINE__, &v, 1, STATS_WHY_NO_STALLS, STATS_NEW, 0);
	text_is(&t, __LINE__, &c, &v, 0, o, on, n, nn,
		"old.2: lost 50.00% of its stalls (500 of 1000), more than 1.00%");
	o[1].lost = 0;
	n[0].all.count = 10;
	o[3].release = "6.11.0";
	EXPECT_EQ(&t, run_verdict(&c, o, 5, n, 5, &v), STATS_ABORT);
	reason_is(&t, __LINE__, &v, 0, STATS_WHY_RELEASE, STATS_OLD, 3);
	o[3].release = R;
	t_end(&t);

	t_begin(&t, "stats_verdict_too_few_captures");
	/* alpha 0.05: 2 a side, 1 / C(4, 2) = 1/6 */
	EXPECT_EQ(&t, run_verdict(&c, o, 2, n, 2, &v), STATS_ABORT);
	EXPECT_EQ(&t, v.nreasons, 1);
	reason_is(&t, __LINE__, &v, 0, STATS_WHY_TOO_FEW, STATS_NEW, 0);
	EXPECT_EQ(&t, v.reason[0].c, 3);	/* 1 / C(6, 3) = 0.05 */
	text_is(&t, __LINE__, &c, &v, 0, o, on, n, nn,
		"2 OLD and 2 NEW captures cannot reach alpha 0.05; take at least 3 a side");
	EXPECT_EQ(&t, run_verdict(&c, o, 3, n, 3, &v), STATS_BAD);	/* p = 1/20 */
	EXPECT_EQ(&t, v.all.p_greater, 0.05);
	EXPECT_EQ(&t, run_verdict(&c, o, 2, n, 4, &v), STATS_ABORT);	/* 1/15 */
	EXPECT_EQ(&t, run_verdict(&c, o, 2, n, 5, &v), STATS_BAD);	/* 1/21 */
	/* alpha 0.01: 4 a side, 1 / C(8, 4) = 1/70 */
	c.alpha = 0.01;
	EXPECT_EQ(&t, run_verdict(&c, o, 4, n, 4, &v), STATS_ABORT);
	EXPECT_EQ(&t, v.reason[0].c, 5);	/* 1 / C(10, 5) = 1/252 */
	/* 3 OLD and 5 NEW: C(8, 3) = 56 < 100; 4 and 5: C(9, 4) = 126 */
	EXPECT_EQ(&t, run_verdict(&c, o, 3, n, 5, &v), STATS_ABORT);
	EXPECT_EQ(&t, run_verdict(&c, o, 4, n, 5, &v), STATS_BAD);
	EXPECT_EQ(&t, run_verdict(&c, o, 0, n, 4, &v), STATS_ABORT);
	EXPECT_EQ(&t, v.nreasons, 1);
	stats_cfg_init(&c);
	t_end(&t);

	t_begin(&t, "stats_verdict_many_reasons_counted");
	for (i = 0; i < 5; i++)
		n[i].all.count = 0;
	for (i = 0; i < 5; i++)
		n[i].threshold_ns = 1;
	EXPECT_EQ(&t, run_verdict(&c, o, 5, n, 5, &v), STATS_SKIP);
	EXPECT_EQ(&t, v.nreasons, 10);
	reason_is(&t, __LINE__, &v, 9, STATS_WHY_NO_STALLS, STATS_NEW, 4);
	t_end(&t);

	t_begin(&t, "stats_einval");
	c.alpha = 0;
	EXPECT(&t, stats_verdict(&c, o, 5, n, 5, &v) == -1, "alpha 0");
	stats_cfg_init(&c);
	{
		struct stats_result r;

		EXPECT(&t, stats_compare(&c, &o[0].all, 0, &n[0].all, 1, 0, &r) == -1,
		       "no OLD capture");
		c.level = 1;
		EXPECT(&t, stats_compare(&c, &o[0].all, 1, &n[0].all, 1, 0, &r) == -1, "level 1");
	}
	t_end(&t);
}

static void test_verdict_noise(void)
{
	struct stats_cfg c;
	struct stats_verdict_result v;
	struct stats_capture o[8], n[8];
	struct t t;
	size_t i;

	stats_cfg_init(&c);
	t_begin(&t, "stats_verdict_one_noisy_capture_does_not_flip");
	/* 6 a side interleaved, one NEW capture 100 times the others */
	for (i = 0; i < 6; i++) {
		o[i] = cap("a", "d", 1, 10, 0, 100 + 2 * i);
		n[i] = cap("b", "d", 1, 10, 0, i == 5 ? 10000 : 101 + 2 * i);
	}
	EXPECT_EQ(&t, run_verdict(&c, o, 6, n, 6, &v), STATS_GOOD);
	EXPECT_EQ(&t, v.all.u, 21);	/* 1 + 2 + 3 + 4 + 5 + 6 */
	EXPECT_EQ(&t, v.all.delta, (10525.0 - 630) / 6);	/* the mean grew 16 times */
	EXPECT_NEAR(&t, v.all.p_greater * 924, 323, 1e-6);	/* U_old <= 15: 323 of C(12, 6) */
	EXPECT_EQ(&t, v.all.shift, 1);	/* Hodges-Lehmann barely moves */
	/* one noisy OLD capture does not hide a regression */
	for (i = 0; i < 6; i++) {
		o[i].all.total_ns = i == 5 ? 10000 : 100 + 2 * i;
		n[i].all.total_ns = 200 + i;
	}
	EXPECT_EQ(&t, run_verdict(&c, o, 6, n, 6, &v), STATS_BAD);
	EXPECT_EQ(&t, v.all.u, 30);
	EXPECT_NEAR(&t, v.all.p_greater * 924, 30, 1e-6);	/* U_old <= 6: 30 ways */
	EXPECT(&t, v.all.delta < 0, "mean fell: delta %g", v.all.delta);
	EXPECT_EQ(&t, v.all.shift, 97.5);
	EXPECT_EQ(&t, v.all.old_median, 105);
	/* at alpha 0.01 that takes 8 a side: 6 give U_old <= 6 at 30/924 */
	c.alpha = 0.01;
	EXPECT_EQ(&t, run_verdict(&c, o, 6, n, 6, &v), STATS_GOOD);
	for (i = 0; i < 8; i++) {
		o[i] = cap("a", "d", 1, 10, 0, i == 7 ? 10000 : 100 + 2 * i);
		n[i] = cap("b", "d", 1, 10, 0, 200 + i);
	}
	EXPECT_EQ(&t, run_verdict(&c, o, 8, n, 8, &v), STATS_BAD);
	EXPECT_NEAR(&t, v.all.p_greater * 12870, 67, 1e-6);	/* U_old <= 8: 67 ways */
	stats_cfg_init(&c);
	t_end(&t);

	t_begin(&t, "stats_verdict_min_growth");
	for (i = 0; i < 6; i++) {
		o[i] = cap("a", "d", 1, 10, 0, 1000 + i);
		n[i] = cap("b", "d", 1, 10, 0, 1020 + i);	/* +2%, fully separated */
	}
	EXPECT_EQ(&t, run_verdict(&c, o, 6, n, 6, &v), STATS_GOOD);
	EXPECT_EQ(&t, v.all.p_greater, 1.0 / 924);
	EXPECT_EQ(&t, v.all.shift, 20);
	c.min_growth = 0.0199;	/* 20 >= 0.0199 * 1002.5 */
	EXPECT_EQ(&t, run_verdict(&c, o, 6, n, 6, &v), STATS_BAD);
	c.min_growth = 0.02;	/* 20 < 20.05 */
	EXPECT_EQ(&t, run_verdict(&c, o, 6, n, 6, &v), STATS_GOOD);
	t_end(&t);
}

/* ------------------------------------------------------------ rates */

struct rates {
	double bad, coverage, boot_fp;
};

/*
 * S bisect steps of no NEW and no OLD captures from the model, NEW with
 * durations times 1 + effect.  Rates of STATS_BAD, of intervals holding
 * the true delta, and of "bootstrap interval above 0" (the test we did
 * not choose).
 */
static struct rates sim(const struct stats_cfg *c, const struct model *m, size_t no, size_t nn,
			double effect, size_t S, uint64_t seed)
{
	struct rates rt = { 0, 0, 0 };
	double truth = effect * model_mean_total(m, 0), eff[MAXG] = { effect };
	size_t s, i;

	for (s = 0; s < S; s++) {
		struct trng g = { seed * 1000003 + s };
		struct stats_capture o[64], n[64];
		struct stats_obs all;
		struct stats_verdict_result v;

		for (i = 0; i < no; i++) {
			gen_capture(&g, m, NULL, NULL, &all);
			o[i] = cap_of(all);
		}
		for (i = 0; i < nn; i++) {
			gen_capture(&g, m, eff, NULL, &all);
			n[i] = cap_of(all);
		}
		if (stats_verdict(c, o, no, n, nn, &v) || !v.tested)
			abort();
		rt.bad += v.verdict == STATS_BAD;
		rt.coverage += v.all.ci_lo <= truth && truth <= v.all.ci_hi;
		rt.boot_fp += v.all.ci_lo > 0;
	}
	rt.bad /= (double)S;
	rt.coverage /= (double)S;
	rt.boot_fp /= (double)S;
	return rt;
}

/* The rate over S seeds must lie within 3 binomial sd of the bounds. */
static void rate_within(struct t *t, int line, const char *what, double rate, double lo,
			double hi, double S)
{
	double tl = lo > 0 ? lo - 3 * binom_sd(lo, S) : 0, th = hi < 1 ? hi + 3 * binom_sd(hi, S) : 1;

	if (rate < tl || rate > th)
		t_fail(t, line, "%s %.4f outside [%.4f, %.4f]", what, rate, tl, th);
}

static void test_rates(bool table)
{
	struct stats_cfg c;
	struct model m, clean;
	struct rates rt;
	struct t t;
	const size_t S = 2000;
	double size;
	int k;

	model_default(&m);
	clean = m;
	clean.p_out = 0;

	/* the test's own level, without the min-growth rule: the exact size */
	for (k = 0; k < 2; k++) {
		stats_cfg_init(&c);
		c.alpha = k ? 0.01 : 0.05;
		c.min_growth = 0;
		c.resamples = 0;
		size = exact_size(6, 6, c.alpha);
		t_begin(&t, k ? "stats_false_positive_rate_alpha_0.01" :
			"stats_false_positive_rate_alpha_0.05");
		rt = sim(&c, &m, 6, 6, 0, S, 1 + (uint64_t)k);
		printf("# 6+6 captures, alpha %.2f, no min growth: false positives %.4f over %zu "
		       "seeds (exact size %.4f)\n", c.alpha, rt.bad, S, size);
		rate_within(&t, __LINE__, "false positives", rt.bad, size, c.alpha, (double)S);
		t_end(&t);
	}

	t_begin(&t, "stats_false_positive_rate_default_cfg");
	stats_cfg_init(&c);
	c.resamples = 0;
	rt = sim(&c, &m, 8, 8, 0, S, 3);
	printf("# 8+8 captures, defaults (alpha %.2f, min growth %.0f%%): false positives %.4f\n",
	       c.alpha, 100 * c.min_growth, rt.bad);
	rate_within(&t, __LINE__, "false positives", rt.bad, 0, c.alpha, (double)S);
	t_end(&t);

	t_begin(&t, "stats_detection_rate_plus_50_percent_8_captures");
	stats_cfg_init(&c);
	c.resamples = 0;
	rt = sim(&c, &m, 8, 8, 0.5, S, 4);
	printf("# 8+8 captures, defaults, +50%% stall time: detected %.4f (stated: >= 0.95)\n",
	       rt.bad);
	rate_within(&t, __LINE__, "detection", rt.bad, 0.95, 1, (double)S);
	rt = sim(&c, &clean, 8, 8, 0.3, S, 5);
	printf("# 8+8 captures, defaults, +30%%, no noisy captures: detected %.4f "
	       "(stated: >= 0.95)\n", rt.bad);
	rate_within(&t, __LINE__, "detection", rt.bad, 0.95, 1, (double)S);
	t_end(&t);

	t_begin(&t, "stats_interval_coverage");
	stats_cfg_init(&c);
	c.resamples = 1000;
	rt = sim(&c, &clean, 6, 6, 0.3, S, 6);
	printf("# 6+6 captures, +30%%, no noisy captures: %.0f%% interval covers the true delta "
	       "in %.4f (stated: >= 0.94)\n", 100 * c.level, rt.coverage);
	rate_within(&t, __LINE__, "coverage", rt.coverage, 0.94, 1, (double)S);
	rt = sim(&c, &m, 6, 6, 0.3, S, 7);
	printf("# 6+6 captures, +30%%, 5%% noisy captures: covers in %.4f (stated: >= 0.90)\n",
	       rt.coverage);
	rate_within(&t, __LINE__, "coverage", rt.coverage, 0.90, 1, (double)S);
	t_end(&t);

	if (table) {
		static const size_t ns[] = { 5, 6, 8, 10 };
		static const double effs[] = { 0, 0.1, 0.2, 0.3, 0.5 }, alphas[] = { 0.01, 0.05 };
		size_t a, b, ai;

		printf("# table: rate of 'bad', 1000 seeds each; model: %.0f stalls a capture, "
		       "lognormal median %.0f us sigma %.1f, load sd %.2f, %.0f%% noisy captures "
		       "(+%.0f%% stalls %.0fx as long)\n", m.lambda[0], exp(m.mu) / 1000, m.sigma,
		       m.tau, 100 * m.p_out, 25.0, m.burst);
		for (ai = 0; ai < 2; ai++) {
			printf("# alpha %.2f, min growth 5%%; captures a side | effect:", alphas[ai]);
			for (b = 0; b < sizeof(effs) / sizeof(*effs); b++)
				printf(" %+4.0f%%", 100 * effs[b]);
			printf("\n");
			for (a = 0; a < sizeof(ns) / sizeof(*ns); a++) {
				printf("# %zu", ns[a]);
				for (b = 0; b < sizeof(effs) / sizeof(*effs); b++) {
					stats_cfg_init(&c);
					c.alpha = alphas[ai];
					c.resamples = 0;
					rt = sim(&c, &m, ns[a], ns[a], effs[b], 1000,
						 10 + a * 10 + b);
					printf(" %.3f", rt.bad);
				}
				printf("\n");
			}
		}
		printf("# coverage of the 95%% interval at +30%% / \"interval above 0\" under "
		       "no change (nominal 0.025):\n");
		for (a = 0; a < sizeof(ns) / sizeof(*ns); a++) {
			stats_cfg_init(&c);
			c.resamples = 1000;
			rt = sim(&c, &m, ns[a], ns[a], 0.3, 1000, 100 + a);
			printf("# %zu coverage %.3f", ns[a], rt.coverage);
			rt = sim(&c, &m, ns[a], ns[a], 0, 1000, 200 + a);
			printf(" above-0 %.3f\n", rt.boot_fp);
		}
	}
}

/*
 * Many groups, none changed: how often is any flagged?  BH under the
 * complete null bounds that by the FDR; without an adjustment 20 groups
 * at 0.05 would flag one in most steps.
 */
static void test_groups(void)
{
	struct stats_cfg c;
	struct model m;
	struct t t;
	const size_t S = 1000, G = 20, NO = 8, NN = 8;
	size_t s, i, gi, any = 0, raw = 0, found = 0;

	model_default(&m);
	m.groups = G;
	for (gi = 0; gi < G; gi++)
		m.lambda[gi] = 10 + 3 * (double)gi;
	stats_cfg_init(&c);
	c.resamples = 0;
	t_begin(&t, "stats_groups_family_wise_false_positives");
	for (s = 0; s < 2 * S; s++) {
		struct trng g = { 777 + s };
		static struct stats_obs po[64][MAXG], pn[64][MAXG];
		struct stats_obs all, o[64], n[64];
		struct stats_result r[MAXG], *rp[MAXG];
		double eff[MAXG] = { 0 };
		size_t flagged = 0, rawf = 0;
		bool changed = s >= S;	/* second half: the last group grows by 60% */

		if (changed)
			eff[G - 1] = 0.6;
		for (i = 0; i < NO; i++)
			gen_capture(&g, &m, NULL, po[i], &all);
		for (i = 0; i < NN; i++)
			gen_capture(&g, &m, eff, pn[i], &all);
		for (gi = 0; gi < G; gi++) {
			for (i = 0; i < NO; i++)
				o[i] = po[i][gi];
			for (i = 0; i < NN; i++)
				n[i] = pn[i][gi];
			if (stats_compare(&c, o, NO, n, NN, gi, &r[gi]))
				abort();
			rp[gi] = &r[gi];
		}
		if (stats_adjust(&c, rp, G))
			abort();
		for (gi = 0; gi < G; gi++) {
			if (gi == G - 1 && changed) {
				found += r[gi].change == 1;
				continue;
			}
			flagged += r[gi].change != 0;
			rawf += r[gi].p <= c.fdr;
		}
		if (!changed) {
			any += flagged > 0;
			raw += rawf > 0;
		}
	}
	printf("# %zu groups, 8+8 captures, %zu steps with no change: some group flagged in %.4f "
	       "(unadjusted p <= %.2f: %.4f); %zu steps with the last one +60%%: found in %.4f "
	       "(stated: >= 0.5)\n", G, S, (double)any / (double)S, c.fdr, (double)raw / (double)S,
	       S, (double)found / (double)S);
	rate_within(&t, __LINE__, "family-wise false positives", (double)any / (double)S, 0,
		    c.fdr, (double)S);
	rate_within(&t, __LINE__, "changed group found", (double)found / (double)S, 0.5, 1,
		    (double)S);
	t_end(&t);
}

int main(int argc, char **argv)
{
	bool table = argc > 1 && !strcmp(argv[1], "--table");

	test_u_and_tables();
	test_bruteforce();
	test_normal();
	test_effect();
	test_bootstrap();
	test_adjust();
	test_verdict_skips();
	test_verdict_noise();
	test_rates(table);
	test_groups();
	free(dbuf);
	printf("%d passed, %d failed\n", npass, nfail);
	return nfail ? 1 : 0;
}
