// SPDX-License-Identifier: MIT
/*
 * JSON output: one document.  Addresses are hex strings; every key of an
 * object is always present (null when it does not apply).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"

/* cfi: the stall is of a 1.2 file, whose user frames say whether only CFI
 * found them */
static void json_frame_x(struct sbuf *b, const struct sframe *sf, bool cfi)
{
	const struct frame *fr = &sf->fr;

	sb_puts(b, "{\"addr\":\"");
	sb_hex(b, fr->addr);
	sb_puts(b, "\",\"symbol\":");
	sb_json_str(b, fr->name);
	if (fr->name) {
		sb_puts(b, ",\"offset\":\"");
		sb_hex(b, fr->off);
		sb_putc(b, '"');
	} else {
		sb_puts(b, ",\"offset\":null");
	}
	sb_puts(b, ",\"module\":");
	sb_json_str(b, fr->module);
	if (fr->has_modoff) {
		sb_puts(b, ",\"module_offset\":\"");
		sb_hex(b, fr->modoff);
		sb_putc(b, '"');
	} else {
		sb_puts(b, ",\"module_offset\":null");
	}
	sb_puts(b, ",\"reason\":");
	sb_json_str(b, reason_text(fr->reason));
	sb_puts(b, ",\"file\":");
	sb_json_str(b, fr->src);
	if (fr->src) {
		sb_puts(b, ",\"line\":");
		sb_dec(b, (uint64_t)fr->line, 0);
	} else {
		sb_puts(b, ",\"line\":null");
	}
	if (cfi)
		sb_puts(b, sf->cfi ? ",\"cfi\":true" : ",\"cfi\":false");
	sb_putc(b, '}');
}

static void json_frame(struct sbuf *b, const struct sframe *sf)
{
	json_frame_x(b, sf, false);
}

static void json_lost(struct sbuf *b, uint64_t ow, uint64_t torn, uint64_t dr)
{
	sb_printf(b, "{\"overwritten\":%" PRIu64 ",\"torn\":%" PRIu64 ",\"dropped\":%" PRIu64
		  ",\"total\":%" PRIu64 "}", ow, torn, dr, add_sat(add_sat(ow, torn), dr));
}

static void json_cpus(struct sbuf *b, const struct i915_stall_cpu_entry *cpus, uint32_t n)
{
	uint32_t j;

	sb_putc(b, '[');
	for (j = 0; j < n; j++) {
		const struct i915_stall_cpu_entry *c = &cpus[j];

		sb_printf(b, "%s{\"cpu\":%u,\"flags\":%u,\"recorded\":%" PRIu64 ",\"emitted\":%"
			  PRIu64 ",\"overwritten\":%" PRIu64 ",\"torn\":%" PRIu64
			  ",\"dropped\":%" PRIu64 "}", j ? "," : "", c->cpu, c->flags,
			  (uint64_t)c->recorded, (uint64_t)c->emitted,
			  (uint64_t)c->overwritten, (uint64_t)c->torn, (uint64_t)c->dropped);
	}
	sb_putc(b, ']');
}

/* 1.4: an input's submit section (null before 1.4) */
static void json_submit_input(struct sbuf *b, const struct stall_file *f)
{
	if (!f->v14) {
		sb_puts(b, ",\"submit_records\":null,\"submit_slots_per_cpu\":null,"
			"\"submit_lost\":null,\"submit_cpus\":null");
		return;
	}
	sb_printf(b, ",\"submit_records\":%" PRIu64 ",\"submit_slots_per_cpu\":%u,"
		  "\"submit_lost\":", f->submit_count, f->submit_slots);
	json_lost(b, f->slost_overwritten, f->slost_torn, f->slost_dropped);
	sb_puts(b, ",\"submit_cpus\":");
	json_cpus(b, f->scpus, f->hdr.cpu_count);
}

static void json_inputs(struct out *o, const struct session *S)
{
	struct sbuf *b = &o->b;
	size_t i;

	sb_puts(b, "\"inputs\":[");
	for (i = 0; i < S->nfiles; i++) {
		const struct stall_file *f = S->files[i];
		const struct i915_stall_file_header *h = &f->hdr;

		sb_puts(b, i ? ",{\"file\":" : "{\"file\":");
		sb_json_str(b, f->name);
		sb_printf(b, ",\"offset\":%" PRIu64 ",\"version\":\"%u.%u\",\"device\":", f->base,
			  h->version_major, h->version_minor);
		sb_json_strn(b, h->device, strnlen(h->device, I915_STALL_NAME_LEN));
		sb_puts(b, ",\"release\":");
		sb_json_strn(b, h->release, strnlen(h->release, I915_STALL_RELEASE_LEN));
		sb_printf(b, ",\"drm_minor\":%u,\"enabled\":%s,\"i915_module\":%s,\"threshold_ns\":%"
			  PRIu64 ",\"slots_per_cpu\":%u,\"snapshot_ns\":%" PRIu64
			  ",\"realtime_offset_ns\":%" PRId64 ",\"records\":%" PRIu64 ",\"lost\":",
			  h->drm_minor, h->flags & I915_STALL_H_ENABLED ? "true" : "false",
			  h->flags & I915_STALL_H_I915_MODULE ? "true" : "false",
			  (uint64_t)h->threshold_ns, h->slots_per_cpu, (uint64_t)h->snapshot_ns,
			  (int64_t)h->realtime_offset_ns, (uint64_t)h->record_count);
		json_lost(b, f->lost_overwritten, f->lost_torn, f->lost_dropped);
		if (f->has_unattributed)
			sb_printf(b, ",\"unattributed\":%" PRIu64, f->unattributed);
		else	/* unknown: 1.0, 1.3 */
			sb_puts(b, ",\"unattributed\":null");
		sb_printf(b, ",\"kernel_addresses_hidden\":%s", f->kaddr_hidden ? "true" : "false");
		sb_puts(b, ",\"cpus\":");
		json_cpus(b, f->cpus, h->cpu_count);
		json_submit_input(b, f);
		sb_puts(b, "}");
		out_flush(o, false);
	}
	sb_puts(b, "],\"lost\":");
	json_lost(b, S->lost_overwritten, S->lost_torn, S->lost_dropped);
	/* 1.4: over the inputs that have submit records (zeros if none has) */
	sb_puts(b, ",\"submit_lost\":");
	json_lost(b, S->slost_overwritten, S->slost_torn, S->slost_dropped);
}

void json_report_begin(struct out *o, const struct session *S, size_t count, uint64_t total_ns)
{
	sb_puts(&o->b, "{\"format\":\"i915-stalls\",\"version\":1,");
	json_inputs(o, S);
	sb_printf(&o->b, ",\"count\":%zu,\"total_ns\":%" PRIu64 ",\"stalls\":[", count, total_ns);
}

/* Wall-clock time, 128-bit sum (a hostile file may overflow 64). */
static void json_wall(struct sbuf *b, const struct stall_file *f, uint64_t start_ns)
{
	__int128 t = (__int128)start_ns + f->hdr.realtime_offset_ns;
	time_t sec;
	struct tm tm;

	if (t < 0 || t / 1000000000 > (__int128)253402300799) {
		sb_puts(b, "\"-\"");
		return;
	}
	sec = (time_t)(t / 1000000000);
	if (!gmtime_r(&sec, &tm)) {
		sb_puts(b, "\"-\"");
		return;
	}
	sb_printf(b, "\"%04d-%02d-%02dT%02d:%02d:%02d.%06dZ\"", tm.tm_year + 1900, tm.tm_mon + 1,
		  tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)((t % 1000000000) / 1000));
}

/* A record's flags by name, those of a minor after the file's in hex. */
static void json_flags(struct sbuf *b, const struct stall_file *f, uint16_t flags)
{
	static const struct { unsigned int bit; const char *name; } fl[] = {
		{ I915_STALL_F_KTHREAD, "kthread" }, { I915_STALL_F_COMPAT, "compat" },
		{ I915_STALL_F_KSTACK_TRUNC, "kstack_truncated" },
		{ I915_STALL_F_USTACK_TRUNC, "ustack_truncated" },
		{ I915_STALL_F_ENGINE, "engine" }, { I915_STALL_F_FENCE, "fence" },
		{ I915_STALL_F_OWNER, "owner" },
		{ FMT_F_USER_REGS, "user_regs" }, { FMT_F_MAPS_NOLOCK, "maps_nolock" },
		{ FMT_F_MAPS_FULL, "maps_full" }, { FMT_F_MAPS_CUT, "maps_cut" },
		{ FMT_F_USTACK_NODUMP, "ustack_nodump" }, { FMT_F_USTACK_NOLOCK, "ustack_nolock" },
		{ FMT_F_MAPS_CHANGED, "maps_changed" },
		{ FMT_F_SUBMITTED, "submitted" }, { FMT_F_AHEAD, "ahead" },
	};
	unsigned int i, known = 0;
	bool none = true;

	sb_putc(b, '[');
	for (i = 0; i < ARRAY_SIZE(fl); i++) {
		if ((fl[i].bit >= FMT_F_USER_REGS && !f->v12) ||
		    (fl[i].bit >= FMT_F_USTACK_NODUMP && !f->v13) ||
		    (fl[i].bit >= FMT_F_SUBMITTED && !f->v14))
			continue;	/* bits an older minor does not define */
		known |= fl[i].bit;
		if (flags & fl[i].bit) {
			sb_printf(b, "%s\"%s\"", none ? "" : ",", fl[i].name);
			none = false;
		}
	}
	for (i = 0; i < 16; i++)	/* from a newer writer */
		if (flags & ~known & (1u << i)) {
			sb_printf(b, "%s\"0x%x\"", none ? "" : ",", 1u << i);
			none = false;
		}
	sb_putc(b, ']');
}

static void json_engine(struct sbuf *b, const struct srec *r)
{
	if ((r->flags & I915_STALL_F_ENGINE) && r->engine_class != I915_STALL_ENGINE_NONE) {
		sb_puts(b, "{\"class\":");
		sb_json_str(b, engine_class_name(r->engine_class));
		sb_printf(b, ",\"class_id\":%u,\"instance\":%u}", r->engine_class, r->engine_instance);
	} else {
		sb_puts(b, "null");
	}
}

static void json_fence(struct sbuf *b, const struct srec *r)
{
	if (r->flags & I915_STALL_F_FENCE)
		sb_printf(b, "{\"context\":\"0x%" PRIx64 "\",\"seqno\":%" PRIu64 "}",
			  r->fence_context, r->fence_seqno);
	else
		sb_puts(b, "null");
}

static void json_ustack(struct sbuf *b, const struct sstack *u, bool cfi)
{
	unsigned int i;

	sb_putc(b, '[');
	for (i = 0; u && i < u->depth; i++) {
		if (i)
			sb_putc(b, ',');
		json_frame_x(b, u->frames[i], cfi);
	}
	sb_putc(b, ']');
}

/* 1.4: the awaited request's queue when the wait began, and its submitter
 * (keys always present; null before 1.4, without a fence, or for a
 * submitter whose record is gone or was not made) */
static void json_submit(struct sbuf *b, const struct sstall *ss)
{
	const struct ssubmit *sub = &ss->sub;
	const struct srec *r = ss->r, *sr = &sub->r;
	const struct stall_file *f = ss->s->f;

	if (f->v14 && (r->flags & FMT_F_AHEAD))
		sb_printf(b, ",\"ahead\":{\"count\":%u,\"more\":%s}",
			  r->ahead == FMT_AHEAD_MANY ? 1024u : r->ahead,
			  r->ahead == FMT_AHEAD_MANY ? "true" : "false");
	else
		sb_puts(b, ",\"ahead\":null");
	if (sub->status == SUBMIT_NONE) {
		sb_puts(b, ",\"submit\":null");
		return;
	}
	sb_printf(b, ",\"submit\":{\"status\":\"%s\"", submit_status_name(sub->status));
	if (sub->status != SUBMIT_RECORDED) {
		sb_puts(b, ",\"cpu\":null,\"seq\":null,\"start_ns\":null,\"wall_time\":null,"
			"\"queued_ns\":null,\"pid\":null,\"tid\":null,\"comm\":null,"
			"\"engine\":null,\"fence\":null,\"flags\":null,\"caller\":null,"
			"\"ustack\":null}");
		return;
	}
	sb_printf(b, ",\"cpu\":%u,\"seq\":%" PRIu64 ",\"start_ns\":%" PRIu64 ",\"wall_time\":",
		  sr->cpu, sr->seq, sr->start_ns);
	json_wall(b, f, sr->start_ns);
	sb_printf(b, ",\"queued_ns\":%" PRIu64 ",\"pid\":%u,\"tid\":%u,\"comm\":", sub->queued_ns,
		  sr->tgid, sr->pid);
	sb_json_strn(b, sr->comm, strnlen(sr->comm, I915_STALL_COMM_LEN));
	sb_puts(b, ",\"engine\":");
	json_engine(b, sr);
	sb_puts(b, ",\"fence\":");
	json_fence(b, sr);
	sb_puts(b, ",\"flags\":");
	json_flags(b, f, sr->flags);
	sb_puts(b, ",\"caller\":");
	if (sub->caller)
		json_frame(b, sub->caller);
	else
		sb_puts(b, "null");
	sb_puts(b, ",\"ustack\":");
	json_ustack(b, sub->u, true);
	sb_putc(b, '}');
}

void json_stall(struct out *o, const struct sstall *ss, bool first)
{
	const struct srec *r = ss->r;
	struct sbuf *b = &o->b;
	const char *x;
	unsigned int i, known = 0;
	bool none = true;

	sb_puts(b, first ? "\n{\"input\":" : ",\n{\"input\":");
	sb_dec(b, (uint64_t)ss->s->f->index, 0);
	sb_printf(b, ",\"cpu\":%u,\"seq\":%" PRIu64 ",\"start_ns\":%" PRIu64 ",\"wall_time\":",
		  r->cpu, r->seq, r->start_ns);
	json_wall(b, ss->s->f, r->start_ns);
	sb_printf(b, ",\"duration_ns\":%" PRIu64 ",\"spin_ns\":%" PRIu64 ",\"pid\":%u,\"tid\":%u"
		  ",\"comm\":", r->duration_ns, r->spin_ns, r->tgid, r->pid);
	sb_json_strn(b, r->comm, strnlen(r->comm, I915_STALL_COMM_LEN));
	x = site_name(r->site);
	if (x)
		sb_printf(b, ",\"site\":\"%s\"", x);
	else
		sb_printf(b, ",\"site\":\"site#%u\"", r->site);
	sb_printf(b, ",\"site_id\":%u,\"outcome\":", r->site);
	x = outcome_name(r->outcome);
	if (x)
		sb_printf(b, "\"%s\"", x);
	else
		sb_printf(b, "\"outcome#%u\"", r->outcome);
	sb_printf(b, ",\"error\":%d,\"engine\":", r->error);
	json_engine(b, r);
	sb_puts(b, ",\"fence\":");
	json_fence(b, r);
	if (r->flags & I915_STALL_F_OWNER) {
		sb_printf(b, ",\"owner\":{\"pid\":%u,\"comm\":", r->owner_pid);
		sb_json_strn(b, r->owner_comm, strnlen(r->owner_comm, I915_STALL_COMM_LEN));
		sb_putc(b, '}');
	} else {
		sb_puts(b, ",\"owner\":null");
	}
	if (r->timeout_ns == I915_STALL_TIMEOUT_NONE)
		sb_puts(b, ",\"timeout_ns\":null");
	else
		sb_printf(b, ",\"timeout_ns\":%" PRIu64, r->timeout_ns);
	/* 1.1; a 1.0 record reads as one fence, no flags */
	sb_printf(b, ",\"fence_count\":%u,\"sync_flags\":[", r->fence_count);
	for (i = 0; i < sync_flag_count; i++) {
		known |= sync_flag_names[i].bit;
		if (r->sync_flags & sync_flag_names[i].bit) {
			sb_printf(b, "%s\"%s\"", none ? "" : ",", sync_flag_names[i].json);
			none = false;
		}
	}
	for (i = 0; i < 32; i++)	/* from a newer writer */
		if (r->sync_flags & ~known & (1u << i)) {
			sb_printf(b, "%s\"0x%x\"", none ? "" : ",", 1u << i);
			none = false;
		}
	sb_printf(b, "],\"wait_flags\":\"0x%x\",\"flags\":", r->wait_flags);
	json_flags(b, ss->s->f, r->flags);
	sb_puts(b, ",\"caller\":");
	if (ss->caller)
		json_frame(b, ss->caller);
	else
		sb_puts(b, "null");
	sb_puts(b, ",\"kstack\":[");
	for (i = 0; ss->k && i < ss->k->depth; i++) {
		if (i)
			sb_putc(b, ',');
		json_frame(b, ss->k->frames[i]);
	}
	sb_puts(b, "],\"ustack\":");
	json_ustack(b, ss->u, ss->s->f->v12);
	if (ss->s->f->v12) {
		/* 1.2: the registers, the snapshot, the maps, and why the chain ends */
		if (r->flags & FMT_F_USER_REGS)
			sb_printf(b, ",\"user_regs\":{\"ip\":\"0x%" PRIx64 "\",\"sp\":\"0x%" PRIx64
				  "\",\"bp\":\"0x%" PRIx64 "\"}", r->user_ip, r->user_sp, r->user_bp);
		else
			sb_puts(b, ",\"user_regs\":null");
		sb_printf(b, ",\"ustack_snapshot_bytes\":%u,\"map_count\":%u,\"ustack_end\":",
			  r->snap_size, r->map_count);
		if (ss->u && ss->u->end) {
			sb_puts(b, "{\"reason\":");
			sb_json_str(b, uend_text((enum uend)ss->u->end));
			sb_printf(b, ",\"addr\":\"0x%" PRIx64 "\"}", ss->u->end_addr);
		} else {
			sb_puts(b, "null");
		}
	}
	json_submit(b, ss);
	sb_putc(b, '}');
	out_flush(o, false);
}

void json_report_end(struct out *o)
{
	sb_puts(&o->b, "]}\n");
}

/* key[0, len) split at ';', as a JSON array of strings */
static void json_frames(struct sbuf *b, const char *key, size_t len)
{
	size_t s = 0, i;

	sb_putc(b, '[');
	for (i = 0; i <= len; i++)
		if (i == len || key[i] == ';') {
			if (s)
				sb_putc(b, ',');
			sb_json_strn(b, key + s, i - s);
			s = i + 1;
		}
	sb_putc(b, ']');
}

static void json_group(struct sbuf *b, struct group *g, const char *keyname, bool stack)
{
	sb_printf(b, "{\"%s\":", keyname);
	if (stack) {
		/* --submitter: the waiter's stack, then the submitter's key */
		const char *sep = memchr(g->key, SUBMIT_KEY_SEP, g->key_len);
		size_t len = sep ? (size_t)(sep - g->key) : g->key_len;

		json_frames(b, g->key, len);
		sb_puts(b, ",\"submitter\":");
		if (sep)
			json_frames(b, sep + 1, g->key_len - len - 1);
		else
			sb_puts(b, "null");
	} else {
		sb_json_strn(b, g->key, g->key_len);
	}
	sb_printf(b, ",\"count\":%zu,\"total_ns\":%" PRIu64 ",\"max_ns\":%" PRIu64
		  ",\"p50_ns\":%" PRIu64 ",\"p99_ns\":%" PRIu64 "}", g->n, g->total, g->max,
		  group_pct(g, 50), group_pct(g, 99));
}

void json_summary(struct out *o, struct summary *M)
{
	struct sbuf *b = &o->b;
	size_t i;

	sb_puts(b, "{\"format\":\"i915-stalls\",\"version\":1,");
	json_inputs(o, M->S);
	sb_printf(b, ",\"count\":%zu,\"total_ns\":%" PRIu64 ",\"sites\":[", M->count, M->total_ns);
	for (i = 0; i < M->sites.n; i++) {
		sb_puts(b, i ? ",\n" : "\n");
		json_group(b, &M->sites.g[i], "site", false);
	}
	sb_puts(b, "],\"stacks\":[");
	for (i = 0; i < M->ntop; i++) {
		sb_puts(b, i ? ",\n" : "\n");
		json_group(b, M->top[i], "stack", true);
		out_flush(o, false);
	}
	sb_puts(b, "]}\n");
}

/* a number, or null where it is not finite */
static void jnum(struct sbuf *b, const char *name, double v, bool comma)
{
	if (isfinite(v))
		sb_printf(b, "%s\"%s\":%.17g", comma ? "," : "", name, v);
	else
		sb_printf(b, "%s\"%s\":null", comma ? "," : "", name);
}

static void jstats(struct sbuf *b, const struct stats_result *r)
{
	sb_puts(b, "\"old\":{");
	jnum(b, "count", r->old_count, false);
	jnum(b, "total_ns", r->old_total, true);
	jnum(b, "p99_ns", r->old_p99, true);
	sb_puts(b, "},\"new\":{");
	jnum(b, "count", r->new_count, false);
	jnum(b, "total_ns", r->new_total, true);
	jnum(b, "p99_ns", r->new_p99, true);
	sb_putc(b, '}');
	jnum(b, "delta", r->delta, true);
	sb_puts(b, ",\"ci\":");
	if (isfinite(r->ci_lo) && isfinite(r->ci_hi))
		sb_printf(b, "[%.17g,%.17g]", r->ci_lo, r->ci_hi);
	else
		sb_puts(b, "null");
	jnum(b, "rel", r->rel, true);
	jnum(b, "shift", r->shift, true);
	jnum(b, "u", r->u, true);
	jnum(b, "p", r->p, true);
	jnum(b, "p_greater", r->p_greater, true);
	jnum(b, "q", r->q, true);
	sb_printf(b, ",\"change\":%d", r->change);
}

void json_diff(struct out *o, struct diff *D)
{
	struct sbuf *b = &o->b;
	size_t i;

	sb_printf(b, "{\"format\":\"i915-stalls-diff\",\"version\":2,\"metric\":\"%s\","
		  "\"captures\":{\"old\":%zu,\"new\":%zu},\"level\":%g,\"fdr\":%g,\"all\":{",
		  metric_name(D->metric), D->n_old, D->n_new, D->cfg->level, D->cfg->fdr);
	jstats(b, &D->all);
	sb_puts(b, "},\"verdict\":");
	if (D->verdict) {
		sb_printf(b, "{\"name\":\"%s\",\"exit\":%d,\"reasons\":[", D->verdict,
			  D->verdict_exit);
		for (i = 0; i < D->nreasons; i++) {
			if (i)
				sb_putc(b, ',');
			sb_json_str(b, D->reasons[i]);
		}
		sb_puts(b, "]}");
	} else {
		sb_puts(b, "null");
	}
	sb_printf(b, ",\"sites\":%zu,\"stacks\":%zu,\"stacks_shown\":%zu,\"rows\":[", D->nsites,
		  D->nstacks, D->stacks_shown);
	for (i = 0; i < D->n; i++) {
		struct drow *r = &D->rows[i];

		sb_printf(b, "%s{\"kind\":\"%s\",\"key\":", i ? ",\n" : "\n", r->kind);
		sb_json_str(b, r->key);
		sb_putc(b, ',');
		jstats(b, &r->r);
		sb_putc(b, '}');
		out_flush(o, false);
	}
	sb_puts(b, "]}\n");
}
