// SPDX-License-Identifier: MIT
/*
 * mkstall: a tiny encoder of i915_stalls files for the tests, built on the
 * same format header as the kernel and the reader.
 *
 *   mkstall OUT < SPEC
 *
 * SPEC lines (# comments):
 *   header KEY=VALUE...   file header fields (names as in the header struct);
 *                         version_minor=1 makes a 1.1 file (296 B header, 648 B
 *                         records) with unattributed=N; the default is 1.0;
 *                         version_minor=2 a 1.2 file (312 B header) with
 *                         map_max, ustack_snapshot_max, maps_offset,
 *                         ustack_offset (default: no maps, no snapshot); its
 *                         records' 1.2 fields are 0, ustack_map all
 *                         FRAME_NOLOCK, unless poked
 *   cpu N KEY=VALUE...    CPU table entry (recorded defaults to the sum)
 *   rec KEY=VALUE...      a record: cpu seq start dur spin pid tgid owner error
 *                         wait_flags site outcome engine=C:I fence=CTX:SEQNO
 *                         timeout caller flags comm ocomm k=A,B,.. u=A,B,..
 *                         kdepth udepth (flags for engine/fence/owner are
 *                         set when those are given); 1.1: fences=N (default 1)
 *                         sync=FLAGS (I915_STALL_SYNC_*)
 *   map KEY=VALUE...      1.2: a map of the last rec or sub: start end off
 *                         (file offset) bid=HEX (build-id, flag BUILD_ID)
 *                         name=PATH (flag PATH unless path=0) deleted=1;
 *                         a record with maps gets per ustack[] frame the
 *                         index of the map it falls in (the PC at its
 *                         address, a return address at address - 1), else
 *                         FRAME_NOVMA; map_max must leave room (header)
 *   version_minor=4       (header) a 1.4 file (344 B header): after the CPU
 *                         table the submit CPU table, then the submit
 *                         records, then the stall records; header
 *                         submit_cpu_table_offset, submit_records_offset,
 *                         submit_record_count, submit_record_size and
 *                         submit_slots_per_cpu override the layout
 *   scpu N KEY=VALUE...   1.4: submit CPU table entry (as cpu)
 *   sub KEY=VALUE...      1.4: a submit record: the keys of rec (site 7,
 *                         comm "app" by default); rec's ahead=N sets
 *                         ahead and flag AHEAD (the bytes of 1.2's pad1
 *                         in an older file)
 *   poke OFF SIZE VALUE   overwrite SIZE (1,2,4,8) bytes at OFF, after layout
 *   truncate N            cut the file to N bytes
 *   end                   write this file and start another one (appended)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"	/* the shared header, and the layouts of 1.0 and 1.1 */

#define MAXREC (1 << 20)
#define MAXSUB 4096
#define MAXCPU 64
#define MAXMAPS 4096

struct cpu {
	struct i915_stall_cpu_entry e;
	int set_recorded, set_emitted;
	int used;
};

static struct i915_stall_file_header H;
/* 1.2: map_max, ustack_snapshot_max, maps_offset, ustack_offset */
static __u32 v12[4];
static int set_v12[4];
static int set_hdr_size, set_rec_size, set_cpu_size, set_cpu_count, set_tab, set_recoff,
	set_count;
static struct cpu C[MAXCPU], SC[MAXCPU];
static struct i915_stall_record R[MAXREC];
/* 1.4: submit records, and the submit section's header fields */
static struct i915_stall_record SR[MAXSUB];
static int nsub;
static __u64 v14[3];	/* submit_cpu_table_offset, submit_records_offset, submit_record_count */
static __u32 v14s[2];	/* submit_record_size, submit_slots_per_cpu */
static int set_v14[5];
/* 1.2 maps: a pool, each record's a run of it */
static struct i915_stall_map M[MAXMAPS];
static int nmaps;
struct mrun { int first, n; };
static struct mrun RM[MAXREC], SM[MAXSUB];
static struct mrun *last_run;	/* the last rec's or sub's */
/* 1.1's fields, kept apart: the shared header may be 1.0's */
struct x11 { __u32 fence_count, sync_flags; };
static struct x11 X[MAXREC];
static struct x11 *cur_x;	/* the rec's being read; NULL for a sub */
static __u64 unattributed;
static int nrec;
static struct { unsigned long long off, size, val; } pokes[64];
static int npokes;
static long long trunc_at = -1;
static FILE *out;
static int dirty;

static __attribute__((noreturn)) void die(const char *m, const char *a)
{
	fprintf(stderr, "mkstall: %s %s\n", m, a ? a : "");
	exit(2);
}

static unsigned long long num(const char *s)
{
	char *e;
	unsigned long long v;

	if (*s == '-')
		v = (unsigned long long)strtoll(s, &e, 0);
	else
		v = strtoull(s, &e, 0);
	if (e == s || *e)
		die("bad number", s);
	return v;
}

static void strfield(char *dst, size_t n, const char *v)
{
	memset(dst, 0, n);
	memcpy(dst, v, strlen(v) < n ? strlen(v) : n);	/* may fill it: no NUL */
}

static int stack(__u64 *dst, const char *v)
{
	int n = 0;
	char *copy = strdup(v), *tok, *save = NULL;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n >= 32)
			die("stack too deep", v);
		dst[n++] = num(tok);
	}
	free(copy);
	return n;
}

/* decode \xNN and \s (space) in comm values */
static char *unesc(const char *v)
{
	static char b[64];
	size_t i = 0;

	while (*v && i < sizeof(b) - 1) {
		if (v[0] == '\\' && v[1] == 'x' && v[2] && v[3]) {
			char h[3] = { v[2], v[3], 0 };

			b[i++] = (char)strtol(h, NULL, 16);
			v += 4;
		} else if (v[0] == '\\' && v[1] == 's') {
			b[i++] = ' ';
			v += 2;
		} else {
			b[i++] = *v++;
		}
	}
	b[i] = 0;
	return b;
}

static void header_kv(const char *k, const char *v)
{
#define N(f) if (!strcmp(k, #f)) { H.f = num(v); return; }
	N(version_major) N(version_minor) N(clock_id) N(snapshot_ns) N(realtime_offset_ns)
	N(threshold_ns) N(slots_per_cpu) N(flags) N(kstack_max) N(ustack_max) N(drm_minor)
	N(kernel_anchor_addr) N(i915_anchor_addr) N(i915_text_base) N(i915_text_size)
#undef N
#define S(f, n, set) if (!strcmp(k, #f)) { H.f = num(v); set = 1; return; }
	S(header_size, 0, set_hdr_size) S(record_size, 0, set_rec_size)
	S(cpu_entry_size, 0, set_cpu_size) S(cpu_count, 0, set_cpu_count)
	S(cpu_table_offset, 0, set_tab) S(records_offset, 0, set_recoff)
	S(record_count, 0, set_count)
#undef S
	if (!strcmp(k, "kernel_anchor")) { strfield(H.kernel_anchor, sizeof(H.kernel_anchor), v); return; }
	if (!strcmp(k, "i915_anchor")) { strfield(H.i915_anchor, sizeof(H.i915_anchor), v); return; }
	if (!strcmp(k, "device")) { strfield(H.device, sizeof(H.device), v); return; }
	if (!strcmp(k, "release")) { strfield(H.release, sizeof(H.release), v); return; }
	if (!strcmp(k, "magic")) { strfield(H.magic, sizeof(H.magic), v); return; }
	if (!strcmp(k, "unattributed")) { unattributed = num(v); return; }
	if (!strcmp(k, "map_max")) { v12[0] = (__u32)num(v); return; }
	if (!strcmp(k, "ustack_snapshot_max")) { v12[1] = (__u32)num(v); return; }
	if (!strcmp(k, "maps_offset")) { v12[2] = (__u32)num(v); set_v12[2] = 1; return; }
	if (!strcmp(k, "ustack_offset")) { v12[3] = (__u32)num(v); set_v12[3] = 1; return; }
	if (!strcmp(k, "submit_cpu_table_offset")) { v14[0] = num(v); set_v14[0] = 1; return; }
	if (!strcmp(k, "submit_records_offset")) { v14[1] = num(v); set_v14[1] = 1; return; }
	if (!strcmp(k, "submit_record_count")) { v14[2] = num(v); set_v14[2] = 1; return; }
	if (!strcmp(k, "submit_record_size")) { v14s[0] = (__u32)num(v); set_v14[3] = 1; return; }
	if (!strcmp(k, "submit_slots_per_cpu")) { v14s[1] = (__u32)num(v); set_v14[4] = 1; return; }
	die("unknown header field", k);
}

static void header_kv2(void *unused, const char *k, const char *v)
{
	(void)unused;
	header_kv(k, v);
}

static void cpu_kv(struct cpu *c, const char *k, const char *v)
{
	if (!strcmp(k, "recorded")) { c->e.recorded = num(v); c->set_recorded = 1; }
	else if (!strcmp(k, "emitted")) { c->e.emitted = num(v); c->set_emitted = 1; }
	else if (!strcmp(k, "overwritten")) c->e.overwritten = num(v);
	else if (!strcmp(k, "torn")) c->e.torn = num(v);
	else if (!strcmp(k, "dropped")) c->e.dropped = num(v);
	else if (!strcmp(k, "flags")) c->e.flags = (__u32)num(v);
	else if (!strcmp(k, "id")) c->e.cpu = (__u32)num(v);
	else die("unknown cpu field", k);
}

static int kdepth_set, udepth_set;

static void rec_kv(struct i915_stall_record *r, const char *k, const char *v)
{
	unsigned long long a, b;

#define N(f, n) if (!strcmp(k, n)) { r->f = num(v); return; }
	N(cpu, "cpu") N(seq, "seq") N(start_ns, "start") N(duration_ns, "dur") N(spin_ns, "spin")
	N(pid, "pid") N(tgid, "tgid") N(error, "error") N(wait_flags, "wait_flags")
	N(site, "site") N(outcome, "outcome") N(timeout_ns, "timeout") N(caller, "caller")
	N(kstack_depth, "kdepth") N(ustack_depth, "udepth") N(pad0, "pad0")
#undef N
	if (!strcmp(k, "flags")) { r->flags |= (__u16)num(v); return; }
	if (!strcmp(k, "fences") && cur_x) { cur_x->fence_count = (__u32)num(v); return; }
	if (!strcmp(k, "sync") && cur_x) { cur_x->sync_flags = (__u32)num(v); return; }
	if (!strcmp(k, "ahead")) { r->ahead = (__u16)num(v); r->flags |= I915_STALL_F_AHEAD; return; }
	if (!strcmp(k, "comm")) { strfield(r->comm, sizeof(r->comm), unesc(v)); return; }
	if (!strcmp(k, "ocomm")) { strfield(r->owner_comm, sizeof(r->owner_comm), unesc(v)); return; }
	if (!strcmp(k, "owner")) { r->owner_pid = (__u32)num(v); r->flags |= I915_STALL_F_OWNER; return; }
	if (!strcmp(k, "engine")) {
		if (sscanf(v, "%llu:%llu", &a, &b) != 2)
			die("engine=C:I", v);
		r->engine_class = (__u8)a;
		r->engine_instance = (__u8)b;
		r->flags |= I915_STALL_F_ENGINE;
		return;
	}
	if (!strcmp(k, "fence")) {
		if (sscanf(v, "%lli:%lli", (long long *)&a, (long long *)&b) != 2)
			die("fence=CTX:SEQNO", v);
		r->fence_context = a;
		r->fence_seqno = b;
		r->flags |= I915_STALL_F_FENCE;
		return;
	}
	if (!strcmp(k, "k")) { r->kstack_depth = (__u8)stack(r->kstack, v); return; }
	if (!strcmp(k, "u")) { r->ustack_depth = (__u8)stack(r->ustack, v); return; }
	die("unknown record field", k);
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static void map_kv(struct i915_stall_map *m, const char *k, const char *v)
{
	size_t i;

	if (!strcmp(k, "start")) { m->start = num(v); return; }
	if (!strcmp(k, "end")) { m->end = num(v); return; }
	if (!strcmp(k, "off")) { m->file_offset = num(v); return; }
	if (!strcmp(k, "name")) {
		strfield(m->name, sizeof(m->name), v);
		m->flags |= I915_STALL_MAP_PATH;
		return;
	}
	if (!strcmp(k, "path")) {
		if (!num(v))
			m->flags &= (__u8)~I915_STALL_MAP_PATH;
		return;
	}
	if (!strcmp(k, "deleted")) { m->flags |= I915_STALL_MAP_DELETED; return; }
	if (!strcmp(k, "bid")) {
		for (i = 0; v[2 * i] && v[2 * i + 1] && i < sizeof(m->build_id); i++) {
			if (hexval(v[2 * i]) < 0 || hexval(v[2 * i + 1]) < 0)
				die("bid=HEX", v);
			m->build_id[i] = (__u8)(hexval(v[2 * i]) << 4 | hexval(v[2 * i + 1]));
		}
		m->build_id_size = (__u8)i;
		m->flags |= I915_STALL_MAP_BUILD_ID;
		return;
	}
	die("unknown map field", k);
}

static void reset(void)
{
	memset(&H, 0, sizeof(H));
	memcpy(H.magic, I915_STALL_MAGIC, I915_STALL_MAGIC_LEN);
	H.version_major = I915_STALL_VERSION_MAJOR;
	H.version_minor = 0;	/* 1.0 unless the spec says so, whatever the header */
	H.clock_id = 1;
	H.kstack_max = I915_STALL_KSTACK_MAX;
	H.ustack_max = I915_STALL_USTACK_MAX;
	H.slots_per_cpu = 256;
	H.flags = I915_STALL_H_ENABLED;
	strfield(H.kernel_anchor, sizeof(H.kernel_anchor), "_stext");
	strfield(H.i915_anchor, sizeof(H.i915_anchor), "i915_driver_probe");
	strfield(H.device, sizeof(H.device), "0000:00:02.0");
	strfield(H.release, sizeof(H.release), "6.12.0-test");
	set_hdr_size = set_rec_size = set_cpu_size = set_cpu_count = set_tab = set_recoff =
		set_count = 0;
	memset(C, 0, sizeof(C));
	memset(SC, 0, sizeof(SC));
	memset(v14, 0, sizeof(v14));
	memset(v14s, 0, sizeof(v14s));
	memset(set_v14, 0, sizeof(set_v14));
	nrec = 0;
	nsub = 0;
	nmaps = 0;
	last_run = NULL;
	unattributed = 0;
	npokes = 0;
	trunc_at = -1;
}

/* The index of r's map that holds a (or FRAME_NOVMA) */
static __u8 map_of(const struct mrun *mr, __u64 a)
{
	int i;

	for (i = 0; i < mr->n; i++)
		if (a >= M[mr->first + i].start && a < M[mr->first + i].end)
			return (__u8)i;
	return FMT_FRAME_NOVMA;
}

/* A record at p (record_size bytes of room): the struct, 1.1's fields,
 * 1.2's maps and ustack_map */
static void put_record(unsigned char *p, __u32 size, const struct i915_stall_record *r0,
		       const struct mrun *mr, __u32 fence_count, __u32 sync_flags)
{
	struct i915_stall_record r = *r0;
	__u16 n = (__u16)(mr ? mr->n : 0);
	int i;

	memcpy(p, &r, FMT10_RECORD_SIZE < size ? FMT10_RECORD_SIZE : size);
	if (size >= FMT11_RECORD_SIZE) {
		memcpy(p + FMT11_REC_FENCE_COUNT, &fence_count, 4);
		memcpy(p + FMT11_REC_SYNC_FLAGS, &sync_flags, 4);
	}
	if (H.version_minor < 2 || size < FMT12_RECORD_SIZE)
		return;
	/* 1.4's ahead, 1.2's pad1: written in either, so that a test can
	 * show an older minor's reader ignores it */
	memcpy(p + FMT14_REC_AHEAD, &r.ahead, 2);
	/* no maps saved for any frame (as when the mmap lock was not
	 * taken), unless given or poked */
	memset(p + FMT12_REC_USTACK_MAP, FMT_FRAME_NOLOCK, I915_STALL_USTACK_MAX);
	if (!n)
		return;
	if (n > v12[0] || v12[2] + (size_t)n * FMT12_MAP_SIZE > size)
		die("more maps than map_max", NULL);
	memcpy(p + FMT12_REC_MAP_COUNT, &n, 2);
	memcpy(p + v12[2], &M[mr->first], (size_t)n * FMT12_MAP_SIZE);
	for (i = 0; i < r.ustack_depth; i++)
		p[FMT12_REC_USTACK_MAP + i] = map_of(mr, i ? r.ustack[i] - 1 : r.ustack[i]);
}

/* Records grouped by CPU, stable, at off; seq counted per CPU unless given */
static size_t put_records(unsigned char *buf, __u64 off, __u32 size, unsigned int ncpu,
			  const struct i915_stall_record *recs, const struct mrun *runs, int n,
			  int submit)
{
	__u64 seqs[MAXCPU] = { 0 };
	size_t k = 0, i;
	int j;

	for (i = 0; i < ncpu; i++)
		for (j = 0; j < n; j++) {
			struct i915_stall_record r = recs[j];

			if (r.cpu != i)
				continue;
			if (!r.seq)
				r.seq = seqs[i];
			seqs[i] = r.seq + 1;
			put_record(buf + off + k * size, size, &r, &runs[j],
				   submit ? 0 : X[j].fence_count, submit ? 0 : X[j].sync_flags);
			k++;
		}
	return k;
}

/* A CPU table's defaults: emitted counted from the records */
static void fill_cpus(struct cpu *T, unsigned int ncpu, const struct i915_stall_record *recs,
		      int n)
{
	size_t i;
	int j;

	for (i = 0; i < ncpu; i++) {
		__u64 em = 0;

		for (j = 0; j < n; j++)
			em += recs[j].cpu == i;
		if (!T[i].used)
			T[i].e.cpu = (__u32)i;
		if (!T[i].set_emitted)
			T[i].e.emitted = em;
		if (!T[i].set_recorded)
			T[i].e.recorded = T[i].e.emitted + T[i].e.overwritten + T[i].e.torn;
		T[i].e.flags |= T[i].used ? 0 : I915_STALL_CPU_POSSIBLE | I915_STALL_CPU_ONLINE;
	}
}

static void put_cpus(unsigned char *buf, __u64 tab, unsigned int ncpu, const struct cpu *T)
{
	size_t i;

	for (i = 0; i < ncpu; i++)
		memcpy(buf + tab + i * H.cpu_entry_size, &T[i].e,
		       sizeof(T[i].e) < H.cpu_entry_size ? sizeof(T[i].e) : H.cpu_entry_size);
}

static void emit(void)
{
	unsigned char *buf;
	size_t size, i;
	unsigned int ncpu = 0;
	int v4 = H.version_minor >= 4;

	for (i = 0; i < MAXCPU; i++)
		if (C[i].used || SC[i].used)
			ncpu = (unsigned int)i + 1;
	for (i = 0; i < (size_t)nrec; i++)
		if (R[i].cpu + 1u > ncpu)
			ncpu = R[i].cpu + 1u;
	for (i = 0; i < (size_t)nsub; i++)
		if (SR[i].cpu + 1u > ncpu)
			ncpu = SR[i].cpu + 1u;
	if (!ncpu)
		ncpu = 1;
	if (ncpu > MAXCPU)
		die("too many CPUs", NULL);
	if (!set_hdr_size) H.header_size = FMT_HEADER_MIN(H.version_minor);
	if (!set_v12[2]) v12[2] = FMT12_RECORD_SIZE;
	if (!set_v12[3]) v12[3] = v12[2] + v12[0] * FMT12_MAP_SIZE;
	if (!set_rec_size) {
		H.record_size = FMT_RECORD_MIN(H.version_minor);
		if (H.version_minor >= 2)
			H.record_size = (v12[3] + v12[1] + 7) / 8 * 8;
	}
	if (!set_cpu_size) H.cpu_entry_size = sizeof(C[0].e);
	if (!set_cpu_count) H.cpu_count = ncpu;
	if (!set_tab) H.cpu_table_offset = H.header_size;
	/* 1.4: the submit CPU table, then the submit records */
	if (!set_v14[3]) v14s[0] = (v12[2] + v12[0] * FMT12_MAP_SIZE + 7) / 8 * 8;
	if (!set_v14[4]) v14s[1] = v4 ? 64 : 0;
	if (!set_v14[0]) v14[0] = H.cpu_table_offset + (__u64)ncpu * H.cpu_entry_size;
	if (!set_v14[1]) v14[1] = v14[0] + (__u64)ncpu * H.cpu_entry_size;
	if (!set_v14[2]) v14[2] = (__u64)nsub;
	if (!set_recoff)
		H.records_offset = v4 ? v14[1] + (__u64)nsub * v14s[0] :
				   H.cpu_table_offset + (__u64)ncpu * H.cpu_entry_size;
	if (!set_count) H.record_count = (__u64)nrec;
	fill_cpus(C, ncpu, R, nrec);
	fill_cpus(SC, ncpu, SR, nsub);
	size = H.records_offset + (size_t)nrec * H.record_size;
	if (size < H.cpu_table_offset + (size_t)ncpu * H.cpu_entry_size)
		size = H.cpu_table_offset + (size_t)ncpu * H.cpu_entry_size;
	if (v4 && size < v14[0] + (size_t)ncpu * H.cpu_entry_size)
		size = v14[0] + (size_t)ncpu * H.cpu_entry_size;
	if (v4 && size < v14[1] + (size_t)nsub * v14s[0])
		size = v14[1] + (size_t)nsub * v14s[0];
	if (size < H.header_size)
		size = H.header_size;
	buf = calloc(1, size + 8);
	memcpy(buf, &H, FMT10_HEADER_SIZE < H.header_size ? FMT10_HEADER_SIZE : H.header_size);
	if (H.header_size >= FMT11_HEADER_SIZE)
		memcpy(buf + FMT11_HDR_UNATTRIBUTED, &unattributed, 8);
	if (H.header_size >= FMT12_HEADER_SIZE)
		memcpy(buf + FMT12_HDR_MAP_MAX, v12, sizeof(v12));
	if (v4 && H.header_size >= FMT14_HEADER_SIZE) {
		memcpy(buf + FMT14_HDR_SUBMIT_CPU_TABLE_OFFSET, v14, sizeof(v14));
		memcpy(buf + FMT14_HDR_SUBMIT_RECORD_SIZE, v14s, sizeof(v14s));
	}
	put_cpus(buf, H.cpu_table_offset, ncpu, C);
	put_records(buf, H.records_offset, H.record_size, ncpu, R, RM, nrec, 0);
	if (v4) {
		put_cpus(buf, v14[0], ncpu, SC);
		put_records(buf, v14[1], v14s[0], ncpu, SR, SM, nsub, 1);
	} else if (nsub) {
		die("sub needs version_minor=4", NULL);
	}
	for (i = 0; i < (size_t)npokes; i++) {
		if (pokes[i].off + pokes[i].size > size)
			die("poke out of range", NULL);
		memcpy(buf + pokes[i].off, &pokes[i].val, pokes[i].size);
	}
	if (trunc_at >= 0 && (size_t)trunc_at < size)
		size = (size_t)trunc_at;
	fwrite(buf, 1, size, out);
	free(buf);
	reset();
}

/* The KEY=VALUE words left in the line, to fn */
#define EACH_KV(save, fn, obj)						\
	do {								\
		char *kv_;						\
		while ((kv_ = strtok_r(NULL, " \t", &(save)))) {	\
			char *eq_ = strchr(kv_, '=');			\
			if (!eq_)					\
				die("KEY=VALUE expected", kv_);		\
			*eq_ = 0;					\
			fn(obj, kv_, eq_ + 1);				\
		}							\
	} while (0)

/* a rec or sub line: its defaults, then its keys */
static void new_record(struct i915_stall_record *r, struct mrun *mr, int site, char **save)
{
	memset(r, 0, sizeof(*r));
	r->timeout_ns = I915_STALL_TIMEOUT_NONE;
	r->engine_class = I915_STALL_ENGINE_NONE;
	r->site = (__u16)site;
	strfield(r->comm, sizeof(r->comm), "app");
	mr->first = nmaps;
	mr->n = 0;
	last_run = mr;
	kdepth_set = udepth_set = 0;
	EACH_KV(*save, rec_kv, r);
}

int main(int argc, char **argv)
{
	static char line[1 << 16];

	if (argc != 2)
		die("usage: mkstall OUT < SPEC", NULL);
	out = strcmp(argv[1], "-") ? fopen(argv[1], "wb") : stdout;
	if (!out)
		die("cannot open", argv[1]);
	reset();
	while (fgets(line, sizeof(line), stdin)) {
		char *save = NULL, *cmd;

		line[strcspn(line, "\n#")] = 0;
		cmd = strtok_r(line, " \t", &save);
		if (!cmd)
			continue;
		dirty = strcmp(cmd, "end");
		if (!strcmp(cmd, "end")) {
			emit();
			continue;
		}
		if (!strcmp(cmd, "poke")) {
			char *o = strtok_r(NULL, " \t", &save), *s = strtok_r(NULL, " \t", &save),
			     *v = strtok_r(NULL, " \t", &save);

			if (!o || !s || !v || npokes == 64)
				die("poke OFF SIZE VALUE", NULL);
			pokes[npokes].off = num(o);
			pokes[npokes].size = num(s);
			pokes[npokes].val = num(v);
			npokes++;
			continue;
		}
		if (!strcmp(cmd, "truncate")) {
			char *v = strtok_r(NULL, " \t", &save);

			if (!v)
				die("truncate N", NULL);
			trunc_at = (long long)num(v);
			continue;
		}
		if (!strcmp(cmd, "rec")) {
			if (nrec == MAXREC)
				die("too many records", NULL);
			X[nrec].fence_count = 1;
			X[nrec].sync_flags = 0;
			cur_x = &X[nrec];
			nrec++;
			new_record(&R[nrec - 1], &RM[nrec - 1], 1, &save);
			continue;
		}
		if (!strcmp(cmd, "sub")) {
			if (nsub == MAXSUB)
				die("too many submit records", NULL);
			nsub++;
			cur_x = NULL;
			new_record(&SR[nsub - 1], &SM[nsub - 1], FMT_SITE_SUBMIT, &save);
			continue;
		}
		if (!strcmp(cmd, "map")) {
			if (!last_run || nmaps == MAXMAPS || last_run->first + last_run->n != nmaps)
				die("map: after a rec or sub, at most", "4096");
			memset(&M[nmaps], 0, sizeof(M[nmaps]));
			EACH_KV(save, map_kv, &M[nmaps]);
			nmaps++;
			last_run->n++;
			continue;
		}
		if (!strcmp(cmd, "cpu") || !strcmp(cmd, "scpu")) {
			struct cpu *T = cmd[0] == 's' ? SC : C;
			char *id = strtok_r(NULL, " \t", &save);
			unsigned long long n;

			if (!id || (n = num(id)) >= MAXCPU)
				die("cpu N", id);
			T[n].used = 1;
			T[n].e.cpu = (__u32)n;
			EACH_KV(save, cpu_kv, &T[n]);
			continue;
		}
		if (!strcmp(cmd, "header")) {
			EACH_KV(save, header_kv2, NULL);
			continue;
		}
		die("unknown command", cmd);
	}
	if (dirty)
		emit();
	if (out != stdout)
		fclose(out);
	return 0;
}
