// SPDX-License-Identifier: MIT
/*
 * The record archive (docs/archive-format.md): stall files plus the memory
 * maps and build-ids of the processes they name, and optionally kallsyms,
 * so that a report can be symbolized after the processes are gone.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "archive.h"

#define AR_VERSION_MAJOR 1
#define AR_VERSION_MINOR 1	/* 1.1: the vDSO section */
#define AR_HEADER_SIZE 32
#define AR_SECTION_HDR 16
#define AR_PROC_HDR 32
#define AR_MAP_SIZE 72
#define AR_BUILD_ID_MAX BUILD_ID_MAX

enum { AR_SEC_STALLS = 1, AR_SEC_PROCESS = 2, AR_SEC_KALLSYMS = 3, AR_SEC_VDSO = 4 };

static uint16_t get16(const unsigned char *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint32_t get32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t get64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }

static int parse_process(const unsigned char *p, uint64_t size, uint64_t off,
			 struct proc_maps *pm, struct diag *d)
{
	uint32_t n, esz, i;
	uint64_t strtab, strsize;

	memset(pm, 0, sizeof(*pm));
	if (size < AR_PROC_HDR)
		return diag_fail(d, off + size, "process section truncated (%" PRIu64 " bytes)", size);
	pm->tgid = get32(p);
	pm->gone = get32(p + 4) & 1;
	n = get32(p + 8);
	esz = get32(p + 12);
	fixstr(pm->comm, (const char *)p + 16, I915_STALL_COMM_LEN);
	if (esz < AR_MAP_SIZE || esz % 8 || esz > 4096)
		return diag_fail(d, off + 12, "map_entry_size %u invalid (minimum %u)", esz, AR_MAP_SIZE);
	if (n > (size - AR_PROC_HDR) / esz)
		return diag_fail(d, off + 8, "map_count %u does not fit the section (%" PRIu64 " bytes)", n, size);
	strtab = AR_PROC_HDR + (uint64_t)n * esz;
	strsize = size - strtab;
	pm->maps = xcalloc(n, sizeof(*pm->maps));
	for (i = 0; i < n; i++) {
		const unsigned char *e = p + AR_PROC_HDR + (uint64_t)i * esz;
		uint64_t eoff = off + AR_PROC_HDR + (uint64_t)i * esz;
		struct pmap *m = &pm->maps[i];
		uint32_t po = get32(e + 24), pl = get32(e + 28);

		m->start = get64(e);
		m->end = get64(e + 8);
		m->pgoff = get64(e + 16);
		m->prot = get32(e + 32);
		m->build_id_len = e[36];
		m->deleted = e[37] & 1;
		pm->nmaps = i + 1;
		if (m->end <= m->start)
			return diag_fail(d, eoff, "map %u: end 0x%" PRIx64 " not above start 0x%" PRIx64,
				    i, m->end, m->start);
		/* file offsets of the mapping: pgoff up to pgoff + its size */
		if (m->pgoff > UINT64_MAX - (m->end - m->start))
			return diag_fail(d, eoff + 16, "map %u: pgoff 0x%" PRIx64 " + %" PRIu64
				    " bytes overflows 64 bits", i, m->pgoff, m->end - m->start);
		if (i && m->start < pm->maps[i - 1].end)
			return diag_fail(d, eoff, "map %u: not sorted or overlapping", i);
		if (m->build_id_len > AR_BUILD_ID_MAX)
			return diag_fail(d, eoff + 36, "map %u: build_id_len %u exceeds %u", i,
				    m->build_id_len, AR_BUILD_ID_MAX);
		memcpy(m->build_id, e + 40, m->build_id_len);
		if (po == UINT32_MAX)
			continue;
		if (po > strsize || pl > strsize - po || pl == 0)
			return diag_fail(d, eoff + 24, "map %u: path [%u, +%u) outside the string table (%" PRIu64 " bytes)",
				    i, po, pl, strsize);
		if (memchr(p + strtab + po, 0, pl))
			return diag_fail(d, off + strtab + po, "map %u: path contains a NUL byte", i);
		m->path = xstrndup((const char *)p + strtab + po, pl);
		/* paths are joined to --symfs: never "..", never relative */
		if (!maps_path_ok(m->path))
			return diag_fail(d, off + strtab + po,
				    "map %u: path is not absolute and normalized (no . or .. part)", i);
	}
	return 0;
}

int archive_parse(const char *name, const unsigned char *buf, size_t size,
		  struct archive *ar, struct diag *d)
{
	uint32_t hsize, count, i;
	uint64_t off, total;

	memset(ar, 0, sizeof(*ar));
	if (size < AR_HEADER_SIZE)
		return diag_fail(d, size, "truncated in the archive header");
	if (memcmp(buf, AR_MAGIC, AR_MAGIC_LEN))
		return diag_fail(d, 0, "bad archive magic");
	if (get16(buf + 8) != AR_VERSION_MAJOR)
		return diag_fail(d, 8, "unsupported archive version %u.%u", get16(buf + 8), get16(buf + 10));
	hsize = get32(buf + 12);
	count = get32(buf + 16);
	total = get64(buf + 24);
	if (hsize < AR_HEADER_SIZE || hsize % 8 || hsize > size)
		return diag_fail(d, 12, "archive header_size %u invalid", hsize);
	if (total != size)
		return diag_fail(d, total < size ? total : size,
			    "archive total_size %" PRIu64 " but the file has %zu bytes", total, size);
	off = hsize;
	for (i = 0; i < count; i++) {
		uint32_t type;
		uint64_t len, padded;
		const unsigned char *p;

		if (size - off < AR_SECTION_HDR)
			return diag_fail(d, size, "truncated: section %u header missing", i);
		type = get32(buf + off);
		len = get64(buf + off + 8);
		if (len > size - off - AR_SECTION_HDR)
			return diag_fail(d, off + 8, "section %u size %" PRIu64 " runs past the end of the file", i, len);
		padded = (len + 7) & ~(uint64_t)7;
		if (padded > size - off - AR_SECTION_HDR)
			return diag_fail(d, size, "section %u padding truncated", i);
		p = buf + off + AR_SECTION_HDR;
		switch (type) {
		case AR_SEC_STALLS:
			ar->stalls = xreallocarray(ar->stalls, ar->nstalls + 1, sizeof(*ar->stalls));
			ar->stalls[ar->nstalls].buf = p;
			ar->stalls[ar->nstalls].size = len;
			ar->stalls[ar->nstalls].off = off + AR_SECTION_HDR;
			ar->nstalls++;
			break;
		case AR_SEC_PROCESS:
			ar->procs = xreallocarray(ar->procs, ar->nprocs + 1, sizeof(*ar->procs));
			ar->nprocs++;
			if (parse_process(p, len, off + AR_SECTION_HDR, &ar->procs[ar->nprocs - 1], d))
				return -1;
			break;
		case AR_SEC_VDSO: {
			struct ar_vdso *v;

			ar->vdsos = xreallocarray(ar->vdsos, ar->nvdsos + 1, sizeof(*ar->vdsos));
			v = &ar->vdsos[ar->nvdsos++];
			v->img = p;
			v->size = len;
			v->idlen = len >= 4 && !memcmp(p, "\177ELF", 4) ?
				   elf_build_id_mem(p, len, v->id, sizeof(v->id)) : -1;
			if (v->idlen <= 0)
				return diag_fail(d, off + AR_SECTION_HDR,
					    "vdso section is not an ELF image with a build-id");
			break;
		}
		case AR_SEC_KALLSYMS:
			if (memchr(p, 0, len))
				return diag_fail(d, off + AR_SECTION_HDR, "kallsyms section contains a NUL byte");
			if (!ar->kallsyms) {
				char *k = xmalloc(len + 1);

				memcpy(k, p, len);
				k[len] = 0;
				ar->kallsyms = k;
				ar->kallsyms_len = len;
			}
			break;
		default:
			infox("%s: skipping unknown archive section type %u at offset %" PRIu64,
			      name, type, off);
		}
		off += AR_SECTION_HDR + padded;
	}
	if (off != size)
		return diag_fail(d, off, "%zu bytes after the last section", (size_t)(size - off));
	if (!ar->nstalls)
		return diag_fail(d, hsize, "archive holds no stall file");
	return 0;
}

void archive_free(struct archive *ar)
{
	size_t i;

	for (i = 0; i < ar->nprocs; i++)
		proc_maps_free(&ar->procs[i]);
	free(ar->procs);
	free(ar->stalls);
	free(ar->vdsos);
	free((char *)ar->kallsyms);
	memset(ar, 0, sizeof(*ar));
}

static void put16(FILE *f, uint16_t v) { fwrite(&v, 2, 1, f); }
static void put32(FILE *f, uint32_t v) { fwrite(&v, 4, 1, f); }
static void put64(FILE *f, uint64_t v) { fwrite(&v, 8, 1, f); }
static void pad8(FILE *f, uint64_t len)
{
	static const char z[8];

	fwrite(z, 1, (8 - len % 8) % 8, f);
}

static void section(FILE *f, uint32_t type, uint64_t len)
{
	put32(f, type);
	put32(f, 0);
	put64(f, len);
}

int archive_write(FILE *out, const struct archive_in *in)
{
	uint64_t total = AR_HEADER_SIZE;
	uint32_t count = 0;
	size_t i, j;

	for (i = 0; i < in->nstalls; i++, count++)
		total += AR_SECTION_HDR + ((in->stall_sizes[i] + 7) & ~(size_t)7);
	for (i = 0; i < in->nprocs; i++, count++) {
		uint64_t len = AR_PROC_HDR + (uint64_t)in->procs[i].nmaps * AR_MAP_SIZE;

		for (j = 0; j < in->procs[i].nmaps; j++)
			if (in->procs[i].maps[j].path)
				len += strlen(in->procs[i].maps[j].path);
		total += AR_SECTION_HDR + ((len + 7) & ~(uint64_t)7);
	}
	if (in->kallsyms) {
		total += AR_SECTION_HDR + ((in->kallsyms_len + 7) & ~(size_t)7);
		count++;
	}
	if (in->vdso) {
		total += AR_SECTION_HDR + ((in->vdso_len + 7) & ~(size_t)7);
		count++;
	}

	fwrite(AR_MAGIC, 1, AR_MAGIC_LEN, out);
	put16(out, AR_VERSION_MAJOR);
	put16(out, AR_VERSION_MINOR);
	put32(out, AR_HEADER_SIZE);
	put32(out, count);
	put32(out, 0);
	put64(out, total);

	for (i = 0; i < in->nstalls; i++) {
		section(out, AR_SEC_STALLS, in->stall_sizes[i]);
		fwrite(in->stalls[i], 1, in->stall_sizes[i], out);
		pad8(out, in->stall_sizes[i]);
	}
	for (i = 0; i < in->nprocs; i++) {
		const struct proc_maps *pm = &in->procs[i];
		uint64_t len = AR_PROC_HDR + (uint64_t)pm->nmaps * AR_MAP_SIZE;
		uint32_t stroff = 0;
		char comm[I915_STALL_COMM_LEN] = { 0 };

		for (j = 0; j < pm->nmaps; j++)
			if (pm->maps[j].path)
				len += strlen(pm->maps[j].path);
		section(out, AR_SEC_PROCESS, len);
		put32(out, pm->tgid);
		put32(out, pm->gone ? 1 : 0);
		put32(out, (uint32_t)pm->nmaps);
		put32(out, AR_MAP_SIZE);
		memcpy(comm, pm->comm, strnlen(pm->comm, sizeof(comm)));
		fwrite(comm, 1, sizeof(comm), out);
		for (j = 0; j < pm->nmaps; j++) {
			const struct pmap *m = &pm->maps[j];
			unsigned char bid[AR_BUILD_ID_MAX] = { 0 };
			uint8_t bl = m->build_id_len > AR_BUILD_ID_MAX ? 0 : m->build_id_len;

			put64(out, m->start);
			put64(out, m->end);
			put64(out, m->pgoff);
			if (m->path) {
				uint32_t l = (uint32_t)strlen(m->path);

				put32(out, stroff);
				put32(out, l);
				stroff += l;
			} else {
				put32(out, UINT32_MAX);
				put32(out, 0);
			}
			put32(out, m->prot);
			fputc(bl, out);
			fputc(m->deleted ? 1 : 0, out);
			put16(out, 0);
			memcpy(bid, m->build_id, bl);
			fwrite(bid, 1, sizeof(bid), out);
		}
		for (j = 0; j < pm->nmaps; j++)
			if (pm->maps[j].path)
				fputs(pm->maps[j].path, out);
		pad8(out, len);
	}
	if (in->kallsyms) {
		section(out, AR_SEC_KALLSYMS, in->kallsyms_len);
		fwrite(in->kallsyms, 1, in->kallsyms_len, out);
		pad8(out, in->kallsyms_len);
	}
	if (in->vdso) {
		section(out, AR_SEC_VDSO, in->vdso_len);
		fwrite(in->vdso, 1, in->vdso_len, out);
		pad8(out, in->vdso_len);
	}
	return ferror(out) ? -(errno ? errno : EIO) : 0;
}
