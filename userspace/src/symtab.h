/* SPDX-License-Identifier: MIT */
/*
 * i915-stalls: sorted symbol tables, and reading them from an ELF symbol
 * table with libelf (symtab.c).  The kernel's symbols (ksym.c) are kept
 * in these.
 */
#ifndef I915_STALLS_SYMTAB_H
#define I915_STALLS_SYMTAB_H

#include <gelf.h>

#include "util.h"

struct sym {
	uint64_t addr, size;	/* size 0: unknown */
	const char *name;
	const char *module;
	uint8_t prio;		/* among equal addresses, higher wins */
	uint32_t sec;		/* ELF section index, when read from ELF */
};
struct symtab {
	struct sym *s;
	size_t n, cap;
	char **names;		/* owned strings */
	size_t nnames, names_cap;
};
void symtab_add(struct symtab *t, uint64_t addr, uint64_t size, const char *name,
		const char *module, uint8_t prio, bool copy);
/* Sort; with bound_sizeless, a sizeless symbol ends at the next one in the
 * same module (kallsyms). */
void symtab_finish(struct symtab *t, bool bound_sizeless);
const struct sym *symtab_find(const struct symtab *t, uint64_t a);
const struct sym *symtab_by_name(const struct symtab *t, const char *name, const char *module);
void symtab_free(struct symtab *t);
/* Functions of an ELF symbol table; shndx >= 0 keeps that section only. */
int elf_syms(Elf *elf, uint32_t type, long shndx, const char *module, struct symtab *t);
Elf *elf_open(const char *path, int *fdp);
void elf_close(Elf *elf, int fd);

#endif
