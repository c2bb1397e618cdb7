// SPDX-License-Identifier: MIT
/*
 * Copyright © 2026 The i915 stall log authors
 *
 * KUnit tests of the ring and the snapshot file of the stall log,
 * #included at the end of i915_stall.c so they reach its static
 * functions: suite i915_stall, on logs of its own, with writers on every
 * CPU for the concurrency case.  The helpers the other suites share
 * (i915_stall_kunit.h) are defined here.
 *
 * Test cases run in kernel threads, so every record they make has the
 * KTHREAD flag and an empty user stack; i915_stall_user_kunit.c tests the
 * user part, and the end-to-end tests of the project real user stacks.
 */

#include <kunit/test.h>
#include <linux/kallsyms.h>
#include <linux/kthread.h>
#include <linux/mman.h>

#include "i915_stall_kunit.h"

static void test_log_destroy(void *log)
{
	i915_stall_log_destroy(log);
}

struct i915_stall_log *i915_stall_test_log(struct kunit *test, u32 slots)
{
	struct i915_stall_log *log;

	log = i915_stall_log_create(NULL);
	KUNIT_ASSERT_NOT_NULL(test, log);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, test_log_destroy, log), 0);
	mutex_lock(&log->lock);
	/* Kernel threads have no user stack: the smallest records. */
	KUNIT_EXPECT_EQ(test, i915_stall_log_set_size(log, slots, 0), 0);
	i915_stall_log_set_threshold(log, 0);
	KUNIT_EXPECT_EQ(test, i915_stall_log_enable(log, true), 0);
	mutex_unlock(&log->lock);
	KUNIT_ASSERT_NOT_NULL(test, rcu_access_pointer(log->rings));
	return log;
}

static void test_snapshot_free(void *snap)
{
	kvfree(snap);
}

struct stall_snapshot *i915_stall_test_snapshot(struct kunit *test,
						struct i915_stall_log *log)
{
	struct stall_snapshot *snap = i915_stall_snapshot_take(log, true);

	KUNIT_ASSERT_NOT_NULL(test, snap);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, test_snapshot_free, snap), 0);
	return snap;
}

void i915_stall_test_threshold_us(struct i915_stall_log *log, u64 us)
{
	i915_stall_log_set_threshold(log, us * NSEC_PER_USEC);
}

int i915_stall_test_enable(struct i915_stall_log *log, bool enable)
{
	int err;

	mutex_lock(&log->lock);
	err = i915_stall_log_enable(log, enable);
	mutex_unlock(&log->lock);
	return err;
}

/*
 * Whether the kernel address @addr is in function @fn, ignoring the
 * suffix of a compiler clone (".isra.0", ".constprop.0").
 */
bool i915_stall_test_frame_is(unsigned long addr, const char *fn)
{
	char sym[KSYM_SYMBOL_LEN];
	char *dot;

	sprint_symbol_no_offset(sym, addr);
	dot = strchr(sym, '.');
	if (dot)
		*dot = '\0';
	return !strcmp(sym, fn);
}

void i915_stall_test_write(struct i915_stall_log *log,
			   void (*fill)(const struct i915_stall_rings *rings,
					struct i915_stall_record *s, const void *arg),
			   const void *arg)
{
	preempt_disable();
	stall_ring_write(rcu_dereference_protected(log->rings, true), fill, arg);
	preempt_enable();
}

/* A record whose every byte follows from (cpu, n): torn copies show. */
static void pattern_fill(struct i915_stall_record *r, unsigned int cpu, u64 n)
{
	unsigned int i;

	r->start_ns = n;
	r->duration_ns = cpu;
	r->spin_ns = ~n;
	r->fence_context = n * 3;
	r->fence_seqno = n * 5;
	r->timeout_ns = n ^ 0x5a5a5a5a5a5a5a5aull;
	r->caller = n + cpu;
	r->pid = lower_32_bits(n);
	r->tgid = upper_32_bits(n);
	r->owner_pid = cpu;
	r->error = -(int)(n & 0xff);
	r->wait_flags = lower_32_bits(n * 7);
	r->cpu = cpu;
	r->site = I915_STALL_SITE_TEST;
	r->outcome = n & 3;
	r->engine_class = n & 0xff;
	r->engine_instance = (n >> 8) & 0xff;
	r->kstack_depth = n % (I915_STALL_KSTACK_MAX + 1);
	r->ustack_depth = (n * 7) % (I915_STALL_USTACK_MAX + 1);
	r->pad0 = 0;
	r->ustack_size = 0;
	r->map_count = 0;
	r->ahead = 0;
	r->user_ip = n * 11;
	r->user_sp = n * 13;
	r->user_bp = n * 17;
	memset(r->ustack_map, n & 0xff, sizeof(r->ustack_map));
	r->flags = n & 0xffff;
	memset(r->comm, 'a' + cpu % 26, sizeof(r->comm));
	memset(r->owner_comm, 'A' + n % 26, sizeof(r->owner_comm));
	for (i = 0; i < I915_STALL_KSTACK_MAX; i++)
		r->kstack[i] = (n << 8) + i + ((u64)cpu << 56);
	for (i = 0; i < I915_STALL_USTACK_MAX; i++)
		r->ustack[i] = ~((n << 8) + i);
}

bool i915_stall_test_pattern_ok(const struct i915_stall_record *r, u64 base)
{
	struct i915_stall_record want;
	u64 n = r->start_ns;

	pattern_fill(&want, r->duration_ns, n);
	want.seq = n - base;
	return r->cpu == r->duration_ns && !memcmp(r, &want, sizeof(want));
}

struct pattern_arg {
	unsigned int cpu;
	u64 n;
};

static void pattern_fill_cb(const struct i915_stall_rings *rings,
			    struct i915_stall_record *s, const void *data)
{
	const struct pattern_arg *arg = data;

	pattern_fill(s, arg->cpu, arg->n);
}

/* Write @count pattern records on this CPU, through stall_ring_write(). */
unsigned int i915_stall_test_write_pattern(struct i915_stall_log *log, u64 count)
{
	struct i915_stall_rings *rings;
	struct pattern_arg arg;
	u64 i;

	preempt_disable();
	arg.cpu = smp_processor_id();
	rings = rcu_dereference_protected(log->rings, true);
	for (i = 0; i < count; i++) {
		/* the record's number in its ring, as the writer sees it */
		arg.n = rings->ring[arg.cpu]->head;
		stall_ring_write(rings, pattern_fill_cb, &arg);
	}
	preempt_enable();
	return arg.cpu;
}

/*
 * Records stamped by the writer that made them: its id (pid), its own
 * sequence number (start_ns), and a checksum (duration_ns) of the rest of
 * the record, which is pseudo-random.  The checker needs nothing else to
 * prove a record intact and to name it.
 */
#define STAMP_FROM	offsetof(struct i915_stall_record, spin_ns)

static u64 stamp_sum(const struct i915_stall_record *r)
{
	const u8 *p = (const u8 *)r + STAMP_FROM;
	u64 h = 0xcbf29ce484222325ull;	/* FNV-1a */
	size_t i;

	for (i = 0; i < sizeof(*r) - STAMP_FROM; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static void stamp_fill(struct i915_stall_record *r, u32 id, u64 k)
{
	u64 x = (k + 1) * 0x9e3779b97f4a7c15ull ^ id;
	u64 *p = (u64 *)((u8 *)r + STAMP_FROM);
	unsigned int i;

	for (i = 0; i < (sizeof(*r) - STAMP_FROM) / sizeof(u64); i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = x;
	}
	r->kstack_depth %= I915_STALL_KSTACK_MAX + 1;
	r->ustack_depth %= I915_STALL_USTACK_MAX + 1;
	r->map_count %= STALL_MAP_MAX + 1;
	r->ustack_size = 0;
	r->pid = id;
	r->start_ns = k;
	r->duration_ns = stamp_sum(r);
}

static bool stamp_ok(const struct i915_stall_record *r)
{
	return r->duration_ns == stamp_sum(r);
}

struct stamp_arg {
	u32 id;
	u64 k;
};

static void stamp_fill_cb(const struct i915_stall_rings *rings,
			  struct i915_stall_record *s, const void *data)
{
	const struct stamp_arg *arg = data;

	stamp_fill(s, arg->id, arg->k);
}

/*
 * Write @count stamped records on this CPU as writer @id, its records
 * @first on, through stall_ring_write(): the production order of reserve,
 * fill and commit.
 */
static unsigned int write_stamped(struct i915_stall_log *log, u32 id,
				  u64 first, u64 count)
{
	struct i915_stall_rings *rings;
	struct stamp_arg arg = { .id = id };
	unsigned int cpu;
	u64 i;

	preempt_disable();
	cpu = smp_processor_id();
	rings = rcu_dereference_protected(log->rings, true);
	for (i = 0; i < count; i++) {
		arg.k = first + i;
		stall_ring_write(rings, stamp_fill_cb, &arg);
	}
	preempt_enable();
	return cpu;
}

static void stall_test_empty(struct kunit *test)
{
	struct i915_stall_log *log = i915_stall_test_log(test, TEST_SLOTS);
	struct stall_snapshot *snap = i915_stall_test_snapshot(test, log);
	const struct i915_stall_file_header *h = snap_header(snap);
	unsigned int cpu;

	KUNIT_EXPECT_MEMEQ(test, h->magic, I915_STALL_MAGIC, I915_STALL_MAGIC_LEN);
	KUNIT_EXPECT_EQ(test, h->version_major, I915_STALL_VERSION_MAJOR);
	KUNIT_EXPECT_EQ(test, h->version_minor, I915_STALL_VERSION_MINOR);
	KUNIT_EXPECT_EQ(test, h->header_size, 344);
	/* the record, 16 maps of 128 bytes, no user stack */
	KUNIT_EXPECT_EQ(test, h->record_size, 712 + 16 * 128);
	KUNIT_EXPECT_EQ(test, h->cpu_entry_size, 48);
	KUNIT_EXPECT_EQ(test, h->cpu_count, nr_cpu_ids);
	KUNIT_EXPECT_EQ(test, h->clock_id, CLOCK_MONOTONIC);
	KUNIT_EXPECT_EQ(test, h->cpu_table_offset, 344);
	/* the submit rings' CPU table, no submit record, the records */
	KUNIT_EXPECT_EQ(test, h->submit_cpu_table_offset, 344 + 48 * nr_cpu_ids);
	KUNIT_EXPECT_EQ(test, h->submit_records_offset, 344 + 2 * 48 * nr_cpu_ids);
	KUNIT_EXPECT_EQ(test, h->submit_record_count, 0);
	KUNIT_EXPECT_EQ(test, h->submit_record_size, 712 + 16 * 128);
	KUNIT_EXPECT_EQ(test, h->submit_slots_per_cpu, TEST_SLOTS);
	KUNIT_EXPECT_EQ(test, h->records_offset, 344 + 2 * 48 * nr_cpu_ids);
	KUNIT_EXPECT_EQ(test, h->map_max, 16);
	KUNIT_EXPECT_EQ(test, h->ustack_snapshot_max, 0);
	KUNIT_EXPECT_EQ(test, h->maps_offset, 712);
	KUNIT_EXPECT_EQ(test, h->ustack_offset, 712 + 16 * 128);
	KUNIT_EXPECT_EQ(test, h->record_count, 0);
	KUNIT_EXPECT_EQ(test, h->slots_per_cpu, TEST_SLOTS);
	KUNIT_EXPECT_EQ(test, h->flags & I915_STALL_H_ENABLED, I915_STALL_H_ENABLED);
	KUNIT_EXPECT_EQ(test, h->kstack_max, I915_STALL_KSTACK_MAX);
	KUNIT_EXPECT_EQ(test, h->ustack_max, I915_STALL_USTACK_MAX);
	KUNIT_EXPECT_EQ(test, h->kernel_anchor_addr, (u64)(unsigned long)stack_trace_save);
	KUNIT_EXPECT_STREQ(test, h->kernel_anchor, "stack_trace_save");
	KUNIT_EXPECT_EQ(test, h->i915_anchor_addr, (u64)(unsigned long)i915_stall_record);
	KUNIT_EXPECT_STREQ(test, h->i915_anchor, "i915_stall_record");
	KUNIT_EXPECT_STREQ(test, h->release, init_utsname()->release);
	KUNIT_EXPECT_EQ(test, snap->size, h->records_offset);

	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		const struct i915_stall_cpu_entry *e = snap_cpu(snap, cpu);

		KUNIT_EXPECT_EQ(test, e->cpu, cpu);
		KUNIT_EXPECT_EQ(test, e->recorded, 0);
		KUNIT_EXPECT_EQ(test, e->emitted, 0);
		KUNIT_EXPECT_EQ(test, e->overwritten, 0);
		KUNIT_EXPECT_EQ(test, e->torn, 0);
		KUNIT_EXPECT_EQ(test, !!(e->flags & I915_STALL_CPU_POSSIBLE),
				cpu_possible(cpu));
	}
}

struct fill_case {
	const char *name;
	u64 count;
};

static const struct fill_case fill_cases[] = {
	{ "none", 0 },
	{ "one", 1 },
	{ "one short of full", TEST_SLOTS - 1 },
	{ "exactly full", TEST_SLOTS },
	{ "one past full", TEST_SLOTS + 1 },
	{ "wrapped twice and then some", 2 * TEST_SLOTS + 3 },
	{ "wrapped many times", 100 * TEST_SLOTS + 7 },
};

KUNIT_ARRAY_PARAM_DESC(fill, fill_cases, name);

static void stall_test_fill(struct kunit *test)
{
	const struct fill_case *p = test->param_value;
	struct i915_stall_log *log = i915_stall_test_log(test, TEST_SLOTS);
	u64 emitted = min_t(u64, p->count, TEST_SLOTS);
	const struct i915_stall_cpu_entry *e;
	struct stall_snapshot *snap;
	unsigned int cpu;
	u64 i;

	cpu = i915_stall_test_write_pattern(log, p->count);
	snap = i915_stall_test_snapshot(test, log);
	e = snap_cpu(snap, cpu);

	KUNIT_EXPECT_EQ(test, snap_header(snap)->record_count, emitted);
	KUNIT_EXPECT_EQ(test, e->recorded, p->count);
	KUNIT_EXPECT_EQ(test, e->emitted, emitted);
	KUNIT_EXPECT_EQ(test, e->overwritten, p->count - emitted);
	KUNIT_EXPECT_EQ(test, e->torn, 0);
	KUNIT_EXPECT_EQ(test, snap->size,
			snap_header(snap)->records_offset + emitted * 2760);

	/* Oldest first, numbered from the clear, byte-exact. */
	for (i = 0; i < emitted; i++) {
		const struct i915_stall_record *r = snap_rec(snap, i);

		KUNIT_EXPECT_EQ(test, r->seq, p->count - emitted + i);
		KUNIT_EXPECT_EQ(test, r->cpu, cpu);
		KUNIT_EXPECT_TRUE_MSG(test, i915_stall_test_pattern_ok(r, 0), "record %llu", i);
	}
}

/* Deterministic torn copies: a slot rewritten under the reader. */
static void stall_test_torn(struct kunit *test)
{
	struct i915_stall_log *log = i915_stall_test_log(test, TEST_SLOTS);
	struct i915_stall_rings *rings;
	const struct i915_stall_cpu_entry *e;
	struct stall_snapshot *snap;
	unsigned int cpu;

	cpu = i915_stall_test_write_pattern(log, 5);
	rings = rcu_dereference_protected(log->rings, true);

	/* Record 2 is being rewritten (odd), record 3 was lapped. */
	WRITE_ONCE(stall_slot_rec(rings, rings->ring[cpu], 2)->seq, 2 * (2 + TEST_SLOTS) + 1);
	WRITE_ONCE(stall_slot_rec(rings, rings->ring[cpu], 3)->seq, 2 * (3 + TEST_SLOTS) + 2);

	snap = i915_stall_test_snapshot(test, log);
	e = snap_cpu(snap, cpu);
	KUNIT_EXPECT_EQ(test, e->recorded, 5);
	KUNIT_EXPECT_EQ(test, e->emitted, 3);
	KUNIT_EXPECT_EQ(test, e->torn, 2);
	KUNIT_EXPECT_EQ(test, e->overwritten, 0);
	KUNIT_EXPECT_EQ(test, snap_rec(snap, 0)->seq, 0);
	KUNIT_EXPECT_EQ(test, snap_rec(snap, 1)->seq, 1);
	KUNIT_EXPECT_EQ(test, snap_rec(snap, 2)->seq, 4);
}

static void stall_test_clear(struct kunit *test)
{
	struct i915_stall_log *log = i915_stall_test_log(test, TEST_SLOTS);
	const struct i915_stall_cpu_entry *e;
	struct stall_snapshot *snap;
	unsigned int cpu;

	/* Both writes on one CPU: the clear is per-CPU arithmetic. */
	migrate_disable();
	KUNIT_EXPECT_EQ(test, i915_stall_test_write_pattern(log, 20), smp_processor_id());
	mutex_lock(&log->lock);
	i915_stall_log_clear(log);
	mutex_unlock(&log->lock);
	cpu = i915_stall_test_write_pattern(log, 3);
	KUNIT_EXPECT_EQ(test, cpu, smp_processor_id());
	migrate_enable();

	snap = i915_stall_test_snapshot(test, log);
	e = snap_cpu(snap, cpu);
	KUNIT_EXPECT_EQ(test, e->recorded, 3);
	KUNIT_EXPECT_EQ(test, e->emitted, 3);
	KUNIT_EXPECT_EQ(test, e->overwritten, 0);
	KUNIT_EXPECT_EQ(test, e->torn, 0);
	KUNIT_EXPECT_EQ(test, snap_header(snap)->record_count, 3);
	/* Numbered from the clear; the payload is record 20 + i of the ring. */
	KUNIT_EXPECT_EQ(test, snap_rec(snap, 0)->seq, 0);
	KUNIT_EXPECT_EQ(test, snap_rec(snap, 2)->seq, 2);
	KUNIT_EXPECT_TRUE(test, i915_stall_test_pattern_ok(snap_rec(snap, 0), 20));
	KUNIT_EXPECT_TRUE(test, i915_stall_test_pattern_ok(snap_rec(snap, 2), 20));
}

static noinline void record_now(struct i915_stall_log *log, u64 age_ns,
				long timeout, long ret)
{
	const struct i915_stall_wait w = {
		.start_ns = ktime_get_ns() - age_ns,
	};
	const struct i915_stall_info info = {
		.wait = &w,
		.spin_ns = 1234,
		.timeout = timeout,
		.ret = ret,
		.caller = _THIS_IP_,
		.wait_flags = 0x3,
		.site = I915_STALL_SITE_TEST,
	};

	i915_stall_record(log, &info);
}

static void stall_test_record_fields(struct kunit *test)
{
	struct i915_stall_log *log = i915_stall_test_log(test, TEST_SLOTS);
	const struct i915_stall_record *r;
	struct stall_snapshot *snap;
	u64 before, after;

	before = ktime_get_ns();
	record_now(log, 5 * NSEC_PER_MSEC, msecs_to_jiffies(40), 7);
	after = ktime_get_ns();
	snap = i915_stall_test_snapshot(test, log);
	KUNIT_ASSERT_EQ(test, snap_header(snap)->record_count, 1);
	r = snap_rec(snap, 0);

	/* start = now - 5 ms, with now read between before and after */
	KUNIT_EXPECT_EQ(test, r->seq, 0);
	KUNIT_EXPECT_GE(test, r->start_ns, before - 5 * NSEC_PER_MSEC);
	KUNIT_EXPECT_LE(test, r->start_ns, after - 5 * NSEC_PER_MSEC);
	KUNIT_EXPECT_GE(test, r->duration_ns, 5 * NSEC_PER_MSEC);
	KUNIT_EXPECT_LE(test, r->start_ns + r->duration_ns, after);
	KUNIT_EXPECT_EQ(test, r->spin_ns, 1234);
	KUNIT_EXPECT_EQ(test, r->timeout_ns, jiffies_to_nsecs(msecs_to_jiffies(40)));
	KUNIT_EXPECT_EQ(test, r->pid, task_pid_nr(current));
	KUNIT_EXPECT_EQ(test, r->tgid, task_tgid_nr(current));
	KUNIT_EXPECT_STREQ(test, r->comm, current->comm);
	KUNIT_EXPECT_EQ(test, r->site, I915_STALL_SITE_TEST);
	KUNIT_EXPECT_EQ(test, r->outcome, I915_STALL_COMPLETED);
	KUNIT_EXPECT_EQ(test, r->error, 0);
	KUNIT_EXPECT_EQ(test, r->wait_flags, 0x3);
	KUNIT_EXPECT_EQ(test, r->engine_class, I915_STALL_ENGINE_NONE);
	KUNIT_EXPECT_EQ(test, r->flags, I915_STALL_F_KTHREAD);
	KUNIT_EXPECT_EQ(test, r->ustack_depth, 0);
	/* no user registers, stack or maps */
	KUNIT_EXPECT_EQ(test, r->user_sp, 0);
	KUNIT_EXPECT_EQ(test, r->ustack_size, 0);
	KUNIT_EXPECT_EQ(test, r->map_count, 0);

	/* The kernel stack starts at the function that called the log. */
	KUNIT_ASSERT_GT(test, r->kstack_depth, 1);
	KUNIT_EXPECT_TRUE(test, i915_stall_test_frame_is(r->kstack[0], "record_now"));
	KUNIT_EXPECT_TRUE(test, i915_stall_test_frame_is(r->kstack[1], "stall_test_record_fields"));
	KUNIT_EXPECT_TRUE(test, i915_stall_test_frame_is(r->caller, "record_now"));
}

struct outcome_case {
	const char *name;
	long timeout;
	long ret;
	u8 outcome;
	s32 error;
	u64 timeout_ns;
};

static const struct outcome_case outcome_cases[] = {
	{ "completed", 10, 3, I915_STALL_COMPLETED, 0, 10 * TICK_NSEC },
	{ "completed, no timeout", MAX_SCHEDULE_TIMEOUT, MAX_SCHEDULE_TIMEOUT,
	  I915_STALL_COMPLETED, 0, I915_STALL_TIMEOUT_NONE },
	{ "timed out", 10, -ETIME, I915_STALL_TIMEDOUT, 0, 10 * TICK_NSEC },
	{ "interrupted, restart", 10, -ERESTARTSYS, I915_STALL_INTERRUPTED, 0,
	  10 * TICK_NSEC },
	{ "interrupted", 10, -EINTR, I915_STALL_INTERRUPTED, 0, 10 * TICK_NSEC },
	{ "error", 10, -EIO, I915_STALL_ERROR, -EIO, 10 * TICK_NSEC },
};

KUNIT_ARRAY_PARAM_DESC(outcome, outcome_cases, name);

static void stall_test_outcome(struct kunit *test)
{
	const struct outcome_case *p = test->param_value;
	struct i915_stall_log *log = i915_stall_test_log(test, TEST_SLOTS);
	const struct i915_stall_record *r;
	struct stall_snapshot *snap;

	record_now(log, NSEC_PER_MSEC, p->timeout, p->ret);
	snap = i915_stall_test_snapshot(test, log);
	KUNIT_ASSERT_EQ(test, snap_header(snap)->record_count, 1);
	r = snap_rec(snap, 0);
	KUNIT_EXPECT_EQ(test, r->outcome, p->outcome);
	KUNIT_EXPECT_EQ(test, r->error, p->error);
	KUNIT_EXPECT_EQ(test, r->timeout_ns, p->timeout_ns);
}

static noinline unsigned int record_deep(struct i915_stall_log *log,
					 unsigned int depth)
{
	unsigned int ret;

	if (!depth) {
		record_now(log, NSEC_PER_MSEC, 1, 1);
		return 0;
	}
	ret = record_deep(log, depth - 1) + 1;
	barrier();	/* keep the recursion a real call */
	return ret;
}

struct depth_case {
	const char *name;
	unsigned int depth;
	bool truncated;
};

static const struct depth_case depth_cases[] = {
	{ "shallow", 0, false },
	{ "twice the maximum", 2 * I915_STALL_KSTACK_MAX, true },
};

KUNIT_ARRAY_PARAM_DESC(depth, depth_cases, name);

static void stall_test_kstack_depth(struct kunit *test)
{
	const struct depth_case *p = test->param_value;
	struct i915_stall_log *log = i915_stall_test_log(test, TEST_SLOTS);
	const struct i915_stall_record *r;
	struct stall_snapshot *snap;
	unsigned int i;

	KUNIT_EXPECT_EQ(test, record_deep(log, p->depth), p->depth);
	snap = i915_stall_test_snapshot(test, log);
	KUNIT_ASSERT_EQ(test, snap_header(snap)->record_count, 1);
	r = snap_rec(snap, 0);

	KUNIT_EXPECT_EQ(test, !!(r->flags & I915_STALL_F_KSTACK_TRUNC), p->truncated);
	if (p->truncated)
		KUNIT_EXPECT_EQ(test, r->kstack_depth, I915_STALL_KSTACK_MAX);
	else
		KUNIT_EXPECT_LT(test, r->kstack_depth, I915_STALL_KSTACK_MAX);
	KUNIT_EXPECT_EQ(test, r->ustack_depth, 0);

	KUNIT_EXPECT_TRUE(test, i915_stall_test_frame_is(r->kstack[0], "record_now"));
	for (i = 1; i <= min(p->depth + 1, r->kstack_depth - 1u); i++)
		KUNIT_EXPECT_TRUE_MSG(test, i915_stall_test_frame_is(r->kstack[i], "record_deep"),
				      "frame %u: %pS", i, (void *)r->kstack[i]);
}

static void stall_test_threshold(struct kunit *test)
{
	struct i915_stall_log *log = i915_stall_test_log(test, TEST_SLOTS);
	struct stall_snapshot *snap;

	i915_stall_test_threshold_us(log, 10000);	/* 10 ms */
	record_now(log, 5 * NSEC_PER_MSEC, 1, 1);	/* dropped */
	record_now(log, 15 * NSEC_PER_MSEC, 1, 1);	/* kept */
	record_now(log, 9 * NSEC_PER_MSEC, 1, 1);	/* dropped */

	snap = i915_stall_test_snapshot(test, log);
	KUNIT_ASSERT_EQ(test, snap_header(snap)->record_count, 1);
	KUNIT_EXPECT_GE(test, snap_rec(snap, 0)->duration_ns, 15 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, snap_header(snap)->threshold_ns, 10 * NSEC_PER_MSEC);
}

/* The debugfs file through its file_operations, into user memory. */
struct test_file {
	struct file file;
	struct inode inode;
	char __user *ubuf;
	size_t ulen;
};

static void test_file_release(void *arg)
{
	struct test_file *tf = arg;

	i915_stall_snapshot_fops.release(&tf->inode, &tf->file);
}

static struct test_file *test_open(struct kunit *test, struct i915_stall_log *log,
				   size_t ulen)
{
	struct test_file *tf = kunit_kzalloc(test, sizeof(*tf), GFP_KERNEL);
	unsigned long addr;

	KUNIT_ASSERT_NOT_NULL(test, tf);
	tf->file.f_op = &i915_stall_snapshot_fops;
	/* the opener's credentials decide whether it sees kernel addresses */
	tf->file.f_cred = current_cred();
	spin_lock_init(&tf->file.f_lock);
	mutex_init(&tf->file.f_pos_lock);
	tf->inode.i_private = log;
	KUNIT_ASSERT_EQ(test, i915_stall_snapshot_fops.open(&tf->inode, &tf->file), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, test_file_release, tf), 0);

	addr = kunit_vm_mmap(test, NULL, 0, ulen, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE_MSG(test, addr, 0, "no user memory");
	tf->ubuf = (char __user *)addr;
	tf->ulen = ulen;
	return tf;
}

/* read(2) of @len at *@pos into @dst; returns what read returned. */
static ssize_t test_read(struct kunit *test, struct test_file *tf, void *dst,
			 size_t len, loff_t *pos)
{
	ssize_t n;

	KUNIT_ASSERT_LE(test, len, tf->ulen);
	n = i915_stall_snapshot_fops.read(&tf->file, tf->ubuf, len, pos);
	if (n > 0)
		KUNIT_ASSERT_EQ(test, copy_from_user(dst, tf->ubuf, n), 0);
	return n;
}

static const size_t read_chunks[] = { 1, 7, 333, PAGE_SIZE, 3 * PAGE_SIZE + 5 };

static void stall_test_file_read(struct kunit *test)
{
	struct i915_stall_log *log = i915_stall_test_log(test, TEST_SLOTS);
	const struct stall_snapshot *snap;
	struct test_file *tf;
	size_t size, i, c;
	loff_t pos;
	u8 *buf;

	i915_stall_test_write_pattern(log, TEST_SLOTS + 3);
	tf = test_open(test, log, 4 * PAGE_SIZE);
	snap = tf->file.private_data;
	size = snap->size;
	KUNIT_ASSERT_EQ(test, size, snap_header(snap)->records_offset + TEST_SLOTS * 2760);
	buf = kunit_kzalloc(test, size + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);

	/* Sequential reads in chunks of every size give the same bytes. */
	for (c = 0; c < ARRAY_SIZE(read_chunks); c++) {
		size_t got = 0;
		ssize_t n;

		pos = 0;
		memset(buf, 0, size);
		while ((n = test_read(test, tf, buf + got,
				      min(read_chunks[c], size + 1 - got), &pos)) > 0)
			got += n;
		KUNIT_EXPECT_EQ_MSG(test, n, 0, "chunk %zu", read_chunks[c]);
		KUNIT_EXPECT_EQ_MSG(test, got, size, "chunk %zu", read_chunks[c]);
		KUNIT_EXPECT_MEMEQ_MSG(test, buf, snap->data, size, "chunk %zu",
				       read_chunks[c]);
	}

	/* A read at every offset returns the bytes at that offset. */
	for (i = 0; i <= size; i++) {
		u8 b[13];
		size_t want = min_t(size_t, sizeof(b), size - i);

		pos = i;
		KUNIT_ASSERT_EQ_MSG(test, test_read(test, tf, b, sizeof(b), &pos),
				    (ssize_t)want, "offset %zu", i);
		KUNIT_ASSERT_EQ(test, pos, (loff_t)(i + want));
		KUNIT_ASSERT_TRUE_MSG(test, !memcmp(b, snap->data + i, want),
				      "offset %zu", i);
	}

	/* lseek: SEEK_SET, SEEK_CUR and SEEK_END against the snapshot size. */
	KUNIT_EXPECT_EQ(test, i915_stall_snapshot_fops.llseek(&tf->file, 100, SEEK_SET), 100);
	KUNIT_EXPECT_EQ(test, i915_stall_snapshot_fops.llseek(&tf->file, 20, SEEK_CUR), 120);
	KUNIT_EXPECT_EQ(test, i915_stall_snapshot_fops.llseek(&tf->file, -2760, SEEK_END),
			(loff_t)size - 2760);
	KUNIT_EXPECT_EQ(test, i915_stall_snapshot_fops.llseek(&tf->file, -1, SEEK_SET),
			(loff_t)-EINVAL);
}

/* Each open is its own snapshot: readers do not see each other's cut. */
static void stall_test_file_two_readers(struct kunit *test)
{
	struct i915_stall_log *log = i915_stall_test_log(test, TEST_SLOTS);
	const struct stall_snapshot *a, *b;

	i915_stall_test_write_pattern(log, 2);
	a = test_open(test, log, PAGE_SIZE)->file.private_data;
	i915_stall_test_write_pattern(log, 3);
	b = test_open(test, log, PAGE_SIZE)->file.private_data;

	KUNIT_EXPECT_EQ(test, snap_header(a)->record_count, 2);
	KUNIT_EXPECT_EQ(test, snap_header(b)->record_count, 5);
}

struct writer {
	struct i915_stall_log *log;
	struct task_struct *task;
	u64 written;	/* records committed, read by the checker */
};

static int writer_fn(void *arg)
{
	struct writer *w = arg;
	u32 id = smp_processor_id();	/* bound to its CPU */

	while (!kthread_should_stop()) {
		write_stamped(w->log, id, w->written, 64);
		WRITE_ONCE(w->written, w->written + 64);
		cond_resched();
	}
	return 0;
}

/* What the checker found over all snapshots of stall_test_concurrent. */
struct check {
	u64 emitted, torn, overwritten;
	u64 bad_sum;		/* emitted with a wrong checksum: not intact */
	u64 bad_id;		/* emitted under the wrong CPU */
	u64 bad_number;		/* duplicated, out of order or out of window */
	u64 bad_torn;		/* missing, but its slot was never reused */
	u64 bad_count;		/* a counter that does not match the records */
};

/*
 * Check one snapshot against what the writers did.  @after holds each
 * ring's head read after the snapshot was taken.  On CPU c the writer's
 * k-th record is the ring's record k, so the record numbered n must carry
 * id c, sequence number n and a good checksum; every number of the window
 * [head - min(head, slots), head) that is not emitted must have been torn,
 * which needs its slot reused, so head >= n + slots by the end; and
 * every number below the window was overwritten.
 */
static void check_snapshot(const struct stall_snapshot *snap, const u64 *after,
			   u32 slots, struct check *c)
{
	u64 i = 0;
	unsigned int cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		const struct i915_stall_cpu_entry *e = snap_cpu(snap, cpu);
		u64 head = e->recorded;	/* no clear: base 0 */
		u64 first = head - min_t(u64, head, slots);
		u64 next = first, torn = 0, j, m;

		if (e->overwritten != first)
			c->bad_count++;
		for (j = 0; j < e->emitted; j++, i++) {
			const struct i915_stall_record *r = snap_rec(snap, i);

			if (!stamp_ok(r)) {
				c->bad_sum++;
				continue;
			}
			if (r->pid != cpu)
				c->bad_id++;
			if (r->start_ns != r->seq || r->seq < next || r->seq >= head) {
				c->bad_number++;
				continue;
			}
			for (m = next; m < r->seq; m++, torn++)
				if (after[cpu] < m + slots)
					c->bad_torn++;
			next = r->seq + 1;
		}
		for (m = next; m < head; m++, torn++)
			if (after[cpu] < m + slots)
				c->bad_torn++;
		if (torn != e->torn)
			c->bad_count++;
		c->emitted += e->emitted;
		c->torn += e->torn;
		c->overwritten += e->overwritten;
	}
	if (i != snap_header(snap)->record_count)
		c->bad_count++;
}

/*
 * Writers on every online CPU at full rate while a reader snapshots over
 * and over: every record emitted is intact and the one its number names,
 * none twice, and every record missing is accounted for by number.
 */
static void stall_test_concurrent(struct kunit *test)
{
	struct i915_stall_log *log;
	struct i915_stall_rings *rings;
	unsigned long end = jiffies + 3 * HZ;
	u64 snapshots = 0, written = 0;
	struct check c = {};
	struct stall_snapshot *snap;
	struct writer *w;
	unsigned int cpu;
	u64 *after;

	/* A snapshot races with its writers only if they run beside it. */
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs online, has %u: CONFIG_SMP and -smp 2 or more",
			   num_online_cpus());
	log = i915_stall_test_log(test, TEST_SLOTS);
	rings = rcu_dereference_protected(log->rings, true);
	w = kunit_kcalloc(test, nr_cpu_ids, sizeof(*w), GFP_KERNEL);
	after = kunit_kcalloc(test, nr_cpu_ids, sizeof(*after), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_NOT_NULL(test, after);
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		w[cpu].log = log;
		w[cpu].task = kthread_run_on_cpu(writer_fn, &w[cpu], cpu,
						 "stall_writer/%u");
		if (IS_ERR(w[cpu].task))
			w[cpu].task = NULL;
	}
	cpus_read_unlock();

	while (time_before(jiffies, end)) {
		snap = i915_stall_snapshot_take(log, true);
		KUNIT_ASSERT_NOT_NULL(test, snap);
		for_each_possible_cpu(cpu) /* pairs with stall_slot_commit:B */
			after[cpu] = smp_load_acquire(&rings->ring[cpu]->head);
		check_snapshot(snap, after, TEST_SLOTS, &c);
		snapshots++;
		kvfree(snap);
		cond_resched();
	}

	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		if (w[cpu].task) {
			kthread_stop(w[cpu].task);
			written += w[cpu].written;
		}
	}

	/* Quiet now: the last snapshot has every ring full and nothing torn. */
	snap = i915_stall_test_snapshot(test, log);
	for_each_possible_cpu(cpu)
		after[cpu] = rings->ring[cpu]->head;
	check_snapshot(snap, after, TEST_SLOTS, &c);
	for_each_online_cpu(cpu) {
		const struct i915_stall_cpu_entry *e = snap_cpu(snap, cpu);

		KUNIT_EXPECT_EQ(test, e->recorded, w[cpu].written);
		KUNIT_EXPECT_EQ(test, e->emitted, TEST_SLOTS);
		KUNIT_EXPECT_EQ(test, e->torn, 0);
	}

	kunit_info(test, "%llu snapshots, %llu records written, %llu emitted, %llu torn\n",
		   snapshots, written, c.emitted, c.torn);
	KUNIT_EXPECT_EQ(test, c.bad_sum, 0);
	KUNIT_EXPECT_EQ(test, c.bad_id, 0);
	KUNIT_EXPECT_EQ(test, c.bad_number, 0);
	KUNIT_EXPECT_EQ(test, c.bad_torn, 0);
	KUNIT_EXPECT_EQ(test, c.bad_count, 0);
	KUNIT_EXPECT_GT(test, snapshots, 10);
	KUNIT_EXPECT_GT(test, written, 100 * TEST_SLOTS);
	/* The checker saw the races it is there for. */
	KUNIT_EXPECT_GT(test, c.torn, 0);
	for_each_online_cpu(cpu)
		KUNIT_EXPECT_NOT_NULL(test, w[cpu].task);
}

/* A checker that cannot fail proves nothing: feed it broken snapshots. */
struct checker_case {
	const char *name;
	void (*breakit)(struct stall_snapshot *snap, u64 *after);
	u64 struct_check_offset;	/* which counter must become non-zero */
};

static void break_payload(struct stall_snapshot *snap, u64 *after)
{
	((struct i915_stall_record *)snap_rec(snap, 3))->ustack[5] ^= 1;
}

static void break_duplicate(struct stall_snapshot *snap, u64 *after)
{
	memcpy((void *)snap_rec(snap, 4), snap_rec(snap, 3), sizeof(struct i915_stall_record));
}

static void break_id(struct stall_snapshot *snap, u64 *after)
{
	struct i915_stall_record *r = (void *)snap_rec(snap, 2);

	r->pid++;
	r->duration_ns = stamp_sum(r);
}

static void break_torn(struct stall_snapshot *snap, u64 *after)
{
	struct i915_stall_cpu_entry *e = (void *)snap_cpu(snap, snap_rec(snap, 0)->pid);

	/* the last record reported torn, though its slot was never reused */
	e->emitted--;
	e->torn++;
	((struct i915_stall_file_header *)snap->data)->record_count--;
}

static void break_count(struct stall_snapshot *snap, u64 *after)
{
	((struct i915_stall_cpu_entry *)snap_cpu(snap, snap_rec(snap, 0)->pid))->overwritten++;
}

static const struct checker_case checker_cases[] = {
	{ "torn payload", break_payload, offsetof(struct check, bad_sum) },
	{ "duplicate", break_duplicate, offsetof(struct check, bad_number) },
	{ "wrong writer", break_id, offsetof(struct check, bad_id) },
	{ "missing, never overwritten", break_torn, offsetof(struct check, bad_torn) },
	{ "miscounted", break_count, offsetof(struct check, bad_count) },
};

KUNIT_ARRAY_PARAM_DESC(checker, checker_cases, name);

static void stall_test_checker(struct kunit *test)
{
	const struct checker_case *p = test->param_value;
	struct i915_stall_log *log = i915_stall_test_log(test, TEST_SLOTS);
	struct check c = {}, want = {};
	struct stall_snapshot *snap;
	unsigned int cpu;
	u64 *after;

	after = kunit_kcalloc(test, nr_cpu_ids, sizeof(*after), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, after);
	cpu = write_stamped(log, 0, 0, 8);
	/* stamped as the CPU they were written on, as the writers do */
	snap = i915_stall_test_snapshot(test, log);
	for (u64 i = 0; i < 8; i++) {
		struct i915_stall_record *r = (void *)snap_rec(snap, i);

		r->pid = cpu;
		r->duration_ns = stamp_sum(r);
	}
	after[cpu] = 8;
	check_snapshot(snap, after, TEST_SLOTS, &c);
	KUNIT_ASSERT_EQ(test, memcmp(&c.bad_sum, &want.bad_sum,
				     sizeof(c) - offsetof(struct check, bad_sum)), 0);

	p->breakit(snap, after);
	memset(&c, 0, sizeof(c));
	check_snapshot(snap, after, TEST_SLOTS, &c);
	KUNIT_EXPECT_NE(test, *(u64 *)((u8 *)&c + p->struct_check_offset), 0);
}

struct bytes_case {
	const char *name;
	u64 records;
	u64 submits;
	unsigned int cpus;
	u32 ustack_bytes;
	size_t bytes;
};

/*
 * A record is 712 bytes, 16 maps of 128 bytes and the user stack; a
 * submit record has no stack (2760 bytes); two CPU tables.
 */
static const struct bytes_case bytes_cases[] = {
	{ "empty, 4 CPUs", 0, 0, 4, 2048, 344 + 2 * 4 * 48 },
	{ "3 records, 4 CPUs", 3, 0, 4, 2048, 344 + 2 * 4 * 48 + 3 * 4808 },
	{ "3 records of no user stack", 3, 0, 4, 0, 344 + 2 * 4 * 48 + 3 * 2760 },
	{ "3 records, 2 submit records", 3, 2, 4, 2048,
	  344 + 2 * 4 * 48 + 3 * 4808 + 2 * 2760 },
	{ "16384 slots x 17 CPUs", 16384ull * 17, 16384ull * 17, 17, 2048,
	  344 + 2 * 17 * 48 + 16384ull * 17 * (4808 + 2760) },
	{ "16384 slots x 18 CPUs: over INT_MAX", 16384ull * 18, 16384ull * 18, 18, 2048, 0 },
	{ "16384 slots x 5 CPUs, 16 KiB of stack", 16384ull * 5, 16384ull * 5, 5, 16384,
	  344 + 2 * 5 * 48 + 16384ull * 5 * (19144 + 2760) },
	{ "16384 slots x 6 CPUs, 16 KiB of stack: over INT_MAX", 16384ull * 6, 16384ull * 6, 6,
	  16384, 0 },
	{ "16 slots x 8192 CPUs", 16ull * 8192, 16ull * 8192, 8192, 2048,
	  344 + 2 * 8192 * 48 + 16ull * 8192 * (4808 + 2760) },
	{ "U64_MAX records", U64_MAX, 0, 4, 2048, 0 },
	{ "U64_MAX submit records", 0, U64_MAX, 4, 2048, 0 },
};

KUNIT_ARRAY_PARAM_DESC(bytes, bytes_cases, name);

/* The snapshot size, and the cap on slots x CPUs that keeps it in range. */
static void stall_test_snapshot_bytes(struct kunit *test)
{
	const struct bytes_case *p = test->param_value;

	KUNIT_EXPECT_EQ(test, stall_snapshot_bytes(p->records, p->submits, p->cpus,
						   stall_stride(p->ustack_bytes)), p->bytes);
}

/*
 * The control files refuse a size whose full rings would not fit in a
 * snapshot on this machine, and take the largest that does.
 */
static void stall_test_size_cap(struct kunit *test)
{
	struct i915_stall_log *log = i915_stall_log_create(NULL);
	u64 ustack = STALL_USTACK_MAX_BYTES, slots, bytes;

	KUNIT_ASSERT_NOT_NULL(test, log);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, test_log_destroy, log), 0);

	/* The largest power of two of slots whose rings fit, by hand. */
	for (slots = STALL_MAX_SLOTS; slots > STALL_MIN_SLOTS; slots /= 2) {
		bytes = 344 + 2 * 48ull * nr_cpu_ids +
			slots * nr_cpu_ids * (712 + 16 * 128 + ustack + 2760);
		if (bytes <= INT_MAX)
			break;
	}
	/*
	 * A log never enabled has no rings: sizes are checked, not
	 * allocated, so that this runs in a guest of less than 2 GiB.
	 */
	mutex_lock(&log->lock);
	KUNIT_EXPECT_EQ(test, i915_stall_log_set_size(log, slots, ustack), 0);
	if (slots < STALL_MAX_SLOTS)
		KUNIT_EXPECT_EQ(test, i915_stall_log_set_size(log, 2 * slots, ustack), -EINVAL);
	KUNIT_EXPECT_EQ(test, log->slots, slots);
	KUNIT_EXPECT_EQ(test, log->ustack_bytes, ustack);
	KUNIT_EXPECT_NULL(test, rcu_access_pointer(log->rings));
	mutex_unlock(&log->lock);
}

static void snapshot_free(void *snap)
{
	kvfree(snap);
}

/*
 * A reader that may not see kernel addresses gets zeroes for them, and a
 * header that says so; the rest of each record is the same.
 */
static void stall_test_kaddr_hidden(struct kunit *test)
{
	struct i915_stall_log *log = i915_stall_test_log(test, TEST_SLOTS);
	const struct i915_stall_file_header *h;
	struct stall_snapshot *shown, *hidden;
	const struct i915_stall_record *a, *b;

	record_now(log, NSEC_PER_MSEC, 1, 1);
	shown = i915_stall_test_snapshot(test, log);
	hidden = i915_stall_snapshot_take(log, false);
	KUNIT_ASSERT_NOT_NULL(test, hidden);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, snapshot_free, hidden), 0);

	h = snap_header(hidden);
	KUNIT_EXPECT_EQ(test, h->flags & I915_STALL_H_KADDR_HIDDEN, I915_STALL_H_KADDR_HIDDEN);
	KUNIT_EXPECT_EQ(test, snap_header(shown)->flags & I915_STALL_H_KADDR_HIDDEN, 0);
	KUNIT_EXPECT_EQ(test, h->kernel_anchor_addr, 0);
	KUNIT_EXPECT_EQ(test, h->i915_anchor_addr, 0);
	KUNIT_EXPECT_EQ(test, h->i915_text_base, 0);
	KUNIT_EXPECT_STREQ(test, h->kernel_anchor, "stack_trace_save");
	KUNIT_ASSERT_EQ(test, h->record_count, 1);
	a = snap_rec(shown, 0);
	b = snap_rec(hidden, 0);
	KUNIT_EXPECT_NE(test, a->caller, 0);
	KUNIT_EXPECT_NE(test, a->kstack[0], 0);
	KUNIT_EXPECT_EQ(test, b->caller, 0);
	KUNIT_EXPECT_EQ(test, b->kstack_depth, a->kstack_depth);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(b->kstack, 0, sizeof(b->kstack)));
	KUNIT_EXPECT_EQ(test, b->duration_ns, a->duration_ns);
	KUNIT_EXPECT_EQ(test, b->pid, a->pid);
}

/* A snapshot is the size of the records present, not of the rings. */
static void stall_test_snapshot_size(struct kunit *test)
{
	struct i915_stall_log *log = i915_stall_test_log(test, 4096);
	struct stall_snapshot *snap;

	i915_stall_test_write_pattern(log, 2);
	snap = i915_stall_test_snapshot(test, log);
	KUNIT_EXPECT_EQ(test, snap_header(snap)->record_count, 2);
	KUNIT_EXPECT_EQ(test, snap_header(snap)->slots_per_cpu, 4096);
	KUNIT_EXPECT_EQ(test, snap->size, stall_snapshot_bytes(2, 0, nr_cpu_ids, 2760));
	/* 4096 slots x 2760 B per CPU would have been vmalloc()ed */
	KUNIT_ASSERT_FALSE(test, is_vmalloc_addr(snap));
	KUNIT_EXPECT_LE(test, ksize(snap), 2 * (sizeof(*snap) + snap->size));
}

struct params_case {
	const char *name;
	bool enable;
	u32 threshold_us;
	u32 slots;
	int err;
	bool enabled;
	u64 threshold_ns;
	u32 slots_after;	/* 0: the default */
};

static const struct params_case params_cases[] = {
	{ "defaults", false, 1000, 0, 0, false, 1000 * NSEC_PER_USEC, 0 },
	{ "enabled at probe", true, 250, 64, 0, true, 250 * NSEC_PER_USEC, 64 },
	{ "threshold 0", true, 0, 0, 0, true, 0, 0 },
	{ "slots not a power of two", true, 250, 24, -EINVAL, false,
	  STALL_DEFAULT_THRESHOLD, 0 },
	{ "slots too many", true, 250, 2 * STALL_MAX_SLOTS, -EINVAL, false,
	  STALL_DEFAULT_THRESHOLD, 0 },
};

KUNIT_ARRAY_PARAM_DESC(params, params_cases, name);

/* i915.stall_log, i915.stall_log_threshold_us and i915.stall_log_slots */
static void stall_test_params(struct kunit *test)
{
	const struct params_case *p = test->param_value;
	struct i915_stall_log *log = i915_stall_log_create(NULL);
	int held = static_key_count(&i915_stall_key.key);
	struct i915_stall_rings *rings;

	KUNIT_ASSERT_NOT_NULL(test, log);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, test_log_destroy, log), 0);

	KUNIT_EXPECT_EQ(test, i915_stall_log_apply_params(log, p->enable, p->threshold_us,
							  p->slots, -1), p->err);
	KUNIT_EXPECT_EQ(test, log->enabled, p->enabled);
	KUNIT_EXPECT_EQ(test, log->threshold_ns, p->threshold_ns);
	KUNIT_EXPECT_EQ(test, log->slots, p->slots_after ?: stall_default_slots());
	rings = rcu_dereference_protected(log->rings, true);
	KUNIT_EXPECT_EQ(test, !!rings, p->enabled);
	if (rings)
		KUNIT_EXPECT_EQ(test, rings->slots, log->slots);
	/* This log's hold of the key: others may hold it too. */
	KUNIT_EXPECT_EQ(test, static_key_count(&i915_stall_key.key), held + p->enabled);
}

static noinline bool record_submit(struct i915_stall_log *log, u64 seqno)
{
	const struct i915_stall_submit sub = {
		.fence_context = 0x5eed,
		.fence_seqno = seqno,
		.caller = _THIS_IP_,
		.engine_class = 1,
		.engine_instance = 2,
	};

	return i915_stall_record_submit(log, &sub);
}

/*
 * Submit records go to rings of their own, in a section of their own: a
 * burst of them never pushes a stall out, and each one lost is counted.
 */
static void stall_test_submit_records(struct kunit *test)
{
	struct i915_stall_log *log = i915_stall_test_log(test, TEST_SLOTS);
	const struct i915_stall_file_header *h;
	const struct i915_stall_cpu_entry *e;
	struct stall_snapshot *snap;
	unsigned int cpu;
	u64 i, before;

	before = ktime_get_ns();
	migrate_disable();	/* one CPU's rings: exact counts */
	cpu = smp_processor_id();
	record_now(log, NSEC_PER_MSEC, 1, 1);
	for (i = 0; i < TEST_SLOTS + 3; i++)
		KUNIT_EXPECT_TRUE(test, record_submit(log, i));
	record_now(log, NSEC_PER_MSEC, 1, 1);
	migrate_enable();

	snap = i915_stall_test_snapshot(test, log);
	h = snap_header(snap);
	KUNIT_EXPECT_EQ(test, h->submit_cpu_table_offset, 344 + 48 * nr_cpu_ids);
	KUNIT_EXPECT_EQ(test, h->submit_records_offset, 344 + 2 * 48 * nr_cpu_ids);
	KUNIT_EXPECT_EQ(test, h->submit_record_size, 2760);
	KUNIT_ASSERT_EQ(test, h->submit_record_count, TEST_SLOTS);
	KUNIT_EXPECT_EQ(test, h->records_offset, h->submit_records_offset + TEST_SLOTS * 2760);
	KUNIT_EXPECT_EQ(test, h->record_count, 2);
	KUNIT_EXPECT_EQ(test, snap->size, h->records_offset + 2 * h->record_size);

	e = snap_submit_cpu(snap, cpu);
	KUNIT_EXPECT_EQ(test, e->cpu, cpu);
	KUNIT_EXPECT_EQ(test, e->recorded, TEST_SLOTS + 3);
	KUNIT_EXPECT_EQ(test, e->emitted, TEST_SLOTS);
	KUNIT_EXPECT_EQ(test, e->overwritten, 3);
	KUNIT_EXPECT_EQ(test, e->torn, 0);
	e = snap_cpu(snap, cpu);
	KUNIT_EXPECT_EQ(test, e->recorded, 2);
	KUNIT_EXPECT_EQ(test, e->overwritten, 0);

	for (i = 0; i < TEST_SLOTS; i++) {
		const struct i915_stall_record *r = snap_submit(snap, i);

		KUNIT_EXPECT_EQ(test, r->seq, i + 3);
		KUNIT_EXPECT_EQ(test, r->fence_seqno, i + 3);
		KUNIT_EXPECT_EQ(test, r->fence_context, 0x5eed);
		KUNIT_EXPECT_EQ(test, r->site, I915_STALL_SITE_SUBMIT);
		KUNIT_EXPECT_EQ(test, r->flags, I915_STALL_F_FENCE | I915_STALL_F_ENGINE |
				I915_STALL_F_KTHREAD);
		KUNIT_EXPECT_EQ(test, r->engine_class, 1);
		KUNIT_EXPECT_EQ(test, r->engine_instance, 2);
		KUNIT_EXPECT_EQ(test, r->cpu, cpu);
		KUNIT_EXPECT_EQ(test, r->pid, task_pid_nr(current));
		KUNIT_EXPECT_STREQ(test, r->comm, current->comm);
		KUNIT_EXPECT_TRUE(test, i915_stall_test_frame_is(r->caller, "record_submit"));
		KUNIT_EXPECT_GE(test, r->start_ns, before);
		KUNIT_EXPECT_EQ(test, r->duration_ns, 0);
		KUNIT_EXPECT_EQ(test, r->kstack_depth, 0);
		KUNIT_EXPECT_EQ(test, r->ustack_size, 0);
		KUNIT_EXPECT_EQ(test, r->map_count, 0);
		if (i)
			KUNIT_EXPECT_GE(test, r->start_ns, snap_submit(snap, i - 1)->start_ns);
	}
	KUNIT_EXPECT_EQ(test, snap_rec(snap, 0)->site, I915_STALL_SITE_TEST);
	KUNIT_EXPECT_EQ(test, snap_rec(snap, 1)->site, I915_STALL_SITE_TEST);

	/* Cleared with the stalls. */
	mutex_lock(&log->lock);
	i915_stall_log_clear(log);
	mutex_unlock(&log->lock);
	snap = i915_stall_test_snapshot(test, log);
	KUNIT_EXPECT_EQ(test, snap_header(snap)->submit_record_count, 0);
	KUNIT_EXPECT_EQ(test, snap_submit_cpu(snap, cpu)->recorded, 0);
}

/* A disabled log, or none, makes no submit record. */
static void stall_test_submit_disabled(struct kunit *test)
{
	struct i915_stall_log *log = i915_stall_test_log(test, TEST_SLOTS);
	struct stall_snapshot *snap;

	KUNIT_EXPECT_FALSE(test, record_submit(NULL, 1));
	KUNIT_ASSERT_EQ(test, i915_stall_test_enable(log, false), 0);
	KUNIT_EXPECT_FALSE(test, record_submit(log, 1));
	snap = i915_stall_test_snapshot(test, log);
	KUNIT_EXPECT_EQ(test, snap_header(snap)->submit_record_count, 0);
	KUNIT_ASSERT_EQ(test, i915_stall_test_enable(log, true), 0);
	KUNIT_EXPECT_TRUE(test, record_submit(log, 2));
	snap = i915_stall_test_snapshot(test, log);
	KUNIT_ASSERT_EQ(test, snap_header(snap)->submit_record_count, 1);
	KUNIT_EXPECT_EQ(test, snap_submit(snap, 0)->fence_seqno, 2);
}

static struct kunit_case stall_cases[] = {
	KUNIT_CASE(stall_test_empty),
	KUNIT_CASE_PARAM(stall_test_fill, fill_gen_params),
	KUNIT_CASE(stall_test_torn),
	KUNIT_CASE(stall_test_clear),
	KUNIT_CASE(stall_test_record_fields),
	KUNIT_CASE_PARAM(stall_test_outcome, outcome_gen_params),
	KUNIT_CASE_PARAM(stall_test_kstack_depth, depth_gen_params),
	KUNIT_CASE(stall_test_threshold),
	KUNIT_CASE(stall_test_file_read),
	KUNIT_CASE(stall_test_file_two_readers),
	KUNIT_CASE_SLOW(stall_test_concurrent),
	KUNIT_CASE_PARAM(stall_test_checker, checker_gen_params),
	KUNIT_CASE_PARAM(stall_test_snapshot_bytes, bytes_gen_params),
	KUNIT_CASE(stall_test_snapshot_size),
	KUNIT_CASE_PARAM(stall_test_params, params_gen_params),
	KUNIT_CASE(stall_test_size_cap),
	KUNIT_CASE(stall_test_kaddr_hidden),
	KUNIT_CASE(stall_test_submit_records),
	KUNIT_CASE(stall_test_submit_disabled),
	{}
};

static struct kunit_suite stall_suite = {
	.name = "i915_stall",
	.test_cases = stall_cases,
};

kunit_test_suite(stall_suite);
