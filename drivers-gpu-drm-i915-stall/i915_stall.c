// SPDX-License-Identifier: MIT
/*
 * Copyright © 2026 The i915 stall log authors
 */

/**
 * DOC: i915 stall log
 *
 * The stall log records every time a CPU thread blocks waiting for the GPU:
 * when, for how long, who waited (pid, tgid, comm), where (the wait site,
 * the engine, the fence context and seqno, the owner of the awaited work)
 * and the kernel and user call chains of the waiter.  It answers "which
 * userspace path stalls on the GPU, and for how long" without a tracer, a
 * helper process or a rebuilt userspace, and is cheap enough to leave on.
 *
 * Files
 * -----
 * i915_stall.c holds the log, its per-CPU rings and the snapshot file;
 * i915_stall_user.c the user stack and the identity of user code;
 * i915_stall_debugfs.c the control files; i915_stall_syncobj.c the probes
 * on DRM core's syncobj wait tracepoints; i915_stall_trace.h the
 * i915_stall tracepoint, one event per record; i915_stall_sites.c the
 * wait sites of i915 and its parameters.  Only the last names i915 types:
 * the rest is meant to serve another DRM driver as it is.
 *
 * Wait sites
 * ----------
 * Stalls are recorded at the leaf waits that actually sleep, so one stall
 * is one record and nothing is counted twice: i915_request_wait_timeout()
 * (every wait on an i915 request that goes through dma_fence_wait*(), from
 * anywhere), __i915_active_wait(), the foreign-fence branch of
 * i915_gem_object_wait_fence(), and the syncobj waits of userspace,
 * DRM_IOCTL_SYNCOBJ_WAIT and DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, which sleep
 * on fence callbacks without dma_fence_wait().  Those are the waits of
 * Mesa's iris and of the Vulkan runtime.  Each site calls a begin hook at
 * wait entry and an end hook at wait exit.  With no log enabled both are
 * patched-out jumps (a static key) and no clock is read.  Waits shorter
 * than the threshold are dropped before any stack is captured.
 *
 * Data structure
 * --------------
 * Each device has one log; a log has one ring per possible CPU, allocated
 * on first enable and never freed on CPU hotplug, so records written on a
 * CPU that went offline stay readable.  A ring is an array of fixed-size
 * slots and a head, the number of records ever committed to it.  A slot is
 * a struct i915_stall_record, how the record names the identity of its
 * user code, and a snapshot of the user stack, whose size
 * (i915_stalls_ustack_bytes) sets the slot size when the rings are
 * allocated.  Record n lives in slot n % slots and overwrites record
 * n - slots: the log is a flight recorder that keeps the newest records.
 *
 * Each slot carries a sequence number that names the record in it and its
 * state:
 *
 *   - 2n + 1: record n is being written; its contents are not valid.
 *   - 2n + 2: record n is committed.
 *
 * Because the sequence number encodes n, a reader that finds anything but
 * 2n + 2 in the slot of record n knows that record n is gone, and there is
 * no ABA: a slot never holds the same sequence number twice.
 *
 * Writer
 * ------
 * A stall is recorded at wait exit, in the waiting task.  The record is
 * first made in a buffer of its own, with preemption enabled: the fields,
 * the kernel and user call chains, and how much of the user stack may be
 * copied.  Then, with preemption disabled, the only writer of a ring, its
 * CPU, reserves record n, copies the buffer into the slot and the user
 * stack straight into the slot's snapshot (copied once, not into the
 * buffer and again), names the identity of the user code and commits.  So
 * the preemption-disabled section is a copy of a slot, whatever the stacks
 * cost, and a writer needs no lock and no atomic read-modify-write, never
 * blocks and never waits for a reader.
 * If no buffer can be had without sleeping, the record is made in the
 * slot itself, as a writer of this log did before.  The single-writer rule
 * is asserted for KCSAN (ASSERT_EXCLUSIVE_WRITER() on the head), and a
 * record from interrupt context, which could preempt a writer, is refused
 * with a warning.
 *
 * A wait site captures what it knows about the awaited work (fence,
 * engine, owner) at wait entry, in a struct i915_stall_wait, while the
 * work is referenced and unsignalled; the record is made at wait exit from
 * that copy, without touching the awaited objects, which may be gone by
 * then.
 *
 * Reader
 * ------
 * Opening the debugfs file takes a snapshot: for each CPU the reader reads
 * the head, then copies every record in the ring's window and keeps a copy
 * only if the slot's sequence number was 2n + 2 both before and after the
 * copy.  Writers never wait for the reader: a record the writer overwrote
 * before or during the copy is counted, never emitted.  For each CPU the
 * snapshot therefore proves:
 *
 *   recorded == emitted + overwritten + torn
 *
 * where recorded is the head at the snapshot less the head at the last
 * clear, overwritten counts records that fell out of the window before the
 * copy and torn counts records overwritten while they were copied.  The
 * snapshot then gives each record the executable mappings its user stack
 * points into (see "User frames" in i915_stall_user.c).
 *
 * The file holds kernel addresses (the kernel stacks, the callers and the
 * anchors that undo KASLR) only for an opener that may see the values of
 * /proc/kallsyms (kallsyms_show_value(), which follows kptr_restrict),
 * and not while the kernel is locked down against reading its memory
 * (LOCKDOWN_KCORE): otherwise they are zeroes, and the header says so.
 *
 * Memory barriers
 * ---------------
 * Each barrier is labelled LMM(function:letter), after printk_ringbuffer.
 *
 *   - stall_slot_reserve:A (smp_wmb) orders the odd sequence number before
 *     the payload stores, and pairs with stall_snapshot_cpu:C (smp_rmb)
 *     between the payload loads and the re-read of the sequence number: a
 *     reader that saw any byte of a new payload sees the sequence number
 *     change.
 *   - stall_slot_commit:A (smp_store_release of the even sequence number)
 *     orders the payload before the commit, and pairs with
 *     stall_snapshot_cpu:B (smp_load_acquire of the sequence number before
 *     the copy): a reader that sees 2n + 2 sees record n complete.  The
 *     snapshot finds records through the head, so for it this pair is
 *     implied by the next one; it keeps a slot's sequence number
 *     self-describing at the cost of a compiler barrier on x86.
 *   - stall_slot_commit:B (smp_store_release of the head) orders the commit
 *     before the new head, and pairs with stall_snapshot_take:A
 *     (smp_load_acquire of the head): every record below a head the reader
 *     saw was committed, so the reader never finds a slot of its window
 *     still odd for the record it expects.
 *   - stall_log_set_enabled:A (smp_store_release of enabled) orders the
 *     rings the enable allocated before the flag, and pairs with
 *     stall_record:A and i915_stall_record_submit:A (smp_load_acquire of
 *     enabled): a writer that sees the log enabled sees its rings.
 *
 * Submit records
 * --------------
 * A stall names the request it waited for; who submitted that request,
 * from which code, and how long before, is in a submit record.  While the
 * log is enabled, each request a user task submits gets one, in a second
 * set of per-CPU rings of the same kind (so a busy submitter never pushes
 * stalls out, and lost submit records are counted as lost stalls are),
 * and its fence is flagged (I915_FENCE_FLAG_STALL_SUBMIT).  A submit
 * record holds the submitter, the time, the engine, the fence and the
 * frame-pointer chain of the user stack with the identity of its code: no
 * kernel stack and no stack snapshot, so it is made in its slot, with
 * preemption disabled, at the cost of the walk.  A stall on a flagged
 * request says so (F_SUBMITTED), and how many requests were ahead of it on
 * its engine when the wait began (F_AHEAD).  The reader joins the two by
 * fence: the join is not the kernel's, so the submit path stays a ring
 * write, and a submit record that is gone is known to be gone.
 *
 * Control
 * -------
 * Enabling, the threshold, clearing and resizing go through debugfs files
 * next to the snapshot file, serialised by the log's mutex, which writers
 * never take.  A resize publishes a new set of rings with RCU and frees the
 * old one after a grace period: a writer uses the rings inside an RCU
 * read-side critical section, so synchronize_rcu() waits for every writer
 * still using the old rings.
 */

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/kallsyms.h>
#include <linux/kcsan-checks.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/utsname.h>

#include <drm/drm_device.h>
#include <drm/drm_file.h>

#include "i915_stall.h"
#include "i915_stall_format.h"
#include "i915_stall_log.h"

#define CREATE_TRACE_POINTS
#include "i915_stall_trace.h"

/* Any log enabled: the wait sites read the clock only when this is on. */
DEFINE_STATIC_KEY_FALSE(i915_stall_key);

/* Bytes of a record in the file with @ustack_bytes of user stack. */
static u32 stall_stride(u32 ustack_bytes)
{
	return round_up(STALL_USTACK_OFFSET + ustack_bytes, 8);
}

/* Bytes of a slot that holds @ustack_bytes of user stack. */
static u32 stall_slot_stride(u32 ustack_bytes)
{
	return round_up(STALL_SLOT_USTACK_OFFSET + ustack_bytes, 8);
}

/*
 * Slots per ring that keep the rings of all CPUs near STALL_DEFAULT_BYTES
 * at the default snapshot size.  The identity of user code comes on top,
 * once per log and not per CPU (stall_ident_budget()).
 */
static u32 stall_default_slots(void)
{
	unsigned long slots;

	slots = STALL_DEFAULT_BYTES / (nr_cpu_ids * stall_slot_stride(STALL_USTACK_DEFAULT));
	slots = clamp(slots, STALL_MIN_SLOTS, STALL_DEFAULT_MAX_SLOTS);
	return rounddown_pow_of_two(slots);
}

/*
 * Bytes of executable-mapping tables a log keeps for rings of @slots:
 * 4 KiB a slot of one CPU, whatever the number of CPUs, from 256 KiB to
 * 4 MiB.
 */
static size_t stall_ident_budget(u32 slots)
{
	return clamp_t(size_t, (size_t)slots * SZ_4K, SZ_256K, SZ_4M);
}

static void stall_rings_free(struct i915_stall_rings *rings)
{
	unsigned int cpu;

	if (!rings)
		return;
	for_each_possible_cpu(cpu)
		kvfree(rings->ring[cpu]);
	kfree(rings);
}

static struct i915_stall_rings *stall_rings_alloc(u32 slots, u32 ustack_bytes)
{
	struct i915_stall_rings *rings;
	unsigned int cpu;

	rings = kzalloc(struct_size(rings, ring, nr_cpu_ids), GFP_KERNEL);
	if (!rings)
		return NULL;
	rings->slots = slots;
	rings->stride = stall_slot_stride(ustack_bytes);
	rings->ustack_bytes = ustack_bytes;

	for_each_possible_cpu(cpu) {
		struct i915_stall_ring *ring;

		ring = kvzalloc_node(struct_size(ring, slot, (size_t)slots * rings->stride),
				     GFP_KERNEL, cpu_to_node(cpu));
		if (!ring) {
			stall_rings_free(rings);
			return NULL;
		}
		rings->ring[cpu] = ring;
	}

	return rings;
}

/**
 * i915_stall_log_create - create a stall log, disabled
 * @drm: the device it records the stalls of, or NULL for a test
 *
 * Context: Process context.
 * Return: the log, or NULL if out of memory.
 */
struct i915_stall_log *i915_stall_log_create(struct drm_device *drm)
{
	struct i915_stall_log *log;

	log = kzalloc(sizeof(*log), GFP_KERNEL);
	if (!log)
		return NULL;

	log->ident = stall_ident_create();
	if (!log->ident) {
		kfree(log);
		return NULL;
	}

	mutex_init(&log->lock);
	INIT_LIST_HEAD(&log->syncobj_link);
	log->threshold_ns = STALL_DEFAULT_THRESHOLD;
	log->slots = stall_default_slots();
	log->ustack_bytes = STALL_USTACK_DEFAULT;
	log->drm = drm;
	stall_ident_set_budget(log->ident, stall_ident_budget(log->slots));
	return log;
}

static void stall_log_set_enabled(struct i915_stall_log *log, bool enable)
{
	lockdep_assert_held(&log->lock);

	if (enable == log->enabled)
		return;

	if (!enable)
		i915_stall_syncobj_watch(log, false);
	smp_store_release(&log->enabled, enable); /* LMM(stall_log_set_enabled:A) */
	if (enable)
		static_branch_inc(&i915_stall_key);
	else
		static_branch_dec(&i915_stall_key);
	if (enable)
		i915_stall_syncobj_watch(log, true);
}

/**
 * i915_stall_log_destroy - disable and free a stall log
 * @log: the log, unpublished, or NULL
 *
 * Writers that found the log use it in an RCU read-side critical section:
 * the grace period waits for them before anything is freed.
 *
 * Context: Process context; waits for an RCU grace period.
 */
void i915_stall_log_destroy(struct i915_stall_log *log)
{
	if (!log)
		return;

	mutex_lock(&log->lock);
	stall_log_set_enabled(log, false);
	mutex_unlock(&log->lock);

	synchronize_rcu();
	stall_ident_destroy(log->ident);
	stall_rings_free(rcu_dereference_protected(log->rings, true));
	stall_rings_free(rcu_dereference_protected(log->submits, true));
	mutex_destroy(&log->lock);
	kfree(log);
}

/*
 * Reserve the next slot of this CPU's ring and mark it being written.
 * Returns the number of the record to pass to stall_slot_commit().
 * Context: preemption disabled, so this CPU is the ring's only writer.
 */
static u64 stall_slot_reserve(struct i915_stall_rings *rings,
			      struct i915_stall_ring **ringp,
			      struct i915_stall_record **slotp)
{
	struct i915_stall_ring *ring = rings->ring[smp_processor_id()];
	u64 n = ring->head;	/* only this CPU writes head */
	struct i915_stall_record *slot = stall_slot_rec(rings, ring, n);

	/* Readers only load head; a second writer would be a bug. */
	ASSERT_EXCLUSIVE_WRITER(ring->head);
	WRITE_ONCE(slot->seq, 2 * n + 1);
	smp_wmb(); /* LMM(stall_slot_reserve:A) */
	*ringp = ring;
	*slotp = slot;
	return n;
}

/* Commit record @n in the slot stall_slot_reserve() returned, publish it. */
static void stall_slot_commit(struct i915_stall_ring *ring,
			      struct i915_stall_record *slot, u64 n)
{
	smp_store_release(&slot->seq, 2 * n + 2); /* LMM(stall_slot_commit:A) */
	smp_store_release(&ring->head, n + 1); /* LMM(stall_slot_commit:B) */
}

/*
 * Write one record into this CPU's ring: reserve a slot, let @fill write
 * everything in it but the sequence number, commit.  The only writer of
 * the rings; the tests write through it too.
 * Context: preemption disabled.
 */
static __always_inline void
stall_ring_write(struct i915_stall_rings *rings,
		 void (*fill)(const struct i915_stall_rings *rings,
			      struct i915_stall_record *s, const void *arg),
		 const void *arg)
{
	struct i915_stall_record *slot;
	struct i915_stall_ring *ring;
	u64 n;

	n = stall_slot_reserve(rings, &ring, &slot);
	fill(rings, slot, arg);
	stall_slot_commit(ring, slot, n);
}

static u8 stall_outcome(long ret, int *error)
{
	*error = 0;
	if (ret >= 0)
		return I915_STALL_COMPLETED;
	switch (ret) {
	case -ETIME:
		return I915_STALL_TIMEDOUT;
	case -EINTR:
	case -ERESTARTSYS:
		return I915_STALL_INTERRUPTED;
	default:
		*error = ret;
		return I915_STALL_ERROR;
	}
}

/*
 * Whether kernel address @addr is in a tracepoint's iterator, through which
 * a tracepoint with more than one probe calls them (the name is all that
 * tells it).  Read only for the records of tracepoints' probes.
 */
static bool stall_is_traceiter(unsigned long addr)
{
	char sym[KSYM_SYMBOL_LEN];

	sprint_symbol_no_offset(sym, addr);
	return str_has_prefix(sym, "__traceiter_");
}

/* What stall_fill() records: the site's info and the measured duration. */
struct stall_fill_arg {
	const struct i915_stall_info *info;
	struct i915_stall_log *log;
	u64 duration;
};

/*
 * Make a record of the stall in @s, a slot of @rings or a buffer of its
 * size without the snapshot: everything but the sequence number and the
 * CPU.  The user stack goes to @ustack, the slot's snapshot; with @ustack
 * NULL, it is left for stall_copy_user_stack() to copy into the slot.
 * Preemption may be enabled.
 */
static noinline void stall_fill(const struct i915_stall_rings *rings,
				struct i915_stall_record *s, u8 *ustack,
				const struct stall_fill_arg *arg, unsigned int skip)
{
	const struct i915_stall_info *info = arg->info;
	const struct i915_stall_wait *w = info->wait;
	struct task_struct *tsk = current;
	unsigned int n;
	int error;

	memset_startat(s, 0, start_ns);

	s->start_ns = w->start_ns;
	s->duration_ns = arg->duration;
	s->spin_ns = info->spin_ns;
	/* jiffies_to_nsecs() goes through 32-bit microseconds: not that. */
	s->timeout_ns = info->timeout == MAX_SCHEDULE_TIMEOUT ?
			I915_STALL_TIMEOUT_NONE : jiffies64_to_nsecs(info->timeout);
	s->caller = info->caller;
	s->pid = task_pid_nr(tsk);
	s->tgid = task_tgid_nr(tsk);
	s->wait_flags = info->wait_flags;
	s->site = info->site;
	s->outcome = stall_outcome(info->ret, &error);
	s->error = error;
	/* Our own comm, as tracepoints copy it: no task_lock() needed. */
	memcpy(s->comm, tsk->comm, sizeof(s->comm) - 1);

	/* What the wait site captured at wait entry, and only that. */
	s->flags = w->flags & (I915_STALL_F_FENCE | I915_STALL_F_ENGINE |
			       I915_STALL_F_OWNER | I915_STALL_F_SUBMITTED |
			       I915_STALL_F_AHEAD);
	if (s->flags & I915_STALL_F_AHEAD)
		s->ahead = w->ahead;
	if (s->flags & I915_STALL_F_FENCE) {
		s->fence_context = w->fence_context;
		s->fence_seqno = w->fence_seqno;
	}
	s->fence_count = w->fence_count;
	s->sync_flags = w->sync_flags;
	if (s->flags & I915_STALL_F_ENGINE) {
		s->engine_class = w->engine_class;
		s->engine_instance = w->engine_instance;
	} else {
		s->engine_class = I915_STALL_ENGINE_NONE;
		s->engine_instance = I915_STALL_ENGINE_NONE;
	}
	if (s->flags & I915_STALL_F_OWNER) {
		s->owner_pid = w->owner_pid;
		memcpy(s->owner_comm, w->owner_comm, sizeof(s->owner_comm) - 1);
	}

	/* Skip the frames of the log: @skip, then the site's. */
	n = stack_trace_save((unsigned long *)s->kstack, ARRAY_SIZE(s->kstack),
			     skip + info->skip);
	if (info->tracepoint && n && stall_is_traceiter(s->kstack[0])) {
		memmove(s->kstack, s->kstack + 1, --n * sizeof(s->kstack[0]));
		s->kstack[n] = 0;
	}
	s->kstack_depth = n;
	if (n == ARRAY_SIZE(s->kstack))
		s->flags |= I915_STALL_F_KSTACK_TRUNC;

	stall_fill_user(s, ustack, rings->ustack_bytes, stall_slot_ref(s));
}

/*
 * Copy a record made by stall_fill() into a reserved slot, and the user
 * stack it left from the task's stack into the slot's snapshot.
 */
static void stall_copy_cb(const struct i915_stall_rings *rings,
			  struct i915_stall_record *s, const void *data)
{
	const struct i915_stall_record *buf = data;

	memcpy(&s->start_ns, &buf->start_ns,
	       STALL_SLOT_USTACK_OFFSET - offsetof(struct i915_stall_record, start_ns));
	stall_copy_user_stack(s, stall_slot_ustack(s));
	s->cpu = smp_processor_id();
}

/* Make the record in the reserved slot itself. */
static noinline void stall_fill_cb(const struct i915_stall_rings *rings,
				   struct i915_stall_record *s, const void *data)
{
	const struct stall_fill_arg *arg = data;

	/* stall_fill(), this, stall_record(), i915_stall_record() */
	stall_fill(rings, s, stall_slot_ustack(s), arg, 4);
	stall_ident_name(arg->log->ident, stall_slot_ref(s));
	s->cpu = smp_processor_id();
	trace_i915_stall(arg->log->drm, s);
}

#if IS_ENABLED(CONFIG_DRM_I915_STALL_LOG_MOCK)
/*
 * For the mock GPU's benchmarks only (tests/i915_stall_mock.c): between
 * i915_stall_sections_start() and i915_stall_sections_stop(), each section
 * the record path runs with preemption disabled is timed, with the clock
 * the benchmarks read, into its CPU's sums.  The section is timed where it
 * runs, so that what is measured is that code on that record, its slot
 * and its CPU's cache of versions, not a copy of it.  Any other time each
 * end of a section is a patched-out jump; without the mock GPU, nothing.
 */
static DEFINE_STATIC_KEY_FALSE(stall_sections_key);
static DEFINE_PER_CPU(struct i915_stall_sections, stall_sections);

static __always_inline u64 stall_section_begin(void)
{
	return static_branch_unlikely(&stall_sections_key) ? ktime_get_ns() : 0;
}

static noinline void __stall_section_end(u64 t0)
{
	struct i915_stall_sections *s = this_cpu_ptr(&stall_sections);
	u64 ns = ktime_get_ns() - t0;

	/* A section begun before the timing was: not timed. */
	if (!t0)
		return;
	s->count++;
	s->sum_ns += ns;
	s->max_ns = max(s->max_ns, ns);
}

/* Context: preemption disabled since stall_section_begin() returned @t0. */
static __always_inline void stall_section_end(u64 t0)
{
	if (static_branch_unlikely(&stall_sections_key))
		__stall_section_end(t0);
}

/**
 * i915_stall_sections_start - time the preemption-disabled sections of records
 *
 * For the mock GPU's benchmarks: from now on, until
 * i915_stall_sections_stop(), each section the record path runs with
 * preemption disabled is timed, from after preempt_disable() to before
 * preempt_enable(), with ktime_get_ns(); one reading of the clock is in
 * each time.  One benchmark at a time.
 *
 * Context: Process context; sleeps.
 */
void i915_stall_sections_start(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&stall_sections, cpu), 0, sizeof(struct i915_stall_sections));
	static_branch_inc(&stall_sections_key);
}

/**
 * i915_stall_sections_stop - stop timing the sections, and sum them
 * @out: the sections timed on every CPU since i915_stall_sections_start()
 *
 * Context: Process context; sleeps.
 */
void i915_stall_sections_stop(struct i915_stall_sections *out)
{
	unsigned int cpu;

	static_branch_dec(&stall_sections_key);
	memset(out, 0, sizeof(*out));
	for_each_possible_cpu(cpu) {
		/* data race ok: a benchmark's figures, read once it is done */
		const struct i915_stall_sections s = data_race(*per_cpu_ptr(&stall_sections, cpu));

		out->count += s.count;
		out->sum_ns += s.sum_ns;
		out->max_ns = max(out->max_ns, s.max_ns);
	}
}
#else
static inline u64 stall_section_begin(void) { return 0; }
static inline void stall_section_end(u64 t0) { }
#endif

/*
 * The body of the record functions.
 * Context: process context, in an RCU read-side critical section from
 * before @log was looked up.
 */
static noinline void stall_record(struct i915_stall_log *log,
				  const struct stall_fill_arg *arg)
{
	struct i915_stall_record *buf;
	struct i915_stall_rings *rings;
	u64 t0;

	/* LMM(stall_record:A): a log seen enabled has its rings. */
	if (!smp_load_acquire(&log->enabled) ||
	    arg->duration < READ_ONCE(log->threshold_ns))
		return;

	rings = rcu_dereference(log->rings);
	if (WARN_ON_ONCE(!rings))
		return;
	buf = kmalloc(STALL_SLOT_USTACK_OFFSET, GFP_NOWAIT | __GFP_NOWARN | __GFP_NOMEMALLOC);
	if (buf) {
		/* stall_fill(), this, i915_stall_record() */
		stall_fill(rings, buf, NULL, arg, 3);
		preempt_disable();
		t0 = stall_section_begin();
		stall_ident_name(log->ident, stall_slot_ref(buf));
		stall_ring_write(rings, stall_copy_cb, buf);
		stall_section_end(t0);
		preempt_enable();
		trace_i915_stall(log->drm, buf);
		kfree(buf);
	} else {
		preempt_disable();
		t0 = stall_section_begin();
		stall_ring_write(rings, stall_fill_cb, arg);
		stall_section_end(t0);
		preempt_enable();
	}
}

/**
 * i915_stall_record - record a stall if it is long enough
 * @log: a stall log, which the caller keeps alive in an RCU read-side
 *	critical section or otherwise
 * @info: what the wait site knows about the stall
 *
 * Measures the stall from @info->wait->start_ns to now and, if the log is
 * enabled and the stall is at least the threshold, writes a record with the
 * caller's kernel and user stacks into this CPU's ring.  The wait sites
 * record into their device's log through i915_stall_record_device().
 *
 * Context: Process context, no spinlocks held; may be called with mutexes
 * held and in direct reclaim.  Never sleeps, never allocates but without
 * sleeping and without reserves, and never blocks on a reader.
 */
noinline void i915_stall_record(struct i915_stall_log *log,
				const struct i915_stall_info *info)
{
	const struct stall_fill_arg arg = {
		.info = info,
		.log = log,
		.duration = ktime_get_ns() - info->wait->start_ns,
	};

	BUILD_BUG_ON(sizeof(unsigned long) != sizeof(u64));

	/* An interrupt could land between a writer's reserve and commit. */
	if (WARN_ON_ONCE(!in_task()) || !log)
		return;

	rcu_read_lock();
	stall_record(log, &arg);
	rcu_read_unlock();
}

/* What stall_submit_fill() records. */
struct stall_submit_arg {
	const struct i915_stall_submit *sub;
	struct stall_ident *ident;
	u64 now;
};

/*
 * Make a submit record in @s, a reserved slot of the submit rings: the
 * frame-pointer walk of the user stack is all it costs, so it is made in
 * place, with preemption disabled.
 */
static void stall_submit_fill(const struct i915_stall_rings *rings,
			      struct i915_stall_record *s, const void *data)
{
	const struct stall_submit_arg *arg = data;
	const struct i915_stall_submit *sub = arg->sub;
	struct task_struct *tsk = current;

	memset_startat(s, 0, start_ns);
	s->start_ns = arg->now;
	s->fence_context = sub->fence_context;
	s->fence_seqno = sub->fence_seqno;
	s->caller = sub->caller;
	s->pid = task_pid_nr(tsk);
	s->tgid = task_tgid_nr(tsk);
	s->site = I915_STALL_SITE_SUBMIT;
	s->engine_class = sub->engine_class;
	s->engine_instance = sub->engine_instance;
	s->flags = I915_STALL_F_FENCE | I915_STALL_F_ENGINE;
	s->fence_count = 1;
	memcpy(s->comm, tsk->comm, sizeof(s->comm) - 1);
	stall_fill_user_frames(s, stall_slot_ref(s));
	stall_ident_name(arg->ident, stall_slot_ref(s));
	s->cpu = smp_processor_id();
}

/**
 * i915_stall_record_submit - record who submitted a request
 * @log: a stall log, which the caller keeps alive in an RCU read-side
 *	critical section or otherwise, or NULL
 * @sub: the request
 *
 * Writes a submit record of the current task, its user call chain and
 * @sub into this CPU's submit ring, if the log is enabled.  Submit records
 * have rings of their own, so that submissions never push stalls out.
 * The caller decides which submissions are recorded: i915 records those
 * of user tasks (__i915_stall_submit()).
 *
 * Context: Process context; may hold mutexes.  Never sleeps, never
 * allocates.
 * Return: whether a submit record was made.
 */
bool i915_stall_record_submit(struct i915_stall_log *log,
			      const struct i915_stall_submit *sub)
{
	const struct stall_submit_arg arg = {
		.sub = sub,
		.ident = log ? log->ident : NULL,
		.now = ktime_get_ns(),
	};
	struct i915_stall_rings *submits;
	bool done = false;
	u64 t0;

	if (WARN_ON_ONCE(!in_task()) || !log)
		return false;

	rcu_read_lock();
	/* LMM(i915_stall_record_submit:A): a log seen enabled has its rings. */
	if (smp_load_acquire(&log->enabled)) {
		submits = rcu_dereference(log->submits);
		if (!WARN_ON_ONCE(!submits)) {
			preempt_disable();
			t0 = stall_section_begin();
			stall_ring_write(submits, stall_submit_fill, &arg);
			stall_section_end(t0);
			preempt_enable();
			done = true;
		}
	}
	rcu_read_unlock();
	return done;
}

/*
 * Swap in a new set of rings of @slots each, with @ustack_bytes of user
 * stack per record; the old records are gone.  Returns 0 or -ENOMEM, in
 * which case nothing changed.
 */
static int stall_log_resize(struct i915_stall_log *log, u32 slots, u32 ustack_bytes)
{
	struct i915_stall_rings *new, *old, *new_submits, *old_submits;

	lockdep_assert_held(&log->lock);

	new = stall_rings_alloc(slots, ustack_bytes);
	if (!new)
		return -ENOMEM;
	/* Submit records keep no stack snapshot. */
	new_submits = stall_rings_alloc(slots, 0);
	if (!new_submits) {
		stall_rings_free(new);
		return -ENOMEM;
	}

	old = rcu_replace_pointer(log->rings, new, lockdep_is_held(&log->lock));
	old_submits = rcu_replace_pointer(log->submits, new_submits,
					  lockdep_is_held(&log->lock));
	log->slots = slots;
	log->ustack_bytes = ustack_bytes;
	stall_ident_set_budget(log->ident, stall_ident_budget(slots));

	/* Writers still on the old rings are in RCU read-side sections. */
	synchronize_rcu();
	stall_rings_free(old);
	stall_rings_free(old_submits);
	return 0;
}

/**
 * i915_stall_log_enable - enable or disable a log
 * @log: the log
 * @enable: whether it records
 *
 * Enable allocates the rings first, if there are none yet, so that no
 * stall is lost.
 *
 * Context: Process context, the log's mutex held.
 * Return: 0, or -ENOMEM, in which case nothing changed.
 */
int i915_stall_log_enable(struct i915_stall_log *log, bool enable)
{
	lockdep_assert_held(&log->lock);

	if (enable && !rcu_access_pointer(log->rings)) {
		int err = stall_log_resize(log, log->slots, log->ustack_bytes);

		if (err)
			return err;
	}
	stall_log_set_enabled(log, enable);
	return 0;
}

/**
 * i915_stall_log_set_threshold - set the shortest wait that is recorded
 * @log: the log
 * @threshold_ns: in nanoseconds
 */
void i915_stall_log_set_threshold(struct i915_stall_log *log, u64 threshold_ns)
{
	/* Pairs with the READ_ONCE() in stall_record(). */
	WRITE_ONCE(log->threshold_ns, threshold_ns);
}

/**
 * i915_stall_log_clear - forget every record of a log
 * @log: the log
 *
 * Context: Process context, the log's mutex held.
 */
void i915_stall_log_clear(struct i915_stall_log *log)
{
	struct i915_stall_rings *rings, *submits;
	unsigned int cpu;

	lockdep_assert_held(&log->lock);

	rings = rcu_dereference_protected(log->rings, lockdep_is_held(&log->lock));
	submits = rcu_dereference_protected(log->submits, lockdep_is_held(&log->lock));
	if (!rings)
		return;
	/* A record committed while we clear may survive the clear. */
	for_each_possible_cpu(cpu) {
		WRITE_ONCE(rings->ring[cpu]->base, READ_ONCE(rings->ring[cpu]->head));
		WRITE_ONCE(submits->ring[cpu]->base, READ_ONCE(submits->ring[cpu]->head));
	}
}

/*
 * Bytes of a snapshot of @records records of @stride bytes, @submits
 * submit records and the two CPU tables of @cpus entries, or 0 if that is
 * more than kvmalloc() allocates (INT_MAX).  With 8 KiB of user stack
 * (10952-byte records, 2760-byte submit records), rings of the largest
 * size, 16384 slots, fit on 9 CPUs and not on 10.
 */
static size_t stall_snapshot_bytes(u64 records, u64 submits, unsigned int cpus, u32 stride)
{
	size_t bytes;

	bytes = size_add(sizeof(struct i915_stall_file_header),
			 size_mul(2 * (size_t)cpus, sizeof(struct i915_stall_cpu_entry)));
	bytes = size_add(bytes, size_mul(records, stride));
	bytes = size_add(bytes, size_mul(submits, stall_stride(0)));
	return bytes > INT_MAX ? 0 : bytes;
}

/*
 * Whether full rings of @slots, with @ustack_bytes of user stack per
 * record, and full submit rings on each of @cpus CPUs fit in a snapshot.
 */
static bool stall_slots_fit(u32 slots, u32 ustack_bytes, unsigned int cpus)
{
	return stall_snapshot_bytes((u64)slots * cpus, (u64)slots * cpus, cpus,
				    stall_stride(ustack_bytes));
}

/*
 * A ring size and snapshot size that i915_stalls_slots,
 * i915_stalls_ustack_bytes and their parameters accept together.
 */
static bool stall_size_valid(u64 slots, u64 ustack_bytes)
{
	return slots >= STALL_MIN_SLOTS && slots <= STALL_MAX_SLOTS &&
	       is_power_of_2(slots) && ustack_bytes <= STALL_USTACK_MAX_BYTES &&
	       IS_ALIGNED(ustack_bytes, 8) &&
	       stall_slots_fit(slots, ustack_bytes, nr_cpu_ids);
}

/**
 * i915_stall_log_set_size - set the ring size and the snapshot size
 * @log: the log
 * @slots: records per CPU ring, a power of two from 16 to 16384
 * @ustack_bytes: bytes of user stack per record, a multiple of 8 up to
 *	16384
 *
 * Resizes the rings now, if there are any; their records are gone.
 *
 * Context: Process context, the log's mutex held.
 * Return: 0, -EINVAL for sizes out of range or too large for a snapshot,
 * or -ENOMEM; on error nothing changed.
 */
int i915_stall_log_set_size(struct i915_stall_log *log, u64 slots, u64 ustack_bytes)
{
	lockdep_assert_held(&log->lock);

	if (!stall_size_valid(slots, ustack_bytes))
		return -EINVAL;
	if (rcu_access_pointer(log->rings))
		return stall_log_resize(log, slots, ustack_bytes);
	log->slots = slots;
	log->ustack_bytes = ustack_bytes;
	stall_ident_set_budget(log->ident, stall_ident_budget(slots));
	return 0;
}

/**
 * i915_stall_log_apply_params - set up a new log as parameters say
 * @log: the log, new
 * @enable: whether to enable it
 * @threshold_us: the threshold, in microseconds
 * @slots: records per CPU ring, or 0 for the default
 * @ustack_bytes: bytes of user stack per record, or -1 for the default
 *
 * Context: Process context.
 * Return: 0, -EINVAL for a bad @slots or @ustack_bytes (then nothing is
 * applied) or -ENOMEM if the rings could not be allocated (then the log
 * stays off).
 */
int i915_stall_log_apply_params(struct i915_stall_log *log, bool enable,
				u32 threshold_us, u32 slots, int ustack_bytes)
{
	u64 ub = ustack_bytes < 0 ? log->ustack_bytes : ustack_bytes;
	int err;

	if (!stall_size_valid(slots ?: log->slots, ub))
		return -EINVAL;

	mutex_lock(&log->lock);
	i915_stall_log_set_threshold(log, (u64)threshold_us * NSEC_PER_USEC);
	err = i915_stall_log_set_size(log, slots ?: log->slots, ub);
	if (!err && enable)
		err = i915_stall_log_enable(log, true);
	mutex_unlock(&log->lock);
	return err;
}

/*
 * Copy the committed records of one ring below @head into @out, oldest
 * first, in the layout of the file, and their references to the identity
 * of their user code into @refs; and account for every record the CPU
 * wrote since the last clear.  Returns the number of records copied, at
 * most @head less the base, capped at the ring's size.
 */
static u32 stall_snapshot_cpu(const struct i915_stall_rings *rings,
			      const struct i915_stall_ring *ring, u64 head,
			      struct i915_stall_cpu_entry *e, u8 *out,
			      struct stall_ident_ref *refs)
{
	const u32 stride = stall_stride(rings->ustack_bytes);
	u64 base = READ_ONCE(ring->base);
	u64 first = head - min_t(u64, head - base, rings->slots);
	u32 emitted = 0;
	u64 n;

	e->recorded = head - base;
	e->overwritten = first - base;

	for (n = first; n < head; n++) {
		struct i915_stall_record *slot = stall_slot_rec(rings, ring, n);
		struct i915_stall_record *rec;
		struct stall_ident_ref *ref = &refs[emitted];
		u64 seq;

		rec = (struct i915_stall_record *)(out + (size_t)emitted * stride);

		seq = smp_load_acquire(&slot->seq); /* LMM(stall_snapshot_cpu:B) */
		if (seq != 2 * n + 2) {
			e->torn++;
			continue;
		}

		/* data race ok: the slot is kept only if seq did not move */
		data_race(memcpy(rec, slot, sizeof(*rec)));
		/* data race ok: as above */
		data_race(memcpy(stall_rec_ustack(rec), stall_slot_ustack(slot),
				 rings->ustack_bytes));
		/* data race ok: as above */
		data_race(memcpy(ref, stall_slot_ref(slot), sizeof(*ref)));
		smp_rmb(); /* LMM(stall_snapshot_cpu:C) */
		if (READ_ONCE(slot->seq) != seq) {
			e->torn++;
			continue;
		}

		if (WARN_ON_ONCE(rec->kstack_depth > I915_STALL_KSTACK_MAX ||
				 rec->ustack_depth > I915_STALL_USTACK_MAX ||
				 rec->ustack_size > rings->ustack_bytes)) {
			e->torn++;
			continue;
		}

		/* What an older record left in the slot is not in the file. */
		memset(stall_rec_ustack(rec) + rec->ustack_size, 0,
		       stride - STALL_USTACK_OFFSET - rec->ustack_size);

		rec->seq = n - base;
		emitted++;
	}
	e->emitted = emitted;
	return emitted;
}

/* Clear the kernel addresses of a record of the file. */
static void stall_hide_kaddr(struct i915_stall_record *rec)
{
	memset(rec->kstack, 0, sizeof(rec->kstack));
	rec->caller = 0;
}

/*
 * Whether the opener of a snapshot may see kernel addresses: as it may
 * see those of /proc/kallsyms, and not under lockdown of kernel memory.
 */
static bool stall_may_see_kaddr(const struct cred *cred)
{
	return kallsyms_show_value(cred) && !security_locked_down(LOCKDOWN_KCORE);
}

static void stall_snapshot_header(const struct i915_stall_log *log,
				  struct i915_stall_file_header *h,
				  const struct i915_stall_rings *rings, bool kaddr)
{
	struct drm_device *drm = log->drm;

	memcpy(h->magic, I915_STALL_MAGIC, I915_STALL_MAGIC_LEN);
	h->version_major = I915_STALL_VERSION_MAJOR;
	h->version_minor = I915_STALL_VERSION_MINOR;
	h->header_size = sizeof(*h);
	h->record_size = stall_stride(rings ? rings->ustack_bytes : log->ustack_bytes);
	h->cpu_entry_size = sizeof(struct i915_stall_cpu_entry);
	h->cpu_count = nr_cpu_ids;
	h->clock_id = CLOCK_MONOTONIC;
	h->cpu_table_offset = sizeof(*h);
	h->snapshot_ns = ktime_get_ns();
	h->realtime_offset_ns = ktime_get_real_ns() - h->snapshot_ns;
	h->threshold_ns = log->threshold_ns;
	h->slots_per_cpu = rings ? rings->slots : 0;
	h->flags = log->enabled ? I915_STALL_H_ENABLED : 0;
	h->kstack_max = I915_STALL_KSTACK_MAX;
	h->ustack_max = I915_STALL_USTACK_MAX;
	h->drm_minor = drm && drm->primary ? drm->primary->index : 0;
	strscpy(h->kernel_anchor, "stack_trace_save");
	strscpy(h->i915_anchor, "i915_stall_record");
	if (drm)
		strscpy(h->device, dev_name(drm->dev));
	strscpy(h->release, init_utsname()->release);
	h->map_max = STALL_MAP_MAX;
	h->ustack_snapshot_max = rings ? rings->ustack_bytes : log->ustack_bytes;
	h->maps_offset = STALL_MAPS_OFFSET;
	h->ustack_offset = STALL_USTACK_OFFSET;
#ifdef MODULE
	h->flags |= I915_STALL_H_I915_MODULE;
#endif
	if (!kaddr) {
		h->flags |= I915_STALL_H_KADDR_HIDDEN;
		return;
	}
	h->kernel_anchor_addr = (unsigned long)stack_trace_save;
	h->i915_anchor_addr = (unsigned long)i915_stall_record;
#ifdef MODULE
	h->i915_text_base = (unsigned long)THIS_MODULE->mem[MOD_TEXT].base;
	h->i915_text_size = THIS_MODULE->mem[MOD_TEXT].size;
#endif
}

/* Read the heads of @rings once, into @heads; the records below them. */
static u64 stall_snapshot_heads(const struct i915_stall_rings *rings, u64 *heads)
{
	unsigned int cpu;
	u64 count = 0;

	for_each_possible_cpu(cpu) {
		const struct i915_stall_ring *ring = rings->ring[cpu];

		/* LMM(stall_snapshot_take:A) */
		heads[cpu] = smp_load_acquire(&ring->head);
		count += min_t(u64, heads[cpu] - READ_ONCE(ring->base), rings->slots);
	}
	return count;
}

/*
 * The CPU table @cpus of @rings, or of no rings, and their records below
 * @heads into @out, their references into @refs.  Returns the records.
 */
static u64 stall_snapshot_rings(const struct i915_stall_rings *rings, const u64 *heads,
				struct i915_stall_cpu_entry *cpus, u8 *out,
				struct stall_ident_ref *refs)
{
	unsigned int cpu;
	u64 count = 0;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct i915_stall_cpu_entry *e = &cpus[cpu];

		e->cpu = cpu;
		if (!cpu_possible(cpu))
			continue;
		e->flags = I915_STALL_CPU_POSSIBLE;
		if (cpu_online(cpu))
			e->flags |= I915_STALL_CPU_ONLINE;
		if (rings)
			count += stall_snapshot_cpu(rings, rings->ring[cpu], heads[cpu], e,
						    out + count * stall_stride(rings->ustack_bytes),
						    refs + count);
	}
	return count;
}

/**
 * i915_stall_snapshot_take - an image of a log, in the layout of the file
 * @log: the log
 * @kaddr: whether it may hold kernel addresses
 *
 * The snapshot is sized for the records present when it starts, not for
 * full rings: the head of each ring is read once, first, and records
 * committed after that are left for the next snapshot.  The file is the
 * header, the CPU table, the submit rings' CPU table, the submit records,
 * then the stall records.
 *
 * Context: Process context; sleeps.
 * Return: the snapshot, to kvfree(), or NULL if out of memory.
 */
struct stall_snapshot *i915_stall_snapshot_take(struct i915_stall_log *log, bool kaddr)
{
	const size_t table = nr_cpu_ids * sizeof(struct i915_stall_cpu_entry);
	const u32 submit_stride = stall_stride(0);
	struct i915_stall_rings *rings, *submits;
	struct stall_snapshot *snap = NULL;
	struct stall_ident_ref *refs = NULL;
	struct i915_stall_file_header *h;
	u64 count = 0, submitted = 0, i;
	u64 *heads = NULL;
	size_t size;
	u32 stride;
	u8 *data;

	mutex_lock(&log->lock);
	rings = rcu_dereference_protected(log->rings, lockdep_is_held(&log->lock));
	submits = rcu_dereference_protected(log->submits, lockdep_is_held(&log->lock));
	stride = stall_stride(rings ? rings->ustack_bytes : log->ustack_bytes);

	/* The two sets of rings are allocated, replaced and freed together. */
	if (rings) {
		heads = kcalloc(2 * nr_cpu_ids, sizeof(*heads), GFP_KERNEL);
		if (!heads)
			goto out;
		count = stall_snapshot_heads(rings, heads);
		submitted = stall_snapshot_heads(submits, heads + nr_cpu_ids);
		refs = kvmalloc_array(count + submitted ?: 1, sizeof(*refs), GFP_KERNEL);
		if (!refs)
			goto out;
	}

	/* stall_slots_fit() keeps this in range; a WARN here is a bug. */
	size = stall_snapshot_bytes(count, submitted, nr_cpu_ids, stride);
	if (WARN_ON_ONCE(!size))
		goto out;
	snap = kvzalloc(struct_size(snap, data, size), GFP_KERNEL | __GFP_NOWARN);
	if (!snap)
		goto out;

	data = snap->data;
	h = (struct i915_stall_file_header *)data;
	stall_snapshot_header(log, h, rings, kaddr);
	h->submit_cpu_table_offset = h->cpu_table_offset + table;
	h->submit_records_offset = h->submit_cpu_table_offset + table;
	h->submit_record_size = submit_stride;
	h->submit_slots_per_cpu = submits ? submits->slots : 0;

	/*
	 * The records below the heads asked for the identity of their user
	 * code before they were committed: have it made.
	 */
	stall_ident_flush(log->ident);

	submitted = stall_snapshot_rings(submits, heads ? heads + nr_cpu_ids : NULL,
					 (void *)(data + h->submit_cpu_table_offset),
					 data + h->submit_records_offset, refs);
	h->submit_record_count = submitted;
	h->records_offset = h->submit_records_offset + submitted * submit_stride;
	count = stall_snapshot_rings(rings, heads, (void *)(data + h->cpu_table_offset),
				     data + h->records_offset, refs + submitted);
	h->record_count = count;

	/* The maps of each record, from the identity its reference names. */
	stall_ident_lock(log->ident);
	for (i = 0; i < submitted + count; i++) {
		struct i915_stall_record *rec;

		if (i < submitted)
			rec = (void *)(data + h->submit_records_offset + i * submit_stride);
		else
			rec = (void *)(data + h->records_offset + (i - submitted) * stride);
		stall_ident_fill(log->ident, rec, &refs[i]);
		if (!kaddr)
			stall_hide_kaddr(rec);
	}
	stall_ident_unlock(log->ident);

	snap->size = h->records_offset + count * stride;
out:
	mutex_unlock(&log->lock);
	kvfree(refs);
	kfree(heads);
	return snap;
}

/**
 * i915_stall_log_count_sites - count the records of a log by site
 * @log: the log
 * @count: per site, the records of that site kept in the rings
 * @nr: entries of @count
 * @recorded: set to the records ever made since the last clear
 *
 * Context: Process context; sleeps.
 * Return: the records kept, or 0 if out of memory.
 */
u64 i915_stall_log_count_sites(struct i915_stall_log *log, u64 *count, unsigned int nr,
			       u64 *recorded)
{
	struct stall_snapshot *snap = i915_stall_snapshot_take(log, false);
	const struct i915_stall_file_header *h;
	const struct i915_stall_cpu_entry *e;
	u64 i;

	*recorded = 0;
	if (!snap)
		return 0;
	h = (const void *)snap->data;
	e = (const void *)(snap->data + h->cpu_table_offset);
	for (i = 0; i < h->cpu_count; i++)
		*recorded += e[i].recorded;
	for (i = 0; i < h->record_count; i++) {
		const struct i915_stall_record *rec =
			(const void *)(snap->data + h->records_offset + i * h->record_size);

		if (rec->site < nr)
			count[rec->site]++;
	}
	i = h->record_count;
	kvfree(snap);
	return i;
}

static int stall_snapshot_open(struct inode *inode, struct file *file)
{
	struct stall_snapshot *snap;

	snap = i915_stall_snapshot_take(inode->i_private, stall_may_see_kaddr(file->f_cred));
	if (!snap)
		return -ENOMEM;

	file->private_data = snap;
	return 0;
}

static ssize_t stall_snapshot_read(struct file *file, char __user *ubuf,
				   size_t count, loff_t *pos)
{
	const struct stall_snapshot *snap = file->private_data;

	return simple_read_from_buffer(ubuf, count, pos, snap->data, snap->size);
}

static loff_t stall_snapshot_llseek(struct file *file, loff_t offset, int whence)
{
	const struct stall_snapshot *snap = file->private_data;

	return fixed_size_llseek(file, offset, whence, snap->size);
}

static int stall_snapshot_release(struct inode *inode, struct file *file)
{
	kvfree(file->private_data);
	return 0;
}

const struct file_operations i915_stall_snapshot_fops = {
	.owner = THIS_MODULE,
	.open = stall_snapshot_open,
	.read = stall_snapshot_read,
	.llseek = stall_snapshot_llseek,
	.release = stall_snapshot_release,
};

#if IS_ENABLED(CONFIG_DRM_I915_STALL_LOG_KUNIT_TEST)
#include "tests/i915_stall_ring_kunit.c"
#endif
