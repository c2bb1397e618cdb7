// SPDX-License-Identifier: MIT
/*
 * Folded stacks, as stackcollapse-perf.pl writes them and flamegraph.pl
 * and inferno read them: "root;frame;...;frame weight", one line per
 * distinct stack, root first.  Lines come in frame order (a stack's frames
 * compared in turn), so every frame's stacks are consecutive.
 */
#include "emit.h"

int folded_write(struct out *o, struct fagg *A)
{
	struct sbuf *b = &o->b;
	const char *key;
	size_t len;
	uint64_t w;
	int rc;

	A->sep = ';';	/* the lines come with it */
	while ((rc = fagg_next(A, &key, &len, &w)) > 0) {
		sb_put(b, key, len);
		sb_putc(b, ' ');
		sb_dec(b, w, 0);
		sb_putc(b, '\n');
		out_flush(o, false);
		if (out_failed(o))
			return 0;	/* out_close() reports it */
	}
	return rc;
}

int folded_diff_write(struct out *o, struct fagg *old, size_t n_old, struct fagg *new_,
		      size_t n_new)
{
	struct sbuf *b = &o->b;
	struct fmerge M;
	const char *key;
	size_t len, i;
	uint64_t wa, wb;
	int rc;

	fmerge_init(&M, old, new_);
	while ((rc = fmerge_next(&M, &key, &len, &wa, &wb)) > 0) {
		size_t start = b->len;

		sb_put(b, key, len);
		for (i = start; i < b->len; i++)
			if (b->p[i] == FOLD_SEP)
				b->p[i] = ';';
		sb_putc(b, ' ');
		sb_num(b, (double)wa / (double)n_old);
		sb_putc(b, ' ');
		sb_num(b, (double)wb / (double)n_new);
		sb_putc(b, '\n');
		out_flush(o, false);
		if (out_failed(o))
			break;	/* out_close() reports it */
	}
	fmerge_free(&M);
	return rc < 0 ? -1 : 0;
}
