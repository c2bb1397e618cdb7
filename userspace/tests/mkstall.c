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
 *   poke OFF SIZE VALUE   overwrite SIZE (1,2,4,8) bytes at OFF, after layout
 *   truncate N            cut the file to N bytes
 *   end                   write this file and start another one (appended)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"	/* the shared header, and the layouts of 1.0 and 1.1 */

#define MAXREC (1 << 20)
#define MAXCPU 64

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
static struct cpu C[MAXCPU];
static struct i915_stall_record R[MAXREC];
/* 1.1's fields, kept apart: the shared header may be 1.0's */
static struct { __u32 fence_count, sync_flags; } X[MAXREC];
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
	die("unknown header field", k);
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
	int idx = (int)(r - R);

	unsigned long long a, b;

#define N(f, n) if (!strcmp(k, n)) { r->f = num(v); return; }
	N(cpu, "cpu") N(seq, "seq") N(start_ns, "start") N(duration_ns, "dur") N(spin_ns, "spin")
	N(pid, "pid") N(tgid, "tgid") N(error, "error") N(wait_flags, "wait_flags")
	N(site, "site") N(outcome, "outcome") N(timeout_ns, "timeout") N(caller, "caller")
	N(kstack_depth, "kdepth") N(ustack_depth, "udepth") N(pad0, "pad0")
#undef N
	if (!strcmp(k, "flags")) { r->flags |= (__u16)num(v); return; }
	if (!strcmp(k, "fences")) { X[idx].fence_count = (__u32)num(v); return; }
	if (!strcmp(k, "sync")) { X[idx].sync_flags = (__u32)num(v); return; }
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
	nrec = 0;
	unattributed = 0;
	npokes = 0;
	trunc_at = -1;
}

static void emit(void)
{
	unsigned char *buf;
	size_t size, i, j, n;
	unsigned int ncpu = 0;
	__u64 seqs[MAXCPU] = { 0 };

	for (i = 0; i < MAXCPU; i++)
		if (C[i].used)
			ncpu = (unsigned int)i + 1;
	for (i = 0; i < (size_t)nrec; i++)
		if (R[i].cpu + 1u > ncpu)
			ncpu = R[i].cpu + 1u;
	if (!ncpu)
		ncpu = 1;
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
	if (!set_recoff) H.records_offset = H.cpu_table_offset + (__u64)ncpu * H.cpu_entry_size;
	if (!set_count) H.record_count = (__u64)nrec;
	for (i = 0; i < ncpu; i++) {
		__u64 em = 0;

		for (j = 0; j < (size_t)nrec; j++)
			em += R[j].cpu == i;
		if (!C[i].used)
			C[i].e.cpu = (__u32)i;
		if (!C[i].set_emitted)
			C[i].e.emitted = em;
		if (!C[i].set_recorded)
			C[i].e.recorded = C[i].e.emitted + C[i].e.overwritten + C[i].e.torn;
		C[i].e.flags |= C[i].used ? 0 : I915_STALL_CPU_POSSIBLE | I915_STALL_CPU_ONLINE;
	}
	size = H.records_offset + (size_t)nrec * H.record_size;
	if (size < H.cpu_table_offset + (size_t)ncpu * H.cpu_entry_size)
		size = H.cpu_table_offset + (size_t)ncpu * H.cpu_entry_size;
	if (size < H.header_size)
		size = H.header_size;
	buf = calloc(1, size + 8);
	memcpy(buf, &H, FMT10_HEADER_SIZE < H.header_size ? FMT10_HEADER_SIZE : H.header_size);
	if (H.header_size >= FMT11_HEADER_SIZE)
		memcpy(buf + FMT11_HDR_UNATTRIBUTED, &unattributed, 8);
	if (H.header_size >= FMT12_HEADER_SIZE)
		memcpy(buf + FMT12_HDR_MAP_MAX, v12, sizeof(v12));
	for (i = 0; i < ncpu; i++)
		memcpy(buf + H.cpu_table_offset + i * H.cpu_entry_size, &C[i].e,
		       sizeof(C[i].e) < H.cpu_entry_size ? sizeof(C[i].e) : H.cpu_entry_size);
	/* records grouped by CPU, stable */
	n = 0;
	for (i = 0; i < ncpu; i++)
		for (j = 0; j < (size_t)nrec; j++) {
			struct i915_stall_record r = R[j];

			if (r.cpu != i)
				continue;
			if (!r.seq)
				r.seq = seqs[i];
			seqs[i] = r.seq + 1;
			memcpy(buf + H.records_offset + n * H.record_size, &r,
			       FMT10_RECORD_SIZE < H.record_size ? FMT10_RECORD_SIZE : H.record_size);
			if (H.record_size >= FMT11_RECORD_SIZE) {
				unsigned char *p = buf + H.records_offset + n * H.record_size;

				memcpy(p + FMT11_REC_FENCE_COUNT, &X[j].fence_count, 4);
				memcpy(p + FMT11_REC_SYNC_FLAGS, &X[j].sync_flags, 4);
			}
			/* 1.2: no maps saved for any frame (as when the mmap lock
			 * was not taken), unless poked */
			if (H.version_minor >= 2 && H.record_size >= FMT12_RECORD_SIZE)
				memset(buf + H.records_offset + n * H.record_size +
				       FMT12_REC_USTACK_MAP, FMT_FRAME_NOLOCK, I915_STALL_USTACK_MAX);
			n++;
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

int main(int argc, char **argv)
{
	char line[8192];

	if (argc != 2)
		die("usage: mkstall OUT < SPEC", NULL);
	out = strcmp(argv[1], "-") ? fopen(argv[1], "wb") : stdout;
	if (!out)
		die("cannot open", argv[1]);
	reset();
	while (fgets(line, sizeof(line), stdin)) {
		char *save = NULL, *cmd, *kv;

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
			struct i915_stall_record *r;

			if (nrec == MAXREC)
				die("too many records", NULL);
			r = &R[nrec];
			X[nrec].fence_count = 1;
			X[nrec].sync_flags = 0;
			nrec++;
			memset(r, 0, sizeof(*r));
			r->timeout_ns = I915_STALL_TIMEOUT_NONE;
			r->engine_class = I915_STALL_ENGINE_NONE;
			r->site = 1;
			strfield(r->comm, sizeof(r->comm), "app");
			kdepth_set = udepth_set = 0;
			while ((kv = strtok_r(NULL, " \t", &save))) {
				char *eq = strchr(kv, '=');

				if (!eq)
					die("KEY=VALUE expected", kv);
				*eq = 0;
				rec_kv(r, kv, eq + 1);
			}
			continue;
		}
		if (!strcmp(cmd, "cpu")) {
			char *id = strtok_r(NULL, " \t", &save);
			unsigned long long n;

			if (!id || (n = num(id)) >= MAXCPU)
				die("cpu N", id);
			C[n].used = 1;
			C[n].e.cpu = (__u32)n;
			while ((kv = strtok_r(NULL, " \t", &save))) {
				char *eq = strchr(kv, '=');

				if (!eq)
					die("KEY=VALUE expected", kv);
				*eq = 0;
				cpu_kv(&C[n], kv, eq + 1);
			}
			continue;
		}
		if (!strcmp(cmd, "header")) {
			while ((kv = strtok_r(NULL, " \t", &save))) {
				char *eq = strchr(kv, '=');

				if (!eq)
					die("KEY=VALUE expected", kv);
				*eq = 0;
				header_kv(kv, eq + 1);
			}
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
