/* SPDX-License-Identifier: MIT */
/*
 * i915-stalls: the inputs of a command and the records in them.
 *
 * A session maps (or reads) every input, opens the stall files in it
 * (several may be concatenated, or embedded in a record archive) and hands
 * out the records that pass the filters: in file order with bounded memory
 * (session_each), or all of them sorted by start time (session_sorted).
 * report --stream reads one record at a time instead (session_stream).
 */
#ifndef I915_STALLS_SESSION_H
#define I915_STALLS_SESSION_H

#include "archive.h"
#include "join.h"
#include "record.h"

struct filter {
	uint32_t *pids, *tids;
	size_t npids, ntids;
	char **comms;
	size_t ncomms;
	int *sites;
	size_t nsites;
	uint64_t min_ns;
};
bool filter_pass(const struct filter *F, const struct srec *r);
void filter_free(struct filter *F);

struct input {
	const char *name;	/* as given, "<stdin>" for "-" */
	unsigned char *buf;	/* mapped or read */
	size_t size;
	bool mapped;
	unsigned char *copy;	/* an aligned copy of a misaligned stall section */
	struct archive *ar;	/* a record archive, or NULL */
};

struct session {
	struct input *in;
	size_t nin;
	struct stall_file **files;
	size_t nfiles;
	/* lost stalls over every stall file */
	uint64_t lost_overwritten, lost_torn, lost_dropped;
	/* stalls the kernel saw (recorded + dropped) over every stall file:
	 * session_open() refuses inputs whose sum does not fit 64 bits, so
	 * no lost count nor session_lost() can wrap */
	uint64_t seen;
	/* 1.4: lost submit records over every stall file, and the submit
	 * records the kernel made (recorded + dropped), refused the same way */
	uint64_t slost_overwritten, slost_torn, slost_dropped;
	uint64_t sseen;
};

/* Load every input and open its stall files; 0, or -1 after a message. */
int session_open(struct session *S, char *const *names, size_t n);
void session_close(struct session *S);
static inline uint64_t session_lost(const struct session *S)
{
	return S->lost_overwritten + S->lost_torn + S->lost_dropped;
}
static inline uint64_t file_lost(const struct stall_file *f)
{
	return f->lost_overwritten + f->lost_torn + f->lost_dropped;
}
/* 1.4: lost submit records: their stalls' submitters read as gone */
static inline uint64_t session_slost(const struct session *S)
{
	return S->slost_overwritten + S->slost_torn + S->slost_dropped;
}
static inline uint64_t file_slost(const struct stall_file *f)
{
	return f->slost_overwritten + f->slost_torn + f->slost_dropped;
}
/* The "LOST" warning of each stall file with losses (of stalls, of
 * submit records), on stderr. */
void session_warn_loss(const struct session *S);

/* Called per record; a non-zero return stops the walk and is returned. */
typedef int (*stall_fn)(void *ctx, const struct stall *s, const struct srec *v);

/*
 * Work on the records ahead of the one a walk is at, in file order
 * (sym_prefetch()): while *on, fn(s, 1) for the record far ahead, then
 * fn(s, 2) for the one near ahead, before the walk's callback gets its
 * record.  Those records are not checked yet, only within the input.
 */
struct lookahead {
	void (*fn)(const struct stall *s, int step);
	const bool *on;
	unsigned int far, near;
};

/* Every record that passes F, in file order, with la (or NULL); 0, the
 * callback's value, or -1 after a message naming the input and byte
 * offset. */
int session_each(struct session *S, const struct filter *F, stall_fn fn,
		 const struct lookahead *la, void *ctx);
/* Every record that passes F, sorted by start time (ties: input, CPU, seq). */
int session_sorted(struct session *S, const struct filter *F, struct stall **st, size_t *n);

/*
 * report --stream: read each input in chunks and call fn per record,
 * holding one record; head(ctx, f) is called when a stall file starts.
 * Record archives are refused.  0 or -1 after a message.
 */
int session_stream(struct session *S, char *const *names, size_t n, const struct filter *F,
		   void (*head)(void *ctx, const struct stall_file *f), stall_fn fn, void *ctx);

/* Say that bytes more of the mapped inputs were read; their pages are
 * given back now and then so that the RSS does not grow with the input. */
void input_touched(size_t bytes);

#endif
