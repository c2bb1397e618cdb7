// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the stall file decoder, the record archive parser and
 * the /proc/PID/maps parser must reject any input cleanly.
 */
#include <stdlib.h>
#include <string.h>

#include "archive.h"
#include "record.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;

static void decode_all(const unsigned char *buf, size_t size, uint64_t base)
{
	size_t off = 0;

	while (off < size) {
		struct stall_file f;
		const unsigned char *raw;
		struct srec r;
		struct stall_iter it;
		struct diag d;
		int rc;

		if (stall_file_open(&f, "fuzz", buf + off, size - off, base + off, &d))
			return;
		/* 1.4: the submit records, as the join reads them */
		submit_iter_init(&it, &f);
		while ((rc = stall_iter_next(&it, &raw, &r, &d)) > 0)
			if (r.site == FMT_SITE_SUBMIT && r.udepth && r.ustack[r.udepth - 1])
				fputc('s', devnull);
		if (rc < 0) {
			stall_file_close(&f);
			return;
		}
		stall_iter_init(&it, &f);
		while ((rc = stall_iter_next(&it, &raw, &r, &d)) > 0) {
			if (site_name(r.site) && outcome_name(r.outcome) &&
			    engine_class_name(r.engine_class) && strnlen(r.comm, I915_STALL_COMM_LEN) &&
			    (!r.kdepth || r.kstack[r.kdepth - 1]) &&
			    (!r.udepth || r.ustack[r.udepth - 1]))
				fputc('.', devnull);
		}
		stall_file_close(&f);
		if (rc < 0)
			return;
		off += f.end;
	}
}

/* what report --stream does: header first, then more, then records */
static void decode_stream(const unsigned char *buf, size_t size)
{
	struct stall_file f;
	struct srec r;
	struct stall_iter it;
	struct diag d;
	uint64_t need = 0, i;
	size_t have = size < 16 ? size : 16;
	int rc, rounds;

	for (rounds = 0; rounds < 4; rounds++) {
		rc = stall_file_open_stream(&f, "fuzz", buf, have, 0, &d, &need);
		if (rc != 1)
			break;
		if (need <= have || need > size)
			return;
		have = (size_t)need;
	}
	if (rc != 0)
		return;
	stall_iter_init(&it, &f);
	for (i = 0; i < f.hdr.record_count; i++) {
		uint64_t off = f.hdr.records_offset + i * f.hdr.record_size;

		if (off > size || size - off < f.hdr.record_size)
			break;
		if (stall_iter_take(&it, buf + off, &r, &d) < 0)
			break;
	}
	stall_file_close(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diag d;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	quiet = true;
	if (size >= AR_MAGIC_LEN && !memcmp(data, AR_MAGIC, AR_MAGIC_LEN)) {
		struct archive ar;
		size_t i;
		int rc = archive_parse("fuzz", data, size, &ar, &d);

		if (!rc)
			for (i = 0; i < ar.nstalls; i++)
				decode_all(ar.stalls[i].buf, ar.stalls[i].size, ar.stalls[i].off);
		archive_free(&ar);
		return 0;
	}
	decode_all(data, size, 0);
	decode_stream(data, size);
	if (size) {	/* a misaligned buffer is refused, never read unaligned */
		unsigned char *odd = malloc(size + 1);
		struct stall_file f;

		memcpy(odd + 1, data, size);
		if (!stall_file_open(&f, "fuzz", odd + 1, size, 0, &d))
			abort();
		free(odd);
	}
	if (size && size < 4096) {
		char *text = malloc(size + 1);
		struct proc_maps pm = { 0 };

		memcpy(text, data, size);
		text[size] = 0;
		maps_parse(text, &pm);
		proc_maps_free(&pm);
		free(text);
	}
	return 0;
}
