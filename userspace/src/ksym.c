// SPDX-License-Identifier: MIT
/*
 * Kernel symbols: /proc/kallsyms, a saved kallsyms, or vmlinux plus i915.ko,
 * relocated by the KASLR anchors the stall file header carries.
 */
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <inttypes.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "ksym.h"

enum ksrc { KS_NONE, KS_KALLSYMS, KS_VMLINUX };

static struct {
	struct ksym_opts o;
	bool inited;
	enum ksrc src;
	const char *src_name;
	enum reason fail_reason;	/* why there are no kernel symbols */
	struct symtab base;	/* as read: kallsyms (any module) or vmlinux */
	struct symtab mod;	/* i915.ko .text, section relative */
	char *text;		/* kallsyms text we own */
	/* per stall file: relocated table (shared when anchors are equal) */
	Dwarf *dw;		/* --lines: vmlinux's DWARF */
	int dwfd;
	struct reloc {
		uint64_t kanchor, ianchor;
		int64_t kdelta;
		struct symtab t;
		bool built;
		bool other_kernel;	/* vmlinux of another kernel than the file's */
		char release[I915_STALL_RELEASE_LEN];
	} **rel;		/* stable pointers: cache keys */
	size_t nrel;
	const char *archive_text;
	size_t archive_len;
	char vmrelease[I915_STALL_RELEASE_LEN + 1];	/* from vmlinux's banner */
} K;

static void parse_kallsyms(char *text, struct symtab *t, size_t *zero)
{
	char *line = text;

	*zero = 0;
	while (line && *line) {
		char *nl = strchr(line, '\n'), *end, *name, *mod = NULL, *tab;
		unsigned long long a;
		char type;

		if (nl)
			*nl = 0;
		a = strtoull(line, &end, 16);
		if (end != line && end[0] == ' ' && end[1] && end[2] == ' ') {
			type = end[1];
			name = end + 3;
			tab = strchr(name, '\t');
			if (tab) {
				*tab = 0;
				mod = tab + 1;
				if (*mod == '[') {
					mod++;
					mod[strcspn(mod, "]")] = 0;
				}
			}
			if (strchr("tTwW", type) && *name) {
				if (!a)
					(*zero)++;
				else
					symtab_add(t, a, 0, name, mod, 1, false);
			}
		}
		line = nl ? nl + 1 : NULL;
	}
}

static bool load_kallsyms_text(char *text, const char *what)
{
	size_t zero;

	parse_kallsyms(text, &K.base, &zero);
	if (!K.base.n) {
		if (zero) {
			warnx_("%s: all %zu kernel symbol addresses are zero (kptr_restrict); "
			       "kernel frames stay unresolved. Hint: run as root, or set "
			       "kernel.kptr_restrict=0, or pass --kallsyms FILE or --vmlinux FILE",
			       what, zero);
			K.fail_reason = R_KALLSYMS_ZEROED;
		} else {
			warnx_("%s: no text symbols found", what);
			K.fail_reason = R_NO_KERNEL_SYMBOLS;
		}
		return false;
	}
	symtab_finish(&K.base, true);
	K.src = KS_KALLSYMS;
	K.src_name = what;
	return true;
}

/* The release in vmlinux's linux_banner, "Linux version RELEASE (...". */
static void vmlinux_release(Elf *elf, char *out, size_t len)
{
	static const char tag[] = "Linux version ";
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	*out = 0;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name, *p, *end;
		Elf_Data *d;
		GElf_Shdr sh;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".rodata"))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			return;
		p = d->d_buf;
		end = p + d->d_size;
		while ((p = memmem(p, end - p, tag, sizeof(tag) - 1))) {
			p += sizeof(tag) - 1;
			if (p < end && *p >= '0' && *p <= '9') {
				for (n = 0; n + 1 < len && p + n < end && p[n] != ' ' && p[n]; n++)
					out[n] = p[n];
				out[n] = 0;
				return;
			}
		}
		return;
	}
}

static bool load_vmlinux(const char *path)
{
	int fd = -1;
	Elf *elf = elf_open(path, &fd);

	if (!elf) {
		warnx_("%s: cannot read as ELF: %s", path, elf_errmsg(-1));
		K.fail_reason = R_VMLINUX_UNREADABLE;
		return false;
	}
	if (elf_syms(elf, SHT_SYMTAB, -1, NULL, &K.base) || !K.base.n) {
		warnx_("%s: no symbol table", path);
		K.fail_reason = R_VMLINUX_UNREADABLE;
		elf_close(elf, fd);
		return false;
	}
	vmlinux_release(elf, K.vmrelease, sizeof(K.vmrelease));
	elf_close(elf, fd);
	symtab_finish(&K.base, true);
	K.src = KS_VMLINUX;
	if (K.o.lines) {
		K.dwfd = open(path, O_RDONLY | O_CLOEXEC);
		K.dw = K.dwfd >= 0 ? dwarf_begin(K.dwfd, DWARF_C_READ) : NULL;
		if (!K.dw)
			warnx_("%s: no DWARF for --lines: %s", path, dwarf_errmsg(-1));
	}
	K.src_name = path;
	return true;
}

/*
 * i915.ko is relocatable: its symbols are section relative.  The module
 * loader lays out every SHF_ALLOC|SHF_EXECINSTR section that is not .init*
 * one after the other, each aligned, in section order, from the core text
 * base (kernel/module/main.c: layout_sections(), x86 adds no prepend).
 * Symbols get that layout's offsets; table_for() checks the layout against
 * the anchor and the recorded text base before trusting it for sections
 * other than the anchor's.
 */
static void load_module(const char *path)
{
	int fd = -1;
	Elf *elf = elf_open(path, &fd);
	size_t shstr, shnum, i;
	Elf_Scn *scn = NULL;
	uint64_t *offs, size = 0;
	struct symtab all = { 0 };

	if (!elf) {
		warnx_("%s: cannot read as ELF: %s", path, elf_errmsg(-1));
		return;
	}
	if (elf_getshdrstrndx(elf, &shstr) || elf_getshdrnum(elf, &shnum)) {
		warnx_("%s: no section headers", path);
		elf_close(elf, fd);
		return;
	}
	offs = xcalloc(shnum, sizeof(*offs));
	for (i = 0; i < shnum; i++)
		offs[i] = UINT64_MAX;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;
		uint64_t al;

		if (!gelf_getshdr(scn, &sh) || !(n = elf_strptr(elf, shstr, sh.sh_name)) ||
		    (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) != (SHF_ALLOC | SHF_EXECINSTR) ||
		    !strncmp(n, ".init", 5))
			continue;
		al = sh.sh_addralign ? sh.sh_addralign : 1;
		size = (size + al - 1) / al * al;
		offs[elf_ndxscn(scn)] = size;
		size += sh.sh_size;
	}
	if (elf_syms(elf, SHT_SYMTAB, -1, "i915", &all) || !all.n)
		warnx_("%s: no text symbols", path);
	for (i = 0; i < all.n; i++) {
		const struct sym *s = &all.s[i];

		if (s->sec >= shnum || offs[s->sec] == UINT64_MAX)
			continue;	/* .init.text: gone after loading */
		symtab_add(&K.mod, offs[s->sec] + s->addr, s->size, s->name, s->module, s->prio, true);
		K.mod.s[K.mod.n - 1].sec = s->sec;
	}
	symtab_free(&all);
	free(offs);
	elf_close(elf, fd);
	symtab_finish(&K.mod, true);
}

void ksym_init(const struct ksym_opts *o)
{
	K.o = *o;
}

void ksym_add_archive_kallsyms(const char *text, size_t len)
{
	if (!K.archive_text) {
		K.archive_text = text;
		K.archive_len = len;
	}
}

static void lazy_init(const struct stall_file *f)
{
	unsigned char *buf;
	size_t size;
	int err;

	if (K.inited)
		return;
	K.inited = true;
	K.fail_reason = R_NO_KERNEL_SYMBOLS;
	if (K.o.vmlinux) {
		if (load_vmlinux(K.o.vmlinux) && K.o.module)
			load_module(K.o.module);
		return;
	}
	if (K.o.module)
		warnx_("--i915-module is used with --vmlinux only: ignored");
	if (K.o.kallsyms) {
		err = read_all(K.o.kallsyms, &buf, &size);
		if (err) {
			warnx_("%s: %s", K.o.kallsyms, strerror(-err));
			K.fail_reason = R_KALLSYMS_UNREADABLE;
			return;
		}
		K.text = xrealloc(buf, size + 1);
		K.text[size] = 0;
		load_kallsyms_text(K.text, K.o.kallsyms);
		return;
	}
	if (K.archive_text) {
		K.text = xmalloc(K.archive_len + 1);
		memcpy(K.text, K.archive_text, K.archive_len);
		K.text[K.archive_len] = 0;
		load_kallsyms_text(K.text, "archived kallsyms");
		return;
	}
	if (K.o.live) {
		struct utsname u;
		char rel[I915_STALL_RELEASE_LEN + 1];

		fixstr(rel, f->hdr.release, I915_STALL_RELEASE_LEN);
		if (uname(&u) == 0 && strcmp(u.release, rel)) {
			warnx_("%s: recorded on kernel %s, this is %s: not using /proc/kallsyms; "
			       "pass --kallsyms or --vmlinux", f->name, rel, u.release);
			K.fail_reason = R_OTHER_KERNEL;
			return;
		}
		err = read_all("/proc/kallsyms", &buf, &size);
		if (err) {
			warnx_("/proc/kallsyms: %s", strerror(-err));
			K.fail_reason = R_KALLSYMS_UNREADABLE;
			return;
		}
		K.text = xrealloc(buf, size + 1);
		K.text[size] = 0;
		load_kallsyms_text(K.text, "/proc/kallsyms");
		return;
	}
	K.fail_reason = R_NO_KALLSYMS;
}

/* Build the table relocated for this file's anchors. */
static struct reloc *table_for(const struct stall_file *f)
{
	const struct i915_stall_file_header *h = &f->hdr;
	char kname[I915_STALL_NAME_LEN + 1], iname[I915_STALL_NAME_LEN + 1];
	const struct sym *ka, *ia = NULL;
	int64_t kdelta = 0, idelta = 0;
	bool have_i = false, isec_only = false;
	uint32_t isec = 0;
	struct reloc *r;
	size_t i;

	if (f->kview)
		return f->kview;
	for (i = 0; i < K.nrel; i++)
		if (K.rel[i]->kanchor == h->kernel_anchor_addr &&
		    K.rel[i]->ianchor == h->i915_anchor_addr &&
		    !memcmp(K.rel[i]->release, h->release, sizeof(h->release)))
			return ((struct stall_file *)f)->kview = K.rel[i];
	K.rel = xreallocarray(K.rel, K.nrel + 1, sizeof(*K.rel));
	r = K.rel[K.nrel++] = xcalloc(1, sizeof(*r));
	((struct stall_file *)f)->kview = r;
	memcpy(r->release, h->release, sizeof(r->release));
	r->kanchor = h->kernel_anchor_addr;
	r->ianchor = h->i915_anchor_addr;

	/* Another kernel's vmlinux gives wrong names: better none. */
	if (K.src == KS_VMLINUX && *K.vmrelease) {
		char rel[I915_STALL_RELEASE_LEN + 1];

		fixstr(rel, h->release, I915_STALL_RELEASE_LEN);
		if (strcmp(rel, K.vmrelease)) {
			warnx_("%s: recorded on kernel %s, but %s is %s: not using it",
			       f->name, rel, K.src_name, K.vmrelease);
			r->other_kernel = true;
			return r;
		}
	}

	fixstr(kname, h->kernel_anchor, I915_STALL_NAME_LEN);
	fixstr(iname, h->i915_anchor, I915_STALL_NAME_LEN);
	ka = *kname ? symtab_by_name(&K.base, kname, NULL) : NULL;
	if (ka)
		kdelta = (int64_t)(h->kernel_anchor_addr - ka->addr);
	else
		warnx_("%s: kernel anchor '%s' not in %s: assuming no KASLR offset", f->name, kname,
		       K.src_name);
	if (K.src == KS_KALLSYMS && (h->flags & I915_STALL_H_I915_MODULE)) {
		ia = *iname ? symtab_by_name(&K.base, iname, "i915") : NULL;
		if (ia) {
			idelta = (int64_t)(h->i915_anchor_addr - ia->addr);
			have_i = true;
		}
	} else if (K.src == KS_VMLINUX && (h->flags & I915_STALL_H_I915_MODULE) && K.mod.n) {
		ia = *iname ? symtab_by_name(&K.mod, iname, "i915") : NULL;
		if (ia) {
			idelta = (int64_t)(h->i915_anchor_addr - ia->addr);
			have_i = true;
			/* the layout holds if it puts the anchor where it was */
			isec_only = (uint64_t)idelta != h->i915_text_base;
			isec = ia->sec;
			if (isec_only)
				warnx_("%s: i915.ko's text layout does not match the recorded text base "
				       "0x%" PRIx64 ": only the anchor's section is used", f->name,
				       (uint64_t)h->i915_text_base);
		} else {
			warnx_("%s: i915 anchor '%s' not in the i915 module file", f->name, iname);
		}
	} else if (K.src == KS_VMLINUX && (h->flags & I915_STALL_H_I915_MODULE)) {
		warnx_("%s: i915 is a module: pass --i915-module i915.ko to resolve its frames",
		       f->name);
	}
	if (kdelta)
		infox("%s: KASLR offset 0x%" PRIx64 " from %s", f->name, (uint64_t)kdelta, kname);
	for (i = 0; i < K.base.n; i++) {
		const struct sym *s = &K.base.s[i];
		uint64_t d = (uint64_t)kdelta;

		if (s->module) {
			if (!strcmp(s->module, "i915") && have_i)
				d = (uint64_t)idelta;
			else if (kdelta)
				continue;	/* other modules moved: unknown where */
		}
		symtab_add(&r->t, s->addr + d, s->size, s->name, s->module, s->prio, false);
	}
	if (K.src == KS_VMLINUX && have_i)
		for (i = 0; i < K.mod.n; i++) {
			const struct sym *s = &K.mod.s[i];

			if (isec_only && s->sec != isec)
				continue;
			symtab_add(&r->t, s->addr + (uint64_t)idelta, s->size, s->name, s->module,
				   s->prio, false);
		}
	symtab_finish(&r->t, false);
	r->kdelta = kdelta;
	return r;
}

const void *ksym_view(const struct stall_file *f)
{
	static const char hidden;	/* the view of every file without addresses */

	if (f->kaddr_hidden)
		return &hidden;
	lazy_init(f);
	if (K.src == KS_NONE)
		return &K;
	return table_for(f);
}

void ksym_resolve(const struct stall_file *f, uint64_t addr, struct frame *out)
{
	uint64_t a = addr - (addr ? 1 : 0);
	const struct sym *s;
	struct reloc *rel;

	memset(out, 0, sizeof(*out));
	out->addr = addr;
	if (f->kaddr_hidden) {	/* 1.3: every kernel address in f is 0 */
		out->reason = R_KADDR_HIDDEN;
		return;
	}
	lazy_init(f);
	if (K.src == KS_NONE) {
		out->reason = K.fail_reason;
		return;
	}
	rel = table_for(f);
	if (rel->other_kernel) {
		out->reason = R_VMLINUX_OTHER_KERNEL;
		return;
	}
	s = symtab_find(&rel->t, a);
	if (!s) {
		out->reason = R_NO_SYMBOL;
		if (K.src == KS_VMLINUX && (f->hdr.flags & I915_STALL_H_I915_MODULE) &&
		    addr - f->hdr.i915_text_base < f->hdr.i915_text_size)
			out->module = "i915";
		return;
	}
	out->name = s->name;
	out->off = addr - s->addr;
	out->module = s->module;
	if (K.dw && !s->module) {	/* vmlinux code: its link-time address */
		uint64_t va = a - (uint64_t)rel->kdelta;
		Dwarf_Die cu;
		Dwarf_Line *l;
		int line;

		if (dwarf_addrdie(K.dw, va, &cu) && (l = dwarf_getsrc_die(&cu, va)) &&
		    !dwarf_lineno(l, &line) && line > 0 && (out->src = dwarf_linesrc(l, NULL, NULL)))
			out->line = line;
	}
}

void ksym_cleanup(void)
{
	size_t i;

	for (i = 0; i < K.nrel; i++) {
		symtab_free(&K.rel[i]->t);
		free(K.rel[i]);
	}
	free(K.rel);
	symtab_free(&K.base);
	symtab_free(&K.mod);
	if (K.dw)
		dwarf_end(K.dw);
	if (K.dwfd > 0)
		close(K.dwfd);
	free(K.text);
	memset(&K, 0, sizeof(K));
}
