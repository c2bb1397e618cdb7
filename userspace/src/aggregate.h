/* SPDX-License-Identifier: MIT */
/*
 * i915-stalls: aggregation of symbolized stalls.
 *
 *  - groups: stalls by a key (a wait site, a user stack), each with its
 *    count, total, maximum and durations for percentiles (summary, diff);
 *  - folded stacks: one weight per distinct stack line, in bounded memory:
 *    past the budget the lines gathered so far are sorted and spilled to a
 *    temporary file, and the runs are merged when read back (folded, SVG).
 */
#ifndef I915_STALLS_AGGREGATE_H
#define I915_STALLS_AGGREGATE_H

#include "strbuf.h"
#include "symbolize.h"

struct group {
	const char *key;	/* in the groups' arena */
	uint32_t key_len;
	uint64_t hash;
	uint64_t *d;		/* durations, for percentiles (cap > 0) */
	uint64_t d1;		/* the duration while there is one (cap 0) */
	size_t n, cap;
	uint64_t total, max;	/* total saturates */
	uint64_t rep_start;	/* the group's first stall: its process, for "e.g." */
	uint32_t rep_tgid;
	char rep_comm[I915_STALL_COMM_LEN + 1];
	bool sorted;
	bool ids;		/* key: the frames' key_id (stack_group() by address),
				 * its text made by groups_top() for the groups it picks */
};

/* A slot of a hash table of entries: the entry's index + 1 (0: empty) and
 * the high half of its hash, so that a probe passes other entries without
 * reading them (on distinct stacks each read is a cache miss). */
struct hslot {
	uint32_t i1;
	uint32_t tag;
};

struct groups {
	struct group *g;
	size_t n, cap;
	struct hslot *ht;
	size_t hcap;
	/* stack id -> group, so that a repeated stack's key is built once */
	struct { uint64_t id; uint32_t gi; } *ids;
	size_t nids, idcap;
	char **arena;		/* key storage, in chunks */
	size_t narena, aused;
};

struct group *groups_get(struct groups *G, const char *key, size_t len);
/* The group of key, or NULL (before groups_sort_total() only). */
struct group *groups_find(const struct groups *G, const char *key, size_t len);
void group_add(struct group *g, const struct srec *r);
uint64_t group_pct(struct group *g, unsigned int p);	/* nearest rank */
void groups_free(struct groups *G);
/* Sort all groups: by total, largest first (ties: key). */
void groups_sort_total(struct groups *G);
/* The n largest by total, sorted so, into top (at most n); returns how many.
 * Their keys are text then (ties are ordered by the text). */
size_t groups_top(const struct groups *G, size_t n, struct group **top);

/* The key of a stall's site group. */
void site_key(struct sbuf *b, unsigned int site);
/*
 * The group of a stall's user stack: key "main;fx_mid;fx_wait" (root
 * first), "[kernel thread]" or "[no user stack]".  With by_addr (summary),
 * unresolved frames without a file keep their address apart; without it
 * (diff: runs have other addresses) they merge.
 */
struct group *stack_group(struct groups *G, const struct sstall *ss, bool by_addr,
			  struct sbuf *tmp);

/*
 * --submitter (format 1.4; sym_submit() made ss->sub): the group of a
 * stall's submitter, key "[submitted by COMM];main;...;ioctl" (the
 * submitter's frames root first, "[no user stack]" without any),
 * "[submit record gone]", "[submit not recorded]" or "[submitter unknown]"
 * (no fence, or a file before 1.4) (diff); and of the pair, the waiter's
 * stack key, '\n' (SUBMIT_KEY_SEP), then the submitter's (summary).
 */
#define SUBMIT_KEY_SEP '\n'	/* never in a frame's key (control bytes are '?') */
struct group *submit_group(struct groups *G, const struct sstall *ss, bool by_addr,
			   struct sbuf *tmp);
struct group *pair_group(struct groups *G, const struct sstall *ss, bool by_addr,
			 struct sbuf *tmp);

/* ---- folded stacks, bounded ---- */

#define FOLD_SEP '\x01'		/* frame separator inside: sorts below any frame byte */

/*
 * A folded line by its frames' numbers (intern.h), root first (the root
 * and the submitter's marker are numbered too); the last root made is
 * kept for the next stall.
 */
struct fstack {
	uint32_t *ids;
	uint32_t n, cap;
	bool root_valid;
	uint8_t root_mode;
	uint32_t root_tgid, root_pid, root;
	char root_comm[I915_STALL_COMM_LEN];
	struct sbuf tmp;
};
void fstack_free(struct fstack *f);

/*
 * The lines are kept and spilled as numbers, and made text once each, when
 * read (fagg_next()).
 */
struct fagg {
	size_t budget;		/* bytes in memory before a spill */
	struct fline { const uint32_t *ids; uint32_t n; uint64_t hash, weight, pfx; } *e;
	size_t n, cap;
	struct hslot *ht;
	size_t hcap;
	uint32_t **chunks;	/* the lines' numbers, IDS_CHUNK a chunk, reused */
	size_t nchunks, chunk, cused, bytes;
	uint32_t **big;		/* lines longer than a chunk */
	size_t nbig;
	FILE **runs;		/* sorted runs spilled */
	size_t nruns;
	uint64_t total;		/* sum of weights (saturating) */
	unsigned int maxdepth;	/* frames in the deepest line, root included */
	uint32_t *rank;		/* intern_ranks() at the last sort */
	uint32_t nrank;
	struct fstack split;	/* fagg_add()'s numbers; the merge's line */
	struct sbuf wbuf;	/* spill()'s writes */
	/* reading */
	size_t pos;
	struct frun {
		uint32_t *ids;
		uint32_t n, cap;
		uint64_t w;
		char *buf;		/* run_read()'s: [pos, len) not read yet */
		size_t pos, len, bcap;
	} *rd;
	size_t *heap, nheap;
	char *cur;
	size_t curcap;
	char sep;		/* between the frames fagg_next() gives: FOLD_SEP */
};

void fagg_init(struct fagg *A, size_t budget);
/* a line of n frames' numbers, root first (fold_stack()); depth: its frames */
void fagg_add_ids(struct fagg *A, const uint32_t *ids, uint32_t n, unsigned int depth,
		  uint64_t w);
/* key: frames separated by FOLD_SEP, root first; depth: its frames */
void fagg_add(struct fagg *A, const char *key, size_t len, unsigned int depth, uint64_t w);
/* Done adding; 0 or -1 after a message (temporary file error). */
int fagg_finish(struct fagg *A);
/* The lines in frame order, equal keys merged: 1 and *key, *len, *w; 0 at
 * the end; -1 after a message.  *key is valid until the next call.  Its
 * frames are separated by FOLD_SEP, or by A->sep when set (after
 * fagg_finish(): the output's separator, the order stays FOLD_SEP's). */
int fagg_next(struct fagg *A, const char **key, size_t *len, uint64_t *w);
/* The same line as its frames' numbers (intern.h), root first, good until
 * the next call: no text made */
int fagg_next_ids(struct fagg *A, const uint32_t **ids, uint32_t *n, uint64_t *w);
void fagg_free(struct fagg *A);

/* Two finished fagg's lines joined in frame order (diff): each distinct
 * line once, with its weight on each side (0 where absent). */
struct fmerge {
	struct fagg *a, *b;
	int ra, rb;		/* fagg_next() of the current line: 1, 0 (end) */
	struct sbuf ka, kb;	/* the current lines */
	uint64_t wa, wb;
	bool adv_a, adv_b;	/* to read before the next line */
};
void fmerge_init(struct fmerge *M, struct fagg *a, struct fagg *b);
/* 1 and *key (valid until the next call), *len, *wa, *wb; 0 at the end; -1 */
int fmerge_next(struct fmerge *M, const char **key, size_t *len, uint64_t *wa, uint64_t *wb);
void fmerge_free(struct fmerge *M);

/*
 * The folded line of a stall into f, by numbers: root ("comm-pid/tid" per
 * --folded-root), the user frames outermost first, the kernel frames
 * suffixed "_[k]"; with submitter (--submitter, after sym_submit()), then
 * as bcc's offwaketime puts a waker's stack after the sleeper's, the
 * submitter's marker frame (submit_group()'s, "[submitted by COMM]" ...)
 * and its user frames innermost first.  Returns the frames, root included
 * (f->n).
 */
enum fold_root { ROOT_TID, ROOT_PID, ROOT_COMM };
unsigned int fold_stack(struct fstack *f, const struct sstall *ss, enum fold_root root,
			bool submitter);

/* "comm" for text: control bytes as '?'; for folded also ';' as ':'. */
void comm_clean(char *dst, const char *src, bool folded);

#endif
