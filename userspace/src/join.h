/* SPDX-License-Identifier: MIT */
/*
 * i915-stalls: the join of a stall to the submit record of the request it
 * awaited (format 1.4; docs/format.md, "Format 1.4: submit records").
 *
 * In the same stall file only: the submit record with the stall's
 * fence_context and fence_seqno and a start_ns not after the stall's; of
 * several (a seqno reused), the latest.  None: the record was overwritten
 * ("gone") if the stall has flag SUBMITTED, else the submission was not
 * recorded.  Nothing else is tried: no other file, no nearby seqno, no
 * guess by process or time.
 */
#ifndef I915_STALLS_JOIN_H
#define I915_STALLS_JOIN_H

#include "record.h"

enum submit_status {
	SUBMIT_NONE,		/* no fence, or a file before 1.4: nothing to join */
	SUBMIT_RECORDED,	/* its submit record is in the file */
	SUBMIT_GONE,		/* flag SUBMITTED, but the record was overwritten */
	SUBMIT_NOT_RECORDED,	/* no submit record was made of it */
};

/*
 * Check every submit record of f (decode.c's submit_iter) and index them
 * by fence; nothing for a file before 1.4.  0, or -1 with *d filled.
 */
int join_build(struct stall_file *f, struct diag *d);
void join_free(struct stall_file *f);
/* The submitter of the stall r of f; *raw its submit record when RECORDED. */
enum submit_status join_submit(const struct stall_file *f, const struct srec *r,
			       const unsigned char **raw);
/* "recorded", "gone", "not_recorded" (JSON); NULL for SUBMIT_NONE */
const char *submit_status_name(enum submit_status s);

#endif
