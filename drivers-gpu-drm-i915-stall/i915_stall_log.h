/* SPDX-License-Identifier: MIT */
/*
 * Copyright © 2026 The i915 stall log authors
 */

#ifndef __I915_STALL_LOG_H__
#define __I915_STALL_LOG_H__

/*
 * Private to the files of the stall log: the log, its rings and the
 * identity of user code.  Nothing here names an i915 type: the wait sites
 * (i915_stall_sites.c) are the only i915-specific part.
 */

#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sizes.h>
#include <linux/time64.h>
#include <linux/types.h>

#include "i915_stall_format.h"

struct dentry;
struct dma_fence;
struct drm_device;
struct i915_stall_wait;
struct i915_stall_info;
struct mm_struct;
struct stall_ident;

/* Bytes of ring the default size aims for, over all CPUs of a device. */
#define STALL_DEFAULT_BYTES	SZ_8M
#define STALL_MIN_SLOTS		16
#define STALL_DEFAULT_MAX_SLOTS	256
#define STALL_MAX_SLOTS		SZ_16K
#define STALL_DEFAULT_THRESHOLD	(1000 * NSEC_PER_USEC)
/* struct i915_stall_record.wait_flags of an interruptible wait, as i915's */
#define STALL_WAIT_INTERRUPTIBLE	0x1
/* Executable mappings saved per record in the file, see stall_ident_fill(). */
#define STALL_MAP_MAX		16
/* Bytes of user stack saved per record by default, and at most. */
#define STALL_USTACK_DEFAULT	SZ_8K
#define STALL_USTACK_MAX_BYTES	SZ_16K

/**
 * struct stall_as_key - one image of one process
 * @mm: its address space; compared, never dereferenced through the key
 * @start_time: when the process's group leader started
 * @exec_id: the process's self_exec_id: which of its images
 * @tgid: the process
 *
 * An mm_struct freed and allocated again, or the new image execve()
 * makes, is not taken for the old one.
 */
struct stall_as_key {
	const struct mm_struct *mm;
	u64 start_time;
	u64 exec_id;
	pid_t tgid;
};

/* struct stall_ident_ref.flags */
#define STALL_REF_USER		0x1	/* a user stack to name the code of */
#define STALL_REF_BUSY		0x2	/* no room to ask for the identity */
#define STALL_REF_SEQ		0x4	/* @seq is the address space's mm_lock_seq */

/**
 * struct stall_ident_ref - how a record in a ring names the identity of
 *	its user code
 * @version: the version of the process's executable mappings the stall
 *	saw, if the writer knew it (the layout had not changed since it was
 *	read); 0 if it is found at the snapshot by @key and @when
 * @when: ktime_get_ns() when the user stack was taken
 * @key: whose stack
 * @seq: the mm_lock_seq of @key.mm then, if STALL_REF_SEQ
 * @flags: STALL_REF_*
 *
 * It lies after the record in a slot, where the file has the record's
 * maps: only the writer and the snapshot read it.
 */
struct stall_ident_ref {
	u64 version;
	u64 when;
	struct stall_as_key key;
	u32 seq;
	u32 flags;
};

/**
 * struct i915_stall_ring - the records written on one CPU
 * @head: records ever committed; written only by the ring's CPU
 * @base: @head at the last clear; written under the log's mutex
 * @slot: the slots, a power of two of them, of the rings' @stride bytes
 */
struct i915_stall_ring {
	u64 head;
	u64 base;
	u8 slot[] __aligned(8);
};

/**
 * struct i915_stall_rings - a set of per-CPU rings, replaced as a whole
 * @slots: slots per ring, a power of two
 * @stride: bytes of a slot: the record, how it names the identity of its
 *	user code and its stack snapshot
 * @ustack_bytes: bytes of user stack a slot holds
 * @ring: one ring per possible CPU, indexed by CPU number
 *
 * A slot holds a struct i915_stall_record, its struct stall_ident_ref
 * (STALL_SLOT_REF_OFFSET) and the snapshot of its user stack
 * (STALL_SLOT_USTACK_OFFSET).  The file has room for the maps between the
 * record and the snapshot instead, in the layout of format 1.2 and later:
 * the snapshot fills them (stall_ident_fill()).
 */
struct i915_stall_rings {
	u32 slots;
	u32 stride;
	u32 ustack_bytes;
	struct i915_stall_ring *ring[];
};

/* A record in the file: the record, its maps, its stack snapshot. */
#define STALL_MAPS_OFFSET	sizeof(struct i915_stall_record)
#define STALL_USTACK_OFFSET	(STALL_MAPS_OFFSET + STALL_MAP_MAX * sizeof(struct i915_stall_map))
/* A slot of a ring: the record, how it names its identity, its stack. */
#define STALL_SLOT_REF_OFFSET	sizeof(struct i915_stall_record)
#define STALL_SLOT_USTACK_OFFSET	\
	round_up(STALL_SLOT_REF_OFFSET + sizeof(struct stall_ident_ref), 8)

/**
 * struct i915_stall_log - the stall log of one device
 * @lock: serialises control and snapshots; writers never take it
 * @rings: the current rings, NULL until first enabled
 * @submits: the rings of submit records, allocated and replaced with @rings
 * @ident: the identity of the user code the records' stacks point into
 * @threshold_ns: waits shorter than this are not recorded
 * @slots: ring size to allocate on next enable
 * @ustack_bytes: user stack snapshot size of the rings, or of the next ones
 * @enabled: recording on this device
 * @drm: the device, or NULL for a log tested on its own
 * @capture: the driver's: capture into a wait what it knows of @fence, a
 *	fence a syncobj wait of @drm holds, if it is the driver's; returns
 *	whether it was
 * @syncobj_link: in the list of logs whose syncobj waits are recorded,
 *	while enabled (i915_stall_syncobj.c)
 */
struct i915_stall_log {
	struct mutex lock; /* serialises control and snapshots */
	struct i915_stall_rings __rcu *rings;
	struct i915_stall_rings __rcu *submits;
	struct stall_ident *ident;
	u64 threshold_ns;
	u32 slots;
	u32 ustack_bytes;
	bool enabled;
	struct drm_device *drm;
	bool (*capture)(struct drm_device *drm, struct i915_stall_wait *w,
			struct dma_fence *fence);
	struct list_head syncobj_link;
};

static inline struct i915_stall_record *
stall_slot_rec(const struct i915_stall_rings *rings, const struct i915_stall_ring *ring, u64 n)
{
	return (struct i915_stall_record *)&ring->slot[(n & (rings->slots - 1)) *
						       (size_t)rings->stride];
}

static inline struct stall_ident_ref *stall_slot_ref(struct i915_stall_record *s)
{
	return (void *)s + STALL_SLOT_REF_OFFSET;
}

static inline u8 *stall_slot_ustack(struct i915_stall_record *s)
{
	return (u8 *)s + STALL_SLOT_USTACK_OFFSET;
}

static inline struct i915_stall_map *stall_rec_maps(struct i915_stall_record *rec)
{
	return (void *)rec + STALL_MAPS_OFFSET;
}

static inline u8 *stall_rec_ustack(struct i915_stall_record *rec)
{
	return (u8 *)rec + STALL_USTACK_OFFSET;
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

/* i915_stall.c: the log, its rings and the snapshot file */
struct i915_stall_log *i915_stall_log_create(struct drm_device *drm);
void i915_stall_log_destroy(struct i915_stall_log *log);
int i915_stall_log_enable(struct i915_stall_log *log, bool enable);
int i915_stall_log_set_size(struct i915_stall_log *log, u64 slots, u64 ustack_bytes);
void i915_stall_log_set_threshold(struct i915_stall_log *log, u64 threshold_ns);
void i915_stall_log_clear(struct i915_stall_log *log);
int i915_stall_log_apply_params(struct i915_stall_log *log, bool enable,
				u32 threshold_us, u32 slots, int ustack_bytes);
void i915_stall_log_debugfs(struct i915_stall_log *log, struct dentry *root);
void i915_stall_log_debugfs_remove(struct dentry *root);
struct stall_snapshot *i915_stall_snapshot_take(struct i915_stall_log *log, bool kaddr);
u64 i915_stall_log_count_sites(struct i915_stall_log *log, u64 *count, unsigned int nr,
			       u64 *recorded);
extern const struct file_operations i915_stall_snapshot_fops;

/* i915_stall_syncobj.c: the syncobj waits of DRM core */
void i915_stall_syncobj_watch(struct i915_stall_log *log, bool watch);

/* i915_stall_user.c: the user stack and the identity of user code */
void stall_fill_user(struct i915_stall_record *s, u8 *ustack, u32 ustack_bytes,
		     struct stall_ident_ref *ref);
void stall_copy_user_stack(struct i915_stall_record *s, u8 *ustack);
void stall_fill_user_frames(struct i915_stall_record *s, struct stall_ident_ref *ref);
void stall_ident_name(struct stall_ident *id, struct stall_ident_ref *ref);
struct stall_ident *stall_ident_create(void);
void stall_ident_destroy(struct stall_ident *id);
void stall_ident_set_budget(struct stall_ident *id, size_t bytes);
void stall_ident_flush(struct stall_ident *id);
void stall_ident_lock(struct stall_ident *id);
void stall_ident_unlock(struct stall_ident *id);
void stall_ident_fill(struct stall_ident *id, struct i915_stall_record *rec,
		      const struct stall_ident_ref *ref);

#endif /* __I915_STALL_LOG_H__ */
