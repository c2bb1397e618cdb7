// SPDX-License-Identifier: MIT
/*
 * i915-stalls: statistics of a diff of several captures a side, and the
 * bisect verdict.  See stats.h for the interface and docs/bisect.md for
 * the method and the defaults.
 *
 * Why Mann-Whitney U decides and the bootstrap only measures:
 *
 * - A bisect step has few captures a side (5 to 10).  The exact
 *   distribution of U under "OLD and NEW captures are exchangeable" holds
 *   at any sample size and for any distribution of per-capture totals, so
 *   its false-positive rate is at most the level by construction.  A
 *   bootstrap is only asymptotically right: with 5 to 10 captures a side
 *   and now and then a capture with a burst of stalls, "the interval
 *   excludes 0" is falsely significant up to twice as often as its level
 *   (tests/stats_test.c --table, figures in docs/bisect.md).
 * - U depends on ranks only: one capture with a burst of stalls (a cron
 *   job, a page-cache miss) moves one rank, so it cannot flip a verdict
 *   on its own, while it can move a mean by any amount.
 * - U needs no random numbers: a verdict does not depend on a seed.
 *
 * The effect size stays a difference of means, though: means add up over
 * sites and over the frames of a flame graph, medians do not.  Its
 * interval is a studentized bootstrap over captures (each side resampled
 * with replacement, seeded xoshiro256**), reproducible for a given seed
 * and group name.  The verdict's "large enough" rule uses the Hodges-Lehmann
 * shift (median of all NEW - OLD differences), which is as robust as U.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

void stats_cfg_init(struct stats_cfg *cfg)
{
	cfg->metric = STATS_TOTAL;
	cfg->alpha = STATS_ALPHA_DEFAULT;
	cfg->fdr = STATS_FDR_DEFAULT;
	cfg->level = STATS_LEVEL_DEFAULT;
	cfg->min_growth = STATS_MIN_GROWTH_DEFAULT;
	cfg->max_lost_ppm = STATS_MAX_LOST_PPM_DEFAULT;
	cfg->resamples = STATS_RESAMPLES_DEFAULT;
	cfg->seed = STATS_SEED_DEFAULT;
}

static bool cfg_ok(const struct stats_cfg *cfg)
{
	return cfg->metric <= STATS_P99 && cfg->alpha > 0 && cfg->alpha < 1 &&
	       cfg->fdr > 0 && cfg->fdr < 1 && cfg->level > 0 && cfg->level < 1 &&
	       cfg->min_growth >= 0 && cfg->max_lost_ppm <= 1000000;
}

/* ------------------------------------------------------------ PRNG */

uint64_t stats_stream(const char *kind, const char *key)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a 64 */
	const char *s[2] = { kind ? kind : "", key ? key : "" };
	size_t i;

	for (i = 0; i < 2; i++) {
		const unsigned char *p = (const unsigned char *)s[i];

		do {	/* the NUL too: ("ab", "c") and ("a", "bc") differ */
			h ^= *p;
			h *= 0x100000001b3ull;
		} while (*p++);
	}
	return h;
}

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* xoshiro256** (Blackman and Vigna), seeded through splitmix64. */
struct rng {
	uint64_t s[4];
};

static void rng_init(struct rng *g, uint64_t seed, uint64_t stream)
{
	uint64_t y = stream, x = seed ^ splitmix64(&y);
	int i;

	for (i = 0; i < 4; i++)
		g->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(struct rng *g)
{
	uint64_t *s = g->s;
	uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return r;
}

/* Uniform in [0, n), n > 0, without modulo bias. */
static size_t rng_below(struct rng *g, size_t n)
{
	uint64_t lim = -(uint64_t)n % n, x;	/* 2^64 mod n */

	do
		x = rng_next(g);
	while (x < lim);
	return (size_t)(x % n);
}

/* ------------------------------------------------------------ helpers */

static uint64_t metric_of(const struct stats_obs *o, enum stats_metric m)
{
	return m == STATS_COUNT ? o->count : m == STATS_P99 ? o->p99_ns : o->total_ns;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of n > 0 sorted values. */
static double median_sorted(const double *v, size_t n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Quantile p of n > 0 sorted values, interpolated (Hyndman and Fan type 7). */
static double quantile_sorted(const double *v, size_t n, double p)
{
	double h = (double)(n - 1) * p, f = floor(h);
	size_t i = (size_t)f;

	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (h - f) * (v[i + 1] - v[i]);
}

/* C(n, k) as a double (exact below 2^53). */
static double choose(size_t n, size_t k)
{
	double c = 1;
	size_t i;

	if (k > n)
		return 0;
	if (k > n - k)
		k = n - k;
	for (i = 1; i <= k; i++)
		c = c * (double)(n - k + i) / (double)i;
	return round(c);
}

/* a * b > c * d, exactly, for 64-bit operands. */
static bool prod_gt(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	uint64_t h1, l1, h2, l2;
	uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
	uint64_t cl = c & 0xffffffffu, ch = c >> 32, dl = d & 0xffffffffu, dh = d >> 32;
	uint64_t m1 = ah * bl + ((al * bl) >> 32), m2 = ch * dl + ((cl * dl) >> 32);
	uint64_t n1 = al * bh + (m1 & 0xffffffffu), n2 = cl * dh + (m2 & 0xffffffffu);

	h1 = ah * bh + (m1 >> 32) + (n1 >> 32);
	l1 = a * b;
	h2 = ch * dh + (m2 >> 32) + (n2 >> 32);
	l2 = c * d;
	return h1 != h2 ? h1 > h2 : l1 > l2;
}

/* ------------------------------------------------------------ Mann-Whitney */

struct pooled {
	uint64_t v;
	int side;	/* 0 OLD, 1 NEW */
};

static int cmp_pooled(const void *a, const void *b)
{
	const struct pooled *x = a, *y = b;

	return x->v < y->v ? -1 : x->v > y->v;
}

/*
 * Exact null distribution of the NEW side's sum of doubled midranks
 * (scores: integers), given the ties: the number of n-subsets of the N
 * scores with each sum, by dynamic programming over the scores.  Tail
 * probabilities at w (observed), wmin and wmax (the extremes these scores
 * allow).
 */
static int mw_exact(const uint64_t *score, size_t N, size_t n, uint64_t w,
		    struct stats_result *r)
{
	uint64_t smax = 0, smin = 0;
	size_t S, i, k, s;
	double *f, total = 0, ge = 0, le = 0;

	for (i = 0; i < n; i++) {
		smin += score[i];
		smax += score[N - 1 - i];
	}
	S = (size_t)smax + 1;
	f = calloc((n + 1) * S, sizeof(*f));
	if (!f)
		return -1;
	f[0] = 1;
	for (i = 0; i < N; i++) {
		size_t sc = (size_t)score[i], kmax = i + 1 < n ? i + 1 : n;

		for (k = kmax; k >= 1; k--) {
			double *to = f + k * S, *from = f + (k - 1) * S;

			for (s = S - 1; s >= sc; s--) {
				to[s] += from[s - sc];
				if (s == sc)
					break;
			}
		}
	}
	for (s = (size_t)smin; s < S; s++) {
		double c = f[n * S + s];

		total += c;
		if (s >= w)
			ge += c;
		if (s <= w)
			le += c;
	}
	r->p_greater = ge / total;
	r->p_less = le / total;
	r->p_floor_greater = f[n * S + smax] / total;
	r->p_floor = smin == smax ? 1 :
		fmin(1, 2 * fmin(r->p_floor_greater, f[n * S + smin] / total));
	free(f);
	return 0;
}

/* Upper tail of the standard normal. */
static double norm_sf(double z)
{
	return 0.5 * erfc(z / sqrt(2.0));
}

/*
 * Normal approximation of the rank sum R = w / 2, with the variance
 * corrected for ties and a continuity correction of 1/2.
 */
static void mw_normal(const uint64_t *score, size_t N, size_t n, uint64_t w, double ties,
		      struct stats_result *r)
{
	double m = (double)(N - n), e = (double)n * (double)(N + 1) / 2;
	double var = (double)n * m / 12 *
		     ((double)(N + 1) - ties / ((double)N * (double)(N - 1)));
	double sd = sqrt(var > 0 ? var : 0), rs = (double)w / 2, rmin = 0, rmax = 0, lo;
	size_t i;

	for (i = 0; i < n; i++) {
		rmin += (double)score[i] / 2;
		rmax += (double)score[N - 1 - i] / 2;
	}
	if (!(sd > 0)) {
		r->p_greater = r->p_less = r->p_floor = r->p_floor_greater = 1;
		return;
	}
	r->p_greater = norm_sf((rs - 0.5 - e) / sd);
	r->p_less = norm_sf((e - rs - 0.5) / sd);
	r->p_floor_greater = norm_sf((rmax - 0.5 - e) / sd);
	lo = norm_sf((e - rmin - 0.5) / sd);
	r->p_floor = fmin(1, 2 * fmin(r->p_floor_greater, lo));
}

/* U, the exact or approximate p-values and p_floor of NEW against OLD. */
static int mann_whitney(const uint64_t *xo, size_t n_old, const uint64_t *xn, size_t n_new,
			struct stats_result *r)
{
	size_t N = n_old + n_new, i, j;
	struct pooled *pv = malloc(N * sizeof(*pv));
	uint64_t *score = malloc(N * sizeof(*score)), w = 0;
	double ties = 0;
	int rc = 0;

	if (!pv || !score) {
		free(pv);
		free(score);
		return -1;
	}
	for (i = 0; i < n_old; i++)
		pv[i] = (struct pooled){ xo[i], 0 };
	for (i = 0; i < n_new; i++)
		pv[n_old + i] = (struct pooled){ xn[i], 1 };
	qsort(pv, N, sizeof(*pv), cmp_pooled);
	/* ranks i+1..j of a tie run: doubled midrank i+1+j */
	for (i = 0; i < N; i = j) {
		double t;

		for (j = i + 1; j < N && pv[j].v == pv[i].v; j++)
			;
		t = (double)(j - i);
		ties += t * t * t - t;
		for (size_t k = i; k < j; k++) {
			score[k] = (uint64_t)(i + 1 + j);
			if (pv[k].side)
				w += score[k];
		}
	}
	/* U = R - n(n+1)/2 with R = w / 2 */
	r->u = (double)w / 2 - (double)n_new * (double)(n_new + 1) / 2;
	r->exact = N <= STATS_EXACT_MAX;
	if (r->exact)
		rc = mw_exact(score, N, n_new, w, r);
	else
		mw_normal(score, N, n_new, w, ties, r);
	if (!rc)
		r->p = fmin(1, 2 * fmin(r->p_greater, r->p_less));
	free(pv);
	free(score);
	return rc;
}

/* ------------------------------------------------------------ compare */

/* Mean and unbiased variance (0 for one value). */
static void mean_var(const double *x, size_t n, double *m, double *v)
{
	double s = 0, q = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += x[i];
	*m = s / (double)n;
	for (i = 0; i < n; i++)
		q += (x[i] - *m) * (x[i] - *m);
	*v = n > 1 ? q / (double)(n - 1) : 0;
}

/*
 * Studentized bootstrap (bootstrap-t) interval of mean(NEW) - mean(OLD):
 * each side's captures resampled with replacement, t* = (delta* - delta)
 * / se* with the Welch standard error, and the interval delta - t*_hi se,
 * delta - t*_lo se.  The plain percentile interval covered 86-91% of the
 * time where this one covers 93-96% (5 to 10 captures a side, no bursts;
 * tests/stats_test.c --table).  A resample whose sides are each constant
 * has no se*: its t* counts as 0.
 */
static int bootstrap(const struct stats_cfg *cfg, const double *xo, size_t n_old,
		     const double *xn, size_t n_new, uint64_t stream, struct stats_result *r)
{
	unsigned int b, B = cfg->resamples;
	double *t, *ro, *rn, mo, vo, mn, vn, se, d;
	struct rng g;
	size_t i;
	int rc = -1;

	if (!B) {
		r->ci_lo = r->ci_hi = NAN;
		return 0;
	}
	t = malloc(B * sizeof(*t));
	ro = malloc(n_old * sizeof(*ro));
	rn = malloc(n_new * sizeof(*rn));
	if (!t || !ro || !rn)
		goto out;
	mean_var(xo, n_old, &mo, &vo);
	mean_var(xn, n_new, &mn, &vn);
	se = sqrt(vo / (double)n_old + vn / (double)n_new);
	d = mn - mo;
	rng_init(&g, cfg->seed, stream);
	for (b = 0; b < B; b++) {
		double m1, v1, m2, v2, s;

		for (i = 0; i < n_old; i++)
			ro[i] = xo[rng_below(&g, n_old)];
		for (i = 0; i < n_new; i++)
			rn[i] = xn[rng_below(&g, n_new)];
		mean_var(ro, n_old, &m1, &v1);
		mean_var(rn, n_new, &m2, &v2);
		s = sqrt(v1 / (double)n_old + v2 / (double)n_new);
		t[b] = s > 0 ? ((m2 - m1) - d) / s : 0;
	}
	qsort(t, B, sizeof(*t), cmp_double);
	r->ci_lo = d - quantile_sorted(t, B, (1 + cfg->level) / 2) * se;
	r->ci_hi = d - quantile_sorted(t, B, (1 - cfg->level) / 2) * se;
	rc = 0;
out:
	free(t);
	free(ro);
	free(rn);
	return rc;
}

/* Hodges-Lehmann shift: the median of the n_old * n_new differences. */
static int hodges_lehmann(const double *xo, size_t n_old, const double *xn, size_t n_new,
			  double *shift)
{
	double *d = malloc(n_old * n_new * sizeof(*d));
	size_t i, j, k = 0;

	if (!d)
		return -1;
	for (i = 0; i < n_old; i++)
		for (j = 0; j < n_new; j++)
			d[k++] = xn[j] - xo[i];
	qsort(d, k, sizeof(*d), cmp_double);
	*shift = median_sorted(d, k);
	free(d);
	return 0;
}

int stats_compare(const struct stats_cfg *cfg, const struct stats_obs *old, size_t n_old,
		  const struct stats_obs *new_, size_t n_new, uint64_t stream,
		  struct stats_result *r)
{
	size_t N = n_old + n_new, i;
	uint64_t *x = NULL;
	double *v = NULL, *p99 = NULL, so = 0, sn = 0;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	r->q = NAN;
	if (!cfg_ok(cfg) || !n_old || !n_new || N < n_old) {
		errno = EINVAL;
		return -1;
	}
	r->n_old = n_old;
	r->n_new = n_new;
	x = malloc(N * sizeof(*x));
	v = malloc(N * sizeof(*v));
	p99 = malloc(N * sizeof(*p99));
	if (!x || !v || !p99)
		goto out;
	for (i = 0; i < N; i++) {
		const struct stats_obs *o = i < n_old ? &old[i] : &new_[i - n_old];

		x[i] = metric_of(o, cfg->metric);
		v[i] = (double)x[i];
		p99[i] = (double)o->p99_ns;
		if (i < n_old) {
			so += v[i];
			r->old_count += (double)o->count;
			r->old_total += (double)o->total_ns;
		} else {
			sn += v[i];
			r->new_count += (double)o->count;
			r->new_total += (double)o->total_ns;
		}
	}
	r->old_mean = so / (double)n_old;
	r->new_mean = sn / (double)n_new;
	r->old_count /= (double)n_old;
	r->new_count /= (double)n_new;
	r->old_total /= (double)n_old;
	r->new_total /= (double)n_new;
	r->delta = r->new_mean - r->old_mean;
	if (r->old_mean > 0)
		r->rel = r->delta / r->old_mean;
	else
		r->rel = r->delta > 0 ? INFINITY : r->delta < 0 ? -INFINITY : 0;
	qsort(p99, n_old, sizeof(*p99), cmp_double);
	qsort(p99 + n_old, n_new, sizeof(*p99), cmp_double);
	r->old_p99 = median_sorted(p99, n_old);
	r->new_p99 = median_sorted(p99 + n_old, n_new);

	if (mann_whitney(x, n_old, x + n_old, n_new, r) ||
	    hodges_lehmann(v, n_old, v + n_old, n_new, &r->shift) ||
	    bootstrap(cfg, v, n_old, v + n_old, n_new, stream, r))
		goto out;
	memcpy(p99, v, n_old * sizeof(*v));
	qsort(p99, n_old, sizeof(*p99), cmp_double);
	r->old_median = median_sorted(p99, n_old);
	rc = 0;
out:
	if (rc)
		errno = ENOMEM;
	free(x);
	free(v);
	free(p99);
	return rc;
}

/* ------------------------------------------------------------ adjust */

struct qent {
	double p;
	size_t i;
};

static int cmp_qent(const void *a, const void *b)
{
	const struct qent *x = a, *y = b;

	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

int stats_adjust(const struct stats_cfg *cfg, struct stats_result *const *r, size_t n)
{
	struct qent *e;
	size_t m = 0, i;
	double q = 1;

	if (!cfg_ok(cfg)) {
		errno = EINVAL;
		return -1;
	}
	e = malloc((n ? n : 1) * sizeof(*e));
	if (!e) {
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < n; i++) {
		r[i]->q = NAN;
		r[i]->change = 0;
		if (r[i]->p_floor <= cfg->fdr)
			e[m++] = (struct qent){ r[i]->p, i };
	}
	qsort(e, m, sizeof(*e), cmp_qent);
	/* q_(k) = min over j >= k of m p_(j) / j */
	for (i = m; i-- > 0;) {
		double t = (double)m * e[i].p / (double)(i + 1);
		struct stats_result *x = r[e[i].i];

		if (t < q)
			q = t;
		x->q = q;
		if (q <= cfg->fdr)
			x->change = x->u * 2 > (double)x->n_old * (double)x->n_new ? 1 : -1;
	}
	free(e);
	return 0;
}

/* ------------------------------------------------------------ verdict */

static const char *str_or_empty(const char *s)
{
	return s ? s : "";
}

static void add_reason(struct stats_verdict_result *v, enum stats_why why, enum stats_side side,
		       size_t index, size_t ref, uint64_t a, uint64_t b, uint64_t c)
{
	if (v->nreasons < STATS_REASONS_MAX)
		v->reason[v->nreasons] = (struct stats_reason){ why, side, index, ref, a, b, c };
	v->nreasons++;
}

static void check_side(const struct stats_cfg *cfg, struct stats_verdict_result *v,
		       enum stats_side side, const struct stats_capture *c, size_t n,
		       const struct stats_capture *ref)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (prod_gt(c[i].lost, 1000000, cfg->max_lost_ppm, c[i].seen))
			add_reason(v, STATS_WHY_LOST, side, i, 0, c[i].lost, c[i].seen, 0);
		if (strcmp(str_or_empty(c[i].release), str_or_empty(c[0].release)))
			add_reason(v, STATS_WHY_RELEASE, side, i, 0, 0, 0, 0);
		if (strcmp(str_or_empty(c[i].device), str_or_empty(ref->device)))
			add_reason(v, STATS_WHY_DEVICE, side, i, 0, 0, 0, 0);
		if (c[i].threshold_ns != ref->threshold_ns)
			add_reason(v, STATS_WHY_THRESHOLD, side, i, 0, c[i].threshold_ns,
				   ref->threshold_ns, 0);
		if (!c[i].all.count)
			add_reason(v, STATS_WHY_NO_STALLS, side, i, 0, 0, 0, 0);
	}
}

int stats_verdict(const struct stats_cfg *cfg, const struct stats_capture *old, size_t n_old,
		  const struct stats_capture *new_, size_t n_new, struct stats_verdict_result *v)
{
	struct stats_obs *o;
	size_t i, need = 1;
	bool abort_ = false;
	int rc;

	memset(v, 0, sizeof(*v));
	v->all.q = NAN;
	if (!cfg_ok(cfg)) {
		errno = EINVAL;
		return -1;
	}
	/* captures a side the exact test needs to reach alpha without ties */
	while (1 / choose(2 * need, need) > cfg->alpha)
		need++;
	if (!n_old || !n_new ||
	    (n_old + n_new <= STATS_EXACT_MAX && 1 / choose(n_old + n_new, n_new) > cfg->alpha)) {
		add_reason(v, STATS_WHY_TOO_FEW, STATS_NEW, 0, 0, n_old, n_new, need);
		abort_ = true;
	}
	if (n_old)
		check_side(cfg, v, STATS_OLD, old, n_old, &old[0]);
	for (i = 0; i < v->nreasons && i < STATS_REASONS_MAX; i++)
		if (v->reason[i].side == STATS_OLD)
			abort_ = true;
	if (n_old && n_new)
		check_side(cfg, v, STATS_NEW, new_, n_new, &old[0]);
	if (abort_ || v->nreasons) {
		v->verdict = abort_ ? STATS_ABORT : STATS_SKIP;
		return 0;
	}

	o = malloc((n_old + n_new) * sizeof(*o));
	if (!o) {
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < n_old + n_new; i++)
		o[i] = i < n_old ? old[i].all : new_[i - n_old].all;
	rc = stats_compare(cfg, o, n_old, o + n_old, n_new, 0, &v->all);
	free(o);
	if (rc)
		return -1;
	v->tested = true;
	v->verdict = v->all.p_greater <= cfg->alpha && v->all.shift > 0 &&
		     v->all.shift >= cfg->min_growth * v->all.old_median ? STATS_BAD : STATS_GOOD;
	return 0;
}

int stats_verdict_exit(enum stats_verdict v)
{
	switch (v) {
	case STATS_GOOD:
		return 0;
	case STATS_BAD:
		return 1;
	case STATS_SKIP:
		return 125;
	case STATS_ABORT:
		break;
	}
	return 128;
}

const char *stats_verdict_name(enum stats_verdict v)
{
	static const char *const n[] = { "good", "bad", "skip", "abort" };

	return (unsigned int)v < 4 ? n[v] : "abort";
}

const char *stats_why_name(enum stats_why why)
{
	static const char *const n[] = { "lost", "release", "device", "threshold", "no-stalls",
					 "too-few" };

	return (unsigned int)why < 6 ? n[why] : "?";
}

int stats_reason_text(char *buf, size_t len, const struct stats_cfg *cfg,
		      const struct stats_reason *r, const struct stats_capture *old,
		      const char *const *old_names, const struct stats_capture *new_,
		      const char *const *new_names)
{
	const struct stats_capture *c = r->side == STATS_OLD ? old : new_;
	const char *const *names = r->side == STATS_OLD ? old_names : new_names;
	const char *sname = r->side == STATS_OLD ? "OLD" : "NEW";
	char me[64], ref[64];
	const char *mp = me, *rp = ref;

	if (names) {
		mp = names[r->index];
		rp = names[r->ref];
	} else {
		snprintf(me, sizeof(me), "%s capture %zu", sname, r->index + 1);
		snprintf(ref, sizeof(ref), "%s capture %zu", sname, r->ref + 1);
	}
	if (r->why == STATS_WHY_DEVICE || r->why == STATS_WHY_THRESHOLD) {
		if (old_names)
			rp = old_names[0];
		else
			rp = "OLD capture 1";
	}
	switch (r->why) {
	case STATS_WHY_LOST:
		return snprintf(buf, len, "%s: lost %.2f%% of its stalls (%llu of %llu), more than "
				"%.2f%%", mp, 100.0 * (double)r->a / (double)r->b,
				(unsigned long long)r->a, (unsigned long long)r->b,
				(double)cfg->max_lost_ppm / 1e4);
	case STATS_WHY_RELEASE:
		return snprintf(buf, len, "%s: kernel %s, but %s is from kernel %s", mp,
				str_or_empty(c[r->index].release), rp,
				str_or_empty(c[r->ref].release));
	case STATS_WHY_DEVICE:
		return snprintf(buf, len, "%s: device %s, but %s is of device %s", mp,
				str_or_empty(c[r->index].device), rp, str_or_empty(old[0].device));
	case STATS_WHY_THRESHOLD:
		return snprintf(buf, len, "%s: recorded with threshold %llu us, but %s with %llu us",
				mp, (unsigned long long)(r->a / 1000), rp,
				(unsigned long long)(r->b / 1000));
	case STATS_WHY_NO_STALLS:
		return snprintf(buf, len, "%s: no stalls to compare", mp);
	case STATS_WHY_TOO_FEW:
		return snprintf(buf, len, "%llu OLD and %llu NEW captures cannot reach alpha %g; "
				"take at least %llu a side", (unsigned long long)r->a,
				(unsigned long long)r->b, cfg->alpha, (unsigned long long)r->c);
	}
	return snprintf(buf, len, "?");
}
