/* SPDX-License-Identifier: MIT */
/*
 * i915-stalls: the statistics of a diff of several captures a side, and
 * the bisect verdict.  Plain C11: no global state, no I/O; the only
 * allocation is scratch memory inside a call.  docs/bisect.md explains the
 * method; in short:
 *
 * - Per group (a site, a user stack, or all stalls), each capture gives one
 *   value of the metric (total stall ns by default).  The effect size is
 *   the change of its mean per capture, NEW minus OLD, in ns per capture.
 * - Its interval is a studentized bootstrap over captures (seeded
 *   xoshiro256**, so the same input gives the same interval).
 * - The test is Mann-Whitney U on the per-capture values, exact (given
 *   ties) up to STATS_EXACT_MAX captures in all.  It decides; the interval
 *   only says how large.
 * - Many groups: Benjamini-Hochberg over the groups that could reach the
 *   level at all (stats_adjust()).
 * - The verdict: skip or abort reasons over per-capture summaries, then a
 *   one-sided test of all stalls (stats_verdict()).
 */
#ifndef I915_STALLS_STATS_H
#define I915_STALLS_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Defaults, documented in docs/bisect.md. */
#define STATS_ALPHA_DEFAULT		0.05	/* verdict: one-sided level */
#define STATS_FDR_DEFAULT		0.05	/* groups: false discovery rate */
#define STATS_LEVEL_DEFAULT		0.95	/* confidence level of intervals */
#define STATS_MIN_GROWTH_DEFAULT	0.05	/* verdict: bad from +5% of OLD's mean */
#define STATS_MAX_LOST_PPM_DEFAULT	10000	/* skip a capture that lost > 1% */
#define STATS_RESAMPLES_DEFAULT		2000	/* bootstrap resamples */
#define STATS_SEED_DEFAULT		0x1915u	/* bootstrap seed */
/* Exact null distribution up to this many captures in all, else normal. */
#define STATS_EXACT_MAX			30

/* What the test and the effect size are computed on. */
enum stats_metric {
	STATS_TOTAL,	/* total stall ns of the capture (default) */
	STATS_COUNT,	/* stalls in the capture */
	STATS_P99,	/* 99th percentile stall duration of the capture, ns */
};

/* One capture's figures for one group (zeros where it has no stall). */
struct stats_obs {
	uint64_t count;		/* stalls */
	uint64_t total_ns;	/* sum of their durations */
	uint64_t p99_ns;	/* 99th percentile of their durations, 0 if none */
};

struct stats_cfg {
	enum stats_metric metric;
	double alpha;		/* verdict level, one-sided, in (0, 1) */
	double fdr;		/* stats_adjust(): false discovery rate, in (0, 1) */
	double level;		/* interval confidence, in (0, 1) */
	double min_growth;	/* verdict: bad only if delta >= min_growth * OLD mean */
	uint32_t max_lost_ppm;	/* verdict: a capture may lose this many per million */
	unsigned int resamples;	/* bootstrap resamples; 0: no interval (NAN) */
	uint64_t seed;		/* bootstrap seed */
};

/* The comparison of one group. */
struct stats_result {
	size_t n_old, n_new;	/* captures a side */
	double old_mean;	/* mean per capture of the metric, OLD */
	double new_mean;	/* the same, NEW */
	double delta;		/* new_mean - old_mean: the effect size */
	double rel;		/* delta / old_mean; +-INFINITY if old_mean is 0 */
				/* and delta is not; 0 if both are 0 */
	double ci_lo, ci_hi;	/* bootstrap-t interval of delta at cfg->level, */
				/* NAN if cfg->resamples is 0 */
	double shift;		/* Hodges-Lehmann: median of the n_old * n_new */
				/* differences new - old (robust effect size) */
	double old_median;	/* median of OLD's per-capture values */
	double u;		/* Mann-Whitney U of NEW: pairs (old, new) with */
				/* new > old, a tie counting 1/2; 0..n_old*n_new */
	double p_greater;	/* P(U >= u) if OLD and NEW are exchangeable */
	double p_less;		/* P(U <= u) */
	double p;		/* two-sided: min(1, 2 * min(p_greater, p_less)) */
	double p_floor;		/* smallest two-sided p these values allow */
				/* (all captures tied: 1) */
	double p_floor_greater;	/* the same one-sided (NEW on top) */
	bool exact;		/* p from the exact distribution, not normal */
	/* set by stats_adjust() */
	double q;		/* BH-adjusted p; NAN if left out of the family */
	int change;		/* +1 grew, -1 shrank (q <= fdr), else 0 */
	/* descriptive, whatever the metric */
	double old_count, new_count;	/* mean stalls per capture */
	double old_total, new_total;	/* mean total ns per capture */
	double old_p99, new_p99;	/* median over captures of each one's p99 */
};

void stats_cfg_init(struct stats_cfg *cfg);

/*
 * A 64-bit stream number for the bootstrap of group @key of kind @kind
 * (FNV-1a): the interval of a group then depends on its name and on
 * cfg->seed, not on the order in which groups are compared.
 */
uint64_t stats_stream(const char *kind, const char *key);

/*
 * Compare the @n_old OLD and @n_new NEW captures of one group (every
 * capture of each side, with zeros where the group has no stall).
 * Returns 0, or -1 with errno EINVAL (no capture on a side, a bad cfg) or
 * ENOMEM.  r->q is NAN and r->change 0 until stats_adjust().
 */
int stats_compare(const struct stats_cfg *cfg, const struct stats_obs *old, size_t n_old,
		  const struct stats_obs *new_, size_t n_new, uint64_t stream,
		  struct stats_result *r);

/*
 * Multiple comparisons over @n groups of one table: Benjamini-Hochberg at
 * cfg->fdr over the groups whose p_floor is at most cfg->fdr (a group that
 * cannot reach the level is left out of the count, as Tarone proposed for
 * discrete tests).  Sets q and change.  Returns 0, or -1 with errno ENOMEM.
 */
int stats_adjust(const struct stats_cfg *cfg, struct stats_result *const *r, size_t n);

/* ------------------------------------------------------------ verdict */

/* What the reader knows of one capture (one stall file). */
struct stats_capture {
	const char *release;	/* header: utsname release */
	const char *device;	/* header: dev_name() of the GPU */
	uint64_t threshold_ns;	/* header: waits shorter were not recorded */
	uint64_t seen;		/* stalls the kernel saw: sum of recorded + dropped */
	uint64_t lost;		/* of those, not in the file: overwritten + torn + dropped */
	struct stats_obs all;	/* the stalls in the file that pass the filters */
};

enum stats_verdict {
	STATS_GOOD,		/* exit 0 */
	STATS_BAD,		/* exit 1 */
	STATS_SKIP,		/* exit 125: a NEW capture cannot be used */
	STATS_ABORT,		/* exit 128: the reference (OLD) or the setup is unusable */
};

enum stats_side { STATS_OLD, STATS_NEW };

enum stats_why {
	STATS_WHY_LOST,		/* a: lost, b: seen */
	STATS_WHY_RELEASE,	/* ref: the capture of the same side it differs from */
	STATS_WHY_DEVICE,	/* ref: OLD capture it differs from (always 0) */
	STATS_WHY_THRESHOLD,	/* a: its threshold_ns, b: OLD capture 0's */
	STATS_WHY_NO_STALLS,	/* nothing */
	STATS_WHY_TOO_FEW,	/* a: OLD captures, b: NEW captures, */
				/* c: captures a side that could reach alpha */
};

struct stats_reason {
	enum stats_why why;
	enum stats_side side;	/* TOO_FEW: STATS_NEW */
	size_t index;		/* the capture on that side (TOO_FEW: 0) */
	size_t ref;
	uint64_t a, b, c;
};

#define STATS_REASONS_MAX 32

struct stats_verdict_result {
	enum stats_verdict verdict;
	size_t nreasons;	/* reasons found; the first STATS_REASONS_MAX are kept */
	struct stats_reason reason[STATS_REASONS_MAX];
	bool tested;		/* no reason: @all holds the test of all stalls */
	struct stats_result all;
};

/*
 * The bisect verdict.  Every capture is checked first:
 *   - lost more than cfg->max_lost_ppm of the stalls it saw;
 *   - another kernel release than capture 0 of its side;
 *   - another device than OLD capture 0;
 *   - another recording threshold than OLD capture 0;
 *   - no stall (after the reader's filters).
 * A reason on the OLD side, or too few captures to reach cfg->alpha at
 * all, gives STATS_ABORT; else one on the NEW side gives STATS_SKIP.
 * Otherwise the metric of all stalls is compared (stream 0) and the
 * verdict is STATS_BAD when p_greater <= cfg->alpha and delta >=
 * cfg->min_growth * old_mean, else STATS_GOOD.
 * Returns 0, or -1 with errno (as stats_compare()).
 */
int stats_verdict(const struct stats_cfg *cfg, const struct stats_capture *old, size_t n_old,
		  const struct stats_capture *new_, size_t n_new, struct stats_verdict_result *v);

/* 0, 1, 125, 128: what git bisect run expects. */
int stats_verdict_exit(enum stats_verdict v);
/* "good", "bad", "skip", "abort" */
const char *stats_verdict_name(enum stats_verdict v);
/* "lost", "release", "device", "threshold", "no-stalls", "too-few" */
const char *stats_why_name(enum stats_why why);

/*
 * One line (no newline) saying why, naming captures by @old_names and
 * @new_names (file names; NULL: "OLD capture N"), e.g.
 * "new.2.bin: lost 2.00% of its stalls (20 of 1000), more than 1.00%".
 * Returns what snprintf() returns.
 */
int stats_reason_text(char *buf, size_t len, const struct stats_cfg *cfg,
		      const struct stats_reason *r, const struct stats_capture *old,
		      const char *const *old_names, const struct stats_capture *new_,
		      const char *const *new_names);

#endif
