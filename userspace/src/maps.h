/* SPDX-License-Identifier: MIT */
/* i915-stalls: process memory maps, live (/proc/PID/maps) or archived. */
#ifndef I915_STALLS_MAPS_H
#define I915_STALLS_MAPS_H

#include "i915_stall_format.h"
#include "util.h"

#define BUILD_ID_MAX 32		/* the archive's limit; GNU build-ids are 20 */

struct pmap {
	uint64_t start, end, pgoff;
	uint32_t prot;		/* 1 r, 2 w, 4 x */
	char *path;		/* NULL for anonymous; "[vdso]" etc. kept */
	bool deleted;		/* the file was deleted: its path names nothing, or another file */
	bool name_only;		/* 1.2 record map: path is the file name alone, not a path */
	uint8_t build_id[BUILD_ID_MAX];
	uint8_t build_id_len;	/* 0: unknown */
	uint64_t dev, inode;	/* live maps only, else 0 */
};

struct proc_maps {
	uint32_t tgid;
	char comm[I915_STALL_COMM_LEN + 1];
	struct pmap *maps;	/* ascending, not overlapping */
	size_t nmaps;
	bool gone;		/* process could not be read at record time */
};

/* Parse /proc/PID/maps text (NUL terminated). */
void maps_parse(const char *text, struct proc_maps *pm);
/* Read a live process's maps and comm; 0 or -errno. */
int maps_read_live(uint32_t tgid, struct proc_maps *pm);
void proc_maps_free(struct proc_maps *pm);
/* The map holding address a, or NULL. */
const struct pmap *maps_find(const struct proc_maps *pm, uint64_t a);

/* Is p a path an archive may hold: absolute and normalized ("/a/b", no
 * "." or ".." component, no "//"), or a kernel pseudo-name ("[vdso]")? */
bool maps_path_ok(const char *p);

/* GNU build-id of an ELF file (regular files only): its length, 0 if none,
 * -1 if not readable as ELF. */
int elf_build_id_file(const char *path, uint8_t *id, size_t max);
/* ... of an ELF image in memory */
int elf_build_id_mem(const void *img, size_t size, uint8_t *id, size_t max);
/* lowercase hex of id, malloc()ed */
char *build_id_hex(const uint8_t *id, size_t len);

#endif
