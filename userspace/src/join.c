// SPDX-License-Identifier: MIT
/*
 * The join of stalls to submit records (join.h): per stall file, its
 * submit records sorted by (fence context, seqno, start time, place in the
 * file), so a stall's is found by one binary search.
 */
#include <stdlib.h>

#include "join.h"

struct submit_ref {
	uint64_t context, seqno, start_ns;
	uint64_t index;			/* in the file: the tie-break of equal times */
	const unsigned char *raw;
};

struct join_index {
	struct submit_ref *e;
	size_t n;
};

/* (context, seqno, start_ns, index) order */
static int ref_cmp(const struct submit_ref *a, const struct submit_ref *b)
{
	if (a->context != b->context)
		return a->context < b->context ? -1 : 1;
	if (a->seqno != b->seqno)
		return a->seqno < b->seqno ? -1 : 1;
	if (a->start_ns != b->start_ns)
		return a->start_ns < b->start_ns ? -1 : 1;
	return (a->index > b->index) - (a->index < b->index);
}

static int qcmp_ref(const void *a, const void *b)
{
	return ref_cmp(a, b);
}

int join_build(struct stall_file *f, struct diag *d)
{
	struct join_index *J;
	struct stall_iter it;
	const unsigned char *raw;
	struct srec r;
	int rc;

	if (!f->v14)
		return 0;
	J = xcalloc(1, sizeof(*J));
	J->e = xcalloc(f->submit_count ? f->submit_count : 1, sizeof(*J->e));
	submit_iter_init(&it, f);
	while ((rc = stall_iter_next(&it, &raw, &r, d)) > 0) {
		/* its fence is valid with flag FENCE (always set, says the
		 * format): a record without it names no request */
		if (!(r.flags & I915_STALL_F_FENCE))
			continue;
		J->e[J->n] = (struct submit_ref){
			.context = r.fence_context, .seqno = r.fence_seqno,
			.start_ns = r.start_ns, .index = it.next - 1, .raw = raw,
		};
		J->n++;
	}
	if (rc < 0) {
		free(J->e);
		free(J);
		return -1;
	}
	xqsort(J->e, J->n, sizeof(*J->e), qcmp_ref);
	f->join = J;
	return 0;
}

void join_free(struct stall_file *f)
{
	struct join_index *J = f->join;

	if (J) {
		free(J->e);
		free(J);
	}
	f->join = NULL;
}

/* The last entry not after key in the index's order, or NULL. */
static const struct submit_ref *last_not_after(const struct join_index *J,
					       const struct submit_ref *key)
{
	size_t lo = 0, hi = J->n;

	while (lo < hi) {	/* the first entry after key is at lo */
		size_t mid = lo + (hi - lo) / 2;

		if (ref_cmp(&J->e[mid], key) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &J->e[lo - 1] : NULL;
}

enum submit_status join_submit(const struct stall_file *f, const struct srec *r,
			       const unsigned char **raw)
{
	const struct join_index *J = f->join;
	const struct submit_ref *e;
	struct submit_ref key = {
		.context = r->fence_context, .seqno = r->fence_seqno, .start_ns = r->start_ns,
		.index = UINT64_MAX,
	};

	*raw = NULL;
	if (!f->v14 || !(r->flags & I915_STALL_F_FENCE))
		return SUBMIT_NONE;
	e = J ? last_not_after(J, &key) : NULL;
	if (e && e->context == key.context && e->seqno == key.seqno) {
		*raw = e->raw;		/* its start_ns <= the stall's, the latest */
		return SUBMIT_RECORDED;
	}
	return r->flags & FMT_F_SUBMITTED ? SUBMIT_GONE : SUBMIT_NOT_RECORDED;
}

const char *submit_status_name(enum submit_status s)
{
	switch (s) {
	case SUBMIT_RECORDED: return "recorded";
	case SUBMIT_GONE: return "gone";
	case SUBMIT_NOT_RECORDED: return "not_recorded";
	default: return NULL;
	}
}
