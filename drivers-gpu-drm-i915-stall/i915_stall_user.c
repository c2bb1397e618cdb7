// SPDX-License-Identifier: MIT
/*
 * Copyright © 2026 The i915 stall log authors
 */

/**
 * DOC: i915 stall log user frames
 *
 * The user call chain is walked through frame pointers.  That misses the
 * caller of a frameless function, such as the glibc wrapper that made the
 * system call, and stops in code built without frame pointers, as most
 * distribution libraries are.  So a record also saves what a CFI unwinder
 * needs, as perf record --call-graph=dwarf does: the user ip, sp and bp and
 * the stack from sp up, copied with page faults disabled, up to the end
 * of the mapping sp is in, and not from a mapping of device memory
 * (VM_IO, VM_PFNMAP).  The mapping is looked up under mmap_read_trylock(),
 * which never waits: if the lock is taken, the record has no stack bytes
 * (F_USTACK_NOLOCK).  A task whose address space is not dumpable
 * (prctl(PR_SET_DUMPABLE), set-user-ID programs) gives no stack bytes and
 * no registers, as it would give no core dump (F_USTACK_NODUMP): its
 * record keeps the frame-pointer chain, the return addresses a perf
 * record -g would take.
 *
 * Since the task may have exited by the time the log is read, the log
 * also keeps the identity of the code the frames are in: for each version
 * of the executable mappings of a process image, a table of them with
 * their range, file offset, build-id and path (struct stall_version).  No
 * part of that is done in the wait, which may hold locks (the mmap lock in
 * a fault, reservation locks) or run in direct reclaim, nor with
 * preemption disabled.  A record names the version its stall saw when
 * the writer knows it: each CPU remembers the version it last heard of
 * for a few address spaces, with the mm_lock_seq it was read at, and if
 * the count has not moved since (no mapping was made, removed or changed)
 * a record costs a comparison.  Otherwise the record asks for it, and a
 * worker reads the executable mappings later, under mmap_read_lock(), with
 * a reference on the address space that keeps its mappings even after the
 * task exits.  A worker finds a version still true without a walk of the
 * VMAs when the count of executable pages (exec_vm) is as it was and each
 * of the version's mappings is still there, unchanged (one lookup each): a
 * buffer mapped or unmapped, the heap grown, cost that, not a walk of
 * thousands of VMAs.  A new executable mapping that is writable too (so
 * not in exec_vm) is not seen that way until the next other change.  File
 * identities are remembered by inode, number, generation, device and
 * times: a file is read once while it stays the same, and never named by
 * an old build-id once replaced or rewritten.
 *
 * A record that asked is named at the snapshot by its time: by the version
 * true at that time, or, if the mappings changed between the last reading
 * before the stall and the first after it, by what both readings agree on
 * (a frame in a mapping that changed there is I915_STALL_FRAME_CHANGED).
 * mm_lock_seq is 32 bits wide and may wrap: a CPU believes a version
 * named by it for a second at most, far less than 2^31 changes take.
 *
 * Without CONFIG_PER_VMA_LOCK there is no such count: every record asks,
 * and the worker checks the version each time.
 *
 * The snapshot gives each record the mappings of its version that its
 * frames and the aligned words of its stack point into (CFI finds the
 * return addresses the frame-pointer walk skipped among those words), and
 * says per frame which, or why none (I915_STALL_FRAME_*).
 */

#include <linux/buildid.h>
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/unaligned.h>
#include <linux/workqueue.h>

#include "i915_stall_format.h"
#include "i915_stall_log.h"

/* Address spaces a CPU remembers the version of. */
#define STALL_AS_WAYS		8
/* How long a CPU believes a version named by an unchanged mm_lock_seq. */
#define STALL_AS_FRESH		HZ
/* Jiffies a request waits for others to be served with it. */
#define STALL_IDENT_DELAY	1
/* Executable mappings a version holds, at most. */
#define STALL_TABLE_MAPS	128
/* VMAs one reading walks at most. */
#define STALL_WALK_MAX		8192
/* Files whose build-id a log remembers, in sets of STALL_FILE_WAYS by inode. */
#define STALL_FILE_CACHE	256
#define STALL_FILE_WAYS		4
/* struct i915_stall_map.flags in a version only: anonymous executable memory */
#define STALL_MAP_ANON		0x80
/* struct stall_version.flags: not every executable mapping is in it */
#define STALL_VERSION_FULL	0x1	/* more than STALL_TABLE_MAPS of them */
#define STALL_VERSION_CUT	0x2	/* more VMAs than STALL_WALK_MAX */
/* The flags of a VMA a version's mapping must keep. */
#define STALL_VM_FLAGS		(VM_READ | VM_WRITE | VM_EXEC | VM_MAYSHARE | \
				 VM_GROWSDOWN | VM_GROWSUP)

/**
 * struct stall_file_id - what names a file
 * @inode: the file's inode, compared, never dereferenced from here
 * @ino: its inode number
 * @dev: its device
 * @gen: its generation (i_generation): an inode number used again
 * @mtime: its modification time when it was read
 * @ctime: its change time when it was read
 */
struct stall_file_id {
	const struct inode *inode;
	u64 ino;
	dev_t dev;
	u32 gen;
	struct timespec64 mtime;
	struct timespec64 ctime;
};

/**
 * struct stall_file - the build-id of a file, remembered by a log
 * @id: the file
 * @build_id: its GNU build-id
 * @build_id_size: bytes of @build_id, 0 if it has none
 */
struct stall_file {
	struct stall_file_id id;
	u8 build_id[I915_STALL_BUILD_ID_LEN];
	u8 build_id_size;
};

/**
 * struct stall_map_src - what a mapping of a version was read from
 * @file: the file mapped, @file.inode NULL if anonymous
 * @pgoff: the mapping's vm_pgoff
 * @vm_flags: its STALL_VM_FLAGS
 */
struct stall_map_src {
	struct stall_file_id file;
	unsigned long pgoff;
	unsigned long vm_flags;
};

struct stall_as;

/**
 * struct stall_version - the executable mappings of a process image, as
 *	they were from @t_lo to @t_hi
 * @node: in the log's hash of versions by @id
 * @as_link: in @as's list, oldest first
 * @link: in the log's list of versions, oldest first
 * @as: the process image
 * @id: the version's number in its log, from 1
 * @t_lo: ktime_get_ns() of the first reading that found it
 * @t_hi: and of the last one
 * @seq: the mm_lock_seq of the last reading, if @seq_ok
 * @seq_ok: @seq is known (CONFIG_PER_VMA_LOCK)
 * @exec_vm: the address space's exec_vm then
 * @bytes: memory it takes
 * @count: entries of @maps and @src
 * @flags: STALL_VERSION_*
 * @src: per mapping, what it was read from
 * @maps: every executable mapping, sorted by address; anonymous ones
 *	(JIT code, the vDSO) have STALL_MAP_ANON and no file
 */
struct stall_version {
	struct hlist_node node;
	struct list_head as_link;
	struct list_head link;
	struct stall_as *as;
	u64 id;
	u64 t_lo;
	u64 t_hi;
	u32 seq;
	bool seq_ok;
	unsigned long exec_vm;
	size_t bytes;
	u32 count;
	u32 flags;
	struct stall_map_src *src;
	struct i915_stall_map maps[];
};

/**
 * struct stall_as - a process image the log has versions of
 * @node: in the log's hash by @key
 * @key: the image
 * @versions: its versions, oldest first
 */
struct stall_as {
	struct hlist_node node;
	struct stall_as_key key;
	struct list_head versions;
};

/**
 * struct stall_as_entry - what a CPU knows of an address space
 * @key: the image; @key.mm NULL if the entry is free
 * @version: the version read at @seq, 0 if none is known
 * @stamp: jiffies when @version was read
 * @used: jiffies when a record last named it
 * @seq: mm_lock_seq when @version was read, if @seq_ok
 * @gen: records that asked since the entry last got a version
 * @mm: the address space, held with mmget() while @pending
 * @seq_ok: @seq is known
 * @pending: a record asked for the version; the worker will read it
 */
struct stall_as_entry {
	struct stall_as_key key;
	u64 version;
	unsigned long stamp;
	unsigned long used;
	u32 seq;
	u32 gen;
	struct mm_struct *mm;
	bool seq_ok;
	bool pending;
};

/**
 * struct stall_ident_cpu - the address spaces a CPU recorded stalls of
 * @lock: taken by the CPU's writers, preemption disabled, and the worker
 * @as: the entries
 */
struct stall_ident_cpu {
	raw_spinlock_t lock; /* the entries, against the worker */
	struct stall_as_entry as[STALL_AS_WAYS];
};

/**
 * struct stall_ident - the identity of the user code of a log's records
 * @cpu: per CPU, the address spaces it knows
 * @work: reads the versions records asked for
 * @work_lock: one reading at a time: the worker's or a snapshot's
 * @lock: the versions, the address spaces and the files
 * @as_hash: address spaces by key
 * @ver_hash: versions by id
 * @versions: every version, oldest first
 * @bytes: memory the versions take
 * @budget: at most this, but for the newest version
 * @next_version: the id of the last version made
 * @next_file: which entry of a set of @files a new file takes
 * @files: build-ids of files lately read
 * @scratch_maps: a reading's maps, before they go in a version
 * @scratch_src: and what they were read from
 * @idx: see stall_rec_add()
 */
struct stall_ident {
	struct stall_ident_cpu __percpu *cpu;
	struct delayed_work work;
	struct mutex work_lock; /* one reading at a time */
	struct mutex lock; /* the store: versions, address spaces, files */
	DECLARE_HASHTABLE(as_hash, 6);
	DECLARE_HASHTABLE(ver_hash, 7);
	struct list_head versions;
	size_t bytes;
	size_t budget;
	u64 next_version;
	u32 next_file;
	struct stall_file files[STALL_FILE_CACHE];
	struct i915_stall_map scratch_maps[STALL_TABLE_MAPS];
	struct stall_map_src scratch_src[STALL_TABLE_MAPS];
	u8 idx[STALL_TABLE_MAPS];
};

/*
 * Capture at the stall: the user call chain, the registers, the stack
 * snapshot and whose they are.
 */

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

/*
 * How many bytes of stack from @sp up may be copied, at most @max: up to
 * the end of the mapping @sp is in, if it is readable and not device
 * memory, whose reads may have side effects.  0 and F_USTACK_NOLOCK in
 * *@flags if the mmap lock was taken: a record never waits for it.
 */
static u32 stall_ustack_room(struct mm_struct *mm, unsigned long sp, u32 max, u16 *flags)
{
	struct vm_area_struct *vma;
	u32 room = 0;

	if (!mmap_read_trylock(mm)) {
		*flags |= I915_STALL_F_USTACK_NOLOCK;
		return 0;
	}
	vma = vma_lookup(mm, sp);
	if (vma && (vma->vm_flags & VM_READ) && !(vma->vm_flags & (VM_IO | VM_PFNMAP)))
		room = min_t(unsigned long, max, vma->vm_end - sp);
	mmap_read_unlock(mm);
	return room;
}

/* The image of the current process, and its mm_lock_seq if known. */
static bool stall_as_key_now(struct mm_struct *mm, struct stall_as_key *key, u32 *seq)
{
	struct task_struct *tsk = current;

	key->mm = mm;
	key->start_time = tsk->group_leader->start_time;
	key->exec_id = tsk->self_exec_id;
	key->tgid = tsk->tgid;
#ifdef CONFIG_PER_VMA_LOCK
	/* data race ok: compared only, and an odd count is never believed */
	*seq = data_race(READ_ONCE(mm->mm_lock_seq.sequence));
	return !(*seq & 1);
#else
	*seq = 0;
	return false;
#endif
}

/*
 * The frame-pointer chain of the current task, which entered the kernel
 * with @regs, into @s->ustack, and in @ref whose it is.
 */
static void stall_capture_frames(struct i915_stall_record *s, struct stall_ident_ref *ref,
				 struct pt_regs *regs)
{
	unsigned int n;

	if (!user_64bit_mode(regs)) {
		s->flags |= I915_STALL_F_COMPAT;
#if IS_ENABLED(CONFIG_IA32_EMULATION)
		n = stall_save_user32(regs, s->ustack, ARRAY_SIZE(s->ustack));
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

	ref->flags = STALL_REF_USER;
	if (stall_as_key_now(current->mm, &ref->key, &ref->seq))
		ref->flags |= STALL_REF_SEQ;
	ref->when = ktime_get_ns();
}

/*
 * The user part of record @s of the current task, which entered the kernel
 * with @regs: @s->ustack, the registers and up to @ustack_bytes of stack
 * from sp up into @ustack (with @ustack NULL, only how many bytes, in
 * @s->ustack_size), and in @ref whose they are, for stall_ident_name().
 * Of a task whose address space is not dumpable, the frames only.
 */
static void stall_capture_user(struct i915_stall_record *s, u8 *ustack, u32 ustack_bytes,
			       struct stall_ident_ref *ref, struct pt_regs *regs)
{
	struct mm_struct *mm = current->mm;
	u32 room;

	stall_capture_frames(s, ref, regs);

	/* As a core dump would: nothing of the stack of an undumpable task. */
	if (get_dumpable(mm) != SUID_DUMP_USER) {
		s->flags |= I915_STALL_F_USTACK_NODUMP;
		return;
	}

	/* What a CFI unwinder needs: the registers and the stack above sp. */
	s->user_ip = regs->ip;
	s->user_sp = regs->sp;
	s->user_bp = regs->bp;
	s->flags |= I915_STALL_F_USER_REGS;
	room = stall_ustack_room(mm, regs->sp, ustack_bytes, &s->flags);
	s->ustack_size = ustack ? stall_copy_ustack(ustack, regs->sp, room) : room;
}

/*
 * Whether the current task has a user stack to capture, with @ref cleared.
 * Kernel threads and user workers have none (F_KTHREAD in @s); a task
 * that is exiting may have no address space left.
 */
static bool stall_has_user(struct i915_stall_record *s, struct stall_ident_ref *ref)
{
	memset(ref, 0, sizeof(*ref));
	if (current->flags & (PF_KTHREAD | PF_USER_WORKER)) {
		s->flags |= I915_STALL_F_KTHREAD;
		return false;
	}
	return current->mm;
}

/**
 * stall_fill_user - capture the user part of a record
 * @s: the record, zeroed past its sequence number
 * @ustack: where its stack snapshot goes, or NULL to copy it later with
 *	stall_copy_user_stack()
 * @ustack_bytes: room there
 * @ref: where it says whose stack it is
 *
 * Kernel threads and user workers have no user stack (F_KTHREAD).  The
 * mode of the user code that entered the kernel decides the walk, not the
 * system call: a 32-bit task may stall in a page fault, and an x32 task
 * runs 64-bit code with 64-bit frames.
 *
 * Context: Process context; preemption may be disabled.  Never sleeps.
 */
void stall_fill_user(struct i915_stall_record *s, u8 *ustack, u32 ustack_bytes,
		     struct stall_ident_ref *ref)
{
	if (stall_has_user(s, ref))
		stall_capture_user(s, ustack, ustack_bytes, ref, task_pt_regs(current));
}

/**
 * stall_copy_user_stack - copy the stack snapshot stall_fill_user() left
 * @s: a record of the current task, made by stall_fill_user() with no
 *	snapshot: @s->ustack_size bytes from @s->user_sp are to be copied
 * @ustack: where they go, room for @s->ustack_size bytes
 *
 * The copy that stall_fill_user() would have made, bounded as it was to
 * the stack's mapping and to the room it was given; @s->ustack_size is
 * then the bytes copied, fewer if a page is no longer resident.
 *
 * Context: Process context, in the task of stall_fill_user(); preemption
 * may be disabled.  Never sleeps.
 */
void stall_copy_user_stack(struct i915_stall_record *s, u8 *ustack)
{
	if (s->ustack_size)
		s->ustack_size = stall_copy_ustack(ustack, s->user_sp, s->ustack_size);
}

/**
 * stall_fill_user_frames - capture the user call chain of a submit record
 * @s: the record, zeroed past its sequence number
 * @ref: where it says whose stack it is
 *
 * As stall_fill_user(), without the registers and the stack bytes: the
 * frame-pointer chain and what names its code.
 *
 * Context: Process context; preemption may be disabled.  Never sleeps.
 */
void stall_fill_user_frames(struct i915_stall_record *s, struct stall_ident_ref *ref)
{
	if (stall_has_user(s, ref))
		stall_capture_frames(s, ref, task_pt_regs(current));
}

/*
 * Naming the version of a record, with preemption disabled.
 */

static bool stall_as_key_equal(const struct stall_as_key *a, const struct stall_as_key *b)
{
	return a->mm == b->mm && a->tgid == b->tgid &&
	       a->start_time == b->start_time && a->exec_id == b->exec_id;
}

/* The entry of @c for @key, or NULL. */
static struct stall_as_entry *stall_as_entry_find(struct stall_ident_cpu *c,
						  const struct stall_as_key *key)
{
	unsigned int i;

	for (i = 0; i < STALL_AS_WAYS; i++) {
		struct stall_as_entry *e = &c->as[i];

		if (e->key.mm && stall_as_key_equal(&e->key, key))
			return e;
	}
	return NULL;
}

/* A free entry of @c, or the one named longest ago that no request holds. */
static struct stall_as_entry *stall_as_entry_victim(struct stall_ident_cpu *c)
{
	struct stall_as_entry *victim = NULL;
	unsigned int i;

	for (i = 0; i < STALL_AS_WAYS; i++) {
		struct stall_as_entry *e = &c->as[i];

		if (!e->key.mm)
			return e;
		if (!e->pending && (!victim || time_before(e->used, victim->used)))
			victim = e;
	}
	return victim;
}

/*
 * Whether @e names the version of the stall of @ref: read at the same
 * mm_lock_seq, and lately enough that the count cannot have wrapped.
 */
static bool stall_as_entry_holds(const struct stall_as_entry *e,
				 const struct stall_ident_ref *ref)
{
	return e->version && e->seq_ok && (ref->flags & STALL_REF_SEQ) &&
	       e->seq == ref->seq && time_before(jiffies, e->stamp + STALL_AS_FRESH);
}

/**
 * stall_ident_name - name the version of a record's user code
 * @id: the log's identity
 * @ref: the record's reference, from stall_fill_user()
 *
 * Names the version this CPU knows of, if the address space did not
 * change since it was read; otherwise asks the worker to read it and
 * leaves @ref->version 0, for the snapshot to find by time.  With no
 * entry free, names none (STALL_REF_BUSY).
 *
 * Context: preemption disabled, the current task the record's.
 */
void stall_ident_name(struct stall_ident *id, struct stall_ident_ref *ref)
{
	struct stall_ident_cpu *c;
	struct stall_as_entry *e;
	bool kick = false;

	if (!(ref->flags & STALL_REF_USER))
		return;

	c = this_cpu_ptr(id->cpu);
	raw_spin_lock(&c->lock);
	e = stall_as_entry_find(c, &ref->key);
	if (e && stall_as_entry_holds(e, ref)) {
		ref->version = e->version;
		e->used = jiffies;
		goto out;
	}
	if (!e) {
		e = stall_as_entry_victim(c);
		if (!e) {
			ref->flags |= STALL_REF_BUSY;
			goto out;
		}
		memset(e, 0, sizeof(*e));
		e->key = ref->key;
	}
	e->version = 0;
	e->used = jiffies;
	e->gen++;
	if (!e->pending) {
		/* The record's task is current: its mm has users. */
		mmget(current->mm);
		e->mm = current->mm;
		e->pending = true;
		kick = true;
	}
out:
	raw_spin_unlock(&c->lock);
	if (kick)
		queue_delayed_work(system_unbound_wq, &id->work, STALL_IDENT_DELAY);
}

/*
 * The store: files, versions and address spaces, under @id->lock.
 */

static void stall_inode_times(const struct inode *inode, struct timespec64 *mtime,
			      struct timespec64 *ctime)
{
	/* data race ok: a torn time makes the file look changed, nothing else */
	*mtime = data_race(inode_get_mtime(inode));
	/* data race ok: as above */
	*ctime = data_race(inode_get_ctime(inode));
}

static void stall_file_id_get(struct stall_file_id *id, const struct inode *inode)
{
	id->inode = inode;
	id->ino = inode->i_ino;
	id->dev = inode->i_sb->s_dev;
	id->gen = inode->i_generation;
	stall_inode_times(inode, &id->mtime, &id->ctime);
}

/* Whether @id names @inode as it is now. */
static bool stall_file_id_match(const struct stall_file_id *id, const struct inode *inode)
{
	struct stall_file_id now;

	if (id->inode != inode)
		return false;
	stall_file_id_get(&now, inode);
	return id->ino == now.ino && id->dev == now.dev && id->gen == now.gen &&
	       timespec64_equal(&id->mtime, &now.mtime) &&
	       timespec64_equal(&id->ctime, &now.ctime);
}

static struct stall_file *stall_file_set(struct stall_ident *id, const struct inode *inode)
{
	return &id->files[hash_ptr(inode, ilog2(STALL_FILE_CACHE / STALL_FILE_WAYS)) *
			  STALL_FILE_WAYS];
}

/*
 * The build-id of the file of @vma into @map: remembered, or read, from
 * the page cache or the disk, and remembered.
 * Context: the VMA's mmap lock held; may sleep.
 */
static void stall_map_build_id(struct stall_ident *id, struct i915_stall_map *map,
			       struct vm_area_struct *vma)
{
	const struct inode *inode = file_inode(vma->vm_file);
	struct stall_file *set, *f;
	unsigned int i;
	__u32 size;
	u8 bid[BUILD_ID_SIZE_MAX];

	BUILD_BUG_ON(sizeof(map->build_id) < BUILD_ID_SIZE_MAX);

	mutex_lock(&id->lock);
	set = stall_file_set(id, inode);
	for (i = 0; i < STALL_FILE_WAYS; i++) {
		f = &set[i];
		if (!stall_file_id_match(&f->id, inode))
			continue;
		memcpy(map->build_id, f->build_id, sizeof(map->build_id));
		map->build_id_size = f->build_id_size;
		if (f->build_id_size)
			map->flags |= I915_STALL_MAP_BUILD_ID;
		mutex_unlock(&id->lock);
		return;
	}
	mutex_unlock(&id->lock);

	memset(bid, 0, sizeof(bid));
	if (build_id_parse(vma, bid, &size) || size > sizeof(map->build_id))
		size = 0;

	mutex_lock(&id->lock);
	f = &set[id->next_file++ % STALL_FILE_WAYS];
	stall_file_id_get(&f->id, inode);
	memcpy(f->build_id, bid, sizeof(f->build_id));
	f->build_id_size = size;
	mutex_unlock(&id->lock);

	memcpy(map->build_id, bid, sizeof(map->build_id));
	map->build_id_size = size;
	if (size)
		map->flags |= I915_STALL_MAP_BUILD_ID;
}

/*
 * The path of the file of @vma into @map, as /proc/PID/maps shows it, if
 * it fits, but for the suffix of a file no path reaches (unlinked, or of
 * an internal mount such as memfd's), which sets a flag instead; or the
 * file name alone.  Read at each reading: a file renamed is named anew.
 */
static void stall_map_path(struct i915_stall_map *map, struct vm_area_struct *vma)
{
	static const char deleted[] = " (deleted)";
	struct dentry *dentry = vma->vm_file->f_path.dentry;
	char *path;

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

/* Read the executable mapping @vma into @map and @src. */
static void stall_map_read(struct stall_ident *id, struct i915_stall_map *map,
			   struct stall_map_src *src, struct vm_area_struct *vma)
{
	memset(map, 0, sizeof(*map));
	memset(src, 0, sizeof(*src));
	map->start = vma->vm_start;
	map->end = vma->vm_end;
	src->pgoff = vma->vm_pgoff;
	src->vm_flags = vma->vm_flags & STALL_VM_FLAGS;
	if (!vma->vm_file) {
		map->flags = STALL_MAP_ANON;
		return;
	}
	map->file_offset = (u64)vma->vm_pgoff << PAGE_SHIFT;
	stall_file_id_get(&src->file, file_inode(vma->vm_file));
	stall_map_build_id(id, map, vma);
	stall_map_path(map, vma);
}

/* Whether @vma is still the mapping @map of a version, read from @src. */
static bool stall_map_same(const struct vm_area_struct *vma, const struct i915_stall_map *map,
			   const struct stall_map_src *src)
{
	if (!vma || vma->vm_start != map->start || vma->vm_end != map->end ||
	    vma->vm_pgoff != src->pgoff || (vma->vm_flags & STALL_VM_FLAGS) != src->vm_flags)
		return false;
	if (!vma->vm_file)
		return !src->file.inode;
	return stall_file_id_match(&src->file, file_inode(vma->vm_file));
}

/*
 * Whether the executable mappings of @mm are still those of @v: exec_vm is
 * as it was, and each of them is there unchanged, by one lookup each, or
 * by a walk of the VMAs if there are few.  A mapping added would have
 * moved exec_vm, but for one both writable and executable.
 * Context: @mm's mmap lock held.
 */
static bool stall_version_holds(struct mm_struct *mm, const struct stall_version *v)
{
	VMA_ITERATOR(vmi, mm, 0);
	struct vm_area_struct *vma;
	u32 i = 0;

	if (v->flags || mm->exec_vm != v->exec_vm)
		return false;

	if ((u64)v->count * 4 < mm->map_count) {
		for (i = 0; i < v->count; i++)
			if (!stall_map_same(vma_lookup(mm, v->maps[i].start), &v->maps[i],
					    &v->src[i]))
				return false;
		return true;
	}

	for_each_vma(vmi, vma) {
		if (!(vma->vm_flags & VM_EXEC))
			continue;
		if (i == v->count || !stall_map_same(vma, &v->maps[i], &v->src[i]))
			return false;
		i++;
	}
	return i == v->count;
}

/*
 * Whether the files of @v's mappings are still as read, when @v's mm had
 * no writer since: the same VMAs, so the same files, each held open by
 * its mapping, but rewritten in place, or renamed over, maybe.
 * Context: the mm's mmap lock held.
 */
static bool stall_version_files_same(const struct stall_version *v)
{
	u32 i;

	for (i = 0; i < v->count; i++)
		if (v->src[i].file.inode &&
		    !stall_file_id_match(&v->src[i].file, v->src[i].file.inode))
			return false;
	return true;
}

/*
 * A new version of the executable mappings of @mm, read by walking its
 * VMAs, at most STALL_WALK_MAX of them, or NULL if out of memory.
 * Context: @mm's mmap lock held, @id->work_lock held; may sleep.
 */
static struct stall_version *stall_version_read(struct stall_ident *id, struct mm_struct *mm)
{
	VMA_ITERATOR(vmi, mm, 0);
	struct stall_version *v;
	struct vm_area_struct *vma;
	unsigned int walked = 0;
	u32 count = 0, flags = 0;
	size_t bytes;

	for_each_vma(vmi, vma) {
		if (walked++ == STALL_WALK_MAX) {
			flags |= STALL_VERSION_CUT;
			break;
		}
		if (!(vma->vm_flags & VM_EXEC))
			continue;
		if (count == STALL_TABLE_MAPS) {
			flags |= STALL_VERSION_FULL;
			break;
		}
		stall_map_read(id, &id->scratch_maps[count], &id->scratch_src[count], vma);
		count++;
	}

	bytes = struct_size(v, maps, count) + count * sizeof(*v->src);
	v = kzalloc(bytes, GFP_KERNEL);
	if (!v)
		return NULL;
	v->src = (void *)&v->maps[count];
	v->bytes = bytes;
	v->count = count;
	v->flags = flags;
	v->exec_vm = mm->exec_vm;
	memcpy(v->maps, id->scratch_maps, count * sizeof(*v->maps));
	memcpy(v->src, id->scratch_src, count * sizeof(*v->src));
	return v;
}

static u32 stall_as_hash(const struct stall_as_key *key)
{
	return hash_ptr(key->mm, 32) ^ key->tgid ^ (u32)key->start_time;
}

static struct stall_as *stall_as_find(struct stall_ident *id, const struct stall_as_key *key)
{
	struct stall_as *as;

	hash_for_each_possible(id->as_hash, as, node, stall_as_hash(key))
		if (stall_as_key_equal(&as->key, key))
			return as;
	return NULL;
}

static struct stall_version *stall_version_find(struct stall_ident *id, u64 vid)
{
	struct stall_version *v;

	hash_for_each_possible(id->ver_hash, v, node, vid)
		if (v->id == vid)
			return v;
	return NULL;
}

static void stall_version_free(struct stall_ident *id, struct stall_version *v)
{
	struct stall_as *as = v->as;

	hash_del(&v->node);
	list_del(&v->as_link);
	list_del(&v->link);
	id->bytes -= v->bytes;
	kfree(v);
	if (list_empty(&as->versions)) {
		hash_del(&as->node);
		kfree(as);
	}
}

/* Give up the oldest versions but @keep and the newest until the budget holds. */
static void stall_ident_trim(struct stall_ident *id, const struct stall_version *keep)
{
	struct stall_version *v, *n;

	lockdep_assert_held(&id->lock);

	list_for_each_entry_safe(v, n, &id->versions, link) {
		if (id->bytes <= id->budget || list_is_last(&v->link, &id->versions))
			break;
		if (v != keep)
			stall_version_free(id, v);
	}
}

/* Add @v, read at @now, as the newest version of the image @key. */
static bool stall_version_add(struct stall_ident *id, const struct stall_as_key *key,
			      struct stall_version *v, u64 now)
{
	struct stall_as *as;

	lockdep_assert_held(&id->lock);

	as = stall_as_find(id, key);
	if (!as) {
		as = kzalloc(sizeof(*as), GFP_KERNEL);
		if (!as)
			return false;
		as->key = *key;
		INIT_LIST_HEAD(&as->versions);
		hash_add(id->as_hash, &as->node, stall_as_hash(key));
	}
	v->as = as;
	v->id = ++id->next_version;
	v->t_lo = now;
	v->t_hi = now;
	list_add_tail(&v->as_link, &as->versions);
	list_add_tail(&v->link, &id->versions);
	hash_add(id->ver_hash, &v->node, v->id);
	id->bytes += v->bytes;
	stall_ident_trim(id, v);
	return true;
}

/*
 * Read the version of the executable mappings of @mm, the image @key, as
 * they are now: the newest one if it still holds, or a new one.  Returns
 * its id, and in *@seq the mm_lock_seq it was read at (*@seq_ok false if
 * that is unknown); 0 if out of memory.
 * Context: process context, @id->work_lock held; sleeps.
 */
static u64 stall_ident_read(struct stall_ident *id, const struct stall_as_key *key,
			    struct mm_struct *mm, u32 *seq, bool *seq_ok)
{
	struct stall_version *old = NULL, *v = NULL;
	struct stall_as_key now_key = *key;
	struct stall_as *as;
	bool holds = false;
	u64 now, vid = 0;

	lockdep_assert_held(&id->work_lock);

	mmap_read_lock(mm);
#ifdef CONFIG_PER_VMA_LOCK
	/* No writer: even, and still. */
	*seq = READ_ONCE(mm->mm_lock_seq.sequence);
	*seq_ok = true;
#else
	*seq = 0;
	*seq_ok = false;
#endif
	now = ktime_get_ns();

	/* Only readings, under work_lock, add or give up versions. */
	mutex_lock(&id->lock);
	as = stall_as_find(id, key);
	if (as)
		old = list_last_entry(&as->versions, struct stall_version, as_link);
	mutex_unlock(&id->lock);

	if (old && *seq_ok && old->seq_ok && old->seq == *seq)
		holds = stall_version_files_same(old);
	else if (old)
		holds = stall_version_holds(mm, old);
	if (!holds)
		v = stall_version_read(id, mm);
	mmap_read_unlock(mm);

	mutex_lock(&id->lock);
	if (holds) {
		v = old;
	} else if (v && !stall_version_add(id, &now_key, v, now)) {
		kfree(v);
		v = NULL;
	}
	if (v) {
		v->t_hi = now;
		v->seq = *seq;
		v->seq_ok = *seq_ok;
		vid = v->id;
	}
	mutex_unlock(&id->lock);
	return vid;
}

/*
 * Serve the requests of every CPU: read the version of each address space
 * a record asked for, and tell the CPU.  An entry whose records asked
 * again meanwhile stays asked for, and is read again.  Returns whether
 * one did.
 * Context: process context, @id->work_lock held; sleeps.
 */
static bool stall_ident_serve(struct stall_ident *id)
{
	bool again = false;
	unsigned int cpu, i;

	lockdep_assert_held(&id->work_lock);

	for_each_possible_cpu(cpu) {
		struct stall_ident_cpu *c = per_cpu_ptr(id->cpu, cpu);

		for (i = 0; i < STALL_AS_WAYS; i++) {
			struct stall_as_entry *e = &c->as[i];
			struct mm_struct *mm, *put = NULL;
			struct stall_as_key key;
			bool seq_ok;
			u32 gen, seq;
			u64 vid;

			raw_spin_lock(&c->lock);
			if (!e->pending) {
				raw_spin_unlock(&c->lock);
				continue;
			}
			key = e->key;
			mm = e->mm;
			gen = e->gen;
			raw_spin_unlock(&c->lock);

			vid = stall_ident_read(id, &key, mm, &seq, &seq_ok);

			raw_spin_lock(&c->lock);
			if (e->gen == gen) {
				e->version = vid;
				e->seq = seq;
				e->seq_ok = seq_ok;
				e->stamp = jiffies;
				e->pending = false;
				e->mm = NULL;
				put = mm;
			} else {
				again = true;
			}
			raw_spin_unlock(&c->lock);
			if (put)
				mmput(put);
		}
	}
	return again;
}

static void stall_ident_work(struct work_struct *work)
{
	struct stall_ident *id = container_of(to_delayed_work(work), struct stall_ident, work);
	bool again;

	mutex_lock(&id->work_lock);
	again = stall_ident_serve(id);
	mutex_unlock(&id->work_lock);
	if (again)
		queue_delayed_work(system_unbound_wq, &id->work, STALL_IDENT_DELAY);
}

/**
 * stall_ident_flush - read every version asked for so far
 * @id: the log's identity
 *
 * Context: Process context; sleeps.
 */
void stall_ident_flush(struct stall_ident *id)
{
	mutex_lock(&id->work_lock);
	stall_ident_serve(id);
	mutex_unlock(&id->work_lock);
}

/**
 * stall_ident_create - the identity of user code of a new log
 *
 * Return: it, or NULL if out of memory.
 */
struct stall_ident *stall_ident_create(void)
{
	struct stall_ident *id;
	unsigned int cpu;

	id = kvzalloc(sizeof(*id), GFP_KERNEL);
	if (!id)
		return NULL;
	id->cpu = alloc_percpu(struct stall_ident_cpu);
	if (!id->cpu) {
		kvfree(id);
		return NULL;
	}
	for_each_possible_cpu(cpu)
		raw_spin_lock_init(&per_cpu_ptr(id->cpu, cpu)->lock);
	INIT_DELAYED_WORK(&id->work, stall_ident_work);
	mutex_init(&id->work_lock);
	mutex_init(&id->lock);
	hash_init(id->as_hash);
	hash_init(id->ver_hash);
	INIT_LIST_HEAD(&id->versions);
	id->budget = SZ_1M;
	return id;
}

/**
 * stall_ident_set_budget - bound the memory of the versions
 * @id: the log's identity
 * @bytes: the bound; the newest version is kept whatever its size
 */
void stall_ident_set_budget(struct stall_ident *id, size_t bytes)
{
	/* A reading holds versions without id->lock, under work_lock. */
	mutex_lock(&id->work_lock);
	mutex_lock(&id->lock);
	id->budget = bytes;
	stall_ident_trim(id, NULL);
	mutex_unlock(&id->lock);
	mutex_unlock(&id->work_lock);
}

/**
 * stall_ident_destroy - free the identity of a log's user code
 * @id: it, or NULL
 *
 * Context: Process context, no writer left; sleeps.
 */
void stall_ident_destroy(struct stall_ident *id)
{
	struct stall_version *v, *n;
	unsigned int cpu, i;

	if (!id)
		return;
	cancel_delayed_work_sync(&id->work);
	for_each_possible_cpu(cpu) {
		struct stall_ident_cpu *c = per_cpu_ptr(id->cpu, cpu);

		for (i = 0; i < STALL_AS_WAYS; i++)
			if (c->as[i].pending)
				mmput(c->as[i].mm);
	}
	list_for_each_entry_safe(v, n, &id->versions, link)
		stall_version_free(id, v);
	free_percpu(id->cpu);
	mutex_destroy(&id->lock);
	mutex_destroy(&id->work_lock);
	kvfree(id);
}

/*
 * The snapshot: each record's maps, from its version.
 */

/**
 * stall_ident_lock - hold the versions still for stall_ident_fill()
 * @id: the log's identity
 */
void stall_ident_lock(struct stall_ident *id)
{
	mutex_lock(&id->lock);
}

/**
 * stall_ident_unlock - undo stall_ident_lock()
 * @id: the log's identity
 */
void stall_ident_unlock(struct stall_ident *id)
{
	mutex_unlock(&id->lock);
}

/* The mapping of @v that user address @addr falls in, or NULL. */
static const struct i915_stall_map *stall_version_lookup(const struct stall_version *v,
							 unsigned long addr)
{
	u32 lo = 0, hi = v->count;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (v->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= v->maps[lo - 1].end)
		return NULL;
	return &v->maps[lo - 1];
}

static bool stall_map_equal(const struct i915_stall_map *a, const struct i915_stall_map *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/*
 * What user address @addr of a record falls in: the mapping of @v, if
 * @prev (the version before, or NULL) agrees, else NULL with the reason
 * in *@why.
 */
static const struct i915_stall_map *stall_lookup(const struct stall_version *v,
						 const struct stall_version *prev,
						 unsigned long addr, u8 *why)
{
	const struct i915_stall_map *m = stall_version_lookup(v, addr);

	if (prev) {
		const struct i915_stall_map *p = stall_version_lookup(prev, addr);

		if (m != p && (!m || !p || !stall_map_equal(m, p))) {
			*why = I915_STALL_FRAME_CHANGED;
			return NULL;
		}
	}
	if (!m) {
		/* maybe in a mapping the version has no room for */
		*why = v->flags ? I915_STALL_FRAME_FULL : I915_STALL_FRAME_NOVMA;
		return NULL;
	}
	if (m->flags & STALL_MAP_ANON) {
		*why = I915_STALL_FRAME_ANON;
		return NULL;
	}
	return m;
}

/*
 * The entry of @rec's maps[] for @m, an executable file mapping of @v,
 * added in the order of first use if need be, or I915_STALL_FRAME_FULL.
 * @idx maps entries of @v to entries of maps[].
 */
static u8 stall_rec_add(struct i915_stall_record *rec, const struct stall_version *v,
			u8 *idx, const struct i915_stall_map *m)
{
	unsigned int i = m - v->maps;

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

/* Say why the frames of @rec are not named, and that none of its words is. */
static void stall_rec_unnamed(struct i915_stall_record *rec, u16 flag, u8 why)
{
	rec->flags |= flag;
	memset(rec->ustack_map, why, rec->ustack_depth);
}

/*
 * Fill the maps[] of @rec, a record of the snapshot, from @v (and where
 * @prev is not NULL, from what @v and @prev agree on): each executable
 * file mapping that a user frame or an aligned word of the stack snapshot
 * points into, once, and per frame the entry of maps[] it falls in or why
 * there is none.
 */
static void stall_rec_fill_maps(struct i915_stall_record *rec, const struct stall_version *v,
				const struct stall_version *prev, u8 *idx)
{
	unsigned int word = rec->flags & I915_STALL_F_COMPAT ? sizeof(u32) : sizeof(u64);
	const u8 *snap = stall_rec_ustack(rec);
	unsigned long lo, hi;
	unsigned int i;

	rec->map_count = 0;
	memset(idx, U8_MAX, v->count);
	for (i = 0; i < rec->ustack_depth; i++) {
		const struct i915_stall_map *m;
		u8 why;

		m = stall_lookup(v, prev, rec->ustack[i], &why);
		if (m)
			why = stall_rec_add(rec, v, idx, m);
		else if (why == I915_STALL_FRAME_CHANGED)
			rec->flags |= I915_STALL_F_MAPS_CHANGED;
		else if (why == I915_STALL_FRAME_FULL)
			rec->flags |= v->flags & STALL_VERSION_CUT ? I915_STALL_F_MAPS_CUT :
								      I915_STALL_F_MAPS_FULL;
		rec->ustack_map[i] = why;
	}

	if (!v->count)
		return;
	lo = v->maps[0].start;
	hi = v->maps[v->count - 1].end;
	for (i = -rec->user_sp & (word - 1); i + word <= rec->ustack_size; i += word) {
		const struct i915_stall_map *m;
		unsigned long addr;
		u8 why;

		if (word == sizeof(u64))
			addr = get_unaligned((const u64 *)(snap + i));
		else
			addr = get_unaligned((const u32 *)(snap + i));
		if (addr < lo || addr >= hi)
			continue;
		m = stall_lookup(v, prev, addr, &why);
		if (m)
			stall_rec_add(rec, v, idx, m);
	}
}

/**
 * stall_ident_fill - fill the maps of a record of the snapshot
 * @id: the log's identity, locked with stall_ident_lock()
 * @rec: the record, in the layout of the file, its maps zeroed
 * @ref: how it named the identity of its user code
 *
 * A record that named its version gets it; one that asked is named by
 * its time (see the DOC section).  A version given up for room, or a
 * record that could not ask, leaves the frames unnamed (F_MAPS_FULL,
 * FRAME_FULL).
 */
void stall_ident_fill(struct stall_ident *id, struct i915_stall_record *rec,
		      const struct stall_ident_ref *ref)
{
	struct stall_version *v = NULL, *prev = NULL, *it;
	struct stall_as *as;

	lockdep_assert_held(&id->lock);

	if (!(ref->flags & STALL_REF_USER))
		return;
	rec->map_count = 0;
	if (ref->flags & STALL_REF_BUSY)
		goto gone;

	if (ref->version) {
		v = stall_version_find(id, ref->version);
		if (!v)
			goto gone;
		stall_rec_fill_maps(rec, v, NULL, id->idx);
		return;
	}

	as = stall_as_find(id, &ref->key);
	if (!as)
		goto gone;
	list_for_each_entry(it, &as->versions, as_link) {
		if (it->t_hi < ref->when) {
			prev = it;
			continue;
		}
		v = it;
		break;
	}
	if (!v)
		goto gone;	/* not read since the stall */
	if (v->t_lo <= ref->when)
		prev = NULL;	/* true at the stall's time */
	stall_rec_fill_maps(rec, v, prev, id->idx);
	return;

gone:
	stall_rec_unnamed(rec, I915_STALL_F_MAPS_FULL, I915_STALL_FRAME_FULL);
}

#if IS_ENABLED(CONFIG_DRM_I915_STALL_LOG_KUNIT_TEST)
#include "tests/i915_stall_user_kunit.c"
#endif
