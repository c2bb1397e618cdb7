// SPDX-License-Identifier: MIT
/*
 * i915-stalls report: every stall, sorted by time (text, JSON); folded,
 * SVG and the formats of other tools are walked in export.c, which
 * summary shares.
 *
 * Data flows one way: decode (session.c) -> symbolize (symbolize.c) ->
 * aggregate (aggregate.c, for folded and SVG) -> emit (fmt-*.c).
 */
#include <stdlib.h>

#include "export.h"

/* The exit status once the output is closed. */
static int finish(struct out *out, int rc)
{
	if (out_close(out))
		return EXIT_FATAL;
	if (rc)
		return rc;
	if (sym_unresolved) {
		infox("%lu frames unresolved", sym_unresolved);
		return EXIT_PARTIAL;
	}
	return EXIT_OK;
}

/*
 * In time order the records are visited hopping between the CPUs' parts of
 * the input, which defeats the hardware prefetcher: fetch the record a few
 * stalls ahead, and once it is in, look up its user frames (sym_prefetch(),
 * while stacks are not cached: distinct stacks).
 */
PREFETCH_INLINE void prefetch_ahead(const struct stall *st, size_t n, size_t i)
{
	if (i + 8 < n)
		stall_prefetch_fields(st[i + 8].f, st[i + 8].raw);
	if (i + 4 < n)
		stall_prefetch_rest(st[i + 4].f, st[i + 4].raw, true);
	if (sym_prefetching) {
		if (i + SYM_AHEAD_HASH < n)
			sym_prefetch(&st[i + SYM_AHEAD_HASH], 1);
		if (i + SYM_AHEAD_FIND < n)
			sym_prefetch(&st[i + SYM_AHEAD_FIND], 2);
	}
}

/* ---------------------------------------------------------------- stream */

struct stream_ctx {
	struct out *out;
	size_t shown;
};

static void stream_head(void *ctx, const struct stall_file *f)
{
	struct stream_ctx *c = ctx;

	text_input(c->out, f);
	sb_putc(&c->out->b, '\n');
}

static int stream_one(void *ctx, const struct stall *s, const struct srec *r)
{
	struct stream_ctx *c = ctx;
	struct sstall ss;

	sym_stall(s, r, &ss);
	sym_submit(&ss);
	text_stall(c->out, &ss);
	c->shown++;
	return out_failed(c->out);
}

static int report_stream(struct opts *o)
{
	struct session S;
	struct out out;
	struct stream_ctx c = { .out = &out };
	int rc;

	if (out_open(&out, o->out_path))
		return EXIT_FATAL;
	o->sym.fetch_frames = true;	/* their lines */
	o->sym.no_ids = true;
	sym_init(&o->sym);
	rc = session_stream(&S, o->inputs, o->ninputs, &o->F, stream_head, stream_one, &c);
	if (!out_failed(&out))
		sb_printf(&out.b, "# %zu stalls shown\n", c.shown);
	rc = finish(&out, rc ? EXIT_FATAL : 0);
	sym_cleanup();
	session_close(&S);
	return rc;
}

/* ---------------------------------------------------------------- report */

int cmd_report(struct opts *o)
{
	struct stall *st = NULL;
	struct session S;
	struct out out;
	uint64_t total = 0;
	size_t n = 0, i;
	int rc = 0;

	if (!o->ninputs && (rc = opts_default_inputs(o)))
		return rc;
	if (o->stream)
		return report_stream(o);
	if (session_open(&S, o->inputs, o->ninputs)) {
		session_close(&S);
		return EXIT_FATAL;
	}
	if (out_open(&out, o->out_path)) {
		session_close(&S);
		return EXIT_FATAL;
	}
	/* folded and SVG take the frames' numbers only */
	o->sym.fetch_frames = o->fmt != F_FOLDED && o->fmt != F_SVG;
	o->sym.no_ids = o->sym.fetch_frames;	/* only folded and SVG fold stacks */
	sym_init(&o->sym);
	sym_add_session(&S);
	if (o->fmt != F_TEXT)
		session_warn_loss(&S);	/* text shows it in the output itself */
	if (o->fmt == F_FOLDED || o->fmt == F_SVG) {
		rc = report_folded(o, &S, &out);
		goto done;
	}
	if (o->fmt == F_PPROF || o->fmt == F_PERF_SCRIPT || o->fmt == F_TRACE) {
		rc = report_export(o, &S, &out);
		goto done;
	}
	if (session_sorted(&S, &o->F, &st, &n)) {
		rc = EXIT_FATAL;
		goto done;
	}
	if (o->fmt == F_TEXT) {
		text_report_head(&out, &S, n);
	} else {
		/* the header's total first: a pass that sheds the pages it read,
		 * as the stalls' does, so that JSON holds no more of the input
		 * than text (it held all of it: 650 MiB a million stalls) */
		for (i = 0; i < n; i++) {
			struct srec r;

			input_touched(stall_record_size(st[i].f));
			srec_get(st[i].f, st[i].raw, &r);
			total = add_sat(total, r.duration_ns);
		}
		json_report_begin(&out, &S, n, total);
	}
	for (i = 0; i < n && !out_failed(&out); i++) {
		struct sstall ss;
		struct srec r;

		prefetch_ahead(st, n, i);
		input_touched(stall_record_size(st[i].f));
		srec_get(st[i].f, st[i].raw, &r);
		sym_stall(&st[i], &r, &ss);
		sym_submit(&ss);
		if (o->fmt == F_TEXT)
			text_stall(&out, &ss);
		else
			json_stall(&out, &ss, i == 0);
	}
	if (o->fmt == F_JSON)
		json_report_end(&out);
done:
	rc = finish(&out, rc);
	free(st);
	sym_cleanup();
	session_close(&S);
	return rc;
}
