/* SPDX-License-Identifier: MIT */
/*
 * i915-stalls: kernel symbols, from /proc/kallsyms, a saved kallsyms or
 * System.map, or vmlinux plus i915.ko, relocated by the KASLR anchors the
 * stall file header carries.
 *
 * These do not go through libdwfl (docs/reader.md, "Kernel frames"): it
 * reads no kallsyms, lays out an ET_REL module its own way rather than the
 * module loader's, and scans the whole symbol table per lookup, which on a
 * vmlinux costs what this sorted table's binary search costs ten thousand
 * times over.
 */
#ifndef I915_STALLS_KSYM_H
#define I915_STALLS_KSYM_H

#include "frame.h"
#include "record.h"
#include "symtab.h"

struct ksym_opts {
	const char *kallsyms;	/* --kallsyms */
	const char *vmlinux;	/* --vmlinux */
	const char *module;	/* --i915-module (i915.ko) */
	bool live;		/* allow /proc/kallsyms */
	bool lines;		/* --lines: vmlinux DWARF */
};
void ksym_init(const struct ksym_opts *o);
/* An archive's kallsyms text (used when no explicit source). */
void ksym_add_archive_kallsyms(const char *text, size_t len);
/* Resolve a kernel return address (looked up at addr - 1). */
void ksym_resolve(const struct stall_file *f, uint64_t addr, struct frame *out);
/* The kernel symbols f's frames resolve against: equal for stall files
 * with equal anchors (a cache key). */
const void *ksym_view(const struct stall_file *f);
void ksym_cleanup(void);

#endif
