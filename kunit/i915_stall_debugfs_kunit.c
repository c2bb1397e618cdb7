// SPDX-License-Identifier: MIT
/*
 * Copyright © 2026 The i915 stall log authors
 *
 * KUnit tests of the control files of the stall log, #included at the end
 * of i915_stall_debugfs.c so they reach its static functions: suite
 * i915_stall_control.  A bad write returns -EINVAL and changes nothing.
 */

#include <kunit/test.h>

#include "i915_stall.h"
#include "i915_stall_kunit.h"

/* A stall of @age_ns ending now, as a wait site records it. */
static noinline void record_now(struct i915_stall_log *log, u64 age_ns)
{
	const struct i915_stall_wait w = {
		.start_ns = ktime_get_ns() - age_ns,
	};
	const struct i915_stall_info info = {
		.wait = &w,
		.timeout = 1,
		.site = I915_STALL_SITE_TEST,
	};

	i915_stall_record(log, &info);
}

/*
 * A disabled log records nothing and drops its hold of the wait sites'
 * key; other logs (a device booted with i915.stall_log=1) may hold it too,
 * so this log's part is what is checked.
 */
static void stall_test_disabled(struct kunit *test)
{
	struct i915_stall_log *log = i915_stall_test_log(test, TEST_SLOTS);
	int held = static_key_count(&i915_stall_key.key);
	struct stall_snapshot *snap;
	struct i915_stall_wait w;

	KUNIT_ASSERT_GE(test, held, 1);
	KUNIT_ASSERT_EQ(test, stall_enable_set(log, 0), 0);
	KUNIT_EXPECT_EQ(test, static_key_count(&i915_stall_key.key), held - 1);
	record_now(log, 5 * NSEC_PER_MSEC);

	snap = i915_stall_test_snapshot(test, log);
	KUNIT_EXPECT_EQ(test, snap_header(snap)->record_count, 0);
	KUNIT_EXPECT_EQ(test, snap_header(snap)->flags & I915_STALL_H_ENABLED, 0);
	/* Disabling twice takes nothing more. */
	KUNIT_ASSERT_EQ(test, stall_enable_set(log, 0), 0);
	KUNIT_EXPECT_EQ(test, static_key_count(&i915_stall_key.key), held - 1);

	/* With no log at all enabled, a wait that begins is not recorded. */
	if (held == 1) {
		KUNIT_EXPECT_FALSE(test, i915_stall_begin(&w));
		KUNIT_EXPECT_EQ(test, w.start_ns, 0);
		KUNIT_EXPECT_FALSE(test, i915_stall_active(&w));
	}

	KUNIT_ASSERT_EQ(test, stall_enable_set(log, 1), 0);
	KUNIT_EXPECT_EQ(test, static_key_count(&i915_stall_key.key), held);
	if (held == 1) {
		/* A wait that began disabled is not recorded, even enabled now. */
		KUNIT_EXPECT_FALSE(test, i915_stall_active(&w));
		KUNIT_EXPECT_EQ(test, i915_stall_since(&w), 0);
	}
	KUNIT_EXPECT_TRUE(test, i915_stall_begin(&w));
	KUNIT_EXPECT_NE(test, w.start_ns, 0);
	KUNIT_EXPECT_TRUE(test, i915_stall_active(&w));
	record_now(log, 5 * NSEC_PER_MSEC);
	snap = i915_stall_test_snapshot(test, log);
	KUNIT_EXPECT_EQ(test, snap_header(snap)->record_count, 1);
}

struct control_case {
	const char *name;
	int (*set)(void *data, u64 val);
	u64 val;
	int err;
	u64 enabled;	/* what the files read back after the write */
	u64 threshold_us;
};

static const struct control_case control_cases[] = {
	{ "enable=2", stall_enable_set, 2, -EINVAL, 1, 0 },
	{ "enable=U64_MAX", stall_enable_set, U64_MAX, -EINVAL, 1, 0 },
	{ "threshold_us=U64_MAX", stall_threshold_set, U64_MAX, -EINVAL, 1, 0 },
	{ "threshold_us overflowing ns", stall_threshold_set,
	  U64_MAX / NSEC_PER_USEC + 1, -EINVAL, 1, 0 },
	{ "slots=0", stall_slots_set, 0, -EINVAL, 1, 0 },
	{ "slots=15", stall_slots_set, 15, -EINVAL, 1, 0 },
	{ "slots=24 (not a power of two)", stall_slots_set, 24, -EINVAL, 1, 0 },
	{ "slots=131072 (too many)", stall_slots_set, 2 * STALL_MAX_SLOTS, -EINVAL, 1, 0 },
	{ "clear=0", stall_clear_set, 0, -EINVAL, 1, 0 },
	{ "clear=2", stall_clear_set, 2, -EINVAL, 1, 0 },
	/* good writes change only what they name: the records stay */
	{ "enable=0", stall_enable_set, 0, 0, 0, 0 },
	{ "threshold_us=250", stall_threshold_set, 250, 0, 1, 250 },
};

KUNIT_ARRAY_PARAM_DESC(control, control_cases, name);

/*
 * A bad control value returns -EINVAL and changes nothing at all; a good
 * one changes what it names and nothing else.
 */
static void stall_test_control(struct kunit *test)
{
	const struct control_case *p = test->param_value;
	struct i915_stall_log *log = i915_stall_test_log(test, TEST_SLOTS);
	struct stall_snapshot *before, *after;
	u64 enabled, threshold, slots;
	unsigned int cpu;

	cpu = i915_stall_test_write_pattern(log, 5);
	before = i915_stall_test_snapshot(test, log);

	KUNIT_EXPECT_EQ(test, p->set(log, p->val), p->err);

	after = i915_stall_test_snapshot(test, log);
	KUNIT_EXPECT_EQ(test, stall_enable_get(log, &enabled), 0);
	KUNIT_EXPECT_EQ(test, stall_threshold_get(log, &threshold), 0);
	KUNIT_EXPECT_EQ(test, stall_slots_get(log, &slots), 0);
	KUNIT_EXPECT_EQ(test, enabled, p->enabled);
	KUNIT_EXPECT_EQ(test, threshold, p->threshold_us);
	KUNIT_EXPECT_EQ(test, slots, TEST_SLOTS);
	KUNIT_EXPECT_EQ(test, snap_cpu(after, cpu)->recorded, 5);
	KUNIT_ASSERT_EQ(test, after->size, before->size);
	KUNIT_EXPECT_MEMEQ(test, after->data + snap_header(after)->records_offset,
			   before->data + snap_header(before)->records_offset,
			   after->size - snap_header(after)->records_offset);
}

static void stall_test_resize(struct kunit *test)
{
	struct i915_stall_log *log = i915_stall_test_log(test, TEST_SLOTS);
	struct stall_snapshot *snap;
	unsigned int cpu;

	i915_stall_test_write_pattern(log, 10);
	KUNIT_ASSERT_EQ(test, stall_slots_set(log, 64), 0);
	cpu = i915_stall_test_write_pattern(log, 40);

	snap = i915_stall_test_snapshot(test, log);
	KUNIT_EXPECT_EQ(test, snap_header(snap)->slots_per_cpu, 64);
	KUNIT_EXPECT_EQ(test, snap_header(snap)->record_count, 40);
	KUNIT_EXPECT_EQ(test, snap_cpu(snap, cpu)->recorded, 40);
	KUNIT_EXPECT_EQ(test, snap_cpu(snap, cpu)->overwritten, 0);
}

static struct kunit_case stall_control_cases[] = {
	KUNIT_CASE(stall_test_disabled),
	KUNIT_CASE_PARAM(stall_test_control, control_gen_params),
	KUNIT_CASE(stall_test_resize),
	{}
};

static struct kunit_suite stall_control_suite = {
	.name = "i915_stall_control",
	.test_cases = stall_control_cases,
};

kunit_test_suite(stall_control_suite);
