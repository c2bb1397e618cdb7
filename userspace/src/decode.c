// SPDX-License-Identifier: MIT
/*
 * Decoder of the i915_stalls file.  Every size, offset and count is checked
 * against the buffer before it is used; records are checked one at a time and
 * handed out where they lie, so a caller can stream them with bounded memory.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"

/* Sanity limits: far above anything a kernel writes, low enough that
 * arithmetic on them cannot overflow 64 bits. */
#define MAX_HEADER_SIZE		(1u << 20)
#define MAX_RECORD_SIZE		(1u << 20)
#define MAX_CPU_ENTRY_SIZE	(1u << 16)
#define MAX_CPUS		(1u << 16)
#define MAX_PREFIX		(1ull << 32)	/* header + CPU table + gap */
#define MAX_STREAM_PREFIX	(64ull << 20)	/* what --stream buffers */


#define HOFF(m) ((uint64_t)offsetof(struct i915_stall_file_header, m))
#define ROFF(m) ((uint64_t)offsetof(struct i915_stall_record, m))
#define COFF(m) ((uint64_t)offsetof(struct i915_stall_cpu_entry, m))

/* What a CPU table's messages call it: the stall rings' or the submit rings' */
struct table_names {
	const char *cpu;	/* "cpu", "submit cpu" */
	const char *table;	/* "CPU table", "submit CPU table" */
	const char *count;	/* the header's count of records */
	uint64_t count_off;	/* its offset in the header */
	const char *records;	/* "records", "submit records" */
	const char *seen;	/* what recorded + dropped count */
};
static const struct table_names stall_names = {
	"cpu", "CPU table", "record_count", HOFF(record_count), "records", "stalls"
};
static const struct table_names submit_names = {
	"submit cpu", "submit CPU table", "submit_record_count", FMT14_HDR_SUBMIT_RECORD_COUNT,
	"submit records", "submit records"
};

/* Losses and counts of a CPU table. */
struct table_sums {
	uint64_t overwritten, torn, dropped, recorded;
};

/*
 * Copy and check the cpu_count entries of a CPU table at file offset tab
 * (inside buf): ascending CPUs that fit a record's cpu field,
 * recorded == emitted + overwritten + torn, emitted summing to want, and
 * recorded + dropped over every CPU within 64 bits.
 */
static int read_cpu_table(const struct stall_file *f, const unsigned char *buf, uint64_t tab,
			  uint64_t want, const struct table_names *nm,
			  struct i915_stall_cpu_entry *cpus, struct table_sums *sum, struct diag *d)
{
	const struct i915_stall_file_header *h = &f->hdr;
	uint64_t base = f->base, emitted = 0, seen = 0;
	uint32_t i;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < h->cpu_count; i++) {
		uint64_t off = tab + (uint64_t)i * h->cpu_entry_size;
		struct i915_stall_cpu_entry *c = &cpus[i];

		memcpy(c, buf + off, sizeof(*c));
		if (i && c->cpu <= cpus[i - 1].cpu)
			return diag_fail(d, base + off + COFF(cpu),
					 "%s not in ascending CPU order (cpu %u after %u)", nm->table,
					 c->cpu, cpus[i - 1].cpu);
		if (c->cpu > 0xffff)
			return diag_fail(d, base + off + COFF(cpu),
					 "%s %u does not fit a record's cpu field", nm->cpu, c->cpu);
		if (c->emitted > c->recorded || c->overwritten > c->recorded - c->emitted ||
		    c->torn != c->recorded - c->emitted - c->overwritten)
			return diag_fail(d, base + off,
					 "%s %u: recorded %llu != emitted %llu + overwritten %llu + torn %llu",
					 nm->cpu, c->cpu, (unsigned long long)c->recorded,
					 (unsigned long long)c->emitted,
					 (unsigned long long)c->overwritten, (unsigned long long)c->torn);
		if (c->emitted > want - emitted)
			return diag_fail(d, base + off + COFF(emitted),
					 "%s %u: emitted counts exceed %s %llu", nm->cpu, c->cpu,
					 nm->count, (unsigned long long)want);
		emitted += c->emitted;
		/* What the table says the kernel saw, recorded + dropped over
		 * every CPU, must fit 64 bits: every lost count is a part of
		 * it (overwritten + torn <= recorded, checked above), so none
		 * of their sums can wrap to read as "none lost". */
		if (__builtin_add_overflow(seen, c->recorded, &seen))
			return diag_fail(d, base + off + COFF(recorded),
					 "%s %u: recorded %llu: the %s's counts of %s overflow 64 bits",
					 nm->cpu, c->cpu, (unsigned long long)c->recorded, nm->table,
					 nm->seen);
		if (__builtin_add_overflow(seen, c->dropped, &seen))
			return diag_fail(d, base + off + COFF(dropped),
					 "%s %u: dropped %llu: the %s's counts of %s overflow 64 bits",
					 nm->cpu, c->cpu, (unsigned long long)c->dropped, nm->table,
					 nm->seen);
		sum->overwritten += c->overwritten;
		sum->torn += c->torn;
		sum->dropped += c->dropped;
		sum->recorded += c->recorded;
	}
	if (emitted != want)
		return diag_fail(d, base + nm->count_off, "%s %llu != %llu %s emitted by the %s",
				 nm->count, (unsigned long long)want, (unsigned long long)emitted,
				 nm->records, nm->table);
	return 0;
}

/*
 * 1.4's header fields: the submit record's size against the record's maps
 * (it is a stall record without the snapshot), and where the submit CPU
 * table and the submit records are: after the CPU table (which ends at
 * tab_end), before records_offset, not overlapping each other, aligned.
 */
static int check_submit_layout(struct stall_file *f, uint64_t tab_end, struct diag *d)
{
	const struct i915_stall_file_header *h = &f->hdr;
	uint64_t base = f->base, min = f->maps_offset + (uint64_t)f->map_max * FMT12_MAP_SIZE;
	uint64_t stab_end, srec_end, room;

	if (f->submit_size < min || f->submit_size > MAX_RECORD_SIZE || f->submit_size % 8)
		return diag_fail(d, base + FMT14_HDR_SUBMIT_RECORD_SIZE,
				 "submit_record_size %u invalid (minimum %llu: maps_offset %u + %u maps; "
				 "multiple of 8)", f->submit_size, (unsigned long long)min,
				 f->maps_offset, f->map_max);
	if (f->submit_tab < tab_end || f->submit_tab % 8 || f->submit_tab > h->records_offset)
		return diag_fail(d, base + FMT14_HDR_SUBMIT_CPU_TABLE_OFFSET,
				 "submit_cpu_table_offset %llu not between the CPU table's end %llu and "
				 "records_offset %llu, or misaligned", (unsigned long long)f->submit_tab,
				 (unsigned long long)tab_end, (unsigned long long)h->records_offset);
	stab_end = f->submit_tab + (uint64_t)h->cpu_count * h->cpu_entry_size;
	if (stab_end > h->records_offset)
		return diag_fail(d, base + FMT14_HDR_SUBMIT_CPU_TABLE_OFFSET,
				 "the submit CPU table (%u entries from %llu) ends at %llu, past "
				 "records_offset %llu", h->cpu_count, (unsigned long long)f->submit_tab,
				 (unsigned long long)stab_end, (unsigned long long)h->records_offset);
	if (f->submit_off < tab_end || f->submit_off % 8 || f->submit_off > h->records_offset)
		return diag_fail(d, base + FMT14_HDR_SUBMIT_RECORDS_OFFSET,
				 "submit_records_offset %llu not between the CPU table's end %llu and "
				 "records_offset %llu, or misaligned", (unsigned long long)f->submit_off,
				 (unsigned long long)tab_end, (unsigned long long)h->records_offset);
	room = (h->records_offset - f->submit_off) / f->submit_size;
	if (f->submit_count > room)
		return diag_fail(d, base + FMT14_HDR_SUBMIT_RECORD_COUNT,
				 "%llu submit records of %u bytes from offset %llu end past "
				 "records_offset %llu", (unsigned long long)f->submit_count,
				 f->submit_size, (unsigned long long)f->submit_off,
				 (unsigned long long)h->records_offset);
	srec_end = f->submit_off + f->submit_count * f->submit_size;
	if (f->submit_count && f->submit_off < stab_end && f->submit_tab < srec_end)
		return diag_fail(d, base + FMT14_HDR_SUBMIT_RECORDS_OFFSET,
				 "the submit records [%llu, %llu) overlap the submit CPU table "
				 "[%llu, %llu)", (unsigned long long)f->submit_off,
				 (unsigned long long)srec_end, (unsigned long long)f->submit_tab,
				 (unsigned long long)stab_end);
	return 0;
}

/*
 * With need == NULL, buf holds the whole input from this file on.  With
 * need (streaming), buf holds only what was read so far: returns 1 with
 * *need set when the header is valid and more bytes, up to the first
 * record, are needed; the records themselves are not checked against size.
 */
static int open_common(struct stall_file *f, const char *name,
		       const unsigned char *buf, size_t size, uint64_t base,
		       struct diag *d, uint64_t *need)
{
	struct i915_stall_file_header *h = &f->hdr;
	uint64_t tab_end, rec_end;
	uint32_t min_hdr, min_rec;
	struct table_sums sum;

	memset(f, 0, sizeof(*f));
	f->name = name;
	f->buf = buf;
	f->size = size;
	f->base = base;

	if ((uintptr_t)buf % 8)
		return diag_fail(d, base, "stall file misaligned in memory (internal error)");
	if (size < I915_STALL_MAGIC_LEN)
		return diag_fail(d, base + size, "truncated: %zu bytes, no room for the magic", size);
	if (memcmp(buf, I915_STALL_MAGIC, I915_STALL_MAGIC_LEN))
		return diag_fail(d, base, "bad magic (not an i915_stalls file)");
	if (size < HOFF(header_size) + 4)
		return diag_fail(d, base + size, "truncated in the file header");
	memcpy(&h->version_major, buf + HOFF(version_major), 2);
	memcpy(&h->version_minor, buf + HOFF(version_minor), 2);
	if (h->version_major != I915_STALL_VERSION_MAJOR)
		return diag_fail(d, base + HOFF(version_major),
			    "unsupported format version %u.%u (this reader knows %u.x)",
			    h->version_major, h->version_minor, I915_STALL_VERSION_MAJOR);
	memcpy(&h->header_size, buf + HOFF(header_size), 4);
	/* each minor appends: its header and records are at least its own */
	min_hdr = FMT_HEADER_MIN(h->version_minor);
	min_rec = FMT_RECORD_MIN(h->version_minor);
	if (h->header_size < min_hdr || h->header_size > MAX_HEADER_SIZE)
		return diag_fail(d, base + HOFF(header_size),
			    "header_size %u out of range [%u, %u] for format %u.%u", h->header_size,
			    min_hdr, MAX_HEADER_SIZE, h->version_major, h->version_minor);
	if (size < h->header_size)
		return diag_fail(d, base + size, "truncated in the file header (%u bytes needed)",
			    h->header_size);
	{
		uint32_t hs = h->header_size;

		/* a 1.0 header is shorter than a 1.1 struct: the rest stays 0 */
		memcpy(h, buf, hs < sizeof(*h) ? hs : sizeof(*h));
		h->header_size = hs;
		/* an older minor's bytes there (of a larger header) are not 1.4's */
		if (h->version_minor < 4 && hs > FMT12_HEADER_SIZE)
			memset((char *)h + FMT12_HEADER_SIZE, 0,
			       (hs < sizeof(*h) ? hs : sizeof(*h)) - FMT12_HEADER_SIZE);
	}
	f->v11 = h->version_minor >= 1;
	/* 1.0 has no such field; 1.3's writer keeps it 0, counting none */
	f->has_unattributed = f->v11 && h->version_minor < 3;
	if (f->has_unattributed)
		memcpy(&f->unattributed, buf + FMT11_HDR_UNATTRIBUTED, 8);
	if (h->record_size < min_rec || h->record_size > MAX_RECORD_SIZE ||
	    h->record_size % 8)
		return diag_fail(d, base + HOFF(record_size),
			    "record_size %u invalid for format %u.%u (minimum %u, multiple of 8)",
			    h->record_size, h->version_major, h->version_minor, min_rec);
	f->v12 = h->version_minor >= 2;
	f->v13 = h->version_minor >= 3;
	f->v14 = h->version_minor >= 4;
	/* 1.3: a bit of no earlier minor */
	f->kaddr_hidden = f->v13 && (h->flags & FMT_H_KADDR_HIDDEN);
	f->frame_first = (uint8_t)fmt_frame_first_flag(h->version_minor);
	if (f->v12) {
		uint64_t maps_end;

		memcpy(&f->map_max, buf + FMT12_HDR_MAP_MAX, 4);
		memcpy(&f->snapshot_max, buf + FMT12_HDR_SNAPSHOT_MAX, 4);
		memcpy(&f->maps_offset, buf + FMT12_HDR_MAPS_OFFSET, 4);
		memcpy(&f->ustack_offset, buf + FMT12_HDR_USTACK_OFFSET, 4);
		/* map indices are bytes below the minor's first FMT_FRAME_* */
		if (f->map_max > f->frame_first)
			return diag_fail(d, base + FMT12_HDR_MAP_MAX,
				    "map_max %u exceeds %u for format %u.%u", f->map_max,
				    f->frame_first, h->version_major, h->version_minor);
		if (f->maps_offset < FMT12_RECORD_SIZE || f->maps_offset % 8)
			return diag_fail(d, base + FMT12_HDR_MAPS_OFFSET,
				    "maps_offset %u overlaps the record's fixed part (%u bytes) or is misaligned",
				    f->maps_offset, FMT12_RECORD_SIZE);
		maps_end = f->maps_offset + (uint64_t)f->map_max * FMT12_MAP_SIZE;
		if (maps_end > h->record_size)
			return diag_fail(d, base + FMT12_HDR_MAP_MAX,
				    "%u maps from record offset %u end at %llu, past record_size %u",
				    f->map_max, f->maps_offset, (unsigned long long)maps_end,
				    h->record_size);
		if (f->ustack_offset < maps_end)
			return diag_fail(d, base + FMT12_HDR_USTACK_OFFSET,
				    "ustack_offset %u overlaps the maps (they end at %llu)",
				    f->ustack_offset, (unsigned long long)maps_end);
		if ((uint64_t)f->ustack_offset + f->snapshot_max > h->record_size)
			return diag_fail(d, base + FMT12_HDR_SNAPSHOT_MAX,
				    "a %u-byte stack snapshot at record offset %u ends past record_size %u",
				    f->snapshot_max, f->ustack_offset, h->record_size);
	}
	if (h->cpu_entry_size < sizeof(struct i915_stall_cpu_entry) ||
	    h->cpu_entry_size > MAX_CPU_ENTRY_SIZE || h->cpu_entry_size % 8)
		return diag_fail(d, base + HOFF(cpu_entry_size),
			    "cpu_entry_size %u invalid (minimum %zu, multiple of 8)",
			    h->cpu_entry_size, sizeof(struct i915_stall_cpu_entry));
	if (h->cpu_count == 0 || h->cpu_count > MAX_CPUS)
		return diag_fail(d, base + HOFF(cpu_count), "cpu_count %u out of range [1, %u]",
			    h->cpu_count, MAX_CPUS);
	if (h->clock_id != 1)
		return diag_fail(d, base + HOFF(clock_id), "clock_id %u is not CLOCK_MONOTONIC (1)",
			    h->clock_id);
	if (h->kstack_max > I915_STALL_KSTACK_MAX)
		return diag_fail(d, base + HOFF(kstack_max), "kstack_max %u exceeds %u",
			    h->kstack_max, I915_STALL_KSTACK_MAX);
	if (h->ustack_max > I915_STALL_USTACK_MAX)
		return diag_fail(d, base + HOFF(ustack_max), "ustack_max %u exceeds %u",
			    h->ustack_max, I915_STALL_USTACK_MAX);
	if (h->cpu_table_offset < h->header_size || h->cpu_table_offset % 8)
		return diag_fail(d, base + HOFF(cpu_table_offset),
			    "cpu_table_offset %llu overlaps the header or is misaligned",
			    (unsigned long long)h->cpu_table_offset);
	if (h->cpu_table_offset > MAX_PREFIX)
		return diag_fail(d, base + HOFF(cpu_table_offset), "cpu_table_offset %llu too large",
			    (unsigned long long)h->cpu_table_offset);
	tab_end = h->cpu_table_offset + (uint64_t)h->cpu_count * h->cpu_entry_size;
	if (h->records_offset < tab_end || h->records_offset % 8)
		return diag_fail(d, base + HOFF(records_offset),
			    "records_offset %llu overlaps the CPU table (ends at %llu) or is misaligned",
			    (unsigned long long)h->records_offset, (unsigned long long)tab_end);
	if (h->records_offset > MAX_PREFIX)
		return diag_fail(d, base + HOFF(records_offset), "records_offset %llu too large",
			    (unsigned long long)h->records_offset);
	if (h->record_count > (UINT64_MAX - h->records_offset) / h->record_size)
		return diag_fail(d, base + HOFF(record_count), "record_count %llu impossibly large",
			    (unsigned long long)h->record_count);
	if (f->v14) {
		memcpy(&f->submit_tab, buf + FMT14_HDR_SUBMIT_CPU_TABLE_OFFSET, 8);
		memcpy(&f->submit_off, buf + FMT14_HDR_SUBMIT_RECORDS_OFFSET, 8);
		memcpy(&f->submit_count, buf + FMT14_HDR_SUBMIT_RECORD_COUNT, 8);
		memcpy(&f->submit_size, buf + FMT14_HDR_SUBMIT_RECORD_SIZE, 4);
		memcpy(&f->submit_slots, buf + FMT14_HDR_SUBMIT_SLOTS_PER_CPU, 4);
		if (check_submit_layout(f, tab_end, d))
			return -1;
	}
	if (need && h->records_offset > MAX_STREAM_PREFIX)
		return diag_fail(d, base + HOFF(records_offset), "records_offset %llu too large to stream",
			    (unsigned long long)h->records_offset);
	if (need && size < h->records_offset) {
		*need = h->records_offset;
		return 1;
	}
	if (h->cpu_table_offset > size)
		return diag_fail(d, base + size, "truncated before the CPU table (at %llu)",
			    (unsigned long long)h->cpu_table_offset);
	if (tab_end > size)
		return diag_fail(d, base + size, "truncated in the CPU table (%u entries end at %llu)",
			    h->cpu_count, (unsigned long long)tab_end);
	rec_end = h->records_offset + h->record_count * h->record_size;
	if (!need && rec_end > size)
		return diag_fail(d, base + size,
			    "truncated: %llu records of %u bytes from offset %llu need %llu bytes, have %zu",
			    (unsigned long long)h->record_count, h->record_size,
			    (unsigned long long)h->records_offset,
			    (unsigned long long)(base + rec_end), (size_t)(base + size));
	f->end = rec_end;

	f->cpus = xcalloc(h->cpu_count, sizeof(*f->cpus));
	if (read_cpu_table(f, buf, h->cpu_table_offset, h->record_count, &stall_names, f->cpus,
			   &sum, d))
		goto err;
	f->lost_overwritten = sum.overwritten;
	f->lost_torn = sum.torn;
	f->lost_dropped = sum.dropped;
	f->recorded = sum.recorded;
	if (f->v14) {
		f->scpus = xcalloc(h->cpu_count, sizeof(*f->scpus));
		if (read_cpu_table(f, buf, f->submit_tab, f->submit_count, &submit_names, f->scpus,
				   &sum, d))
			goto err;
		f->slost_overwritten = sum.overwritten;
		f->slost_torn = sum.torn;
		f->slost_dropped = sum.dropped;
		f->srecorded = sum.recorded;
		f->sbuf = buf + f->submit_off;
	}
	return 0;
err:
	free(f->cpus);
	free(f->scpus);
	f->cpus = f->scpus = NULL;
	return -1;
}

int stall_file_open(struct stall_file *f, const char *name, const unsigned char *buf,
		    size_t size, uint64_t base, struct diag *d)
{
	return open_common(f, name, buf, size, base, d, NULL);
}

int stall_file_open_stream(struct stall_file *f, const char *name, const unsigned char *buf,
			   size_t size, uint64_t base, struct diag *d, uint64_t *need)
{
	*need = 0;
	return open_common(f, name, buf, size, base, d, need);
}

void stall_file_close(struct stall_file *f)
{
	free(f->cpus);
	free(f->scpus);
	free(f->scopy);
	f->cpus = f->scpus = NULL;
	f->scopy = NULL;
	f->sbuf = NULL;
}

void stall_iter_init(struct stall_iter *it, const struct stall_file *f)
{
	memset(it, 0, sizeof(*it));
	it->f = f;
	it->cpus = f->cpus;
	it->offset = f->hdr.records_offset;
	it->count = f->hdr.record_count;
	it->size = f->hdr.record_size;
	it->cpu_idx = 0;
	it->left = f->hdr.cpu_count ? f->cpus[0].emitted : 0;
}

void submit_iter_init(struct stall_iter *it, const struct stall_file *f)
{
	memset(it, 0, sizeof(*it));
	it->f = f;
	it->submit = true;
	it->cpus = f->scpus;
	it->offset = f->submit_off;
	it->count = f->v14 ? f->submit_count : 0;
	it->size = f->submit_size;
	it->cpu_idx = 0;
	it->left = f->v14 && f->hdr.cpu_count ? f->scpus[0].emitted : 0;
}

#define ITER_AHEAD 4	/* records */

/* session.c maps the inputs and has the real one; a program of decode.c
 * alone (the fuzzer) reads its own buffers */
__attribute__((weak)) void input_populate(const void *p)
{
	(void)p;
}

int stall_iter_next(struct stall_iter *it, const unsigned char **raw, struct srec *v,
		    struct diag *d)
{
	const struct stall_file *f = it->f;
	const unsigned char *p;
	int rc;

	if (it->next >= it->count)
		return 0;
	/* stall_file_open() checked that the emitted counts sum up, so a
	 * group with records left exists. */
	p = (it->submit ? f->sbuf : f->buf + it->offset) + it->next * it->size;
	if (it->prefetch && !it->submit) {
		if (it->next + 2 * ITER_AHEAD < it->count)
			stall_prefetch_fields(f, p + 2 * ITER_AHEAD * it->size);
		if (it->next + ITER_AHEAD < it->count)
			stall_prefetch_rest(f, p + ITER_AHEAD * it->size, it->prefetch > 1);
	}
	rc = stall_iter_take(it, p, v, d);
	if (rc > 0)
		*raw = p;
	return rc;
}

/*
 * 1.2: the counts within the header's maxima, each frame's map index
 * within the record's maps, each map a non-empty range, a known
 * build-id size, and no two maps overlapping.
 */
static int check_v12(const struct stall_file *f, const unsigned char *p, const struct srec *r,
		     uint64_t off, const char *what, uint64_t n, struct diag *d)
{
	/* map_count <= map_max <= FMT_FRAME_FIRST_FLAG (checked) */
	uint64_t start[FMT_FRAME_FIRST_FLAG], end[FMT_FRAME_FIRST_FLAG], fo;
	uint32_t size;
	unsigned int i, k;

	memcpy(&size, p + FMT12_REC_USTACK_SIZE, 4);
	if (size > f->snapshot_max)
		return diag_fail(d, off + FMT12_REC_USTACK_SIZE,
				 "%s %llu: ustack_size %u exceeds ustack_snapshot_max %u",
				 what, (unsigned long long)n, size, f->snapshot_max);
	if (r->map_count > f->map_max)
		return diag_fail(d, off + FMT12_REC_MAP_COUNT,
				 "%s %llu: map_count %u exceeds map_max %u",
				 what, (unsigned long long)n, r->map_count, f->map_max);
	if (r->snap_size && r->user_sp > UINT64_MAX - r->snap_size)
		return diag_fail(d, off + FMT12_REC_USER_SP,
				 "%s %llu: a %u-byte snapshot at user_sp 0x%llx wraps around",
				 what, (unsigned long long)n, r->snap_size, (unsigned long long)r->user_sp);
	for (i = 0; i < r->udepth; i++)
		if (r->ustack_map[i] < f->frame_first && r->ustack_map[i] >= r->map_count)
			return diag_fail(d, off + FMT12_REC_USTACK_MAP + i,
					 "%s %llu: ustack_map[%u] %u: no such map (map_count %u)",
					 what, (unsigned long long)n, i, r->ustack_map[i], r->map_count);
	/* the ranges read once: the overlap check compares every pair */
	for (i = 0; i < r->map_count; i++) {
		uint64_t moff = off + f->maps_offset + (uint64_t)i * FMT12_MAP_SIZE;
		const unsigned char *m = r->maps + (size_t)i * FMT12_MAP_SIZE;
		uint8_t id_size = m[FMT12_MAP_BUILD_ID_SIZE];

		memcpy(&start[i], m + FMT12_MAP_START, 8);
		memcpy(&end[i], m + FMT12_MAP_END, 8);
		if (start[i] >= end[i])
			return diag_fail(d, moff + FMT12_MAP_START,
					 "%s %llu: map %u: start 0x%llx not below end 0x%llx",
					 what, (unsigned long long)n, i, (unsigned long long)start[i],
					 (unsigned long long)end[i]);
		memcpy(&fo, m + FMT12_MAP_FILE_OFFSET, 8);
		if (fo > UINT64_MAX - (end[i] - start[i]))
			return diag_fail(d, moff + FMT12_MAP_FILE_OFFSET,
					 "%s %llu: map %u: file_offset 0x%llx + %llu bytes overflows 64 bits",
					 what, (unsigned long long)n, i, (unsigned long long)fo,
					 (unsigned long long)(end[i] - start[i]));
		if (id_size > FMT12_BUILD_ID_LEN)
			return diag_fail(d, moff + FMT12_MAP_BUILD_ID_SIZE,
					 "%s %llu: map %u: build_id_size %u exceeds %u",
					 what, (unsigned long long)n, i, id_size, FMT12_BUILD_ID_LEN);
		for (k = 0; k < i; k++)
			if (start[i] < end[k] && start[k] < end[i])
				return diag_fail(d, moff + FMT12_MAP_START,
						 "%s %llu: map %u [0x%llx, 0x%llx) overlaps map %u",
						 what, (unsigned long long)n, i, (unsigned long long)start[i],
						 (unsigned long long)end[i], k);
	}
	return 0;
}

/* A submit record's own rules: site 7, no stack snapshot. */
static int check_submit(const unsigned char *p, const struct srec *r, uint64_t off, uint64_t n,
			struct diag *d)
{
	uint32_t size;

	if (r->site != FMT_SITE_SUBMIT)
		return diag_fail(d, off + ROFF(site), "submit record %llu: site %u, not submit (%u)",
				 (unsigned long long)n, r->site, FMT_SITE_SUBMIT);
	memcpy(&size, p + FMT12_REC_USTACK_SIZE, 4);
	if (size)
		return diag_fail(d, off + FMT12_REC_USTACK_SIZE,
				 "submit record %llu: ustack_size %u, not 0 (a submit record has no "
				 "stack snapshot)", (unsigned long long)n, size);
	return 0;
}

int stall_iter_take(struct stall_iter *it, const unsigned char *p, struct srec *r,
		    struct diag *d)
{
	const struct stall_file *f = it->f;
	const struct i915_stall_file_header *h = &f->hdr;
	const struct i915_stall_cpu_entry *c;
	const char *what = it->submit ? "submit record" : "record";
	const char *table = it->submit ? "submit CPU table" : "CPU table";
	uint64_t off;

	off = f->base + it->offset + it->next * it->size;
	if (it->next >= it->count)
		return diag_fail(d, off, "more %ss than %s %llu", what,
				 it->submit ? "submit_record_count" : "record_count",
				 (unsigned long long)it->count);
	/* Records are used where they lie: the input is mapped or read
	 * whole into an aligned buffer, and every offset to a record is a
	 * multiple of 8 (checked in stall_file_open()). */
	if ((uintptr_t)p % 8)
		return diag_fail(d, off, "%s %llu: misaligned in memory (internal error)", what,
				 (unsigned long long)it->next);
	while (it->left == 0 && it->cpu_idx + 1 < h->cpu_count) {
		it->cpu_idx++;
		it->have_seq = false;
		it->left = it->cpus[it->cpu_idx].emitted;
	}
	c = &it->cpus[it->cpu_idx];
	if (it->submit)
		srec_get_submit(f, p, r);
	else
		srec_get(f, p, r);
	if (r->cpu != c->cpu)
		return diag_fail(d, off + ROFF(cpu),
			    "%s %llu: cpu %u, but the %s says the next %llu records are cpu %u's",
			    what, (unsigned long long)it->next, r->cpu, table,
			    (unsigned long long)it->left, c->cpu);
	if (it->have_seq && r->seq <= it->last_seq)
		return diag_fail(d, off + ROFF(seq), "%s %llu: seq %llu not after %llu on cpu %u",
			    what, (unsigned long long)it->next, (unsigned long long)r->seq,
			    (unsigned long long)it->last_seq, c->cpu);
	if (r->kdepth > h->kstack_max)
		return diag_fail(d, off + ROFF(kstack_depth), "%s %llu: kstack_depth %u exceeds kstack_max %u",
			    what, (unsigned long long)it->next, r->kdepth, h->kstack_max);
	if (r->udepth > h->ustack_max)
		return diag_fail(d, off + ROFF(ustack_depth), "%s %llu: ustack_depth %u exceeds ustack_max %u",
			    what, (unsigned long long)it->next, r->udepth, h->ustack_max);
	if (it->submit && check_submit(p, r, off, it->next, d))
		return -1;
	if (f->v12 && check_v12(f, p, r, off, what, it->next, d))
		return -1;
	/* Not structural: keep the record, say so once per file. */
	if (!it->submit && r->spin_ns > r->duration_ns && !it->warned_spin) {
		warnx_("%s: offset %llu: record %llu: spin_ns %llu exceeds duration_ns %llu",
		       f->name, (unsigned long long)(off + ROFF(spin_ns)),
		       (unsigned long long)it->next, (unsigned long long)r->spin_ns,
		       (unsigned long long)r->duration_ns);
		it->warned_spin = true;
	}
	/* Entries past the depths are not data: no reader may look at them
	 * (they are not cleared, the record may be read-only). */
	it->last_seq = r->seq;
	it->have_seq = true;
	it->left--;
	it->next++;
	return 1;
}

/* Site names come from the format header, whichever way it spells them. */
const char *site_name(unsigned int site)
{
#ifdef I915_STALL_SITES
#define SITE_CASE(e, v, n) case v: return n;
	switch (site) {
	I915_STALL_SITES(SITE_CASE)
	default: return NULL;
	}
#undef SITE_CASE
#elif I915_STALL_VERSION_MINOR >= 1
	return i915_stall_site_name(site);
#else
	/* a 1.0 shared header: 1.1's sites by the names of the 1.1 header */
	if (site == FMT_SITE_SYNCOBJ)
		return "syncobj_wait";
	if (site == FMT_SITE_SYNCOBJ_TIMELINE)
		return "syncobj_timeline_wait";
	return i915_stall_site_name(site);
#endif
}

int site_parse(const char *s)
{
	char *end;
	long v;
	unsigned int i;

	for (i = 1; i < 256; i++)
		if (site_name(i) && !strcmp(s, site_name(i)))
			return (int)i;
	v = strtol(s, &end, 0);
	if (*s && !*end && v >= 0 && v <= 0xffff)
		return (int)v;
	return -1;
}

const char *outcome_name(unsigned int o)
{
	switch (o) {
	case I915_STALL_COMPLETED: return "completed";
	case I915_STALL_TIMEDOUT: return "timedout";
	case I915_STALL_INTERRUPTED: return "interrupted";
	case I915_STALL_ERROR: return "error";
	default: return NULL;
	}
}

const char *engine_class_name(unsigned int c)
{
	static const char *const n[] = { "rcs", "bcs", "vcs", "vecs", "ccs" };

	return c < sizeof(n) / sizeof(n[0]) ? n[c] : NULL;
}

/* WAIT_ALL is shown both ways ("all", "any"): the other bits when set. */
const struct sync_flag_name sync_flag_names[] = {
	{ FMT_SYNC_WAIT_ALL, "all", "wait_all" },
	{ FMT_SYNC_FOR_SUBMIT, "for-submit", "for_submit" },
	{ FMT_SYNC_AVAILABLE, "available", "available" },
	{ FMT_SYNC_DEADLINE, "deadline", "deadline" },
	{ FMT_SYNC_UNSUBMITTED, "unsubmitted", "unsubmitted" },
};
const size_t sync_flag_count = sizeof(sync_flag_names) / sizeof(sync_flag_names[0]);

bool srec_show_sync(const struct srec *r)
{
	return r->site == FMT_SITE_SYNCOBJ || r->site == FMT_SITE_SYNCOBJ_TIMELINE ||
	       r->fence_count != 1 || r->sync_flags;
}
