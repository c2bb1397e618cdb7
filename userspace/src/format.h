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
 */
#ifndef I915_STALLS_FORMAT_H
#define I915_STALLS_FORMAT_H

#include "i915_stall_format.h"

#define FMT_MINOR_KNOWN		1	/* the newest 1.x minor this reader decodes */

#define FMT10_HEADER_SIZE	288u
#define FMT10_RECORD_SIZE	640u
#define FMT11_HEADER_SIZE	296u
#define FMT11_RECORD_SIZE	648u
#define FMT11_HDR_UNATTRIBUTED	288u	/* __u64 */
#define FMT11_REC_FENCE_COUNT	640u	/* __u32 */
#define FMT11_REC_SYNC_FLAGS	644u	/* __u32 */

/* The smallest header and record of a file of minor m (>= 1: 1.1's). */
#define FMT_HEADER_MIN(m)	((m) ? FMT11_HEADER_SIZE : FMT10_HEADER_SIZE)
#define FMT_RECORD_MIN(m)	((m) ? FMT11_RECORD_SIZE : FMT10_RECORD_SIZE)

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

#endif
