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
#include "strbuf.h"

/* What summary shows. */
struct summary {
	const struct session *S;
	size_t count;
	uint64_t total_ns;
	struct groups sites;	/* sorted by total */
	struct groups stacks;
	struct group **top;	/* the largest stacks, sorted by total */
	size_t ntop;
};

/* What diff shows: one row per site and per user stack of either side. */
struct drow {
	const char *kind;	/* "site" or "stack" */
	const char *key;
	struct group *a, *b;	/* OLD, NEW; NULL if absent there */
	int64_t growth_ns;	/* of the total, saturated */
};
enum metric { M_TOTAL, M_P99, M_COUNT };
struct diff {
	const struct session *SA, *SB;
	struct group all_a, all_b;	/* every stall of each side */
	struct drow *rows;		/* by growth, largest first */
	size_t n;
	enum metric metric;
	double growth_pct;
};
const char *metric_name(enum metric m);

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

/* fmt-svg.c: a flame graph of the folded lines; 0 or -1 */
struct svg_info {
	const char *title;
	size_t stalls;
	const char *unit;	/* of the weights: "us" or "stalls" */
	uint64_t lost;
};
int svg_write(struct out *o, struct fagg *A, const struct svg_info *info);

#endif
