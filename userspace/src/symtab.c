// SPDX-License-Identifier: MIT
/* Sorted symbol tables and reading them from ELF with libelf. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symtab.h"

void symtab_add(struct symtab *t, uint64_t addr, uint64_t size, const char *name,
		const char *module, uint8_t prio, bool copy)
{
	struct sym *s;

	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 256;
		t->s = xreallocarray(t->s, t->cap, sizeof(*t->s));
	}
	if (copy) {
		if (t->nnames == t->names_cap) {
			t->names_cap = t->names_cap ? t->names_cap * 2 : 256;
			t->names = xreallocarray(t->names, t->names_cap, sizeof(*t->names));
		}
		name = t->names[t->nnames++] = xstrdup(name);
	}
	s = &t->s[t->n++];
	s->addr = addr;
	s->size = size;
	s->name = name;
	s->module = module;
	s->prio = prio;
	s->sec = 0;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->prio != y->prio)
		return x->prio > y->prio ? -1 : 1;
	if ((x->size != 0) != (y->size != 0))
		return x->size ? -1 : 1;
	return strcmp(x->name, y->name);	/* deterministic */
}

static bool same_module(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a, b);
}

void symtab_finish(struct symtab *t, bool bound_sizeless)
{
	size_t i, j;

	if (!t->n)
		return;
	/* Equal addresses stay (name lookups need them all); the best one
	 * sorts first and is the one symtab_find() returns. */
	qsort(t->s, t->n, sizeof(*t->s), cmp_sym);
	if (!bound_sizeless)
		return;
	for (i = 0; i < t->n; i++) {
		if (t->s[i].size)
			continue;
		for (j = i + 1; j < t->n && t->s[j].addr == t->s[i].addr; j++)
			;
		if (j < t->n && same_module(t->s[i].module, t->s[j].module))
			t->s[i].size = t->s[j].addr - t->s[i].addr;
		else
			t->s[i].size = 4096;	/* last of its module: perf's guess */
	}
}

const struct sym *symtab_find(const struct symtab *t, uint64_t a)
{
	size_t lo = 0, hi = t->n;
	const struct sym *s;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->s[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	lo--;
	while (lo && t->s[lo - 1].addr == t->s[lo].addr)
		lo--;
	s = &t->s[lo];
	if (s->size)
		return a - s->addr < s->size ? s : NULL;
	/* sizeless .symtab entry (assembly): up to the next symbol */
	return a - s->addr < 4096 || s + 1 < t->s + t->n ? s : NULL;
}

const struct sym *symtab_by_name(const struct symtab *t, const char *name, const char *module)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->s[i].name, name) && same_module(t->s[i].module, module))
			return &t->s[i];
	return NULL;
}

void symtab_free(struct symtab *t)
{
	size_t i;

	for (i = 0; i < t->nnames; i++)
		free(t->names[i]);
	free(t->names);
	free(t->s);
	memset(t, 0, sizeof(*t));
}

Elf *elf_open(const char *path, int *fdp)
{
	Elf *elf;
	int fd;

	fd = open_regular(path);
	if (fd < 0)
		return NULL;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		return NULL;
	}
	*fdp = fd;
	return elf;
}

void elf_close(Elf *elf, int fd)
{
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
}

int elf_syms(Elf *elf, uint32_t type, long shndx_only, const char *module, struct symtab *t)
{
	Elf_Scn *scn = NULL;
	size_t shnum = 0;
	int found = 0;

	if (elf_getshdrnum(elf, &shnum))
		return -1;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data, *xdata = NULL;
		Elf_Scn *x = NULL;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		found = 1;
		/* extended section indices, if any */
		while ((x = elf_nextscn(elf, x))) {
			GElf_Shdr xs;

			if (gelf_getshdr(x, &xs) && xs.sh_type == SHT_SYMTAB_SHNDX &&
			    xs.sh_link == elf_ndxscn(scn))
				xdata = elf_getdata(x, NULL);
		}
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			GElf_Sym s;
			Elf32_Word xndx = 0;
			GElf_Shdr ss;
			const char *name;
			size_t ndx;
			int st;
			uint8_t prio;

			if (!gelf_getsymshndx(data, xdata, (int)i, &s, &xndx))
				continue;
			st = GELF_ST_TYPE(s.st_info);
			if (st != STT_FUNC && st != STT_GNU_IFUNC && st != STT_NOTYPE)
				continue;
			ndx = s.st_shndx == SHN_XINDEX ? xndx : s.st_shndx;
			if (ndx == SHN_UNDEF || ndx == SHN_ABS || ndx >= shnum)
				continue;
			if (shndx_only >= 0 && ndx != (size_t)shndx_only)
				continue;
			if (!gelf_getshdr(elf_getscn(elf, ndx), &ss) || !(ss.sh_flags & SHF_EXECINSTR))
				continue;
			name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (!name || !*name || name[0] == '$' || !strncmp(name, ".L", 2))
				continue;
			prio = (st != STT_NOTYPE) * 2 + (GELF_ST_BIND(s.st_info) != STB_LOCAL);
			symtab_add(t, s.st_value, s.st_size, name, module, prio, true);
			t->s[t->n - 1].sec = (uint32_t)ndx;
		}
	}
	return found ? 0 : -1;
}
