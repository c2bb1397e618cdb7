// SPDX-License-Identifier: MIT
/* Text output: the report, the summary, the diff. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"

const char *metric_name(enum metric m)
{
	return m == M_COUNT ? "count" : m == M_P99 ? "p99" : "total";
}

static void put_ms(struct sbuf *b, uint64_t ns)
{
	sb_ms(b, ns);
}

void text_input(struct out *o, const struct stall_file *f)
{
	char dev[I915_STALL_NAME_LEN + 1], rel[I915_STALL_RELEASE_LEN + 1];
	struct sbuf *b = &o->b;

	fixstr(dev, f->hdr.device, I915_STALL_NAME_LEN);
	fixstr(rel, f->hdr.release, I915_STALL_RELEASE_LEN);
	sb_printf(b, "# input %s @%" PRIu64 ": format %u.%u, device %s (dri/%u), kernel %s, "
		  "%" PRIu64 " records, threshold ", f->name, f->base, f->hdr.version_major,
		  f->hdr.version_minor, dev, f->hdr.drm_minor, rel, (uint64_t)f->hdr.record_count);
	put_ms(b, f->hdr.threshold_ns);
	sb_printf(b, " ms%s\n", f->hdr.flags & I915_STALL_H_ENABLED ? "" : ", log disabled");
	if (file_lost(f))
		sb_printf(b, "# LOST %" PRIu64 " stalls: overwritten %" PRIu64 ", torn %" PRIu64
			  ", dropped %" PRIu64 " (of %" PRIu64 " recorded)\n", file_lost(f),
			  f->lost_overwritten, f->lost_torn, f->lost_dropped, f->recorded);
	else
		sb_puts(b, "# no stalls lost\n");
	if (f->v14 && file_slost(f))
		sb_printf(b, "# LOST %" PRIu64 " submit records: overwritten %" PRIu64 ", torn %"
			  PRIu64 ", dropped %" PRIu64 " (of %" PRIu64 " recorded)\n", file_slost(f),
			  f->slost_overwritten, f->slost_torn, f->slost_dropped, f->srecorded);
	else if (f->v14)
		sb_printf(b, "# no submit records lost (%" PRIu64 " in the file)\n", f->submit_count);
	if (f->has_unattributed)
		sb_printf(b, "# %" PRIu64 " unattributed waits (of no known device, since boot)\n",
			  f->unattributed);
	if (f->kaddr_hidden)
		sb_puts(b, "# kernel addresses hidden from the reader of the file (kptr_restrict, "
			"lockdown): kernel frames unresolved\n");
	out_flush(o, false);
}

/* ", fences 2, all, for-submit": a syncobj wait's fence count and flags */
static void sync_part(struct sbuf *b, const struct srec *r)
{
	uint32_t known = 0;
	size_t i;

	sb_put(b, ", fences ", 9);
	sb_dec(b, r->fence_count, 0);
	sb_puts(b, r->sync_flags & FMT_SYNC_WAIT_ALL ? ", all" : ", any");
	for (i = 0; i < sync_flag_count; i++) {
		known |= sync_flag_names[i].bit;
		if (sync_flag_names[i].bit != FMT_SYNC_WAIT_ALL &&
		    (r->sync_flags & sync_flag_names[i].bit)) {
			sb_put(b, ", ", 2);
			sb_puts(b, sync_flag_names[i].text);
		}
	}
	if (r->sync_flags & ~known)
		sb_printf(b, ", sync_flags 0x%x", r->sync_flags & ~known);
}

void text_report_head(struct out *o, const struct session *S, size_t shown)
{
	size_t i;

	for (i = 0; i < S->nfiles; i++)
		text_input(o, S->files[i]);
	sb_printf(&o->b, "# %zu stalls shown\n\n", shown);
}

/*
 * Wall-clock time (UTC) of a record; the date part is made once a second.
 * The sum is done in 128 bits: a hostile file's start_ns and offset may
 * overflow 64.
 */
static void sb_wall(struct sbuf *b, const struct sstall *ss)
{
	static int64_t last_sec = INT64_MIN;
	static char date[64];
	__int128 t = (__int128)ss->r->start_ns + ss->s->f->hdr.realtime_offset_ns;
	uint64_t frac;
	int64_t sec;

	if (t < 0) {
		sb_putc(b, '-');
		return;
	}
	if (t <= (__int128)UINT64_MAX) {	/* 64-bit divisions, much cheaper */
		sec = (int64_t)((uint64_t)t / 1000000000);
		frac = (uint64_t)t % 1000000000;
	} else {
		sec = (int64_t)(t / 1000000000);
		frac = (uint64_t)(t % 1000000000);
	}
	if (sec > 253402300799) {	/* after 9999-12-31 */
		sb_putc(b, '-');
		return;
	}
	if (sec != last_sec) {
		time_t tt = (time_t)sec;
		struct tm tm;

		if (!gmtime_r(&tt, &tm)) {
			sb_putc(b, '-');
			return;
		}
		snprintf(date, sizeof(date), "%04d-%02d-%02dT%02d:%02d:%02d", tm.tm_year + 1900,
			 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
		last_sec = sec;
	}
	sb_puts(b, date);
	sb_putc(b, '.');
	sb_dec(b, frac / 1000, 6);
	sb_putc(b, 'Z');
}

/* The head line of a user stack, then its lines: the waiter's ("user") or
 * the submitter's ("submit") */
static void ustack_block(struct sbuf *b, const char *what, const struct srec *r,
			 const struct sstack *u)
{
	sb_puts(b, "  ");
	sb_puts(b, what);
	if (r->flags & I915_STALL_F_KTHREAD)
		sb_puts(b, " stack: none (kernel thread)\n");
	else if (r->flags & I915_STALL_F_COMPAT)
		sb_puts(b, " stack: not walked (32-bit task)\n");
	else
		sb_puts(b, r->flags & I915_STALL_F_USTACK_TRUNC ? " stack: (truncated)\n" :
			u && u->depth ? " stack:\n" : " stack: none\n");
}

/* "; 3 requests ahead on rcs0": 1.4's count of the work the awaited
 * request had ahead of it on its engine when the wait began */
static void ahead_part(struct sbuf *b, const struct srec *r)
{
	const char *ec = engine_class_name(r->engine_class);

	if (r->ahead == FMT_AHEAD_MANY) {
		sb_puts(b, "; more than 1024 requests ahead");
	} else {
		sb_puts(b, "; ");
		sb_dec(b, r->ahead, 0);
		sb_puts(b, r->ahead == 1 ? " request ahead" : " requests ahead");
	}
	if (!(r->flags & I915_STALL_F_ENGINE) || r->engine_class == I915_STALL_ENGINE_NONE)
		return;
	if (ec)
		sb_printf(b, " on %s%u", ec, r->engine_instance);
	else
		sb_printf(b, " on class%u:%u", r->engine_class, r->engine_instance);
}

/* 1.4: who submitted the awaited request (docs/format.md's join) */
static void text_submit(struct sbuf *b, const struct sstall *ss)
{
	const struct ssubmit *sub = &ss->sub;
	char comm[I915_STALL_COMM_LEN + 1];

	switch (sub->status) {
	case SUBMIT_RECORDED:
		comm_clean(comm, sub->r.comm, false);
		sb_printf(b, "  submitted by %s[%u/%u] ", comm, sub->r.tgid, sub->r.pid);
		sb_ms(b, sub->queued_ns);
		sb_printf(b, " ms before the wait, cpu %u seq %" PRIu64, sub->r.cpu, sub->r.seq);
		break;
	case SUBMIT_GONE:
		sb_puts(b, "  submitted: record gone (overwritten before the log was read)");
		break;
	case SUBMIT_NOT_RECORDED:
		sb_puts(b, "  submitted: not recorded");
		break;
	default:
		return;
	}
	if (ss->r->flags & FMT_F_AHEAD)
		ahead_part(b, ss->r);
	sb_putc(b, '\n');
	if (sub->status != SUBMIT_RECORDED)
		return;
	ustack_block(b, "submit", &sub->r, sub->u);
	sym_stack_lines(b, sub->u);
}

void text_stall(struct out *o, const struct sstall *ss)
{
	const struct srec *r = ss->r;
	char comm[I915_STALL_COMM_LEN + 1], ocomm[I915_STALL_COMM_LEN + 1];
	const char *oc = outcome_name(r->outcome), *ec, *site = site_name(r->site);
	struct sbuf *b = &o->b;

	comm_clean(comm, r->comm, false);
	sb_dec(b, r->start_ns / 1000000000, 0);
	sb_putc(b, '.');
	sb_dec(b, r->start_ns % 1000000000, 9);
	sb_putc(b, ' ');
	sb_wall(b, ss);
	sb_putc(b, ' ');
	sb_puts(b, comm);
	sb_putc(b, '[');
	sb_dec(b, r->tgid, 0);
	sb_putc(b, '/');
	sb_dec(b, r->pid, 0);
	sb_put(b, "] cpu ", 6);
	sb_dec(b, r->cpu, 0);
	sb_put(b, " seq ", 5);
	sb_dec(b, r->seq, 0);
	sb_put(b, "\n  site ", 8);
	if (site) {
		sb_puts(b, site);
	} else {
		sb_puts(b, "site#");
		sb_dec(b, r->site, 0);
	}
	if (srec_show_sync(r))
		sync_part(b, r);
	sb_put(b, ", waited ", 9);
	sb_ms(b, r->duration_ns);
	sb_put(b, " ms (spun ", 10);
	sb_ms(b, r->spin_ns);
	sb_put(b, " ms), outcome ", 14);
	if (oc) {
		sb_puts(b, oc);
	} else {
		sb_puts(b, "outcome#");
		sb_dec(b, r->outcome, 0);
	}
	if (r->outcome == I915_STALL_ERROR || r->error) {
		sb_putc(b, ' ');
		sb_sdec(b, r->error);
	}
	sb_put(b, "\n  engine ", 10);
	ec = engine_class_name(r->engine_class);
	if (!(r->flags & I915_STALL_F_ENGINE) || r->engine_class == I915_STALL_ENGINE_NONE) {
		sb_puts(b, "unknown");
	} else if (ec) {
		sb_puts(b, ec);
		sb_dec(b, r->engine_instance, 0);
	} else {
		sb_printf(b, "class%u:%u", r->engine_class, r->engine_instance);
	}
	if (r->flags & I915_STALL_F_FENCE) {
		sb_put(b, ", fence ", 8);
		sb_dec(b, r->fence_context, 0);
		sb_putc(b, ':');
		sb_dec(b, r->fence_seqno, 0);
	}
	if (r->flags & I915_STALL_F_OWNER) {
		comm_clean(ocomm, r->owner_comm, false);
		sb_put(b, ", owner ", 8);
		sb_puts(b, ocomm);
		sb_putc(b, '[');
		sb_dec(b, r->owner_pid, 0);
		sb_putc(b, ']');
	}
	if (r->timeout_ns == I915_STALL_TIMEOUT_NONE) {
		sb_puts(b, ", no timeout");
	} else {
		sb_puts(b, ", timeout ");
		sb_ms(b, r->timeout_ns);
		sb_puts(b, " ms");
	}
	if (r->wait_flags)
		sb_printf(b, ", wait_flags 0x%x", r->wait_flags);
	sb_putc(b, '\n');
	if (ss->caller) {
		sb_put(b, "  caller ", 9);
		sb_put(b, ss->caller->line, ss->caller->line_len);
	} else {
		sb_puts(b, "  caller unknown\n");
	}
	sb_puts(b, "  kernel stack:");
	sb_puts(b, r->flags & I915_STALL_F_KSTACK_TRUNC ? " (truncated)\n" :
		r->kdepth ? "\n" : " none\n");
	sym_stack_lines(b, ss->k);
	ustack_block(b, "user", r, ss->u);
	/* 1.3: why the kernel kept no stack bytes (the chain is its frame pointers') */
	if (ss->s->f->v13 && (r->flags & FMT_F_USTACK_NODUMP))
		sb_puts(b, "  (no stack copy: the process is not dumpable)\n");
	else if (ss->s->f->v13 && (r->flags & FMT_F_USTACK_NOLOCK))
		sb_puts(b, "  (no stack copy: the mmap lock was held)\n");
	sym_stack_lines(b, ss->u);
	text_submit(b, ss);
	sb_putc(b, '\n');
	out_flush(o, false);
}

/* ---------------------------------------------------------------- summary */

static void row(struct sbuf *b, struct group *g)
{
	struct sbuf t = { 0 }, m = { 0 }, p50 = { 0 }, p99 = { 0 };

	sb_ms(&t, g->total);
	sb_ms(&m, g->max);
	sb_ms(&p50, group_pct(g, 50));
	sb_ms(&p99, group_pct(g, 99));
	sb_printf(b, "%8zu %12s %10s %10s %10s", g->n, t.p, m.p, p50.p, p99.p);
	sb_free(&t);
	sb_free(&m);
	sb_free(&p50);
	sb_free(&p99);
}

/* The frames of key[0, len) (root first, ';' between them) one a line,
 * innermost first, in the stack column */
static void frames_rev(struct sbuf *b, const char *key, size_t len)
{
	size_t end = len, k;

	for (k = end; ; k--) {
		if (k == 0 || key[k - 1] == ';') {
			sb_printf(b, "%56s  ", "");
			sb_put(b, key + k, end - k);
			sb_putc(b, '\n');
			end = k ? k - 1 : 0;
			if (!k)
				break;
		}
	}
}

/* A group's stack, innermost first; a pair_group()'s then its submitter's
 * marker frame and frames, innermost first */
static void group_frames(struct sbuf *b, const struct group *g)
{
	const char *sep = memchr(g->key, SUBMIT_KEY_SEP, g->key_len), *sub, *semi;
	size_t len;

	if (!sep) {
		frames_rev(b, g->key, g->key_len);
		return;
	}
	frames_rev(b, g->key, (size_t)(sep - g->key));
	sub = sep + 1;
	len = g->key_len - (size_t)(sub - g->key);
	semi = memchr(sub, ';', len);
	sb_printf(b, "%56s  ", "");
	sb_put(b, sub, semi ? (size_t)(semi - sub) : len);
	sb_putc(b, '\n');
	if (semi)
		frames_rev(b, semi + 1, len - (size_t)(semi + 1 - sub));
}

void text_summary(struct out *o, struct summary *M)
{
	const struct session *S = M->S;
	struct sbuf *b = &o->b;
	size_t i, j;

	for (i = 0; i < S->nfiles; i++)
		text_input(o, S->files[i]);
	sb_printf(b, "\n%zu stalls, ", M->count);
	sb_ms(b, M->total_ns);
	sb_puts(b, " ms stalled\n");
	sb_printf(b, "\nBy site:\n%8s %12s %10s %10s %10s  %s\n", "count", "total_ms", "max_ms",
		  "p50_ms", "p99_ms", "site");
	for (i = 0; i < M->sites.n; i++) {
		row(b, &M->sites.g[i]);
		sb_printf(b, "  %s\n", M->sites.g[i].key);
	}
	sb_printf(b, "\nBy user stack%s (top %zu of %zu):\n%8s %12s %10s %10s %10s  %s\n",
		  M->submitter ? " and submitter" : "", M->ntop, M->stacks.n, "count", "total_ms",
		  "max_ms", "p50_ms", "p99_ms",
		  M->submitter ? "stack, then the submitter's (innermost first)" :
		  "stack (innermost first)");
	for (i = 0; i < M->ntop; i++) {
		struct group *g = M->top[i];

		row(b, g);
		sb_printf(b, "  e.g. %s[%u]\n", g->rep_comm, g->rep_tgid);
		/* innermost first, one frame per line */
		group_frames(b, g);
		out_flush(o, false);
	}
	sb_printf(b, "\nPer CPU:\n%6s %12s %12s %12s %12s %12s\n", "cpu", "recorded", "emitted",
		  "overwritten", "torn", "dropped");
	for (i = 0; i < S->nfiles; i++)
		for (j = 0; j < S->files[i]->hdr.cpu_count; j++) {
			const struct i915_stall_cpu_entry *c = &S->files[i]->cpus[j];

			if (!c->recorded && !c->dropped)
				continue;
			sb_printf(b, "%6u %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64
				  " %12" PRIu64 "%s\n", c->cpu, (uint64_t)c->recorded,
				  (uint64_t)c->emitted, (uint64_t)c->overwritten, (uint64_t)c->torn,
				  (uint64_t)c->dropped,
				  c->overwritten + c->torn + c->dropped ? "  LOST" : "");
			out_flush(o, false);
		}
}

/* ---------------------------------------------------------------- diff */

/* A value of the metric: ms for times, stalls for counts. */
static void mval(struct sbuf *b, enum metric m, double v, bool sign)
{
	if (!isfinite(v))
		sb_puts(b, "-");
	else if (m == M_COUNT)
		sb_printf(b, sign ? "%+.1f" : "%.1f", v);
	else
		sb_printf(b, sign ? "%+.3f" : "%.3f", v / 1e6);
}

static void rel_pct(struct sbuf *b, double rel)
{
	if (isnan(rel))
		sb_puts(b, "-");
	else if (isinf(rel))
		sb_puts(b, rel > 0 ? "new" : "gone");
	else
		sb_printf(b, "%+.1f%%", 100 * rel);
}

void diff_effect(struct sbuf *b, enum metric m, const struct stats_result *r)
{
	sb_printf(b, "%s ", metric_name(m));
	mval(b, m, r->delta, true);
	sb_puts(b, m == M_COUNT ? " stalls per capture" : " ms per capture");
	if (isfinite(r->ci_lo)) {
		sb_puts(b, " [");
		mval(b, m, r->ci_lo, true);
		sb_puts(b, ", ");
		mval(b, m, r->ci_hi, true);
		sb_putc(b, ']');
	}
	sb_puts(b, " (");
	rel_pct(b, r->rel);
	sb_putc(b, ')');
}

static void side_line(struct sbuf *b, const char *name, size_t n, double count, double total,
		      double p99)
{
	sb_printf(b, "%s: %zu capture%s; per capture %.1f stalls, %.3f ms, p99 %.3f ms\n", name, n,
		  n == 1 ? "" : "s", count, total / 1e6, p99 / 1e6);
}

void text_diff(struct out *o, struct diff *D)
{
	struct sbuf *b = &o->b, t = { 0 };
	const struct stats_result *a = &D->all;
	size_t i;

	side_line(b, "old", D->n_old, a->old_count, a->old_total, a->old_p99);
	side_line(b, "new", D->n_new, a->new_count, a->new_total, a->new_p99);
	diff_effect(b, D->metric, a);
	sb_printf(b, ", U %.1f of %zu, p %.3g, p(NEW higher) %.3g\n", a->u, D->n_old * D->n_new,
		  a->p, a->p_greater);
	if (D->verdict) {
		sb_printf(b, "verdict: %s (exit %d)\n", D->verdict, D->verdict_exit);
		for (i = 0; i < D->nreasons; i++)
			sb_printf(b, "  %s\n", D->reasons[i]);
	}
	sb_printf(b, "\n%6s %6s %10s %10s %9s %9s %10s %21s %8s %7s %7s  %s\n", "old_n", "new_n",
		  "old_ms", "new_ms", "old_p99", "new_p99",
		  D->metric == M_COUNT ? "delta_n" : "delta_ms", "interval", "rel", "p", "q",
		  D->submitter ? "site/submitter" : "site/stack");
	for (i = 0; i < D->n; i++) {
		const struct stats_result *r = &D->rows[i].r;

		sb_printf(b, "%6.1f %6.1f %10.3f %10.3f %9.3f %9.3f ", r->old_count, r->new_count,
			  r->old_total / 1e6, r->new_total / 1e6, r->old_p99 / 1e6, r->new_p99 / 1e6);
		sb_reset(&t);
		mval(&t, D->metric, r->delta, true);
		sb_printf(b, "%10s ", sb_str(&t));
		sb_reset(&t);
		if (isfinite(r->ci_lo)) {
			sb_putc(&t, '[');
			mval(&t, D->metric, r->ci_lo, true);
			sb_puts(&t, ", ");
			mval(&t, D->metric, r->ci_hi, true);
			sb_putc(&t, ']');
		} else {
			sb_putc(&t, '-');
		}
		sb_printf(b, "%21s ", sb_str(&t));
		sb_reset(&t);
		rel_pct(&t, r->rel);
		sb_printf(b, "%8s %7.3g ", sb_str(&t), r->p);
		if (isnan(r->q))
			sb_printf(b, "%7s ", "-");
		else
			sb_printf(b, "%7.3g ", r->q);
		sb_printf(b, "%c %s %s\n", r->change > 0 ? '+' : r->change < 0 ? '-' : ' ',
			  D->rows[i].kind, D->rows[i].key);
		out_flush(o, false);
	}
	if (D->stacks_shown < D->nstacks)
		sb_printf(b, "# %zu of %zu %s shown, the largest changes (--top)\n",
			  D->stacks_shown, D->nstacks,
			  D->submitter ? "submitters' stacks" : "user stacks");
	sb_free(&t);
}
