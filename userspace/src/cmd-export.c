// SPDX-License-Identifier: MIT
/*
 * report -F pprof, perf-script, trace-event: the walk.  pprof aggregates,
 * so it takes the stalls in file order with bounded memory (as folded and
 * SVG do); a timeline and perf script's events want them by start time,
 * as the text report has them.
 */
#include <stdlib.h>
#include <unistd.h>

#include "export.h"

struct exp_ctx {
	const struct export_fmt *x;
	void *w;
};

static int export_one(void *ctx, const struct stall *s, const struct srec *r)
{
	struct exp_ctx *c = ctx;
	struct sstall ss;

	sym_stall(s, r, &ss);
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
