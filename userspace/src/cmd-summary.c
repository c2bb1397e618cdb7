// SPDX-License-Identifier: MIT
/*
 * i915-stalls summary: stalls grouped by wait site and by user stack (with
 * --submitter, by user stack and submitter), with count, total, maximum
 * and percentiles, and the per-CPU losses.
 */
#include <stdlib.h>

#include "export.h"

struct sum_ctx {
	struct summary *M;
	struct sbuf key;
};

static int sum_one(void *ctx, const struct stall *s, const struct srec *r)
{
	struct sum_ctx *c = ctx;
	struct summary *M = c->M;
	struct sstall ss;

	sym_stall(s, r, &ss);
	site_key(&c->key, r->site);
	group_add(groups_get(&M->sites, sb_str(&c->key), c->key.len), r);
	if (M->submitter) {	/* --submitter: the waiter's stack and the submitter's */
		sym_submit(&ss);
		group_add(pair_group(&M->stacks, &ss, true, &c->key), r);
	} else {
		group_add(stack_group(&M->stacks, &ss, true, &c->key), r);
	}
	M->count++;
	M->total_ns = add_sat(M->total_ns, r->duration_ns);
	return 0;
}

int cmd_summary(struct opts *o)
{
	struct summary M = { 0 };
	struct sum_ctx c = { .M = &M };
	struct session S;
	struct out out;
	int rc = 0;

	if (!o->ninputs && (rc = opts_default_inputs(o)))
		return rc;
	if (session_open(&S, o->inputs, o->ninputs)) {
		session_close(&S);
		return EXIT_FATAL;
	}
	if (out_open(&out, o->out_path)) {
		session_close(&S);
		return EXIT_FATAL;
	}
	/* its groups and folded lines take the frames' numbers only; with
	 * --submitter, the pairs' keys are the frames' texts */
	o->sym.fetch_frames = o->fmt == F_PPROF || o->submitter;
	sym_init(&o->sym);
	sym_add_session(&S);
	if (o->fmt != F_TEXT)
		session_warn_loss(&S);
	if (o->fmt == F_FOLDED || o->fmt == F_SVG) {
		rc = report_folded(o, &S, &out);
		goto done;
	}
	if (o->fmt == F_PPROF) {	/* the same profile as report's */
		rc = report_export(o, &S, &out);
		goto done;
	}
	M.S = &S;
	M.submitter = o->submitter;
	if (session_each(&S, &o->F, sum_one, &sym_lookahead, &c)) {
		rc = EXIT_FATAL;
		goto done;
	}
	groups_sort_total(&M.sites);
	M.top = xcalloc(o->top < M.stacks.n ? o->top : M.stacks.n, sizeof(*M.top));
	M.ntop = groups_top(&M.stacks, o->top, M.top);
	if (o->fmt == F_TEXT)
		text_summary(&out, &M);
	else
		json_summary(&out, &M);
done:
	if (out_close(&out))
		rc = EXIT_FATAL;
	else if (!rc && sym_unresolved)
		rc = EXIT_PARTIAL;
	free(M.top);
	groups_free(&M.sites);
	groups_free(&M.stacks);
	sb_free(&c.key);
	sym_cleanup();
	session_close(&S);
	return rc;
}
