/* SPDX-License-Identifier: MIT */
/* i915-stalls: the record archive (docs/archive-format.md). */
#ifndef I915_STALLS_ARCHIVE_H
#define I915_STALLS_ARCHIVE_H

#include "maps.h"

#define AR_MAGIC "I915SAR\n"
#define AR_MAGIC_LEN 8

struct archive {
	/* embedded stall files (pointers into the input buffer) */
	struct ar_stalls { const unsigned char *buf; uint64_t size, off; } *stalls;
	size_t nstalls;
	struct proc_maps *procs;
	size_t nprocs;
	const char *kallsyms;	/* NUL-terminated copy, or NULL */
	size_t kallsyms_len;
	/* vDSO images (pointers into the input) with their build-ids */
	struct ar_vdso {
		const unsigned char *img;
		uint64_t size;
		uint8_t id[BUILD_ID_MAX];
		int idlen;
	} *vdsos;
	size_t nvdsos;
};

int archive_parse(const char *name, const unsigned char *buf, size_t size,
		  struct archive *ar, struct diag *d);
void archive_free(struct archive *ar);

/* What record writes. */
struct archive_in {
	const unsigned char *const *stalls;
	const size_t *stall_sizes;
	size_t nstalls;
	const struct proc_maps *procs;
	size_t nprocs;
	const char *kallsyms;	/* or NULL */
	size_t kallsyms_len;
	const unsigned char *vdso;	/* or NULL */
	size_t vdso_len;
};
/* 0, or -errno of the first write error */
int archive_write(FILE *out, const struct archive_in *in);

#endif
