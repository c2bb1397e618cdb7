// SPDX-License-Identifier: MIT
/*
 * The libdwfl layer: one Dwfl per address space, one module per file
 * instance mapped in it, symbols by dwfl_module_addrinfo(), source lines by
 * dwfl_module_getsrc().
 *
 * A module is reported from what identifies the file: its path, the
 * build-id recorded for it (archives; issue 12's records carry one per
 * file) and where it is mapped.  This file finds the ELF file that may
 * stand for it:
 *   - live maps: /proc/PID/map_files (the very file mapped, even deleted or
 *     in another mount namespace), else the path if it is still the mapped
 *     inode; under --symfs, the copy there if its build-id is the mapped
 *     file's;
 *   - archived maps: the file under --symfs or at the path, if its build-id
 *     is the recorded one; else by build-id through libdwfl
 *     (dwfl_build_id_find_elf(): .build-id directories, then debuginfod when
 *     DEBUGINFOD_URLS is set); else the separate debug file of that
 *     build-id alone, whose symbols and program headers are enough.
 * A file whose build-id differs from the recorded one is never used.
 * Separate debug files (build-id, .gnu_debuglink with its CRC, debuginfod)
 * and MiniDebugInfo are libdwfl's standard search
 * (dwfl_standard_find_debuginfo()), under --symfs first.
 *
 * Issue 12 plugs in here: a v2 record's mapping table reports its modules
 * the same way (umod from a path, build-id and file offset), and the stack
 * snapshot unwinds with dwfl_attach_state() on the same Dwfl (unwind.c).
 */
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "archive.h"
#include "usym.h"

#define PAGE_MASK_4K (~(uint64_t)4095)
#define MAX_OPEN_DWFL 32	/* Dwfls (and their files) open at once */

static struct {
	char *debuginfo_path;	/* ":.debug:[SYMFS/usr/lib/debug:]/usr/lib/debug" */
	char **debug_dirs;	/* its absolute entries */
	size_t ndebug_dirs;
	Dwfl_Callbacks cb;
	struct aspace *lru_head, *lru_tail;	/* most recently used first */
	size_t nopen;
	bool warned_special;
	void (*on_close)(struct aspace *as);	/* dwfl_on_close() */
} D;

void dwfl_on_close(void (*fn)(struct aspace *as))
{
	D.on_close = fn;
}

/* ---------------------------------------------------------------- paths */

static void warn_special(const char *path)
{
	if (!D.warned_special)
		warnx_("%s: not a regular file: not opened (a FIFO would block); "
		       "its module is looked up without it", path);
	D.warned_special = true;
	infox("%s: not a regular file, skipped", path);
}

static char *build_id_path(const char *dir, const unsigned char *id, size_t len,
			   const char *suffix)
{
	char *hex = build_id_hex(id, len), *p;

	p = xasprintf("%s/.build-id/%.2s/%s%s", dir, hex, hex + 2, suffix);
	free(hex);
	return p;
}

static bool special_build_id_paths(const unsigned char *id, size_t len, const char *suffix)
{
	size_t i;
	bool bad = false;

	for (i = 0; i < D.ndebug_dirs && !bad; i++) {
		char *p = build_id_path(D.debug_dirs[i], id, len, suffix);

		if (path_is_special(p)) {
			warn_special(p);
			bad = true;
		}
		free(p);
	}
	return bad;
}

static bool special_path(const char *p)
{
	if (!path_is_special(p))
		return false;
	warn_special(p);
	return true;
}

/*
 * The names find_debuginfo_in_path() (elfutils' find-debuginfo.c) tries
 * for the main file file_name: LINK (or BASE.debug and BASE) in its
 * directory, in its .debug/, and under each absolute debug directory
 * followed by every tail of the file's directory, down to none.
 */
static bool special_debug_names(const char *file_name, const char *link)
{
	const char *slash = strrchr(file_name, '/');
	char *dir = slash ? xstrndup(file_name, (size_t)(slash - file_name)) : xstrdup(".");
	const char *base = slash ? slash + 1 : file_name;
	char *own = link ? NULL : xasprintf("%s.debug", base);
	const char *names[2] = { link ? link : own, link ? NULL : base };
	bool bad = false;
	size_t i, k;

	for (k = 0; k < 2 && names[k] && !bad; k++) {
		char *p1 = xasprintf("%s/%s", dir, names[k]);
		char *p2 = xasprintf("%s/.debug/%s", dir, names[k]);

		/* the main directory itself: the debuglink name only */
		bad = (k == 0 && special_path(p1)) || special_path(p2);
		free(p1);
		free(p2);
		for (i = 0; i < D.ndebug_dirs && !bad && dir[0] == '/'; i++) {
			const char *sub = dir;

			for (;;) {
				char *p;

				sub = strchr(sub, '/');
				if (sub && !*++sub)
					break;
				p = sub ? xasprintf("%s/%s/%s", D.debug_dirs[i], sub, names[k])
					: xasprintf("%s/%s", D.debug_dirs[i], names[k]);
				bad = special_path(p);
				free(p);
				if (bad || !sub)
					break;
			}
		}
	}
	free(dir);
	free(own);
	return bad;
}

/*
 * libdwfl opens its candidate debug files with a blocking open(): check
 * the names dwfl_standard_find_debuginfo() tries before letting it, so
 * that a FIFO planted among them cannot hang the reader: by build-id,
 * then by name next to the main file and, as libdwfl does when the main
 * file is a symbolic link (/proc/PID/map_files/...), next to its target.
 * (A FIFO created between this check and libdwfl's open() is not caught.)
 */
static bool special_debug_paths(Dwfl_Module *mod, const char *file_name, const char *link)
{
	const unsigned char *id;
	GElf_Addr va;
	int idlen = dwfl_module_build_id(mod, &id, &va);
	char *canon;
	bool bad;

	if (idlen > 0 && special_build_id_paths(id, (size_t)idlen, ".debug"))
		return true;
	if (!file_name)
		return false;
	bad = special_debug_names(file_name, link);
	canon = bad ? NULL : realpath(file_name, NULL);
	if (canon && strcmp(canon, file_name))
		bad = special_debug_names(canon, link);
	free(canon);
	return bad;
}

/* ---------------------------------------------------------------- callbacks */

/* An ELF file with the wanted build-id (if any) at path, or why not. */
static enum reason try_file(const char *path, const uint8_t *want, size_t wantlen,
			    const struct umod *inode_of, int *fdp, Elf **elfp)
{
	struct stat st;
	const void *got;
	ssize_t n;
	Elf *elf;
	int fd = open_regular(path);

	if (fd == -EINVAL) {
		infox("%s: not a regular file", path);
		return R_NOT_REGULAR;
	}
	if (fd < 0)
		return R_NO_FILE;
	if (inode_of && (fstat(fd, &st) || st.st_ino != inode_of->inode ||
			 major(st.st_dev) != (inode_of->dev >> 32) ||
			 minor(st.st_dev) != (inode_of->dev & 0xffffffff))) {
		infox("%s: not the mapped file (another inode), ignored", path);
		close(fd);
		return R_FILE_CHANGED;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		return R_NOT_ELF;
	}
	if (want) {
		n = dwelf_elf_gnu_build_id(elf, &got);
		if (n != (ssize_t)wantlen || memcmp(got, want, wantlen)) {
			infox("%s: build-id differs from the recorded one, ignored", path);
			elf_end(elf);
			close(fd);
			return R_BUILD_ID_MISMATCH;
		}
	}
	*fdp = fd;
	*elfp = elf;
	return R_NONE;
}

/*
 * find_elf for a module reported by build-id only (its file was not found
 * by path): libdwfl's build-id search, which ends with debuginfod; else the
 * separate debug file of that build-id, as the module's only file.
 */
static int find_elf_cb(Dwfl_Module *mod, void **ud, const char *name, Dwarf_Addr base,
		       char **file_name, Elf **elfp)
{
	const unsigned char *id;
	GElf_Addr va;
	int idlen = dwfl_module_build_id(mod, &id, &va), fd;
	size_t i;

	*elfp = NULL;
	if (idlen <= 0 || special_build_id_paths(id, (size_t)idlen, ""))
		return -1;
	fd = dwfl_build_id_find_elf(mod, ud, name, base, file_name, elfp);
	if (fd >= 0 || *elfp)
		return fd;
	if (special_build_id_paths(id, (size_t)idlen, ".debug"))
		return -1;
	for (i = 0; i < D.ndebug_dirs; i++) {
		char *p = build_id_path(D.debug_dirs[i], id, (size_t)idlen, ".debug");

		if (try_file(p, id, (size_t)idlen, NULL, &fd, elfp) == R_NONE) {
			infox("%s: only its debug file %s", name, p);
			free(*file_name);
			*file_name = p;
			return fd;
		}
		free(p);
	}
	return -1;
}

static int find_debuginfo_cb(Dwfl_Module *mod, void **ud, const char *modname, GElf_Addr base,
			     const char *file_name, const char *link, GElf_Word crc,
			     char **debuginfo_file_name)
{
	if (special_debug_paths(mod, file_name, link))
		return -1;
	return dwfl_standard_find_debuginfo(mod, ud, modname, base, file_name, link, crc,
					    debuginfo_file_name);
}

void dwfl_layer_init(void)
{
	const char *symfs = usym_o.symfs;

	if (symfs && *symfs) {
		/* libdwfl searches .build-id only under absolute directories */
		char *abs = symfs[0] == '/' ? NULL : realpath(symfs, NULL);

		if (abs)
			symfs = abs;
		D.debuginfo_path = xasprintf(":.debug:%s/usr/lib/debug:/usr/lib/debug", symfs);
		D.debug_dirs = xcalloc(2, sizeof(*D.debug_dirs));
		D.debug_dirs[D.ndebug_dirs++] = xasprintf("%s/usr/lib/debug", symfs);
		free(abs);
	} else {
		D.debuginfo_path = xstrdup(":.debug:/usr/lib/debug");
		D.debug_dirs = xcalloc(1, sizeof(*D.debug_dirs));
	}
	D.debug_dirs[D.ndebug_dirs++] = xstrdup("/usr/lib/debug");
	D.cb.find_elf = find_elf_cb;
	D.cb.find_debuginfo = find_debuginfo_cb;
	D.cb.section_address = dwfl_offline_section_address;
	D.cb.debuginfo_path = &D.debuginfo_path;
}

void dwfl_layer_end(void)
{
	size_t i;

	free(D.debuginfo_path);
	for (i = 0; i < D.ndebug_dirs; i++)
		free(D.debug_dirs[i]);
	free(D.debug_dirs);
	memset(&D, 0, sizeof(D));
}

/* ---------------------------------------------------------------- symbols */

/*
 * dwfl_module_addrinfo() reads the whole symbol table for every lookup
 * (__libdwfl_addrsym() in elfutils 0.188): 650 us a frame for a program of
 * 80k symbols, so a stall log of many distinct stacks took minutes.  Its
 * answer is kept, found faster: an index of the module's sized symbols by
 * address gives the ones that cover the address, and its choice among
 * them is redone here in the same order with the same rules (GLOBAL
 * symbols first, locals only if none covers it; the closer start, then
 * the stronger binding, then the smaller size, then the first in the
 * table).  Where that choice would involve a sizeless symbol (an address
 * no sized symbol covers) or a symbol value libdwfl resolved (function
 * descriptors), dwfl_module_addrinfo() itself answers.  The comparison
 * suite (tests/compare.py) holds the result to eu-addr2line's.
 */
struct symidx_ent {
	uint64_t value, end;	/* the symbol covers [value, end) */
	uint64_t maxend;	/* the largest end of this and every entry before */
	const char *name;
	uint32_t ndx;		/* in libdwfl's symbol table */
	uint8_t bind;		/* libdwfl's binding_value(): GLOBAL 3, WEAK 2, LOCAL 1 */
};

struct symidx {
	struct symidx_ent *e;	/* sized symbols, by value */
	size_t n;
	uint64_t *sizeless_global;	/* values of sizeless global symbols, sorted */
	size_t nsg;
	int first_global;
	bool linear;		/* always ask dwfl_module_addrinfo() */
	/* dwfl_module_addrinfo()'s answers where the index has none (between
	 * symbols, sizeless symbols), two per bound of bounds[]: at the bound
	 * itself, then in the interval after it: see gap_lookup() */
	uint64_t *bounds;
	size_t nb;
	struct gap { const char *name; uint64_t value; uint8_t state; } *gap;
};

static int cmp_ent(const void *a, const void *b)
{
	const struct symidx_ent *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return x->ndx < y->ndx ? -1 : x->ndx > y->ndx;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_ndx(const void *a, const void *b)
{
	const struct symidx_ent *x = *(const struct symidx_ent *const *)a;
	const struct symidx_ent *y = *(const struct symidx_ent *const *)b;

	return x->ndx < y->ndx ? -1 : x->ndx > y->ndx;
}

static uint8_t binding_value(const GElf_Sym *s)
{
	switch (GELF_ST_BIND(s->st_info)) {
	case STB_GLOBAL:
		return 3;
	case STB_WEAK:
		return 2;
	case STB_LOCAL:
		return 1;
	default:
		return 0;
	}
}

/*
 * Whether libdwfl matches each symbol at the one value
 * dwfl_module_getsym_info() gives: so on every machine whose elfutils
 * backend does not resolve function descriptors to code addresses
 * (resolve_sym_value: ppc64), where __libdwfl_addrsym() tries two.
 */
static bool plain_values(Dwfl_Module *mod)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	GElf_Ehdr eh;

	if (!elf || !gelf_getehdr(elf, &eh))
		return false;
	switch (eh.e_machine) {
	case EM_X86_64:
	case EM_386:
	case EM_AARCH64:
	case EM_ARM:
	case EM_RISCV:
	case EM_S390:
		return true;
	default:
		return false;
	}
}

static void bound_add(struct symidx *x, size_t *cap, uint64_t b)
{
	if (x->nb == *cap) {
		*cap = *cap ? *cap * 2 : 1024;
		x->bounds = xreallocarray(x->bounds, *cap, sizeof(*x->bounds));
	}
	x->bounds[x->nb++] = b;
}

/*
 * The bounds of gap_lookup()'s intervals: every symbol's value and end,
 * sized or not, of any type, and the start and end of every section of
 * the files they come from.  __libdwfl_addrsym() decides by comparing the
 * address with those (which symbols cover it, start at or below it, the
 * first above it, the section it lies in) and, for absolute symbols,
 * whether it equals a value: so between two bounds, bounds excluded, its
 * answer is the same symbol, or none.
 */
static void gap_bounds(struct symidx *x, Dwfl_Module *mod, int n)
{
	Elf *elfs[4] = { 0 };
	GElf_Addr biases[4] = { 0 };
	size_t cap = 0, nelf = 0, j, k;
	int i;

	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr value;
		GElf_Word shndx;
		Elf *elf;
		Dwarf_Addr bias;

		if (!dwfl_module_getsym_info(mod, i, &sym, &value, &shndx, &elf, &bias))
			continue;
		bound_add(x, &cap, value);
		if (sym.st_size)
			bound_add(x, &cap, value + sym.st_size);
		for (j = 0; j < nelf && (elfs[j] != elf || biases[j] != bias); j++)
			;
		if (j == nelf) {
			if (nelf == 4) {	/* never: one file, and its debug file */
				free(x->bounds);
				x->bounds = NULL;
				x->nb = 0;
				return;
			}
			elfs[nelf] = elf;
			biases[nelf++] = bias;
		}
	}
	for (j = 0; j < nelf; j++) {
		Elf_Scn *scn = NULL;

		while (elfs[j] && (scn = elf_nextscn(elfs[j], scn))) {
			GElf_Shdr sh;

			if (!gelf_getshdr(scn, &sh))
				continue;
			bound_add(x, &cap, sh.sh_addr + biases[j]);
			bound_add(x, &cap, sh.sh_addr + sh.sh_size + biases[j]);
		}
	}
	if (!x->nb)
		return;
	qsort(x->bounds, x->nb, sizeof(*x->bounds), cmp_u64);
	for (j = 1, k = 1; j < x->nb; j++)
		if (x->bounds[j] != x->bounds[k - 1])
			x->bounds[k++] = x->bounds[j];
	x->nb = k;
}

/*
 * dwfl_module_addrinfo() for a, asked once per interval between two
 * bounds (gap_bounds()): it reads the whole symbol table each time (some
 * 70 us on libc's debug file), and frames between symbols were 5,000 of
 * the 221,000 distinct frames of a million stalls of libc frames, and
 * half the time of their misses.  An address on a bound is asked once
 * too, its answer kept apart (a third of the questions on the libc dump
 * of docs/performance.md, section 5b).
 */
static const char *gap_lookup(struct symidx *x, Dwfl_Module *mod, uint64_t a, GElf_Off *off)
{
	size_t lo = 0, hi = x->nb;
	struct gap *g;
	const char *name;
	GElf_Sym sym;

	while (lo < hi) {	/* bounds [0, lo) are at or below a */
		size_t mid = lo + (hi - lo) / 2;

		if (x->bounds[mid] <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || lo == x->nb)
		return dwfl_module_addrinfo(mod, a, off, &sym, NULL, NULL, NULL);
	if (!x->gap)
		x->gap = xcalloc(2 * x->nb, sizeof(*x->gap));
	g = &x->gap[2 * (lo - 1) + (x->bounds[lo - 1] != a)];
	if (!g->state) {
		name = dwfl_module_addrinfo(mod, a, off, &sym, NULL, NULL, NULL);
		g->state = name ? 2 : 1;
		g->name = name;
		g->value = name ? a - *off : 0;
		return name;
	}
	if (g->state == 1)
		return NULL;
	*off = a - g->value;
	return g->name;
}

static struct symidx *symidx_build(Dwfl_Module *mod)
{
	struct symidx *x = xcalloc(1, sizeof(*x));
	int n = dwfl_module_getsymtab(mod), i;
	size_t cap = 0, sgcap = 0;

	x->first_global = dwfl_module_getsymtab_first_global(mod);
	if (n < 0 || x->first_global < 0 || !plain_values(mod)) {
		x->linear = true;
		return x;
	}
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr value;
		GElf_Word shndx;
		Elf *elf;
		Dwarf_Addr bias;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &value, &shndx, &elf, &bias);
		int type = GELF_ST_TYPE(sym.st_info);

		if (!name || !name[0] || sym.st_shndx == SHN_UNDEF || type == STT_SECTION ||
		    type == STT_FILE || type == STT_TLS)
			continue;
		if (!sym.st_size) {
			if (i >= x->first_global) {
				if (x->nsg == sgcap) {
					sgcap = sgcap ? sgcap * 2 : 64;
					x->sizeless_global = xreallocarray(x->sizeless_global, sgcap,
									   sizeof(uint64_t));
				}
				x->sizeless_global[x->nsg++] = value;
			}
			continue;
		}
		if (x->n == cap) {
			cap = cap ? cap * 2 : 256;
			x->e = xreallocarray(x->e, cap, sizeof(*x->e));
		}
		x->e[x->n++] = (struct symidx_ent){
			.value = value,
			.end = value + sym.st_size < value ? UINT64_MAX : value + sym.st_size,
			.name = name,
			.ndx = (uint32_t)i,
			.bind = binding_value(&sym),
		};
	}
	gap_bounds(x, mod, n);
	if (x->n)
		qsort(x->e, x->n, sizeof(*x->e), cmp_ent);
	for (size_t k = 0; k < x->n; k++)
		x->e[k].maxend = k && x->e[k - 1].maxend > x->e[k].end ? x->e[k - 1].maxend : x->e[k].end;
	if (x->nsg)
		qsort(x->sizeless_global, x->nsg, sizeof(uint64_t), cmp_u64);
	return x;
}

static void symidx_free(struct symidx *x)
{
	if (!x)
		return;
	free(x->e);
	free(x->sizeless_global);
	free(x->bounds);
	free(x->gap);
	free(x);
}

/* try_sym_value()'s choice among the sized symbols covering the address,
 * in table order */
static const struct symidx_ent *choose(const struct symidx_ent **c, size_t n)
{
	const struct symidx_ent *best = NULL;
	size_t i;

	if (n > 1)
		qsort(c, n, sizeof(*c), cmp_ndx);
	for (i = 0; i < n; i++) {
		const struct symidx_ent *s = c[i];
		uint64_t bs = best ? best->end - best->value : 0, ss = s->end - s->value;

		if (!best || best->value < s->value || best->bind < s->bind)
			best = s;
		else if (best->value == s->value &&
			 ((bs > ss && best->bind <= s->bind) || (bs >= ss && best->bind < s->bind)))
			best = s;
	}
	return best;
}

/* dwfl_module_addrinfo()'s name and offset for a */
static const char *lookup(struct umod *u, uint64_t a, GElf_Off *off)
{
	struct symidx *x = u->idx;
	const struct symidx_ent *stack_c[16], **c = stack_c, *best = NULL;
	size_t lo = 0, hi, n = 0, cap = 16, nglob = 0, j;
	int gstart;
	GElf_Sym sym;

	if (!x)
		x = u->idx = symidx_build(u->mod);
	if (x->linear)
		goto linear;
	hi = x->n;
	while (lo < hi) {	/* entries [0, lo) start at or below a */
		size_t mid = lo + (hi - lo) / 2;

		if (x->e[mid].value <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	gstart = x->first_global ? x->first_global : 1;
	for (j = lo; j-- > 0 && x->e[j].maxend > a;) {
		if (x->e[j].end <= a)
			continue;
		if (n == cap) {
			const struct symidx_ent **nc = xreallocarray(NULL, cap * 2, sizeof(*c));

			memcpy(nc, c, n * sizeof(*c));
			if (c != stack_c)
				free(c);
			c = nc;
			cap *= 2;
		}
		c[n++] = &x->e[j];
		nglob += x->e[j].ndx >= (uint32_t)gstart;
	}
	if (nglob) {
		/* the global pass finds one: the locals are not searched */
		for (j = 0, lo = 0; j < n; j++)
			if (c[j]->ndx >= (uint32_t)gstart)
				c[lo++] = c[j];
		best = choose(c, lo);
	} else if (x->first_global > 1 && n &&
		   (!x->nsg || !bsearch(&a, x->sizeless_global, x->nsg, sizeof(uint64_t), cmp_u64))) {
		/* the local pass, with a sized symbol to find */
		best = choose(c, n);
	}
	if (c != stack_c)
		free(c);
	if (best) {
		*off = a - best->value;
		return best->name;
	}
	if (x->nb)
		return gap_lookup(x, u->mod, a, off);
linear:
	return dwfl_module_addrinfo(u->mod, a, off, &sym, NULL, NULL, NULL);
}

/* ---------------------------------------------------------------- spaces */

static void lru_unlink(struct aspace *as)
{
	if (as->lru_prev)
		as->lru_prev->lru_next = as->lru_next;
	else
		D.lru_head = as->lru_next;
	if (as->lru_next)
		as->lru_next->lru_prev = as->lru_prev;
	else
		D.lru_tail = as->lru_prev;
	as->lru_prev = as->lru_next = NULL;
}

static void lru_front(struct aspace *as)
{
	as->lru_next = D.lru_head;
	as->lru_prev = NULL;
	if (D.lru_head)
		D.lru_head->lru_prev = as;
	D.lru_head = as;
	if (!D.lru_tail)
		D.lru_tail = as;
}

/* Close a space's Dwfl; its modules are reported again when needed (their
 * frames are cached by symbolize.c, so that is rare). */
void dwfl_space_close(struct aspace *as)
{
	size_t i;

	if (!as->dwfl)
		return;
	dwfl_end(as->dwfl);
	as->dwfl = NULL;
	as->all_reported = false;
	if (D.on_close)
		D.on_close(as);
	lru_unlink(as);
	D.nopen--;
	for (i = 0; i < as->nmods; i++)
		if (as->mods[i].state > 0) {
			as->mods[i].state = 0;
			as->mods[i].mod = NULL;
			free(as->mods[i].file);
			as->mods[i].file = NULL;
			symidx_free(as->mods[i].idx);
			as->mods[i].idx = NULL;
		}
}

static Dwfl *space_dwfl(struct aspace *as)
{
	if (as->dwfl) {
		if (D.lru_head != as) {
			lru_unlink(as);
			lru_front(as);
		}
		return as->dwfl;
	}
	if (D.nopen >= MAX_OPEN_DWFL)
		dwfl_space_close(D.lru_tail);
	as->dwfl = dwfl_begin(&D.cb);
	if (!as->dwfl)
		return NULL;
	D.nopen++;
	lru_front(as);
	return as->dwfl;
}

/* ---------------------------------------------------------------- modules */

/*
 * The load bias: the kernel maps each PT_LOAD at bias + p_vaddr (page
 * aligned) from file offset p_offset (page aligned).  The placing mapping
 * gives it for the segment at its offset.  A separate debug file's p_offset
 * values are not the main file's, so for it only the first segment (file
 * offset 0) is used.
 */
static uint64_t load_bias(Elf *elf, const struct umod *u, bool debug_only)
{
	GElf_Ehdr eh;
	size_t n, i;
	bool first = true;

	if (!gelf_getehdr(elf, &eh) || eh.e_type == ET_EXEC || elf_getphdrnum(elf, &n))
		return 0;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (first && u->place->pgoff == 0)
			return u->place->start - (ph.p_vaddr & PAGE_MASK_4K);
		first = false;
		if (!debug_only && (ph.p_offset & PAGE_MASK_4K) == u->place->pgoff)
			return u->place->start - (ph.p_vaddr & PAGE_MASK_4K);
	}
	return u->place->start - u->place->pgoff;	/* p_vaddr == p_offset */
}

static bool report_fd(Dwfl *dwfl, struct umod *u, const char *file, int fd, Elf *elf)
{
	uint64_t bias = load_bias(elf, u, false);
	Dwfl_Module *mod;

	elf_end(elf);
	dwfl_report_begin_add(dwfl);
	mod = dwfl_report_elf(dwfl, u->path, file, fd, bias, true);
	dwfl_report_end(dwfl, NULL, NULL);
	if (!mod) {
		infox("%s: %s: %s", u->path, file, dwfl_errmsg(-1));
		close(fd);
		return false;
	}
	u->mod = mod;
	u->file = xstrdup(file);
	return true;
}

/* The vDSO's image: from the archive by build-id, or the live process's. */
static int vdso_fd(const struct aspace *as, const struct umod *u)
{
	const unsigned char *img = NULL;
	unsigned char *buf = NULL;
	size_t len = 0, i;
	int fd = -1;

	if (as->ar) {
		for (i = 0; i < as->ar->nvdsos && u->id; i++)
			if ((size_t)as->ar->vdsos[i].idlen == u->idlen &&
			    !memcmp(as->ar->vdsos[i].id, u->id, u->idlen)) {
				img = as->ar->vdsos[i].img;
				len = as->ar->vdsos[i].size;
			}
	} else if (as->live_pid && u->high > u->low && u->high - u->low <= (1u << 20)) {
		char path[64];
		int mfd;

		snprintf(path, sizeof(path), "/proc/%u/mem", as->live_pid);
		mfd = open(path, O_RDONLY | O_CLOEXEC);
		len = u->high - u->low;
		buf = xmalloc(len);
		if (mfd >= 0 && pread(mfd, buf, len, (off_t)u->low) == (ssize_t)len)
			img = buf;
		if (mfd >= 0)
			close(mfd);
	}
	if (img) {
		fd = memfd_create("vdso", MFD_CLOEXEC);
		if (fd >= 0 && (write(fd, img, len) != (ssize_t)len || lseek(fd, 0, SEEK_SET))) {
			close(fd);
			fd = -1;
		}
	}
	free(buf);
	return fd;
}

static void report(struct aspace *as, struct umod *u)
{
	const char *symfs = usym_o.symfs && *usym_o.symfs ? usym_o.symfs : NULL;
	enum reason why = R_NO_FILE, r;
	Dwfl *dwfl = space_dwfl(as);
	Dwfl_Module *mod;
	GElf_Addr bias;
	Elf *elf = NULL;
	char *p = NULL;
	int fd = -1;

	u->state = -1;
	if (!dwfl) {
		u->reason = R_NO_FILE;
		return;
	}
	if (u->vdso) {
		fd = vdso_fd(as, u);
		if (fd < 0) {
			u->reason = R_NO_VDSO;
			return;
		}
		elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		if (!elf || elf_kind(elf) != ELF_K_ELF) {
			if (elf)
				elf_end(elf);
			close(fd);
			u->reason = R_NO_VDSO;
			return;
		}
		if (report_fd(dwfl, u, "[vdso]", fd, elf)) {
			u->state = 1;
			dwfl_module_getelf(u->mod, &bias);
			u->bias = bias;
		} else {
			u->reason = R_NO_VDSO;
		}
		return;
	}
	if (as->live_pid) {
		/* the very file mapped, else the path if it is still that file */
		uint8_t id[64];
		const void *got;
		ssize_t n;

		p = xasprintf("/proc/%u/map_files/%llx-%llx", as->live_pid,
			      (unsigned long long)u->place->start, (unsigned long long)u->place->end);
		why = try_file(p, NULL, 0, NULL, &fd, &elf);
		if (why != R_NONE) {
			free(p);
			p = xasprintf("/proc/%u/root%s", as->live_pid, u->path);
			why = try_file(p, NULL, 0, u, &fd, &elf);
		}
		if (why != R_NONE && !u->deleted) {
			free(p);
			p = xstrdup(u->path);
			why = try_file(p, NULL, 0, u, &fd, &elf);
		}
		if (why == R_NONE && symfs && (n = dwelf_elf_gnu_build_id(elf, &got)) > 0 &&
		    (size_t)n <= sizeof(id)) {
			/* a copy under --symfs may carry the symbols */
			char *q = xasprintf("%s%s", symfs, u->path);
			Elf *e2;
			int fd2;

			memcpy(id, got, (size_t)n);
			if (try_file(q, id, (size_t)n, NULL, &fd2, &e2) == R_NONE) {
				elf_end(elf);
				close(fd);
				free(p);
				p = q;
				fd = fd2;
				elf = e2;
				q = NULL;
			}
			free(q);
		}
	} else {
		/* archived maps: only a file with the recorded build-id will do */
		if (!u->id) {
			u->reason = R_NO_BUILD_ID;
			return;
		}
		why = R_NO_FILE;
		/* a 1.2 record's map may name the file only: by build-id then */
		if (symfs && !u->name_only) {
			p = xasprintf("%s%s", symfs, u->path);
			why = try_file(p, u->id, u->idlen, NULL, &fd, &elf);
		}
		if (why != R_NONE && !u->deleted && !u->name_only) {
			free(p);
			p = xstrdup(u->path);
			r = try_file(p, u->id, u->idlen, NULL, &fd, &elf);
			if (r == R_NONE || why == R_NO_FILE)
				why = r;
		}
	}
	if (why == R_NONE) {
		if (report_fd(dwfl, u, p, fd, elf))
			u->state = 1;
		else
			why = R_NOT_ELF;
		free(p);
		if (u->state > 0) {
			dwfl_module_getelf(u->mod, &bias);
			u->bias = bias;
		} else {
			u->reason = why;
		}
		return;
	}
	free(p);
	if (!u->id) {
		u->reason = why;
		return;
	}
	/* by build-id alone: libdwfl's search, or the debug file */
	dwfl_report_begin_add(dwfl);
	mod = dwfl_report_module(dwfl, u->path, u->place->pgoff ? u->place->start - u->place->pgoff
							       : u->place->start, u->high);
	if (mod && dwfl_module_report_build_id(mod, u->id, u->idlen, 0))
		mod = NULL;
	dwfl_report_end(dwfl, NULL, NULL);
	if (mod && dwfl_module_getelf(mod, &bias)) {
		const char *file = NULL;

		dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &file, NULL);
		u->mod = mod;
		u->bias = bias;
		u->file = xstrdup(file ? file : u->path);
		u->state = 1;
		infox("%s: by build-id: %s", u->path, u->file);
		return;
	}
	u->reason = why;
}

void dwfl_resolve(struct aspace *as, struct umod *u, uint64_t addr, uint64_t a,
		  struct frame *out)
{
	Dwarf_Addr start, end;
	const char *name;
	GElf_Off off;

	if (u->state == 0 || (u->state > 0 && !as->dwfl))
		report(as, u);
	else
		space_dwfl(as);		/* most recently used */
	if (u->state < 0) {
		out->reason = u->reason;
		return;
	}
	dwfl_module_info(u->mod, NULL, &start, &end, NULL, NULL, NULL, NULL);
	if (a < start || a >= end) {
		out->reason = R_OUTSIDE;
		return;
	}
	out->modoff = a - u->bias + (addr - a);	/* the ELF address */
	name = lookup(u, a, &off);
	if (!name) {
		out->reason = dwfl_module_getsymtab(u->mod) > 0 ? R_NO_SYMBOL : R_STRIPPED;
		return;
	}
	out->name = usym_o.no_demangle ? name : demangle(name);
	out->off = off + (addr - a);
	if (usym_o.lines) {
		Dwfl_Line *l = dwfl_module_getsrc(u->mod, a);
		const char *src;
		int line = 0;

		if (l && (src = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL)) && line > 0) {
			out->src = src;
			out->line = line;
		}
	}
}

/* The space's Dwfl with every module reported, or NULL: the unwinder's
 * dwfl_addrmodule() must see every module the walk may enter. */
struct Dwfl *dwfl_space_all(struct aspace *as)
{
	Dwfl *dwfl = space_dwfl(as);
	size_t i;

	if (!dwfl)
		return NULL;
	if (!as->all_reported) {
		for (i = 0; i < as->nmods; i++)
			if (as->mods[i].state == 0)
				report(as, &as->mods[i]);
		as->all_reported = true;
	}
	return dwfl;
}
