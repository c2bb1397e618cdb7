/* SPDX-License-Identifier: MIT */
/*
 * i915-stalls: the symbolization layer.  It turns a record's stacks into
 * symbolized frames (ksym.c for the kernel, aspace.c/dwfl.c for user space,
 * unwind.c for the user frames CFI finds in a 1.2 stack snapshot) and owns
 * the caches that make a log of repeated stacks cheap: symbolized frames by
 * (address space, address), and whole stacks by (address space,
 * addresses).  A stack is cached the second time it is seen: one seen once
 * (distinct stacks) is made for its stall alone, of cached frames.
 *
 * The caches grow within one memory budget (--cache-size).  Once it is
 * reached, entries not used for a while are evicted one at a time (CLOCK:
 * a reference bit per entry, and a queue of the entries in the order they
 * came; the oldest goes if its bit is clear, else its bit is cleared and it
 * goes to the tail), stacks before frames, never the ones the current
 * stall uses nor a frame a cached stack holds; nothing is emptied
 * wholesale.
 */
#ifndef I915_STALLS_SYMBOLIZE_H
#define I915_STALLS_SYMBOLIZE_H

#include "frame.h"
#include "ksym.h"
#include "session.h"
#include "strbuf.h"
#include "unwind.h"
#include "usym.h"

#define SYM_BUDGET_DEFAULT_MB 128

struct sym_opts {
	struct ksym_opts k;
	struct usym_opts u;
	size_t budget;		/* bytes; 0: the default */
	bool fetch_frames;	/* the walk reads the frames' entries (report's lines,
				 * JSON's strings), not only their numbers
				 * (struct sstack): fetch them into the CPU's
				 * caches as frames are looked up */
	bool no_ids;		/* the walk neither groups nor folds stacks:
				 * no frame's key_id nor fold_id is made
				 * (UINT32_MAX) */
};
void sym_init(const struct sym_opts *o);
/* The record archives of S: their kallsyms (and maps, through the stall
 * files' archive pointers). */
void sym_add_session(const struct session *S);
void sym_cleanup(void);
/* The frames' key_id and fold_id (and a stack's key_ids and fold_ids) are
 * numbers of intern.h, valid until sym_cleanup(). */

/* A symbolized frame, shared by every stall that has it. */
#define SFRAME_LINE_SLACK 32
struct sframe {
	/* first, what report reads of each frame: the cache line it shares
	 * with the cache's key, the line's text just before */
	const char *line;	/* report: "0xADDR LABEL\n", a frame's line after its
				 * "    #N  " (and the caller's after "  caller "), LABEL
				 * "sym+0xoff (path)", "[unknown: why] ..."; readable
				 * SFRAME_LINE_SLACK bytes past line_len (a copy may
				 * move whole blocks) */
	uint32_t line_len, fold_len, key_len;
	bool user;
	bool cfi;		/* 1.2: found by CFI in the stack snapshot only */
	const char *fold;	/* folded and SVG: "sym", "[file]", "[unknown]" */
	const char *key;	/* summary: as fold, but "[unknown 0xADDR]" without a file */
	uint32_t key_id;	/* key's number: equal keys, equal numbers (intern.h) */
	uint32_t fold_id;	/* the number of its text in a folded line: fold, and
				 * "_[k]" after a kernel frame's */
	struct frame fr;	/* strings owned by the cache entry */
};

/* A symbolized stack. */
struct sstack {
	uint64_t id;		/* unique for the program's life (a key for aggregation);
				 * 0: not cached (seen once so far), no key */
	unsigned int depth;
	unsigned int unresolved;	/* frames */
	const struct sframe **frames;	/* innermost first */
	/* each frame's key_id and fold_id, read where the stack is made: the
	 * walks that group or fold stacks take them here, and need not read
	 * the frames (on distinct stacks, each a cache miss) */
	const uint32_t *key_ids, *fold_ids;
	const uint64_t *addrs;		/* as recorded */
	/* 1.2 user stacks: why the chain ends where it does, if it ends
	 * where the CFI walk of the snapshot stopped (else UEND_NONE) */
	uint8_t end;			/* enum uend */
	uint64_t end_addr;
};

/*
 * 1.4: who submitted the request a stall awaited (join.h), symbolized as
 * the stall is: its user stack from its submit record's frame-pointer
 * chain and maps, its caller (the kernel function that committed it).
 */
struct ssubmit {
	enum submit_status status;	/* SUBMIT_NONE until sym_submit() */
	struct srec r;			/* SUBMIT_RECORDED: the submit record */
	uint64_t queued_ns;		/* the stall's start_ns - the submit's */
	const struct sstack *u;		/* NULL when the stack is empty */
	const struct sframe *caller;	/* NULL when not recorded */
	unsigned int unresolved;	/* frames in u and caller */
};

/* One stall, symbolized; valid until the next sym_stall(). */
struct sstall {
	const struct stall *s;
	const struct srec *r;
	const struct sstack *k, *u;	/* NULL when the stack is empty */
	const struct sframe *caller;	/* NULL when not recorded */
	unsigned int unresolved;	/* frames in k, u and caller */
	struct ssubmit sub;		/* sym_submit() */
};
void sym_stall(const struct stall *s, const struct srec *r, struct sstall *out);
/* After sym_stall(out): the stall's submitter joined and symbolized into
 * out->sub (its frames count in sym_unresolved). */
void sym_submit(struct sstall *out);

/*
 * Look up the user frames of the stall s a few stalls ahead of its
 * sym_stall(), while user stacks are not cached (when they are, their
 * frames are not read): step 1 hashes them and fetches their table slots
 * into the CPU caches, step 2, a stall or two later, finds their entries
 * and fetches those and their lines.  sym_stall() of s then finds them
 * there, where the stacks of distinct stalls would otherwise wait on a
 * cache miss per slot, entry and line, frame after frame.  Guessed in the
 * last user stack's address space; what sym_stall() takes of it is checked
 * (the address space, s's addresses, an entry's key).  s's record is read,
 * so it must be in memory (not checked yet is fine).
 */
void sym_prefetch(const struct stall *s, int step);
/* How far ahead of the stall being symbolized a walk calls step 1 and step 2 */
#define SYM_AHEAD_HASH	4
#define SYM_AHEAD_FIND	2
/* Whether sym_prefetch() has anything to do: the last stall's user stack
 * was not cached (so neither are those around it, likely). */
extern bool sym_prefetching;
/* sym_prefetch() for session_each() */
extern const struct lookahead sym_lookahead;

/*
 * The text report's lines of a stack of the last sym_stall(), appended to
 * b: "    #N  " and each frame's line, then why a 1.2 chain ends where it
 * does.  They depend on the stack alone (its addresses, frames and end),
 * so they are made once and kept with the cached stack for the next
 * stalls that have it (a stack seen once is not kept).
 */
void sym_stack_lines(struct sbuf *b, const struct sstack *st);

/* Frames left unresolved so far, over every sym_stall(). */
extern unsigned long sym_unresolved;

/* Cache statistics, for -v. */
void sym_stats(void);

#endif
