/* SPDX-License-Identifier: MIT */
/*
 * i915-stalls: the output formats, one file each: text (fmt-text.c), JSON
 * (fmt-json.c), folded stacks (fmt-folded.c), SVG flame graph (fmt-svg.c).
 * They format what the commands hand them (symbolized stalls, groups,
 * diff rows) and never symbolize or aggregate themselves.
 */
#ifndef I915_STALLS_EMIT_H
#define I915_STALLS_EMIT_H

#include "aggregate.h"
#include "session.h"
#include "stats.h"
#include "strbuf.h"

/* What summary shows. */
struct summary {
	const struct session *S;
	size_t count;
	uint64_t total_ns;
	struct groups sites;	/* sorted by total */
	struct groups stacks;	/* --submitter: pair_group()'s */
	struct group **top;	/* the largest stacks, sorted by total */
	size_t ntop;
	bool submitter;
};

/* What diff shows: one row per site and per shown user stack. */
struct drow {
	const char *kind;	/* "site", "stack" or (--submitter) "submitter" */
	const char *key;
	struct stats_result r;	/* means per capture, delta, interval, p, q */
};
enum metric { M_TOTAL, M_P99, M_COUNT };
struct diff {
	size_t n_old, n_new;		/* captures a side */
	enum metric metric;
	const struct stats_cfg *cfg;
	struct stats_result all;	/* every stall that passes the filters */
	struct drow *rows;		/* sites, then the shown stacks; by delta */
	size_t n;
	size_t nsites, nstacks;		/* groups compared */
	size_t stacks_shown;
	bool submitter;			/* the stacks are submit_group()'s */
	const char *verdict;		/* "good", ...; NULL: no verdict asked */
	int verdict_exit;
	char **reasons;			/* why skip or abort, one line each */
	size_t nreasons;
};
const char *metric_name(enum metric m);
/* "total +41.200 ms per capture [+30.800, +52.000] (+38.5%)" (fmt-text.c) */
void diff_effect(struct sbuf *b, enum metric m, const struct stats_result *r);

/* fmt-text.c */
void text_input(struct out *o, const struct stall_file *f);
void text_report_head(struct out *o, const struct session *S, size_t shown);
void text_stall(struct out *o, const struct sstall *ss);
void text_summary(struct out *o, struct summary *M);
void text_diff(struct out *o, struct diff *D);

/* fmt-json.c */
void json_report_begin(struct out *o, const struct session *S, size_t count, uint64_t total_ns);
void json_stall(struct out *o, const struct sstall *ss, bool first);
void json_report_end(struct out *o);
void json_summary(struct out *o, struct summary *M);
void json_diff(struct out *o, struct diff *D);

/* fmt-folded.c: "frame;frame;... weight" lines; 0 or -1 */
int folded_write(struct out *o, struct fagg *A);
/* diff: "frame;...;frame OLD NEW" lines (difffolded.pl's), the weights of
 * each side divided by its captures (per capture); 0 or -1 */
int folded_diff_write(struct out *o, struct fagg *old, size_t n_old, struct fagg *new_,
		      size_t n_new);

/* fmt-svg.c: a flame graph of the folded lines; 0 or -1 */
struct svg_info {
	const char *title;
	size_t stalls;
	const char *unit;	/* of the weights: "us" or "stalls" */
	uint64_t lost;
};
int svg_write(struct out *o, struct fagg *A, const struct svg_info *info);
/* The differential flame graph of docs/bisect.md: NEW's stacks coloured by
 * their change from OLD, and the vanished ones; weights per capture. */
int svg_diff_write(struct out *o, struct fagg *old, size_t n_old, struct fagg *new_,
		   size_t n_new, const struct svg_info *info);

#endif
