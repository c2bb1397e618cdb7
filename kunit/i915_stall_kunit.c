// SPDX-License-Identifier: MIT
/*
 * Copyright © 2026 The i915 stall log authors
 *
 * KUnit tests of the i915 stall log, #included at the end of i915_stall.c
 * so they reach its static functions.  Two suites:
 *
 *  - i915_stall: the ring, the snapshot file and the control files, on a
 *    log of their own, with writers on every CPU for the concurrency case.
 *  - i915_stall_mock: stalls on i915's mock GPU through the real wait
 *    paths (i915_request_wait(), i915_active_wait()).
 *  - i915_stall_syncobj: DRM_IOCTL_SYNCOBJ_WAIT and _TIMELINE_WAIT on
 *    mock requests, through drm_ioctl() on a DRM file of the mock device,
 *    with the ioctl arguments in user memory of the test's own.
 *
 * Test cases run in kernel threads, so every record they make has the
 * KTHREAD flag and an empty user stack; the end-to-end tests of the
 * project cover user stacks.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/dma-fence-array.h>
#include <linux/dma-fence-chain.h>
#include <linux/elf.h>
#include <linux/file.h>
#include <linux/kallsyms.h>
#include <linux/kthread.h>
#include <linux/mman.h>
#include <linux/shmem_fs.h>

#include "gem/i915_gem_context.h"
#include "gem/i915_gem_internal.h"
#include "gem/selftests/mock_context.h"
#include "gt/intel_context.h"
#include "gt/intel_gt.h"
#include "i915_active.h"
#include "i915_vma.h"
#include "selftests/mock_drm.h"
#include "selftests/mock_gem_device.h"
#include "selftests/mock_request.h"

#include <drm/drm_file.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_syncobj.h>

#define TEST_SLOTS	16

static struct i915_stall_log *test_log(struct kunit *test, u32 slots)
{
	struct i915_stall_log *log;

	log = stall_log_create(NULL);
	KUNIT_ASSERT_NOT_NULL(test, log);
	log->slots = slots;
	/* Kernel threads have no user stack: the smallest records. */
	log->ustack_bytes = 0;
	log->threshold_ns = 0;
	mutex_lock(&log->lock);
	KUNIT_ASSERT_EQ(test, stall_log_enable(log, true), 0);
	mutex_unlock(&log->lock);
	return log;
}

static void test_log_destroy(void *log)
{
	stall_log_destroy(log);
}

static struct i915_stall_log *test_log_auto(struct kunit *test, u32 slots)
{
	struct i915_stall_log *log = test_log(test, slots);

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, test_log_destroy, log), 0);
	return log;
}

static void test_snapshot_free(void *snap)
{
	kvfree(snap);
}

/* Take a snapshot that is freed when the test ends. */
static struct stall_snapshot *test_snapshot(struct kunit *test,
					    struct i915_stall_log *log)
{
	struct stall_snapshot *snap = stall_snapshot_take(log);

	KUNIT_ASSERT_NOT_NULL(test, snap);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, test_snapshot_free, snap), 0);
	return snap;
}

static const struct i915_stall_file_header *snap_header(const struct stall_snapshot *s)
{
	return (const void *)s->data;
}

static const struct i915_stall_cpu_entry *snap_cpu(const struct stall_snapshot *s,
						   unsigned int cpu)
{
	return (const void *)(s->data + snap_header(s)->cpu_table_offset) +
	       cpu * sizeof(struct i915_stall_cpu_entry);
}

static const struct i915_stall_record *snap_rec(const struct stall_snapshot *s, u64 i)
{
	return (const void *)(s->data + snap_header(s)->records_offset) +
	       i * snap_header(s)->record_size;
}

/*
 * Whether the kernel address @addr is in function @fn, ignoring the
 * suffix of a compiler clone (".isra.0", ".constprop.0").
 */
static bool frame_is(unsigned long addr, const char *fn)
{
	char sym[KSYM_SYMBOL_LEN];
	char *dot;

	sprint_symbol_no_offset(sym, addr);
	dot = strchr(sym, '.');
	if (dot)
		*dot = '\0';
	return !strcmp(sym, fn);
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
	r->pad1 = 0;
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

static bool pattern_ok(const struct i915_stall_record *r, u64 base)
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
static unsigned int write_pattern(struct i915_stall_log *log, u64 count)
{
	struct i915_stall_rings *rings;
	struct pattern_arg arg;
	u64 i;

	preempt_disable();
	arg.cpu = smp_processor_id();
	rings = rcu_dereference_sched(log->rings);
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
	rings = rcu_dereference_sched(log->rings);
	for (i = 0; i < count; i++) {
		arg.k = first + i;
		stall_ring_write(rings, stamp_fill_cb, &arg);
	}
	preempt_enable();
	return cpu;
}

static void stall_test_empty(struct kunit *test)
{
	struct i915_stall_log *log = test_log_auto(test, TEST_SLOTS);
	struct stall_snapshot *snap = test_snapshot(test, log);
	const struct i915_stall_file_header *h = snap_header(snap);
	unsigned int cpu;

	KUNIT_EXPECT_MEMEQ(test, h->magic, I915_STALL_MAGIC, I915_STALL_MAGIC_LEN);
	KUNIT_EXPECT_EQ(test, h->version_major, I915_STALL_VERSION_MAJOR);
	KUNIT_EXPECT_EQ(test, h->version_minor, I915_STALL_VERSION_MINOR);
	KUNIT_EXPECT_EQ(test, h->header_size, 312);
	/* the record, 16 maps of 128 bytes, no user stack */
	KUNIT_EXPECT_EQ(test, h->record_size, 712 + 16 * 128);
	KUNIT_EXPECT_EQ(test, h->cpu_entry_size, 48);
	KUNIT_EXPECT_EQ(test, h->cpu_count, nr_cpu_ids);
	KUNIT_EXPECT_EQ(test, h->clock_id, CLOCK_MONOTONIC);
	KUNIT_EXPECT_EQ(test, h->cpu_table_offset, 312);
	KUNIT_EXPECT_EQ(test, h->records_offset, 312 + 48 * nr_cpu_ids);
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
	struct i915_stall_log *log = test_log_auto(test, TEST_SLOTS);
	u64 emitted = min_t(u64, p->count, TEST_SLOTS);
	const struct i915_stall_cpu_entry *e;
	struct stall_snapshot *snap;
	unsigned int cpu;
	u64 i;

	cpu = write_pattern(log, p->count);
	snap = test_snapshot(test, log);
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
		KUNIT_EXPECT_TRUE_MSG(test, pattern_ok(r, 0), "record %llu", i);
	}
}

/* Deterministic torn copies: a slot rewritten under the reader. */
static void stall_test_torn(struct kunit *test)
{
	struct i915_stall_log *log = test_log_auto(test, TEST_SLOTS);
	struct i915_stall_rings *rings;
	const struct i915_stall_cpu_entry *e;
	struct stall_snapshot *snap;
	unsigned int cpu;

	cpu = write_pattern(log, 5);
	rings = rcu_dereference_protected(log->rings, true);

	/* Record 2 is being rewritten (odd), record 3 was lapped. */
	WRITE_ONCE(stall_ring_slot(rings, rings->ring[cpu], 2)->seq, 2 * (2 + TEST_SLOTS) + 1);
	WRITE_ONCE(stall_ring_slot(rings, rings->ring[cpu], 3)->seq, 2 * (3 + TEST_SLOTS) + 2);

	snap = test_snapshot(test, log);
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
	struct i915_stall_log *log = test_log_auto(test, TEST_SLOTS);
	const struct i915_stall_cpu_entry *e;
	struct stall_snapshot *snap;
	unsigned int cpu;

	/* Both writes on one CPU: the clear is per-CPU arithmetic. */
	migrate_disable();
	KUNIT_EXPECT_EQ(test, write_pattern(log, 20), smp_processor_id());
	KUNIT_EXPECT_EQ(test, stall_clear_set(log, 1), 0);
	cpu = write_pattern(log, 3);
	KUNIT_EXPECT_EQ(test, cpu, smp_processor_id());
	migrate_enable();

	snap = test_snapshot(test, log);
	e = snap_cpu(snap, cpu);
	KUNIT_EXPECT_EQ(test, e->recorded, 3);
	KUNIT_EXPECT_EQ(test, e->emitted, 3);
	KUNIT_EXPECT_EQ(test, e->overwritten, 0);
	KUNIT_EXPECT_EQ(test, e->torn, 0);
	KUNIT_EXPECT_EQ(test, snap_header(snap)->record_count, 3);
	/* Numbered from the clear; the payload is record 20 + i of the ring. */
	KUNIT_EXPECT_EQ(test, snap_rec(snap, 0)->seq, 0);
	KUNIT_EXPECT_EQ(test, snap_rec(snap, 2)->seq, 2);
	KUNIT_EXPECT_TRUE(test, pattern_ok(snap_rec(snap, 0), 20));
	KUNIT_EXPECT_TRUE(test, pattern_ok(snap_rec(snap, 2), 20));
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
	struct i915_stall_log *log = test_log_auto(test, TEST_SLOTS);
	const struct i915_stall_record *r;
	struct stall_snapshot *snap;
	u64 before, after;

	before = ktime_get_ns();
	record_now(log, 5 * NSEC_PER_MSEC, msecs_to_jiffies(40), 7);
	after = ktime_get_ns();
	snap = test_snapshot(test, log);
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
	KUNIT_EXPECT_TRUE(test, frame_is(r->kstack[0], "record_now"));
	KUNIT_EXPECT_TRUE(test, frame_is(r->kstack[1], "stall_test_record_fields"));
	KUNIT_EXPECT_TRUE(test, frame_is(r->caller, "record_now"));
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
	struct i915_stall_log *log = test_log_auto(test, TEST_SLOTS);
	const struct i915_stall_record *r;
	struct stall_snapshot *snap;

	record_now(log, NSEC_PER_MSEC, p->timeout, p->ret);
	snap = test_snapshot(test, log);
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
	struct i915_stall_log *log = test_log_auto(test, TEST_SLOTS);
	const struct i915_stall_record *r;
	struct stall_snapshot *snap;
	unsigned int i;

	KUNIT_EXPECT_EQ(test, record_deep(log, p->depth), p->depth);
	snap = test_snapshot(test, log);
	KUNIT_ASSERT_EQ(test, snap_header(snap)->record_count, 1);
	r = snap_rec(snap, 0);

	KUNIT_EXPECT_EQ(test, !!(r->flags & I915_STALL_F_KSTACK_TRUNC), p->truncated);
	if (p->truncated)
		KUNIT_EXPECT_EQ(test, r->kstack_depth, I915_STALL_KSTACK_MAX);
	else
		KUNIT_EXPECT_LT(test, r->kstack_depth, I915_STALL_KSTACK_MAX);
	KUNIT_EXPECT_EQ(test, r->ustack_depth, 0);

	KUNIT_EXPECT_TRUE(test, frame_is(r->kstack[0], "record_now"));
	for (i = 1; i <= min(p->depth + 1, r->kstack_depth - 1u); i++)
		KUNIT_EXPECT_TRUE_MSG(test, frame_is(r->kstack[i], "record_deep"),
				      "frame %u: %pS", i, (void *)r->kstack[i]);
}

static void stall_test_threshold(struct kunit *test)
{
	struct i915_stall_log *log = test_log_auto(test, TEST_SLOTS);
	struct stall_snapshot *snap;

	KUNIT_ASSERT_EQ(test, stall_threshold_set(log, 10000), 0);	/* 10 ms */
	record_now(log, 5 * NSEC_PER_MSEC, 1, 1);	/* dropped */
	record_now(log, 15 * NSEC_PER_MSEC, 1, 1);	/* kept */
	record_now(log, 9 * NSEC_PER_MSEC, 1, 1);	/* dropped */

	snap = test_snapshot(test, log);
	KUNIT_ASSERT_EQ(test, snap_header(snap)->record_count, 1);
	KUNIT_EXPECT_GE(test, snap_rec(snap, 0)->duration_ns, 15 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, snap_header(snap)->threshold_ns, 10 * NSEC_PER_MSEC);
}

static void stall_test_disabled(struct kunit *test)
{
	struct i915_stall_log *log = test_log_auto(test, TEST_SLOTS);
	bool key_before = static_key_enabled(&i915_stall_key);
	struct stall_snapshot *snap;
	struct i915_stall_wait w;

	KUNIT_ASSERT_TRUE(test, key_before);
	KUNIT_ASSERT_EQ(test, stall_enable_set(log, 0), 0);
	record_now(log, 5 * NSEC_PER_MSEC, 1, 1);

	snap = test_snapshot(test, log);
	KUNIT_EXPECT_EQ(test, snap_header(snap)->record_count, 0);
	KUNIT_EXPECT_EQ(test, snap_header(snap)->flags & I915_STALL_H_ENABLED, 0);
	/* No other log is enabled while KUnit runs: the key is off. */
	KUNIT_EXPECT_FALSE(test, static_key_enabled(&i915_stall_key));
	KUNIT_EXPECT_FALSE(test, i915_stall_begin(&w));
	KUNIT_EXPECT_EQ(test, w.start_ns, 0);
	KUNIT_EXPECT_FALSE(test, i915_stall_active(&w));

	KUNIT_ASSERT_EQ(test, stall_enable_set(log, 1), 0);
	KUNIT_EXPECT_TRUE(test, static_key_enabled(&i915_stall_key));
	/* A wait that began disabled is not recorded, even enabled now. */
	KUNIT_EXPECT_FALSE(test, i915_stall_active(&w));
	KUNIT_EXPECT_EQ(test, i915_stall_since(&w), 0);
	KUNIT_EXPECT_TRUE(test, i915_stall_begin(&w));
	KUNIT_EXPECT_NE(test, w.start_ns, 0);
	KUNIT_EXPECT_TRUE(test, i915_stall_active(&w));
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
	struct i915_stall_log *log = test_log_auto(test, TEST_SLOTS);
	struct stall_snapshot *before, *after;
	u64 enabled, threshold, slots;
	unsigned int cpu;

	cpu = write_pattern(log, 5);
	before = test_snapshot(test, log);

	KUNIT_EXPECT_EQ(test, p->set(log, p->val), p->err);

	after = test_snapshot(test, log);
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
	struct i915_stall_log *log = test_log_auto(test, TEST_SLOTS);
	struct stall_snapshot *snap;
	unsigned int cpu;

	write_pattern(log, 10);
	KUNIT_ASSERT_EQ(test, stall_slots_set(log, 64), 0);
	cpu = write_pattern(log, 40);

	snap = test_snapshot(test, log);
	KUNIT_EXPECT_EQ(test, snap_header(snap)->slots_per_cpu, 64);
	KUNIT_EXPECT_EQ(test, snap_header(snap)->record_count, 40);
	KUNIT_EXPECT_EQ(test, snap_cpu(snap, cpu)->recorded, 40);
	KUNIT_EXPECT_EQ(test, snap_cpu(snap, cpu)->overwritten, 0);
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

	stall_snapshot_fops.release(&tf->inode, &tf->file);
}

static struct test_file *test_open(struct kunit *test, struct i915_stall_log *log,
				   size_t ulen)
{
	struct test_file *tf = kunit_kzalloc(test, sizeof(*tf), GFP_KERNEL);
	unsigned long addr;

	KUNIT_ASSERT_NOT_NULL(test, tf);
	tf->file.f_op = &stall_snapshot_fops;
	spin_lock_init(&tf->file.f_lock);
	mutex_init(&tf->file.f_pos_lock);
	tf->inode.i_private = log;
	KUNIT_ASSERT_EQ(test, stall_snapshot_fops.open(&tf->inode, &tf->file), 0);
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
	n = stall_snapshot_fops.read(&tf->file, tf->ubuf, len, pos);
	if (n > 0)
		KUNIT_ASSERT_EQ(test, copy_from_user(dst, tf->ubuf, n), 0);
	return n;
}

static const size_t read_chunks[] = { 1, 7, 333, PAGE_SIZE, 3 * PAGE_SIZE + 5 };

static void stall_test_file_read(struct kunit *test)
{
	struct i915_stall_log *log = test_log_auto(test, TEST_SLOTS);
	const struct stall_snapshot *snap;
	struct test_file *tf;
	size_t size, i, c;
	loff_t pos;
	u8 *buf;

	write_pattern(log, TEST_SLOTS + 3);
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
	KUNIT_EXPECT_EQ(test, stall_snapshot_fops.llseek(&tf->file, 100, SEEK_SET), 100);
	KUNIT_EXPECT_EQ(test, stall_snapshot_fops.llseek(&tf->file, 20, SEEK_CUR), 120);
	KUNIT_EXPECT_EQ(test, stall_snapshot_fops.llseek(&tf->file, -2760, SEEK_END),
			(loff_t)size - 2760);
	KUNIT_EXPECT_EQ(test, stall_snapshot_fops.llseek(&tf->file, -1, SEEK_SET),
			(loff_t)-EINVAL);
}

/* Each open is its own snapshot: readers do not see each other's cut. */
static void stall_test_file_two_readers(struct kunit *test)
{
	struct i915_stall_log *log = test_log_auto(test, TEST_SLOTS);
	const struct stall_snapshot *a, *b;

	write_pattern(log, 2);
	a = test_open(test, log, PAGE_SIZE)->file.private_data;
	write_pattern(log, 3);
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
	struct i915_stall_log *log = test_log_auto(test, TEST_SLOTS);
	struct i915_stall_rings *rings = rcu_dereference_protected(log->rings, true);
	unsigned long end = jiffies + 3 * HZ;
	u64 snapshots = 0, written = 0;
	struct check c = {};
	struct stall_snapshot *snap;
	struct writer *w;
	unsigned int cpu;
	u64 *after;

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
		snap = stall_snapshot_take(log);
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
	snap = test_snapshot(test, log);
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
	struct i915_stall_log *log = test_log_auto(test, TEST_SLOTS);
	struct check c = {}, want = {};
	struct stall_snapshot *snap;
	unsigned int cpu;
	u64 *after;

	after = kunit_kcalloc(test, nr_cpu_ids, sizeof(*after), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, after);
	cpu = write_stamped(log, 0, 0, 8);
	/* stamped as the CPU they were written on, as the writers do */
	snap = test_snapshot(test, log);
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

/* Stalls seen while enabled with no ring are counted per CPU, and cleared. */
static void stall_test_dropped(struct kunit *test)
{
	struct i915_stall_log *log = stall_log_create(NULL);
	struct stall_snapshot *snap;
	u64 dropped = 0;
	unsigned int cpu;

	KUNIT_ASSERT_NOT_NULL(test, log);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, test_log_destroy, log), 0);
	/* enabled, but no rings: what a writer sees in a failed enable */
	WRITE_ONCE(log->enabled, true);
	log->threshold_ns = 0;
	record_now(log, NSEC_PER_MSEC, 1, 1);
	record_now(log, NSEC_PER_MSEC, 1, 1);
	record_now(log, NSEC_PER_MSEC, 1, 1);

	snap = test_snapshot(test, log);
	KUNIT_EXPECT_EQ(test, snap_header(snap)->record_count, 0);
	KUNIT_EXPECT_EQ(test, snap_header(snap)->slots_per_cpu, 0);
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		dropped += snap_cpu(snap, cpu)->dropped;
	KUNIT_EXPECT_EQ(test, dropped, 3);

	KUNIT_EXPECT_EQ(test, stall_clear_set(log, 1), 0);
	record_now(log, NSEC_PER_MSEC, 1, 1);
	snap = test_snapshot(test, log);
	for (dropped = 0, cpu = 0; cpu < nr_cpu_ids; cpu++)
		dropped += snap_cpu(snap, cpu)->dropped;
	KUNIT_EXPECT_EQ(test, dropped, 1);
	WRITE_ONCE(log->enabled, false);
}

struct bytes_case {
	const char *name;
	u64 records;
	unsigned int cpus;
	u32 ustack_bytes;
	size_t bytes;
};

/* A record is 712 bytes, 16 maps of 128 bytes and the user stack. */
static const struct bytes_case bytes_cases[] = {
	{ "empty, 4 CPUs", 0, 4, 2048, 312 + 4 * 48 },
	{ "3 records, 4 CPUs", 3, 4, 2048, 312 + 4 * 48 + 3 * 4808 },
	{ "3 records of no user stack", 3, 4, 0, 312 + 4 * 48 + 3 * 2760 },
	{ "16384 slots x 27 CPUs", 16384ull * 27, 27, 2048,
	  312 + 27 * 48 + 16384ull * 27 * 4808 },
	{ "16384 slots x 28 CPUs: over INT_MAX", 16384ull * 28, 28, 2048, 0 },
	{ "16384 slots x 6 CPUs, 16 KiB of stack", 16384ull * 6, 6, 16384,
	  312 + 6 * 48 + 16384ull * 6 * 19144 },
	{ "16384 slots x 7 CPUs, 16 KiB of stack: over INT_MAX", 16384ull * 7, 7, 16384, 0 },
	{ "16 slots x 8192 CPUs", 16ull * 8192, 8192, 2048,
	  312 + 8192 * 48 + 16ull * 8192 * 4808 },
	{ "U64_MAX records", U64_MAX, 4, 2048, 0 },
};

KUNIT_ARRAY_PARAM_DESC(bytes, bytes_cases, name);

/* The snapshot size, and the cap on slots x CPUs that keeps it in range. */
static void stall_test_snapshot_bytes(struct kunit *test)
{
	const struct bytes_case *p = test->param_value;

	KUNIT_EXPECT_EQ(test, stall_snapshot_bytes(p->records, p->cpus,
						   stall_stride(p->ustack_bytes)), p->bytes);
	if (p->records % p->cpus == 0 && p->records / p->cpus <= STALL_MAX_SLOTS)
		KUNIT_EXPECT_EQ(test, stall_slots_fit(p->records / p->cpus, p->ustack_bytes,
						      p->cpus), p->bytes != 0);
}

/* A snapshot is the size of the records present, not of the rings. */
static void stall_test_snapshot_size(struct kunit *test)
{
	struct i915_stall_log *log = test_log_auto(test, 4096);
	struct stall_snapshot *snap;

	write_pattern(log, 2);
	snap = test_snapshot(test, log);
	KUNIT_EXPECT_EQ(test, snap_header(snap)->record_count, 2);
	KUNIT_EXPECT_EQ(test, snap_header(snap)->slots_per_cpu, 4096);
	KUNIT_EXPECT_EQ(test, snap->size, stall_snapshot_bytes(2, nr_cpu_ids, 2760));
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
	struct i915_stall_log *log = stall_log_create(NULL);
	struct i915_stall_rings *rings;

	KUNIT_ASSERT_NOT_NULL(test, log);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, test_log_destroy, log), 0);

	KUNIT_EXPECT_EQ(test, stall_log_apply_params(log, p->enable, p->threshold_us,
						     p->slots, -1), p->err);
	KUNIT_EXPECT_EQ(test, log->enabled, p->enabled);
	KUNIT_EXPECT_EQ(test, log->threshold_ns, p->threshold_ns);
	KUNIT_EXPECT_EQ(test, log->slots, p->slots_after ?: stall_default_slots());
	rings = rcu_dereference_protected(log->rings, true);
	KUNIT_EXPECT_EQ(test, !!rings, p->enabled);
	if (rings)
		KUNIT_EXPECT_EQ(test, rings->slots, log->slots);
	KUNIT_EXPECT_EQ(test, static_key_enabled(&i915_stall_key), p->enabled);
}

#if IS_ENABLED(CONFIG_IA32_EMULATION)
/*
 * The 32-bit frame walk on a stack in user memory with faked registers:
 * KUnit runs in kernel threads, which have no 32-bit user code to stall.
 */
#define U32_STACK	0x10000000ul

struct user32_case {
	const char *name;
	u32 frames[8];		/* next_fp, ret_addr pairs at U32_STACK + 0x100 * i */
	u16 cs, ss;
	u32 bp, sp;
	unsigned int size;
	unsigned int depth;
	u32 want[5];
};

#define F(i)	((u32)(U32_STACK + 0x100 * (i)))

static const struct user32_case user32_cases[] = {
	{ "three frames", { F(1), 0x2000, F(2), 0x3000, 0, 0x4000 },
	  __USER32_CS, __USER_DS, F(0), F(0) - 16, 32, 4,
	  { 0x1000, 0x2000, 0x3000, 0x4000 } },
	{ "truncated", { F(1), 0x2000, F(2), 0x3000, 0, 0x4000 },
	  __USER32_CS, __USER_DS, F(0), F(0) - 16, 2, 2, { 0x1000, 0x2000 } },
	{ "zero return address ends it", { F(1), 0x2000, F(2), 0 },
	  __USER32_CS, __USER_DS, F(0), F(0) - 16, 32, 2, { 0x1000, 0x2000 } },
	{ "frame pointer going down ends it", { F(1), 0x2000, F(0), 0x3000 },
	  __USER32_CS, __USER_DS, F(0), F(0) - 16, 32, 3, { 0x1000, 0x2000, 0x3000 } },
	{ "frame below the stack pointer", { F(1), 0x2000 },
	  __USER32_CS, __USER_DS, F(0), F(0) + 16, 32, 1, { 0x1000 } },
	{ "unmapped frame", { F(1), 0x2000 },
	  __USER32_CS, __USER_DS, F(0) - 0x1000, F(0) - 0x2000, 32, 1, { 0x1000 } },
	{ "LDT code segment: not walked", { F(1), 0x2000 },
	  0x7 | SEGMENT_TI_MASK, __USER_DS, F(0), F(0) - 16, 32, 0, { } },
};

#undef F

KUNIT_ARRAY_PARAM_DESC(user32, user32_cases, name);

static void stall_test_user32(struct kunit *test)
{
	const struct user32_case *p = test->param_value;
	struct pt_regs regs = {
		.ip = 0x1000, .cs = p->cs, .ss = p->ss, .bp = p->bp, .sp = p->sp,
	};
	u64 store[I915_STALL_USTACK_MAX] = {};
	unsigned long addr;
	unsigned int i, n;

	addr = kunit_vm_mmap(test, NULL, U32_STACK, PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE | MAP_FIXED, 0);
	KUNIT_ASSERT_EQ(test, addr, U32_STACK);
	for (i = 0; i < ARRAY_SIZE(p->frames) / 2; i++)
		KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)(addr + 0x100 * i),
						   &p->frames[2 * i], 8), 0);

	n = stall_save_user32(&regs, store, p->size);
	KUNIT_EXPECT_EQ(test, n, p->depth);
	for (i = 0; i < min(n, p->depth); i++)
		KUNIT_EXPECT_EQ_MSG(test, store[i], (u64)p->want[i], "frame %u", i);
}
#endif

static struct kunit_case stall_cases[] = {
	KUNIT_CASE(stall_test_empty),
	KUNIT_CASE_PARAM(stall_test_fill, fill_gen_params),
	KUNIT_CASE(stall_test_torn),
	KUNIT_CASE(stall_test_clear),
	KUNIT_CASE(stall_test_record_fields),
	KUNIT_CASE_PARAM(stall_test_outcome, outcome_gen_params),
	KUNIT_CASE_PARAM(stall_test_kstack_depth, depth_gen_params),
	KUNIT_CASE(stall_test_threshold),
	KUNIT_CASE(stall_test_disabled),
	KUNIT_CASE_PARAM(stall_test_control, control_gen_params),
	KUNIT_CASE(stall_test_resize),
	KUNIT_CASE(stall_test_file_read),
	KUNIT_CASE(stall_test_file_two_readers),
	KUNIT_CASE_SLOW(stall_test_concurrent),
	KUNIT_CASE_PARAM(stall_test_checker, checker_gen_params),
	KUNIT_CASE(stall_test_dropped),
	KUNIT_CASE_PARAM(stall_test_snapshot_bytes, bytes_gen_params),
	KUNIT_CASE(stall_test_snapshot_size),
	KUNIT_CASE_PARAM(stall_test_params, params_gen_params),
#if IS_ENABLED(CONFIG_IA32_EMULATION)
	KUNIT_CASE_PARAM(stall_test_user32, user32_gen_params),
#endif
	{}
};

static struct kunit_suite stall_suite = {
	.name = "i915_stall",
	.test_cases = stall_cases,
};

/* Stalls on i915's mock GPU, through the real wait code. */

struct mock_fixture {
	struct drm_i915_private *i915;
	struct intel_engine_cs *engine;
	struct i915_stall_log *log;
};

/* A deferred action, so that it runs after the test's own (LIFO). */
static void mock_teardown(void *arg)
{
	struct drm_i915_private *i915 = arg;

	mock_device_flush(i915);
	i915_stall_fini(i915);
	mock_destroy_device(i915);
}

static int mock_init(struct kunit *test)
{
	struct mock_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->i915 = mock_gem_device();
	KUNIT_ASSERT_NOT_NULL(test, f->i915);
	if (i915_stall_init(f->i915)) {
		mock_destroy_device(f->i915);
		KUNIT_FAIL_AND_ABORT(test, "no stall log");
	}
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mock_teardown, f->i915), 0);
	f->engine = to_gt(f->i915)->engine[RCS0];
	f->log = rcu_dereference_protected(f->i915->stall_log, true);
	KUNIT_ASSERT_EQ(test, stall_threshold_set(f->log, 1000), 0); /* 1 ms */
	KUNIT_ASSERT_EQ(test, stall_enable_set(f->log, 1), 0);
	test->priv = f;
	return 0;
}

static bool kstack_has(struct kunit *test, const struct i915_stall_record *r,
		       const char *fn)
{
	unsigned int i;

	for (i = 0; i < r->kstack_depth; i++)
		if (frame_is(r->kstack[i], fn))
			return true;

	kunit_info(test, "%s not in the kernel stack:\n", fn);
	for (i = 0; i < r->kstack_depth; i++)
		kunit_info(test, "  #%u %pS\n", i, (void *)r->kstack[i]);
	return false;
}

static void request_put(void *rq)
{
	i915_request_put(rq);
}

/* Submit a mock request of @delay jiffies on @ce; put when the test ends. */
static struct i915_request *submit(struct kunit *test, struct intel_context *ce,
				   unsigned long delay)
{
	struct i915_request *rq = mock_request(ce, delay);

	KUNIT_ASSERT_FALSE(test, IS_ERR(rq));
	i915_request_get(rq);
	i915_request_add(rq);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, request_put, rq), 0);
	return rq;
}

/* Not a tail call, so that the function shows in the stack. */
static noinline long mock_wait_caller(struct i915_request *rq, long timeout)
{
	long ret = i915_request_wait(rq, 0, timeout);

	OPTIMIZER_HIDE_VAR(ret);
	return ret;
}

#define MOCK_DELAY	(HZ / 10)
/* TCG, KASAN and lockdep slow everything down: allow two seconds. */
#define MOCK_SLACK_NS	(2 * NSEC_PER_SEC)

static void stall_mock_request_wait(struct kunit *test)
{
	struct mock_fixture *f = test->priv;
	const struct i915_stall_record *r;
	struct stall_snapshot *snap;
	struct i915_request *rq;
	long ret;

	rq = submit(test, f->engine->kernel_context, MOCK_DELAY);

	ret = mock_wait_caller(rq, HZ);
	KUNIT_EXPECT_GT(test, ret, 0);

	snap = test_snapshot(test, f->log);
	KUNIT_ASSERT_EQ(test, snap_header(snap)->record_count, 1);
	r = snap_rec(snap, 0);
	KUNIT_EXPECT_EQ(test, r->site, I915_STALL_SITE_REQUEST);
	KUNIT_EXPECT_EQ(test, r->outcome, I915_STALL_COMPLETED);
	KUNIT_EXPECT_EQ(test, r->engine_class, f->engine->uabi_class);
	KUNIT_EXPECT_EQ(test, r->engine_instance, f->engine->uabi_instance);
	KUNIT_EXPECT_EQ(test, r->fence_context, rq->fence.context);
	KUNIT_EXPECT_EQ(test, r->fence_seqno, rq->fence.seqno);
	KUNIT_EXPECT_EQ(test, r->timeout_ns, jiffies_to_nsecs(HZ));
	KUNIT_EXPECT_EQ(test, r->flags & ~I915_STALL_F_KSTACK_TRUNC,
			I915_STALL_F_KTHREAD | I915_STALL_F_ENGINE | I915_STALL_F_FENCE);
	KUNIT_EXPECT_GE(test, r->duration_ns, jiffies_to_nsecs(MOCK_DELAY) - TICK_NSEC);
	KUNIT_EXPECT_LT(test, r->duration_ns, jiffies_to_nsecs(MOCK_DELAY) + MOCK_SLACK_NS);
	KUNIT_EXPECT_LE(test, r->spin_ns, r->duration_ns);
	KUNIT_EXPECT_EQ(test, r->pid, task_pid_nr(current));

	KUNIT_EXPECT_TRUE_MSG(test, frame_is(r->kstack[0], "i915_request_wait_timeout"),
			      "%pS", (void *)r->kstack[0]);
	KUNIT_EXPECT_TRUE(test, kstack_has(test, r, "mock_wait_caller"));
	KUNIT_EXPECT_TRUE(test, kstack_has(test, r, "stall_mock_request_wait"));
	KUNIT_EXPECT_TRUE_MSG(test, frame_is(r->caller, "i915_request_wait"),
			      "%pS", (void *)r->caller);
}

static void stall_mock_request_timeout(struct kunit *test)
{
	struct mock_fixture *f = test->priv;
	const struct i915_stall_record *r, *done;
	struct stall_snapshot *snap;
	struct i915_request *rq;

	rq = submit(test, f->engine->kernel_context, 4 * MOCK_DELAY);

	KUNIT_EXPECT_EQ(test, mock_wait_caller(rq, MOCK_DELAY), -ETIME);
	KUNIT_EXPECT_GT(test, mock_wait_caller(rq, 10 * HZ), 0);

	snap = test_snapshot(test, f->log);
	KUNIT_ASSERT_EQ(test, snap_header(snap)->record_count, 2);
	/* The file groups records by CPU: the waiter may have migrated. */
	r = snap_rec(snap, 0);
	done = snap_rec(snap, 1);
	if (r->start_ns > done->start_ns)
		swap(r, done);
	KUNIT_EXPECT_EQ(test, r->outcome, I915_STALL_TIMEDOUT);
	KUNIT_EXPECT_EQ(test, r->error, 0);
	KUNIT_EXPECT_GE(test, r->duration_ns, jiffies_to_nsecs(MOCK_DELAY) - TICK_NSEC);
	KUNIT_EXPECT_EQ(test, done->outcome, I915_STALL_COMPLETED);
	KUNIT_EXPECT_EQ(test, done->fence_seqno, r->fence_seqno);
	KUNIT_EXPECT_GE(test, done->start_ns, r->start_ns + r->duration_ns);
}

/* Waiting on a request that already completed records nothing. */
static void stall_mock_request_complete(struct kunit *test)
{
	struct mock_fixture *f = test->priv;
	struct stall_snapshot *snap;
	struct i915_request *rq;

	rq = submit(test, f->engine->kernel_context, MOCK_DELAY);
	KUNIT_ASSERT_GT(test, mock_wait_caller(rq, HZ), 0);

	KUNIT_ASSERT_EQ(test, stall_threshold_set(f->log, 0), 0);
	KUNIT_EXPECT_GT(test, mock_wait_caller(rq, HZ), 0);
	KUNIT_EXPECT_GT(test, mock_wait_caller(rq, HZ), 0);

	snap = test_snapshot(test, f->log);
	KUNIT_EXPECT_EQ(test, snap_header(snap)->record_count, 1);
}

static void stall_mock_threshold(struct kunit *test)
{
	struct mock_fixture *f = test->priv;
	struct stall_snapshot *snap;
	struct i915_request *rq;

	KUNIT_ASSERT_EQ(test, stall_threshold_set(f->log, 2 * USEC_PER_SEC), 0);
	rq = submit(test, f->engine->kernel_context, MOCK_DELAY);
	KUNIT_EXPECT_GT(test, mock_wait_caller(rq, HZ), 0);

	snap = test_snapshot(test, f->log);
	KUNIT_EXPECT_EQ(test, snap_header(snap)->record_count, 0);
}

static void stall_mock_disabled(struct kunit *test)
{
	struct mock_fixture *f = test->priv;
	struct stall_snapshot *snap;
	struct i915_request *rq;
	unsigned int cpu;

	KUNIT_ASSERT_EQ(test, stall_enable_set(f->log, 0), 0);
	rq = submit(test, f->engine->kernel_context, MOCK_DELAY);
	KUNIT_EXPECT_GT(test, mock_wait_caller(rq, HZ), 0);

	snap = test_snapshot(test, f->log);
	KUNIT_EXPECT_EQ(test, snap_header(snap)->record_count, 0);
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		KUNIT_EXPECT_EQ(test, snap_cpu(snap, cpu)->recorded, 0);
}

/* The awaited work's owner is the GEM context's creator. */
static void stall_mock_owner(struct kunit *test)
{
	struct mock_fixture *f = test->priv;
	const struct i915_stall_record *r;
	struct i915_gem_context *ctx;
	struct stall_snapshot *snap;
	struct intel_context *ce;
	struct i915_request *rq;

	ctx = mock_context(f->i915, "owner");
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->pid = get_task_pid(current, PIDTYPE_PID);
	snprintf(ctx->name, sizeof(ctx->name), "%s[%d]", current->comm,
		 pid_nr(ctx->pid));
	ce = i915_gem_context_get_engine(ctx, RCS0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ce));

	rq = submit(test, ce, MOCK_DELAY);
	KUNIT_EXPECT_GT(test, mock_wait_caller(rq, HZ), 0);

	snap = test_snapshot(test, f->log);
	KUNIT_ASSERT_EQ(test, snap_header(snap)->record_count, 1);
	r = snap_rec(snap, 0);
	KUNIT_EXPECT_TRUE(test, r->flags & I915_STALL_F_OWNER);
	KUNIT_EXPECT_EQ(test, r->owner_pid, task_pid_nr(current));
	KUNIT_EXPECT_STREQ(test, r->owner_comm, current->comm);

	intel_context_put(ce);
	mock_context_close(ctx);
}

static noinline int mock_active_caller(struct i915_active *ref)
{
	int ret = i915_active_wait(ref);

	OPTIMIZER_HIDE_VAR(ret);
	return ret;
}

static void stall_mock_active_wait(struct kunit *test)
{
	struct mock_fixture *f = test->priv;
	const struct i915_stall_record *r;
	struct stall_snapshot *snap;
	struct i915_request *rq;
	struct i915_active *ref;

	ref = kunit_kzalloc(test, sizeof(*ref), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ref);
	i915_active_init(ref, NULL, NULL, 0);

	rq = mock_request(f->engine->kernel_context, MOCK_DELAY);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rq));
	KUNIT_ASSERT_EQ(test, i915_active_add_request(ref, rq), 0);
	i915_request_add(rq);

	KUNIT_EXPECT_EQ(test, mock_active_caller(ref), 0);

	snap = test_snapshot(test, f->log);
	KUNIT_ASSERT_EQ(test, snap_header(snap)->record_count, 1);
	r = snap_rec(snap, 0);
	KUNIT_EXPECT_EQ(test, r->site, I915_STALL_SITE_ACTIVE);
	KUNIT_EXPECT_EQ(test, r->outcome, I915_STALL_COMPLETED);
	KUNIT_EXPECT_EQ(test, r->timeout_ns, I915_STALL_TIMEOUT_NONE);
	KUNIT_EXPECT_GE(test, r->duration_ns, jiffies_to_nsecs(MOCK_DELAY) - TICK_NSEC);
	KUNIT_EXPECT_LT(test, r->duration_ns, jiffies_to_nsecs(MOCK_DELAY) + MOCK_SLACK_NS);
	KUNIT_EXPECT_TRUE_MSG(test, frame_is(r->kstack[0], "__i915_active_wait"),
			      "%pS", (void *)r->kstack[0]);
	KUNIT_EXPECT_TRUE(test, kstack_has(test, r, "mock_active_caller"));
	i915_active_fini(ref);
}

/*
 * A fence of some other driver, signalled by a delayed work; freed by
 * dma_fence_free() when the last reference goes (@base comes first).
 */
struct foreign_fence {
	struct dma_fence base;
	spinlock_t lock; /* protects base */
	struct delayed_work work;
};

static const char *foreign_fence_name(struct dma_fence *fence)
{
	return "stall-test";
}

static const struct dma_fence_ops foreign_fence_ops = {
	.get_driver_name = foreign_fence_name,
	.get_timeline_name = foreign_fence_name,
};

static void foreign_fence_signal(struct work_struct *work)
{
	struct foreign_fence *ff = container_of(work, typeof(*ff), work.work);

	dma_fence_signal(&ff->base);
}

static void foreign_fence_free(void *arg)
{
	struct foreign_fence *ff = arg;

	cancel_delayed_work_sync(&ff->work);
	if (!dma_fence_is_signaled(&ff->base))
		dma_fence_signal(&ff->base);
	dma_fence_put(&ff->base);
}

/* A fence of another driver that signals @delay jiffies from now. */
static struct foreign_fence *foreign_fence(struct kunit *test, unsigned long delay)
{
	struct foreign_fence *ff;

	ff = kzalloc(sizeof(*ff), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ff);
	spin_lock_init(&ff->lock);
	dma_fence_init(&ff->base, &foreign_fence_ops, &ff->lock,
		       dma_fence_context_alloc(1), 7);
	INIT_DELAYED_WORK(&ff->work, foreign_fence_signal);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, foreign_fence_free, ff), 0);
	schedule_delayed_work(&ff->work, delay);
	return ff;
}

static void object_put(void *obj)
{
	i915_gem_object_put(obj);
}

static struct drm_i915_gem_object *test_object(struct kunit *test,
					       struct mock_fixture *f)
{
	struct drm_i915_gem_object *obj;

	obj = i915_gem_object_create_internal(f->i915, PAGE_SIZE);
	KUNIT_ASSERT_FALSE(test, IS_ERR(obj));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, object_put, obj), 0);
	return obj;
}

static void check_fence_record(struct kunit *test, const struct i915_stall_record *r,
			       unsigned int site, u64 context, u64 seqno)
{
	KUNIT_EXPECT_EQ(test, r->site, site);
	KUNIT_EXPECT_EQ(test, r->outcome, I915_STALL_COMPLETED);
	KUNIT_EXPECT_EQ(test, r->fence_context, context);
	KUNIT_EXPECT_EQ(test, r->fence_seqno, seqno);
	KUNIT_EXPECT_EQ(test, r->engine_class, I915_STALL_ENGINE_NONE);
	KUNIT_EXPECT_EQ(test, r->flags & ~I915_STALL_F_KSTACK_TRUNC,
			I915_STALL_F_KTHREAD | I915_STALL_F_FENCE);
	KUNIT_EXPECT_GE(test, r->duration_ns, jiffies_to_nsecs(MOCK_DELAY) - TICK_NSEC);
	KUNIT_EXPECT_LT(test, r->duration_ns, jiffies_to_nsecs(MOCK_DELAY) + MOCK_SLACK_NS);
}

static noinline long mock_object_wait_caller(struct drm_i915_gem_object *obj)
{
	long ret = i915_gem_object_wait(obj, 0, 10 * HZ);

	OPTIMIZER_HIDE_VAR(ret);
	return ret;
}

/* GEM_WAIT on an object whose reservation holds another driver's fence. */
static void stall_mock_object_wait(struct kunit *test)
{
	struct mock_fixture *f = test->priv;
	struct drm_i915_gem_object *obj = test_object(test, f);
	struct foreign_fence *ff = foreign_fence(test, MOCK_DELAY);
	const struct i915_stall_record *r;
	struct stall_snapshot *snap;

	KUNIT_ASSERT_EQ(test, dma_resv_lock(obj->base.resv, NULL), 0);
	KUNIT_ASSERT_EQ(test, dma_resv_reserve_fences(obj->base.resv, 1), 0);
	dma_resv_add_fence(obj->base.resv, &ff->base, DMA_RESV_USAGE_WRITE);
	dma_resv_unlock(obj->base.resv);

	KUNIT_EXPECT_EQ(test, mock_object_wait_caller(obj), 0);

	snap = test_snapshot(test, f->log);
	KUNIT_ASSERT_EQ(test, snap_header(snap)->record_count, 1);
	r = snap_rec(snap, 0);
	check_fence_record(test, r, I915_STALL_SITE_OBJECT_FENCE, ff->base.context, 7);
	/* i915_gem_object_wait_fence() may be inlined into its caller */
	KUNIT_EXPECT_TRUE_MSG(test, frame_is(r->kstack[0], "i915_gem_object_wait_fence") ||
			      frame_is(r->kstack[0], "i915_gem_object_wait_reservation"),
			      "%pS", (void *)r->kstack[0]);
	KUNIT_EXPECT_TRUE(test, kstack_has(test, r, "i915_gem_object_wait"));
	KUNIT_EXPECT_TRUE(test, kstack_has(test, r, "mock_object_wait_caller"));
}

static struct i915_vma *test_ggtt_vma(struct kunit *test, struct mock_fixture *f)
{
	struct i915_vma *vma;

	vma = i915_vma_instance(test_object(test, f), &to_gt(f->i915)->ggtt->vm, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(vma));
	return vma;
}

static noinline int mock_pin_caller(struct i915_vma *vma)
{
	int ret = i915_ggtt_pin(vma, NULL, 0, PIN_GLOBAL);

	OPTIMIZER_HIDE_VAR(ret);
	return ret;
}

/* Pinning a vma waits for its bind fence: a foreign one, or an i915 request. */
static void stall_mock_bind_wait(struct kunit *test)
{
	struct mock_fixture *f = test->priv;
	struct i915_vma *vma = test_ggtt_vma(test, f);
	struct foreign_fence *ff = foreign_fence(test, MOCK_DELAY);
	const struct i915_stall_record *r, *q;
	struct i915_request *rq;
	struct stall_snapshot *snap;

	/* The bind still in flight, as an async bind leaves it. */
	KUNIT_ASSERT_EQ(test, i915_active_acquire(&vma->active), 0);
	KUNIT_EXPECT_NULL(test, i915_active_set_exclusive(&vma->active, &ff->base));
	i915_active_release(&vma->active);

	KUNIT_ASSERT_EQ(test, mock_pin_caller(vma), 0);
	i915_vma_unpin(vma);

	/* An i915 request is recorded once, by the request wait. */
	rq = submit(test, f->engine->kernel_context, MOCK_DELAY);
	KUNIT_ASSERT_EQ(test, i915_active_acquire(&vma->active), 0);
	KUNIT_EXPECT_NULL(test, i915_active_set_exclusive(&vma->active, &rq->fence));
	i915_active_release(&vma->active);

	KUNIT_ASSERT_EQ(test, mock_pin_caller(vma), 0);
	i915_vma_unpin(vma);

	snap = test_snapshot(test, f->log);
	KUNIT_ASSERT_EQ(test, snap_header(snap)->record_count, 2);
	r = snap_rec(snap, 0);
	q = snap_rec(snap, 1);
	if (r->site != I915_STALL_SITE_FENCE)
		swap(r, q);
	check_fence_record(test, r, I915_STALL_SITE_FENCE, ff->base.context, 7);
	KUNIT_EXPECT_TRUE_MSG(test, frame_is(r->kstack[0], "i915_vma_wait_for_bind"),
			      "%pS", (void *)r->kstack[0]);
	KUNIT_EXPECT_TRUE(test, kstack_has(test, r, "i915_ggtt_pin"));
	KUNIT_EXPECT_TRUE(test, kstack_has(test, r, "mock_pin_caller"));

	KUNIT_EXPECT_EQ(test, q->site, I915_STALL_SITE_REQUEST);
	KUNIT_EXPECT_EQ(test, q->fence_context, rq->fence.context);
	KUNIT_EXPECT_EQ(test, q->fence_seqno, rq->fence.seqno);
	KUNIT_EXPECT_TRUE(test, kstack_has(test, q, "i915_vma_wait_for_bind"));
}

static noinline int mock_unbind_caller(struct i915_vma *vma)
{
	int ret;

	i915_gem_object_lock(vma->obj, NULL);
	ret = i915_vma_unbind(vma);
	i915_gem_object_unlock(vma->obj);
	OPTIMIZER_HIDE_VAR(ret);
	return ret;
}

/*
 * Unbinding a vma waits for the requests that use it (active_wait) and
 * then for its unbind fence, here held back by a foreign fence.
 */
static void stall_mock_unbind_wait(struct kunit *test)
{
	struct mock_fixture *f = test->priv;
	struct i915_vma *vma = test_ggtt_vma(test, f);
	struct foreign_fence *ff;
	const struct i915_stall_record *r, *q;
	struct stall_snapshot *snap;
	struct i915_request *rq;
	u64 unbind_context;

	KUNIT_ASSERT_EQ(test, i915_ggtt_pin(vma, NULL, 0, PIN_GLOBAL), 0);
	rq = mock_request(f->engine->kernel_context, MOCK_DELAY);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rq));
	KUNIT_ASSERT_EQ(test, i915_active_add_request(&vma->active, rq), 0);
	i915_request_add(rq);
	i915_vma_unpin(vma);

	/* Hold the unbind fence back until a foreign fence signals. */
	ff = foreign_fence(test, 2 * MOCK_DELAY);
	KUNIT_ASSERT_GE(test, i915_sw_fence_await_dma_fence(&vma->resource->chain,
							    &ff->base, 0, GFP_KERNEL), 0);
	unbind_context = vma->resource->unbind_fence.context;

	KUNIT_ASSERT_EQ(test, mock_unbind_caller(vma), 0);

	snap = test_snapshot(test, f->log);
	KUNIT_ASSERT_EQ(test, snap_header(snap)->record_count, 2);
	r = snap_rec(snap, 0);
	q = snap_rec(snap, 1);
	if (r->site != I915_STALL_SITE_ACTIVE)
		swap(r, q);
	KUNIT_EXPECT_EQ(test, r->site, I915_STALL_SITE_ACTIVE);
	KUNIT_EXPECT_TRUE_MSG(test, frame_is(r->kstack[0], "__i915_active_wait"),
			      "%pS", (void *)r->kstack[0]);
	KUNIT_EXPECT_TRUE(test, kstack_has(test, r, "i915_vma_unbind"));
	KUNIT_EXPECT_EQ(test, q->site, I915_STALL_SITE_FENCE);
	KUNIT_EXPECT_EQ(test, q->fence_context, unbind_context);
	KUNIT_EXPECT_TRUE(test, kstack_has(test, q, "__i915_vma_evict"));
	KUNIT_EXPECT_TRUE(test, kstack_has(test, q, "mock_unbind_caller"));
}

/*
 * An active tracking only another driver's fence names no i915 device, so
 * its wait cannot be recorded: it is counted in every header instead.
 */
static void stall_mock_active_unattributed(struct kunit *test)
{
	struct mock_fixture *f = test->priv;
	struct foreign_fence *ff = foreign_fence(test, MOCK_DELAY);
	struct stall_snapshot *before, *after;
	struct i915_active *ref;

	ref = kunit_kzalloc(test, sizeof(*ref), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ref);
	i915_active_init(ref, NULL, NULL, 0);
	dma_fence_put(i915_active_set_exclusive(ref, &ff->base));

	before = test_snapshot(test, f->log);
	KUNIT_EXPECT_EQ(test, mock_active_caller(ref), 0);
	KUNIT_EXPECT_TRUE(test, dma_fence_is_signaled(&ff->base));
	after = test_snapshot(test, f->log);

	KUNIT_EXPECT_EQ(test, snap_header(after)->record_count, 0);
	KUNIT_EXPECT_EQ(test, snap_header(after)->unattributed,
			snap_header(before)->unattributed + 1);
	i915_active_fini(ref);
}

static int owner_fn(void *arg)
{
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/*
 * The request hook after the request retired and its context and owner
 * were freed: what another CPU may do while the waiter is preempted
 * between the end of its wait and the record.  Only what the begin hook
 * captured may be used; under KASAN, reading the request's context, engine
 * or owner at the end hook is a use-after-free report.
 */
static void stall_mock_request_retired(struct kunit *test)
{
	struct mock_fixture *f = test->priv;
	const struct i915_stall_record *r;
	struct i915_gem_context *ctx;
	struct stall_snapshot *snap;
	struct i915_stall_wait w;
	struct task_struct *owner;
	struct intel_context *ce;
	struct i915_request *rq;
	u64 context, seqno;
	pid_t owner_pid;
	int i;

	/* An owner whose pid only the GEM context references, once it exits. */
	owner = kthread_run(owner_fn, NULL, "stall-owner");
	KUNIT_ASSERT_FALSE(test, IS_ERR(owner));
	ctx = mock_context(f->i915, "retired");
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->pid = get_task_pid(owner, PIDTYPE_PID);
	owner_pid = pid_nr(ctx->pid);
	snprintf(ctx->name, sizeof(ctx->name), "stall-owner[%d]", owner_pid);
	ce = i915_gem_context_get_engine(ctx, RCS0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ce));
	rq = mock_request(ce, MOCK_DELAY);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rq));
	i915_request_get(rq);
	i915_request_add(rq);
	context = rq->fence.context;
	seqno = rq->fence.seqno;

	i915_stall_request_begin(&w, rq);
	KUNIT_ASSERT_GT(test, i915_request_wait(rq, 0, HZ), 0);

	kthread_stop(owner);
	intel_context_put(ce);
	mock_context_close(ctx);
	for (i = 0; i < 3; i++) {
		mock_device_flush(f->i915);
		flush_workqueue(f->i915->wq);
		rcu_barrier();
	}
	kvfree_rcu_barrier();

	/*
	 * One record from the wait itself, one from this end hook; the
	 * flushes above may wait too (they are stalls of their own).
	 */
	__i915_stall_request_end(rq->i915, &w, 0, 0, HZ, 1, _THIS_IP_);
	i915_request_put(rq);

	snap = test_snapshot(test, f->log);
	r = NULL;
	for (i = 0; i < snap_header(snap)->record_count; i++) {
		const struct i915_stall_record *q = snap_rec(snap, i);

		kunit_info(test, "record %d: site %u, caller %pS\n", i, q->site,
			   (void *)q->caller);
		if (frame_is(q->caller, "stall_mock_request_retired")) {
			KUNIT_EXPECT_NULL(test, r);
			r = q;
		}
	}
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_TRUE(test, frame_is(r->caller, "stall_mock_request_retired"));
	KUNIT_EXPECT_EQ(test, r->site, I915_STALL_SITE_REQUEST);
	KUNIT_EXPECT_EQ(test, r->flags & ~I915_STALL_F_KSTACK_TRUNC,
			I915_STALL_F_KTHREAD | I915_STALL_F_FENCE | I915_STALL_F_ENGINE |
			I915_STALL_F_OWNER);
	KUNIT_EXPECT_EQ(test, r->fence_context, context);
	KUNIT_EXPECT_EQ(test, r->fence_seqno, seqno);
	KUNIT_EXPECT_EQ(test, r->engine_class, f->engine->uabi_class);
	KUNIT_EXPECT_EQ(test, r->engine_instance, f->engine->uabi_instance);
	KUNIT_EXPECT_EQ(test, r->owner_pid, owner_pid);
	KUNIT_EXPECT_STREQ(test, r->owner_comm, "stall-owner");
}

/* A request that signalled before the begin hook gives no engine or owner. */
static void stall_mock_capture_signalled(struct kunit *test)
{
	struct mock_fixture *f = test->priv;
	struct i915_request *rq = submit(test, f->engine->kernel_context, 0);
	struct i915_stall_wait w;

	KUNIT_ASSERT_GT(test, i915_request_wait(rq, 0, HZ), 0);
	KUNIT_ASSERT_TRUE(test, i915_request_signaled(rq));
	i915_stall_request_begin(&w, rq);
	KUNIT_EXPECT_NE(test, w.start_ns, 0);
	KUNIT_EXPECT_EQ(test, w.flags, I915_STALL_F_FENCE);
	KUNIT_EXPECT_EQ(test, w.fence_context, rq->fence.context);
	KUNIT_EXPECT_EQ(test, w.fence_seqno, rq->fence.seqno);
}

static struct kunit_case stall_mock_cases[] = {
	KUNIT_CASE(stall_mock_request_wait),
	KUNIT_CASE(stall_mock_request_timeout),
	KUNIT_CASE(stall_mock_request_complete),
	KUNIT_CASE(stall_mock_threshold),
	KUNIT_CASE(stall_mock_disabled),
	KUNIT_CASE(stall_mock_owner),
	KUNIT_CASE(stall_mock_active_wait),
	KUNIT_CASE(stall_mock_object_wait),
	KUNIT_CASE(stall_mock_bind_wait),
	KUNIT_CASE(stall_mock_unbind_wait),
	KUNIT_CASE(stall_mock_active_unattributed),
	KUNIT_CASE(stall_mock_request_retired),
	KUNIT_CASE(stall_mock_capture_signalled),
	{}
};

static struct kunit_suite stall_mock_suite = {
	.name = "i915_stall_mock",
	.init = mock_init,
	.test_cases = stall_mock_cases,
};

/*
 * The syncobj waits of userspace.  Each case opens a DRM file on the mock
 * device, puts mock requests into syncobjs with the in-kernel syncobj API,
 * and waits with the real ioctl through drm_ioctl(), the arguments in user
 * memory mapped for the test (kunit_vm_mmap()).
 */
struct syncobj_fixture {
	struct mock_fixture *f;
	struct file *file;
	void __user *args;	/* the ioctl's argument */
	u32 __user *handles;
	u64 __user *points;
};

static void syncobj_file_put(void *file)
{
	fput(file);
	/* The release is deferred from a kernel thread: run it now. */
	flush_delayed_fput();
}

static struct syncobj_fixture *syncobj_fixture(struct kunit *test)
{
	struct syncobj_fixture *sf = kunit_kzalloc(test, sizeof(*sf), GFP_KERNEL);
	unsigned long user;

	KUNIT_ASSERT_NOT_NULL(test, sf);
	sf->f = test->priv;
	sf->file = mock_drm_getfile(sf->f->i915->drm.primary, O_RDWR);
	KUNIT_ASSERT_FALSE(test, IS_ERR(sf->file));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, syncobj_file_put, sf->file), 0);

	user = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE_MSG(test, user, 0, "no user memory");
	sf->args = (void __user *)user;
	sf->handles = (u32 __user *)(user + 256);
	sf->points = (u64 __user *)(user + 512);
	return sf;
}

/* A new syncobj of the file holding @fence (NULL: none yet). */
static u32 syncobj_new(struct kunit *test, struct syncobj_fixture *sf,
		       struct dma_fence *fence, struct drm_syncobj **out)
{
	struct drm_syncobj *syncobj;
	u32 handle;

	KUNIT_ASSERT_EQ(test, drm_syncobj_create(&syncobj, 0, fence), 0);
	KUNIT_ASSERT_EQ(test, drm_syncobj_get_handle(to_drm_file(sf->file), syncobj,
						     &handle), 0);
	if (out)
		*out = syncobj;	/* the file's handle holds it */
	drm_syncobj_put(syncobj);
	return handle;
}

/* Not a tail call, so that the function shows in the stack. */
static noinline long syncobj_wait_caller(struct kunit *test, struct syncobj_fixture *sf,
					 const u32 *handles, const u64 *points,
					 u32 count, u32 flags, s64 timeout_ms)
{
	s64 abs = timeout_ms < 0 ? S64_MAX :
		  ktime_get_ns() + timeout_ms * NSEC_PER_MSEC;
	long ret;

	KUNIT_ASSERT_EQ(test, copy_to_user(sf->handles, handles, count * sizeof(*handles)), 0);
	if (points) {
		struct drm_syncobj_timeline_wait args = {
			.handles = (uintptr_t)sf->handles,
			.points = (uintptr_t)sf->points,
			.timeout_nsec = abs,
			.count_handles = count,
			.flags = flags,
		};

		KUNIT_ASSERT_EQ(test, copy_to_user(sf->points, points, count * sizeof(*points)),
				0);
		KUNIT_ASSERT_EQ(test, copy_to_user(sf->args, &args, sizeof(args)), 0);
		ret = drm_ioctl(sf->file, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT,
				(unsigned long)sf->args);
	} else {
		struct drm_syncobj_wait args = {
			.handles = (uintptr_t)sf->handles,
			.timeout_nsec = abs,
			.count_handles = count,
			.flags = flags,
		};

		KUNIT_ASSERT_EQ(test, copy_to_user(sf->args, &args, sizeof(args)), 0);
		ret = drm_ioctl(sf->file, DRM_IOCTL_SYNCOBJ_WAIT, (unsigned long)sf->args);
	}
	OPTIMIZER_HIDE_VAR(ret);
	return ret;
}

/* The one record a wait made, with what every syncobj record has. */
static const struct i915_stall_record *
syncobj_record(struct kunit *test, struct syncobj_fixture *sf, u16 site, u32 count,
	       u32 sync_flags)
{
	struct stall_snapshot *snap = test_snapshot(test, sf->f->log);
	const struct i915_stall_record *r;

	/* One record: the request hooks saw nothing of the same wait. */
	KUNIT_ASSERT_EQ(test, snap_header(snap)->record_count, 1);
	r = snap_rec(snap, 0);
	KUNIT_EXPECT_EQ(test, r->site, site);
	KUNIT_EXPECT_EQ(test, r->fence_count, count);
	KUNIT_EXPECT_EQ(test, r->sync_flags, sync_flags);
	KUNIT_EXPECT_EQ(test, r->wait_flags, I915_WAIT_INTERRUPTIBLE);
	KUNIT_EXPECT_EQ(test, r->pid, task_pid_nr(current));
	KUNIT_EXPECT_EQ(test, r->spin_ns, 0);
	KUNIT_EXPECT_TRUE(test, kstack_has(test, r, "drm_syncobj_array_wait_timeout"));
	KUNIT_EXPECT_TRUE(test, kstack_has(test, r, "drm_ioctl"));
	KUNIT_EXPECT_TRUE(test, kstack_has(test, r, "syncobj_wait_caller"));
	return r;
}

static void expect_request(struct kunit *test, const struct i915_stall_record *r,
			   const struct i915_request *rq)
{
	KUNIT_EXPECT_EQ(test, r->flags & ~I915_STALL_F_KSTACK_TRUNC,
			I915_STALL_F_KTHREAD | I915_STALL_F_FENCE | I915_STALL_F_ENGINE);
	KUNIT_EXPECT_EQ(test, r->fence_context, rq->fence.context);
	KUNIT_EXPECT_EQ(test, r->fence_seqno, rq->fence.seqno);
	KUNIT_EXPECT_EQ(test, r->engine_class, rq->engine->uabi_class);
	KUNIT_EXPECT_EQ(test, r->engine_instance, rq->engine->uabi_instance);
}

static void expect_duration(struct kunit *test, const struct i915_stall_record *r,
			    unsigned long jiffies)
{
	KUNIT_EXPECT_GE(test, r->duration_ns, jiffies_to_nsecs(jiffies) - 2 * TICK_NSEC);
	KUNIT_EXPECT_LT(test, r->duration_ns, jiffies_to_nsecs(jiffies) + MOCK_SLACK_NS);
}

/* All of two requests: one record, named by the first, as long as both. */
static void stall_syncobj_all(struct kunit *test)
{
	struct syncobj_fixture *sf = syncobj_fixture(test);
	struct intel_context *ce = sf->f->engine->kernel_context;
	struct i915_request *a = submit(test, ce, MOCK_DELAY);
	struct i915_request *b = submit(test, ce, MOCK_DELAY);
	const struct i915_stall_record *r;
	u32 h[2];

	h[0] = syncobj_new(test, sf, &a->fence, NULL);
	h[1] = syncobj_new(test, sf, &b->fence, NULL);
	KUNIT_ASSERT_EQ(test, syncobj_wait_caller(test, sf, h, NULL, 2,
						  DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, -1), 0);
	KUNIT_EXPECT_TRUE(test, i915_request_completed(b));

	r = syncobj_record(test, sf, I915_STALL_SITE_SYNCOBJ, 2, I915_STALL_SYNC_WAIT_ALL);
	expect_request(test, r, a);
	expect_duration(test, r, 2 * MOCK_DELAY);
	KUNIT_EXPECT_EQ(test, r->outcome, I915_STALL_COMPLETED);
	KUNIT_EXPECT_EQ(test, r->timeout_ns, I915_STALL_TIMEOUT_NONE);
}

/* Any of two: ends with the first, which names it; the second still runs. */
static void stall_syncobj_any(struct kunit *test)
{
	struct syncobj_fixture *sf = syncobj_fixture(test);
	struct intel_context *ce = sf->f->engine->kernel_context;
	struct i915_request *a = submit(test, ce, MOCK_DELAY);
	struct i915_request *b = submit(test, ce, 4 * MOCK_DELAY);
	const struct i915_stall_record *r;
	u32 h[2];

	h[0] = syncobj_new(test, sf, &b->fence, NULL);
	h[1] = syncobj_new(test, sf, &a->fence, NULL);
	KUNIT_ASSERT_EQ(test, syncobj_wait_caller(test, sf, h, NULL, 2, 0, 10000), 0);
	KUNIT_EXPECT_FALSE(test, i915_request_completed(b));

	r = syncobj_record(test, sf, I915_STALL_SITE_SYNCOBJ, 2, 0);
	/* The first unsignalled request in handle order. */
	expect_request(test, r, b);
	expect_duration(test, r, MOCK_DELAY);
	KUNIT_EXPECT_LT(test, r->duration_ns, jiffies_to_nsecs(4 * MOCK_DELAY));
	KUNIT_EXPECT_EQ(test, r->outcome, I915_STALL_COMPLETED);
	KUNIT_EXPECT_GT(test, r->timeout_ns, 9000 * NSEC_PER_MSEC);
	KUNIT_EXPECT_LE(test, r->timeout_ns, 10000 * NSEC_PER_MSEC + TICK_NSEC);
	KUNIT_ASSERT_GT(test, i915_request_wait(b, 0, 10 * HZ), 0);
}

/* A timeline point: the request is found inside the dma_fence_chain. */
static void stall_syncobj_timeline(struct kunit *test)
{
	struct syncobj_fixture *sf = syncobj_fixture(test);
	struct i915_request *rq = submit(test, sf->f->engine->kernel_context, MOCK_DELAY);
	const struct i915_stall_record *r;
	struct drm_syncobj *syncobj;
	struct dma_fence_chain *chain;
	u64 point = 5;
	u32 h;

	h = syncobj_new(test, sf, NULL, &syncobj);
	chain = dma_fence_chain_alloc();
	KUNIT_ASSERT_NOT_NULL(test, chain);
	drm_syncobj_add_point(syncobj, chain, &rq->fence, point);

	KUNIT_ASSERT_EQ(test, syncobj_wait_caller(test, sf, &h, &point, 1,
						  DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, -1), 0);
	r = syncobj_record(test, sf, I915_STALL_SITE_SYNCOBJ_TIMELINE, 1,
			   I915_STALL_SYNC_WAIT_ALL);
	expect_request(test, r, rq);
	expect_duration(test, r, MOCK_DELAY);
}

/* A fence array (a merged sync_file): the unsignalled request inside. */
static void stall_syncobj_array(struct kunit *test)
{
	struct syncobj_fixture *sf = syncobj_fixture(test);
	struct intel_context *ce = sf->f->engine->kernel_context;
	struct i915_request *done = submit(test, ce, 0);
	struct i915_request *rq;
	struct dma_fence_array *array;
	struct dma_fence **fences;
	const struct i915_stall_record *r;
	u32 h;

	KUNIT_ASSERT_GT(test, i915_request_wait(done, 0, HZ), 0);
	rq = submit(test, ce, MOCK_DELAY);
	fences = kmalloc_array(2, sizeof(*fences), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fences);
	fences[0] = dma_fence_get(&done->fence);
	fences[1] = dma_fence_get(&rq->fence);
	array = dma_fence_array_create(2, fences, dma_fence_context_alloc(1), 1, false);
	KUNIT_ASSERT_NOT_NULL(test, array);

	h = syncobj_new(test, sf, &array->base, NULL);
	dma_fence_put(&array->base);
	KUNIT_ASSERT_EQ(test, syncobj_wait_caller(test, sf, &h, NULL, 1, 0, -1), 0);
	r = syncobj_record(test, sf, I915_STALL_SITE_SYNCOBJ, 1, 0);
	expect_request(test, r, rq);
	expect_duration(test, r, MOCK_DELAY);
}

struct late_fence {
	struct delayed_work work;
	struct drm_syncobj *syncobj;
	struct dma_fence *fence;
};

static void late_fence_fn(struct work_struct *work)
{
	struct late_fence *lf = container_of(work, typeof(*lf), work.work);

	drm_syncobj_replace_fence(lf->syncobj, lf->fence);
}

/*
 * WAIT_FOR_SUBMIT on a syncobj with no fence yet: the fence arrives later
 * (and wakes the wait, which sleeps again), and is never named: a fence
 * that appears during the wait may be signalled and retired by its end.
 */
static void stall_syncobj_for_submit(struct kunit *test)
{
	struct syncobj_fixture *sf = syncobj_fixture(test);
	struct late_fence lf = {};
	const struct i915_stall_record *r;
	struct i915_request *rq;
	u32 h;

	h = syncobj_new(test, sf, NULL, &lf.syncobj);
	rq = submit(test, sf->f->engine->kernel_context, 2 * MOCK_DELAY);
	lf.fence = &rq->fence;
	INIT_DELAYED_WORK_ONSTACK(&lf.work, late_fence_fn);
	schedule_delayed_work(&lf.work, MOCK_DELAY);

	KUNIT_EXPECT_EQ(test, syncobj_wait_caller(test, sf, &h, NULL, 1,
						  DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, -1), 0);
	flush_delayed_work(&lf.work);
	destroy_delayed_work_on_stack(&lf.work);

	r = syncobj_record(test, sf, I915_STALL_SITE_SYNCOBJ, 1,
			   I915_STALL_SYNC_FOR_SUBMIT | I915_STALL_SYNC_UNSUBMITTED);
	KUNIT_EXPECT_EQ(test, r->flags & ~I915_STALL_F_KSTACK_TRUNC, I915_STALL_F_KTHREAD);
	KUNIT_EXPECT_EQ(test, r->engine_class, I915_STALL_ENGINE_NONE);
	expect_duration(test, r, 2 * MOCK_DELAY);
}

static void stall_syncobj_timeout(struct kunit *test)
{
	struct syncobj_fixture *sf = syncobj_fixture(test);
	struct i915_request *rq = submit(test, sf->f->engine->kernel_context, 4 * MOCK_DELAY);
	const struct i915_stall_record *r;
	u32 h = syncobj_new(test, sf, &rq->fence, NULL);

	KUNIT_EXPECT_EQ(test, syncobj_wait_caller(test, sf, &h, NULL, 1, 0,
						  jiffies_to_msecs(MOCK_DELAY)), -ETIME);
	r = syncobj_record(test, sf, I915_STALL_SITE_SYNCOBJ, 1, 0);
	expect_request(test, r, rq);
	KUNIT_EXPECT_EQ(test, r->outcome, I915_STALL_TIMEDOUT);
	KUNIT_EXPECT_EQ(test, r->error, 0);
	expect_duration(test, r, MOCK_DELAY);
	KUNIT_EXPECT_LE(test, r->timeout_ns, jiffies_to_nsecs(MOCK_DELAY) + TICK_NSEC);
	KUNIT_EXPECT_GE(test, r->timeout_ns, jiffies_to_nsecs(MOCK_DELAY) - 2 * TICK_NSEC);
	KUNIT_ASSERT_GT(test, i915_request_wait(rq, 0, 10 * HZ), 0);
}

struct late_signal {
	struct delayed_work work;
	struct task_struct *task;
};

static void late_signal_fn(struct work_struct *work)
{
	struct late_signal *ls = container_of(work, typeof(*ls), work.work);

	send_sig(SIGUSR1, ls->task, 1);
}

/* A signal ends the wait while it sleeps. */
static void stall_syncobj_interrupted(struct kunit *test)
{
	struct syncobj_fixture *sf = syncobj_fixture(test);
	struct i915_request *rq = submit(test, sf->f->engine->kernel_context, 4 * MOCK_DELAY);
	struct late_signal ls = { .task = current };
	const struct i915_stall_record *r;
	u32 h = syncobj_new(test, sf, &rq->fence, NULL);
	long ret;

	allow_signal(SIGUSR1);
	INIT_DELAYED_WORK_ONSTACK(&ls.work, late_signal_fn);
	schedule_delayed_work(&ls.work, MOCK_DELAY);
	ret = syncobj_wait_caller(test, sf, &h, NULL, 1, 0, -1);
	flush_delayed_work(&ls.work);
	destroy_delayed_work_on_stack(&ls.work);
	flush_signals(current);
	disallow_signal(SIGUSR1);

	KUNIT_EXPECT_EQ(test, ret, -ERESTARTSYS);
	r = syncobj_record(test, sf, I915_STALL_SITE_SYNCOBJ, 1, 0);
	expect_request(test, r, rq);
	KUNIT_EXPECT_EQ(test, r->outcome, I915_STALL_INTERRUPTED);
	expect_duration(test, r, MOCK_DELAY);
	KUNIT_ASSERT_GT(test, i915_request_wait(rq, 0, 10 * HZ), 0);
}

/* Signalled already: the wait never sleeps and nothing is recorded. */
static void stall_syncobj_signalled(struct kunit *test)
{
	struct syncobj_fixture *sf = syncobj_fixture(test);
	struct i915_request *rq = submit(test, sf->f->engine->kernel_context, 0);
	struct stall_snapshot *snap;
	u32 h = syncobj_new(test, sf, &rq->fence, NULL);

	KUNIT_ASSERT_GT(test, i915_request_wait(rq, 0, HZ), 0);
	KUNIT_ASSERT_EQ(test, stall_threshold_set(sf->f->log, 0), 0);
	KUNIT_EXPECT_EQ(test, syncobj_wait_caller(test, sf, &h, NULL, 1, 0, -1), 0);
	snap = test_snapshot(test, sf->f->log);
	KUNIT_EXPECT_EQ(test, snap_header(snap)->record_count, 0);
}

/* With the log disabled, DRM core calls no hook: nothing is recorded. */
static void stall_syncobj_disabled(struct kunit *test)
{
	struct syncobj_fixture *sf = syncobj_fixture(test);
	struct i915_request *rq = submit(test, sf->f->engine->kernel_context, MOCK_DELAY);
	struct stall_snapshot *snap;
	u32 h = syncobj_new(test, sf, &rq->fence, NULL);

	KUNIT_ASSERT_EQ(test, stall_enable_set(sf->f->log, 0), 0);
	KUNIT_EXPECT_FALSE(test, static_key_enabled(&i915_stall_key));
	KUNIT_EXPECT_EQ(test, syncobj_wait_caller(test, sf, &h, NULL, 1, 0, -1), 0);
	KUNIT_ASSERT_EQ(test, stall_enable_set(sf->f->log, 1), 0);
	snap = test_snapshot(test, sf->f->log);
	KUNIT_EXPECT_EQ(test, snap_header(snap)->record_count, 0);
}

static struct kunit_case stall_syncobj_cases[] = {
	KUNIT_CASE(stall_syncobj_all),
	KUNIT_CASE(stall_syncobj_any),
	KUNIT_CASE(stall_syncobj_timeline),
	KUNIT_CASE(stall_syncobj_array),
	KUNIT_CASE(stall_syncobj_for_submit),
	KUNIT_CASE(stall_syncobj_timeout),
	KUNIT_CASE(stall_syncobj_interrupted),
	KUNIT_CASE(stall_syncobj_signalled),
	KUNIT_CASE(stall_syncobj_disabled),
	{}
};

static struct kunit_suite stall_syncobj_suite = {
	.name = "i915_stall_syncobj",
	.init = mock_init,
	.test_cases = stall_syncobj_cases,
};

/*
 * User stacks and the identity of user code.  Test cases run in kernel
 * threads, so these call the capture functions directly, on memory mapped
 * into the test's mm: the snapshot copy, the table of an address space's
 * executable mappings a record names, and the maps the snapshot fills
 * in a record of the file from it.
 */

#define TEST_USTACK	512

/* The rings of a log with room for TEST_USTACK bytes of user stack. */
static const struct i915_stall_rings *user_rings(struct kunit *test)
{
	struct i915_stall_log *log = test_log_auto(test, TEST_SLOTS);
	struct i915_stall_rings *rings;

	KUNIT_ASSERT_EQ(test, stall_ustack_bytes_set(log, TEST_USTACK), 0);
	rings = rcu_dereference_protected(log->rings, true);
	KUNIT_ASSERT_EQ(test, rings->ustack_bytes, TEST_USTACK);
	return rings;
}

/* A zeroed record in the layout of the file, with its snapshot. */
static struct i915_stall_record *user_file_record(struct kunit *test)
{
	struct i915_stall_record *rec = kunit_kzalloc(test, stall_stride(TEST_USTACK),
						      GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rec);
	rec->flags = I915_STALL_F_USER_REGS;
	rec->user_sp = 0x7fff0000;
	return rec;
}

/*
 * Name the table of the test's address space for the record @s on this
 * CPU, as stall_fill_user() does, walking at most @walk_max VMAs: its id,
 * or 0 and the reason in @s.  The caller keeps to one CPU.
 */
static u64 user_name_rec(const struct i915_stall_rings *rings, struct i915_stall_record *s,
			 unsigned int walk_max)
{
	struct stall_table_ref ref;

	preempt_disable();
	stall_table_name(rings, rings->ring[smp_processor_id()], s, &ref, walk_max);
	preempt_enable();
	return ref.id;
}

/* The same for a record of no frames; its flags into *@flags. */
static u64 user_name(const struct i915_stall_rings *rings, unsigned int walk_max,
		     u16 *flags)
{
	struct i915_stall_record s = {};
	u64 id = user_name_rec(rings, &s, walk_max);

	if (flags)
		*flags = s.flags;
	return id;
}

/* The table of this CPU's ring with @id, or NULL if it is gone. */
static struct stall_table *user_table_find(const struct i915_stall_rings *rings, u64 id)
{
	struct i915_stall_ring *ring = rings->ring[smp_processor_id()];
	u32 i;

	for (i = 0; i < ring->nr_tables; i++) {
		const struct stall_table_ref *ref = stall_table_ref(ring, i);

		if (ref->id == id)
			return stall_table_at(rings, ring, ref->off);
	}
	return NULL;
}

/* The same, which must be there. */
static struct stall_table *user_table(struct kunit *test,
				      const struct i915_stall_rings *rings, u64 id)
{
	struct stall_table *t = user_table_find(rings, id);

	if (!t)
		KUNIT_FAIL(test, "no table %llu", id);
	return t;
}

/* As the snapshot fills a record's maps from its table. */
static void user_fill(struct kunit *test, struct i915_stall_record *rec,
		      const struct stall_table *t)
{
	u8 *idx = kunit_kzalloc(test, STALL_TABLE_MAPS, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, idx);
	stall_rec_fill_maps(rec, t, idx);
}

static void user_fput(void *file)
{
	fput(file);
}

#define TEST_BUILD_ID	"\x01\x23\x45\x67\x89\xab\xcd\xef\x10\x32\x54\x76\x98\xba\xdc\xfe\x5a\xa5\x0f\xf0"

/* An ELF shared object as far as build_id_parse_nofault() reads one. */
struct user_elf {
	struct elf64_hdr eh;
	struct elf64_phdr ph;
	struct elf64_note nh;
	char name[4];
	u8 id[20];
};

/*
 * A 4-page shmem file named @name that starts with an ELF header whose
 * build-id note is in page 0, or in page 2, a hole that is not in the page
 * cache when @resident is false.
 */
static struct file *user_elf_file_named(struct kunit *test, const char *name,
					bool resident)
{
	struct user_elf *elf = kunit_kzalloc(test, sizeof(*elf), GFP_KERNEL);
	loff_t note = resident ? offsetof(struct user_elf, nh) : 2 * PAGE_SIZE;
	struct file *file;
	loff_t pos = 0;

	KUNIT_ASSERT_NOT_NULL(test, elf);
	memcpy(elf->eh.e_ident, ELFMAG, SELFMAG);
	elf->eh.e_ident[EI_CLASS] = ELFCLASS64;
	elf->eh.e_ident[EI_DATA] = ELFDATA2LSB;
	elf->eh.e_ident[EI_VERSION] = EV_CURRENT;
	elf->eh.e_type = ET_DYN;
	elf->eh.e_machine = EM_X86_64;
	elf->eh.e_version = EV_CURRENT;
	elf->eh.e_phoff = offsetof(struct user_elf, ph);
	elf->eh.e_ehsize = sizeof(elf->eh);
	elf->eh.e_phentsize = sizeof(elf->ph);
	elf->eh.e_phnum = 1;
	elf->ph.p_type = PT_NOTE;
	elf->ph.p_offset = note;
	elf->ph.p_filesz = sizeof(*elf) - offsetof(struct user_elf, nh);
	elf->ph.p_align = 4;
	elf->nh.n_namesz = 4;
	elf->nh.n_descsz = 20;
	elf->nh.n_type = 3;	/* NT_GNU_BUILD_ID */
	memcpy(elf->name, "GNU", 4);
	memcpy(elf->id, TEST_BUILD_ID, 20);

	file = shmem_file_setup(name, 4 * PAGE_SIZE, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, file);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, user_fput, file), 0);
	KUNIT_ASSERT_EQ(test, kernel_write(file, elf, sizeof(*elf), &pos), sizeof(*elf));
	return file;
}

static struct file *user_elf_file(struct kunit *test, bool resident)
{
	return user_elf_file_named(test, "stall-test.so", resident);
}

static unsigned long user_map(struct kunit *test, struct file *file,
			      unsigned long prot, unsigned long pgoff)
{
	unsigned long addr;

	addr = kunit_vm_mmap(test, file, 0, PAGE_SIZE, prot,
			     file ? MAP_PRIVATE : MAP_PRIVATE | MAP_ANONYMOUS,
			     pgoff << PAGE_SHIFT);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(addr));
	KUNIT_ASSERT_NE(test, addr, 0);
	return addr;
}

/* A new layout: a page of data mapped, which changes no table's maps. */
static void user_remap(struct kunit *test)
{
	user_map(test, NULL, PROT_READ | PROT_WRITE, 0);
}

/* The snapshot copy stops at the first page that is not mapped. */
static void stall_user_copy_ustack(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, 3 * PAGE_SIZE, GFP_KERNEL);
	u8 *want = kunit_kzalloc(test, 3 * PAGE_SIZE, GFP_KERNEL);
	unsigned long addr;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, want);
	addr = kunit_vm_mmap(test, NULL, 0, 3 * PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(addr));
	for (i = 0; i < 2 * PAGE_SIZE; i++)
		want[i] = i * 7 + 3;
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)addr, want, 2 * PAGE_SIZE), 0);
	KUNIT_ASSERT_EQ(test, vm_munmap(addr + 2 * PAGE_SIZE, PAGE_SIZE), 0);

	/* up to the size asked for, from an sp that is not page aligned */
	KUNIT_EXPECT_EQ(test, stall_copy_ustack(buf, addr + 100, 256), 256);
	KUNIT_EXPECT_MEMEQ(test, buf, want + 100, 256);
	/* across the page boundary, then stopped by the hole */
	KUNIT_EXPECT_EQ(test, stall_copy_ustack(buf, addr + 100, 3 * PAGE_SIZE),
			2 * PAGE_SIZE - 100);
	KUNIT_EXPECT_MEMEQ(test, buf, want + 100, 2 * PAGE_SIZE - 100);
	KUNIT_EXPECT_EQ(test, stall_copy_ustack(buf, addr + 2 * PAGE_SIZE, 64), 0);
	KUNIT_EXPECT_EQ(test, stall_copy_ustack(buf, addr, 0), 0);
}

static void expect_test_map(struct kunit *test, const struct i915_stall_map *m,
			    unsigned long start, u64 file_offset, bool build_id)
{
	KUNIT_EXPECT_EQ(test, m->start, start);
	KUNIT_EXPECT_EQ(test, m->end, start + PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, m->file_offset, file_offset);
	/* a shmem file: d_path() says "/stall-test.so (deleted)" */
	KUNIT_EXPECT_STREQ(test, m->name, "/stall-test.so");
	KUNIT_EXPECT_EQ(test, m->pad, 0);
	if (build_id) {
		KUNIT_EXPECT_EQ(test, m->flags, I915_STALL_MAP_BUILD_ID | I915_STALL_MAP_PATH |
				I915_STALL_MAP_DELETED);
		KUNIT_EXPECT_EQ(test, m->build_id_size, 20);
		KUNIT_EXPECT_MEMEQ(test, m->build_id, TEST_BUILD_ID, 20);
	} else {
		KUNIT_EXPECT_EQ(test, m->flags, I915_STALL_MAP_PATH | I915_STALL_MAP_DELETED);
		KUNIT_EXPECT_EQ(test, m->build_id_size, 0);
		KUNIT_EXPECT_NULL(test, memchr_inv(m->build_id, 0, sizeof(m->build_id)));
	}
}

/*
 * A table holds every executable mapping, in address order, with what
 * names its file; anonymous executable memory is marked; data is not in
 * it.
 */
static void stall_user_table(struct kunit *test)
{
	const struct i915_stall_rings *rings = user_rings(test);
	struct file *file = user_elf_file(test, true);
	unsigned long text, text2, jit;
	const struct stall_table *t;
	u16 flags;
	u64 id;

	/* top-down: each mapping below the last */
	text = user_map(test, file, PROT_READ | PROT_EXEC, 0);
	text2 = user_map(test, file, PROT_READ | PROT_EXEC, 1);
	jit = user_map(test, NULL, PROT_READ | PROT_WRITE | PROT_EXEC, 0);
	user_map(test, file, PROT_READ, 0);

	migrate_disable();
	id = user_name(rings, STALL_WALK_MAX, &flags);
	KUNIT_EXPECT_EQ(test, id, 1);
	KUNIT_EXPECT_EQ(test, flags, 0);
	t = user_table(test, rings, id);
	migrate_enable();
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_EXPECT_EQ(test, t->flags, 0);
	KUNIT_ASSERT_EQ(test, t->count, 3);
	KUNIT_EXPECT_EQ(test, t->maps[0].start, jit);
	KUNIT_EXPECT_EQ(test, t->maps[0].end, jit + PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, t->maps[0].flags, STALL_MAP_ANON);
	expect_test_map(test, &t->maps[1], text2, PAGE_SIZE, true);
	expect_test_map(test, &t->maps[2], text, 0, true);
}

/*
 * Each frame names its mapping, or why there is none; a word of the stack
 * snapshot adds the mapping it points into; each mapping is saved once,
 * in the order of first use.
 */
static void stall_user_maps(struct kunit *test)
{
	const struct i915_stall_rings *rings = user_rings(test);
	struct i915_stall_record *rec = user_file_record(test);
	struct file *file = user_elf_file(test, true);
	const struct i915_stall_map *maps = stall_rec_maps(rec);
	u64 *words = (u64 *)stall_rec_ustack(rec);
	unsigned long text, text2, jit, data;
	const struct stall_table *t;

	text = user_map(test, file, PROT_READ | PROT_EXEC, 0);
	text2 = user_map(test, file, PROT_READ | PROT_EXEC, 1);
	jit = user_map(test, NULL, PROT_READ | PROT_WRITE | PROT_EXEC, 0);
	data = user_map(test, file, PROT_READ, 0);
	migrate_disable();
	t = user_table(test, rings, user_name(rings, STALL_WALK_MAX, NULL));
	migrate_enable();
	KUNIT_ASSERT_NOT_NULL(test, t);

	rec->ustack_depth = 6;
	rec->ustack[0] = text + 0x10;
	rec->ustack[1] = jit + 0x20;
	rec->ustack[2] = data + 8;	/* not executable */
	rec->ustack[3] = 0x10;		/* below mmap_min_addr, never mapped */
	rec->ustack[4] = text + 0x30;	/* the first mapping again */
	rec->ustack[5] = jit + 0x40;
	/* in the snapshot only: a return address the FP walk skipped */
	rec->ustack_size = 5 * sizeof(u64);
	words[0] = data;
	words[1] = text2 + 0x40;
	words[2] = 42;
	words[3] = jit + 8;		/* words name no anonymous memory */
	words[4] = text + 0x50;

	user_fill(test, rec, t);

	KUNIT_EXPECT_EQ(test, rec->flags, I915_STALL_F_USER_REGS);
	KUNIT_EXPECT_EQ(test, rec->ustack_map[0], 0);
	KUNIT_EXPECT_EQ(test, rec->ustack_map[1], I915_STALL_FRAME_ANON);
	KUNIT_EXPECT_EQ(test, rec->ustack_map[2], I915_STALL_FRAME_NOVMA);
	KUNIT_EXPECT_EQ(test, rec->ustack_map[3], I915_STALL_FRAME_NOVMA);
	KUNIT_EXPECT_EQ(test, rec->ustack_map[4], 0);
	KUNIT_EXPECT_EQ(test, rec->ustack_map[5], I915_STALL_FRAME_ANON);
	KUNIT_ASSERT_EQ(test, rec->map_count, 2);
	expect_test_map(test, &maps[0], text, 0, true);
	expect_test_map(test, &maps[1], text2, PAGE_SIZE, true);
}

/* A build-id that is not in the page cache is not read: no fault taken. */
static void stall_user_maps_not_resident(struct kunit *test)
{
	const struct i915_stall_rings *rings = user_rings(test);
	struct i915_stall_record *rec = user_file_record(test);
	struct file *file = user_elf_file(test, false);
	unsigned long text = user_map(test, file, PROT_READ | PROT_EXEC, 0);
	const struct stall_table *t;

	migrate_disable();
	t = user_table(test, rings, user_name(rings, STALL_WALK_MAX, NULL));
	migrate_enable();
	KUNIT_ASSERT_NOT_NULL(test, t);
	rec->ustack_depth = 1;
	rec->ustack[0] = text + 0x10;
	user_fill(test, rec, t);

	KUNIT_EXPECT_EQ(test, rec->ustack_map[0], 0);
	KUNIT_ASSERT_EQ(test, rec->map_count, 1);
	expect_test_map(test, stall_rec_maps(rec), text, 0, false);
}

/*
 * A path longer than a map holds: the file name alone, truncated, with no
 * MAP_PATH; the reader finds the file by its build-id.
 */
static void stall_user_long_path(struct kunit *test)
{
	const struct i915_stall_rings *rings = user_rings(test);
	char *name = kunit_kzalloc(test, I915_STALL_MAP_NAME_LEN + 20, GFP_KERNEL);
	const struct stall_table *t;
	struct file *file;
	unsigned long text;

	KUNIT_ASSERT_NOT_NULL(test, name);
	memset(name, 'n', I915_STALL_MAP_NAME_LEN + 19);
	file = user_elf_file_named(test, name, true);
	text = user_map(test, file, PROT_READ | PROT_EXEC, 0);
	migrate_disable();
	t = user_table(test, rings, user_name(rings, STALL_WALK_MAX, NULL));
	migrate_enable();
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_EQ(test, t->count, 1);
	KUNIT_EXPECT_EQ(test, t->maps[0].start, text);
	/* not unlinked: a shmem file never had a path, d_path() makes one up */
	KUNIT_EXPECT_EQ(test, t->maps[0].flags, I915_STALL_MAP_BUILD_ID);
	KUNIT_EXPECT_MEMEQ(test, t->maps[0].build_id, TEST_BUILD_ID, 20);
	/* the name as %pd reads it, NUL terminated in the 80 bytes */
	KUNIT_EXPECT_EQ(test, strlen(t->maps[0].name), I915_STALL_MAP_NAME_LEN - 1);
	KUNIT_EXPECT_MEMEQ(test, t->maps[0].name, name, I915_STALL_MAP_NAME_LEN - 1);
}

/* A writer holding mmap_lock costs the record its maps, never a wait. */
static void stall_user_maps_nolock(struct kunit *test)
{
	const struct i915_stall_rings *rings = user_rings(test);
	struct i915_stall_record *rec = user_file_record(test);
	struct file *file = user_elf_file(test, true);
	unsigned long text = user_map(test, file, PROT_READ | PROT_EXEC, 0);

	rec->ustack_depth = 2;
	rec->ustack[0] = text + 0x10;
	rec->ustack[1] = text + 0x20;
	mmap_write_lock(current->mm);
	KUNIT_EXPECT_EQ(test, user_name_rec(rings, rec, STALL_WALK_MAX), 0);
	mmap_write_unlock(current->mm);
	KUNIT_EXPECT_EQ(test, rec->flags, I915_STALL_F_USER_REGS | I915_STALL_F_MAPS_NOLOCK);
	KUNIT_EXPECT_EQ(test, rec->map_count, 0);
	KUNIT_EXPECT_EQ(test, rec->ustack_map[0], I915_STALL_FRAME_NOLOCK);
	KUNIT_EXPECT_EQ(test, rec->ustack_map[1], I915_STALL_FRAME_NOLOCK);
	KUNIT_EXPECT_EQ(test, rec->ustack_map[2], 0);	/* past the depth */
}

/* More executable mappings than a record holds. */
static void stall_user_maps_full(struct kunit *test)
{
	const struct i915_stall_rings *rings = user_rings(test);
	struct i915_stall_record *rec = user_file_record(test);
	struct file *file = user_elf_file(test, true);
	unsigned long text[STALL_MAP_MAX + 1];
	const struct stall_table *t;
	unsigned int i;

	/* offset 0 each: no two can merge into one VMA */
	for (i = 0; i < ARRAY_SIZE(text); i++) {
		text[i] = user_map(test, file, PROT_READ | PROT_EXEC, 0);
		rec->ustack[i] = text[i] + 8 * i;
	}
	rec->ustack[i] = text[3] + 0x100;
	rec->ustack_depth = i + 1;
	migrate_disable();
	t = user_table(test, rings, user_name(rings, STALL_WALK_MAX, NULL));
	migrate_enable();
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_EXPECT_EQ(test, t->count, ARRAY_SIZE(text));
	user_fill(test, rec, t);

	KUNIT_EXPECT_EQ(test, rec->flags, I915_STALL_F_USER_REGS | I915_STALL_F_MAPS_FULL);
	KUNIT_ASSERT_EQ(test, rec->map_count, STALL_MAP_MAX);
	for (i = 0; i < STALL_MAP_MAX; i++) {
		KUNIT_EXPECT_EQ(test, rec->ustack_map[i], i);
		KUNIT_EXPECT_EQ(test, stall_rec_maps(rec)[i].start, text[i]);
	}
	KUNIT_EXPECT_EQ(test, rec->ustack_map[STALL_MAP_MAX], I915_STALL_FRAME_FULL);
	KUNIT_EXPECT_EQ(test, rec->ustack_map[STALL_MAP_MAX + 1], 3);
}

/*
 * A table with no room for every executable mapping, or that walked as
 * many VMAs as it may: a frame it does not hold may be in one it left
 * out, and says so.
 */
static void stall_user_table_full(struct kunit *test)
{
	const struct i915_stall_rings *rings = user_rings(test);
	struct i915_stall_record *rec = user_file_record(test);
	struct file *file = user_elf_file(test, true);
	unsigned long text[STALL_TABLE_MAPS + 1];
	const struct stall_table *t;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(text); i++)
		text[i] = user_map(test, file, PROT_READ | PROT_EXEC, 0);

	/* in address order, the last mapped (lowest) first */
	migrate_disable();
	t = user_table(test, rings, user_name(rings, STALL_WALK_MAX, NULL));
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_EXPECT_EQ(test, t->flags, STALL_TABLE_FULL);
	KUNIT_ASSERT_EQ(test, t->count, STALL_TABLE_MAPS);
	KUNIT_EXPECT_EQ(test, t->maps[0].start, text[STALL_TABLE_MAPS]);
	rec->ustack_depth = 3;
	rec->ustack[0] = text[1] + 8;
	rec->ustack[1] = text[0] + 8;	/* left out */
	rec->ustack[2] = 0x10;		/* nothing, but the table cannot tell */
	user_fill(test, rec, t);
	KUNIT_EXPECT_EQ(test, rec->flags, I915_STALL_F_USER_REGS | I915_STALL_F_MAPS_FULL);
	KUNIT_EXPECT_EQ(test, rec->ustack_map[0], 0);
	KUNIT_EXPECT_EQ(test, rec->ustack_map[1], I915_STALL_FRAME_FULL);
	KUNIT_EXPECT_EQ(test, rec->ustack_map[2], I915_STALL_FRAME_FULL);
	KUNIT_EXPECT_EQ(test, rec->map_count, 1);

	/* 3 VMAs walked of the 129: the 3 lowest, then cut */
	user_remap(test);
	t = user_table(test, rings, user_name(rings, 3, NULL));
	migrate_enable();
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_EXPECT_EQ(test, t->flags, STALL_TABLE_CUT);
	KUNIT_EXPECT_EQ(test, t->count, 2);	/* below them, the page just mapped */
	memset(rec, 0, sizeof(*rec));
	rec->flags = I915_STALL_F_USER_REGS;
	rec->ustack_depth = 1;
	rec->ustack[0] = text[0] + 8;
	user_fill(test, rec, t);
	KUNIT_EXPECT_EQ(test, rec->flags, I915_STALL_F_USER_REGS | I915_STALL_F_MAPS_CUT);
	KUNIT_EXPECT_EQ(test, rec->ustack_map[0], I915_STALL_FRAME_FULL);
}

/* What a table is kept by, perturbed. */
enum user_key { KEY_MM, KEY_TGID, KEY_START_TIME, KEY_EXEC_ID };

static const char * const user_key_names[] = {
	[KEY_MM] = "another mm",
	[KEY_TGID] = "another tgid",
	[KEY_START_TIME] = "another start time",
	[KEY_EXEC_ID] = "another image",
};

static void user_key_desc(const enum user_key *key, char *desc)
{
	strscpy(desc, user_key_names[*key], KUNIT_PARAM_DESC_SIZE);
}

static const enum user_key user_keys[] = { KEY_MM, KEY_TGID, KEY_START_TIME, KEY_EXEC_ID };

KUNIT_ARRAY_PARAM(user_key, user_keys, user_key_desc);

/* Make the table of @id that of another image of another process. */
static void user_perturb(struct kunit *test, const struct i915_stall_rings *rings, u64 id,
			 enum user_key key)
{
	struct stall_table *t = user_table(test, rings, id);

	KUNIT_ASSERT_NOT_NULL(test, t);
	switch (key) {
	case KEY_MM:
		t->key.mm = NULL;
		break;
	case KEY_TGID:
		t->key.tgid++;
		break;
	case KEY_START_TIME:
		t->key.start_time++;
		break;
	case KEY_EXEC_ID:
		t->key.exec_id++;
		break;
	}
}

/*
 * A table is named again, with no walk, while the layout stays; a layout
 * that moved without its executable mappings keeps the table after a
 * walk; the same mappings of another process, or of another image of the
 * same one, get a table of their own.
 */
static void stall_user_table_kept(struct kunit *test)
{
	static const u8 other[20] = "another build-id....";
	const enum user_key *key = test->param_value;
	const struct i915_stall_rings *rings = user_rings(test);
	struct file *file = user_elf_file(test, true);
	struct inode *inode = file_inode(file);
	loff_t pos = offsetof(struct user_elf, id);
	const struct stall_table *t;
	struct timespec64 mtime;

	user_map(test, file, PROT_READ | PROT_EXEC, 0);
	migrate_disable();
	KUNIT_EXPECT_EQ(test, user_name(rings, STALL_WALK_MAX, NULL), 1);

	/* A new build-id and time: only a walk would see them. */
	KUNIT_ASSERT_EQ(test, kernel_write(file, other, sizeof(other), &pos), sizeof(other));
	mtime = inode_get_mtime(inode);
	mtime.tv_sec++;
	inode_set_mtime_to_ts(inode, mtime);
	KUNIT_EXPECT_EQ(test, user_name(rings, STALL_WALK_MAX, NULL), 1);
	t = user_table(test, rings, 1);
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_EXPECT_MEMEQ(test, t->maps[0].build_id, TEST_BUILD_ID, 20);

	/* Data mapped: a walk, which finds the file's new build-id. */
	user_remap(test);
	KUNIT_EXPECT_EQ(test, user_name(rings, STALL_WALK_MAX, NULL), 2);
	t = user_table(test, rings, 2);
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_EXPECT_MEMEQ(test, t->maps[0].build_id, other, 20);
	/* the old table is kept: records name it */
	KUNIT_EXPECT_NOT_NULL(test, user_table(test, rings, 1));

	/* Data mapped again: the same executable mappings, the same table. */
	user_remap(test);
	KUNIT_EXPECT_EQ(test, user_name(rings, STALL_WALK_MAX, NULL), 2);
	KUNIT_EXPECT_EQ(test, rings->ring[smp_processor_id()]->next_table, 2);
	KUNIT_EXPECT_EQ(test, rings->ring[smp_processor_id()]->nr_tables, 2);

	/* Another process, or image: the same mappings, a table of its own. */
	user_perturb(test, rings, 2, *key);
	KUNIT_EXPECT_EQ(test, user_name(rings, STALL_WALK_MAX, NULL), 3);
	migrate_enable();
}

/*
 * A new table takes the room of the oldest: when the ring keeps as many
 * as it may, or when the table area has no room left before its end, and
 * then it starts over at the start.
 */
static void stall_user_table_room(struct kunit *test)
{
	const struct i915_stall_rings *rings = user_rings(test);
	struct file *file = user_elf_file(test, true);
	struct i915_stall_ring *ring;
	u32 big = stall_table_size(STALL_TABLE_MAPS);
	unsigned int i;

	user_map(test, file, PROT_READ | PROT_EXEC, 0);
	migrate_disable();
	ring = rings->ring[smp_processor_id()];

	/* as many processes as the ring keeps tables of, each in its own */
	for (i = 1; i <= STALL_TABLES; i++) {
		KUNIT_EXPECT_EQ(test, user_name(rings, STALL_WALK_MAX, NULL), i);
		user_perturb(test, rings, i, KEY_EXEC_ID);
	}
	KUNIT_EXPECT_EQ(test, ring->tables_gone, 0);
	KUNIT_EXPECT_EQ(test, ring->table_head, STALL_TABLES * stall_table_size(1));
	/* one more: the first goes */
	KUNIT_EXPECT_EQ(test, user_name(rings, STALL_WALK_MAX, NULL), STALL_TABLES + 1);
	KUNIT_EXPECT_EQ(test, ring->tables_gone, 1);
	KUNIT_EXPECT_NULL(test, user_table_find(rings, 1));
	KUNIT_EXPECT_NOT_NULL(test, user_table_find(rings, 2));
	KUNIT_EXPECT_EQ(test, ring->nr_tables, STALL_TABLES);
	user_perturb(test, rings, STALL_TABLES + 1, KEY_EXEC_ID);

	/* tables as large as can be: the area holds two */
	KUNIT_ASSERT_EQ(test, rings->table_bytes, 2 * big);
	for (i = 0; i < STALL_TABLE_MAPS; i++)
		user_map(test, file, PROT_READ | PROT_EXEC, 0);
	KUNIT_EXPECT_EQ(test, user_name(rings, STALL_WALK_MAX, NULL), STALL_TABLES + 2);
	KUNIT_EXPECT_EQ(test, ring->tables_gone, 2);
	KUNIT_EXPECT_EQ(test, ring->table_head, (STALL_TABLES + 1) * stall_table_size(1) + big);
	user_perturb(test, rings, STALL_TABLES + 2, KEY_EXEC_ID);
	/* no room before the end: at the start, over all the others */
	KUNIT_EXPECT_EQ(test, user_name(rings, STALL_WALK_MAX, NULL), STALL_TABLES + 3);
	KUNIT_EXPECT_EQ(test, ring->tables_gone, STALL_TABLES + 2);
	KUNIT_EXPECT_EQ(test, ring->nr_tables, 1);
	KUNIT_EXPECT_EQ(test, ring->table_head, big);
	KUNIT_EXPECT_NOT_NULL(test, user_table_find(rings, STALL_TABLES + 3));
	migrate_enable();
}

struct place_case {
	const char *name;
	u32 head;
	u32 nr;
	struct stall_table_ref refs[3];	/* oldest first */
	u32 size;
	u32 off;		/* where it goes */
	u64 gone;		/* tables_gone after */
	u32 nr_after;
};

/* In a table area of 32768 bytes; ids from 1. */
static const struct place_case place_cases[] = {
	{ "empty", 0, 0, {}, 1000, 0, 0, 0 },
	{ "after the others", 900, 3, { { 1, 0, 300 }, { 2, 300, 300 }, { 3, 600, 300 } },
	  1000, 900, 0, 3 },
	{ "at the end, exactly", 30000, 1, { { 1, 0, 30000 } }, 2768, 30000, 0, 1 },
	{ "no room before the end: over the oldest at the start", 30000, 3,
	  { { 1, 0, 10000 }, { 2, 10000, 10000 }, { 3, 20000, 10000 } },
	  5000, 0, 1, 2 },
	{ "at the start, over part of the next", 30000, 3,
	  { { 1, 0, 10000 }, { 2, 10000, 10000 }, { 3, 20000, 10000 } },
	  15000, 0, 2, 1 },
	{ "past the head, not in the way: older, so gone too", 20000, 2,
	  { { 1, 30000, 2000 }, { 2, 0, 20000 } }, 15000, 0, 2, 0 },
	{ "past the head and in the way", 2000, 2,
	  { { 1, 30000, 2000 }, { 2, 0, 2000 } }, 31000, 0, 2, 0 },
};

KUNIT_ARRAY_PARAM_DESC(place, place_cases, name);

/*
 * Where a table of the size asked for goes in the table area, and which
 * of the tables there are given up: the oldest, in order, as far as the
 * new one reaches, and at the start all those past the head.
 */
static void stall_user_table_place(struct kunit *test)
{
	const struct place_case *p = test->param_value;
	struct i915_stall_rings rings = { .table_bytes = SZ_32K };
	struct i915_stall_ring *ring = kunit_kzalloc(test, sizeof(*ring), GFP_KERNEL);
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, ring);
	ring->first = STALL_TABLES - 1;	/* wrapping in @refs too */
	ring->table_head = p->head;
	ring->nr_tables = p->nr;
	for (i = 0; i < p->nr; i++)
		*stall_table_ref(ring, i) = p->refs[i];

	KUNIT_EXPECT_EQ(test, stall_table_place(&rings, ring, p->size), p->off);
	KUNIT_EXPECT_EQ(test, ring->table_head, p->off + p->size);
	KUNIT_EXPECT_EQ(test, ring->tables_gone, p->gone);
	KUNIT_EXPECT_EQ(test, ring->nr_tables, p->nr_after);
	if (p->nr_after)
		KUNIT_EXPECT_EQ(test, stall_table_ref(ring, 0)->id, p->nr - p->nr_after + 1);
}

/* A ring that keeps as many tables as it may gives up the oldest. */
static void stall_user_table_place_full(struct kunit *test)
{
	struct i915_stall_rings rings = { .table_bytes = SZ_1M };
	struct i915_stall_ring *ring = kunit_kzalloc(test, sizeof(*ring), GFP_KERNEL);
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, ring);
	for (i = 0; i < STALL_TABLES; i++) {
		KUNIT_EXPECT_EQ(test, stall_table_place(&rings, ring, 100), 100 * i);
		*stall_table_ref(ring, ring->nr_tables++) =
			(struct stall_table_ref){ .id = i + 1, .off = 100 * i, .size = 100 };
	}
	KUNIT_EXPECT_EQ(test, stall_table_place(&rings, ring, 100), 100 * STALL_TABLES);
	KUNIT_EXPECT_EQ(test, ring->tables_gone, 1);
	KUNIT_EXPECT_EQ(test, ring->nr_tables, STALL_TABLES - 1);
	KUNIT_EXPECT_EQ(test, stall_table_ref(ring, 0)->id, 2);
}

/*
 * A file named once is named from the CPU's cache at the next walk, until
 * its times change: a rewritten file is read again.
 */
static void stall_user_file_cache(struct kunit *test)
{
	static const u8 other[20] = "another build-id....";
	const struct i915_stall_rings *rings = user_rings(test);
	struct file *file = user_elf_file(test, true);
	struct inode *inode = file_inode(file);
	loff_t pos = offsetof(struct user_elf, id);
	struct timespec64 mtime, ctime;
	const struct stall_table *t;

	user_map(test, file, PROT_READ | PROT_EXEC, 0);
	migrate_disable();
	t = user_table(test, rings, user_name(rings, STALL_WALK_MAX, NULL));
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_EXPECT_MEMEQ(test, t->maps[0].build_id, TEST_BUILD_ID, 20);

	/* New bytes under the same times: the cache still answers. */
	mtime = inode_get_mtime(inode);
	ctime = inode_get_ctime(inode);
	KUNIT_ASSERT_EQ(test, kernel_write(file, other, sizeof(other), &pos), sizeof(other));
	inode_set_mtime_to_ts(inode, mtime);
	inode_set_ctime_to_ts(inode, ctime);
	user_remap(test);
	t = user_table(test, rings, user_name(rings, STALL_WALK_MAX, NULL));
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_EXPECT_MEMEQ(test, t->maps[0].build_id, TEST_BUILD_ID, 20);

	/* A later mtime: the file is read again. */
	mtime.tv_sec++;
	inode_set_mtime_to_ts(inode, mtime);
	user_remap(test);
	t = user_table(test, rings, user_name(rings, STALL_WALK_MAX, NULL));
	migrate_enable();
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_EXPECT_MEMEQ(test, t->maps[0].build_id, other, 20);
}

struct user_rec_arg {
	unsigned long text;
	bool junk;
};

/*
 * A record as stall_fill_user() writes it into its slot: a frame in the
 * text, a snapshot of two words, the table named; over a slot full of
 * junk if @junk.
 */
static void user_rec_fill(const struct i915_stall_rings *rings,
			  struct i915_stall_record *s, const void *data)
{
	const struct user_rec_arg *arg = data;
	struct i915_stall_ring *ring = rings->ring[smp_processor_id()];
	u64 *words = (u64 *)stall_slot_ustack(s);

	if (arg->junk)
		memset((u8 *)s + sizeof(s->seq), 0xa5, rings->stride - sizeof(s->seq));
	memset_startat(s, 0, start_ns);
	s->flags = I915_STALL_F_USER_REGS;
	s->ustack_depth = 1;
	s->ustack[0] = arg->text + 0x10;
	s->user_sp = 0x7fff0000;
	s->ustack_size = 2 * sizeof(u64);
	words[0] = 0x7fff0040;
	words[1] = arg->text + 0x20;
	stall_table_name(rings, ring, s, stall_slot_table(s), STALL_WALK_MAX);
}

/*
 * The snapshot fills each record's maps from the table it names, and
 * leaves out what an older record left in the slot; a record whose table
 * was given up since names no mapping, for lack of room.
 */
static void stall_user_snapshot(struct kunit *test)
{
	struct i915_stall_log *log = test_log_auto(test, TEST_SLOTS);
	struct file *file = user_elf_file(test, true);
	struct user_rec_arg arg = {
		.text = user_map(test, file, PROT_READ | PROT_EXEC, 0),
		.junk = true,
	};
	const struct i915_stall_file_header *h;
	const struct i915_stall_cpu_entry *e;
	struct i915_stall_rings *rings;
	const struct i915_stall_record *r;
	struct stall_snapshot *snap;
	unsigned int cpu;
	size_t used;
	const u8 *b;

	KUNIT_ASSERT_EQ(test, stall_ustack_bytes_set(log, TEST_USTACK), 0);
	migrate_disable();
	cpu = smp_processor_id();
	preempt_disable();
	rings = rcu_dereference_sched(log->rings);
	stall_ring_write(rings, user_rec_fill, &arg);
	arg.junk = false;
	stall_ring_write(rings, user_rec_fill, &arg);
	preempt_enable();

	snap = test_snapshot(test, log);
	h = snap_header(snap);
	KUNIT_ASSERT_EQ(test, h->record_count, 2);
	KUNIT_ASSERT_EQ(test, h->record_size, 712 + 16 * 128 + TEST_USTACK);
	r = snap_rec(snap, 0);
	KUNIT_EXPECT_EQ(test, r->map_count, 1);
	KUNIT_EXPECT_EQ(test, r->ustack_map[0], 0);
	KUNIT_EXPECT_EQ(test, r->ustack_map[1], 0);	/* cleared, not junk */
	expect_test_map(test, (const void *)r + h->maps_offset, arg.text, 0, true);
	b = (const u8 *)r;
	used = h->maps_offset + sizeof(struct i915_stall_map);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(b + used, 0, h->ustack_offset - used));
	KUNIT_EXPECT_EQ(test, *(const u64 *)(b + h->ustack_offset), 0x7fff0040);
	KUNIT_EXPECT_EQ(test, *(const u64 *)(b + h->ustack_offset + 8), arg.text + 0x20);
	used = h->ustack_offset + 16;
	KUNIT_EXPECT_TRUE(test, !memchr_inv(b + used, 0, h->record_size - used));

	/* Both named table 1; given up, it names nothing. */
	WRITE_ONCE(rings->ring[cpu]->tables_gone, 1);
	snap = test_snapshot(test, log);
	migrate_enable();
	KUNIT_ASSERT_EQ(test, snap_header(snap)->record_count, 2);
	e = snap_cpu(snap, cpu);
	KUNIT_EXPECT_EQ(test, e->recorded, 2);
	KUNIT_EXPECT_EQ(test, e->emitted, 2);
	KUNIT_EXPECT_EQ(test, e->torn, 0);
	r = snap_rec(snap, 1);
	KUNIT_EXPECT_EQ(test, r->flags, I915_STALL_F_USER_REGS | I915_STALL_F_MAPS_FULL);
	KUNIT_EXPECT_EQ(test, r->map_count, 0);
	KUNIT_EXPECT_EQ(test, r->ustack_map[0], I915_STALL_FRAME_FULL);
	b = (const u8 *)r;
	KUNIT_EXPECT_TRUE(test, !memchr_inv(b + h->maps_offset, 0,
					    h->ustack_offset - h->maps_offset));
}

/* i915_stalls_ustack_bytes: new rings of the new record size. */
static void stall_user_ustack_bytes(struct kunit *test)
{
	struct i915_stall_log *log = test_log_auto(test, TEST_SLOTS);
	const struct i915_stall_file_header *h;
	struct stall_snapshot *snap;
	u64 val;

	write_pattern(log, 3);
	KUNIT_ASSERT_EQ(test, stall_ustack_bytes_set(log, 16384), 0);
	KUNIT_EXPECT_EQ(test, stall_ustack_bytes_get(log, &val), 0);
	KUNIT_EXPECT_EQ(test, val, 16384);
	write_pattern(log, 2);
	snap = test_snapshot(test, log);
	h = snap_header(snap);
	KUNIT_EXPECT_EQ(test, h->record_count, 2);
	KUNIT_EXPECT_EQ(test, h->record_size, 712 + 16 * 128 + 16384);
	KUNIT_EXPECT_EQ(test, h->ustack_snapshot_max, 16384);
	KUNIT_EXPECT_EQ(test, h->slots_per_cpu, TEST_SLOTS);
	/* numbered from the new rings */
	KUNIT_EXPECT_TRUE(test, pattern_ok(snap_rec(snap, 1), 0));

	KUNIT_ASSERT_EQ(test, stall_ustack_bytes_set(log, 0), 0);
	snap = test_snapshot(test, log);
	KUNIT_EXPECT_EQ(test, snap_header(snap)->record_size, 712 + 16 * 128);
	KUNIT_EXPECT_EQ(test, snap_header(snap)->record_count, 0);
}

static struct kunit_case stall_user_cases[] = {
	KUNIT_CASE(stall_user_copy_ustack),
	KUNIT_CASE(stall_user_table),
	KUNIT_CASE(stall_user_maps),
	KUNIT_CASE(stall_user_maps_not_resident),
	KUNIT_CASE(stall_user_long_path),
	KUNIT_CASE(stall_user_maps_nolock),
	KUNIT_CASE(stall_user_maps_full),
	KUNIT_CASE(stall_user_table_full),
	KUNIT_CASE_PARAM(stall_user_table_kept, user_key_gen_params),
	KUNIT_CASE(stall_user_table_room),
	KUNIT_CASE_PARAM(stall_user_table_place, place_gen_params),
	KUNIT_CASE(stall_user_table_place_full),
	KUNIT_CASE(stall_user_file_cache),
	KUNIT_CASE(stall_user_snapshot),
	KUNIT_CASE(stall_user_ustack_bytes),
	{}
};

static struct kunit_suite stall_user_suite = {
	.name = "i915_stall_user",
	.test_cases = stall_user_cases,
};

kunit_test_suites(&stall_suite, &stall_mock_suite, &stall_syncobj_suite,
		  &stall_user_suite);
