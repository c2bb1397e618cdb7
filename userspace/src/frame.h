/* SPDX-License-Identifier: MIT */
/* i915-stalls: a frame as a resolver gives it, and why a frame is unresolved. */
#ifndef I915_STALLS_FRAME_H
#define I915_STALLS_FRAME_H

#include "util.h"

/*
 * Every reason a frame can stay unresolved.  Output shows the text as
 * "[unknown: TEXT]" (or "[FILE+0xOFF]" for "no symbol" in a known file);
 * the man page lists them all (tests/mancheck.c holds it to this list).
 */
#define UNRESOLVED_REASONS(X)						\
	/* user frames: the process and its maps */			\
	X(R_NO_MAPS, "no maps", "the process's memory maps are not available: " \
	  "--offline, or a stall file of another kernel; use record")	\
	X(R_OTHER_BOOT, "other boot", "the stall file is from another boot " \
	  "(or the clock changed since): live maps are not used; use record") \
	X(R_GONE, "process gone", "the process had exited")		\
	X(R_PID_REUSED, "pid reused", "the pid now belongs to a process started after the stall") \
	X(R_NO_MAP, "no map", "the address is in no mapping of the process") \
	X(R_ANON, "anon", "anonymous memory: JIT code, heap or stack")	\
	X(R_MAPS_FULL, "maps full", "format 1.2: the record's table of mappings " \
	  "was full, or the kernel capped its lookups, and this frame's mapping " \
	  "is not in it")						\
	X(R_MAPS_NOLOCK, "maps not saved", "format 1.2: the kernel could not take the " \
	  "mmap lock, so the record has no mappings")			\
	X(R_MAPS_CHANGED, "map changed", "format 1.3: the frame's mapping changed " \
	  "(mmap, munmap, exec) between the stall and the moment the kernel read " \
	  "the mappings, so it saved none for the frame rather than a wrong one") \
	/* user frames: the file */					\
	X(R_NO_FILE, "no file", "the mapped file was not found (deleted, or another " \
	  "machine: see --symfs)")					\
	X(R_BUILD_ID_MISMATCH, "build-id mismatch", "the file found has another " \
	  "build-id than the one recorded")				\
	X(R_NO_BUILD_ID, "no build-id", "an archived or recorded mapping without " \
	  "build-id (none, or not resident when recorded): the file cannot be " \
	  "verified, so it is not used")					\
	X(R_FILE_CHANGED, "file changed", "the file at the mapped path is not " \
	  "the mapped file (another inode)")				\
	X(R_NOT_REGULAR, "not a regular file", "the path names a FIFO, a device " \
	  "or a directory")						\
	X(R_NOT_ELF, "not ELF", "the file is not an ELF file")		\
	X(R_NO_VDSO, "no vdso", "the vDSO image is not available")	\
	X(R_OUTSIDE, "outside the file", "the address is past the file's " \
	  "loadable segments")						\
	X(R_STRIPPED, "stripped", "the file and its debug files have no symbol table") \
	/* either */							\
	X(R_NO_SYMBOL, "no symbol", "no symbol covers the address")	\
	/* kernel frames */						\
	X(R_KADDR_HIDDEN, "kernel addresses hidden", "format 1.3: the kernel " \
	  "zeroed its addresses for the reader of the stall file, as it hides " \
	  "those of /proc/kallsyms from it (kernel.kptr_restrict, lockdown)") \
	X(R_NO_KALLSYMS, "no kallsyms", "no kernel symbols: --offline without " \
	  "--kallsyms, --vmlinux or a record archive")			\
	X(R_KALLSYMS_ZEROED, "kallsyms zeroed", "kernel.kptr_restrict hides the " \
	  "addresses in /proc/kallsyms")				\
	X(R_KALLSYMS_UNREADABLE, "kallsyms unreadable", "the kallsyms file could not be read") \
	X(R_NO_KERNEL_SYMBOLS, "no kernel symbols", "the kallsyms or System.map " \
	  "file holds no text symbol")					\
	X(R_VMLINUX_UNREADABLE, "vmlinux unreadable", "the --vmlinux file is not " \
	  "an ELF file with a symbol table")				\
	X(R_OTHER_KERNEL, "other kernel", "the stall file is from another kernel " \
	  "than the running one: /proc/kallsyms is not used")		\
	X(R_VMLINUX_OTHER_KERNEL, "vmlinux of another kernel", "the --vmlinux " \
	  "file is of another kernel release than the stall file")

enum reason {
	R_NONE,
#define REASON_ENUM(e, text, why) e,
	UNRESOLVED_REASONS(REASON_ENUM)
#undef REASON_ENUM
	R_COUNT
};

const char *reason_text(enum reason r);	/* NULL for R_NONE */

/* A frame as ksym.c or usym.c resolve it. */
struct frame {
	uint64_t addr;		/* address as recorded */
	const char *name;	/* symbol (demangled), NULL if unresolved */
	uint64_t off;		/* from the symbol's start to addr */
	const char *module;	/* kernel: module or NULL; user: the mapped path */
	enum reason reason;	/* R_NONE if resolved */
	uint64_t modoff;	/* user: address in the file (ELF address) */
	bool has_modoff;
	const char *src;	/* --lines: source file, or NULL */
	int line;
};

#endif
