/* SPDX-License-Identifier: MIT */
/*
 * i915-stalls: shared declarations of the reader.
 */
#ifndef I915_STALLS_H
#define I915_STALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "i915_stall_format.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "i915-stalls reads the little-endian stall format natively; port the decoder first"
#endif

/* Exit statuses (documented in --help and i915-stalls(1)). */
enum {
	EXIT_OK = 0,
	EXIT_PARTIAL = 1,	/* output complete, but some frames unresolved */
	EXIT_FATAL = 2,		/* bad input or fatal error */
	EXIT_BISECT_SKIP = 125,	/* diff --threshold: NEW unusable */
	EXIT_BISECT_ABORT = 128,/* diff --threshold: OLD unusable or usage */
	EXIT_USAGE = 64,
};

/* ---- util.c ---- */
extern int verbose;
extern bool quiet;
void warnx_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void infox(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
void *xreallocarray(void *p, size_t n, size_t m);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Read a whole file ("-" is stdin). Returns 0 or -errno. */
int read_all(const char *path, unsigned char **buf, size_t *size);
/* A whole input: mapped if a regular file, else read to EOF. */
struct input_buf {
	unsigned char *buf;
	size_t size;
	bool mapped;
};
int input_load(const char *path, struct input_buf *in);	/* 0 or -errno */
void input_free(struct input_buf *in);
/* Say that bytes more of the inputs were read (to bound the RSS of maps). */
void input_touched(size_t bytes);
void json_str(FILE *f, const char *s);
void json_strn(FILE *f, const char *s, size_t n);
/* Copy a fixed-size, maybe unterminated char field into dst[n+1]. */
void fixstr(char *dst, const char *src, size_t n);

/* ---- decode.c ---- */
struct diag {
	uint64_t off;		/* byte offset in the input */
	char msg[240];
};

/* Set *d to "@off: fmt..." and return -1. */
int diag_fail(struct diag *d, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* One stall file (an input may hold several, concatenated). */
struct stall_file {
	const char *name;	/* input name, for messages */
	const unsigned char *buf; /* start of this stall file */
	size_t size;		/* bytes from buf to the end of the input */
	uint64_t base;		/* offset of buf in the input */
	uint64_t end;		/* bytes of this stall file (relative to buf) */
	struct i915_stall_file_header hdr; /* known part, zero extended */
	struct i915_stall_cpu_entry *cpus; /* cpu_count entries, copied */
	uint64_t lost_overwritten, lost_torn, lost_dropped, recorded;
	int index;		/* in the global list of stall files */
	struct archive *ar;	/* archive it came from, or NULL */
};

/* Validate header and CPU table. Returns 0, or -1 with *d filled. */
int stall_file_open(struct stall_file *f, const char *name,
		    const unsigned char *buf, size_t size, uint64_t base,
		    struct diag *d);
/* Streaming: buf holds the first size bytes read; returns 1 and sets *need
 * when more (up to the first record) must be read first. */
int stall_file_open_stream(struct stall_file *f, const char *name, const unsigned char *buf,
			   size_t size, uint64_t base, struct diag *d, uint64_t *need);
void stall_file_close(struct stall_file *f);

/* Iterate and validate records one at a time (bounded memory). */
struct stall_iter {
	const struct stall_file *f;
	uint64_t next;		/* next record index */
	uint32_t cpu_idx;	/* CPU table index of the current group */
	uint64_t left;		/* records left in that group */
	uint64_t last_seq;
	bool have_seq;
	bool warned_spin;
	struct i915_stall_record copy;	/* a record from a misaligned buffer */
};
void stall_iter_init(struct stall_iter *it, const struct stall_file *f);
/*
 * 1 = *r points to the next record, checked, 0 = end (all groups complete),
 * -1 = error in *d.  *r points into the buffer (or the iterator), which must
 * outlive its use; stack entries past the depths are not cleared: read
 * kstack[i] only for i < kstack_depth, ustack[i] for i < ustack_depth.
 */
int stall_iter_next(struct stall_iter *it, const struct i915_stall_record **r,
		    struct diag *d);
/* Streaming: check the next record, given its record_size bytes at p. */
int stall_iter_take(struct stall_iter *it, const unsigned char *p,
		    const struct i915_stall_record **r, struct diag *d);

const char *site_name(unsigned int site);	/* NULL if unknown */
int site_parse(const char *s);			/* -1 if unknown */
const char *outcome_name(unsigned int o);	/* NULL if unknown */
const char *engine_class_name(unsigned int c);	/* NULL if unknown */

/* ---- archive.c ---- */
#define AR_MAGIC "I915SAR\n"
#define AR_MAGIC_LEN 8

struct pmap {
	uint64_t start, end, pgoff;
	uint32_t prot;		/* 1 r, 2 w, 4 x */
	char *path;		/* NULL for anonymous; "[vdso]" etc. kept */
	bool deleted;
	uint8_t build_id[64];
	uint8_t build_id_len;
	uint64_t inode;		/* live maps only, else 0 */
	void *obj;		/* usym.c's cache of the ELF file */
};

struct proc_maps {
	uint32_t tgid;
	char comm[I915_STALL_COMM_LEN + 1];
	struct pmap *maps;
	size_t nmaps;
	bool gone;		/* process could not be read at record time */
};

struct archive {
	/* embedded stall files (pointers into the input buffer) */
	struct { const unsigned char *buf; uint64_t size, off; } *stalls;
	size_t nstalls;
	struct proc_maps *procs;
	size_t nprocs;
	const char *kallsyms;	/* NUL-terminated copy, or NULL */
	size_t kallsyms_len;
};

int archive_parse(const char *name, const unsigned char *buf, size_t size,
		  struct archive *ar, struct diag *d);
int archive_write(FILE *out, const unsigned char *const *stalls,
		  const size_t *stall_sizes, size_t nstalls,
		  const struct proc_maps *procs, size_t nprocs,
		  const char *kallsyms, size_t kallsyms_len);
/* parse /proc/PID/maps text */
int maps_parse(const char *text, struct proc_maps *pm);
int maps_read_live(uint32_t tgid, struct proc_maps *pm);
void proc_maps_free(struct proc_maps *pm);

/* ---- symtab.c ---- */
#include <gelf.h>
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
	bool exact_sizeless;	/* sizeless entries match exactly only (.dynsym) */
	char **names;		/* owned strings */
	size_t nnames, names_cap;
};
void symtab_add(struct symtab *t, uint64_t addr, uint64_t size, const char *name,
		const char *module, uint8_t prio, bool copy);
/* Sort, drop duplicates; with bound_sizeless, a sizeless symbol ends at the
 * next one in the same module (kallsyms). */
void symtab_finish(struct symtab *t, bool bound_sizeless);
const struct sym *symtab_find(const struct symtab *t, uint64_t a);
const struct sym *symtab_by_name(const struct symtab *t, const char *name, const char *module);
void symtab_free(struct symtab *t);
/* Functions of an ELF symbol table; shndx >= 0 keeps that section only. */
int elf_syms(Elf *elf, uint32_t type, long shndx, const char *module, struct symtab *t);
Elf *elf_open(const char *path, int *fdp);
void elf_close(Elf *elf, int fd);

/* ---- ksym.c ---- */
struct frame {
	uint64_t addr;		/* address as recorded */
	const char *name;	/* symbol, NULL if unresolved */
	uint64_t off;		/* from symbol start to addr */
	const char *module;	/* kernel: module or NULL; user: file path */
	const char *reason;	/* why unresolved, NULL if resolved */
	uint64_t modoff;	/* user: offset in file when module known */
	bool has_modoff;
	const char *src;	/* --lines: source file, or NULL */
	int line;
};

struct ksym_opts {
	const char *kallsyms;	/* --kallsyms */
	const char *vmlinux;	/* --vmlinux */
	const char *module;	/* --i915-module (i915.ko) */
	bool live;		/* allow /proc/kallsyms */
	bool lines;		/* --lines: vmlinux DWARF */
};
void ksym_init(const struct ksym_opts *o);
/* Register an archive's kallsyms text (used when no explicit source). */
void ksym_add_archive_kallsyms(const char *text, size_t len);
void ksym_resolve(const struct stall_file *f, uint64_t addr, bool ret,
		  struct frame *out);
void ksym_cleanup(void);

/* ---- usym.c ---- */
struct usym_opts {
	const char *symfs;
	bool lines;		/* source lines from DWARF (libdw) */
	bool no_demangle;	/* keep C++ names mangled */
	bool live;		/* allow /proc/PID/maps */
};
void usym_init(const struct usym_opts *o);
void usym_add_archive(struct archive *ar);
void usym_resolve(const struct stall_file *f,
		  const struct i915_stall_record *r, unsigned int i,
		  struct frame *out);
bool usym_pid_reused(const struct stall_file *f, const struct i915_stall_record *r);
int elf_build_id_file(const char *path, uint8_t *id, size_t max);
void usym_cleanup(void);
char *build_id_hex(const uint8_t *id, size_t len);

/* ---- output.c ---- */
struct stall {
	const struct i915_stall_record *r;	/* in the input (or read buffer) */
	const struct stall_file *f;
	uint64_t start_ns;			/* r->start_ns, the sort key */
};

struct run {
	struct stall *st;	/* filtered, sorted by start time */
	size_t n;
	struct stall_file **files;
	size_t nfiles;
	enum { W_TIME, W_COUNT } weight;
	enum { ROOT_COMM, ROOT_PID, ROOT_TID } root;
	size_t top;		/* summary: stacks shown */
	unsigned long unresolved; /* frames that could not be resolved */
};

void out_report_text(FILE *o, struct run *R);
void out_summary_text(FILE *o, struct run *R);
void out_stream_input(FILE *o, const struct stall_file *f);
void out_stream_stall(FILE *o, struct run *R, const struct stall *s);
void out_stream_end(FILE *o);	/* write what out_stream_stall() holds */
/* Free the caches of symbolized frames and stacks. */
void out_cleanup(void);
void out_json(FILE *o, struct run *R, bool with_stalls, bool with_summary);
void out_folded(FILE *o, struct run *R);
void out_svg(FILE *o, struct run *R, const char *title);
void warn_loss(struct run *R);
/* diff: returns growth in percent of the metric (total/p99/count) */
enum metric { M_TOTAL, M_P99, M_COUNT };
void out_diff(FILE *o, struct run *A, struct run *B, bool json, enum metric m,
	      double *growth_pct);

#endif
