// SPDX-License-Identifier: MIT
/*
 * ustack-gen: writes a format 1.2 stall file of its own stall, as the kernel
 * would, without the kernel (tests/format12.sh).
 *
 *   ustack-gen plain|anon OUT
 *
 * plain: main -> run_frame -> a_submit (libusta) -> b_wait (libustb, no
 *        frame pointer) -> fake_ioctl (frameless wrapper, fake.S)
 * anon:  main -> run_anon -> anon_tramp copied to anonymous executable
 *        memory -> a_wait2 (libusta) -> fake_ioctl
 *
 * At fake_ioctl's "syscall", capture_stall() gets rip, rsp, rbp and does
 * what the kernel does for a record: ustack[] by the frame-pointer walk
 * (ustack[i] = [bp + 8], next bp = [bp], from rbp, while bp lies in the
 * stack), the stack snapshot from rsp up, and maps[]: each distinct
 * file-backed executable mapping (/proc/self/maps) that a ustack[] entry
 * or an 8-byte-aligned word of the snapshot points into, with its GNU
 * build-id (libelf/libdwelf); per ustack[] entry its map index, or
 * FRAME_ANON (anonymous executable memory), or FRAME_NOVMA.
 */
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "i915_stall_format.h"

/* a 1.2 file: its header is the first 312 bytes of a newer minor's */
#define HDR12 312u
_Static_assert(sizeof(struct i915_stall_file_header) >= HDR12, "1.2 header");

#define SNAP_MAX 16384
#define MAP_MAX 16

int a_submit(int n);
int a_wait2(int n);
void capture_stall(uint64_t ip, uint64_t sp, uint64_t bp);
void anon_tramp(void);
void anon_tramp_end(void);

static const char *out_path;

struct vma {
	uint64_t start, end, off;
	bool exec;
	char path[4096];
};

static struct vma vmas[4096];
static size_t nvmas;

static void read_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[8192];

	if (!f) {
		perror("/proc/self/maps");
		exit(2);
	}
	while (fgets(line, sizeof(line), f) && nvmas < 4096) {
		struct vma *v = &vmas[nvmas];
		char perm[8] = "", path[4096] = "";
		unsigned long long s, e, o;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &s, &e, perm, &o, path) < 4)
			continue;
		v->start = s;
		v->end = e;
		v->off = o;
		v->exec = perm[2] == 'x';
		snprintf(v->path, sizeof(v->path), "%s", path);
		nvmas++;
	}
	fclose(f);
}

static const struct vma *vma_of(uint64_t a)
{
	size_t i;

	for (i = 0; i < nvmas; i++)
		if (a >= vmas[i].start && a < vmas[i].end)
			return &vmas[i];
	return NULL;
}

static void put_map(struct i915_stall_map *m, const struct vma *v)
{
	const char *base = strrchr(v->path, '/') ? strrchr(v->path, '/') + 1 : v->path;
	int fd = open(v->path, O_RDONLY | O_CLOEXEC);
	Elf *elf;

	memset(m, 0, sizeof(*m));
	m->start = v->start;
	m->end = v->end;
	m->file_offset = v->off;
	if (strlen(v->path) < sizeof(m->name)) {
		memcpy(m->name, v->path, strlen(v->path));
		m->flags |= I915_STALL_MAP_PATH;
	} else {
		memcpy(m->name, base, strnlen(base, sizeof(m->name) - 1));
	}
	if (fd >= 0 && (elf = elf_begin(fd, ELF_C_READ_MMAP, NULL))) {
		const void *id;
		ssize_t n = dwelf_elf_gnu_build_id(elf, &id);

		if (n > 0 && n <= I915_STALL_BUILD_ID_LEN) {
			memcpy(m->build_id, id, (size_t)n);
			m->build_id_size = (__u8)n;
			m->flags |= I915_STALL_MAP_BUILD_ID;
		}
		elf_end(elf);
	}
	if (fd >= 0)
		close(fd);
}

static int map_index(struct i915_stall_record *r, struct i915_stall_map *maps, uint64_t a)
{
	const struct vma *v = vma_of(a);
	unsigned int i;

	if (!v || !v->exec)
		return I915_STALL_FRAME_NOVMA;
	if (v->path[0] != '/')
		return I915_STALL_FRAME_ANON;
	for (i = 0; i < r->map_count; i++)
		if (maps[i].start == v->start)
			return (int)i;
	if (r->map_count == MAP_MAX) {
		r->flags |= I915_STALL_F_MAPS_FULL;
		return I915_STALL_FRAME_FULL;
	}
	put_map(&maps[r->map_count], v);
	return r->map_count++;
}

void capture_stall(uint64_t ip, uint64_t sp, uint64_t bp)
{
	static unsigned char rec[sizeof(struct i915_stall_record) + MAP_MAX * sizeof(struct i915_stall_map) + SNAP_MAX] __attribute__((aligned(8)));
	struct i915_stall_record *r = (struct i915_stall_record *)(void *)rec;
	struct i915_stall_map *maps = (struct i915_stall_map *)(void *)(rec + sizeof(*r));
	unsigned char *snap = rec + sizeof(*r) + MAP_MAX * sizeof(*maps);
	struct i915_stall_file_header h;
	struct i915_stall_cpu_entry c;
	const struct vma *stack;
	uint64_t top, size, i;
	struct timespec ts;
	FILE *f;

	elf_version(EV_CURRENT);
	read_maps();
	stack = vma_of(sp);
	top = stack ? stack->end : sp;
	size = top - sp < SNAP_MAX ? top - sp : SNAP_MAX;
	memcpy(snap, (const void *)(uintptr_t)sp, size);

	memset(r, 0, sizeof(*r));
	clock_gettime(CLOCK_MONOTONIC, &ts);
	r->start_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	r->duration_ns = 2000000;
	r->timeout_ns = I915_STALL_TIMEOUT_NONE;
	r->pid = (__u32)gettid();
	r->tgid = (__u32)getpid();
	r->site = I915_STALL_SITE_REQUEST;
	r->engine_class = I915_STALL_ENGINE_NONE;
	r->fence_count = 1;
	memcpy(r->comm, "ustack-gen", 10);
	r->flags = I915_STALL_F_USER_REGS;
	r->user_ip = ip;
	r->user_sp = sp;
	r->user_bp = bp;
	r->ustack_size = (__u32)size;
	/* the kernel's frame-pointer walk */
	r->ustack[r->ustack_depth++] = ip;
	while (r->ustack_depth < I915_STALL_USTACK_MAX) {
		uint64_t next, ret;

		if (bp < sp || bp % 8 || bp + 16 > top)
			break;
		memcpy(&next, (const void *)(uintptr_t)bp, 8);
		memcpy(&ret, (const void *)(uintptr_t)(bp + 8), 8);
		r->ustack[r->ustack_depth++] = ret;
		bp = next;
	}
	if (r->ustack_depth == I915_STALL_USTACK_MAX)
		r->flags |= I915_STALL_F_USTACK_TRUNC;
	for (i = 0; i < r->ustack_depth; i++)
		r->ustack_map[i] = (__u8)map_index(r, maps, i ? r->ustack[i] - 1 : r->ustack[i]);
	for (i = 0; i + 8 <= size; i += 8) {
		uint64_t w;
		const struct vma *v;

		memcpy(&w, snap + i, 8);
		v = vma_of(w);
		if (v && v->exec && v->path[0] == '/')
			map_index(r, maps, w);
	}

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, I915_STALL_MAGIC, I915_STALL_MAGIC_LEN);
	h.version_major = 1;
	h.version_minor = 2;
	h.header_size = HDR12;
	h.record_size = sizeof(rec);
	h.cpu_entry_size = sizeof(c);
	h.cpu_count = 1;
	h.clock_id = 1;
	h.cpu_table_offset = HDR12;
	h.records_offset = HDR12 + sizeof(c);
	h.record_count = 1;
	h.snapshot_ns = r->start_ns + 1000000000;
	h.threshold_ns = 1000000;
	h.slots_per_cpu = 64;
	h.flags = I915_STALL_H_ENABLED;
	h.kstack_max = I915_STALL_KSTACK_MAX;
	h.ustack_max = I915_STALL_USTACK_MAX;
	memcpy(h.device, "0000:00:02.0", 12);
	memcpy(h.release, "6.12.0-ustack-gen", 17);
	h.map_max = MAP_MAX;
	h.ustack_snapshot_max = SNAP_MAX;
	h.maps_offset = sizeof(*r);
	h.ustack_offset = sizeof(*r) + MAP_MAX * sizeof(*maps);
	memset(&c, 0, sizeof(c));
	c.recorded = c.emitted = 1;
	c.flags = I915_STALL_CPU_POSSIBLE | I915_STALL_CPU_ONLINE;
	f = fopen(out_path, "we");
	if (!f || fwrite(&h, HDR12, 1, f) != 1 || fwrite(&c, sizeof(c), 1, f) != 1 ||
	    fwrite(rec, sizeof(rec), 1, f) != 1 || fclose(f)) {
		perror(out_path);
		exit(2);
	}
}

__attribute__((noinline)) static int run_frame(int n)
{
	volatile int x = n;

	return a_submit(x) + 1;
}

__attribute__((noinline)) static int run_anon(void)
{
	size_t len = (size_t)((uintptr_t)anon_tramp_end - (uintptr_t)anon_tramp);
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int (*tramp)(int (*)(int));

	if (p == MAP_FAILED)
		return -1;
	memcpy(p, (const void *)(uintptr_t)anon_tramp, len);
	if (mprotect(p, 4096, PROT_READ | PROT_EXEC))
		return -1;
	tramp = (int (*)(int (*)(int)))p;
	return tramp(a_wait2) + 1;
}

int main(int argc, char **argv)
{
	int rc;

	if (argc != 3) {
		fprintf(stderr, "usage: ustack-gen plain|anon OUT\n");
		return 64;
	}
	out_path = argv[2];
	rc = !strcmp(argv[1], "anon") ? run_anon() : run_frame(3);
	return rc < 0;
}
