// SPDX-License-Identifier: MIT
/* Process memory maps: /proc/PID/maps text, and build-ids of ELF files. */
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "maps.h"

void maps_parse(const char *text, struct proc_maps *pm)
{
	const char *line = text;
	size_t cap = 0;

	pm->maps = NULL;
	pm->nmaps = 0;
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char *l = xstrndup(line, len);
		unsigned long long start, end, pgoff, inode;
		unsigned int major, minor;
		char perms[8];
		int n = 0;

		if (sscanf(l, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &pgoff,
			   &major, &minor, &inode, &n) >= 7 && end > start &&
		    (!pm->nmaps || start >= pm->maps[pm->nmaps - 1].end)) {
			struct pmap *m;
			char *path = l + n;
			size_t pl;

			if (pm->nmaps == cap) {
				cap = cap ? cap * 2 : 32;
				pm->maps = xreallocarray(pm->maps, cap, sizeof(*pm->maps));
			}
			m = &pm->maps[pm->nmaps++];
			memset(m, 0, sizeof(*m));
			m->start = start;
			m->end = end;
			m->pgoff = pgoff;
			m->prot = (perms[0] == 'r') | (perms[1] == 'w') << 1 | (perms[2] == 'x') << 2;
			m->dev = (uint64_t)major << 32 | minor;
			m->inode = inode;
			pl = strlen(path);
			if (pl > 10 && !strcmp(path + pl - 10, " (deleted)")) {
				path[pl - 10] = 0;
				m->deleted = true;
			}
			if (*path)
				m->path = xstrdup(path);
		}
		free(l);
		line = nl ? nl + 1 : NULL;
	}
}

int maps_read_live(uint32_t tgid, struct proc_maps *pm)
{
	unsigned char *buf;
	size_t size;
	char path[64];
	int err;

	memset(pm, 0, sizeof(*pm));
	pm->tgid = tgid;
	snprintf(path, sizeof(path), "/proc/%u/comm", tgid);
	if (!read_all(path, &buf, &size)) {
		fixstr(pm->comm, (char *)buf, size < I915_STALL_COMM_LEN ? size : I915_STALL_COMM_LEN);
		pm->comm[strcspn(pm->comm, "\n")] = 0;
		free(buf);
	}
	snprintf(path, sizeof(path), "/proc/%u/maps", tgid);
	err = read_all(path, &buf, &size);
	if (err) {
		pm->gone = true;
		return err;
	}
	maps_parse((char *)buf, pm);
	free(buf);
	return 0;
}

void proc_maps_free(struct proc_maps *pm)
{
	size_t i;

	for (i = 0; i < pm->nmaps; i++)
		free(pm->maps[i].path);
	free(pm->maps);
	pm->maps = NULL;
	pm->nmaps = 0;
}

const struct pmap *maps_find(const struct proc_maps *pm, uint64_t a)
{
	size_t lo = 0, hi = pm->nmaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pm->maps[mid].end <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < pm->nmaps && pm->maps[lo].start <= a ? &pm->maps[lo] : NULL;
}

bool maps_path_ok(const char *p)
{
	const char *c;

	if (p[0] == '[')
		return p[strlen(p) - 1] == ']';
	if (p[0] != '/')
		return false;
	for (c = p; *c; ) {	/* at a '/' */
		const char *e = strchr(c + 1, '/');
		size_t n = e ? (size_t)(e - c - 1) : strlen(c + 1);

		if (n == 0 || (n == 1 && c[1] == '.') || (n == 2 && c[1] == '.' && c[2] == '.'))
			return false;
		if (!e)
			break;
		c = e;
	}
	return true;
}

static int build_id_of(Elf *elf, uint8_t *id, size_t max)
{
	const void *p;
	ssize_t n;

	if (!elf || elf_kind(elf) != ELF_K_ELF)
		return -1;
	n = dwelf_elf_gnu_build_id(elf, &p);
	if (n <= 0 || (size_t)n > max)
		return 0;
	memcpy(id, p, (size_t)n);
	return (int)n;
}

int elf_build_id_file(const char *path, uint8_t *id, size_t max)
{
	int fd = open_regular(path), n;
	Elf *elf;

	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	n = build_id_of(elf, id, max);
	if (elf)
		elf_end(elf);
	close(fd);
	return n;
}

int elf_build_id_mem(const void *img, size_t size, uint8_t *id, size_t max)
{
	Elf *elf = elf_memory((char *)img, size);
	int n = build_id_of(elf, id, max);

	if (elf)
		elf_end(elf);
	return n;
}

char *build_id_hex(const uint8_t *id, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	char *s = xmalloc(len * 2 + 1);
	size_t i;

	for (i = 0; i < len; i++) {
		s[2 * i] = hex[id[i] >> 4];
		s[2 * i + 1] = hex[id[i] & 15];
	}
	s[len * 2] = 0;
	return s;
}
