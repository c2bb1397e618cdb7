// SPDX-License-Identifier: MIT
/*
 * The walks report and summary share: -F folded and svg (the stalls
 * folded into stacks), and -F pprof, perf-script, trace-event.  pprof
 * aggregates, so it takes the stalls in file order with bounded memory (as
 * folded and SVG do); a timeline and perf script's events want them by
 * start time, as the text report has them.
 */
#include <stdlib.h>
#include <unistd.h>

#include "export.h"

/* ---------------------------------------------------------------- folded */

struct fold_ctx {
	struct opts *o;
	struct fagg *A;
	struct fstack line;
	size_t n;
};

static int fold_one(void *ctx, const struct stall *s, const struct srec *r)
{
	struct fold_ctx *c = ctx;
	struct sstall ss;
	unsigned int depth;

	sym_stall(s, r, &ss);
	if (c->o->submitter)
		sym_submit(&ss);
	depth = fold_stack(&c->line, &ss, c->o->root, c->o->submitter);
	/* time in microseconds, rounded up: never 0 */
	fagg_add_ids(c->A, c->line.ids, c->line.n, depth,
		 c->o->weight == W_COUNT ? 1 : r->duration_ns / 1000 + (r->duration_ns % 1000 != 0));
	c->n++;
	return 0;
}

/* Folded or SVG output of every stall of S, in bounded memory: records are
 * walked in file order (no sort), folded lines spill past the budget. */
int report_folded(struct opts *o, struct session *S, struct out *out)
{
	struct fagg A;
	struct fold_ctx c = { .o = o, .A = &A };
	int rc;

	fagg_init(&A, o->sym.budget ? o->sym.budget : (size_t)SYM_BUDGET_DEFAULT_MB << 20);
	rc = session_each(S, &o->F, fold_one, &sym_lookahead, &c);
	if (!rc)
		rc = fagg_finish(&A);
	if (!rc && o->fmt == F_FOLDED) {
		rc = folded_write(out, &A);
	} else if (!rc) {
		struct svg_info info = {
			.title = "i915 stalls", .stalls = c.n, .lost = session_lost(S),
			.unit = o->weight == W_COUNT ? "stalls" : "us",
		};

		rc = svg_write(out, &A, &info);
	}
	fagg_free(&A);
	fstack_free(&c.line);
	return rc ? EXIT_FATAL : 0;
}

/* ---------------------------------------------------------------- export */

struct exp_ctx {
	const struct export_fmt *x;
	void *w;
};

static int export_one(void *ctx, const struct stall *s, const struct srec *r)
{
	struct exp_ctx *c = ctx;
	struct sstall ss;

	sym_stall(s, r, &ss);
	if (c->x->submit)
		sym_submit(&ss);
	c->x->stall(c->w, &ss);
	return 0;
}

int report_export(struct opts *o, struct session *S, struct out *out)
{
	const struct export_fmt *x = o->fmt == F_PPROF ? &export_pprof :
				     o->fmt == F_PERF_SCRIPT ? &export_perf_script :
				     &export_trace_event;
	struct exp_ctx c = { .x = x };
	struct stall *st = NULL;
	size_t n = 0, i;
	int rc;

	if (x->binary && out->f == stdout && isatty(STDOUT_FILENO)) {
		errx_("-F %s writes a binary file: give -o FILE or redirect standard output",
		      x->name);
		return EXIT_USAGE;
	}
	c.w = x->begin(out, S);
	if (!x->sorted) {
		rc = session_each(S, &o->F, export_one, &sym_lookahead, &c);
	} else {
		rc = session_sorted(S, &o->F, &st, &n);
		for (i = 0; !rc && i < n && !out_failed(out); i++) {
			struct srec r;

			if (i + 4 < n)
				stall_prefetch_fields(st[i + 4].f, st[i + 4].raw);
			input_touched(stall_record_size(st[i].f));
			srec_get(st[i].f, st[i].raw, &r);
			rc = export_one(&c, &st[i], &r);
		}
		free(st);
	}
	if (x->end(c.w, S, !rc))
		rc = -1;
	return rc ? EXIT_FATAL : 0;
}
