/* SPDX-License-Identifier: MIT */
/*
 * i915-stalls: the layouts of every 1.x minor of the stall format.
 *
 * The shared i915_stall_format.h describes the newest minor its writer
 * knows; a 1.x file may be of an older one, whose header and records are
 * shorter.  This reader reads 1.0 and 1.1, so it keeps here the sizes and
 * offsets of each minor (they are ABI), checked against the shared header
 * when that header has them.  What a minor appends is read only from a file
 * of that minor or a newer one, never past an older file's record.
 *
 *   1.0  header 288 B, record 640 B
 *   1.1  header 296 B (+ unattributed u64 @288),
 *        record 648 B (+ fence_count u32 @640, sync_flags u32 @644),
 *        sites syncobj_wait (5), syncobj_timeline_wait (6), I915_STALL_SYNC_*
 *   1.2  header 312 B (+ map_max, ustack_snapshot_max, maps_offset, ustack_offset u32
 *        @296..308), record 712 B fixed part (+ ustack_size u32 @648, map_count u16
 *        @652, user_ip/sp/bp u64 @656/664/672, ustack_map[32] u8 @680), then per
 *        record map_max struct i915_stall_map (128 B) at maps_offset and
 *        ustack_snapshot_max bytes of user stack at ustack_offset
 *   1.3  same layout; record flags USTACK_NODUMP, USTACK_NOLOCK, MAPS_CHANGED,
 *        ustack_map value 0xfb (FRAME_CHANGED: so map_max <= 251), header flag
 *        KADDR_HIDDEN; header unattributed and CPU dropped always 0 (unknown)
 *   1.4  header 344 B (+ submit_cpu_table_offset, submit_records_offset,
 *        submit_record_count u64 @312..328, submit_record_size,
 *        submit_slots_per_cpu u32 @336, 340); record ahead u16 @654 (1.2's
 *        pad1), flags SUBMITTED and AHEAD, site submit (7); between the CPU
 *        table and records_offset, the submit rings' CPU table and the submit
 *        records (a stall record's layout without the snapshot)
 */
#ifndef I915_STALLS_FORMAT_H
#define I915_STALLS_FORMAT_H

#include "i915_stall_format.h"

#define FMT_MINOR_KNOWN		4	/* the newest 1.x minor this reader decodes */

#define FMT10_HEADER_SIZE	288u
#define FMT10_RECORD_SIZE	640u
#define FMT11_HEADER_SIZE	296u
#define FMT11_RECORD_SIZE	648u
#define FMT11_HDR_UNATTRIBUTED	288u	/* __u64 */
#define FMT11_REC_FENCE_COUNT	640u	/* __u32 */
#define FMT11_REC_SYNC_FLAGS	644u	/* __u32 */

#define FMT12_HEADER_SIZE	312u
#define FMT12_RECORD_SIZE	712u	/* the fixed part; maps and snapshot follow */
#define FMT12_HDR_MAP_MAX	296u	/* __u32 */
#define FMT12_HDR_SNAPSHOT_MAX	300u	/* __u32 */
#define FMT12_HDR_MAPS_OFFSET	304u	/* __u32 */
#define FMT12_HDR_USTACK_OFFSET	308u	/* __u32 */
#define FMT12_REC_USTACK_SIZE	648u	/* __u32 */
#define FMT12_REC_MAP_COUNT	652u	/* __u16 */
#define FMT12_REC_USER_IP	656u	/* __u64 */
#define FMT12_REC_USER_SP	664u	/* __u64 */
#define FMT12_REC_USER_BP	672u	/* __u64 */
#define FMT12_REC_USTACK_MAP	680u	/* __u8[32] */
#define FMT12_MAP_SIZE		128u	/* struct i915_stall_map */
#define FMT12_MAP_START		0u
#define FMT12_MAP_END		8u
#define FMT12_MAP_FILE_OFFSET	16u
#define FMT12_MAP_BUILD_ID	24u	/* __u8[20] */
#define FMT12_MAP_BUILD_ID_SIZE	44u
#define FMT12_MAP_FLAGS		45u
#define FMT12_MAP_NAME		48u	/* char[80] */
#define FMT12_BUILD_ID_LEN	20u
#define FMT12_MAP_NAME_LEN	80u

#define FMT14_HEADER_SIZE	344u
#define FMT14_HDR_SUBMIT_CPU_TABLE_OFFSET 312u	/* __u64 */
#define FMT14_HDR_SUBMIT_RECORDS_OFFSET	320u	/* __u64 */
#define FMT14_HDR_SUBMIT_RECORD_COUNT	328u	/* __u64 */
#define FMT14_HDR_SUBMIT_RECORD_SIZE	336u	/* __u32 */
#define FMT14_HDR_SUBMIT_SLOTS_PER_CPU	340u	/* __u32 */
#define FMT14_REC_AHEAD		654u	/* __u16, 1.2's pad1 */

/* The smallest header and record of a file of minor m. */
#define FMT_HEADER_MIN(m)	((m) >= 4 ? FMT14_HEADER_SIZE : (m) >= 2 ? FMT12_HEADER_SIZE :	\
				 (m) ? FMT11_HEADER_SIZE : FMT10_HEADER_SIZE)
#define FMT_RECORD_MIN(m)	((m) >= 2 ? FMT12_RECORD_SIZE : (m) ? FMT11_RECORD_SIZE : FMT10_RECORD_SIZE)

static_assert(offsetof(struct i915_stall_record, ustack) + sizeof(__u64) * I915_STALL_USTACK_MAX ==
	      FMT10_RECORD_SIZE, "1.0 record size");
static_assert(offsetof(struct i915_stall_file_header, release) + I915_STALL_RELEASE_LEN ==
	      FMT10_HEADER_SIZE, "1.0 header size");

#if I915_STALL_VERSION_MINOR >= 1
I915_STALL_LAYOUT(i915_stall_record, fence_count, FMT11_REC_FENCE_COUNT);
I915_STALL_LAYOUT(i915_stall_record, sync_flags, FMT11_REC_SYNC_FLAGS);
I915_STALL_LAYOUT(i915_stall_file_header, unattributed, FMT11_HDR_UNATTRIBUTED);
#define FMT_SITE_SYNCOBJ		I915_STALL_SITE_SYNCOBJ
#define FMT_SITE_SYNCOBJ_TIMELINE	I915_STALL_SITE_SYNCOBJ_TIMELINE
#define FMT_SYNC_WAIT_ALL		I915_STALL_SYNC_WAIT_ALL
#define FMT_SYNC_FOR_SUBMIT		I915_STALL_SYNC_FOR_SUBMIT
#define FMT_SYNC_AVAILABLE		I915_STALL_SYNC_AVAILABLE
#define FMT_SYNC_DEADLINE		I915_STALL_SYNC_DEADLINE
#define FMT_SYNC_UNSUBMITTED		I915_STALL_SYNC_UNSUBMITTED
#else
/* A 1.0 shared header: 1.1's values, as the 1.1 header defines them. */
#define FMT_SITE_SYNCOBJ		5
#define FMT_SITE_SYNCOBJ_TIMELINE	6
#define FMT_SYNC_WAIT_ALL		0x1
#define FMT_SYNC_FOR_SUBMIT		0x2
#define FMT_SYNC_AVAILABLE		0x4
#define FMT_SYNC_DEADLINE		0x8
#define FMT_SYNC_UNSUBMITTED		0x100
#endif

#if I915_STALL_VERSION_MINOR >= 2
static_assert(sizeof(struct i915_stall_file_header) ==
	      (I915_STALL_VERSION_MINOR >= 4 ? FMT14_HEADER_SIZE : FMT12_HEADER_SIZE),
	      "1.2 header size (1.4's appends to it)");
static_assert(sizeof(struct i915_stall_record) == FMT12_RECORD_SIZE, "1.2 record size");
static_assert(sizeof(struct i915_stall_map) == FMT12_MAP_SIZE, "1.2 map size");
I915_STALL_LAYOUT(i915_stall_file_header, map_max, FMT12_HDR_MAP_MAX);
I915_STALL_LAYOUT(i915_stall_file_header, ustack_snapshot_max, FMT12_HDR_SNAPSHOT_MAX);
I915_STALL_LAYOUT(i915_stall_file_header, maps_offset, FMT12_HDR_MAPS_OFFSET);
I915_STALL_LAYOUT(i915_stall_file_header, ustack_offset, FMT12_HDR_USTACK_OFFSET);
I915_STALL_LAYOUT(i915_stall_record, ustack_size, FMT12_REC_USTACK_SIZE);
I915_STALL_LAYOUT(i915_stall_record, map_count, FMT12_REC_MAP_COUNT);
I915_STALL_LAYOUT(i915_stall_record, user_ip, FMT12_REC_USER_IP);
I915_STALL_LAYOUT(i915_stall_record, user_sp, FMT12_REC_USER_SP);
I915_STALL_LAYOUT(i915_stall_record, user_bp, FMT12_REC_USER_BP);
I915_STALL_LAYOUT(i915_stall_record, ustack_map, FMT12_REC_USTACK_MAP);
I915_STALL_LAYOUT(i915_stall_map, start, FMT12_MAP_START);
I915_STALL_LAYOUT(i915_stall_map, end, FMT12_MAP_END);
I915_STALL_LAYOUT(i915_stall_map, file_offset, FMT12_MAP_FILE_OFFSET);
I915_STALL_LAYOUT(i915_stall_map, build_id, FMT12_MAP_BUILD_ID);
I915_STALL_LAYOUT(i915_stall_map, build_id_size, FMT12_MAP_BUILD_ID_SIZE);
I915_STALL_LAYOUT(i915_stall_map, flags, FMT12_MAP_FLAGS);
I915_STALL_LAYOUT(i915_stall_map, name, FMT12_MAP_NAME);
static_assert(I915_STALL_BUILD_ID_LEN == FMT12_BUILD_ID_LEN, "1.2 build-id length");
static_assert(I915_STALL_MAP_NAME_LEN == FMT12_MAP_NAME_LEN, "1.2 map name length");
#define FMT_F_USER_REGS		I915_STALL_F_USER_REGS
#define FMT_F_MAPS_NOLOCK	I915_STALL_F_MAPS_NOLOCK
#define FMT_F_MAPS_FULL		I915_STALL_F_MAPS_FULL
#define FMT_F_MAPS_CUT		I915_STALL_F_MAPS_CUT
#define FMT_FRAME_FULL		I915_STALL_FRAME_FULL
#define FMT_FRAME_NOLOCK	I915_STALL_FRAME_NOLOCK
#define FMT_FRAME_ANON		I915_STALL_FRAME_ANON
#define FMT_FRAME_NOVMA		I915_STALL_FRAME_NOVMA
#define FMT_MAP_BUILD_ID	I915_STALL_MAP_BUILD_ID
#define FMT_MAP_PATH		I915_STALL_MAP_PATH
#define FMT_MAP_DELETED		I915_STALL_MAP_DELETED
#else
/* An older shared header: 1.2's values, as the 1.2 header defines them. */
#define FMT_F_USER_REGS		0x80
#define FMT_F_MAPS_NOLOCK	0x100
#define FMT_F_MAPS_FULL		0x200
#define FMT_F_MAPS_CUT		0x400
#define FMT_FRAME_FULL		0xfc
#define FMT_FRAME_NOLOCK	0xfd
#define FMT_FRAME_ANON		0xfe
#define FMT_FRAME_NOVMA		0xff
#define FMT_MAP_BUILD_ID	0x1
#define FMT_MAP_PATH		0x2
#define FMT_MAP_DELETED		0x4
#endif

/* 1.3: same layout as 1.2, new flags and one more ustack_map value */
#if I915_STALL_VERSION_MINOR >= 3
#define FMT_F_USTACK_NODUMP	I915_STALL_F_USTACK_NODUMP
#define FMT_F_USTACK_NOLOCK	I915_STALL_F_USTACK_NOLOCK
#define FMT_F_MAPS_CHANGED	I915_STALL_F_MAPS_CHANGED
#define FMT_FRAME_CHANGED	I915_STALL_FRAME_CHANGED
#define FMT_H_KADDR_HIDDEN	I915_STALL_H_KADDR_HIDDEN
#else
#define FMT_F_USTACK_NODUMP	0x800
#define FMT_F_USTACK_NOLOCK	0x1000
#define FMT_F_MAPS_CHANGED	0x2000
#define FMT_FRAME_CHANGED	0xfb
#define FMT_H_KADDR_HIDDEN	0x4
#endif

/* 1.4: the submit section, the record's ahead, two flags, site 7 */
#if I915_STALL_VERSION_MINOR >= 4
I915_STALL_LAYOUT(i915_stall_file_header, submit_cpu_table_offset, FMT14_HDR_SUBMIT_CPU_TABLE_OFFSET);
I915_STALL_LAYOUT(i915_stall_file_header, submit_records_offset, FMT14_HDR_SUBMIT_RECORDS_OFFSET);
I915_STALL_LAYOUT(i915_stall_file_header, submit_record_count, FMT14_HDR_SUBMIT_RECORD_COUNT);
I915_STALL_LAYOUT(i915_stall_file_header, submit_record_size, FMT14_HDR_SUBMIT_RECORD_SIZE);
I915_STALL_LAYOUT(i915_stall_file_header, submit_slots_per_cpu, FMT14_HDR_SUBMIT_SLOTS_PER_CPU);
I915_STALL_LAYOUT(i915_stall_record, ahead, FMT14_REC_AHEAD);
#define FMT_F_SUBMITTED		I915_STALL_F_SUBMITTED
#define FMT_F_AHEAD		I915_STALL_F_AHEAD
#define FMT_AHEAD_MANY		I915_STALL_AHEAD_MANY
#define FMT_SITE_SUBMIT		I915_STALL_SITE_SUBMIT
#else
#define FMT_F_SUBMITTED		0x4000
#define FMT_F_AHEAD		0x8000
#define FMT_AHEAD_MANY		0xffff
#define FMT_SITE_SUBMIT		7
#endif

/*
 * ustack_map values below it are map indices, the rest FMT_FRAME_*: 1.2's
 * first flag is FRAME_FULL (0xfc), 1.3's FRAME_CHANGED (0xfb).  A 1.2 file
 * may index a map 0xfb.
 */
#define FMT_FRAME_FIRST_FLAG	FMT_FRAME_FULL	/* the largest map_max of any minor */
static inline unsigned int fmt_frame_first_flag(unsigned int minor)
{
	return minor >= 3 ? FMT_FRAME_CHANGED : FMT_FRAME_FULL;
}

#endif
