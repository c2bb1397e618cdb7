// SPDX-License-Identifier: MIT
/*
 * -F perf-script: the text "perf script" prints for samples with call
 * chains, one event per stall, so that everything that imports perf
 * script's text reads the log: speedscope, the Firefox Profiler,
 * FlameGraph's stackcollapse-perf.pl.  The layout is that of Debian 12's
 * perf (6.1) with -F comm,pid,tid,cpu,time,period,event,ip,sym,symoff,dso:
 *
 *   COMM PID/TID [CPU] SECONDS.MICROS:     PERIOD i915:stall: <LF>
 *   <TAB>ADDRESS SYMBOL+0xOFF (DSO)        kernel frames, innermost first,
 *   ...                                    then the user frames
 *   <LF>
 *
 * ("%s %5d/%-5d [%03d] %12s: %10llu %s: ", then "\t%16llx %s+0x%lx (%s)").
 * The time is the stall's start, CLOCK_MONOTONIC, as in a perf capture
 * made with "perf record -k CLOCK_MONOTONIC"; the period is the wait in
 * nanoseconds, so tools that weigh events by their period
 * (stackcollapse-perf.pl, perf's own scripts) weigh stalls by wait time.
 * speedscope ignores the period: it weighs each event by the time to the
 * next event of the thread.  As in perf, a user frame's address is the
 * address in its file when the file is known, kernel modules are "[NAME]"
 * and the core kernel "[kernel.kallsyms]", an unresolved frame is
 * "[unknown]"; a frame found by CFI alone is not marked.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "export.h"

struct psw {
	struct out *out;
};

static void *ps_begin(struct out *out, const struct session *S)
{
	struct psw *w = xcalloc(1, sizeof(*w));
	struct sbuf *b = &out->b;

	w->out = out;
	/* perf script --header's frame; every consumer skips '#' lines */
	sb_puts(b, "# ========\n# i915-stalls -F perf-script: one " PERF_SCRIPT_EVENT
		" event per stall, period = wait in ns, time = CLOCK_MONOTONIC start\n");
	if (session_lost(S))
		sb_printf(b, "# LOST %" PRIu64 " stalls: overwritten %" PRIu64 ", torn %" PRIu64
			  ", dropped %" PRIu64 "\n", session_lost(S), S->lost_overwritten,
			  S->lost_torn, S->lost_dropped);
	sb_puts(b, "# ========\n#\n");
	return w;
}

static void frame(struct sbuf *b, const struct sframe *sf, bool user)
{
	const struct frame *fr = &sf->fr;
	uint64_t a = user && fr->has_modoff && fr->module ? fr->modoff : fr->addr;
	char *p;

	sb_putc(b, '\t');
	sb_need(b, 16);
	p = b->p + b->len;
	b->len += (size_t)snprintf(p, 17, "%16" PRIx64, a);
	sb_putc(b, ' ');
	if (fr->name) {
		sb_puts(b, fr->name);
		sb_put(b, "+0x", 3);
		sb_printf(b, "%" PRIx64, fr->off);
	} else {
		sb_puts(b, "[unknown]");
	}
	sb_put(b, " (", 2);
	if (!user)
		sb_puts(b, fr->module ? "[" : "[kernel.kallsyms]");
	if (fr->module)
		sb_puts(b, fr->module);
	else if (user)
		sb_puts(b, "[unknown]");
	if (!user && fr->module)
		sb_putc(b, ']');
	sb_put(b, ")\n", 2);
}

static void ps_stall(void *wp, const struct sstall *ss)
{
	struct psw *w = wp;
	const struct srec *r = ss->r;
	struct sbuf *b = &w->out->b;
	char comm[I915_STALL_COMM_LEN + 1], t[48];
	unsigned int i;

	comm_clean(comm, r->comm, false);
	if (comm[0])
		sb_puts(b, comm);
	else	/* perf's name of a thread whose comm it does not know */
		sb_printf(b, ":%u", r->pid);
	snprintf(t, sizeof(t), "%" PRIu64 ".%06" PRIu64, r->start_ns / 1000000000,
		 r->start_ns % 1000000000 / 1000);
	sb_printf(b, " %5u/%-5u [%03u] %12s: %10" PRIu64 " " PERF_SCRIPT_EVENT ": \n", r->tgid,
		  r->pid, r->cpu, t, r->duration_ns);
	for (i = 0; ss->k && i < ss->k->depth; i++)
		frame(b, ss->k->frames[i], false);
	for (i = 0; ss->u && i < ss->u->depth; i++)
		frame(b, ss->u->frames[i], true);
	sb_putc(b, '\n');
	out_flush(w->out, false);
}

static int ps_end(void *w, const struct session *S, bool ok)
{
	(void)S;
	(void)ok;
	free(w);
	return 0;
}

const struct export_fmt export_perf_script = {
	.name = "perf-script", .sorted = true,
	.begin = ps_begin, .stall = ps_stall, .end = ps_end,
};
