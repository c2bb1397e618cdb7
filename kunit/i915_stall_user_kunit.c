// SPDX-License-Identifier: MIT
/*
 * Copyright © 2026 The i915 stall log authors
 *
 * KUnit tests of the user part of the stall log, #included at the end of
 * i915_stall_user.c so they reach its static functions: suite
 * i915_stall_user.
 *
 * Test cases run in kernel threads, which have no user code that could
 * stall, so these call the capture functions directly, with registers
 * made up, on memory mapped into the test's mm (kunit_vm_mmap()): the
 * stack snapshot, how a record names the version of its user code, the
 * versions the worker reads, and the maps the snapshot fills in a record
 * of the file.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/elf.h>
#include <linux/file.h>
#include <linux/kthread.h>
#include <linux/mman.h>
#include <linux/random.h>
#include <linux/sched/task.h>
#include <linux/shmem_fs.h>

#include "i915_stall_kunit.h"

#define TEST_USTACK	512

static void user_ident_destroy(void *id)
{
	stall_ident_destroy(id);
}

static struct stall_ident *user_ident(struct kunit *test)
{
	struct stall_ident *id = stall_ident_create();

	KUNIT_ASSERT_NOT_NULL(test, id);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, user_ident_destroy, id), 0);
	return id;
}

/* A zeroed record in the layout of the file, with its snapshot. */
static struct i915_stall_record *user_file_record(struct kunit *test)
{
	struct i915_stall_record *rec = kunit_kzalloc(test, STALL_USTACK_OFFSET + TEST_USTACK,
						      GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rec);
	rec->flags = I915_STALL_F_USER_REGS;
	rec->user_sp = 0x7fff0000;
	return rec;
}

/* How a stall of the test's task now would name its user code. */
static void user_ref(struct stall_ident_ref *ref)
{
	memset(ref, 0, sizeof(*ref));
	ref->flags = STALL_REF_USER;
	if (stall_as_key_now(current->mm, &ref->key, &ref->seq))
		ref->flags |= STALL_REF_SEQ;
	ref->when = ktime_get_ns();
}

/* Name @ref as a record on this CPU does; the version, or 0 if it asked. */
static u64 user_name_ref(struct stall_ident *id, struct stall_ident_ref *ref)
{
	preempt_disable();
	stall_ident_name(id, ref);
	preempt_enable();
	return ref->version;
}

static u64 user_name(struct stall_ident *id, struct stall_ident_ref *ref)
{
	user_ref(ref);
	return user_name_ref(id, ref);
}

/* The entry this CPU keeps for the test's task, or NULL. */
static struct stall_as_entry *user_entry(struct stall_ident *id)
{
	struct stall_as_key key;
	u32 seq;

	stall_as_key_now(current->mm, &key, &seq);
	return stall_as_entry_find(this_cpu_ptr(id->cpu), &key);
}

/* The version the worker reads for the test's task now. */
static struct stall_version *user_read(struct kunit *test, struct stall_ident *id)
{
	struct stall_version *v;
	struct stall_as_key key;
	bool seq_ok;
	u32 seq;
	u64 vid;

	stall_as_key_now(current->mm, &key, &seq);
	mutex_lock(&id->work_lock);
	vid = stall_ident_read(id, &key, current->mm, &seq, &seq_ok);
	mutex_unlock(&id->work_lock);
	KUNIT_EXPECT_NE(test, vid, 0);
	mutex_lock(&id->lock);
	v = stall_version_find(id, vid);
	mutex_unlock(&id->lock);
	KUNIT_EXPECT_NOT_NULL(test, v);
	return v;
}

/* As the snapshot fills a record's maps from its reference. */
static void user_fill(struct stall_ident *id, struct i915_stall_record *rec,
		      const struct stall_ident_ref *ref)
{
	stall_ident_lock(id);
	stall_ident_fill(id, rec, ref);
	stall_ident_unlock(id);
}

static void user_fput(void *file)
{
	fput(file);
}

/* another build of the same library */
#define TEST_BUILD_ID2	"\xfe\xdc\xba\x98\x76\x54\x32\x10\xef\xcd\xab\x89\x67\x45\x23\x01\xa5\x5a\xf0\x0f"
#define TEST_BUILD_ID	"\x01\x23\x45\x67\x89\xab\xcd\xef\x10\x32\x54\x76\x98\xba\xdc\xfe\x5a\xa5\x0f\xf0"

/* An ELF shared object as far as build_id_parse() reads one. */
struct user_elf {
	struct elf64_hdr eh;
	struct elf64_phdr ph;
	struct elf64_note nh;
	char name[4];
	u8 id[20];
};

/* A 4-page shmem file named @name, an ELF file with build-id @bid or none. */
static struct file *user_elf_file_id(struct kunit *test, const char *name, const u8 *bid)
{
	struct user_elf *elf = kunit_kzalloc(test, sizeof(*elf), GFP_KERNEL);
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
	elf->ph.p_type = bid ? PT_NOTE : PT_NULL;
	elf->ph.p_offset = offsetof(struct user_elf, nh);
	elf->ph.p_filesz = sizeof(*elf) - offsetof(struct user_elf, nh);
	elf->ph.p_align = 4;
	elf->nh.n_namesz = 4;
	elf->nh.n_descsz = 20;
	elf->nh.n_type = 3;	/* NT_GNU_BUILD_ID */
	memcpy(elf->name, "GNU", 4);
	if (bid)
		memcpy(elf->id, bid, 20);

	file = shmem_file_setup(name, 4 * PAGE_SIZE, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, file);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, user_fput, file), 0);
	KUNIT_ASSERT_EQ(test, kernel_write(file, elf, sizeof(*elf), &pos), sizeof(*elf));
	return file;
}

static struct file *user_elf_file(struct kunit *test)
{
	return user_elf_file_id(test, "stall-test.so", TEST_BUILD_ID);
}

static unsigned long user_map_at(struct kunit *test, unsigned long at, struct file *file,
				 unsigned long prot, unsigned long pgoff)
{
	unsigned long addr, flags;

	flags = file ? MAP_PRIVATE : MAP_PRIVATE | MAP_ANONYMOUS;
	if (at)
		flags |= MAP_FIXED;
	addr = kunit_vm_mmap(test, file, at, PAGE_SIZE, prot, flags, pgoff << PAGE_SHIFT);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(addr));
	KUNIT_ASSERT_NE(test, addr, 0);
	return addr;
}

static unsigned long user_map(struct kunit *test, struct file *file,
			      unsigned long prot, unsigned long pgoff)
{
	return user_map_at(test, 0, file, prot, pgoff);
}

/* A new layout: a page of data mapped, which changes no executable mapping. */
static void user_remap(struct kunit *test)
{
	user_map(test, NULL, PROT_READ | PROT_WRITE, 0);
}

static int user_mm_users(void)
{
	return atomic_read(&current->mm->mm_users);
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

struct writer_lock {
	struct mm_struct *mm;
	struct completion held, release;
};

static int user_lock_fn(void *arg)
{
	struct writer_lock *wl = arg;

	mmap_write_lock(wl->mm);
	complete(&wl->held);
	wait_for_completion(&wl->release);
	mmap_write_unlock(wl->mm);
	return 0;
}

/*
 * The stack is copied up to the end of the mapping sp is in, not into the
 * next one, and not at all from device memory, from no mapping, or while
 * a writer holds the mmap lock.
 */
static void stall_user_ustack_room(struct kunit *test)
{
	struct mm_struct *mm = current->mm;	/* stall_user_init() made it */
	struct writer_lock wl = { .mm = mm };
	struct task_struct *tsk;
	struct vm_area_struct *vma;
	unsigned long a, b;
	u16 flags = 0;

	a = kunit_vm_mmap(test, NULL, 0, 4 * PAGE_SIZE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(a));
	/* a second mapping right after the first two pages, not merged */
	b = user_map_at(test, a + 2 * PAGE_SIZE, NULL, PROT_READ, 0);
	KUNIT_ASSERT_EQ(test, b, a + 2 * PAGE_SIZE);

	KUNIT_EXPECT_EQ(test, stall_ustack_room(mm, a + PAGE_SIZE + 100, SZ_16K, &flags),
			PAGE_SIZE - 100);
	KUNIT_EXPECT_EQ(test, stall_ustack_room(mm, a + 100, 256, &flags), 256);
	KUNIT_EXPECT_EQ(test, stall_ustack_room(mm, b + 8, SZ_16K, &flags), PAGE_SIZE - 8);
	KUNIT_EXPECT_EQ(test, flags, 0);
	/* unmapped */
	KUNIT_ASSERT_EQ(test, vm_munmap(a + 3 * PAGE_SIZE, PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, stall_ustack_room(mm, a + 3 * PAGE_SIZE, SZ_16K, &flags), 0);

	/* device memory: its reads may have side effects */
	mmap_write_lock(mm);
	vma = vma_lookup(mm, a);
	KUNIT_ASSERT_NOT_NULL(test, vma);
	vm_flags_set(vma, VM_IO);
	mmap_write_unlock(mm);
	KUNIT_EXPECT_EQ(test, stall_ustack_room(mm, a + 100, SZ_16K, &flags), 0);
	KUNIT_EXPECT_EQ(test, flags, 0);

	/* a writer holds the lock: nothing, and why */
	init_completion(&wl.held);
	init_completion(&wl.release);
	tsk = kthread_run(user_lock_fn, &wl, "stall_mmap_writer");
	KUNIT_ASSERT_FALSE(test, IS_ERR(tsk));
	get_task_struct(tsk);
	wait_for_completion(&wl.held);
	KUNIT_EXPECT_EQ(test, stall_ustack_room(mm, b + 8, SZ_16K, &flags), 0);
	complete(&wl.release);
	/* @wl is on this stack: the writer is gone before it is */
	kthread_stop(tsk);
	put_task_struct(tsk);
	KUNIT_EXPECT_EQ(test, flags, I915_STALL_F_USTACK_NOLOCK);
}

/* Made-up registers of 64-bit user code stopped at @ip with @sp. */
static struct pt_regs user_regs(unsigned long ip, unsigned long sp)
{
	return (struct pt_regs){
		.ip = ip, .sp = sp, .bp = sp + 64, .cs = __USER_CS, .ss = __USER_DS,
	};
}

static void user_set_dumpable(int value)
{
	set_mask_bits(&current->mm->flags, MMF_DUMPABLE_MASK, value);
}

/*
 * What a record of a user task takes: the registers and the stack from
 * sp up, whose process it is; of a task whose address space is not
 * dumpable, neither registers nor stack bytes.
 */
static void stall_user_capture(struct kunit *test)
{
	struct i915_stall_record *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	u8 *ustack = kunit_kzalloc(test, TEST_USTACK, GFP_KERNEL);
	struct stall_ident_ref ref;
	struct pt_regs regs;
	unsigned long stack;
	u64 word = 0x1234567890abcdefull;
	u32 seq;

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_NOT_NULL(test, ustack);
	stack = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(stack));
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)(stack + PAGE_SIZE - 200), &word,
					   sizeof(word)), 0);
	regs = user_regs(0x401000, stack + PAGE_SIZE - 200);

	/* the test's mm is its own (stall_user_init()), nothing to restore */
	user_set_dumpable(SUID_DUMP_USER);
	stall_capture_user(s, ustack, TEST_USTACK, &ref, &regs);
	KUNIT_EXPECT_EQ(test, s->flags, I915_STALL_F_USER_REGS);
	KUNIT_EXPECT_EQ(test, s->user_ip, 0x401000);
	KUNIT_EXPECT_EQ(test, s->user_sp, stack + PAGE_SIZE - 200);
	KUNIT_EXPECT_EQ(test, s->user_bp, stack + PAGE_SIZE - 136);
	/* to the end of its mapping: 200 bytes of the 512 */
	KUNIT_EXPECT_EQ(test, s->ustack_size, 200);
	KUNIT_EXPECT_EQ(test, *(u64 *)ustack, word);
	KUNIT_EXPECT_EQ(test, ref.flags & STALL_REF_USER, STALL_REF_USER);
	KUNIT_EXPECT_PTR_EQ(test, ref.key.mm, current->mm);
	KUNIT_EXPECT_EQ(test, ref.key.tgid, current->tgid);
	KUNIT_EXPECT_EQ(test, ref.key.exec_id, current->self_exec_id);
	KUNIT_EXPECT_EQ(test, !!(ref.flags & STALL_REF_SEQ),
			IS_ENABLED(CONFIG_PER_VMA_LOCK));
	if (IS_ENABLED(CONFIG_PER_VMA_LOCK)) {
		KUNIT_EXPECT_TRUE(test, stall_as_key_now(current->mm, &ref.key, &seq));
		KUNIT_EXPECT_EQ(test, ref.seq, seq);
	}
	KUNIT_EXPECT_EQ(test, ref.version, 0);

	memset(s, 0, sizeof(*s));
	memset(ustack, 0, TEST_USTACK);
	user_set_dumpable(SUID_DUMP_DISABLE);
	stall_capture_user(s, ustack, TEST_USTACK, &ref, &regs);
	KUNIT_EXPECT_EQ(test, s->flags, I915_STALL_F_USTACK_NODUMP);
	KUNIT_EXPECT_EQ(test, s->user_ip, 0);
	KUNIT_EXPECT_EQ(test, s->user_sp, 0);
	KUNIT_EXPECT_EQ(test, s->user_bp, 0);
	KUNIT_EXPECT_EQ(test, s->ustack_size, 0);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(ustack, 0, TEST_USTACK));
	/* but it still names its process, for its frames */
	KUNIT_EXPECT_EQ(test, ref.flags & STALL_REF_USER, STALL_REF_USER);

	/*
	 * No buffer: all the room is left for the slot, and the copy into it
	 * stops at the end of the mapping, as above.
	 */
	memset(s, 0, sizeof(*s));
	user_set_dumpable(SUID_DUMP_USER);
	stall_capture_user(s, NULL, TEST_USTACK, &ref, &regs);
	KUNIT_EXPECT_EQ(test, s->flags, I915_STALL_F_USER_REGS);
	KUNIT_EXPECT_EQ(test, s->ustack_size, TEST_USTACK);
	stall_copy_user_stack(s, ustack);
	KUNIT_EXPECT_EQ(test, s->ustack_size, 200);
	KUNIT_EXPECT_EQ(test, *(u64 *)ustack, word);
	/* the stack unmapped in between: nothing copied, and it says so */
	KUNIT_ASSERT_EQ(test, vm_munmap(stack, PAGE_SIZE), 0);
	memset(ustack, 0, TEST_USTACK);
	s->ustack_size = 200;
	stall_copy_user_stack(s, ustack);
	KUNIT_EXPECT_EQ(test, s->ustack_size, 0);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(ustack, 0, TEST_USTACK));

	/* A kernel thread: nothing of the user part at all. */
	memset(s, 0, sizeof(*s));
	stall_fill_user(s, ustack, TEST_USTACK, &ref);
	KUNIT_EXPECT_EQ(test, s->flags, I915_STALL_F_KTHREAD);
	KUNIT_EXPECT_EQ(test, ref.flags, 0);
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
 * A version holds every executable mapping, in address order, with what
 * names its file; anonymous executable memory is marked; data is not in
 * it.
 */
static void stall_user_version(struct kunit *test)
{
	struct stall_ident *id = user_ident(test);
	struct file *file = user_elf_file(test);
	unsigned long text, text2, jit;
	struct stall_version *v;

	/* top-down: each mapping below the last */
	text = user_map(test, file, PROT_READ | PROT_EXEC, 0);
	text2 = user_map(test, file, PROT_READ | PROT_EXEC, 1);
	jit = user_map(test, NULL, PROT_READ | PROT_WRITE | PROT_EXEC, 0);
	user_map(test, file, PROT_READ, 0);

	v = user_read(test, id);
	KUNIT_ASSERT_NOT_NULL(test, v);
	KUNIT_EXPECT_EQ(test, v->id, 1);
	KUNIT_EXPECT_EQ(test, v->flags, 0);
	KUNIT_EXPECT_EQ(test, v->exec_vm, current->mm->exec_vm);
	KUNIT_EXPECT_EQ(test, v->t_lo, v->t_hi);
	KUNIT_ASSERT_EQ(test, v->count, 3);
	KUNIT_EXPECT_EQ(test, v->maps[0].start, jit);
	KUNIT_EXPECT_EQ(test, v->maps[0].end, jit + PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, v->maps[0].flags, STALL_MAP_ANON);
	KUNIT_EXPECT_NULL(test, v->src[0].file.inode);
	expect_test_map(test, &v->maps[1], text2, PAGE_SIZE, true);
	expect_test_map(test, &v->maps[2], text, 0, true);
	KUNIT_EXPECT_PTR_EQ(test, v->src[2].file.inode, file_inode(file));
	KUNIT_EXPECT_EQ(test, v->src[2].pgoff, 0);
	KUNIT_EXPECT_EQ(test, v->src[1].pgoff, 1);
	KUNIT_EXPECT_EQ(test, v->src[2].vm_flags, VM_READ | VM_EXEC);
}

/* A file with no build-id: none, and that is remembered too. */
static void stall_user_no_build_id(struct kunit *test)
{
	struct stall_ident *id = user_ident(test);
	struct file *file = user_elf_file_id(test, "stall-test.so", NULL);
	unsigned long text = user_map(test, file, PROT_READ | PROT_EXEC, 0);
	struct stall_version *v = user_read(test, id);
	struct stall_file *f;
	unsigned int i;
	bool found = false;

	KUNIT_ASSERT_NOT_NULL(test, v);
	KUNIT_ASSERT_EQ(test, v->count, 1);
	expect_test_map(test, &v->maps[0], text, 0, false);
	f = stall_file_set(id, file_inode(file));
	for (i = 0; i < STALL_FILE_WAYS; i++)
		if (stall_file_id_match(&f[i].id, file_inode(file)))
			found = !f[i].build_id_size;
	KUNIT_EXPECT_TRUE(test, found);
}

/*
 * A path longer than a map holds: the file name alone, truncated, with no
 * MAP_PATH; the reader finds the file by its build-id.
 */
static void stall_user_long_path(struct kunit *test)
{
	struct stall_ident *id = user_ident(test);
	char *name = kunit_kzalloc(test, I915_STALL_MAP_NAME_LEN + 20, GFP_KERNEL);
	struct stall_version *v;
	struct file *file;
	unsigned long text;

	KUNIT_ASSERT_NOT_NULL(test, name);
	memset(name, 'n', I915_STALL_MAP_NAME_LEN + 19);
	file = user_elf_file_id(test, name, TEST_BUILD_ID);
	text = user_map(test, file, PROT_READ | PROT_EXEC, 0);
	v = user_read(test, id);
	KUNIT_ASSERT_NOT_NULL(test, v);
	KUNIT_ASSERT_EQ(test, v->count, 1);
	KUNIT_EXPECT_EQ(test, v->maps[0].start, text);
	/* not unlinked: a shmem file never had a path, d_path() makes one up */
	KUNIT_EXPECT_EQ(test, v->maps[0].flags, I915_STALL_MAP_BUILD_ID);
	KUNIT_EXPECT_MEMEQ(test, v->maps[0].build_id, TEST_BUILD_ID, 20);
	/* the name as %pd reads it, NUL terminated in the 80 bytes */
	KUNIT_EXPECT_EQ(test, strlen(v->maps[0].name), I915_STALL_MAP_NAME_LEN - 1);
	KUNIT_EXPECT_MEMEQ(test, v->maps[0].name, name, I915_STALL_MAP_NAME_LEN - 1);
}

/*
 * A record of an address space this CPU has no version of asks for one,
 * holding the address space; the worker reads it and lets go; a record
 * made before the mappings change again names it, with no request.
 */
static void stall_user_name(struct kunit *test)
{
	struct stall_ident *id = user_ident(test);
	struct file *file = user_elf_file(test);
	struct stall_ident_ref ref;
	struct stall_as_entry *e;
	int users;
	u64 v;

	user_map(test, file, PROT_READ | PROT_EXEC, 0);
	users = user_mm_users();

	migrate_disable();
	/* the worker may not serve the requests behind the test's back */
	mutex_lock(&id->work_lock);
	KUNIT_EXPECT_EQ(test, user_name(id, &ref), 0);
	KUNIT_EXPECT_EQ(test, ref.flags & STALL_REF_BUSY, 0);
	e = user_entry(id);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_TRUE(test, e->pending);
	KUNIT_EXPECT_EQ(test, e->gen, 1);
	KUNIT_EXPECT_EQ(test, user_mm_users(), users + 1);
	/* asked again before the worker came: one request still */
	KUNIT_EXPECT_EQ(test, user_name(id, &ref), 0);
	KUNIT_EXPECT_EQ(test, e->gen, 2);
	KUNIT_EXPECT_EQ(test, user_mm_users(), users + 1);
	mutex_unlock(&id->work_lock);

	stall_ident_flush(id);
	KUNIT_EXPECT_FALSE(test, e->pending);
	KUNIT_EXPECT_EQ(test, user_mm_users(), users);
	KUNIT_EXPECT_EQ(test, e->version, 1);
	mutex_lock(&id->work_lock);
	v = user_name(id, &ref);
	if (IS_ENABLED(CONFIG_PER_VMA_LOCK)) {
		/* the layout did not change: named, no request */
		KUNIT_EXPECT_EQ(test, v, 1);
		KUNIT_EXPECT_FALSE(test, e->pending);
	} else {
		/* no mm_lock_seq to tell: every record asks */
		KUNIT_EXPECT_EQ(test, v, 0);
		KUNIT_EXPECT_TRUE(test, e->pending);
	}
	mutex_unlock(&id->work_lock);

	/* The same, but for a record that does not know its mm_lock_seq. */
	stall_ident_flush(id);
	user_ref(&ref);
	ref.flags &= ~STALL_REF_SEQ;
	mutex_lock(&id->work_lock);
	KUNIT_EXPECT_EQ(test, user_name_ref(id, &ref), 0);
	KUNIT_EXPECT_TRUE(test, e->pending);
	mutex_unlock(&id->work_lock);
	stall_ident_flush(id);

	/* A version read over a second ago is not believed: mm_lock_seq may wrap. */
	KUNIT_EXPECT_EQ(test, e->version, 1);
	e->stamp -= STALL_AS_FRESH;
	mutex_lock(&id->work_lock);
	KUNIT_EXPECT_EQ(test, user_name(id, &ref), 0);
	KUNIT_EXPECT_TRUE(test, e->pending);
	mutex_unlock(&id->work_lock);
	stall_ident_flush(id);
	migrate_enable();
	KUNIT_EXPECT_EQ(test, user_mm_users(), users);
}

struct perturb_case {
	const char *name;
	/* change the test's address space; @text is the first file mapping */
	void (*perturb)(struct kunit *test, struct file *file, unsigned long text);
	bool many;	/* enough VMAs that the worker looks up each mapping */
	bool new_version;
};

static void perturb_data(struct kunit *test, struct file *file, unsigned long text)
{
	user_remap(test);
}

static void perturb_unmap_data(struct kunit *test, struct file *file, unsigned long text)
{
	unsigned long data = user_map(test, NULL, PROT_READ | PROT_WRITE, 0);

	KUNIT_ASSERT_EQ(test, vm_munmap(data, PAGE_SIZE), 0);
}

static void perturb_replace(struct kunit *test, struct file *file, unsigned long text)
{
	struct file *other = user_elf_file_id(test, "stall-test.so", TEST_BUILD_ID);

	/* another file of the same size at the same address: exec_vm stays */
	user_map_at(test, text, other, PROT_READ | PROT_EXEC, 0);
}

static void perturb_reoffset(struct kunit *test, struct file *file, unsigned long text)
{
	user_map_at(test, text, file, PROT_READ | PROT_EXEC, 2);
}

static void perturb_mprotect(struct kunit *test, struct file *file, unsigned long text)
{
	KUNIT_ASSERT_EQ(test, vm_munmap(text, PAGE_SIZE), 0);
	user_map_at(test, text, file, PROT_READ, 0);
}

static void perturb_new_text(struct kunit *test, struct file *file, unsigned long text)
{
	user_map(test, file, PROT_READ | PROT_EXEC, 3);
}

static void perturb_rewrite(struct kunit *test, struct file *file, unsigned long text)
{
	loff_t pos = 3 * PAGE_SIZE;
	u8 b = 0x5a;

	/* the file changed in place: a new mtime, so not the same file */
	msleep(20);
	KUNIT_ASSERT_EQ(test, kernel_write(file, &b, 1, &pos), 1);
}

static void perturb_generation(struct kunit *test, struct file *file, unsigned long text)
{
	file_inode(file)->i_generation++;
}

static void perturb_rwx(struct kunit *test, struct file *file, unsigned long text)
{
	user_map(test, NULL, PROT_READ | PROT_WRITE | PROT_EXEC, 0);
}

static const struct perturb_case perturb_cases[] = {
	{ "data mapped", perturb_data, false, false },
	{ "data mapped, many VMAs", perturb_data, true, false },
	{ "data unmapped", perturb_unmap_data, false, false },
	{ "file replaced at its address", perturb_replace, false, true },
	{ "file replaced at its address, many VMAs", perturb_replace, true, true },
	{ "file offset changed", perturb_reoffset, true, true },
	{ "code no longer executable", perturb_mprotect, true, true },
	{ "code mapped", perturb_new_text, false, true },
	{ "code mapped, many VMAs", perturb_new_text, true, true },
	{ "file rewritten", perturb_rewrite, true, true },
	{ "inode number used again", perturb_generation, false, true },
	/* seen by a walk; not by lookups: writable code is not in exec_vm */
	{ "writable code mapped", perturb_rwx, false, true },
	{ "writable code mapped, many VMAs", perturb_rwx, true, false },
};

KUNIT_ARRAY_PARAM_DESC(perturb, perturb_cases, name);

/*
 * The worker keeps the version while every executable mapping is as it
 * was, whatever else moved, and reads a new one when one changed: by one
 * lookup per mapping among many VMAs, by a walk among few.
 */
static void stall_user_holds(struct kunit *test)
{
	const struct perturb_case *p = test->param_value;
	struct stall_ident *id = user_ident(test);
	struct file *file = user_elf_file(test);
	struct stall_version *v, *w;
	unsigned long text;
	unsigned int i;
	u64 t_hi;

	text = user_map(test, file, PROT_READ | PROT_EXEC, 0);
	user_map(test, file, PROT_READ | PROT_EXEC, 1);
	/* data pages that cannot merge: read-only and writable by turns */
	for (i = 0; p->many && i < 32; i++)
		user_map(test, NULL, i & 1 ? PROT_READ : PROT_READ | PROT_WRITE, 0);

	v = user_read(test, id);
	KUNIT_ASSERT_NOT_NULL(test, v);
	KUNIT_EXPECT_EQ(test, (u64)v->count * 4 < current->mm->map_count, p->many);
	t_hi = v->t_hi;

	p->perturb(test, file, text);
	w = user_read(test, id);
	KUNIT_ASSERT_NOT_NULL(test, w);
	if (p->new_version) {
		KUNIT_EXPECT_NE(test, w->id, v->id);
		KUNIT_EXPECT_EQ(test, w->id, 2);
		KUNIT_EXPECT_GT(test, w->t_lo, t_hi);
	} else {
		KUNIT_EXPECT_PTR_EQ(test, w, v);
		KUNIT_EXPECT_EQ(test, id->next_version, 1);
		KUNIT_EXPECT_GT(test, v->t_hi, t_hi);
	}
}

/* A record of another process image each, until no entry is free. */
static void stall_user_busy(struct kunit *test)
{
	struct stall_ident *id = user_ident(test);
	struct stall_ident_ref ref;
	int users = user_mm_users();
	unsigned int i;

	user_map(test, NULL, PROT_READ | PROT_EXEC, 0);
	migrate_disable();
	mutex_lock(&id->work_lock);
	for (i = 0; i <= STALL_AS_WAYS; i++) {
		user_ref(&ref);
		ref.key.start_time += i;	/* another process */
		KUNIT_EXPECT_EQ(test, user_name_ref(id, &ref), 0);
		KUNIT_EXPECT_EQ(test, !!(ref.flags & STALL_REF_BUSY), i == STALL_AS_WAYS);
	}
	KUNIT_EXPECT_EQ(test, user_mm_users(), users + STALL_AS_WAYS);
	mutex_unlock(&id->work_lock);
	migrate_enable();

	/* The snapshot names nothing for it, for lack of room. */
	{
		struct i915_stall_record *rec = user_file_record(test);

		rec->ustack_depth = 1;
		rec->ustack[0] = 0x401000;
		user_fill(id, rec, &ref);
		KUNIT_EXPECT_EQ(test, rec->flags, I915_STALL_F_USER_REGS | I915_STALL_F_MAPS_FULL);
		KUNIT_EXPECT_EQ(test, rec->ustack_map[0], I915_STALL_FRAME_FULL);
	}
	stall_ident_flush(id);
	KUNIT_EXPECT_EQ(test, user_mm_users(), users);
}

/* Pending requests hold the address space until the log goes. */
static void stall_user_destroy_pending(struct kunit *test)
{
	struct stall_ident *id = stall_ident_create();
	struct stall_ident_ref ref;
	int users;

	KUNIT_ASSERT_NOT_NULL(test, id);
	user_map(test, NULL, PROT_READ | PROT_EXEC, 0);
	users = user_mm_users();
	migrate_disable();
	mutex_lock(&id->work_lock);
	user_name(id, &ref);
	KUNIT_EXPECT_EQ(test, user_mm_users(), users + 1);
	mutex_unlock(&id->work_lock);
	migrate_enable();
	stall_ident_destroy(id);
	KUNIT_EXPECT_EQ(test, user_mm_users(), users);
}

/*
 * Each frame names its mapping, or why there is none; a word of the stack
 * snapshot adds the mapping it points into; each mapping is saved once,
 * in the order of first use.
 */
static void stall_user_maps(struct kunit *test)
{
	struct stall_ident *id = user_ident(test);
	struct i915_stall_record *rec = user_file_record(test);
	struct file *file = user_elf_file(test);
	const struct i915_stall_map *maps = stall_rec_maps(rec);
	u64 *words = (u64 *)stall_rec_ustack(rec);
	unsigned long text, text2, jit, data;
	struct stall_ident_ref ref;

	text = user_map(test, file, PROT_READ | PROT_EXEC, 0);
	text2 = user_map(test, file, PROT_READ | PROT_EXEC, 1);
	jit = user_map(test, NULL, PROT_READ | PROT_WRITE | PROT_EXEC, 0);
	data = user_map(test, file, PROT_READ, 0);
	migrate_disable();
	user_name(id, &ref);
	stall_ident_flush(id);
	KUNIT_EXPECT_EQ(test, user_name(id, &ref), IS_ENABLED(CONFIG_PER_VMA_LOCK) ? 1 : 0);
	migrate_enable();
	stall_ident_flush(id);

	rec->ustack_depth = 6;
	rec->ustack[0] = text + 0x10;
	rec->ustack[1] = jit + 0x20;
	rec->ustack[2] = data + 8;	/* not executable */
	rec->ustack[3] = 0x10;		/* never mapped */
	rec->ustack[4] = text + 0x30;	/* the first mapping again */
	rec->ustack[5] = jit + 0x40;
	/* in the snapshot only: a return address the FP walk skipped */
	rec->ustack_size = 5 * sizeof(u64);
	words[0] = data;
	words[1] = text2 + 0x40;
	words[2] = 42;
	words[3] = jit + 8;		/* words name no anonymous memory */
	words[4] = text + 0x50;

	user_fill(id, rec, &ref);

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

/* More executable mappings than a record holds. */
static void stall_user_maps_full(struct kunit *test)
{
	struct stall_ident *id = user_ident(test);
	struct i915_stall_record *rec = user_file_record(test);
	struct file *file = user_elf_file(test);
	unsigned long text[STALL_MAP_MAX + 1];
	struct stall_ident_ref ref;
	struct stall_version *v;
	unsigned int i;

	/* offset 0 each: no two can merge into one VMA */
	for (i = 0; i < ARRAY_SIZE(text); i++) {
		text[i] = user_map(test, file, PROT_READ | PROT_EXEC, 0);
		rec->ustack[i] = text[i] + 8 * i;
	}
	rec->ustack[i] = text[3] + 0x100;
	rec->ustack_depth = i + 1;
	v = user_read(test, id);
	KUNIT_ASSERT_NOT_NULL(test, v);
	KUNIT_EXPECT_EQ(test, v->count, ARRAY_SIZE(text));
	user_ref(&ref);
	ref.version = v->id;
	user_fill(id, rec, &ref);

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
 * A version with no room for every executable mapping: a frame it does not
 * hold may be in one it left out, and says so; such a version is never
 * kept without a walk.
 */
static void stall_user_version_full(struct kunit *test)
{
	struct stall_ident *id = user_ident(test);
	struct i915_stall_record *rec = user_file_record(test);
	struct file *file = user_elf_file(test);
	unsigned long text[STALL_TABLE_MAPS + 1];
	struct stall_ident_ref ref;
	struct stall_version *v, *w;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(text); i++)
		text[i] = user_map(test, file, PROT_READ | PROT_EXEC, 0);
	v = user_read(test, id);
	KUNIT_ASSERT_NOT_NULL(test, v);
	KUNIT_EXPECT_EQ(test, v->count, STALL_TABLE_MAPS);
	KUNIT_EXPECT_EQ(test, v->flags, STALL_VERSION_FULL);
	/* the highest address, the first mapped, is left out */
	rec->ustack[0] = text[STALL_TABLE_MAPS] + 8;
	rec->ustack[1] = text[0] + 8;
	rec->ustack_depth = 2;
	user_ref(&ref);
	ref.version = v->id;
	user_fill(id, rec, &ref);
	KUNIT_EXPECT_EQ(test, rec->ustack_map[0], 0);
	KUNIT_EXPECT_EQ(test, rec->ustack_map[1], I915_STALL_FRAME_FULL);
	KUNIT_EXPECT_EQ(test, rec->flags, I915_STALL_F_USER_REGS | I915_STALL_F_MAPS_FULL);

	user_remap(test);
	w = user_read(test, id);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_EXPECT_NE(test, w->id, v->id);
}

/*
 * A record that asked is named by its time: by the version true then; by
 * the version after it if none was read before; by what the versions on
 * both sides agree on if the mappings changed between; by none if no
 * version was read since.
 */
static void stall_user_by_time(struct kunit *test)
{
	struct stall_ident *id = user_ident(test);
	struct i915_stall_record *rec = user_file_record(test);
	struct file *file = user_elf_file(test);
	/* another build at the same path: the record cannot tell them apart by name */
	struct file *other = user_elf_file_id(test, "stall-test.so", TEST_BUILD_ID2);
	struct stall_version *v1, *v2;
	unsigned long text, text2;
	struct stall_ident_ref ref;
	u64 before, between;

	text = user_map(test, file, PROT_READ | PROT_EXEC, 0);
	text2 = user_map(test, file, PROT_READ | PROT_EXEC, 1);
	user_ref(&ref);
	before = ref.when;
	v1 = user_read(test, id);
	KUNIT_ASSERT_NOT_NULL(test, v1);
	between = ktime_get_ns();
	user_map_at(test, text, other, PROT_READ | PROT_EXEC, 0);
	v2 = user_read(test, id);
	KUNIT_ASSERT_NOT_NULL(test, v2);
	KUNIT_ASSERT_NE(test, v1->id, v2->id);
	KUNIT_ASSERT_LT(test, v1->t_hi, between);
	KUNIT_ASSERT_GT(test, v2->t_lo, between);

	rec->ustack_depth = 2;
	rec->ustack[0] = text + 0x10;	/* replaced between the versions */
	rec->ustack[1] = text2 + 0x10;	/* the same in both */

	/* before the first version: named by it */
	ref.when = before;
	user_fill(id, rec, &ref);
	KUNIT_EXPECT_EQ(test, rec->flags, I915_STALL_F_USER_REGS);
	KUNIT_EXPECT_EQ(test, rec->ustack_map[0], 0);
	KUNIT_EXPECT_EQ(test, rec->ustack_map[1], 1);
	KUNIT_EXPECT_PTR_EQ(test, file_inode(file), v1->src[1].file.inode);

	/* between: what both agree on */
	rec->flags = I915_STALL_F_USER_REGS;
	rec->map_count = 0;
	ref.when = between;
	user_fill(id, rec, &ref);
	KUNIT_EXPECT_EQ(test, rec->flags, I915_STALL_F_USER_REGS | I915_STALL_F_MAPS_CHANGED);
	KUNIT_EXPECT_EQ(test, rec->ustack_map[0], I915_STALL_FRAME_CHANGED);
	KUNIT_EXPECT_EQ(test, rec->ustack_map[1], 0);
	KUNIT_ASSERT_EQ(test, rec->map_count, 1);
	KUNIT_EXPECT_EQ(test, stall_rec_maps(rec)[0].start, text2);

	/* at the second: by it */
	rec->flags = I915_STALL_F_USER_REGS;
	rec->map_count = 0;
	ref.when = v2->t_lo;
	user_fill(id, rec, &ref);
	KUNIT_EXPECT_EQ(test, rec->flags, I915_STALL_F_USER_REGS);
	KUNIT_EXPECT_EQ(test, rec->map_count, 2);

	/* after every version: not read since, named by none */
	rec->flags = I915_STALL_F_USER_REGS;
	rec->map_count = 0;
	ref.when = ktime_get_ns();
	user_fill(id, rec, &ref);
	KUNIT_EXPECT_EQ(test, rec->flags, I915_STALL_F_USER_REGS | I915_STALL_F_MAPS_FULL);
	KUNIT_EXPECT_EQ(test, rec->ustack_map[0], I915_STALL_FRAME_FULL);
	KUNIT_EXPECT_EQ(test, rec->ustack_map[1], I915_STALL_FRAME_FULL);

	/* another process: none either */
	rec->flags = I915_STALL_F_USER_REGS;
	rec->map_count = 0;
	ref.when = between;
	ref.key.tgid++;
	user_fill(id, rec, &ref);
	KUNIT_EXPECT_EQ(test, rec->flags, I915_STALL_F_USER_REGS | I915_STALL_F_MAPS_FULL);
}

/* The versions keep to their budget, oldest given up first, the newest kept. */
static void stall_user_budget(struct kunit *test)
{
	struct stall_ident *id = user_ident(test);
	struct file *file = user_elf_file(test);
	struct i915_stall_record *rec = user_file_record(test);
	struct stall_ident_ref ref;
	struct stall_version *v;
	unsigned long text;
	unsigned int i;
	u64 first = 0;

	text = user_map(test, file, PROT_READ | PROT_EXEC, 0);
	for (i = 0; i < 4; i++) {
		v = user_read(test, id);
		KUNIT_ASSERT_NOT_NULL(test, v);
		if (!first)
			first = v->id;
		perturb_generation(test, file, text);
	}
	KUNIT_EXPECT_EQ(test, id->next_version, 4);
	KUNIT_EXPECT_EQ(test, id->bytes, 4 * v->bytes);

	stall_ident_set_budget(id, 2 * v->bytes);
	KUNIT_EXPECT_EQ(test, id->bytes, 2 * v->bytes);
	KUNIT_EXPECT_NULL(test, stall_version_find(id, first));
	KUNIT_EXPECT_NULL(test, stall_version_find(id, first + 1));
	KUNIT_EXPECT_PTR_EQ(test, stall_version_find(id, v->id), v);
	stall_ident_set_budget(id, 1);
	KUNIT_EXPECT_EQ(test, id->bytes, v->bytes);
	KUNIT_EXPECT_PTR_EQ(test, stall_version_find(id, v->id), v);

	/* A record that named a version given up names nothing. */
	rec->ustack_depth = 1;
	rec->ustack[0] = text + 8;
	user_ref(&ref);
	ref.version = first;
	user_fill(id, rec, &ref);
	KUNIT_EXPECT_EQ(test, rec->flags, I915_STALL_F_USER_REGS | I915_STALL_F_MAPS_FULL);
	KUNIT_EXPECT_EQ(test, rec->ustack_map[0], I915_STALL_FRAME_FULL);
	KUNIT_EXPECT_EQ(test, rec->map_count, 0);
}

struct file_id_case {
	const char *name;
	void (*change)(struct stall_file_id *id);
	bool match;
};

static void fid_same(struct stall_file_id *id) { }
static void fid_ino(struct stall_file_id *id) { id->ino++; }
static void fid_dev(struct stall_file_id *id) { id->dev++; }
static void fid_gen(struct stall_file_id *id) { id->gen++; }
static void fid_mtime(struct stall_file_id *id) { id->mtime.tv_nsec++; }
static void fid_ctime(struct stall_file_id *id) { id->ctime.tv_sec--; }
static void fid_inode(struct stall_file_id *id) { id->inode = (void *)id; }

static const struct file_id_case file_id_cases[] = {
	{ "same", fid_same, true },
	{ "inode number", fid_ino, false },
	{ "device", fid_dev, false },
	{ "generation", fid_gen, false },
	{ "modification time", fid_mtime, false },
	{ "change time", fid_ctime, false },
	{ "another inode", fid_inode, false },
};

KUNIT_ARRAY_PARAM_DESC(file_id, file_id_cases, name);

/* What a file's build-id is remembered by: each part of it counts. */
static void stall_user_file_id(struct kunit *test)
{
	const struct file_id_case *p = test->param_value;
	struct file *file = user_elf_file(test);
	struct stall_file_id id;

	stall_file_id_get(&id, file_inode(file));
	p->change(&id);
	KUNIT_EXPECT_EQ(test, stall_file_id_match(&id, file_inode(file)), p->match);
}

/*
 * A record's reference from a ring is trusted only as far as the versions
 * it finds: hostile bytes in it (a made-up version, address space, time,
 * flags) and in a record (frames, stack pointer, words) name only what a
 * version holds, and never read past it.  Build-ids that look like the
 * headers of the tables of old are data like any other.
 */
static void stall_user_hostile(struct kunit *test)
{
	static const u8 forged[20] = {
		/* an id, then a count of 2^25 + 1 */
		0x01, 0, 0, 0, 0, 0, 0, 0, 0x01, 0, 0, 0x02, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,
	};
	struct stall_ident *id = user_ident(test);
	struct file *file = user_elf_file_id(test, "forged.so", forged);
	struct i915_stall_record *rec = user_file_record(test);
	struct stall_ident_ref ref;
	struct stall_version *v;
	unsigned int i, j;
	unsigned long text;

	text = user_map(test, file, PROT_READ | PROT_EXEC, 0);
	v = user_read(test, id);
	KUNIT_ASSERT_NOT_NULL(test, v);
	KUNIT_ASSERT_EQ(test, v->count, 1);
	KUNIT_EXPECT_MEMEQ(test, v->maps[0].build_id, forged, 20);

	for (i = 0; i < 2000; i++) {
		get_random_bytes(&ref, sizeof(ref));
		get_random_bytes(rec, STALL_USTACK_OFFSET + TEST_USTACK);
		/* as the snapshot keeps them: or it counts the copy torn */
		rec->ustack_depth %= I915_STALL_USTACK_MAX + 1;
		rec->ustack_size %= TEST_USTACK + 1;
		rec->map_count = 0;
		memset(stall_rec_maps(rec), 0, STALL_MAP_MAX * sizeof(struct i915_stall_map));
		switch (i % 4) {
		case 0:		/* the real version, the rest random */
			ref.version = v->id;
			break;
		case 1:		/* the real process, by time */
			ref.version = 0;
			ref.flags = STALL_REF_USER;
			stall_as_key_now(current->mm, &ref.key, &ref.seq);
			ref.when = v->t_lo + (ref.when % 3) - 1;
			break;
		case 2:		/* frames in the mapping */
			ref.version = v->id;
			for (j = 0; j < rec->ustack_depth; j++)
				rec->ustack[j] = text + (rec->ustack[j] & (2 * PAGE_SIZE - 1));
			break;
		default:	/* all random */
			break;
		}
		user_fill(id, rec, &ref);
		if (!(ref.flags & STALL_REF_USER))
			continue;	/* a kernel thread's: nothing to name */
		KUNIT_ASSERT_LE(test, rec->map_count, STALL_MAP_MAX);
		for (j = 0; j < rec->map_count; j++)
			KUNIT_ASSERT_EQ(test, stall_rec_maps(rec)[j].start, text);
		for (j = 0; j < rec->ustack_depth; j++)
			KUNIT_ASSERT_TRUE(test, rec->ustack_map[j] < rec->map_count ||
					  rec->ustack_map[j] >= I915_STALL_FRAME_CHANGED);
	}
}

/*
 * Through a ring and a snapshot: each record's maps from the version it
 * named, and nothing of what an older record left in the slot.
 */
struct user_rec_arg {
	struct stall_ident *id;
	unsigned long text;
	bool junk;
};

static void user_rec_fill(const struct i915_stall_rings *rings,
			  struct i915_stall_record *s, const void *data)
{
	const struct user_rec_arg *arg = data;
	u64 *words = (u64 *)stall_slot_ustack(s);
	struct stall_ident_ref *ref = stall_slot_ref(s);

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
	user_ref(ref);
	stall_ident_name(arg->id, ref);
}

static void stall_user_snapshot(struct kunit *test)
{
	struct i915_stall_log *log = i915_stall_test_log(test, TEST_SLOTS);
	struct file *file = user_elf_file(test);
	struct user_rec_arg arg = {
		.id = log->ident,
		.text = user_map(test, file, PROT_READ | PROT_EXEC, 0),
		.junk = true,
	};
	const struct i915_stall_file_header *h;
	const struct i915_stall_record *r;
	struct stall_snapshot *snap;
	size_t used;
	const u8 *b;

	mutex_lock(&log->lock);
	KUNIT_ASSERT_EQ(test, i915_stall_log_set_size(log, TEST_SLOTS, TEST_USTACK), 0);
	mutex_unlock(&log->lock);
	i915_stall_test_write(log, user_rec_fill, &arg);
	arg.junk = false;
	i915_stall_test_write(log, user_rec_fill, &arg);

	snap = i915_stall_test_snapshot(test, log);
	h = snap_header(snap);
	KUNIT_ASSERT_EQ(test, h->record_count, 2);
	KUNIT_ASSERT_EQ(test, h->record_size, 712 + 16 * 128 + TEST_USTACK);
	r = snap_rec(snap, 0);
	KUNIT_EXPECT_EQ(test, r->flags, I915_STALL_F_USER_REGS);
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
	r = snap_rec(snap, 1);
	KUNIT_EXPECT_EQ(test, r->map_count, 1);
	KUNIT_EXPECT_EQ(test, r->ustack_map[0], 0);

	/* Both named version 1; given up, it names nothing. */
	mutex_lock(&log->ident->lock);
	stall_version_free(log->ident, stall_version_find(log->ident, 1));
	mutex_unlock(&log->ident->lock);
	snap = i915_stall_test_snapshot(test, log);
	KUNIT_ASSERT_EQ(test, snap_header(snap)->record_count, 2);
	r = snap_rec(snap, 1);
	KUNIT_EXPECT_EQ(test, r->flags, I915_STALL_F_USER_REGS | I915_STALL_F_MAPS_FULL);
	KUNIT_EXPECT_EQ(test, r->map_count, 0);
	KUNIT_EXPECT_EQ(test, r->ustack_map[0], I915_STALL_FRAME_FULL);
	b = (const u8 *)r;
	KUNIT_EXPECT_TRUE(test, !memchr_inv(b + h->maps_offset, 0,
					    h->ustack_offset - h->maps_offset));
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

static void stall_user_user32(struct kunit *test)
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

static struct kunit_case stall_user_cases[] = {
	KUNIT_CASE(stall_user_copy_ustack),
	KUNIT_CASE(stall_user_ustack_room),
	KUNIT_CASE(stall_user_capture),
	KUNIT_CASE(stall_user_version),
	KUNIT_CASE(stall_user_no_build_id),
	KUNIT_CASE(stall_user_long_path),
	KUNIT_CASE(stall_user_name),
	KUNIT_CASE_PARAM(stall_user_holds, perturb_gen_params),
	KUNIT_CASE(stall_user_busy),
	KUNIT_CASE(stall_user_destroy_pending),
	KUNIT_CASE(stall_user_maps),
	KUNIT_CASE(stall_user_maps_full),
	KUNIT_CASE(stall_user_version_full),
	KUNIT_CASE(stall_user_by_time),
	KUNIT_CASE(stall_user_budget),
	KUNIT_CASE_PARAM(stall_user_file_id, file_id_gen_params),
	KUNIT_CASE(stall_user_hostile),
	KUNIT_CASE(stall_user_snapshot),
#if IS_ENABLED(CONFIG_IA32_EMULATION)
	KUNIT_CASE_PARAM(stall_user_user32, user32_gen_params),
#endif
	{}
};

/*
 * Every case runs in an address space of its own: kunit_vm_mmap() gives the
 * test's kthread an mm at its first mapping, so map one page first.
 */
static int stall_user_init(struct kunit *test)
{
	unsigned long addr = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
					   MAP_PRIVATE | MAP_ANONYMOUS, 0);

	return IS_ERR_VALUE(addr) || !addr || !current->mm ? -ENOMEM : 0;
}

static struct kunit_suite stall_user_suite = {
	.name = "i915_stall_user",
	.init = stall_user_init,
	.test_cases = stall_user_cases,
};

kunit_test_suite(stall_user_suite);
