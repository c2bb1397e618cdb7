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
 * snapshot unwinds with dwfl_attach_state() on the same Dwfl.
 */
#include <dwarf.h>
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
	bool libdw_unwind;	/* I915_STALLS_UNWIND=libdw: no rule cache */
	unsigned long unw_fast, unw_libdw, rules_hit, rules_miss;
} D;

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
	D.libdw_unwind = getenv("I915_STALLS_UNWIND") &&
			 !strcmp(getenv("I915_STALLS_UNWIND"), "libdw");
}

void dwfl_layer_end(void)
{
	size_t i;

	if (D.unw_fast || D.unw_libdw)
		infox("CFI unwinds: %lu from the rule cache, %lu by libdw; rules: %lu hits, "
		      "%lu from libdw", D.unw_fast, D.unw_libdw, D.rules_hit, D.rules_miss);
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
linear:
	return dwfl_module_addrinfo(u->mod, a, off, &sym, NULL, NULL, NULL);
}

/* ---------------------------------------------------------------- spaces */

static void cfi_cache_free(struct aspace *as);

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
	as->attached = false;
	as->all_reported = false;
	as->cfi_fast = 0;
	cfi_cache_free(as);
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

/* ---------------------------------------------------------------- unwinding */

/*
 * The snapshot unwound with CFI, as perf's util/unwind-libdw.c does: the
 * space's Dwfl gets a thread state whose memory is the snapshot alone
 * (user_sp up, ustack_size bytes; reads elsewhere fail) and whose initial
 * registers are the recorded rip, rsp and rbp (DWARF 16, 7, 6); then
 * dwfl_getthread_frames().  No frame is taken that CFI did not give: a
 * frame whose PC no CFI covers ends the walk before libdw's own fallback
 * (the frame-pointer unwinder of its x86_64 backend) could guess, and a
 * frame whose stack pointer is not the CFA its callee's CFI rule gives
 * (register + offset, the rule of all but hand-written code) is refused:
 * libdw made it some other way.
 */
static struct {
	const struct srec *r;
	struct aspace *as;
	struct ucfi *out;
	bool oob;		/* a read outside the snapshot (reset per frame) */
	bool stopped;		/* out->end is set */
	bool last_oob;		/* the step from the last frame read outside the snapshot */
	bool have_cfa;		/* the last frame's CFA, from its CFI rule */
	uint64_t cfa;
} U;

static pid_t unw_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)arg;
	if (*thread_argp)
		return 0;
	*thread_argp = &U;
	return U.r->pid ? (pid_t)U.r->pid : 1;
}

static bool unw_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	(void)arg;
	*thread_argp = &U;
	return true;
}

/* The word at addr in r's snapshot, if it lies there. */
static inline bool snap_read(const struct srec *r, uint64_t addr, uint64_t *result)
{
	if (r->snap_size < 8 || addr < r->user_sp || addr - r->user_sp > r->snap_size - 8)
		return false;
	memcpy(result, r->snap + (addr - r->user_sp), 8);
	return true;
}

static bool unw_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	uint64_t v;

	(void)dwfl;
	(void)arg;
	if (!snap_read(U.r, addr, &v)) {
		U.oob = true;
		return false;
	}
	*result = v;
	return true;
}

static bool unw_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	Dwarf_Word regs[2] = { U.r->user_bp, U.r->user_sp };	/* DWARF 6 rbp, 7 rsp */

	(void)arg;
	if (!dwfl_thread_state_registers(thread, 6, 2, regs))
		return false;
	dwfl_thread_state_register_pc(thread, U.r->user_ip);
	return true;
}

static const Dwfl_Thread_Callbacks unw_callbacks = {
	.next_thread = unw_next_thread,
	.get_thread = unw_get_thread,
	.memory_read = unw_memory_read,
	.set_initial_registers = unw_set_initial_registers,
};

/*
 * Whether the module's .eh_frame (eh) or DWARF CFI covers address a of
 * the frame state; if so, the CFA its rule gives when that is a register
 * plus an offset (U.cfa).
 */
static bool cfi_covers(Dwfl_Frame *state, Dwfl_Module *mod, bool eh, Dwarf_Addr a)
{
	Dwarf_Addr bias = 0;
	Dwarf_CFI *cfi = eh ? dwfl_module_eh_cfi(mod, &bias) : dwfl_module_dwarf_cfi(mod, &bias);
	Dwarf_Frame *fr = NULL;
	Dwarf_Op *ops;
	size_t nops;
	Dwarf_Word v;

	if (!cfi || dwarf_cfi_addrframe(cfi, a - bias, &fr))
		return false;
	U.have_cfa = false;
	if (!dwarf_frame_cfa(fr, &ops, &nops) && nops == 1) {
		unsigned int reg = ops[0].atom == DW_OP_bregx ? (unsigned int)ops[0].number :
				   ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31 ?
				   (unsigned int)(ops[0].atom - DW_OP_breg0) : ~0u;
		Dwarf_Word off = ops[0].atom == DW_OP_bregx ? ops[0].number2 : ops[0].number;

		if (reg != ~0u && !dwfl_frame_reg(state, reg, &v)) {
			U.cfa = v + off;
			U.have_cfa = true;
		}
	}
	free(fr);
	return true;
}

/* Whether the frame at pc (a return address unless activation) can be
 * unwound by CFI; else why not, in U.out. */
static bool unw_can_step(Dwfl_Frame *state, Dwarf_Addr pc, bool activation)
{
	Dwarf_Addr a = pc - (activation || !pc ? 0 : 1);
	Dwfl_Module *mod = dwfl_addrmodule(dwfl_thread_dwfl(dwfl_frame_thread(state)), a);

	U.have_cfa = false;
	if (mod && (cfi_covers(state, mod, true, a) || cfi_covers(state, mod, false, a)))
		return true;
	U.out->end = mod || maps_find(&U.as->pm, a) ? UEND_NO_CFI : UEND_NO_MAP;
	U.out->end_addr = pc;
	U.stopped = true;
	return false;
}

/*
 * Each frame as libdw gives it.  dwfl_frame_pc() asked for isactivation
 * unwinds the frame first (to see whether its caller is a signal frame),
 * so the reads of the step from this frame to the next happen in it:
 * U.oob says after it whether that step read outside the snapshot.
 */
static int unw_frame(Dwfl_Frame *state, void *arg)
{
	struct ucfi *o = U.out;
	Dwarf_Addr pc;
	Dwarf_Word sp = 0;
	bool act, step_oob;

	(void)arg;
	U.oob = false;
	if (!dwfl_frame_pc(state, &pc, &act)) {
		o->end = UEND_ERROR;
		o->end_addr = o->n ? o->pc[o->n - 1] : U.r->user_ip;
		U.stopped = true;
		return DWARF_CB_ABORT;
	}
	step_oob = U.oob;
	if (dwfl_frame_reg(state, 7, &sp))
		sp = o->n ? 0 : U.r->user_sp;
	if (o->n && U.have_cfa && sp != U.cfa) {
		/* not what the CFI rule gives: libdw's fallback made it */
		o->end = U.last_oob ? UEND_SNAPSHOT : UEND_ERROR;
		o->end_addr = o->pc[o->n - 1];
		U.stopped = true;
		return DWARF_CB_ABORT;
	}
	if (o->n == USTACK_CFI_MAX) {
		o->end = UEND_DEPTH;
		o->end_addr = pc;
		U.stopped = true;
		return DWARF_CB_ABORT;
	}
	o->pc[o->n] = pc;
	o->sp[o->n] = sp;
	o->activation[o->n] = act;
	o->n++;
	U.last_oob = step_oob;
	if (!unw_can_step(state, pc, act))
		return DWARF_CB_ABORT;
	return DWARF_CB_OK;
}

/*
 * The same walk from rules cached per address space: what libdw's CFI says at each lookup address (the PC of the
 * first frame, the return address - 1 of the others) is asked once per
 * Dwfl, as dwarf_cfi_addrframe(), dwarf_frame_cfa() and
 * dwarf_frame_register() give it, and each record is then unwound by
 * reading its snapshot, with the steps of elfutils 0.188's
 * __libdwfl_frame_unwind() and handle_cfi() for the x86_64 backend (17
 * registers, rip the return address register, no address mask, no
 * return address offset) and expr_eval() for the rules compilers emit:
 * undefined, same value, offset(N), val_offset(N), register(R), the CFA a
 * register plus an offset.  Every register is unwound, so that the reads
 * outside the snapshot, which decide the end reasons, are libdw's.  A
 * rule outside that set (an expression, a signal frame's CIE, another
 * return address register) sends the record to dwfl_getthread_frames():
 * so the frames, their stack pointers and the end are the same either way
 * (I915_STALLS_UNWIND=libdw unwinds every record with libdw, to compare;
 * tests/format12.sh does).
 */
#define UNW_NREGS 17		/* x86_64: ebl_frame_nregs() */
#define CFI_CACHE_MAX 4096	/* rules per space; then the cache starts again */

enum { CE_EMPTY, CE_RULES, CE_STOP, CE_SLOW };
enum { RR_UNDEF, RR_SAME, RR_OFF, RR_VALOFF, RR_REG };

/* A register's rule other than undefined and same value. */
struct cfi_rule {
	uint8_t reg;
	uint8_t rule;		/* RR_OFF, RR_VALOFF, RR_REG */
	int32_t arg;		/* the offset, or RR_REG's register */
};

/*
 * The rules at one lookup address, as a step uses them: the registers
 * whose rule is same value as a mask; the offset(N) rules, then the
 * val_offset(N) ones, then the register(R) ones, in a list; a register in
 * neither is undefined (most of the 17 are, at most call sites).  The
 * offset rules' registers as a mask, and the lowest and highest N, so
 * that a step checks once that all their reads lie in the snapshot.
 */
struct cfi_ent {
	uint64_t a;		/* the lookup address */
	uint8_t kind;		/* CE_*; CE_STOP: no CFI covers a */
	uint8_t end;		/* CE_STOP: UEND_NO_CFI or UEND_NO_MAP */
	uint8_t cfa_reg;	/* the CFA is cfa_reg + cfa_off */
	uint8_t nrules, noff, nvaloff;	/* rules: noff, nvaloff, then register(R) */
	int32_t cfa_off;
	uint32_t same;		/* bit i: register i's rule is same value */
	uint32_t off_regs, valoff_regs;	/* the offset and val_offset rules' registers */
	int32_t off_min, off_max;	/* their N, if noff */
	struct cfi_rule rules[UNW_NREGS];
};

/* v as an entry's offset, if it fits */
static bool put_off(uint64_t v, int32_t *off)
{
	*off = (int32_t)(int64_t)v;
	return (int64_t)*off == (int64_t)v;
}

struct cfi_cache {
	struct cfi_ent *t;
	size_t n, cap;
};

static void cfi_cache_free(struct aspace *as)
{
	if (as->cfi) {
		free(as->cfi->t);
		free(as->cfi);
		as->cfi = NULL;
	}
}

/* One register's rule as handle_cfi() evaluates it; false: not expressible. */
static bool reg_rule(Dwarf_Frame *fr, int regno, uint8_t *rule, int32_t *arg)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;

	if (dwarf_frame_register(fr, regno, mem, &ops, &nops))
		return false;
	*arg = 0;
	if (nops == 0) {
		if (ops == mem)
			*rule = RR_UNDEF;
		else if (!ops)
			*rule = RR_SAME;
		else
			return false;
		return true;
	}
	if (nops == 1 && (ops[0].atom == DW_OP_regx ||
			  (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31))) {
		uint64_t reg = ops[0].atom == DW_OP_regx ? ops[0].number :
			       (uint64_t)(ops[0].atom - DW_OP_reg0);

		*arg = (int32_t)reg;
		*rule = RR_REG;
		return reg < UNW_NREGS;
	}
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	*rule = RR_OFF;
	ops++;
	nops--;
	if (nops && ops[0].atom == DW_OP_plus_uconst) {
		if (!put_off(ops[0].number, arg))
			return false;
		ops++;
		nops--;
	}
	if (nops && ops[0].atom == DW_OP_stack_value) {
		*rule = RR_VALOFF;
		ops++;
		nops--;
	}
	return nops == 0;
}

/* The rules of one Dwarf_Frame, or CE_SLOW. */
static void frame_rules(Dwarf_Frame *fr, struct cfi_ent *e)
{
	Dwarf_Op *ops;
	size_t nops;
	bool signal = false;
	int ra = dwarf_frame_info(fr, NULL, NULL, &signal), i, k;
	static const uint8_t order[3] = { RR_OFF, RR_VALOFF, RR_REG };
	struct cfi_rule kind[UNW_NREGS];
	unsigned int n = 0;
	uint64_t reg, off;

	e->kind = CE_SLOW;
	if (ra != UNW_NREGS - 1 || signal || dwarf_frame_cfa(fr, &ops, &nops) || nops != 1)
		return;
	if (ops[0].atom == DW_OP_bregx) {
		reg = ops[0].number;
		off = ops[0].number2;
	} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		reg = ops[0].atom - DW_OP_breg0;
		off = ops[0].number;
	} else {
		return;
	}
	if (reg >= UNW_NREGS || !put_off(off, &e->cfa_off))
		return;
	e->cfa_reg = (uint8_t)reg;
	for (i = 0; i < UNW_NREGS; i++) {
		uint8_t rule;
		int32_t arg;

		if (!reg_rule(fr, i, &rule, &arg))
			return;
		if (rule == RR_SAME)
			e->same |= 1u << i;
		else if (rule != RR_UNDEF)
			kind[n++] = (struct cfi_rule){ (uint8_t)i, rule, arg };
	}
	/* the list by rule: offset, val_offset, register */
	for (k = 0; k < 3; k++)
		for (i = 0; i < (int)n; i++) {
			const struct cfi_rule *q = &kind[i];

			if (q->rule != order[k])
				continue;
			e->rules[e->nrules++] = *q;
			if (q->rule == RR_OFF) {
				if (!e->noff++ || q->arg < e->off_min)
					e->off_min = q->arg;
				if (e->noff == 1 || q->arg > e->off_max)
					e->off_max = q->arg;
				e->off_regs |= 1u << q->reg;
			} else if (q->rule == RR_VALOFF) {
				e->nvaloff++;
				e->valoff_regs |= 1u << q->reg;
			}
		}
	e->kind = CE_RULES;
}

/* What libdw's CFI says at lookup address a: unw_can_step()'s and
 * __libdwfl_frame_unwind()'s lookup (the module, its .eh_frame, then its
 * DWARF CFI). */
static void cfi_lookup(struct aspace *as, Dwfl *dwfl, uint64_t a, struct cfi_ent *e)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, a);
	int k;

	memset(e, 0, sizeof(*e));
	e->a = a;
	for (k = 0; mod && k < 2; k++) {
		Dwarf_Addr bias = 0;
		Dwarf_CFI *cfi = k ? dwfl_module_dwarf_cfi(mod, &bias) : dwfl_module_eh_cfi(mod, &bias);
		Dwarf_Frame *fr = NULL;

		if (cfi && !dwarf_cfi_addrframe(cfi, a - bias, &fr)) {
			frame_rules(fr, e);
			free(fr);
			return;
		}
	}
	e->kind = CE_STOP;
	e->end = mod || maps_find(&as->pm, a) ? UEND_NO_CFI : UEND_NO_MAP;
}

static const struct cfi_ent *cfi_get(struct aspace *as, Dwfl *dwfl, uint64_t a)
{
	struct cfi_cache *c = as->cfi;
	size_t i;

	if (!c)
		c = as->cfi = xcalloc(1, sizeof(*c));
	if (c->cap)
		for (i = hash_mix(0xcf1, a) & (c->cap - 1); c->t[i].kind != CE_EMPTY;
		     i = (i + 1) & (c->cap - 1))
			if (c->t[i].a == a) {
				D.rules_hit++;
				return &c->t[i];
			}
	D.rules_miss++;
	if (c->n >= CFI_CACHE_MAX) {	/* start again */
		memset(c->t, 0, c->cap * sizeof(*c->t));
		c->n = 0;
	}
	if ((c->n + 1) * 2 > c->cap) {
		struct cfi_cache old = *c;

		c->cap = c->cap ? c->cap * 2 : 64;
		c->t = xcalloc(c->cap, sizeof(*c->t));
		for (i = 0; i < old.cap; i++)
			if (old.t[i].kind != CE_EMPTY) {
				size_t j = hash_mix(0xcf1, old.t[i].a) & (c->cap - 1);

				while (c->t[j].kind != CE_EMPTY)
					j = (j + 1) & (c->cap - 1);
				c->t[j] = old.t[i];
			}
		free(old.t);
	}
	for (i = hash_mix(0xcf1, a) & (c->cap - 1); c->t[i].kind != CE_EMPTY; i = (i + 1) & (c->cap - 1))
		;
	cfi_lookup(as, dwfl, a, &c->t[i]);
	c->n++;
	return &c->t[i];
}

/* A register state: values and which are known. */
struct ustate {
	uint64_t reg[UNW_NREGS];
	uint32_t set;
	uint64_t pc;
	bool has_pc;		/* DWFL_FRAME_STATE_PC_SET */
};

#define HAS(st, r) (((st)->set >> (r)) & 1)

/* Whether the words at addr + lo and addr + hi (lo <= hi), and so all
 * between, lie in r's snapshot: snap_read() would read them all. */
static inline bool snap_holds(const struct srec *r, uint64_t addr, int32_t lo, int32_t hi)
{
	uint64_t a = addr + (uint64_t)(int64_t)lo, b = addr + (uint64_t)(int64_t)hi;

	return r->snap_size >= 8 && a <= b && a >= r->user_sp &&
	       b - r->user_sp <= r->snap_size - 8;
}

/*
 * The register(R) rules of e (rare: hand-written code) applied to s, from
 * the callee's values; the registers they set.  Before the other rules
 * are, which set other registers only.
 */
static __attribute__((noinline)) uint32_t reg_rules(const struct cfi_ent *e, struct ustate *s)
{
	const struct cfi_rule *q = e->rules + e->noff + e->nvaloff, *end = e->rules + e->nrules;
	uint64_t old[UNW_NREGS];
	uint32_t set = 0;

	memcpy(old, s->reg, sizeof(old));
	for (; q < end; q++)
		if ((s->set >> q->arg) & 1) {
			s->reg[q->reg] = old[q->arg];
			set |= 1u << q->reg;
		}
	return set;
}

/*
 * handle_cfi(): s becomes its caller's state by e's rules (in place: the
 * same-value registers stay, the undefined ones go); whether a read fell
 * outside the snapshot.  The offset rules' reads are checked against the
 * snapshot once when all lie in it (a register's rule at a call site
 * saves it near the CFA), one by one otherwise.
 */
static bool rules_step(const struct cfi_ent *e, const struct srec *r, struct ustate *s)
{
	bool cfa_ok = HAS(s, e->cfa_reg), oob = false;
	uint64_t cfa = s->reg[e->cfa_reg] + (uint64_t)(int64_t)e->cfa_off, v;
	uint32_t set = s->set & e->same;
	const struct cfi_rule *q = e->rules, *qe;

	if (e->nrules > e->noff + e->nvaloff)
		set |= reg_rules(e, s);	/* before the others change the callee's values */
	if (cfa_ok) {
		qe = q + e->noff;
		if (e->noff && snap_holds(r, cfa, e->off_min, e->off_max)) {
			for (; q < qe; q++)
				memcpy(&s->reg[q->reg],
				       r->snap + (cfa + (uint64_t)(int64_t)q->arg - r->user_sp), 8);
			set |= e->off_regs;
		} else {
			for (; q < qe; q++) {
				if (!snap_read(r, cfa + (uint64_t)(int64_t)q->arg, &v)) {
					oob = true;
					continue;
				}
				s->reg[q->reg] = v;
				set |= 1u << q->reg;
			}
		}
		for (qe += e->nvaloff; q < qe; q++)
			s->reg[q->reg] = cfa + (uint64_t)(int64_t)q->arg;
		set |= e->valoff_regs;
	}	/* else no CFA: those registers are undefined */
	/* rip undefined: no PC, as libdw's PC_UNDEFINED */
	s->set = set;
	s->has_pc = HAS(s, UNW_NREGS - 1) && s->reg[UNW_NREGS - 1];
	if (s->has_pc)
		s->pc = s->reg[UNW_NREGS - 1];
	return oob;
}

/*
 * unw_frame(), unw_can_step() and dwfl_getthread_frames() over cached
 * rules; false (out unspecified) when a rule needs libdw.  One register
 * state, stepped in place: what a frame's checks need of its own state
 * (its stack pointer, its CFA) is taken before it becomes its caller's.
 */
static bool cached_unwind(struct aspace *as, Dwfl *dwfl, const struct srec *r, struct ucfi *o)
{
	struct ustate s = { 0 };
	const struct cfi_ent *e = NULL;
	bool initial = true, have_cfa = false, last_oob = false, own_have_cfa = false;
	uint64_t cfa = 0, own_cfa = 0;

	s.set = 1u << 6 | 1u << 7;
	s.reg[6] = r->user_bp;
	s.reg[7] = r->user_sp;
	s.pc = r->user_ip;
	for (;;) {
		bool act = initial, step_oob = false;
		uint64_t pc = s.pc, sp = HAS(&s, 7) ? s.reg[7] : o->n ? 0 : r->user_sp;

		if (!initial) {
			/* dwfl_frame_pc(isactivation) unwinds this frame first */
			e = cfi_get(as, dwfl, pc - 1);
			if (e->kind == CE_SLOW)
				return false;
			if (e->kind == CE_RULES) {
				own_have_cfa = HAS(&s, e->cfa_reg);
				own_cfa = s.reg[e->cfa_reg] + (uint64_t)(int64_t)e->cfa_off;
				step_oob = rules_step(e, r, &s);
			}
		}
		if (o->n && have_cfa && sp != cfa) {
			o->end = last_oob ? UEND_SNAPSHOT : UEND_ERROR;
			o->end_addr = o->pc[o->n - 1];
			return true;
		}
		if (o->n == USTACK_CFI_MAX) {
			o->end = UEND_DEPTH;
			o->end_addr = pc;
			return true;
		}
		o->pc[o->n] = pc;
		o->sp[o->n] = sp;
		o->activation[o->n] = act;
		o->n++;
		last_oob = step_oob;
		if (initial) {
			e = cfi_get(as, dwfl, pc);
			if (e->kind == CE_SLOW)
				return false;
		}
		if (e->kind == CE_STOP) {
			o->end = e->end;
			o->end_addr = pc;
			return true;
		}
		if (initial) {
			have_cfa = HAS(&s, e->cfa_reg);
			cfa = s.reg[e->cfa_reg] + (uint64_t)(int64_t)e->cfa_off;
			rules_step(e, r, &s);	/* its reads are not looked at */
		} else {
			have_cfa = own_have_cfa;
			cfa = own_cfa;
		}
		if (!s.has_pc) {
			/* PC undefined: dwfl_getthread_frames() returns 0 */
			if (last_oob) {
				o->end = UEND_SNAPSHOT;
				o->end_addr = o->pc[o->n - 1];
			} else {
				o->end = UEND_NONE;
			}
			return true;
		}
		initial = false;
	}
}

/* Whether every module libdw may take its backend from is x86_64's, the
 * machine the rules above are for. */
static bool space_x86_64(struct aspace *as)
{
	size_t i;

	for (i = 0; i < as->nmods; i++) {
		GElf_Addr bias;
		GElf_Ehdr eh;
		Elf *elf;

		if (as->mods[i].state <= 0)
			continue;
		elf = dwfl_module_getelf(as->mods[i].mod, &bias);
		if (!elf || !gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64 ||
		    eh.e_ident[EI_CLASS] != ELFCLASS64)
			return false;
	}
	return true;
}

/* No frames yet (pc[], sp[] and activation[] are read up to n only). */
static void ucfi_clear(struct ucfi *out, const struct srec *r)
{
	out->n = 0;
	out->end = UEND_NONE;
	out->end_addr = r->user_ip;
}

void dwfl_unwind(struct aspace *as, const struct srec *r, struct ucfi *out)
{
	Dwfl *dwfl;
	size_t i;
	int rc;

	ucfi_clear(out, r);
	if (as->reason) {
		out->end = UEND_NO_MAP;
		return;
	}
	dwfl = space_dwfl(as);
	if (!dwfl) {
		out->end = UEND_ERROR;
		return;
	}
	if (!as->all_reported) {
		/* dwfl_addrmodule() must see every module the walk may enter */
		for (i = 0; i < as->nmods; i++)
			if (as->mods[i].state == 0)
				report(as, &as->mods[i]);
		as->all_reported = true;
	}
	if (!as->attached) {
		if (!dwfl_attach_state(dwfl, NULL, r->tgid ? (pid_t)r->tgid : 1, &unw_callbacks,
				       NULL)) {
			infox("tgid %u: no thread state: %s", r->tgid, dwfl_errmsg(-1));
			out->end = maps_find(&as->pm, r->user_ip) ? UEND_NO_CFI : UEND_NO_MAP;
			return;
		}
		as->attached = true;
	}
	if (!as->cfi_fast)
		as->cfi_fast = space_x86_64(as) ? 1 : -1;
	if (as->cfi_fast > 0 && !D.libdw_unwind) {
		if (cached_unwind(as, dwfl, r, out)) {
			D.unw_fast++;
			return;
		}
		ucfi_clear(out, r);
	}
	D.unw_libdw++;
	U.r = r;
	U.as = as;
	U.out = out;
	U.oob = false;
	U.stopped = false;
	rc = dwfl_getthread_frames(dwfl, r->pid ? (pid_t)r->pid : 1, unw_frame, NULL);
	if (!U.stopped) {
		/* libdw ends without an error when a read failed: a read
		 * outside the snapshot since the last frame is its end */
		if (rc == 0 && !U.last_oob) {
			out->end = UEND_NONE;
		} else {
			out->end = U.last_oob ? UEND_SNAPSHOT : UEND_ERROR;
			out->end_addr = out->n ? out->pc[out->n - 1] : r->user_ip;
			if (!U.last_oob)
				infox("tgid %u: unwinding stopped at 0x%llx: %s", r->tgid,
				      (unsigned long long)out->end_addr, dwfl_errmsg(-1));
		}
	}
	memset(&U, 0, sizeof(U));
}

const char *uend_text(enum uend e)
{
	switch (e) {
	case UEND_SNAPSHOT: return "snapshot exhausted";
	case UEND_NO_CFI: return "no CFI for";
	case UEND_NO_MAP: return "no mapping for";
	case UEND_DEPTH: return "depth limit";
	case UEND_ERROR: return "unwinding failed at";
	case UEND_COMPAT: return "32-bit task, not unwound";
	default: return NULL;
	}
}
