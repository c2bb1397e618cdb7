/* SPDX-License-Identifier: MIT */
/*
 * Binary layout of the i915 stall log, as read from debugfs
 * (/sys/kernel/debug/dri/N/i915_stalls).
 *
 * This header is shared verbatim with the userspace reader, so it uses only
 * <linux/types.h> and static_assert().  Every field is little-endian, fixed
 * width and naturally aligned; padding is explicit.
 *
 * A file is one struct i915_stall_file_header, then cpu_count struct
 * i915_stall_cpu_entry at cpu_table_offset, then record_count records of
 * record_size bytes at records_offset.  Since 1.2 a record is a struct
 * i915_stall_record, then map_max struct i915_stall_map at maps_offset
 * into the record, then ustack_snapshot_max bytes of user stack at
 * ustack_offset into the record: record_size depends on the snapshot size
 * the log was set to.  Records are grouped by CPU in
 * ascending CPU order and, within a CPU, ordered oldest first (by seq).
 *
 * Since 1.4 the file also holds the log's submit records, one for each
 * request user space submitted while the log was enabled: cpu_count
 * CPU entries of their own rings at submit_cpu_table_offset, then
 * submit_record_count records of submit_record_size bytes at
 * submit_records_offset.  A submit record is laid out as a stall record
 * with no stack snapshot (site I915_STALL_SITE_SUBMIT).  Both lie between
 * the CPU table and records_offset, where a reader of an older minor does
 * not look.
 *
 * Compatibility: a reader accepts any file whose version_major it knows.  A
 * newer version_minor may only append fields, so header_size, cpu_entry_size
 * and record_size may be larger than the structures below; a reader uses the
 * sizes from the file to step over what it does not know.
 */

#ifndef __I915_STALL_FORMAT_H__
#define __I915_STALL_FORMAT_H__

#ifdef __KERNEL__
#include <linux/build_bug.h>
#include <linux/stddef.h>
#else
#include <assert.h>
#include <stddef.h>
#endif
#include <linux/types.h>

#define I915_STALL_MAGIC		"I915STL\n"
#define I915_STALL_MAGIC_LEN		8
#define I915_STALL_VERSION_MAJOR	1
#define I915_STALL_VERSION_MINOR	4

#define I915_STALL_KSTACK_MAX		32
#define I915_STALL_USTACK_MAX		32
#define I915_STALL_COMM_LEN		16
#define I915_STALL_NAME_LEN		32
#define I915_STALL_RELEASE_LEN		64
#define I915_STALL_MAP_NAME_LEN		80
#define I915_STALL_BUILD_ID_LEN		20

/* Wait sites.  Values are ABI and never reused. */
enum i915_stall_site {
	I915_STALL_SITE_NONE = 0,
	I915_STALL_SITE_REQUEST = 1,		/* i915_request_wait_timeout() */
	I915_STALL_SITE_ACTIVE = 2,		/* __i915_active_wait() */
	I915_STALL_SITE_OBJECT_FENCE = 3,	/* foreign fence, i915_gem_object_wait() */
	I915_STALL_SITE_FENCE = 4,		/* bind, unbind or foreign fence */
	I915_STALL_SITE_SYNCOBJ = 5,		/* DRM_IOCTL_SYNCOBJ_WAIT */
	I915_STALL_SITE_SYNCOBJ_TIMELINE = 6,	/* DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT */
	I915_STALL_SITE_SUBMIT = 7,		/* 1.4: a submit record, not a stall */
	I915_STALL_SITE_TEST = 15,		/* KUnit */
};

/* The name tools print for a wait site, NULL if unknown. */
static inline const char *i915_stall_site_name(unsigned int site)
{
	switch (site) {
	case I915_STALL_SITE_REQUEST:
		return "request_wait";
	case I915_STALL_SITE_ACTIVE:
		return "active_wait";
	case I915_STALL_SITE_OBJECT_FENCE:
		return "object_fence_wait";
	case I915_STALL_SITE_FENCE:
		return "fence_wait";
	case I915_STALL_SITE_SYNCOBJ:
		return "syncobj_wait";
	case I915_STALL_SITE_SYNCOBJ_TIMELINE:
		return "syncobj_timeline_wait";
	case I915_STALL_SITE_SUBMIT:
		return "submit";
	case I915_STALL_SITE_TEST:
		return "test";
	default:
		return NULL;
	}
}

/* How the wait ended (struct i915_stall_record.outcome). */
enum i915_stall_outcome {
	I915_STALL_COMPLETED = 0,	/* the awaited work signalled */
	I915_STALL_TIMEDOUT = 1,	/* the timeout the caller asked for expired */
	I915_STALL_INTERRUPTED = 2,	/* a signal ended an interruptible wait */
	I915_STALL_ERROR = 3,		/* any other negative return, see .error */
};

/* struct i915_stall_record.flags */
#define I915_STALL_F_KTHREAD		0x1 /* kernel thread or user worker: no user stack */
#define I915_STALL_F_COMPAT		0x2 /* 32-bit task: @ustack holds 32-bit addresses */
#define I915_STALL_F_KSTACK_TRUNC	0x4 /* kernel stack deeper than kstack[] */
#define I915_STALL_F_USTACK_TRUNC	0x8 /* user stack deeper than ustack[] */
#define I915_STALL_F_ENGINE		0x10 /* engine_class/engine_instance valid */
#define I915_STALL_F_FENCE		0x20 /* fence_context/fence_seqno valid */
#define I915_STALL_F_OWNER		0x40 /* owner_pid/owner_comm valid */
#define I915_STALL_F_USER_REGS		0x80 /* 1.2: user_ip/sp/bp and the snapshot valid */
#define I915_STALL_F_MAPS_NOLOCK	0x100 /* 1.2: mmap lock not taken, no map saved */
#define I915_STALL_F_MAPS_FULL		0x200 /* 1.2: a mapping left out for lack of room */
#define I915_STALL_F_MAPS_CUT		0x400 /* 1.2: mappings left out at a cost cap */
#define I915_STALL_F_USTACK_NODUMP	0x800 /* 1.3: not dumpable: no stack bytes, no registers */
#define I915_STALL_F_USTACK_NOLOCK	0x1000 /* 1.3: mmap lock taken: no stack bytes */
#define I915_STALL_F_MAPS_CHANGED	0x2000 /* 1.3: a frame's mapping changed near the stall */
#define I915_STALL_F_SUBMITTED		0x4000 /* 1.4: the awaited request has a submit record */
#define I915_STALL_F_AHEAD		0x8000 /* 1.4: @ahead valid */

/*
 * struct i915_stall_record.ustack_map[i], 1.2: the index of the entry of
 * maps[] that ustack[i] falls in, or why there is none.
 */
#define I915_STALL_FRAME_CHANGED	0xfb /* 1.3: its mapping changed near the stall */
#define I915_STALL_FRAME_FULL		0xfc /* maybe a mapping left out (F_MAPS_FULL, _CUT) */
#define I915_STALL_FRAME_NOLOCK		0xfd /* the mmap lock was not taken */
#define I915_STALL_FRAME_ANON		0xfe /* anonymous executable memory (JIT, vDSO) */
#define I915_STALL_FRAME_NOVMA		0xff /* no executable mapping there */

/*
 * struct i915_stall_record.sync_flags, of the syncobj sites.  The low bits
 * are the ioctl's DRM_SYNCOBJ_WAIT_FLAGS_*, with the same values.
 */
#define I915_STALL_SYNC_WAIT_ALL	0x1 /* all fences, not any */
#define I915_STALL_SYNC_FOR_SUBMIT	0x2 /* WAIT_FOR_SUBMIT: a fence may not exist yet */
#define I915_STALL_SYNC_AVAILABLE	0x4 /* WAIT_AVAILABLE: for the fences to exist only */
#define I915_STALL_SYNC_DEADLINE	0x8 /* a deadline hint was given */
#define I915_STALL_SYNC_UNSUBMITTED	0x100 /* a fence did not exist yet when the wait slept */

#define I915_STALL_ENGINE_NONE		0xff
/* 1.4: struct i915_stall_record.ahead when there were more than it counts */
#define I915_STALL_AHEAD_MANY		0xffff
#define I915_STALL_TIMEOUT_NONE		(~(__u64)0)

/*
 * struct i915_stall_record - one CPU-waits-on-GPU stall
 *
 * In the ring, @seq is 2n + 1 while record n is written and 2n + 2 once it
 * is committed; in a file it is n, the record's number on its CPU.
 */
struct i915_stall_record {
	__u64 seq;		/* record number on @cpu since the log was cleared */
	__u64 start_ns;		/* CLOCK_MONOTONIC at wait entry */
	__u64 duration_ns;	/* wait entry to wait exit */
	__u64 spin_ns;		/* part of @duration_ns spent busy-spinning */
	__u64 fence_context;	/* dma_fence context of the awaited fence */
	__u64 fence_seqno;	/* dma_fence seqno of the awaited fence */
	__u64 timeout_ns;	/* timeout asked for, I915_STALL_TIMEOUT_NONE if none */
	__u64 caller;		/* kernel return address into the wait's caller */
	__u32 pid;		/* thread id of the waiter */
	__u32 tgid;		/* process id of the waiter */
	__u32 owner_pid;	/* creator of the awaited GEM context, if F_OWNER */
	__s32 error;		/* the wait's return value when negative, else 0 */
	__u32 wait_flags;	/* I915_WAIT_* flags the caller passed */
	__u16 cpu;		/* CPU the record was written on */
	__u16 site;		/* enum i915_stall_site */
	__u8 outcome;		/* enum i915_stall_outcome */
	__u8 engine_class;	/* uabi engine class, I915_STALL_ENGINE_NONE if unknown */
	__u8 engine_instance;	/* uabi engine instance */
	__u8 kstack_depth;	/* valid entries in @kstack */
	__u8 ustack_depth;	/* valid entries in @ustack */
	__u8 pad0;
	__u16 flags;		/* I915_STALL_F_* */
	char comm[I915_STALL_COMM_LEN];		/* waiter's comm, NUL padded */
	char owner_comm[I915_STALL_COMM_LEN];	/* owner's comm, if F_OWNER */
	__u64 kstack[I915_STALL_KSTACK_MAX];	/* kernel return addresses, innermost first */
	__u64 ustack[I915_STALL_USTACK_MAX];	/* user pc, then return addresses */
	/* 1.1 */
	__u32 fence_count;	/* fences the wait was on: 1, or the syncobj count */
	__u32 sync_flags;	/* I915_STALL_SYNC_*, syncobj sites only */
	/* 1.2 */
	__u32 ustack_size;	/* bytes of user stack saved from user_sp up */
	__u16 map_count;	/* entries of the record's maps[] in use */
	__u16 ahead;		/* 1.4: requests ahead of the awaited one, if F_AHEAD */
	__u64 user_ip;		/* the user registers at kernel entry, if F_USER_REGS */
	__u64 user_sp;
	__u64 user_bp;
	__u8 ustack_map[I915_STALL_USTACK_MAX];	/* per ustack[] entry: map index or FRAME_* */
};

/* struct i915_stall_map.flags */
#define I915_STALL_MAP_BUILD_ID		0x1 /* build_id valid */
#define I915_STALL_MAP_PATH		0x2 /* name is the whole path, else the file name */
#define I915_STALL_MAP_DELETED		0x4 /* "(deleted)": no path reaches the file any more */

/*
 * struct i915_stall_map - one executable file mapping of the waiter, 1.2
 *
 * The record's maps[] holds each distinct one that a frame of ustack[] or
 * a word of the stack snapshot points into.  An address a in it is at
 * file offset a - start + file_offset of the file with build_id.
 */
struct i915_stall_map {
	__u64 start;		/* vm_start */
	__u64 end;		/* vm_end */
	__u64 file_offset;	/* file offset of @start */
	__u8 build_id[I915_STALL_BUILD_ID_LEN];	/* GNU build-id, if MAP_BUILD_ID */
	__u8 build_id_size;	/* bytes of it, 0 if it was not resident or absent */
	__u8 flags;		/* I915_STALL_MAP_* */
	__u16 pad;
	char name[I915_STALL_MAP_NAME_LEN];	/* path or file name, NUL padded */
};

/*
 * struct i915_stall_cpu_entry - what the snapshot saw of one CPU's ring
 *
 * @recorded == @emitted + @overwritten + @torn, always: a reader can account
 * for every record the CPU wrote since the last clear.
 */
struct i915_stall_cpu_entry {
	__u64 recorded;		/* records committed on this CPU since the last clear */
	__u64 emitted;		/* of those, records in this file */
	__u64 overwritten;	/* overwritten by newer records before the snapshot */
	__u64 torn;		/* overwritten while the snapshot copied them */
	__u64 dropped;		/* 0 since 1.3; was: stalls seen with no ring */
	__u32 cpu;
	__u32 flags;		/* I915_STALL_CPU_* */
};

#define I915_STALL_CPU_POSSIBLE		0x1
#define I915_STALL_CPU_ONLINE		0x2

/* struct i915_stall_file_header.flags */
#define I915_STALL_H_ENABLED		0x1 /* log was enabled at snapshot */
#define I915_STALL_H_I915_MODULE	0x2 /* i915 is a module, see i915_text_* */
#define I915_STALL_H_KADDR_HIDDEN	0x4 /* 1.3: kernel addresses zeroed for this reader */

/*
 * struct i915_stall_file_header - start of the i915_stalls file
 *
 * To undo KASLR offline, subtract the address of @kernel_anchor in vmlinux
 * (or System.map) from @kernel_anchor_addr; likewise @i915_anchor locates
 * i915's text, in i915.ko when I915_STALL_H_I915_MODULE is set.
 */
struct i915_stall_file_header {
	char magic[I915_STALL_MAGIC_LEN];	/* I915_STALL_MAGIC */
	__u16 version_major;
	__u16 version_minor;
	__u32 header_size;	/* bytes of this header in the file */
	__u32 record_size;	/* bytes of each record in the file */
	__u32 cpu_entry_size;	/* bytes of each CPU entry in the file */
	__u32 cpu_count;	/* CPU entries (nr_cpu_ids) */
	__u32 clock_id;		/* clock of start_ns: CLOCK_MONOTONIC (1) */
	__u64 cpu_table_offset;	/* file offset of the CPU table */
	__u64 records_offset;	/* file offset of the first record */
	__u64 record_count;	/* records in the file */
	__u64 snapshot_ns;	/* CLOCK_MONOTONIC when the file was opened */
	__s64 realtime_offset_ns; /* CLOCK_REALTIME - CLOCK_MONOTONIC then */
	__u64 threshold_ns;	/* waits shorter than this were not recorded */
	__u32 slots_per_cpu;	/* ring size per CPU, in records */
	__u32 flags;		/* I915_STALL_H_* */
	__u16 kstack_max;	/* I915_STALL_KSTACK_MAX of the writer */
	__u16 ustack_max;	/* I915_STALL_USTACK_MAX of the writer */
	__u32 drm_minor;	/* N in /sys/kernel/debug/dri/N */
	__u64 kernel_anchor_addr; /* runtime address of @kernel_anchor */
	__u64 i915_anchor_addr;	/* runtime address of @i915_anchor */
	__u64 i915_text_base;	/* i915.ko core text base, if a module, else 0 */
	__u64 i915_text_size;	/* its size, if a module, else 0 */
	char kernel_anchor[I915_STALL_NAME_LEN];  /* a vmlinux text symbol */
	char i915_anchor[I915_STALL_NAME_LEN];	  /* an i915 text symbol */
	char device[I915_STALL_NAME_LEN];	  /* dev_name() of the GPU */
	char release[I915_STALL_RELEASE_LEN];	  /* utsname()->release */
	/* 1.1 */
	__u64 unattributed;	/* 0 since 1.3; was: waits of no known device */
	/* 1.2 */
	__u32 map_max;		/* struct i915_stall_map in each record */
	__u32 ustack_snapshot_max; /* bytes of user stack snapshot in each record */
	__u32 maps_offset;	/* offset of maps[] in a record */
	__u32 ustack_offset;	/* offset of the user stack snapshot in a record */
	/* 1.4 */
	__u64 submit_cpu_table_offset; /* file offset of the submit rings' CPU table */
	__u64 submit_records_offset; /* file offset of the first submit record */
	__u64 submit_record_count; /* submit records in the file */
	__u32 submit_record_size; /* bytes of each submit record: no stack snapshot */
	__u32 submit_slots_per_cpu; /* submit ring size per CPU, in records */
};

/* Every size and offset is ABI; C11 static_assert needs a message. */
#define I915_STALL_LAYOUT(type, member, off) \
	static_assert(offsetof(struct type, member) == (off), #type "." #member)

static_assert(sizeof(struct i915_stall_record) == 712, "size of i915_stall_record");
I915_STALL_LAYOUT(i915_stall_record, seq, 0);
I915_STALL_LAYOUT(i915_stall_record, start_ns, 8);
I915_STALL_LAYOUT(i915_stall_record, duration_ns, 16);
I915_STALL_LAYOUT(i915_stall_record, spin_ns, 24);
I915_STALL_LAYOUT(i915_stall_record, fence_context, 32);
I915_STALL_LAYOUT(i915_stall_record, fence_seqno, 40);
I915_STALL_LAYOUT(i915_stall_record, timeout_ns, 48);
I915_STALL_LAYOUT(i915_stall_record, caller, 56);
I915_STALL_LAYOUT(i915_stall_record, pid, 64);
I915_STALL_LAYOUT(i915_stall_record, tgid, 68);
I915_STALL_LAYOUT(i915_stall_record, owner_pid, 72);
I915_STALL_LAYOUT(i915_stall_record, error, 76);
I915_STALL_LAYOUT(i915_stall_record, wait_flags, 80);
I915_STALL_LAYOUT(i915_stall_record, cpu, 84);
I915_STALL_LAYOUT(i915_stall_record, site, 86);
I915_STALL_LAYOUT(i915_stall_record, outcome, 88);
I915_STALL_LAYOUT(i915_stall_record, engine_class, 89);
I915_STALL_LAYOUT(i915_stall_record, engine_instance, 90);
I915_STALL_LAYOUT(i915_stall_record, kstack_depth, 91);
I915_STALL_LAYOUT(i915_stall_record, ustack_depth, 92);
I915_STALL_LAYOUT(i915_stall_record, pad0, 93);
I915_STALL_LAYOUT(i915_stall_record, flags, 94);
I915_STALL_LAYOUT(i915_stall_record, comm, 96);
I915_STALL_LAYOUT(i915_stall_record, owner_comm, 112);
I915_STALL_LAYOUT(i915_stall_record, kstack, 128);
I915_STALL_LAYOUT(i915_stall_record, ustack, 384);
I915_STALL_LAYOUT(i915_stall_record, fence_count, 640);
I915_STALL_LAYOUT(i915_stall_record, sync_flags, 644);
I915_STALL_LAYOUT(i915_stall_record, ustack_size, 648);
I915_STALL_LAYOUT(i915_stall_record, map_count, 652);
I915_STALL_LAYOUT(i915_stall_record, ahead, 654);
I915_STALL_LAYOUT(i915_stall_record, user_ip, 656);
I915_STALL_LAYOUT(i915_stall_record, user_sp, 664);
I915_STALL_LAYOUT(i915_stall_record, user_bp, 672);
I915_STALL_LAYOUT(i915_stall_record, ustack_map, 680);

static_assert(sizeof(struct i915_stall_map) == 128, "size of i915_stall_map");
I915_STALL_LAYOUT(i915_stall_map, start, 0);
I915_STALL_LAYOUT(i915_stall_map, end, 8);
I915_STALL_LAYOUT(i915_stall_map, file_offset, 16);
I915_STALL_LAYOUT(i915_stall_map, build_id, 24);
I915_STALL_LAYOUT(i915_stall_map, build_id_size, 44);
I915_STALL_LAYOUT(i915_stall_map, flags, 45);
I915_STALL_LAYOUT(i915_stall_map, pad, 46);
I915_STALL_LAYOUT(i915_stall_map, name, 48);

static_assert(sizeof(struct i915_stall_cpu_entry) == 48, "size of i915_stall_cpu_entry");
I915_STALL_LAYOUT(i915_stall_cpu_entry, recorded, 0);
I915_STALL_LAYOUT(i915_stall_cpu_entry, emitted, 8);
I915_STALL_LAYOUT(i915_stall_cpu_entry, overwritten, 16);
I915_STALL_LAYOUT(i915_stall_cpu_entry, torn, 24);
I915_STALL_LAYOUT(i915_stall_cpu_entry, dropped, 32);
I915_STALL_LAYOUT(i915_stall_cpu_entry, cpu, 40);
I915_STALL_LAYOUT(i915_stall_cpu_entry, flags, 44);

static_assert(sizeof(struct i915_stall_file_header) == 344, "size of i915_stall_file_header");
I915_STALL_LAYOUT(i915_stall_file_header, magic, 0);
I915_STALL_LAYOUT(i915_stall_file_header, version_major, 8);
I915_STALL_LAYOUT(i915_stall_file_header, version_minor, 10);
I915_STALL_LAYOUT(i915_stall_file_header, header_size, 12);
I915_STALL_LAYOUT(i915_stall_file_header, record_size, 16);
I915_STALL_LAYOUT(i915_stall_file_header, cpu_entry_size, 20);
I915_STALL_LAYOUT(i915_stall_file_header, cpu_count, 24);
I915_STALL_LAYOUT(i915_stall_file_header, clock_id, 28);
I915_STALL_LAYOUT(i915_stall_file_header, cpu_table_offset, 32);
I915_STALL_LAYOUT(i915_stall_file_header, records_offset, 40);
I915_STALL_LAYOUT(i915_stall_file_header, record_count, 48);
I915_STALL_LAYOUT(i915_stall_file_header, snapshot_ns, 56);
I915_STALL_LAYOUT(i915_stall_file_header, realtime_offset_ns, 64);
I915_STALL_LAYOUT(i915_stall_file_header, threshold_ns, 72);
I915_STALL_LAYOUT(i915_stall_file_header, slots_per_cpu, 80);
I915_STALL_LAYOUT(i915_stall_file_header, flags, 84);
I915_STALL_LAYOUT(i915_stall_file_header, kstack_max, 88);
I915_STALL_LAYOUT(i915_stall_file_header, ustack_max, 90);
I915_STALL_LAYOUT(i915_stall_file_header, drm_minor, 92);
I915_STALL_LAYOUT(i915_stall_file_header, kernel_anchor_addr, 96);
I915_STALL_LAYOUT(i915_stall_file_header, i915_anchor_addr, 104);
I915_STALL_LAYOUT(i915_stall_file_header, i915_text_base, 112);
I915_STALL_LAYOUT(i915_stall_file_header, i915_text_size, 120);
I915_STALL_LAYOUT(i915_stall_file_header, kernel_anchor, 128);
I915_STALL_LAYOUT(i915_stall_file_header, i915_anchor, 160);
I915_STALL_LAYOUT(i915_stall_file_header, device, 192);
I915_STALL_LAYOUT(i915_stall_file_header, release, 224);
I915_STALL_LAYOUT(i915_stall_file_header, unattributed, 288);
I915_STALL_LAYOUT(i915_stall_file_header, map_max, 296);
I915_STALL_LAYOUT(i915_stall_file_header, ustack_snapshot_max, 300);
I915_STALL_LAYOUT(i915_stall_file_header, maps_offset, 304);
I915_STALL_LAYOUT(i915_stall_file_header, ustack_offset, 308);
I915_STALL_LAYOUT(i915_stall_file_header, submit_cpu_table_offset, 312);
I915_STALL_LAYOUT(i915_stall_file_header, submit_records_offset, 320);
I915_STALL_LAYOUT(i915_stall_file_header, submit_record_count, 328);
I915_STALL_LAYOUT(i915_stall_file_header, submit_record_size, 336);
I915_STALL_LAYOUT(i915_stall_file_header, submit_slots_per_cpu, 340);

#endif /* __I915_STALL_FORMAT_H__ */
