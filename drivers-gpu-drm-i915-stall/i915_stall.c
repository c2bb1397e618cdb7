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
 * Wait sites
 * ----------
 * Stalls are recorded at the leaf waits that actually sleep, so one stall
 * is one record and nothing is counted twice: i915_request_wait_timeout()
 * (every wait on an i915 request that goes through dma_fence_wait*(), from
 * anywhere), __i915_active_wait(), the foreign-fence branch of
 * i915_gem_object_wait_fence(), and the syncobj waits of userspace,
 * DRM_IOCTL_SYNCOBJ_WAIT and DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, which sleep
 * on fence callbacks without dma_fence_wait() and which DRM core reports
 * through &drm_driver.syncobj_wait_begin and &drm_driver.syncobj_wait_end.
 * Those are the waits of Mesa's iris and of the Vulkan runtime.  Each site
 * calls a begin hook at wait entry and an end hook at wait exit.  With no
 * log enabled both are patched-out jumps (a static key) and no clock is
 * read.  Waits shorter than the threshold are dropped before any stack is
 * captured.
 *
 * Data structure
 * --------------
 * Each device has one log; a log has one ring per possible CPU, allocated
 * on first enable and never freed on CPU hotplug, so records written on a
 * CPU that went offline stay readable.  A ring is an array of fixed-size
 * slots and a head, the number of records ever committed to it.  A slot is
 * a struct i915_stall_record, a table of struct i915_stall_map and a
 * snapshot of the user stack, whose size (i915_stalls_ustack_bytes) sets
 * the slot size when the rings are allocated.  Record n lives in slot
 * n % slots and overwrites record n - slots: the log is a flight recorder
 * that keeps the newest records.
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
 * The only writer of a ring is its CPU, in process context with preemption
 * disabled from reserve to commit: the enabled flag and the threshold are
 * checked, the rings looked up and record n reserved, filled and committed
 * in one preemption-disabled section (an RCU read-side critical section).
 * So a writer needs no lock and no atomic read-modify-write, never blocks
 * and never allocates.  It marks the slot odd, fills it (including the
 * kernel and user stacks, which are walked straight into the slot), marks
 * it even and then publishes the new head.  The single-writer rule is
 * asserted for KCSAN (ASSERT_EXCLUSIVE_WRITER() on the head), and a record
 * from interrupt context, which could preempt a writer, is refused with a
 * warning.
 *
 * A wait site captures what it knows about the awaited work (fence,
 * engine, owner) at wait entry, in a struct i915_stall_wait, while the
 * work is referenced and unsignalled; the record is made at wait exit from
 * that copy, without touching the awaited objects, which may be gone by
 * then.
 *
 * User frames
 * -----------
 * The user call chain is walked through frame pointers.  That misses the
 * caller of a frameless function, such as the glibc wrapper that made the
 * system call, and stops in code built without frame pointers, as most
 * distribution libraries are.  So the record also saves what a CFI
 * unwinder needs, as perf record --call-graph=dwarf does: the user ip, sp
 * and bp and the stack from sp up, copied with page faults disabled.
 *
 * And since the task may have exited by the time the log is read, the log
 * keeps the identity of the code the frames are in: each CPU keeps tables
 * of the executable mappings of the address spaces it recorded stalls of
 * (struct stall_table), each mapping with its range, its file offset, its
 * build-id (read from the page cache only) and its path, and a record
 * names the table of its address space.  A table is made by walking the
 * VMAs under mmap_read_trylock(), once per address space and layout: a
 * stall of a process whose mappings did not change since costs a
 * comparison of its mm_lock_seq.  A layout that changed without its
 * executable mappings (a buffer mapped, the heap grown) keeps its table
 * after a walk.  Tables take the room of the oldest ones in the ring's
 * table area (a quarter of the 2 KiB a record's maps take in the file);
 * a record whose table was written over before the log was read names
 * none (F_MAPS_FULL).
 *
 * The file keeps the layout of format 1.2, where each record carries its
 * own maps: the snapshot fills them from the record's table with each
 * mapping that a frame or an aligned word of the stack snapshot points
 * into (CFI finds the return addresses the frame-pointer walk skipped
 * among those words), and says per frame which, or why none
 * (I915_STALL_FRAME_*).  So the lookups of the words cost the reader of
 * the log, not the stall.
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
 * copy and torn counts records overwritten while they were copied.
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
 *   - stall_table_place:A (smp_wmb) orders giving up the oldest tables
 *     (the store of tables_gone) before the new table is written over
 *     them, and pairs with stall_snapshot_table:A (smp_rmb) between the
 *     copy of a table and the load of tables_gone: a snapshot that copied
 *     any byte of a table written over sees it gone.  A table is complete
 *     before a record that names it is committed, and the snapshot copies
 *     it after it loaded the record's sequence number, so
 *     stall_slot_commit:A and stall_snapshot_cpu:B make it complete for
 *     the snapshot.
 *   - stall_slot_commit:B (smp_store_release of the head) orders the commit
 *     before the new head, and pairs with stall_snapshot_take:A
 *     (smp_load_acquire of the head): every record below a head the reader
 *     saw was committed, so the reader never finds a slot of its window
 *     still odd for the record it expects.
 *
 * Control
 * -------
 * Enabling, the threshold, clearing and resizing go through debugfs files
 * next to the snapshot file, serialised by the log's mutex, which writers
 * never take.  A resize publishes a new set of rings with RCU and frees the
 * old one after a grace period: a writer runs with preemption disabled, so
 * synchronize_rcu() waits for every writer still using the old rings.
 */

#include <linux/atomic.h>
#include <linux/buildid.h>
#include <linux/cpumask.h>
#include <linux/kcsan-checks.h>
#include <linux/debugfs.h>
#include <linux/dma-fence-unwrap.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/unaligned.h>
#include <linux/utsname.h>

#include <drm/drm_syncobj.h>

#include "gem/i915_gem_context.h"
#include "gt/intel_context_types.h"
#include "gt/intel_engine_types.h"

#include "i915_drv.h"
#include "i915_request.h"
#include "i915_stall.h"
#include "i915_stall_format.h"

/* Bytes of ring the default size aims for, over all CPUs of a device. */
#define STALL_DEFAULT_BYTES	SZ_8M
#define STALL_MIN_SLOTS		16
#define STALL_DEFAULT_MAX_SLOTS	256
#define STALL_MAX_SLOTS		SZ_16K
#define STALL_DEFAULT_THRESHOLD	(1000 * NSEC_PER_USEC)
/* Executable mappings saved per record, see stall_fill_maps(). */
#define STALL_MAP_MAX		16
/* Bytes of user stack saved per record, a multiple of 8. */
#define STALL_USTACK_DEFAULT	SZ_2K
#define STALL_USTACK_MAX_BYTES	SZ_16K

/* Any log enabled: the wait sites read the clock only when this is on. */
DEFINE_STATIC_KEY_FALSE(i915_stall_key);

/* Waits no device's log could take, see __i915_stall_unattributed(). */
static atomic64_t stall_unattributed = ATOMIC64_INIT(0);

/* Files whose identity a CPU remembers, in sets of 4 by inode: stall_map_fill() */
#define STALL_FILE_CACHE	128
#define STALL_FILE_WAYS		4
/* Executable mappings a table holds, and tables a ring keeps, at most. */
#define STALL_TABLE_MAPS	128
#define STALL_TABLES		64
/* Bytes of table area a ring has per slot: a quarter of a record's maps. */
#define STALL_TABLE_SLOT_BYTES	SZ_512
/* VMAs one table walks at most: a bound on what a record can cost. */
#define STALL_WALK_MAX		8192
/* struct i915_stall_map.flags in a table only: anonymous executable memory */
#define STALL_MAP_ANON		0x80
/* struct stall_table.flags: not every executable mapping is in the table */
#define STALL_TABLE_FULL	0x1	/* more than STALL_TABLE_MAPS of them */
#define STALL_TABLE_CUT		0x2	/* more VMAs than STALL_WALK_MAX */

/**
 * struct stall_file_id - what names a file, remembered by one CPU
 * @inode: the file's inode, compared, never dereferenced from here
 * @ino: its inode number
 * @dev: its device
 * @mtime: its modification time when it was read
 * @ctime: its change time when it was read
 * @build_id: its GNU build-id
 * @build_id_size: bytes of @build_id
 * @flags: I915_STALL_MAP_PATH, I915_STALL_MAP_DELETED as stall_map_read()
 *	found them
 * @name: as struct i915_stall_map.name
 *
 * An entry is used again only for the same inode, number, device and
 * times: a library replaced on disk is a new inode, and one rewritten in
 * place has a new mtime, so neither is named by an old build-id.
 */
struct stall_file_id {
	const struct inode *inode;
	u64 ino;
	dev_t dev;
	struct timespec64 mtime;
	struct timespec64 ctime;
	u8 build_id[I915_STALL_BUILD_ID_LEN];
	u8 build_id_size;
	u8 flags;
	char name[I915_STALL_MAP_NAME_LEN];
};

/**
 * struct stall_table_key - the address space a table describes, and when
 * @mm: the address space; compared, never dereferenced from here
 * @start_time: when the process's group leader started
 * @exec_id: the process's self_exec_id: which of its images
 * @tgid: the process
 * @seq: the mm's mm_lock_seq when the table was made
 *
 * @mm, @tgid, @start_time and @exec_id name one image of one process: an
 * mm_struct freed and allocated again, or the new image execve() makes,
 * is not taken for the old one.  mm_lock_seq moves at every
 * mmap_write_unlock(), so while it stays at @seq no mapping was made,
 * removed or changed since the table was made.
 */
struct stall_table_key {
	const struct mm_struct *mm;
	u64 start_time;
	u64 exec_id;
	pid_t tgid;
	unsigned int seq;
};

/**
 * struct stall_table - the executable mappings of one address space
 * @id: the table's number among those of its ring, from 1
 * @count: entries of @maps
 * @flags: STALL_TABLE_FULL, STALL_TABLE_CUT
 * @key: whose mappings, and as of when; only the writer reads it
 * @maps: every executable mapping, sorted by address; anonymous ones
 *	(JIT code, the vDSO) have STALL_MAP_ANON and no file
 *
 * A table is made once per address space and layout, and the records of
 * its stalls name it while the layout stays: a stall of a process whose
 * mappings did not change costs a comparison, not a walk of its VMAs.
 * Tables lie one after another in their ring's table area, and the
 * oldest is written over when a new one needs its room; until then a
 * complete table never changes but for @key.
 */
struct stall_table {
	u64 id;
	u32 count;
	u32 flags;
	struct stall_table_key key;
	struct i915_stall_map maps[];
};

/**
 * struct stall_table_ref - where a table lies in its ring's table area
 * @id: the table's id
 * @off: its offset in the area
 * @size: its bytes there
 */
struct stall_table_ref {
	u64 id;
	u32 off;
	u32 size;
};

/**
 * struct i915_stall_ring - the records written on one CPU
 * @head: records ever committed; written only by the ring's CPU
 * @base: @head at the last clear; written under the log's mutex
 * @tables_gone: tables of this id and below are written over, or being
 *	so; written only by the ring's CPU
 * @next_table: the id of the last table made
 * @table_head: where the next table goes in the table area
 * @first: the entry of @refs of the oldest table
 * @nr_tables: tables in the area, at most STALL_TABLES
 * @refs: the tables in the area, oldest first (from @first, wrapping)
 * @next_file: which entry of a set of @files a new file takes
 * @files: the identity of files recently named, by inode
 * @slot: the slots, a power of two of them, of the rings' @stride bytes;
 *	then the table area, of the rings' @table_bytes
 *
 * All but @head, @base and @tables_gone are only read by the ring's CPU.
 */
struct i915_stall_ring {
	u64 head;
	u64 base;
	u64 tables_gone;
	u64 next_table;
	u32 table_head;
	u32 first;
	u32 nr_tables;
	u32 next_file;
	struct stall_table_ref refs[STALL_TABLES];
	struct stall_file_id files[STALL_FILE_CACHE];
	u8 slot[] __aligned(8);
};

/**
 * struct i915_stall_rings - a set of per-CPU rings, replaced as a whole
 * @slots: slots per ring, a power of two
 * @stride: bytes of a slot: the record, where its table is and its stack
 *	snapshot
 * @ustack_bytes: bytes of user stack a slot holds
 * @table_bytes: bytes of a ring's table area
 * @ring: one ring per possible CPU, indexed by CPU number
 *
 * A slot holds a struct i915_stall_record, where the table of its
 * address space is (STALL_SLOT_TABLE_OFFSET) and the snapshot of its user
 * stack (STALL_SLOT_USTACK_OFFSET).  The file has room for the maps
 * between the record and the snapshot instead, in the layout of format
 * 1.2: the snapshot fills them from the table (stall_rec_fill_maps()).
 */
struct i915_stall_rings {
	u32 slots;
	u32 stride;
	u32 ustack_bytes;
	u32 table_bytes;
	struct i915_stall_ring *ring[];
};

/* A record in the file: the record, its maps, its stack snapshot. */
#define STALL_MAPS_OFFSET	sizeof(struct i915_stall_record)
#define STALL_USTACK_OFFSET	(STALL_MAPS_OFFSET + STALL_MAP_MAX * sizeof(struct i915_stall_map))
/* A slot of a ring: the record, where its table is, its stack snapshot. */
#define STALL_SLOT_TABLE_OFFSET	sizeof(struct i915_stall_record)
#define STALL_SLOT_USTACK_OFFSET	(STALL_SLOT_TABLE_OFFSET + sizeof(struct stall_table_ref))

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

/* Bytes of a table of @count mappings in a table area. */
static u32 stall_table_size(u32 count)
{
	return struct_size_t(struct stall_table, maps, count);
}

/*
 * Bytes of the table area of a ring of @slots, room for two tables of
 * STALL_TABLE_MAPS at least.
 */
static u32 stall_table_bytes(u32 slots)
{
	return clamp(slots * STALL_TABLE_SLOT_BYTES, 2 * stall_table_size(STALL_TABLE_MAPS),
		     SZ_1M);
}

/* Where the table a slot's record names is; id 0 if none. */
static struct stall_table_ref *stall_slot_table(struct i915_stall_record *s)
{
	return (void *)s + STALL_SLOT_TABLE_OFFSET;
}

static u8 *stall_slot_ustack(struct i915_stall_record *s)
{
	return (u8 *)s + STALL_SLOT_USTACK_OFFSET;
}

static struct i915_stall_map *stall_rec_maps(struct i915_stall_record *s)
{
	return (void *)s + STALL_MAPS_OFFSET;
}

static u8 *stall_rec_ustack(struct i915_stall_record *s)
{
	return (u8 *)s + STALL_USTACK_OFFSET;
}

/**
 * struct i915_stall_log - the stall log of one device
 * @lock: serialises control and snapshots; writers never take it
 * @rings: the current rings, NULL until first enabled
 * @dropped: per CPU, stalls seen while enabled with no ring to hold them
 * @dropped_base: per CPU, @dropped at the last clear
 * @threshold_ns: waits shorter than this are not recorded
 * @slots: ring size to allocate on next enable
 * @ustack_bytes: user stack snapshot size of the rings, or of the next ones
 * @enabled: recording on this device
 * @i915: the device, or NULL for a log tested on its own
 */
struct i915_stall_log {
	struct mutex lock; /* serialises control and snapshots */
	struct i915_stall_rings __rcu *rings;
	u64 __percpu *dropped;
	u64 __percpu *dropped_base;
	u64 threshold_ns;
	u32 slots;
	u32 ustack_bytes;
	bool enabled;
	struct drm_i915_private *i915;
};

static u32 stall_default_slots(void)
{
	unsigned long slots;

	slots = STALL_DEFAULT_BYTES / (nr_cpu_ids * (stall_slot_stride(STALL_USTACK_DEFAULT) +
						     STALL_TABLE_SLOT_BYTES));
	slots = clamp(slots, STALL_MIN_SLOTS, STALL_DEFAULT_MAX_SLOTS);
	return rounddown_pow_of_two(slots);
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
	rings->table_bytes = stall_table_bytes(slots);

	for_each_possible_cpu(cpu) {
		struct i915_stall_ring *ring;

		ring = kvzalloc_node(struct_size(ring, slot, (size_t)slots * rings->stride +
						 rings->table_bytes),
				     GFP_KERNEL, cpu_to_node(cpu));
		if (!ring) {
			stall_rings_free(rings);
			return NULL;
		}
		rings->ring[cpu] = ring;
	}

	return rings;
}

static struct i915_stall_log *stall_log_create(struct drm_i915_private *i915)
{
	struct i915_stall_log *log;

	log = kzalloc(sizeof(*log), GFP_KERNEL);
	if (!log)
		return NULL;

	log->dropped = alloc_percpu(u64);
	log->dropped_base = alloc_percpu(u64);
	if (!log->dropped || !log->dropped_base) {
		free_percpu(log->dropped);
		free_percpu(log->dropped_base);
		kfree(log);
		return NULL;
	}

	mutex_init(&log->lock);
	log->threshold_ns = STALL_DEFAULT_THRESHOLD;
	log->slots = stall_default_slots();
	log->ustack_bytes = STALL_USTACK_DEFAULT;
	log->i915 = i915;
	return log;
}

static void stall_log_set_enabled(struct i915_stall_log *log, bool enable)
{
	lockdep_assert_held(&log->lock);

	if (enable == log->enabled)
		return;

	/* Pairs with the READ_ONCE() in i915_stall_record(). */
	WRITE_ONCE(log->enabled, enable);
	if (enable) {
		static_branch_inc(&i915_stall_key);
		drm_syncobj_wait_hooks_get();
	} else {
		drm_syncobj_wait_hooks_put();
		static_branch_dec(&i915_stall_key);
	}
}

static void stall_log_destroy(struct i915_stall_log *log)
{
	if (!log)
		return;

	mutex_lock(&log->lock);
	stall_log_set_enabled(log, false);
	mutex_unlock(&log->lock);

	/*
	 * Writers that found the log, or saw it enabled, run with preemption
	 * disabled: wait for them before anything is freed.
	 */
	synchronize_rcu();
	stall_rings_free(rcu_dereference_protected(log->rings, true));
	free_percpu(log->dropped);
	free_percpu(log->dropped_base);
	mutex_destroy(&log->lock);
	kfree(log);
}

/* The slot of record @n; every access to a slot goes through here. */
static struct i915_stall_record *
stall_ring_slot(const struct i915_stall_rings *rings,
		const struct i915_stall_ring *ring, u64 n)
{
	return (struct i915_stall_record *)&ring->slot[(n & (rings->slots - 1)) *
						       (size_t)rings->stride];
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
	struct i915_stall_record *slot = stall_ring_slot(rings, ring, n);

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
	stall_slot_table(slot)->id = 0;
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

#if IS_ENABLED(CONFIG_IA32_EMULATION)
/* A frame of 32-bit code built with frame pointers, as perf walks it. */
struct stall_frame32 {
	u32 next_fp;
	u32 ret_addr;
};

/*
 * The user call chain of a 32-bit task: its pc, then the return address of
 * each frame, as perf_callchain_user32() finds them.  Code segments with a
 * base (an LDT, as Wine and DOSEMU set up) are not walked.  Page faults are
 * disabled: a frame that is not resident ends the chain.
 */
static unsigned int stall_save_user32(const struct pt_regs *regs, u64 *store,
				      unsigned int size)
{
	unsigned long fp = (u32)regs->bp;
	unsigned int n = 0;

	if ((regs->cs | regs->ss) & SEGMENT_TI_MASK)
		return 0;

	store[n++] = (u32)regs->ip;
	while (n < size) {
		struct stall_frame32 frame;

		/* Frames are above the stack pointer, callers above callees. */
		if (fp < regs->sp || !IS_ALIGNED(fp, sizeof(u32)) ||
		    copy_from_user_nofault(&frame, (const void __user *)fp,
					   sizeof(frame)) || !frame.ret_addr)
			break;
		store[n++] = frame.ret_addr;
		if (frame.next_fp <= fp)
			break;
		fp = frame.next_fp;
	}
	return n;
}
#endif

/*
 * Copy up to @size bytes of user stack from @sp up into @dst, a page at a
 * time with page faults disabled; the copy stops at the first page that is
 * not resident or not mapped.  Returns the bytes copied.
 */
static u32 stall_copy_ustack(u8 *dst, unsigned long sp, u32 size)
{
	u32 done = 0;

	while (done < size) {
		u32 chunk = min_t(u32, size - done, PAGE_SIZE - offset_in_page(sp + done));

		if (copy_from_user_nofault(dst + done, (const void __user *)(sp + done), chunk))
			break;
		done += chunk;
	}
	return done;
}

/* Read the build-id and the path of the file of @vma into @map. */
static void stall_map_read(struct i915_stall_map *map, struct vm_area_struct *vma)
{
	static const char deleted[] = " (deleted)";
	struct dentry *dentry = vma->vm_file->f_path.dentry;
	__u32 size;
	char *path;

	/* Only from the page cache: a build-id page not resident fails. */
	BUILD_BUG_ON(sizeof(map->build_id) < BUILD_ID_SIZE_MAX);
	memset(map->build_id, 0, sizeof(map->build_id));
	map->build_id_size = 0;
	if (!build_id_parse_nofault(vma, map->build_id, &size)) {
		map->build_id_size = size;
		map->flags |= I915_STALL_MAP_BUILD_ID;
	}

	/*
	 * The path as /proc/PID/maps shows it, if it fits, but for the suffix
	 * of a file no path reaches (unlinked, or of an internal mount such
	 * as memfd's), which sets a flag instead.  d_path() does not sleep:
	 * it walks under RCU and rename_lock is a seqlock.
	 */
	path = d_path(&vma->vm_file->f_path, map->name, sizeof(map->name));
	if (!IS_ERR(path)) {
		size_t len = strlen(path);

		if (len >= sizeof(deleted) - 1 &&
		    !strcmp(path + len - (sizeof(deleted) - 1), deleted)) {
			len -= sizeof(deleted) - 1;
			map->flags |= I915_STALL_MAP_DELETED;
		}
		memmove(map->name, path, len);
		memset(map->name + len, 0, sizeof(map->name) - len);
		map->flags |= I915_STALL_MAP_PATH;
	} else {
		/* The file name alone, read as %pd reads it. */
		if (d_unlinked(dentry))
			map->flags |= I915_STALL_MAP_DELETED;
		rcu_read_lock();
		strscpy_pad(map->name, READ_ONCE(dentry->d_name.name), sizeof(map->name));
		rcu_read_unlock();
	}
}

/* The times of @inode, read without its lock as stat() reads them. */
static void stall_inode_times(const struct inode *inode, struct timespec64 *mtime,
			      struct timespec64 *ctime)
{
	/* data race ok: a torn time makes the cache miss, nothing else */
	*mtime = data_race(inode_get_mtime(inode));
	/* data race ok: as above */
	*ctime = data_race(inode_get_ctime(inode));
}

/* Whether @id names @inode as it is now. */
static bool stall_file_id_match(const struct stall_file_id *id,
				const struct inode *inode)
{
	struct timespec64 mtime, ctime;

	if (id->inode != inode || id->ino != inode->i_ino || id->dev != inode->i_sb->s_dev)
		return false;
	stall_inode_times(inode, &mtime, &ctime);
	return timespec64_equal(&mtime, &id->mtime) && timespec64_equal(&ctime, &id->ctime);
}

/*
 * Fill @map with the executable mapping @vma: its range, its file offset
 * and what names its file after the process is gone, the build-id and the
 * path.  Reading those costs a few microseconds, so the files last named
 * on this CPU are remembered in its ring, by inode, each in one of the
 * STALL_FILE_WAYS entries of its set; a file whose build-id was not
 * resident is not, so that it is read again next time.
 */
static void stall_map_fill(struct i915_stall_ring *ring, struct i915_stall_map *map,
			   struct vm_area_struct *vma)
{
	struct stall_file_id *set, *id;
	const struct inode *inode;
	unsigned int i;

	memset(map, 0, sizeof(*map));
	map->start = vma->vm_start;
	map->end = vma->vm_end;
	if (!vma->vm_file) {
		map->flags = STALL_MAP_ANON;
		return;
	}
	map->file_offset = (u64)vma->vm_pgoff << PAGE_SHIFT;

	inode = file_inode(vma->vm_file);
	set = &ring->files[hash_ptr(inode, ilog2(STALL_FILE_CACHE / STALL_FILE_WAYS)) *
			   STALL_FILE_WAYS];
	for (i = 0; i < STALL_FILE_WAYS; i++) {
		id = &set[i];
		if (!stall_file_id_match(id, inode))
			continue;
		memcpy(map->build_id, id->build_id, sizeof(map->build_id));
		map->build_id_size = id->build_id_size;
		memcpy(map->name, id->name, sizeof(map->name));
		map->flags = id->flags | I915_STALL_MAP_BUILD_ID;
		/* unlinked since it was remembered: a library replaced on disk */
		if (d_unlinked(vma->vm_file->f_path.dentry))
			map->flags |= I915_STALL_MAP_DELETED;
		return;
	}

	stall_map_read(map, vma);
	if (!(map->flags & I915_STALL_MAP_BUILD_ID))
		return;

	id = &set[ring->next_file++ % STALL_FILE_WAYS];

	id->inode = inode;
	id->ino = inode->i_ino;
	id->dev = inode->i_sb->s_dev;
	stall_inode_times(inode, &id->mtime, &id->ctime);
	memcpy(id->build_id, map->build_id, sizeof(id->build_id));
	id->build_id_size = map->build_id_size;
	id->flags = map->flags & ~I915_STALL_MAP_BUILD_ID;
	memcpy(id->name, map->name, sizeof(id->name));
}

/*
 * The key of the current task's address space as it is now, if it can be
 * told without mmap_lock: mm_lock_seq is odd while a writer changes the
 * mappings, and without per-VMA locks there is no such count at all.
 */
static bool stall_table_key(struct mm_struct *mm, struct stall_table_key *key)
{
	struct task_struct *tsk = current;

	key->mm = mm;
	key->start_time = tsk->group_leader->start_time;
	key->exec_id = tsk->self_exec_id;
	key->tgid = tsk->tgid;
#ifdef CONFIG_PER_VMA_LOCK
	/* data race ok: compared only, and an odd count is never believed */
	key->seq = data_race(READ_ONCE(mm->mm_lock_seq.sequence));
	return !(key->seq & 1);
#else
	key->seq = 0;
	return false;
#endif
}

/* Whether @a and @b are the same image of the same process. */
static bool stall_table_same_process(const struct stall_table_key *a,
				     const struct stall_table_key *b)
{
	return a->mm == b->mm && a->tgid == b->tgid &&
	       a->start_time == b->start_time && a->exec_id == b->exec_id;
}

/* The table at @off of @ring's table area. */
static struct stall_table *stall_table_at(const struct i915_stall_rings *rings,
					  const struct i915_stall_ring *ring, u32 off)
{
	return (void *)&ring->slot[(size_t)rings->slots * rings->stride + off];
}

/* Entry @i of @ring's tables, oldest first. */
static struct stall_table_ref *stall_table_ref(struct i915_stall_ring *ring, u32 i)
{
	return &ring->refs[(ring->first + i) % STALL_TABLES];
}

/* The newest table of @ring made for the image of the process of @key. */
static struct stall_table *stall_table_find(const struct i915_stall_rings *rings,
					    struct i915_stall_ring *ring,
					    const struct stall_table_key *key)
{
	u32 i;

	for (i = ring->nr_tables; i--;) {
		struct stall_table *t = stall_table_at(rings, ring, stall_table_ref(ring, i)->off);

		if (stall_table_same_process(&t->key, key))
			return t;
	}
	return NULL;
}

/*
 * Walk the VMAs of @mm, at most @walk_max of them, and count the
 * executable mappings, at most @max: forming each in turn into @maps, or
 * with @maps NULL comparing each with @old, if any.  Returns how many
 * there were; *@flags says if some were left out, and with @old, *@same
 * whether all of them, and nothing more, are as @old has them.
 */
static u32 stall_table_walk(struct i915_stall_ring *ring, struct mm_struct *mm,
			    unsigned int walk_max, u32 max, struct i915_stall_map *maps,
			    const struct stall_table *old, u32 *flags, bool *same)
{
	VMA_ITERATOR(vmi, mm, 0);
	struct i915_stall_map scratch;
	struct vm_area_struct *vma;
	unsigned int walked = 0;
	u32 count = 0;

	*flags = 0;
	*same = old;
	for_each_vma(vmi, vma) {
		struct i915_stall_map *map = maps ? &maps[count] : &scratch;

		if (walked++ == walk_max) {
			*flags |= STALL_TABLE_CUT;
			break;
		}
		if (!(vma->vm_flags & VM_EXEC))
			continue;
		if (count == max) {
			*flags |= STALL_TABLE_FULL;
			break;
		}
		if (maps || old)
			stall_map_fill(ring, map, vma);
		if (*same && (count == old->count ||
			      memcmp(map, &old->maps[count], sizeof(*map))))
			*same = false;
		count++;
	}
	if (*same && (count != old->count || *flags != old->flags))
		*same = false;
	return count;
}

/*
 * Room for a table of @size bytes in @ring's table area: at the head, or
 * at the start once the head is too near the end.  The tables there are
 * the oldest, and are written over; each is given up first, so that a
 * snapshot that read any of its bytes after that sees it gone.
 */
static u32 stall_table_place(const struct i915_stall_rings *rings,
			     struct i915_stall_ring *ring, u32 size)
{
	bool wrap = ring->table_head + size > rings->table_bytes;
	u32 off = wrap ? 0 : ring->table_head;

	while (ring->nr_tables) {
		const struct stall_table_ref *old = stall_table_ref(ring, 0);

		/* Wrapping, those past the head go too: they are older still. */
		if (ring->nr_tables < STALL_TABLES &&
		    !(wrap && old->off >= ring->table_head) &&
		    (old->off >= off + size || old->off + old->size <= off))
			break;
		WRITE_ONCE(ring->tables_gone, old->id);
		ring->first = (ring->first + 1) % STALL_TABLES;
		ring->nr_tables--;
	}
	smp_wmb(); /* LMM(stall_table_place:A) */
	ring->table_head = off + size;
	return off;
}

/*
 * The table of @key's address space: found, or made by walking its VMAs.
 * A layout that moved with every executable mapping as it was (a buffer
 * mapped or unmapped, the heap grown) keeps its table.
 * Context: mmap_lock held for reading, preemption disabled.
 */
static struct stall_table *stall_table_build(const struct i915_stall_rings *rings,
					     struct i915_stall_ring *ring,
					     struct mm_struct *mm,
					     const struct stall_table_key *key,
					     unsigned int walk_max)
{
	struct stall_table *old = stall_table_find(rings, ring, key), *t;
	struct stall_table_ref *ref;
	u32 count, flags, off;
	bool same;

	if (old && old->key.seq == key->seq)
		return old;

	/* Mapped or unmapped something, but no code: the table holds. */
	count = stall_table_walk(ring, mm, walk_max, STALL_TABLE_MAPS, NULL, old,
				 &flags, &same);
	if (same) {
		old->key = *key;
		return old;
	}

	off = stall_table_place(rings, ring, stall_table_size(count));
	t = stall_table_at(rings, ring, off);
	t->id = ++ring->next_table;
	t->count = stall_table_walk(ring, mm, walk_max, count, t->maps, NULL, &t->flags,
				    &same);
	t->key = *key;

	ref = stall_table_ref(ring, ring->nr_tables++);
	ref->id = t->id;
	ref->off = off;
	ref->size = stall_table_size(count);
	return t;
}

/*
 * Name the table of the executable mappings of the current task's
 * address space, as it is now, in @ref, for the record @s: found, or made
 * under mmap_read_trylock(), as the BPF stack map reads build-ids for
 * BPF_F_USER_BUILD_ID.  With none, @ref->id is 0 and @s says why, in its
 * flags and for each frame: a writer held mmap_lock (F_MAPS_NOLOCK: a
 * record never waits for it).
 * Context: preemption disabled, so this CPU's tables and files are ours.
 */
static void stall_table_name(const struct i915_stall_rings *rings,
			     struct i915_stall_ring *ring, struct i915_stall_record *s,
			     struct stall_table_ref *ref, unsigned int walk_max)
{
	struct mm_struct *mm = current->mm;
	struct stall_table_key key;
	struct stall_table *t;

	if (stall_table_key(mm, &key)) {
		t = stall_table_find(rings, ring, &key);
		if (t && t->key.seq == key.seq)
			goto named;
	}

	if (!mmap_read_trylock(mm)) {
		s->flags |= I915_STALL_F_MAPS_NOLOCK;
		memset(s->ustack_map, I915_STALL_FRAME_NOLOCK, s->ustack_depth);
		ref->id = 0;
		return;
	}
	/* No writer now: the count stands still, even if it was odd. */
	stall_table_key(mm, &key);
	t = stall_table_build(rings, ring, mm, &key, walk_max);
	mmap_read_unlock(mm);
named:
	ref->id = t->id;
	ref->off = (u8 *)t - (u8 *)stall_table_at(rings, ring, 0);
	ref->size = stall_table_size(t->count);
}

/*
 * The caller's user call chain into @s->ustack.  Kernel threads and user
 * workers have none (F_KTHREAD).  The mode of the user code that entered
 * the kernel decides the walk, not the system call: a 32-bit task may stall
 * in a page fault, and an x32 task runs 64-bit code with 64-bit frames.
 */
static void stall_fill_user(const struct i915_stall_rings *rings,
			    struct i915_stall_record *s)
{
	struct i915_stall_ring *ring = rings->ring[smp_processor_id()];
	struct task_struct *tsk = current;
	struct pt_regs *regs;
	unsigned int n;

	if (tsk->flags & (PF_KTHREAD | PF_USER_WORKER)) {
		s->flags |= I915_STALL_F_KTHREAD;
		return;
	}
	if (!tsk->mm)	/* exiting */
		return;

	regs = task_pt_regs(tsk);
	if (!user_64bit_mode(regs)) {
		s->flags |= I915_STALL_F_COMPAT;
#if IS_ENABLED(CONFIG_IA32_EMULATION)
		n = stall_save_user32(task_pt_regs(tsk), s->ustack,
				      ARRAY_SIZE(s->ustack));
#else
		n = 0;
#endif
	} else {
		/* Walks frame pointers with page faults disabled. */
		n = stack_trace_save_user((unsigned long *)s->ustack,
					  ARRAY_SIZE(s->ustack));
	}
	s->ustack_depth = n;
	if (n == ARRAY_SIZE(s->ustack))
		s->flags |= I915_STALL_F_USTACK_TRUNC;

	/* What a CFI unwinder needs: the registers and the stack above sp. */
	s->user_ip = regs->ip;
	s->user_sp = regs->sp;
	s->user_bp = regs->bp;
	s->flags |= I915_STALL_F_USER_REGS;
	s->ustack_size = stall_copy_ustack(stall_slot_ustack(s), regs->sp,
					   rings->ustack_bytes);

	stall_table_name(rings, ring, s, stall_slot_table(s), STALL_WALK_MAX);
}

/* What stall_fill() records: the site's info and the measured duration. */
struct stall_fill_arg {
	const struct i915_stall_info *info;
	u64 duration;
};

/* Fill everything but the sequence number into a reserved slot. */
static noinline void stall_fill(const struct i915_stall_rings *rings,
				struct i915_stall_record *s, const void *data)
{
	const struct stall_fill_arg *arg = data;
	const struct i915_stall_info *info = arg->info;
	const struct i915_stall_wait *w = info->wait;
	u64 duration = arg->duration;
	struct task_struct *tsk = current;
	unsigned int n;
	int error;

	memset_startat(s, 0, start_ns);

	s->start_ns = w->start_ns;
	s->duration_ns = duration;
	s->spin_ns = info->spin_ns;
	/* jiffies_to_nsecs() goes through 32-bit microseconds: not that. */
	s->timeout_ns = info->timeout == MAX_SCHEDULE_TIMEOUT ?
			I915_STALL_TIMEOUT_NONE : jiffies64_to_nsecs(info->timeout);
	s->caller = info->caller;
	s->pid = task_pid_nr(tsk);
	s->tgid = task_tgid_nr(tsk);
	s->wait_flags = info->wait_flags;
	s->cpu = smp_processor_id();
	s->site = info->site;
	s->outcome = stall_outcome(info->ret, &error);
	s->error = error;
	/* Our own comm, as tracepoints copy it: no task_lock() needed. */
	memcpy(s->comm, tsk->comm, sizeof(s->comm) - 1);

	/* What the wait site captured at wait entry. */
	s->flags = w->flags & (I915_STALL_F_FENCE | I915_STALL_F_ENGINE |
			       I915_STALL_F_OWNER);
	s->fence_context = w->fence_context;
	s->fence_seqno = w->fence_seqno;
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

	/* Skip this function and its noinline caller, i915_stall_record(). */
	n = stack_trace_save((unsigned long *)s->kstack, ARRAY_SIZE(s->kstack),
			     2 + info->skip);
	s->kstack_depth = n;
	if (n == ARRAY_SIZE(s->kstack))
		s->flags |= I915_STALL_F_KSTACK_TRUNC;

	stall_fill_user(rings, s);
}

/*
 * The body of the record functions.
 * Context: preemption disabled, from before @log was looked up.
 */
static __always_inline void stall_record(struct i915_stall_log *log,
					 const struct i915_stall_info *info,
					 u64 duration)
{
	const struct stall_fill_arg arg = { .info = info, .duration = duration };
	struct i915_stall_rings *rings;

	BUILD_BUG_ON(sizeof(unsigned long) != sizeof(u64));

	if (!log || !READ_ONCE(log->enabled) ||
	    duration < READ_ONCE(log->threshold_ns))
		return;

	rings = rcu_dereference_sched(log->rings);
	if (unlikely(!rings)) {
		this_cpu_inc(*log->dropped);
		return;
	}

	stall_ring_write(rings, stall_fill, &arg);
}

/**
 * i915_stall_record - record a stall if it is long enough
 * @log: a stall log that outlives the call
 * @info: what the wait site knows about the stall
 *
 * Measures the stall from @info->wait->start_ns to now and, if the log is
 * enabled and the stall is at least the threshold, writes a record with the
 * caller's kernel and user stacks into this CPU's ring.  The wait sites
 * record into their device's log through i915_stall_record_device().
 *
 * Context: Process context, no spinlocks held; may be called with mutexes
 * held.  Never sleeps, never allocates and never blocks on a reader.
 */
noinline void i915_stall_record(struct i915_stall_log *log,
				const struct i915_stall_info *info)
{
	u64 duration = ktime_get_ns() - info->wait->start_ns;

	/* An interrupt could land between a writer's reserve and commit. */
	if (WARN_ON_ONCE(!in_task()))
		return;

	preempt_disable();
	stall_record(log, info, duration);
	preempt_enable();
}

/**
 * i915_stall_fini - destroy the stall log of a device
 * @i915: the device
 *
 * The log is unpublished first; stall_log_destroy() then waits for the
 * writers that may still see it, which run with preemption disabled, before
 * it frees anything.
 *
 * Context: Process context; waits for an RCU grace period.
 */
void i915_stall_fini(struct drm_i915_private *i915)
{
	stall_log_destroy(rcu_replace_pointer(i915->stall_log, NULL, true));
}

/*
 * Wait-site hooks.  Each is called through an inline wrapper in
 * i915_stall.h only while some log is enabled, and adds one frame between
 * the wait function and stall_record_device().
 */

/*
 * Record into the log of @i915, looked up with preemption disabled, so
 * that i915_stall_fini()'s grace period waits for us.
 */
static noinline void stall_record_device(struct drm_i915_private *i915,
					 const struct i915_stall_info *info)
{
	u64 duration = ktime_get_ns() - info->wait->start_ns;

	if (WARN_ON_ONCE(!in_task()))
		return;

	preempt_disable();
	stall_record(rcu_dereference_sched(i915->stall_log), info, duration);
	preempt_enable();
}

/**
 * __i915_stall_capture_request - capture what a request wait waits on
 * @w: the wait, started by i915_stall_begin()
 * @rq: the awaited request; the caller holds a reference
 *
 * Once @rq signals it may be retired at any time, and retirement unpins
 * its context: the context, a virtual engine (freed with kfree() under
 * GuC submission) and the GEM context's pid (put_pid() frees at once) may
 * then go.  So the engine and the owner are read here, at wait entry,
 * under rq->lock: i915_request_retire() signals the fence under that lock
 * before it unpins anything, so while the lock is held and the fence is
 * unsignalled, the context and the engine stay.  The GEM context may be
 * closed regardless: it is taken with kref_get_unless_zero() under RCU, as
 * i915_gpu_error.c does, and its reference holds ctx->pid.
 *
 * Context: Process context.
 */
void __i915_stall_capture_request(struct i915_stall_wait *w,
				  struct i915_request *rq)
{
	struct i915_gem_context *ctx = NULL;
	unsigned long irqflags;

	w->fence_context = rq->fence.context;
	w->fence_seqno = rq->fence.seqno;
	w->flags = I915_STALL_F_FENCE;

	spin_lock_irqsave(&rq->lock, irqflags);
	if (!i915_request_signaled(rq)) {
		/* A virtual engine's request may move to a sibling. */
		const struct intel_engine_cs *engine = READ_ONCE(rq->engine);

		w->engine_class = engine->uabi_class;
		w->engine_instance = engine->uabi_instance;
		w->flags |= I915_STALL_F_ENGINE;

		rcu_read_lock();
		ctx = rcu_dereference(rq->context->gem_context);
		if (ctx && !kref_get_unless_zero(&ctx->ref))
			ctx = NULL;
		rcu_read_unlock();
	}
	spin_unlock_irqrestore(&rq->lock, irqflags);

	if (!ctx)
		return;
	if (ctx->pid) {
		const char *open = strchr(ctx->name, '[');
		size_t len = open ? open - ctx->name : strlen(ctx->name);

		memset(w->owner_comm, 0, sizeof(w->owner_comm));
		memcpy(w->owner_comm, ctx->name,
		       min(len, sizeof(w->owner_comm) - 1));
		w->owner_pid = pid_nr(ctx->pid);
		w->flags |= I915_STALL_F_OWNER;
	}
	i915_gem_context_put(ctx);
}

/**
 * __i915_stall_request_end - record a stall in i915_request_wait_timeout()
 * @i915: the device of the awaited request
 * @w: the wait, from i915_stall_request_begin()
 * @spin: time spent busy-spinning, from i915_stall_since()
 * @flags: the I915_WAIT_* flags of the wait
 * @timeout: the timeout asked for, in jiffies
 * @ret: the wait's return value
 * @caller: return address into the wait's caller
 *
 * Context: Process context, see i915_stall_record().
 */
noinline void __i915_stall_request_end(struct drm_i915_private *i915,
				       const struct i915_stall_wait *w,
				       u64 spin, unsigned int flags,
				       long timeout, long ret,
				       unsigned long caller)
{
	const struct i915_stall_info info = {
		.wait = w,
		.spin_ns = spin,
		.timeout = timeout,
		.ret = ret,
		.caller = caller,
		.wait_flags = flags,
		.site = I915_STALL_SITE_REQUEST,
		.skip = 1,
	};

	stall_record_device(i915, &info);
}

/**
 * __i915_stall_active_end - record a stall in __i915_active_wait()
 * @i915: the device owning the awaited requests
 * @w: the wait, from i915_stall_begin()
 * @ret: the wait's return value
 * @caller: return address into the wait's caller
 *
 * Context: Process context, see i915_stall_record().
 */
noinline void __i915_stall_active_end(struct drm_i915_private *i915,
				      const struct i915_stall_wait *w, int ret,
				      unsigned long caller)
{
	const struct i915_stall_info info = {
		.wait = w,
		.timeout = MAX_SCHEDULE_TIMEOUT,
		.ret = ret,
		.caller = caller,
		.site = I915_STALL_SITE_ACTIVE,
		.skip = 1,
	};

	stall_record_device(i915, &info);
}

/**
 * __i915_stall_fence_end - record a stall on a fence that is not i915's
 * @i915: the device whose object waited
 * @w: the wait, from i915_stall_fence_begin()
 * @flags: the I915_WAIT_* flags of the wait
 * @timeout: the timeout asked for, in jiffies
 * @ret: the wait's return value (dma_fence_wait_timeout() semantics)
 * @caller: return address into the wait's caller
 *
 * Context: Process context, see i915_stall_record().
 */
noinline void __i915_stall_fence_end(struct drm_i915_private *i915,
				     const struct i915_stall_wait *w,
				     unsigned int flags, long timeout, long ret,
				     unsigned long caller)
{
	const struct i915_stall_info info = {
		.wait = w,
		.timeout = timeout,
		/* dma_fence_wait_timeout() returns 0 when it timed out */
		.ret = ret == 0 && timeout ? -ETIME : ret,
		.caller = caller,
		.wait_flags = flags,
		.site = I915_STALL_SITE_OBJECT_FENCE,
		.skip = 1,
	};

	stall_record_device(i915, &info);
}

/**
 * __i915_stall_dma_fence_begin - capture the fence of i915_stall_dma_fence_wait()
 * @w: the wait, started by i915_stall_begin()
 * @fence: the awaited fence; the caller holds a reference
 *
 * A wait on an i915 request is recorded by i915_request_wait_timeout(),
 * which dma_fence_wait() reaches: this site then records nothing.
 *
 * Context: Process context.
 */
void __i915_stall_dma_fence_begin(struct i915_stall_wait *w,
				  const struct dma_fence *fence)
{
	if (dma_fence_is_i915(fence)) {
		w->start_ns = 0;
		return;
	}
	w->fence_context = fence->context;
	w->fence_seqno = fence->seqno;
	w->flags = I915_STALL_F_FENCE;
}

/**
 * __i915_stall_dma_fence_end - record a stall in i915_stall_dma_fence_wait()
 * @i915: the device that waited
 * @w: the wait, from __i915_stall_dma_fence_begin()
 * @intr: whether the wait was interruptible
 * @ret: what dma_fence_wait() returned
 * @caller: return address into the wait's caller
 *
 * Context: Process context, see i915_stall_record().
 */
noinline void __i915_stall_dma_fence_end(struct drm_i915_private *i915,
					 const struct i915_stall_wait *w,
					 bool intr, long ret,
					 unsigned long caller)
{
	const struct i915_stall_info info = {
		.wait = w,
		.timeout = MAX_SCHEDULE_TIMEOUT,
		.ret = ret,
		.caller = caller,
		.wait_flags = intr ? I915_WAIT_INTERRUPTIBLE : 0,
		.site = I915_STALL_SITE_FENCE,
		.skip = 1,
	};

	stall_record_device(i915, &info);
}

/**
 * __i915_stall_unattributed - count a wait no device's log can take
 * @w: the wait, from i915_stall_begin()
 *
 * An i915_active with no i915 request left to name its device, waited on
 * while some log was enabled.  Every snapshot's header reports the count,
 * so such waits are never lost silently.
 */
void __i915_stall_unattributed(const struct i915_stall_wait *w)
{
	atomic64_inc(&stall_unattributed);
}

/*
 * The syncobj waits.  DRM core calls these once per wait that sleeps, see
 * &drm_driver.syncobj_wait_begin; the wait holds its fences from begin to
 * end, and keeps our struct i915_stall_wait in its driver_private space.
 */
static struct i915_stall_wait *stall_syncobj_wait(struct drm_syncobj_wait_info *info)
{
	BUILD_BUG_ON(sizeof(struct i915_stall_wait) > sizeof(info->driver_private));
	return (struct i915_stall_wait *)info->driver_private;
}

/*
 * The first i915 request of @fence that has not signalled: @fence itself,
 * or one inside a dma_fence_chain (a timeline point) or a dma_fence_array
 * (a merged sync_file, a dma_resv singleton), captured while the container
 * holds it.  Returns true if one was found.
 */
static bool stall_capture_fence(struct i915_stall_wait *w, struct dma_fence *fence)
{
	struct dma_fence_unwrap iter;
	struct dma_fence *f;

	dma_fence_unwrap_for_each(f, &iter, fence) {
		if (!dma_fence_is_i915(f) || dma_fence_is_signaled(f))
			continue;
		__i915_stall_capture_request(w, to_request(f));
		/* The walk holds the chain link it stopped at. */
		dma_fence_put(iter.chain);
		return true;
	}
	return false;
}

/**
 * i915_stall_syncobj_wait_begin - note a syncobj wait that is about to sleep
 * @info: the wait, from DRM core
 *
 * Captures the first i915 request not yet signalled among the fences, in
 * the order of the wait's handles, while the wait holds them: its fence,
 * engine and owner, as for i915_request_wait_timeout().  A wait for all
 * fences ends no sooner than that request; a wait for any may end on
 * another.  With no i915 request, the first fence not yet signalled is
 * named.  A fence that does not exist yet (WAIT_FOR_SUBMIT) is noted as
 * such: nothing is read of fences that appear later, once they may be
 * signalled and retired.
 *
 * Context: Process context, no locks held.
 */
void i915_stall_syncobj_wait_begin(struct drm_syncobj_wait_info *info)
{
	struct i915_stall_wait *w = stall_syncobj_wait(info);
	struct dma_fence *other = NULL;
	bool found = false;
	u32 i;

	BUILD_BUG_ON(I915_STALL_SYNC_WAIT_ALL != DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL);
	BUILD_BUG_ON(I915_STALL_SYNC_FOR_SUBMIT != DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT);
	BUILD_BUG_ON(I915_STALL_SYNC_AVAILABLE != DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE);
	BUILD_BUG_ON(I915_STALL_SYNC_DEADLINE != DRM_SYNCOBJ_WAIT_FLAGS_WAIT_DEADLINE);

	if (!i915_stall_begin(w))
		return;
	w->fence_count = info->count;
	w->sync_flags = info->flags & (I915_STALL_SYNC_WAIT_ALL |
				       I915_STALL_SYNC_FOR_SUBMIT |
				       I915_STALL_SYNC_AVAILABLE |
				       I915_STALL_SYNC_DEADLINE);

	for (i = 0; i < info->count; i++) {
		struct dma_fence *fence = drm_syncobj_wait_info_fence(info, i);

		if (!fence) {
			w->sync_flags |= I915_STALL_SYNC_UNSUBMITTED;
			continue;
		}
		if (!found)
			found = stall_capture_fence(w, fence);
		if (!found && !other && !dma_fence_is_signaled(fence))
			other = fence;
	}
	if (!found && other) {
		w->fence_context = other->context;
		w->fence_seqno = other->seqno;
		w->flags = I915_STALL_F_FENCE;
	}
}

/**
 * i915_stall_syncobj_wait_end - record a syncobj wait that slept
 * @info: the wait, from DRM core, with its result
 *
 * Records into the log of the device the wait came through.
 *
 * Context: Process context, no locks held.
 */
void i915_stall_syncobj_wait_end(struct drm_syncobj_wait_info *info)
{
	const struct i915_stall_wait *w = stall_syncobj_wait(info);
	const struct i915_stall_info stall = {
		.wait = w,
		/*
		 * The ioctls take an absolute deadline, and Mesa passes
		 * INT64_MAX for none: record a deadline centuries away as
		 * no timeout.
		 */
		.timeout = jiffies64_to_nsecs(info->timeout) >= KTIME_MAX / 2 ?
			   MAX_SCHEDULE_TIMEOUT : info->timeout,
		.ret = info->ret,
		.caller = _RET_IP_,
		.wait_flags = I915_WAIT_INTERRUPTIBLE,
		.site = info->timeline ? I915_STALL_SITE_SYNCOBJ_TIMELINE :
					 I915_STALL_SITE_SYNCOBJ,
		.skip = 1,
	};

	if (i915_stall_active(w))
		stall_record_device(to_i915(info->dev), &stall);
}

/*
 * debugfs: the snapshot file and the control files.
 */

/*
 * Swap in a new set of rings of @slots each, with @ustack_bytes of user
 * stack per record; the old records are gone.  Returns 0 or -ENOMEM, in
 * which case nothing changed.
 */
static int stall_log_resize(struct i915_stall_log *log, u32 slots, u32 ustack_bytes)
{
	struct i915_stall_rings *new, *old;

	lockdep_assert_held(&log->lock);

	new = stall_rings_alloc(slots, ustack_bytes);
	if (!new)
		return -ENOMEM;

	old = rcu_replace_pointer(log->rings, new, lockdep_is_held(&log->lock));
	log->slots = slots;
	log->ustack_bytes = ustack_bytes;

	/* Writers still on the old rings run with preemption disabled. */
	synchronize_rcu();
	stall_rings_free(old);
	return 0;
}

/* Enable needs rings: allocate them first so nothing is dropped. */
static int stall_log_enable(struct i915_stall_log *log, bool enable)
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

static void stall_log_clear(struct i915_stall_log *log)
{
	struct i915_stall_rings *rings;
	unsigned int cpu;

	lockdep_assert_held(&log->lock);

	rings = rcu_dereference_protected(log->rings, lockdep_is_held(&log->lock));
	for_each_possible_cpu(cpu) {
		u64 dropped;

		/* A record committed while we clear may survive the clear. */
		if (rings)
			WRITE_ONCE(rings->ring[cpu]->base,
				   READ_ONCE(rings->ring[cpu]->head));

		/* data race ok: a statistic; a concurrent drop may survive */
		dropped = data_race(*per_cpu_ptr(log->dropped, cpu));
		*per_cpu_ptr(log->dropped_base, cpu) = dropped;
	}
}

/**
 * struct stall_snapshot - a file's image of the log, taken at open
 * @size: bytes of @data
 * @data: header, CPU table and records, as in i915_stall_format.h
 */
struct stall_snapshot {
	size_t size;
	u8 data[];
};

/*
 * Bytes of a snapshot of @records records of @stride bytes and @cpus CPU
 * entries, or 0 if that is more than kvmalloc() allocates (INT_MAX).  With
 * the default 2 KiB of user stack (4808-byte records), rings of the largest
 * size, 16384 slots, fit on 27 CPUs and not on 28.
 */
static size_t stall_snapshot_bytes(u64 records, unsigned int cpus, u32 stride)
{
	size_t bytes;

	bytes = size_add(size_add(sizeof(struct i915_stall_file_header),
				  size_mul(cpus, sizeof(struct i915_stall_cpu_entry))),
			 size_mul(records, stride));
	return bytes > INT_MAX ? 0 : bytes;
}

/*
 * Whether full rings of @slots, with @ustack_bytes of user stack per
 * record, on each of @cpus CPUs fit in a snapshot.
 */
static bool stall_slots_fit(u32 slots, u32 ustack_bytes, unsigned int cpus)
{
	return stall_snapshot_bytes((u64)slots * cpus, cpus, stall_stride(ustack_bytes));
}

/* The entry of @t that user address @addr falls in, or NULL. */
static const struct i915_stall_map *stall_table_lookup(const struct stall_table *t,
						       unsigned long addr)
{
	unsigned int lo = 0, hi = t->count;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (t->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= t->maps[lo - 1].end)
		return NULL;
	return &t->maps[lo - 1];
}

/*
 * The entry of @rec's maps[] for @m, an executable file mapping of @t,
 * added in the order of first use if need be, or I915_STALL_FRAME_FULL.
 * @idx maps entries of @t to entries of maps[].
 */
static u8 stall_rec_add(struct i915_stall_record *rec, const struct stall_table *t,
			u8 *idx, const struct i915_stall_map *m)
{
	unsigned int i = m - t->maps;

	if (idx[i] != U8_MAX)
		return idx[i];
	if (rec->map_count == STALL_MAP_MAX) {
		rec->flags |= I915_STALL_F_MAPS_FULL;
		return I915_STALL_FRAME_FULL;
	}
	stall_rec_maps(rec)[rec->map_count] = *m;
	idx[i] = rec->map_count;
	return rec->map_count++;
}

/* What user frame @addr of @rec says: its entry of maps[], or why none. */
static u8 stall_rec_frame(struct i915_stall_record *rec, const struct stall_table *t,
			  u8 *idx, unsigned long addr)
{
	const struct i915_stall_map *m = stall_table_lookup(t, addr);

	if (!m) {
		if (!t->flags)
			return I915_STALL_FRAME_NOVMA;
		/* maybe in a mapping the table has no room for */
		rec->flags |= t->flags & STALL_TABLE_CUT ? I915_STALL_F_MAPS_CUT :
							   I915_STALL_F_MAPS_FULL;
		return I915_STALL_FRAME_FULL;
	}
	if (m->flags & STALL_MAP_ANON)
		return I915_STALL_FRAME_ANON;
	return stall_rec_add(rec, t, idx, m);
}

/*
 * Fill the maps[] of @rec, a record of the snapshot whose address space
 * is described by @t: each executable file mapping that a user frame or
 * an aligned word of the stack snapshot points into, once (the words are
 * where CFI will find the return addresses the frame-pointer walk
 * skipped), and per frame the entry of maps[] it falls in or why there is
 * none.  Done when the log is read, so that a stall costs no lookup.
 */
static void stall_rec_fill_maps(struct i915_stall_record *rec, const struct stall_table *t,
				u8 *idx)
{
	unsigned int word = rec->flags & I915_STALL_F_COMPAT ? sizeof(u32) : sizeof(u64);
	const u8 *snap = stall_rec_ustack(rec);
	unsigned int i;

	rec->map_count = 0;
	memset(idx, U8_MAX, t->count);
	for (i = 0; i < rec->ustack_depth; i++)
		rec->ustack_map[i] = stall_rec_frame(rec, t, idx, rec->ustack[i]);

	for (i = -rec->user_sp & (word - 1); i + word <= rec->ustack_size; i += word) {
		const struct i915_stall_map *m;
		unsigned long v;

		if (word == sizeof(u64))
			v = get_unaligned((const u64 *)(snap + i));
		else
			v = get_unaligned((const u32 *)(snap + i));
		if (v < mmap_min_addr || v >= TASK_SIZE_MAX)
			continue;
		m = stall_table_lookup(t, v);
		if (m && !(m->flags & STALL_MAP_ANON))
			stall_rec_add(rec, t, idx, m);
	}
}

/**
 * struct stall_scratch - what a snapshot works with besides the file
 * @idx: see stall_rec_add()
 * @refs: where the table each record copied from a ring is
 * @table: the last table copied, with room for the largest
 */
struct stall_scratch {
	u8 idx[STALL_TABLE_MAPS];
	struct stall_table_ref *refs;
	struct stall_table *table;
};

static void stall_scratch_free(struct stall_scratch *x)
{
	if (!x)
		return;
	kvfree(x->refs);
	kvfree(x->table);
	kfree(x);
}

static struct stall_scratch *stall_scratch_alloc(u32 slots)
{
	struct stall_scratch *x = kzalloc(sizeof(*x), GFP_KERNEL);

	if (!x)
		return NULL;
	x->refs = kvmalloc_array(slots, sizeof(*x->refs), GFP_KERNEL);
	x->table = kvmalloc(stall_table_size(STALL_TABLE_MAPS), GFP_KERNEL);
	if (!x->refs || !x->table) {
		stall_scratch_free(x);
		return NULL;
	}
	return x;
}

/*
 * Copy the table @ref points to from @ring's table area into @x->table,
 * if it is still there.  Racy by design: a table is written over only
 * once it is given up, so the copy is kept only if it was not given up
 * by the time the copy ended.
 */
static const struct stall_table *stall_snapshot_table(const struct i915_stall_rings *rings,
						      const struct i915_stall_ring *ring,
						      const struct stall_table_ref *ref,
						      struct stall_scratch *x)
{
	struct stall_table *t = x->table;
	const struct stall_table *src;

	if (!ref->id || ref->size > stall_table_size(STALL_TABLE_MAPS) ||
	    ref->off > rings->table_bytes - ref->size)
		return NULL;
	if (t->id == ref->id)
		return t;

	src = stall_table_at(rings, ring, ref->off);
	/* data race ok: the copy is kept only if the table was not given up */
	data_race(memcpy(t, src, offsetof(struct stall_table, key)));
	if (t->id != ref->id || stall_table_size(t->count) != ref->size) {
		t->id = 0;
		return NULL;
	}
	/* data race ok: as above */
	data_race(memcpy(t->maps, src->maps, t->count * sizeof(*t->maps)));
	smp_rmb(); /* LMM(stall_snapshot_table:A) */
	if (READ_ONCE(ring->tables_gone) >= ref->id) {
		t->id = 0;
		return NULL;
	}
	return t;
}

/*
 * Copy the committed records of one ring below @head into @out, oldest
 * first, in the layout of the file, with the maps of each filled from the
 * table of its address space; and account for every record the CPU wrote
 * since the last clear.  Returns the number of records copied, at most
 * @head less the base, capped at the ring's size.
 */
static u32 stall_snapshot_cpu(const struct i915_stall_rings *rings,
			      const struct i915_stall_ring *ring, u64 head,
			      struct i915_stall_cpu_entry *e, u8 *out,
			      struct stall_scratch *x)
{
	const u32 stride = stall_stride(rings->ustack_bytes);
	u64 base = READ_ONCE(ring->base);
	u64 first = head - min_t(u64, head - base, rings->slots);
	u32 emitted = 0;
	u64 n;

	e->recorded = head - base;
	e->overwritten = first - base;

	for (n = first; n < head; n++) {
		const struct i915_stall_record *slot = stall_ring_slot(rings, ring, n);
		struct i915_stall_record *rec;
		struct stall_table_ref ref;
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
		data_race(memcpy(stall_rec_ustack(rec), stall_slot_ustack((void *)slot),
				 rings->ustack_bytes));
		/* data race ok: as above */
		ref = data_race(*stall_slot_table((void *)slot));
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
		x->refs[emitted++] = ref;
	}

	/*
	 * The maps, from the table each record names, which was complete
	 * before the record was committed.  A table given up since leaves
	 * the record's frames unnamed, for lack of room.
	 */
	x->table->id = 0;
	for (n = 0; n < emitted; n++) {
		struct i915_stall_record *rec;
		const struct stall_table *t;

		/* Its maps are still as kvzalloc() left them: zeroes. */
		rec = (struct i915_stall_record *)(out + (size_t)n * stride);
		if (!x->refs[n].id)
			continue;	/* the writer said per frame why */
		t = stall_snapshot_table(rings, ring, &x->refs[n], x);
		if (t) {
			stall_rec_fill_maps(rec, t, x->idx);
		} else {
			rec->flags |= I915_STALL_F_MAPS_FULL;
			memset(rec->ustack_map, I915_STALL_FRAME_FULL, rec->ustack_depth);
		}
	}
	e->emitted = emitted;
	return emitted;
}

static void stall_snapshot_header(const struct i915_stall_log *log,
				  struct i915_stall_file_header *h,
				  const struct i915_stall_rings *rings)
{
	struct drm_i915_private *i915 = log->i915;

	memcpy(h->magic, I915_STALL_MAGIC, I915_STALL_MAGIC_LEN);
	h->version_major = I915_STALL_VERSION_MAJOR;
	h->version_minor = I915_STALL_VERSION_MINOR;
	h->header_size = sizeof(*h);
	h->record_size = stall_stride(rings ? rings->ustack_bytes : log->ustack_bytes);
	h->cpu_entry_size = sizeof(struct i915_stall_cpu_entry);
	h->cpu_count = nr_cpu_ids;
	h->clock_id = CLOCK_MONOTONIC;
	h->cpu_table_offset = sizeof(*h);
	h->records_offset = sizeof(*h) +
			    nr_cpu_ids * sizeof(struct i915_stall_cpu_entry);
	h->snapshot_ns = ktime_get_ns();
	h->realtime_offset_ns = ktime_get_real_ns() - h->snapshot_ns;
	h->threshold_ns = log->threshold_ns;
	h->slots_per_cpu = rings ? rings->slots : 0;
	h->flags = log->enabled ? I915_STALL_H_ENABLED : 0;
	h->kstack_max = I915_STALL_KSTACK_MAX;
	h->ustack_max = I915_STALL_USTACK_MAX;
	h->drm_minor = i915 && i915->drm.primary ? i915->drm.primary->index : 0;
	h->kernel_anchor_addr = (unsigned long)stack_trace_save;
	h->i915_anchor_addr = (unsigned long)i915_stall_record;
	strscpy(h->kernel_anchor, "stack_trace_save");
	strscpy(h->i915_anchor, "i915_stall_record");
	if (i915)
		strscpy(h->device, dev_name(i915->drm.dev));
	strscpy(h->release, init_utsname()->release);
	h->unattributed = atomic64_read(&stall_unattributed);
	h->map_max = STALL_MAP_MAX;
	h->ustack_snapshot_max = rings ? rings->ustack_bytes : log->ustack_bytes;
	h->maps_offset = STALL_MAPS_OFFSET;
	h->ustack_offset = STALL_USTACK_OFFSET;
#ifdef MODULE
	h->flags |= I915_STALL_H_I915_MODULE;
	h->i915_text_base = (unsigned long)THIS_MODULE->mem[MOD_TEXT].base;
	h->i915_text_size = THIS_MODULE->mem[MOD_TEXT].size;
#endif
}

/*
 * The snapshot is sized for the records present when it starts, not for
 * full rings: the head of each ring is read once, first, and records
 * committed after that are left for the next snapshot.
 */
static struct stall_snapshot *stall_snapshot_take(struct i915_stall_log *log)
{
	struct stall_snapshot *snap = NULL;
	struct i915_stall_cpu_entry *cpus;
	struct i915_stall_file_header *h;
	struct stall_scratch *scratch = NULL;
	struct i915_stall_rings *rings;
	unsigned int cpu;
	u64 *heads = NULL;
	u64 count = 0;
	size_t size;
	u32 stride;
	u32 slots;
	u8 *recs;

	mutex_lock(&log->lock);
	rings = rcu_dereference_protected(log->rings, lockdep_is_held(&log->lock));
	slots = rings ? rings->slots : 0;
	stride = stall_stride(rings ? rings->ustack_bytes : log->ustack_bytes);

	if (rings) {
		heads = kcalloc(nr_cpu_ids, sizeof(*heads), GFP_KERNEL);
		scratch = stall_scratch_alloc(slots);
		if (!heads || !scratch)
			goto out;
		for_each_possible_cpu(cpu) {
			const struct i915_stall_ring *ring = rings->ring[cpu];

			/* LMM(stall_snapshot_take:A) */
			heads[cpu] = smp_load_acquire(&ring->head);
			count += min_t(u64, heads[cpu] - READ_ONCE(ring->base), slots);
		}
	}

	/* stall_slots_fit() keeps this in range; a WARN here is a bug. */
	size = stall_snapshot_bytes(count, nr_cpu_ids, stride);
	if (WARN_ON_ONCE(!size))
		goto out;
	snap = kvzalloc(struct_size(snap, data, size), GFP_KERNEL | __GFP_NOWARN);
	if (!snap)
		goto out;

	h = (struct i915_stall_file_header *)snap->data;
	cpus = (struct i915_stall_cpu_entry *)(snap->data + sizeof(*h));
	recs = (u8 *)(cpus + nr_cpu_ids);
	stall_snapshot_header(log, h, rings);

	count = 0;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct i915_stall_cpu_entry *e = &cpus[cpu];

		e->cpu = cpu;
		if (!cpu_possible(cpu))
			continue;
		e->flags = I915_STALL_CPU_POSSIBLE;
		if (cpu_online(cpu))
			e->flags |= I915_STALL_CPU_ONLINE;
		/* data race ok: a statistic, exact once writers are quiet */
		e->dropped = data_race(*per_cpu_ptr(log->dropped, cpu)) -
			     *per_cpu_ptr(log->dropped_base, cpu);
		if (rings)
			count += stall_snapshot_cpu(rings, rings->ring[cpu], heads[cpu], e,
						    recs + count * stride, scratch);
	}

	h->record_count = count;
	snap->size = h->records_offset + count * stride;
out:
	mutex_unlock(&log->lock);
	stall_scratch_free(scratch);
	kfree(heads);
	return snap;
}

static int stall_snapshot_open(struct inode *inode, struct file *file)
{
	struct stall_snapshot *snap;

	snap = stall_snapshot_take(inode->i_private);
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

static const struct file_operations stall_snapshot_fops = {
	.owner = THIS_MODULE,
	.open = stall_snapshot_open,
	.read = stall_snapshot_read,
	.llseek = stall_snapshot_llseek,
	.release = stall_snapshot_release,
};

static int stall_enable_get(void *data, u64 *val)
{
	struct i915_stall_log *log = data;

	*val = READ_ONCE(log->enabled);
	return 0;
}

static int stall_enable_set(void *data, u64 val)
{
	struct i915_stall_log *log = data;
	int err;

	if (val > 1)
		return -EINVAL;

	mutex_lock(&log->lock);
	err = stall_log_enable(log, val);
	mutex_unlock(&log->lock);
	return err;
}

DEFINE_DEBUGFS_ATTRIBUTE(stall_enable_fops, stall_enable_get, stall_enable_set,
			 "%llu\n");

static int stall_threshold_get(void *data, u64 *val)
{
	struct i915_stall_log *log = data;

	*val = div_u64(READ_ONCE(log->threshold_ns), NSEC_PER_USEC);
	return 0;
}

static int stall_threshold_set(void *data, u64 val)
{
	struct i915_stall_log *log = data;

	if (val > div_u64(U64_MAX, NSEC_PER_USEC))
		return -EINVAL;

	/* Pairs with the READ_ONCE() in i915_stall_record(). */
	WRITE_ONCE(log->threshold_ns, val * NSEC_PER_USEC);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(stall_threshold_fops, stall_threshold_get,
			 stall_threshold_set, "%llu\n");

static int stall_clear_set(void *data, u64 val)
{
	struct i915_stall_log *log = data;

	if (val != 1)
		return -EINVAL;

	mutex_lock(&log->lock);
	stall_log_clear(log);
	mutex_unlock(&log->lock);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(stall_clear_fops, NULL, stall_clear_set, "%llu\n");

static int stall_slots_get(void *data, u64 *val)
{
	struct i915_stall_log *log = data;

	*val = READ_ONCE(log->slots);
	return 0;
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

/* Set the ring size and the snapshot size; the rings now, if there are any. */
static int stall_log_set_size(struct i915_stall_log *log, u64 slots, u64 ustack_bytes)
{
	lockdep_assert_held(&log->lock);

	if (!stall_size_valid(slots, ustack_bytes))
		return -EINVAL;
	if (rcu_access_pointer(log->rings))
		return stall_log_resize(log, slots, ustack_bytes);
	log->slots = slots;
	log->ustack_bytes = ustack_bytes;
	return 0;
}

static int stall_slots_set(void *data, u64 val)
{
	struct i915_stall_log *log = data;
	int err;

	mutex_lock(&log->lock);
	err = stall_log_set_size(log, val, log->ustack_bytes);
	mutex_unlock(&log->lock);
	return err;
}

DEFINE_DEBUGFS_ATTRIBUTE(stall_slots_fops, stall_slots_get, stall_slots_set,
			 "%llu\n");

static int stall_ustack_bytes_get(void *data, u64 *val)
{
	struct i915_stall_log *log = data;

	*val = READ_ONCE(log->ustack_bytes);
	return 0;
}

static int stall_ustack_bytes_set(void *data, u64 val)
{
	struct i915_stall_log *log = data;
	int err;

	mutex_lock(&log->lock);
	err = stall_log_set_size(log, log->slots, val);
	mutex_unlock(&log->lock);
	return err;
}

DEFINE_DEBUGFS_ATTRIBUTE(stall_ustack_bytes_fops, stall_ustack_bytes_get,
			 stall_ustack_bytes_set, "%llu\n");

/*
 * Boot and module parameters, applied to each device's log when it is
 * created: they switch the log on where debugfs refuses writes (lockdown),
 * and from the first wait of the probe on.
 */
static bool stall_param_enable;
module_param_named(stall_log, stall_param_enable, bool, 0400);
MODULE_PARM_DESC(stall_log,
		 "Enable the stall log of each device at probe (default: false)");

static uint stall_param_threshold_us = 1000;
module_param_named(stall_log_threshold_us, stall_param_threshold_us, uint, 0400);
MODULE_PARM_DESC(stall_log_threshold_us,
		 "Record waits at least this long, in microseconds (default: 1000)");

static uint stall_param_slots;
module_param_named(stall_log_slots, stall_param_slots, uint, 0400);
MODULE_PARM_DESC(stall_log_slots,
		 "Records per CPU ring, a power of two from 16 to 16384 (default: 0, sized by the number of CPUs)");

static int stall_param_ustack_bytes = -1;
module_param_named(stall_log_ustack_bytes, stall_param_ustack_bytes, int, 0400);
MODULE_PARM_DESC(stall_log_ustack_bytes,
		 "Bytes of user stack saved per stall, a multiple of 8 up to 16384 (default: -1, 2048)");

/*
 * Set up a new log as the parameters say; @slots 0 and @ustack_bytes -1
 * keep the defaults.  Returns 0, -EINVAL for a bad @slots or @ustack_bytes
 * (then nothing is applied) or -ENOMEM if the rings could not be allocated
 * (then the log stays off).
 */
static int stall_log_apply_params(struct i915_stall_log *log, bool enable,
				  u32 threshold_us, u32 slots, int ustack_bytes)
{
	u64 ub = ustack_bytes < 0 ? log->ustack_bytes : ustack_bytes;
	int err = 0;

	if (!stall_size_valid(slots ?: log->slots, ub))
		return -EINVAL;

	mutex_lock(&log->lock);
	WRITE_ONCE(log->threshold_ns, (u64)threshold_us * NSEC_PER_USEC);
	if (slots)
		log->slots = slots;
	log->ustack_bytes = ub;
	if (enable)
		err = stall_log_enable(log, true);
	mutex_unlock(&log->lock);
	return err;
}

/**
 * i915_stall_init - create the stall log of a device
 * @i915: the device
 *
 * The log starts as the i915.stall_log parameters say, by default disabled;
 * it allocates its rings on first enable.  Bad parameters are reported and
 * leave the log at its defaults; they do not fail the probe.
 *
 * Context: Process context.
 * Return: 0 or -ENOMEM.
 */
int i915_stall_init(struct drm_i915_private *i915)
{
	struct i915_stall_log *log = stall_log_create(i915);
	int err;

	if (!log)
		return -ENOMEM;
	RCU_INIT_POINTER(i915->stall_log, log);

	err = stall_log_apply_params(log, stall_param_enable, stall_param_threshold_us,
				     stall_param_slots, stall_param_ustack_bytes);
	if (err)
		drm_warn(&i915->drm, "stall log: parameters not applied: %pe\n",
			 ERR_PTR(err));
	return 0;
}

/**
 * i915_stall_debugfs_register - create the stall log's debugfs files
 * @i915: the device
 * @root: the device's debugfs directory, dri/N
 *
 * Creates i915_stalls, the binary snapshot, and the control files
 * i915_stalls_enable, i915_stalls_threshold_us, i915_stalls_slots,
 * i915_stalls_ustack_bytes and i915_stalls_clear.
 *
 * The snapshot holds raw kernel addresses (the kernel stacks, the callers
 * and two anchors that undo KASLR), which the reader needs to symbolize
 * offline.  They do not follow kptr_restrict, which governs %pK in text
 * and has no helper a module may call: like a raw perf or BPF stack trace,
 * they are for root alone.  The file is 0400 in debugfs, which only root
 * mounts and reads; being read-only, it stays readable under lockdown,
 * where the control files do not (see the i915.stall_log parameters).
 *
 * Context: Process context.
 */
void i915_stall_debugfs_register(struct drm_i915_private *i915,
				 struct dentry *root)
{
	/* Registered after i915_stall_init(), removed before i915_stall_fini(). */
	struct i915_stall_log *log = rcu_dereference_protected(i915->stall_log, true);

	if (!log)
		return;

	debugfs_create_file("i915_stalls", 0400, root, log, &stall_snapshot_fops);
	debugfs_create_file_unsafe("i915_stalls_enable", 0600, root, log,
				   &stall_enable_fops);
	debugfs_create_file_unsafe("i915_stalls_threshold_us", 0600, root, log,
				   &stall_threshold_fops);
	debugfs_create_file_unsafe("i915_stalls_slots", 0600, root, log,
				   &stall_slots_fops);
	debugfs_create_file_unsafe("i915_stalls_ustack_bytes", 0600, root, log,
				   &stall_ustack_bytes_fops);
	debugfs_create_file_unsafe("i915_stalls_clear", 0200, root, log,
				   &stall_clear_fops);
}

#if IS_ENABLED(CONFIG_DRM_I915_STALL_LOG_KUNIT_TEST)
#include "tests/i915_stall_kunit.c"
#endif
