/* SPDX-License-Identifier: MIT */
/*
 * i915-stalls: the formats other tools open (issue 25).
 *
 *   -F pprof        a gzipped profile.proto profile for pprof (fmt-pprof.c)
 *   -F perf-script  the text of "perf script" with call chains, for
 *                   speedscope, the Firefox Profiler, FlameGraph's
 *                   stackcollapse-perf.pl (fmt-perfscript.c)
 *   -F trace-event  Chrome's Trace Event Format JSON, a timeline for
 *                   Perfetto and chrome://tracing (fmt-trace.c)
 *
 * export.c walks the stalls (in time order for the last two) and hands
 * each one, symbolized, to the format's writer; it also folds them for
 * -F folded and svg.  report and summary both call it.
 */
#ifndef I915_STALLS_EXPORT_H
#define I915_STALLS_EXPORT_H

#include "options.h"

/* The event name of -F perf-script ("i915:stall:" on each event line). */
#define PERF_SCRIPT_EVENT "i915:stall"

struct export_fmt {
	const char *name;	/* as given to -F */
	bool sorted;		/* stalls by start time (else file order) */
	bool binary;		/* never written to a terminal */
	bool submit;		/* each stall's submitter joined (sym_submit()) */
	void *(*begin)(struct out *out, const struct session *S);
	void (*stall)(void *w, const struct sstall *ss);
	/* write what is left (unless !ok: the walk failed) and free w; 0,
	 * or -1 after a message */
	int (*end)(void *w, const struct session *S, bool ok);
};
extern const struct export_fmt export_pprof, export_perf_script, export_trace_event;

/* report (and summary, for pprof) with one of these formats: every stall
 * of S that passes the filters; 0, EXIT_USAGE or EXIT_FATAL */
int report_export(struct opts *o, struct session *S, struct out *out);
/* report and summary -F folded or svg: every stall of S that passes the
 * filters, folded into stacks; 0 or EXIT_FATAL (export.c) */
int report_folded(struct opts *o, struct session *S, struct out *out);

#endif
