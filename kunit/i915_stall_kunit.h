/* SPDX-License-Identifier: MIT */
/*
 * Copyright © 2026 The i915 stall log authors
 *
 * What the KUnit suites of the stall log share: a log of their own, its
 * snapshot, and records of a known pattern.  Defined in
 * i915_stall_ring_kunit.c.
 */

#ifndef __I915_STALL_KUNIT_H__
#define __I915_STALL_KUNIT_H__

#include <kunit/test.h>
#include <linux/types.h>

#include "../i915_stall_format.h"
#include "../i915_stall_log.h"

#define TEST_SLOTS	16

/* A log of @slots with no user stack and threshold 0, enabled. */
struct i915_stall_log *i915_stall_test_log(struct kunit *test, u32 slots);
/* A snapshot with kernel addresses, freed when the test ends. */
struct stall_snapshot *i915_stall_test_snapshot(struct kunit *test,
						struct i915_stall_log *log);
/* Write one record on this CPU with @fill, through stall_ring_write(). */
void i915_stall_test_write(struct i915_stall_log *log,
			   void (*fill)(const struct i915_stall_rings *rings,
					struct i915_stall_record *s, const void *arg),
			   const void *arg);
/* Write @count pattern records on this CPU; returns the CPU. */
unsigned int i915_stall_test_write_pattern(struct i915_stall_log *log, u64 count);
/* Whether @r is the pattern record its fields name, numbered from @base. */
bool i915_stall_test_pattern_ok(const struct i915_stall_record *r, u64 base);
/* Whether kernel address @addr is in function @fn. */
bool i915_stall_test_frame_is(unsigned long addr, const char *fn);
/* Set a log's threshold, or enable or disable it, as its files do. */
void i915_stall_test_threshold_us(struct i915_stall_log *log, u64 us);
int i915_stall_test_enable(struct i915_stall_log *log, bool enable);

static inline const struct i915_stall_file_header *
snap_header(const struct stall_snapshot *s)
{
	return (const void *)s->data;
}

static inline const struct i915_stall_cpu_entry *
snap_cpu(const struct stall_snapshot *s, unsigned int cpu)
{
	return (const void *)(s->data + snap_header(s)->cpu_table_offset) +
	       cpu * sizeof(struct i915_stall_cpu_entry);
}

static inline const struct i915_stall_cpu_entry *
snap_submit_cpu(const struct stall_snapshot *s, unsigned int cpu)
{
	return (const void *)(s->data + snap_header(s)->submit_cpu_table_offset) +
	       cpu * snap_header(s)->cpu_entry_size;
}

static inline const struct i915_stall_record *
snap_submit(const struct stall_snapshot *s, u64 i)
{
	return (const void *)(s->data + snap_header(s)->submit_records_offset) +
	       i * snap_header(s)->submit_record_size;
}

static inline const struct i915_stall_record *
snap_rec(const struct stall_snapshot *s, u64 i)
{
	return (const void *)(s->data + snap_header(s)->records_offset) +
	       i * snap_header(s)->record_size;
}

#endif /* __I915_STALL_KUNIT_H__ */
