/* SPDX-License-Identifier: MIT */
/*
 * i915-stalls: user frames, symbolized through libdwfl.
 *
 * Each record's process is an address space (struct aspace): the maps
 * recorded in an archive, the live /proc/PID/maps when the stall file is of
 * this boot and the pid was not reused since, or a reason why there are
 * none.  Each address space gets one Dwfl; each file instance mapped in it
 * becomes a module (dwfl.c) reported from its (path, build-id, placement)
 * and looked up with dwfl_module_addrinfo() and dwfl_module_getsrc().
 */
#ifndef I915_STALLS_USYM_H
#define I915_STALLS_USYM_H

#include "frame.h"
#include "maps.h"
#include "record.h"

struct usym_opts {
	const char *symfs;	/* --symfs */
	bool lines;		/* --lines: source lines from DWARF */
	bool no_demangle;	/* --no-demangle */
	bool live;		/* allow /proc (not --offline) */
};
void usym_init(const struct usym_opts *o);
void usym_cleanup(void);

struct aspace;
/* The address space r's user frames resolve in.  Stable for the program's
 * life: a cache key. */
struct aspace *usym_space(const struct stall_file *f, const struct srec *r);
/*
 * What a 1.2 record says of a frame: nothing (F_NONE: a frame found in the
 * snapshot, or a map index: the address says which map), or why the
 * kernel saved no map for it (ustack_map's FMT_FRAME_*).
 */
enum uframe_flag { UF_NONE, UF_FULL, UF_NOLOCK, UF_ANON, UF_NOVMA, UF_CHANGED, UF_COUNT };
/* The flag of ustack_map value v of record r (a map index below r's first flag). */
static inline enum uframe_flag uframe_flag_of(const struct srec *r, uint8_t v)
{
	if (v < r->frame_first)
		return UF_NONE;
	switch (v) {
	case FMT_FRAME_CHANGED: return UF_CHANGED;
	case FMT_FRAME_FULL: return UF_FULL;
	case FMT_FRAME_NOLOCK: return UF_NOLOCK;
	case FMT_FRAME_ANON: return UF_ANON;
	case FMT_FRAME_NOVMA: return UF_NOVMA;
	default: return UF_NONE;
	}
}
/* Resolve a user address: the PC (looked up as it is) or a return address
 * (looked up at addr - 1), with the record's flag for it.  The frame's
 * strings last until the next call. */
void usym_resolve(struct aspace *as, uint64_t addr, bool pc, enum uframe_flag fl,
		  struct frame *out);

/* ---- internal: aspace.c, dwfl.c and unwind.c ---- */

/* One instance of a file mapped in an address space. */
struct umod {
	const char *path;		/* as mapped (owned by the maps) */
	const struct pmap *place;	/* the mapping that places it (lowest pgoff) */
	uint64_t low, high;		/* runtime range of its mappings */
	const uint8_t *id;		/* recorded build-id, or NULL */
	size_t idlen;
	uint64_t dev, inode;		/* live maps */
	bool deleted, vdso;
	bool name_only;			/* 1.2 record map: no path to open */
	/* dwfl.c */
	signed char state;		/* 0 not reported, 1 reported, -1 failed */
	enum reason reason;		/* when failed */
	void *mod;			/* Dwfl_Module */
	uint64_t bias;
	char *file;			/* the file reported */
	struct symidx *idx;		/* its symbols by address, once looked up */
};

struct aspace {
	enum reason reason;		/* every frame unresolved so, or R_NONE */
	uint32_t tgid;
	uint32_t live_pid;		/* live maps: /proc/PID, else 0 */
	const struct archive *ar;	/* archived maps, or NULL */
	struct proc_maps pm;		/* live: owned; archive: a copy of the entry */
	uint32_t *map_mod;		/* per map: index + 1 in mods, 0 none */
	struct umod *mods;
	size_t nmods;
	uint64_t start_boot_ns;		/* live: process start, CLOCK_BOOTTIME */
	struct aspace *reused;		/* live: the space for stalls before the start */
	/* a 1.2 record's own maps: their bytes (the key), and the flags */
	unsigned char *rec_maps;
	uint16_t rec_nmaps;
	bool rec_full;			/* the record had F_MAPS_FULL */
	bool attached;			/* unwind.c: dwfl_attach_state() done */
	bool all_reported;		/* dwfl.c: every module reported (to unwind) */
	signed char cfi_fast;		/* unwind.c: 0 unknown, 1 the cache may unwind, -1 not */
	struct cfi_cache *cfi;		/* unwind.c: CFI rules by address, while the Dwfl is open */
	void *dwfl;			/* Dwfl, while open */
	struct aspace *lru_prev, *lru_next;	/* spaces with an open Dwfl */
};

extern struct usym_opts usym_o;
/* dwfl.c */
void dwfl_layer_init(void);
void dwfl_layer_end(void);
void dwfl_space_close(struct aspace *as);
/* fn is told of each space's Dwfl before it is closed (unwind.c forgets
 * what it attached and cached on it); set after dwfl_layer_init() */
void dwfl_on_close(void (*fn)(struct aspace *as));
void dwfl_resolve(struct aspace *as, struct umod *m, uint64_t addr, uint64_t a,
		  struct frame *out);
/* for unwind.c: the space's Dwfl with every module reported, or NULL */
struct Dwfl;
struct Dwfl *dwfl_space_all(struct aspace *as);

/* demangle.c: the demangled C++ name, or raw (a static buffer: copy it) */
const char *demangle(const char *raw);

#endif
