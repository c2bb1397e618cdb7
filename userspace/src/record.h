/* SPDX-License-Identifier: MIT */
/*
 * i915-stalls: the stall file decoder and the record view every later stage
 * reads.
 *
 * A record is used where it lies in the input (a map of the file, or the
 * buffer it was read into); struct srec describes one without copying its
 * stacks.  Version 1 records are fixed-size (struct i915_stall_record);
 * the version 2 records of issue 12 are variable-size and add, per record,
 * the user registers, a snapshot of the user stack and a table of the file
 * mappings the user frames fall in.  A decoder per version fills the same
 * view, so symbolization, aggregation and output do not know the version.
 */
#ifndef I915_STALLS_RECORD_H
#define I915_STALLS_RECORD_H

#include <string.h>

#include "format.h"
#include "util.h"

struct archive;

/* One stall file (an input may hold several, concatenated). */
struct stall_file {
	const char *name;	/* input name, for messages */
	const unsigned char *buf; /* start of this stall file (8-byte aligned) */
	size_t size;		/* bytes from buf to the end of the input */
	uint64_t base;		/* offset of buf in the input */
	uint64_t end;		/* bytes of this stall file (relative to buf) */
	struct i915_stall_file_header hdr; /* known part, zero extended */
	bool v11;		/* minor >= 1: 1.1's fields are in the file */
	bool v12;		/* minor >= 2: 1.2's fields, maps and snapshot */
	bool v13;		/* minor >= 3: 1.3's flags and FRAME_CHANGED */
	bool v14;		/* minor >= 4: the submit section, ahead, SUBMITTED, AHEAD */
	bool kaddr_hidden;	/* 1.3: FMT_H_KADDR_HIDDEN, kernel addresses zeroed */
	uint8_t frame_first;	/* 1.2: ustack_map values from it on are FMT_FRAME_* */
	bool has_unattributed;	/* 1.1, 1.2: the header counts unattributed waits */
	uint64_t unattributed;	/* then that count, else 0 */
	uint32_t map_max, snapshot_max;	/* 1.2: per record, else 0 */
	uint32_t maps_offset, ustack_offset;	/* 1.2: in a record */
	struct i915_stall_cpu_entry *cpus; /* cpu_count entries, copied */
	uint64_t lost_overwritten, lost_torn, lost_dropped, recorded;
	/*
	 * 1.4: the submit section (docs/format.md, "Format 1.4"): the submit
	 * rings' CPU table, copied, and their losses; submit_count records of
	 * submit_size bytes from sbuf (in buf, or a copy of them, scopy, when
	 * streamed).  All 0 and NULL in an older file.
	 */
	uint64_t submit_tab, submit_off, submit_count;
	uint32_t submit_size, submit_slots;
	struct i915_stall_cpu_entry *scpus;
	uint64_t slost_overwritten, slost_torn, slost_dropped, srecorded;
	const unsigned char *sbuf;
	unsigned char *scopy;
	void *join;		/* join.c: the submit records by fence */
	int index;		/* in the list of stall files of a session */
	const struct archive *ar; /* archive it came from, or NULL */
	void *kview;		/* ksym.c: the kernel symbols relocated for it */
};

/*
 * The record view.  Scalars are copied (they are few); the stacks and the
 * names point into the input, which outlives every view of it.
 */
struct srec {
	uint64_t seq, start_ns, duration_ns, spin_ns;
	uint64_t fence_context, fence_seqno, timeout_ns, caller;
	uint32_t pid, tgid, owner_pid, wait_flags;
	int32_t error;
	uint16_t cpu, site, flags;
	uint8_t outcome, engine_class, engine_instance;
	uint8_t kdepth, udepth;		/* valid entries in kstack, ustack */
	uint32_t fence_count, sync_flags; /* 1.1; of a 1.0 record: 1, 0 */
	uint16_t ahead;			/* 1.4 (with FMT_F_AHEAD); of an older record: 0 */
	const char *comm, *owner_comm;	/* I915_STALL_COMM_LEN bytes, NUL padded */
	const __u64 *kstack;		/* innermost first, in the input */
	const __u64 *ustack;		/* ustack[0] the PC, then return addresses */
	/*
	 * 1.2, pointing into the record: the user registers and the stack
	 * snapshot (bytes from user_sp up; snap_size 0 without F_USER_REGS),
	 * the record's executable file mappings (map_count entries of
	 * FMT12_MAP_SIZE bytes) and per ustack[] entry its map index or
	 * FMT_FRAME_* (NULL for a 1.0 or 1.1 record).  usym.c takes the
	 * frames' identities from there instead of from process maps.
	 */
	uint64_t user_ip, user_sp, user_bp;
	uint32_t snap_size;
	uint16_t map_count;
	const unsigned char *snap;
	const unsigned char *maps;
	const uint8_t *ustack_map;
	uint8_t frame_first;		/* the file's fmt_frame_first_flag() */
};

/* One entry of a 1.2 record's maps[], copied out. */
struct rmap {
	uint64_t start, end, file_offset;
	uint8_t build_id[FMT12_BUILD_ID_LEN];
	uint8_t build_id_size, flags;
	char name[FMT12_MAP_NAME_LEN + 1];	/* NUL terminated */
};

static inline void rmap_get(const struct srec *r, unsigned int i, struct rmap *m)
{
	const unsigned char *p = r->maps + (size_t)i * FMT12_MAP_SIZE;

	memcpy(&m->start, p + FMT12_MAP_START, 8);
	memcpy(&m->end, p + FMT12_MAP_END, 8);
	memcpy(&m->file_offset, p + FMT12_MAP_FILE_OFFSET, 8);
	memcpy(m->build_id, p + FMT12_MAP_BUILD_ID, FMT12_BUILD_ID_LEN);
	m->build_id_size = p[FMT12_MAP_BUILD_ID_SIZE];
	m->flags = p[FMT12_MAP_FLAGS];
	memcpy(m->name, p + FMT12_MAP_NAME, FMT12_MAP_NAME_LEN);
	m->name[FMT12_MAP_NAME_LEN] = 0;
}

/* An entry of the records a command walks: where a record lies. */
struct stall {
	const unsigned char *raw;	/* the record in the input */
	const struct stall_file *f;
	uint64_t start_ns;		/* the sort key */
};

/*
 * The view of a version 1 record (p is 8-byte aligned) of f: a record of
 * minor 1 or newer has 1.1's fields after 1.0's 640 bytes, one of minor 2
 * or newer 1.2's after those, and its maps and snapshot where f says.
 */
static inline void srec_v1(const unsigned char *p, const struct stall_file *f, struct srec *v)
{
	const struct i915_stall_record *r = (const struct i915_stall_record *)(const void *)p;

	v->seq = r->seq;
	v->start_ns = r->start_ns;
	v->duration_ns = r->duration_ns;
	v->spin_ns = r->spin_ns;
	v->fence_context = r->fence_context;
	v->fence_seqno = r->fence_seqno;
	v->timeout_ns = r->timeout_ns;
	v->caller = r->caller;
	v->pid = r->pid;
	v->tgid = r->tgid;
	v->owner_pid = r->owner_pid;
	v->wait_flags = r->wait_flags;
	v->error = r->error;
	v->cpu = r->cpu;
	v->site = r->site;
	v->flags = r->flags;
	v->outcome = r->outcome;
	v->engine_class = r->engine_class;
	v->engine_instance = r->engine_instance;
	v->kdepth = r->kstack_depth;
	v->udepth = r->ustack_depth;
	v->comm = r->comm;
	v->owner_comm = r->owner_comm;
	v->kstack = r->kstack;
	v->ustack = r->ustack;
	if (f->v11) {
		memcpy(&v->fence_count, p + FMT11_REC_FENCE_COUNT, 4);
		memcpy(&v->sync_flags, p + FMT11_REC_SYNC_FLAGS, 4);
	} else {	/* docs/format.md: a 1.0 wait was on one fence */
		v->fence_count = 1;
		v->sync_flags = 0;
	}
	v->ahead = 0;
	if (f->v14)
		memcpy(&v->ahead, p + FMT14_REC_AHEAD, 2);
	if (f->v12) {
		memcpy(&v->snap_size, p + FMT12_REC_USTACK_SIZE, 4);
		memcpy(&v->map_count, p + FMT12_REC_MAP_COUNT, 2);
		memcpy(&v->user_ip, p + FMT12_REC_USER_IP, 8);
		memcpy(&v->user_sp, p + FMT12_REC_USER_SP, 8);
		memcpy(&v->user_bp, p + FMT12_REC_USER_BP, 8);
		v->ustack_map = p + FMT12_REC_USTACK_MAP;
		v->frame_first = f->frame_first;
		v->maps = p + f->maps_offset;
		v->snap = p + f->ustack_offset;
		if (!(v->flags & FMT_F_USER_REGS))	/* no registers: no snapshot either */
			v->snap_size = 0;
	} else {
		v->user_ip = v->user_sp = v->user_bp = 0;
		v->snap_size = 0;
		v->map_count = 0;
		v->snap = v->maps = NULL;
		v->ustack_map = NULL;
		v->frame_first = 0;
	}
}

/* The view of a record of f (its version picks the decoder). */
static inline void srec_get(const struct stall_file *f, const unsigned char *raw, struct srec *v)
{
	/* one major so far: hdr.version_major == 1 */
	srec_v1(raw, f, v);
}

/*
 * The view of a 1.4 submit record of f: a stall record's layout without
 * the snapshot (decode.c checked its ustack_size is 0), so none is pointed
 * to: its stack is the frame-pointer chain, its maps the record's.
 */
static inline void srec_get_submit(const struct stall_file *f, const unsigned char *raw,
				   struct srec *v)
{
	srec_get(f, raw, v);
	v->snap_size = 0;
	v->snap = NULL;
}

/* Validate header and CPU tables. Returns 0, or -1 with *d filled. */
int stall_file_open(struct stall_file *f, const char *name,
		    const unsigned char *buf, size_t size, uint64_t base,
		    struct diag *d);
/* Streaming: buf holds the first size bytes read; returns 1 and sets *need
 * when more (up to the first record) must be read first. */
int stall_file_open_stream(struct stall_file *f, const char *name, const unsigned char *buf,
			   size_t size, uint64_t base, struct diag *d, uint64_t *need);
void stall_file_close(struct stall_file *f);
/* Bytes of the record at p (at least what the header says; version 2
 * records carry their own size). */
static inline uint32_t stall_record_size(const struct stall_file *f)
{
	return f->hdr.record_size;
}

/*
 * Fetching records into the CPU caches ahead of their use (a prefetch never
 * faults): a 1.2 record is read a few hundred bytes here and there (its
 * fields, its maps, its stack snapshot from the stack pointer up), which
 * the hardware prefetchers do not foresee, and each miss stalls the
 * unwind.  In two steps: the fixed part first; a few records later, once
 * that is in, what it says the record uses of the rest (map_count maps,
 * ustack_size bytes of snapshot; bounded by the header), not the whole
 * 4808 bytes.  Always inlined, and so must be their callers' helpers: gcc
 * 12 takes a function of prefetches alone for a pure one and drops the
 * calls to it.
 */
#define PREFETCH_INLINE static inline __attribute__((always_inline))

PREFETCH_INLINE void prefetch_range(const unsigned char *p, size_t from, size_t to)
{
	size_t k;

	for (k = from; k < to; k += 64)
		__builtin_prefetch(p + k);
}

/* session.c: the block of a mapped input that p is in, mapped ahead
 * (decode.c has a weak one that does nothing) */
void input_populate(const void *p);

PREFETCH_INLINE void stall_prefetch_fields(const struct stall_file *f, const unsigned char *p)
{
	input_populate(p);
	prefetch_range(p, 0, f->v12 ? f->maps_offset : f->hdr.record_size);
}

/* with_snap: the snapshot too, else the maps only */
PREFETCH_INLINE void stall_prefetch_rest(const struct stall_file *f, const unsigned char *p,
					bool with_snap)
{
	uint16_t maps;
	uint32_t snap;

	if (!f->v12)
		return;
	memcpy(&maps, p + FMT12_REC_MAP_COUNT, 2);
	memcpy(&snap, p + FMT12_REC_USTACK_SIZE, 4);
	prefetch_range(p, f->maps_offset,
		       f->maps_offset + (size_t)(maps < f->map_max ? maps : f->map_max) *
					FMT12_MAP_SIZE);
	if (with_snap)
		prefetch_range(p, f->ustack_offset,
			       f->ustack_offset + (snap < f->snapshot_max ? snap : f->snapshot_max));
}

/* Check records one at a time, in file order (bounded memory): the stall
 * records, or with submit_iter_init() the submit records of a 1.4 file. */
struct stall_iter {
	const struct stall_file *f;
	bool submit;		/* the submit section */
	const struct i915_stall_cpu_entry *cpus;	/* its CPU table */
	const unsigned char *first;	/* its first record in memory */
	uint64_t offset, count;		/* its file offset (relative to f->buf) and records */
	uint32_t size;			/* bytes of each record */
	uint64_t next;		/* next record index */
	uint32_t cpu_idx;	/* CPU table index of the current group */
	uint64_t left;		/* records left in that group */
	uint64_t last_seq;
	bool have_seq;
	bool warned_spin;
	uint8_t prefetch;	/* of the records ahead: 0 none, 1 fields and maps, 2 all used */
};
void stall_iter_init(struct stall_iter *it, const struct stall_file *f);
/* 1.4: the submit records at f->sbuf, each checked as docs/format.md says;
 * the views srec_get_submit() makes */
void submit_iter_init(struct stall_iter *it, const struct stall_file *f);
/*
 * 1: *raw is the next record, checked, and *v its view; 0: the end (every
 * group complete); -1: error in *d.  The record stays in f's buffer.
 */
int stall_iter_next(struct stall_iter *it, const unsigned char **raw, struct srec *v,
		    struct diag *d);
/* Streaming: check the record at p (stall_record_size() bytes, 8-byte aligned). */
int stall_iter_take(struct stall_iter *it, const unsigned char *p, struct srec *v,
		    struct diag *d);

const char *site_name(unsigned int site);	/* NULL if unknown */
int site_parse(const char *s);			/* -1 if unknown */
const char *outcome_name(unsigned int o);	/* NULL if unknown */
const char *engine_class_name(unsigned int c);	/* NULL if unknown */

/* The I915_STALL_SYNC_* bits of format 1.1, named for text and JSON. */
struct sync_flag_name {
	uint32_t bit;
	const char *text, *json;
};
extern const struct sync_flag_name sync_flag_names[];
extern const size_t sync_flag_count;
/* Whether the text report shows a record's fence count and sync flags:
 * always at a syncobj site, elsewhere only when not the plain 1, none. */
bool srec_show_sync(const struct srec *r);

#endif
