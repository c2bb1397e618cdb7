// SPDX-License-Identifier: MIT
/*
 * -F trace-event: the stalls as a timeline in Chrome's Trace Event Format
 * (JSON), which Perfetto's UI, chrome://tracing and speedscope open.
 *
 *  - A track per waiting thread (pid = the process, tid = the thread, named
 *    after them): one complete slice ("ph":"X") per stall, named after its
 *    wait site, with the stall's fields and its kernel and user stacks
 *    (the text report's frame lines) in "args", and its whole stack, root
 *    first, as a node of "stackFrames" ("sf").  A stall that overlaps the
 *    thread's previous one without nesting in it (a log of one thread
 *    cannot have that, a crafted file can) goes to a track of its own,
 *    "COMM TID (overlapping waits)", so that every track nests properly.
 *  - A process per GPU ("GPU dri/N DEVICE"), a track per engine: the
 *    awaited work, one slice per fence for as long as someone waited on it
 *    (the waits on one fence that overlap make one slice, "waits" counts
 *    them); work that overlaps other work of the engine goes to a second
 *    track of the engine ("rcs0 (2)"), and so on.
 *  - Timestamps: "ts" and "dur" in microseconds with three decimals, exact
 *    to the nanosecond; "ts" is the stall's CLOCK_MONOTONIC start, the
 *    clock of "perf record -k CLOCK_MONOTONIC" and "trace-cmd record -C
 *    mono".  otherData gives each input's realtime_offset_ns, the
 *    CLOCK_REALTIME at monotonic 0.
 *
 *  - Submits (format 1.4): a stall joined to the submit record of the
 *    request it awaited (join.h) has the submit drawn on the submitter's
 *    own track (pid = its process, tid = its thread, as a waiter's): a
 *    slice "submit" of no duration at the submit record's start_ns, the
 *    same CLOCK_MONOTONIC as the stalls', with the submitter, the fence
 *    and the submitter's user stack in "args" and "sf"; and a flow from
 *    it to the wait, Perfetto's flow binding: "bind_id" with "flow_out"
 *    on the submit's slice, the same "bind_id" with "flow_in" on the
 *    wait's.  One flow and one submit slice per joined stall, ids from 1
 *    in the stalls' order: a request that several stalls awaited has a
 *    submit slice per stall at the same time (a slice binds one flow).
 *    A stall whose submit record is gone or was not made has no flow;
 *    its args say so ("submit").  A slice of no duration nests anywhere,
 *    so submit slices never take a track of their own.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "export.h"
#include "join.h"

#define GPU_PID_BASE	0x40000000u	/* above any Linux pid (at most 2^22) */
#define OVERLAP_TID_BASE 0x40000000u
#define WAITERS_MAX	16		/* named in an engine slice's args */

/* One row of a track: slices that nest or follow one another. */
struct lane {
	uint32_t tid;
	uint64_t *ends;		/* ends of the open slices, outermost first */
	size_t n, cap;
};

/* A waiting thread. */
struct wtrack {
	uint32_t pid, tid;
	struct lane *lanes;	/* lanes[0] is the thread's own */
	size_t nlanes;
};

/* The awaited work on an engine row, still open (it may grow). */
struct work {
	bool open, has_fence, has_owner;
	uint64_t start, end, ctx, seqno;
	uint32_t owner_pid, waits, nwaiters;
	char owner[I915_STALL_COMM_LEN + 1];
	struct sbuf waiters;	/* JSON strings, comma separated */
};

struct erow {
	uint32_t tid;
	struct work w;
};

struct etrack {
	uint32_t dev;		/* index into devs */
	int cls, inst;		/* cls -1: unknown engine */
	struct erow *rows;
	size_t nrows;
};

struct dev {
	uint32_t minor;
	char name[I915_STALL_NAME_LEN + 1];
	uint32_t next_tid;
};

/* stackFrames: a trie of frame labels */
struct node {
	uint32_t parent;	/* id, 0: root */
	uint32_t name;		/* offset in names */
	bool kernel;
};

/* A slice as emit_slice() writes it. */
struct slice {
	uint32_t pid, tid;
	uint64_t ts_ns, dur_ns;
	const char *name, *cat;
	uint32_t sf;		/* 0: none */
	const char *args;	/* a JSON object, or NULL */
	uint64_t bind_id;	/* flows: with flow_in/flow_out */
	bool flow_in, flow_out;
};

struct tw {
	struct out *out;
	bool first;
	struct wtrack *wt;
	size_t nwt, capwt;
	uint32_t *wht;		/* index + 1 by (pid, tid) */
	size_t whcap;
	uint32_t *pids;		/* processes named, a set of pid + 1 */
	size_t npids, pcap;
	uint32_t overlap_next;
	struct dev *devs;
	size_t ndevs;
	struct etrack *et;
	size_t net;
	struct node *nodes;	/* nodes[0] unused */
	size_t nnodes, capnodes;
	uint32_t *nht;		/* node id by (parent, name) */
	size_t nhcap;
	struct sbuf names;	/* node names, NUL separated */
	struct sbuf args, tmp;
	uint64_t flows;		/* the last flow's id */
};

/* ---------------------------------------------------------------- output */

static void comma(struct tw *w)
{
	sb_puts(&w->out->b, w->first ? "\n" : ",\n");
	w->first = false;
}

/* microseconds with three decimals: exact nanoseconds */
static void sb_us(struct sbuf *b, uint64_t ns)
{
	sb_dec(b, ns / 1000, 0);
	sb_putc(b, '.');
	sb_dec(b, ns % 1000, 3);
}

static void emit_slice(struct tw *w, const struct slice *s)
{
	struct sbuf *b = &w->out->b;

	comma(w);
	sb_puts(b, "{\"ph\":\"X\",\"cat\":");
	sb_json_str(b, s->cat);
	sb_puts(b, ",\"name\":");
	sb_json_str(b, s->name);
	sb_printf(b, ",\"pid\":%u,\"tid\":%u,\"ts\":", s->pid, s->tid);
	sb_us(b, s->ts_ns);
	sb_puts(b, ",\"dur\":");
	sb_us(b, s->dur_ns);
	if (s->sf)
		sb_printf(b, ",\"sf\":%u", s->sf);
	if (s->flow_in || s->flow_out)
		sb_printf(b, ",\"bind_id\":\"0x%" PRIx64 "\"%s%s", s->bind_id,
			  s->flow_in ? ",\"flow_in\":true" : "", s->flow_out ? ",\"flow_out\":true" : "");
	if (s->args) {
		sb_puts(b, ",\"args\":");
		sb_puts(b, s->args);
	}
	sb_putc(b, '}');
	out_flush(w->out, false);
}

/* {"ph":"M","name":WHAT,"pid":P[,"tid":T],"args":{KEY:VALUE}} */
static void emit_meta(struct tw *w, const char *what, uint32_t pid, const uint32_t *tid,
		      const char *name, const int64_t *sort)
{
	struct sbuf *b = &w->out->b;

	comma(w);
	sb_printf(b, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%u", what, pid);
	if (tid)
		sb_printf(b, ",\"tid\":%u", *tid);
	if (name) {
		sb_puts(b, ",\"args\":{\"name\":");
		sb_json_str(b, name);
		sb_puts(b, "}}");
	} else {
		sb_printf(b, ",\"args\":{\"sort_index\":%" PRId64 "}}", *sort);
	}
}

/* ---------------------------------------------------------------- names */

static void engine_name(struct sbuf *b, int cls, int inst)
{
	const char *ec = cls >= 0 ? engine_class_name((unsigned int)cls) : NULL;

	if (cls < 0)
		sb_puts(b, "unknown engine");
	else if (ec)
		sb_printf(b, "%s%d", ec, inst);
	else
		sb_printf(b, "class%d:%d", cls, inst);
}

static bool has_engine(const struct srec *r)
{
	return (r->flags & I915_STALL_F_ENGINE) && r->engine_class != I915_STALL_ENGINE_NONE;
}

/* ---------------------------------------------------------------- waiters */

static struct wtrack *wtrack_get(struct tw *w, uint32_t pid, uint32_t tid, bool *fresh)
{
	uint64_t key = (uint64_t)pid << 32 | tid;
	size_t h, i;

	if ((w->nwt + 1) * 2 > w->whcap) {
		size_t nc = w->whcap ? w->whcap * 2 : 256;

		free(w->wht);
		w->wht = xcalloc(nc, sizeof(*w->wht));
		w->whcap = nc;
		for (i = 0; i < w->nwt; i++) {
			uint64_t k = (uint64_t)w->wt[i].pid << 32 | w->wt[i].tid;

			for (h = hash_mix(0, k) & (nc - 1); w->wht[h]; h = (h + 1) & (nc - 1))
				;
			w->wht[h] = (uint32_t)i + 1;
		}
	}
	for (h = hash_mix(0, key) & (w->whcap - 1); w->wht[h]; h = (h + 1) & (w->whcap - 1)) {
		struct wtrack *t = &w->wt[w->wht[h] - 1];

		if (t->pid == pid && t->tid == tid) {
			*fresh = false;
			return t;
		}
	}
	if (w->nwt == w->capwt) {
		w->capwt = w->capwt ? w->capwt * 2 : 64;
		w->wt = xreallocarray(w->wt, w->capwt, sizeof(*w->wt));
	}
	w->wht[h] = (uint32_t)w->nwt + 1;
	memset(&w->wt[w->nwt], 0, sizeof(w->wt[0]));
	w->wt[w->nwt].pid = pid;
	w->wt[w->nwt].tid = tid;
	*fresh = true;
	return &w->wt[w->nwt++];
}

/* Whether [s, e) nests in or follows the open slices of l; if so, it is
 * pushed. */
static bool lane_take(struct lane *l, uint64_t s, uint64_t e)
{
	while (l->n && l->ends[l->n - 1] <= s)
		l->n--;
	if (l->n && e > l->ends[l->n - 1])
		return false;
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 4;
		l->ends = xreallocarray(l->ends, l->cap, sizeof(*l->ends));
	}
	l->ends[l->n++] = e;
	return true;
}

static bool pid_named(struct tw *w, uint32_t pid)
{
	size_t h, i;

	if ((w->npids + 1) * 2 > w->pcap) {
		size_t nc = w->pcap ? w->pcap * 2 : 64;
		uint32_t *t = xcalloc(nc, sizeof(*t));

		for (i = 0; i < w->pcap; i++)
			if (w->pids[i]) {
				for (h = hash_mix(1, w->pids[i]) & (nc - 1); t[h]; h = (h + 1) & (nc - 1))
					;
				t[h] = w->pids[i];
			}
		free(w->pids);
		w->pids = t;
		w->pcap = nc;
	}
	for (h = hash_mix(1, pid + 1ull) & (w->pcap - 1); w->pids[h]; h = (h + 1) & (w->pcap - 1))
		if (w->pids[h] == pid + 1)
			return true;
	w->pids[h] = pid + 1;
	w->npids++;
	return false;
}

/* The thread tid of process pid, its process and thread named (after
 * comm) the first time. */
static struct wtrack *thread_track(struct tw *w, uint32_t pid, uint32_t tid, const char *comm)
{
	struct wtrack *t;
	bool fresh;

	if (!pid_named(w, pid))
		emit_meta(w, "process_name", pid, NULL, comm, NULL);
	t = wtrack_get(w, pid, tid, &fresh);
	if (fresh) {
		t->lanes = xcalloc(1, sizeof(*t->lanes));
		t->nlanes = 1;
		t->lanes[0].tid = tid;
		emit_meta(w, "thread_name", pid, &tid, comm, NULL);
	}
	return t;
}

/* The track (tid) of the stall's slice: the thread's own, unless the slice
 * overlaps an open one without nesting in it. */
static uint32_t waiter_tid(struct tw *w, const struct srec *r, const char *comm)
{
	uint64_t s = r->start_ns, e = add_sat(r->start_ns, r->duration_ns);
	struct wtrack *t = thread_track(w, r->tgid, r->pid, comm);
	size_t i;

	for (i = 0; i < t->nlanes; i++)
		if (lane_take(&t->lanes[i], s, e))
			return t->lanes[i].tid;
	t->lanes = xreallocarray(t->lanes, t->nlanes + 1, sizeof(*t->lanes));
	memset(&t->lanes[t->nlanes], 0, sizeof(t->lanes[0]));
	t->lanes[t->nlanes].tid = OVERLAP_TID_BASE + w->overlap_next++;
	sb_reset(&w->tmp);
	sb_printf(&w->tmp, "%s %u (overlapping waits)", comm, r->pid);
	emit_meta(w, "thread_name", r->tgid, &t->lanes[t->nlanes].tid, sb_str(&w->tmp), NULL);
	lane_take(&t->lanes[t->nlanes], s, e);
	return t->lanes[t->nlanes++].tid;
}

/* ---------------------------------------------------------------- stacks */

static uint32_t node_get(struct tw *w, uint32_t parent, const char *name, size_t len,
			 bool kernel)
{
	uint64_t hh = hash_bytes(name, len, hash_mix(parent, kernel));
	size_t h, i;

	if ((w->nnodes + 1) * 2 > w->nhcap) {
		size_t nc = w->nhcap ? w->nhcap * 2 : 1024;

		free(w->nht);
		w->nht = xcalloc(nc, sizeof(*w->nht));
		w->nhcap = nc;
		for (i = 1; i < w->nnodes; i++) {
			const struct node *n = &w->nodes[i];
			const char *s = w->names.p + n->name;

			for (h = hash_bytes(s, strlen(s), hash_mix(n->parent, n->kernel)) & (nc - 1);
			     w->nht[h]; h = (h + 1) & (nc - 1))
				;
			w->nht[h] = (uint32_t)i;
		}
	}
	for (h = hh & (w->nhcap - 1); w->nht[h]; h = (h + 1) & (w->nhcap - 1)) {
		const struct node *n = &w->nodes[w->nht[h]];
		const char *s = w->names.p + n->name;

		if (n->parent == parent && n->kernel == kernel && !strncmp(s, name, len) && !s[len])
			return w->nht[h];
	}
	if (w->nnodes == w->capnodes) {
		w->capnodes = w->capnodes ? w->capnodes * 2 : 1024;
		w->nodes = xreallocarray(w->nodes, w->capnodes, sizeof(*w->nodes));
	}
	w->nodes[w->nnodes].parent = parent;
	w->nodes[w->nnodes].kernel = kernel;
	w->nodes[w->nnodes].name = (uint32_t)w->names.len;
	sb_put(&w->names, name, len);
	sb_putc(&w->names, 0);
	w->nht[h] = (uint32_t)w->nnodes;
	return (uint32_t)w->nnodes++;
}

/* a frame's report line: "0x%016llx LABEL\n" */
static const char *frame_label(const struct sframe *f, size_t *len)
{
	*len = f->line_len > 20 ? f->line_len - 20 : 0;
	return f->line_len > 20 ? f->line + 19 : "";
}

/* The stack's node: user frames u outermost first, then the kernel's k. */
static uint32_t stack_node(struct tw *w, const struct sstack *k, const struct sstack *u)
{
	uint32_t id = 0;
	unsigned int i;
	const char *l;
	size_t len;

	for (i = u ? u->depth : 0; i-- > 0;) {
		l = frame_label(u->frames[i], &len);
		id = node_get(w, id, l, len, false);
	}
	for (i = k ? k->depth : 0; i-- > 0;) {
		l = frame_label(k->frames[i], &len);
		id = node_get(w, id, l, len, true);
	}
	return id;
}

static void stack_arg(struct sbuf *b, const char *key, const struct sstack *st)
{
	unsigned int i;

	sb_printf(b, ",\"%s\":[", key);
	for (i = 0; st && i < st->depth; i++) {
		if (i)
			sb_putc(b, ',');
		sb_json_strn(b, st->frames[i]->line, st->frames[i]->line_len - 1);
	}
	sb_putc(b, ']');
}

/* ,"user_stack_end":"no CFI for 0x..." of a 1.2 chain that ends early */
static void stack_end_arg(struct tw *w, struct sbuf *a, const struct sstack *u)
{
	if (!u || !u->end)
		return;
	sb_puts(a, ",\"user_stack_end\":");
	sb_reset(&w->tmp);
	sb_puts(&w->tmp, uend_text((enum uend)u->end));
	if (u->end == UEND_NO_CFI || u->end == UEND_NO_MAP || u->end == UEND_ERROR)
		sb_printf(&w->tmp, " 0x%" PRIx64, u->end_addr);
	sb_json_str(a, sb_str(&w->tmp));
}

/* ---------------------------------------------------------------- engines */

static uint32_t dev_of(struct tw *w, const struct stall_file *f)
{
	char name[I915_STALL_NAME_LEN + 1];
	size_t i;

	fixstr(name, f->hdr.device, I915_STALL_NAME_LEN);
	for (i = 0; i < w->ndevs; i++)
		if (w->devs[i].minor == f->hdr.drm_minor && !strcmp(w->devs[i].name, name))
			return (uint32_t)i;
	w->devs = xreallocarray(w->devs, w->ndevs + 1, sizeof(*w->devs));
	w->devs[i].minor = f->hdr.drm_minor;
	memcpy(w->devs[i].name, name, sizeof(name));
	w->devs[i].next_tid = 1;
	sb_reset(&w->tmp);
	sb_printf(&w->tmp, "GPU dri/%u %s", f->hdr.drm_minor, name);
	emit_meta(w, "process_name", GPU_PID_BASE + (uint32_t)i, NULL, sb_str(&w->tmp), NULL);
	{
		int64_t top = -1;	/* above the processes */

		emit_meta(w, "process_sort_index", GPU_PID_BASE + (uint32_t)i, NULL, NULL, &top);
	}
	return (uint32_t)w->ndevs++;
}

static void work_emit(struct tw *w, uint32_t dev, const struct erow *row)
{
	const struct work *k = &row->w;
	char name[64];
	struct slice s = {
		.pid = GPU_PID_BASE + dev, .tid = row->tid, .ts_ns = k->start,
		.dur_ns = k->end - k->start, .cat = "i915.work", .name = name,
	};
	struct sbuf *a = &w->args;

	if (k->has_fence)
		snprintf(name, sizeof(name), "fence %" PRIu64 ":%" PRIu64, k->ctx, k->seqno);
	else
		snprintf(name, sizeof(name), "awaited work");
	sb_reset(a);
	sb_puts(a, "{\"fence\":");
	if (k->has_fence)
		sb_printf(a, "\"%" PRIu64 ":%" PRIu64 "\"", k->ctx, k->seqno);
	else
		sb_puts(a, "null");
	sb_puts(a, ",\"owner\":");
	if (k->has_owner) {
		sb_reset(&w->tmp);
		sb_printf(&w->tmp, "%s[%u]", k->owner, k->owner_pid);
		sb_json_str(a, sb_str(&w->tmp));
	} else {
		sb_puts(a, "null");
	}
	sb_printf(a, ",\"waits\":%u,\"waiters\":[%s]}", k->waits, sb_str(&k->waiters));
	s.args = sb_str(a);
	emit_slice(w, &s);
}

/* whether the JSON string s[0, n) is one of the comma-separated list's */
static bool waiter_listed(const struct sbuf *l, const char *s, size_t n)
{
	const char *p = sb_str(l), *end = p + l->len;

	for (; p && p + n <= end; p = memchr(p, ',', (size_t)(end - p)), p = p ? p + 1 : NULL)
		if (!memcmp(p, s, n) && (p + n == end || p[n] == ','))
			return true;
	return false;
}

static bool same_fence(const struct work *k, const struct srec *r)
{
	return k->has_fence && (r->flags & I915_STALL_F_FENCE) && k->ctx == r->fence_context &&
	       k->seqno == r->fence_seqno;
}

static void work_add(struct tw *w, const struct stall_file *f, const struct srec *r,
		     const char *comm)
{
	uint32_t dev = dev_of(w, f);
	int cls = has_engine(r) ? r->engine_class : -1, inst = cls >= 0 ? r->engine_instance : 0;
	uint64_t s = r->start_ns, e = add_sat(r->start_ns, r->duration_ns);
	struct etrack *t = NULL;
	struct erow *row = NULL;
	struct work *k;
	size_t i;

	for (i = 0; i < w->net && !t; i++)
		if (w->et[i].dev == dev && w->et[i].cls == cls && w->et[i].inst == inst)
			t = &w->et[i];
	if (!t) {
		w->et = xreallocarray(w->et, w->net + 1, sizeof(*w->et));
		t = &w->et[w->net++];
		memset(t, 0, sizeof(*t));
		t->dev = dev;
		t->cls = cls;
		t->inst = inst;
	}
	/* the same fence, still awaited: the same work */
	for (i = 0; i < t->nrows && !row; i++)
		if (t->rows[i].w.open && same_fence(&t->rows[i].w, r) && t->rows[i].w.end >= s)
			row = &t->rows[i];
	if (row) {
		k = &row->w;
		if (e > k->end)
			k->end = e;
	} else {
		for (i = 0; i < t->nrows && !row; i++)
			if (!t->rows[i].w.open || t->rows[i].w.end <= s)
				row = &t->rows[i];
		if (!row) {
			int64_t sort;

			t->rows = xreallocarray(t->rows, t->nrows + 1, sizeof(*t->rows));
			row = &t->rows[t->nrows++];
			memset(row, 0, sizeof(*row));
			row->tid = w->devs[dev].next_tid++;
			sb_reset(&w->tmp);
			engine_name(&w->tmp, cls, inst);
			if (t->nrows > 1)
				sb_printf(&w->tmp, " (%zu)", t->nrows);
			emit_meta(w, "thread_name", GPU_PID_BASE + dev, &row->tid, sb_str(&w->tmp), NULL);
			sort = row->tid;
			emit_meta(w, "thread_sort_index", GPU_PID_BASE + dev, &row->tid, NULL, &sort);
		} else if (row->w.open) {
			work_emit(w, dev, row);
		}
		k = &row->w;
		k->open = true;
		k->start = s;
		k->end = e;
		k->has_fence = r->flags & I915_STALL_F_FENCE;
		k->ctx = r->fence_context;
		k->seqno = r->fence_seqno;
		k->has_owner = r->flags & I915_STALL_F_OWNER;
		k->owner_pid = r->owner_pid;
		comm_clean(k->owner, r->owner_comm, false);
		k->waits = 0;
		k->nwaiters = 0;
		sb_reset(&k->waiters);
	}
	k->waits++;
	if (k->nwaiters < WAITERS_MAX) {	/* each thread once */
		sb_reset(&w->tmp);
		sb_printf(&w->tmp, "%s[%u/%u]", comm, r->tgid, r->pid);
		sb_reset(&w->args);
		sb_json_str(&w->args, sb_str(&w->tmp));
		if (!waiter_listed(&k->waiters, w->args.p, w->args.len)) {
			if (k->nwaiters++)
				sb_putc(&k->waiters, ',');
			sb_put(&k->waiters, w->args.p, w->args.len);
		}
	}
}

/* ---------------------------------------------------------------- stalls */

static void *tr_begin(struct out *out, const struct session *S)
{
	struct tw *w = xcalloc(1, sizeof(*w));
	struct sbuf *b = &out->b;
	size_t i;

	w->out = out;
	w->first = true;
	w->nnodes = 1;	/* ids from 1 */
	w->capnodes = 1024;
	w->nodes = xcalloc(w->capnodes, sizeof(*w->nodes));
	sb_puts(b, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"i915-stalls\","
		"\"clock\":\"CLOCK_MONOTONIC\",\"ts\":\"microseconds since boot "
		"(CLOCK_MONOTONIC)\",\"inputs\":[");
	for (i = 0; i < S->nfiles; i++) {
		const struct stall_file *f = S->files[i];

		sb_puts(b, i ? ",{\"file\":" : "{\"file\":");
		sb_json_str(b, f->name);
		sb_puts(b, ",\"device\":");
		sb_json_strn(b, f->hdr.device, strnlen(f->hdr.device, I915_STALL_NAME_LEN));
		sb_printf(b, ",\"drm_minor\":%u,\"release\":", f->hdr.drm_minor);
		sb_json_strn(b, f->hdr.release, strnlen(f->hdr.release, I915_STALL_RELEASE_LEN));
		sb_printf(b, ",\"realtime_offset_ns\":%" PRId64 ",\"lost\":%" PRIu64 "}",
			  (int64_t)f->hdr.realtime_offset_ns, file_lost(f));
	}
	sb_printf(b, "],\"lost\":{\"overwritten\":%" PRIu64 ",\"torn\":%" PRIu64
		  ",\"dropped\":%" PRIu64 ",\"total\":%" PRIu64 "}},\"traceEvents\":[",
		  S->lost_overwritten, S->lost_torn, S->lost_dropped, session_lost(S));
	return w;
}

/*
 * The submit of the request the stall ss awaited, joined (SUBMIT_RECORDED):
 * a slice of no duration on the submitter's thread at its start_ns, the
 * out end of the flow bind_id to the wait's slice.  comm: the waiter's.
 */
static void submit_slice(struct tw *w, const struct sstall *ss, const char *comm,
			 uint64_t bind_id)
{
	const struct srec *sr = &ss->sub.r;
	char sc[I915_STALL_COMM_LEN + 1];
	struct sbuf *a = &w->args;
	struct slice s = {
		.pid = sr->tgid, .tid = sr->pid, .ts_ns = sr->start_ns, .cat = "i915.submit",
		.name = "submit", .bind_id = bind_id, .flow_out = true,
	};

	comm_clean(sc, sr->comm, false);
	thread_track(w, sr->tgid, sr->pid, sc);
	s.sf = stack_node(w, NULL, ss->sub.u);
	sb_reset(a);
	sb_puts(a, "{\"comm\":");
	sb_json_str(a, sc);
	sb_printf(a, ",\"pid\":%u,\"tid\":%u,\"engine\":", sr->tgid, sr->pid);
	if (has_engine(sr)) {
		sb_reset(&w->tmp);
		engine_name(&w->tmp, sr->engine_class, sr->engine_instance);
		sb_json_str(a, sb_str(&w->tmp));
	} else {
		sb_puts(a, "null");
	}
	sb_printf(a, ",\"fence\":\"%" PRIu64 ":%" PRIu64 "\",\"cpu\":%u,\"seq\":%" PRIu64
		  ",\"queued_ns\":%" PRIu64 ",\"waiter\":", sr->fence_context, sr->fence_seqno,
		  sr->cpu, sr->seq, ss->sub.queued_ns);
	sb_reset(&w->tmp);
	sb_printf(&w->tmp, "%s[%u/%u]", comm, ss->r->tgid, ss->r->pid);
	sb_json_str(a, sb_str(&w->tmp));
	stack_arg(a, "user_stack", ss->sub.u);
	stack_end_arg(w, a, ss->sub.u);
	sb_putc(a, '}');
	s.args = sb_str(a);
	emit_slice(w, &s);
}

static void tr_stall(void *wp, const struct sstall *ss)
{
	struct tw *w = wp;
	const struct srec *r = ss->r;
	char comm[I915_STALL_COMM_LEN + 1], oc[I915_STALL_COMM_LEN + 1];
	const char *x;
	struct sbuf *a = &w->args;
	struct slice s = {
		.pid = r->tgid, .ts_ns = r->start_ns, .dur_ns = r->duration_ns, .cat = "i915.stall",
	};

	comm_clean(comm, r->comm, false);
	if (ss->sub.status == SUBMIT_RECORDED) {
		s.bind_id = ++w->flows;
		s.flow_in = true;
		submit_slice(w, ss, comm, s.bind_id);
	}
	s.tid = waiter_tid(w, r, comm);
	s.sf = stack_node(w, ss->k, ss->u);
	sb_reset(a);
	sb_puts(a, "{\"site\":");
	site_key(&w->tmp, r->site);
	sb_json_str(a, sb_str(&w->tmp));
	sb_puts(a, ",\"engine\":");
	if (has_engine(r)) {
		sb_reset(&w->tmp);
		engine_name(&w->tmp, r->engine_class, r->engine_instance);
		sb_json_str(a, sb_str(&w->tmp));
	} else {
		sb_puts(a, "null");
	}
	if (r->flags & I915_STALL_F_FENCE)
		sb_printf(a, ",\"fence\":\"%" PRIu64 ":%" PRIu64 "\"", r->fence_context,
			  r->fence_seqno);
	else
		sb_puts(a, ",\"fence\":null");
	sb_puts(a, ",\"owner\":");
	if (r->flags & I915_STALL_F_OWNER) {
		comm_clean(oc, r->owner_comm, false);
		sb_reset(&w->tmp);
		sb_printf(&w->tmp, "%s[%u]", oc, r->owner_pid);
		sb_json_str(a, sb_str(&w->tmp));
	} else {
		sb_puts(a, "null");
	}
	sb_puts(a, ",\"outcome\":");
	x = outcome_name(r->outcome);
	if (x)
		sb_json_str(a, x);
	else
		sb_printf(a, "\"outcome#%u\"", r->outcome);
	sb_printf(a, ",\"error\":%d,\"duration_ns\":%" PRIu64 ",\"spin_ns\":%" PRIu64
		  ",\"timeout_ns\":", r->error, r->duration_ns, r->spin_ns);
	if (r->timeout_ns == I915_STALL_TIMEOUT_NONE)
		sb_puts(a, "null");
	else
		sb_dec(a, r->timeout_ns, 0);
	sb_printf(a, ",\"fence_count\":%u,\"cpu\":%u,\"seq\":%" PRIu64, r->fence_count, r->cpu,
		  r->seq);
	stack_arg(a, "kernel_stack", ss->k);
	stack_arg(a, "user_stack", ss->u);
	stack_end_arg(w, a, ss->u);
	if (ss->sub.status != SUBMIT_NONE) {	/* 1.4, a fence: the join */
		sb_printf(a, ",\"submit\":\"%s\"", submit_status_name(ss->sub.status));
		if (ss->sub.status == SUBMIT_RECORDED) {
			comm_clean(oc, ss->sub.r.comm, false);
			sb_reset(&w->tmp);
			sb_printf(&w->tmp, "%s[%u/%u]", oc, ss->sub.r.tgid, ss->sub.r.pid);
			sb_puts(a, ",\"submitter\":");
			sb_json_str(a, sb_str(&w->tmp));
			sb_printf(a, ",\"queued_ns\":%" PRIu64, ss->sub.queued_ns);
		}
	}
	sb_putc(a, '}');
	site_key(&w->tmp, r->site);
	s.name = sb_str(&w->tmp);
	s.args = sb_str(a);
	emit_slice(w, &s);
	work_add(w, ss->s->f, r, comm);
}

static void tr_free(struct tw *w)
{
	size_t i, j;

	for (i = 0; i < w->nwt; i++) {
		for (j = 0; j < w->wt[i].nlanes; j++)
			free(w->wt[i].lanes[j].ends);
		free(w->wt[i].lanes);
	}
	for (i = 0; i < w->net; i++) {
		for (j = 0; j < w->et[i].nrows; j++)
			sb_free(&w->et[i].rows[j].w.waiters);
		free(w->et[i].rows);
	}
	free(w->wt);
	free(w->wht);
	free(w->pids);
	free(w->devs);
	free(w->et);
	free(w->nodes);
	free(w->nht);
	sb_free(&w->names);
	sb_free(&w->args);
	sb_free(&w->tmp);
	free(w);
}

static int tr_end(void *wp, const struct session *S, bool ok)
{
	struct tw *w = wp;
	struct sbuf *b = &w->out->b;
	size_t i, j;

	(void)S;
	if (!ok) {
		tr_free(w);
		return 0;
	}
	for (i = 0; i < w->net; i++)
		for (j = 0; j < w->et[i].nrows; j++)
			if (w->et[i].rows[j].w.open)
				work_emit(w, w->et[i].dev, &w->et[i].rows[j]);
	sb_puts(b, "\n],\"stackFrames\":{");
	for (i = 1; i < w->nnodes; i++) {
		const struct node *n = &w->nodes[i];

		sb_printf(b, "%s\"%zu\":{\"name\":", i > 1 ? ",\n" : "\n", i);
		sb_json_str(b, w->names.p + n->name);
		sb_printf(b, ",\"category\":\"%s\"", n->kernel ? "kernel" : "user");
		if (n->parent)
			sb_printf(b, ",\"parent\":%u", n->parent);
		sb_putc(b, '}');
		out_flush(w->out, false);
	}
	sb_puts(b, "\n}}\n");
	tr_free(w);
	return 0;
}

const struct export_fmt export_trace_event = {
	.name = "trace-event", .sorted = true, .submit = true,
	.begin = tr_begin, .stall = tr_stall, .end = tr_end,
};
