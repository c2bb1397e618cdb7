// SPDX-License-Identifier: MIT
/*
 * Symbolized frames and stacks, cached within a memory budget.
 *
 * A kernel frame depends on the kernel symbols the stall file's anchors
 * select (ksym_view()) and the address; a user frame on the address space
 * (usym_space(), which already tells a reused pid or another boot apart),
 * the address and whether it is the PC or a return address.  A stack is
 * the same plus its depth and all its addresses.  So a cache hit is always
 * the frame a fresh lookup would give.
 */
#include <stdlib.h>
#include <string.h>

#include "intern.h"
#include "strbuf.h"
#include "symbolize.h"

unsigned long sym_unresolved;
bool sym_prefetching;
const struct lookahead sym_lookahead = {
	sym_prefetch, &sym_prefetching, SYM_AHEAD_HASH, SYM_AHEAD_FIND
};

/*
 * Frame kinds: kernel, user PC, user return address; a user frame's kind
 * also holds whether only CFI found it and the record's flag for it.
 */
enum { K_KERNEL, K_USER_PC, K_USER_RET };
#define K_BASE(k)	((k) & 3)
#define K_CFI		4
#define K_FLAG(k)	((enum uframe_flag)((k) >> 3))
#define K_MAKE(base, cfi, flag)	((uint8_t)((base) | ((cfi) ? K_CFI : 0) | ((unsigned int)(flag) << 3)))

/* What every cached entry starts with. */
struct centry {
	uint64_t hash;
	const void *space;
	uint32_t bytes;		/* accounted to the budget */
	uint32_t epoch;		/* stacks: last sym_stall() that used it: not evicted then */
	uint32_t pre;		/* bytes of the allocation before the entry */
	uint8_t ref;		/* stacks: CLOCK reference bit */
	uint8_t kind;
	uint8_t unresolved;	/* frames: not resolved (the reason is further on) */
	uint8_t reused;		/* stacks: looked up again since made */
};

/*
 * A frame's allocation starts a cache line with the report's line (the
 * text a stall copies of each frame), then the entry, its struct sframe
 * first, then its other strings: report's use of a frame reads the line
 * and where it is (the sframe's first bytes), two cache lines for most
 * frames, which matters when frames are many (distinct stacks).  The
 * cache's entry follows; its pre is counted from the allocation's start.
 */
#define FENT_ALIGN 64
struct fent {
	struct sframe sf;
	struct centry c;
};
/* the line, then at least the entry: SFRAME_LINE_SLACK bytes readable */
_Static_assert(sizeof(struct fent) >= SFRAME_LINE_SLACK, "struct fent");

/*
 * A slot of the frames' table: the frame's key, and what a lookup and the
 * walks that group or fold stacks take of it, so that they read 32 bytes a
 * frame, not its entry (some 300 bytes with its texts, mostly its line:
 * report's).  On distinct stacks the frames are many (320,000 on libc's
 * and the kernel's symbols, docs/performance.md section 5b): their entries
 * are far more than the CPU's caches hold, their slots are not.  The slot
 * holds the frame's reference bit and epoch (the low bits of the last
 * sym_stall() that used it: a match a wrap-around makes only keeps the
 * frame one more round) for the same reason.  Slots move (a deletion shifts
 * its probe run back, a growth rehashes): pointers to them are good while
 * C.frames.gen is.
 */
struct fslot {
	uint64_t addr;
	struct fent *e;		/* NULL: free */
	uint32_t space;		/* the address space's number (space_no()) */
	uint32_t key_id, fold_id;	/* e's */
	uint16_t epoch;
	uint8_t kind;
	uint8_t flags;		/* FS_* */
};
_Static_assert(sizeof(struct fslot) == 32, "struct fslot");
#define FS_REF		1	/* CLOCK reference bit */
#define FS_UNRESOLVED	2

/*
 * The user frames of a record, looked up a few stalls ahead of its
 * sym_stall() (sym_prefetch()) in the address space of the last user
 * stack: their hashes, then the entries found, and the hash of the stack,
 * by the stack's addresses in the record.
 */
#define AHEAD 8
struct ahead {
	const __u64 *a;		/* the record's ustack[]; NULL: unused */
	const void *space;
	unsigned int n;
	bool plain;		/* the default kinds (no 1.2 map flags) */
	bool found;		/* cand[] made (step 2), good while C.frames.gen is */
	unsigned long gen;	/* as it was then */
	uint64_t sh;		/* the stack's hash (plain) */
	uint64_t addr[I915_STALL_USTACK_MAX];	/* ustack[] then */
	uint64_t h[I915_STALL_USTACK_MAX];
	struct fslot *cand[I915_STALL_USTACK_MAX];
};
/* an entry made SYM_AHEAD_HASH stalls ahead is still there at its stall */
_Static_assert(AHEAD > SYM_AHEAD_HASH, "AHEAD");

struct sent {
	struct centry c;
	struct sstack st;
	char *text;		/* sym_stack_keep_text(), or NULL */
	uint32_t text_len;
	uint8_t text_fmt;
	uint64_t addrs[];	/* depth addresses, then depth frame pointers */
};

/*
 * An open-addressing table of entries, and the CLOCK's queue of them in
 * the order they came.  The CLOCK runs on the queue, not over the table's
 * slots: a hand sweeping the slots would leave the table dense just ahead
 * of it, where it deletes (the slots it passed last are the oldest), and
 * the probe runs there grew to thousands of entries.
 */
struct cslot {
	uint64_t hash;		/* the entry's: probes compare it without a miss */
	struct centry *e;
};

struct cqueue {
	struct centry **q;	/* ring of n entries, oldest at head */
	size_t head, n, cap;
};

struct ctable {
	struct cslot *t;
	size_t n, cap;
	struct cqueue q;	/* the n entries */
};

/* The frames' table (struct fslot) */
struct ftable {
	struct fslot *t;
	size_t n, cap;
	struct cqueue q;	/* the n entries */
	unsigned long gen;	/* slots moved: pointers to them are stale */
};

/* The numbers of the address spaces (space_no()) */
struct spslot {
	const void *space;
	uint32_t no;
};

static struct {
	struct sym_opts o;
	size_t budget, bytes;
	struct ftable frames;
	struct ctable stacks;
	struct spslot *sp;
	size_t nsp, spcap;
	const void *sp_last;		/* space_no()'s last answer */
	uint32_t sp_last_no;
	uint32_t epoch;
	uint64_t next_id;
	struct sbuf tmp;
	unsigned long hits[2], misses[2], evicted[2];
	uint32_t *seen;			/* seen_place() */
	size_t seen_mask;
	struct sent *scratch[3];	/* stack_miss(): kernel, user, submitter's user */
	size_t scratch_len[3];
	const void *user_space;		/* the last user stack's address space */
	const void *kernel_space;	/* the last kernel stack's */
	struct ahead ahead[AHEAD];	/* sym_prefetch() */
	unsigned int ahead_next;
} C;

void sym_init(const struct sym_opts *o)
{
	C.o = *o;
	C.budget = o->budget ? o->budget : (size_t)SYM_BUDGET_DEFAULT_MB << 20;
	ksym_init(&o->k);
	usym_init(&o->u);
}

void sym_add_session(const struct session *S)
{
	size_t i;

	for (i = 0; i < S->nin; i++)
		if (S->in[i].ar && S->in[i].ar->kallsyms)
			ksym_add_archive_kallsyms(S->in[i].ar->kallsyms, S->in[i].ar->kallsyms_len);
}

/* ---------------------------------------------------------------- tables */

static void ct_put(struct ctable *T, struct centry *e)
{
	size_t h = e->hash & (T->cap - 1);

	while (T->t[h].e)
		h = (h + 1) & (T->cap - 1);
	T->t[h].hash = e->hash;
	T->t[h].e = e;
}

static void ct_reserve(struct ctable *T)
{
	struct cslot *old = T->t;
	size_t oc = T->cap, i;

	if ((T->n + 1) * 2 <= T->cap)
		return;
	T->cap = oc ? oc * 2 : 1024;
	T->t = xhuge_calloc(T->cap, sizeof(*T->t));
	C.bytes += (T->cap - oc) * sizeof(*T->t);
	for (i = 0; i < oc; i++)
		if (old[i].e)
			ct_put(T, old[i].e);
	huge_free(old, oc, sizeof(*old));
}

/* e at the queue's tail */
static void q_push(struct cqueue *Q, struct centry *e)
{
	if (Q->n == Q->cap) {
		size_t oc = Q->cap, i;
		struct centry **q = xreallocarray(NULL, oc ? oc * 2 : 1024, sizeof(*q));

		for (i = 0; i < Q->n; i++)
			q[i] = Q->q[(Q->head + i) & (oc - 1)];
		free(Q->q);
		Q->q = q;
		Q->head = 0;
		Q->cap = oc ? oc * 2 : 1024;
		C.bytes += (Q->cap - oc) * sizeof(*q);
	}
	Q->q[(Q->head + Q->n++) & (Q->cap - 1)] = e;
}

/* The entry at the queue's head, taken off it */
static struct centry *q_pop(struct cqueue *Q)
{
	struct centry *e = Q->q[Q->head];

	Q->head = (Q->head + 1) & (Q->cap - 1);
	Q->n--;
	return e;
}

/* The entry i places after the head */
static struct centry *q_at(const struct cqueue *Q, size_t i)
{
	return Q->q[(Q->head + i) & (Q->cap - 1)];
}

/* Add e to the table and at the queue's tail. */
static void ct_insert(struct ctable *T, struct centry *e)
{
	ct_reserve(T);
	ct_put(T, e);
	q_push(&T->q, e);
	T->n++;
}

/*
 * Deleting slot i of a table with linear probing (both tables here): the
 * slot j after it, whose home slot is k, moves back to i unless its home
 * lies in (i, j], counted around the table's end.
 */
static inline bool probe_moves_back(size_t i, size_t j, size_t k)
{
	return i <= j ? (k <= i || k > j) : (k <= i && k > j);
}

/* Remove slot i, shifting back the entries of its probe run. */
static void ct_del(struct ctable *T, size_t i)
{
	size_t mask = T->cap - 1, j = i, k;

	for (;;) {
		j = (j + 1) & mask;
		if (!T->t[j].e)
			break;
		k = T->t[j].hash & mask;
		if (probe_moves_back(i, j, k)) {
			T->t[i] = T->t[j];
			i = j;
		}
	}
	T->t[i].e = NULL;
	T->n--;
}

/* ---------------------------------------------------------------- the frames' table */

/*
 * The number of an address space (a user stack's struct aspace, a kernel
 * stack's view of the kernel symbols), in the order they come: a frame's
 * slot holds 4 bytes of it, not the pointer.  Spaces live as long as the
 * program.  A stack's frames share one, so the last answer is kept.
 */
static uint32_t space_no(const void *space)
{
	size_t i, mask;

	if (!space)		/* not a space: a number no space has */
		return UINT32_MAX;
	if (space == C.sp_last)
		return C.sp_last_no;
	if ((C.nsp + 1) * 2 > C.spcap) {
		struct spslot *old = C.sp;
		size_t oc = C.spcap, j;

		C.spcap = oc ? oc * 2 : 64;
		C.sp = xcalloc(C.spcap, sizeof(*C.sp));
		for (j = 0; j < oc; j++) {
			if (!old[j].space)
				continue;
			for (i = hash_mix(0, (uintptr_t)old[j].space) & (C.spcap - 1); C.sp[i].space;
			     i = (i + 1) & (C.spcap - 1))
				;
			C.sp[i] = old[j];
		}
		free(old);
	}
	mask = C.spcap - 1;
	for (i = hash_mix(0, (uintptr_t)space) & mask; C.sp[i].space; i = (i + 1) & mask)
		if (C.sp[i].space == space)
			goto found;
	C.sp[i].space = space;	/* each is an allocation: far fewer than 2^32 */
	C.sp[i].no = (uint32_t)C.nsp++;
found:
	C.sp_last = space;
	C.sp_last_no = C.sp[i].no;
	return C.sp[i].no;
}

/* A frame's hash is hash_mix(frame_seed(space, kind), addr), space its
 * number: a stack's frames share a few seeds. */
static uint64_t frame_seed(uint32_t space, int kind)
{
	return hash_mix(hash_mix(0x5eed, space), (uint64_t)kind);
}

static uint64_t frame_hash(uint32_t space, int kind, uint64_t addr)
{
	return hash_mix(frame_seed(space, kind), addr);
}

static size_t fs_home(const struct ftable *T, const struct fslot *f)
{
	return frame_hash(f->space, f->kind, f->addr) & (T->cap - 1);
}

/* Put f in its place: no frame there yet, room made */
static struct fslot *ft_put(struct ftable *T, const struct fslot *f)
{
	size_t h = fs_home(T, f);

	while (T->t[h].e)
		h = (h + 1) & (T->cap - 1);
	T->t[h] = *f;
	return &T->t[h];
}

/* Room for one more slot: the table grows past half full.  Past three
 * quarters (as it grew before) a frame's probe run was two or three
 * slots, often past the cache line fetched ahead, and a new frame's
 * some eight: on distinct stacks (98,000 frames in 131,072 slots) the
 * lookups were a quarter of report's time. */
static void ft_reserve(struct ftable *T)
{
	struct fslot *old = T->t;
	size_t oc = T->cap, i;

	if ((T->n + 1) * 2 <= T->cap)
		return;
	T->cap = oc ? oc * 2 : 1024;
	T->t = xhuge_calloc(T->cap, sizeof(*T->t));
	C.bytes += (T->cap - oc) * sizeof(*T->t);
	for (i = 0; i < oc; i++)
		if (old[i].e)
			ft_put(T, &old[i]);
	huge_free(old, oc, sizeof(*old));
	T->gen++;
}

/* The slot of the frame (space, kind, addr) of hash h, or NULL */
static inline struct fslot *ft_find(const struct ftable *T, uint32_t space, int kind,
				    uint64_t addr, uint64_t h)
{
	size_t i;

	if (!T->cap)
		return NULL;
	for (i = h & (T->cap - 1); T->t[i].e; i = (i + 1) & (T->cap - 1))
		if (T->t[i].addr == addr && T->t[i].space == space && T->t[i].kind == kind)
			return &T->t[i];
	return NULL;
}

/* The slot of the entry e */
static size_t ft_slot_of(const struct ftable *T, const struct centry *e)
{
	size_t i;

	for (i = e->hash & (T->cap - 1); !T->t[i].e || &T->t[i].e->c != e;
	     i = (i + 1) & (T->cap - 1))
		;
	return i;
}

/* Remove slot i, shifting back the slots of its probe run. */
static void ft_del(struct ftable *T, size_t i)
{
	size_t mask = T->cap - 1, j = i, k;

	for (;;) {
		j = (j + 1) & mask;
		if (!T->t[j].e)
			break;
		k = fs_home(T, &T->t[j]);
		if (probe_moves_back(i, j, k)) {
			T->t[i] = T->t[j];
			i = j;
		}
	}
	T->t[i].e = NULL;
	T->n--;
	T->gen++;
}

/*
 * The frames' allocations (FENT_ALIGN multiples), carved from chunks on
 * huge pages (xhuge_calloc()), a free list per size; the larger ones from
 * the heap.  Read at random on distinct stacks: see xhuge_calloc().
 */
#define SLAB_CHUNK (8u << 20)
#define SLAB_CLASSES 64		/* up to 64 * FENT_ALIGN bytes */
static struct {
	char *cur, *end;
	void *free[SLAB_CLASSES + 1];
	char **chunks;
	size_t nchunks;
} slab;

static void *slab_alloc(size_t len)
{
	size_t cl = len / FENT_ALIGN;
	void *p;

	if (cl > SLAB_CLASSES)
		return xaligned_alloc(FENT_ALIGN, len);
	if (slab.free[cl]) {
		p = slab.free[cl];
		memcpy(&slab.free[cl], p, sizeof(void *));
		return p;
	}
	if ((size_t)(slab.end - slab.cur) < len) {
		slab.chunks = xreallocarray(slab.chunks, slab.nchunks + 1, sizeof(*slab.chunks));
		slab.cur = slab.chunks[slab.nchunks++] = xhuge_calloc(1, SLAB_CHUNK);
		slab.end = slab.cur + SLAB_CHUNK;
	}
	p = slab.cur;
	slab.cur += len;
	return p;
}

static void slab_release(void *p, size_t len)
{
	size_t cl = len / FENT_ALIGN;

	if (cl > SLAB_CLASSES) {
		free(p);
		return;
	}
	memcpy(p, &slab.free[cl], sizeof(void *));
	slab.free[cl] = p;
}

static void slab_cleanup(void)
{
	size_t i;

	for (i = 0; i < slab.nchunks; i++)
		huge_free(slab.chunks[i], 1, SLAB_CHUNK);
	free(slab.chunks);
	memset(&slab, 0, sizeof(slab));
}

/* a frame's allocation starts pre bytes before it (pre > 0), a stack's
 * at the entry */
static void free_entry(struct centry *e)
{
	C.bytes -= e->bytes;
	if (e->reused)
		free(((struct sent *)e)->text);
	if (e->pre)
		slab_release((char *)e - e->pre, e->bytes);
	else
		free(e);
}

#define EVICT_AHEAD 8

/*
 * The entries the CLOCK comes to next, and their table slots (of size
 * bytes, cap of them at t), fetched ahead: on distinct stacks each new
 * stack evicts an old one, and the old ones are out of the CPU's caches.
 */
static void prefetch_victims(const struct cqueue *Q, const void *t, size_t size, size_t cap)
{
	if (Q->n > 2 * EVICT_AHEAD) {
		const struct centry *e = q_at(Q, EVICT_AHEAD);

		__builtin_prefetch(q_at(Q, 2 * EVICT_AHEAD));
		__builtin_prefetch((const char *)t + (e->hash & (cap - 1)) * size);
	}
}

/*
 * Steps of the CLOCK: take the oldest entry; one in use by this stall
 * (its epoch; see make_room() for the frames of its stacks) or used since
 * it last came round goes back to the tail, the first other one is
 * evicted.  Stacks keep their epoch and bit in the entry, frames in their
 * slot.
 */
static bool ct_evict_one(struct ctable *T, size_t *budget_steps)
{
	while (*budget_steps && T->q.n) {
		struct centry *e = q_pop(&T->q);
		size_t i;

		(*budget_steps)--;
		if (e->epoch == C.epoch || e->ref) {
			e->ref = 0;
			q_push(&T->q, e);
			continue;
		}
		for (i = e->hash & (T->cap - 1); T->t[i].e != e; i = (i + 1) & (T->cap - 1))
			;
		ct_del(T, i);
		free_entry(e);
		C.evicted[1]++;
		prefetch_victims(&T->q, T->t, sizeof(*T->t), T->cap);
		return true;
	}
	return false;
}

static bool ft_evict_one(struct ftable *T, size_t *budget_steps)
{
	while (*budget_steps && T->q.n) {
		struct centry *e = q_pop(&T->q);
		size_t i = ft_slot_of(T, e);
		struct fslot *f = &T->t[i];

		(*budget_steps)--;
		if (f->epoch == (uint16_t)C.epoch || (f->flags & FS_REF)) {
			f->flags &= (uint8_t)~FS_REF;
			q_push(&T->q, e);
			continue;
		}
		ft_del(T, i);
		free_entry(e);
		C.evicted[0]++;
		prefetch_victims(&T->q, T->t, sizeof(*T->t), T->cap);
		return true;
	}
	return false;
}

static void stamp_frames(const struct sent *s);

/*
 * Make room for bytes more within the budget: stacks go first.  Frames go
 * only once every stack but this stall's is gone, and this stall's
 * stacks' frames are stamped with its epoch first: so no frame a cached
 * stack points to is evicted.
 */
static void make_room(size_t bytes)
{
	size_t steps, i;

	if (C.bytes + bytes <= C.budget)
		return;
	steps = C.stacks.n * 2;
	while (C.bytes + bytes > C.budget && C.stacks.n && ct_evict_one(&C.stacks, &steps))
		;
	if (C.bytes + bytes <= C.budget)
		return;
	for (i = C.stacks.n; i--;) {	/* once round the queue: those not this stall's go */
		struct centry *e = q_at(&C.stacks.q, 0);

		if (e->epoch != C.epoch) {
			e->ref = 0;
			steps = 1;
			ct_evict_one(&C.stacks, &steps);
			continue;
		}
		q_push(&C.stacks.q, q_pop(&C.stacks.q));
		stamp_frames((struct sent *)e);
	}
	steps = C.frames.n * 2;
	while (C.bytes + bytes > C.budget && C.frames.n && ft_evict_one(&C.frames, &steps))
		;
	/* else: everything left is in use by this stall; go over for now */
}

/* ---------------------------------------------------------------- frames */

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;

	return s ? s + 1 : p;
}

/* "sym+0xoff [mod]" (kernel) / "sym+0xoff (path)" (user) / why not,
 * then " [cfi]" for a frame only CFI found */
static void make_label(struct sbuf *b, const struct frame *fr, bool user, bool cfi)
{
	const char *why = reason_text(fr->reason);

	if (fr->name) {
		sb_puts(b, fr->name);
		sb_put(b, "+", 1);
		sb_hex(b, fr->off);
		if (fr->module) {
			sb_puts(b, user ? " (" : " [");
			sb_puts(b, fr->module);
			sb_putc(b, user ? ')' : ']');
		}
	} else if (fr->module && fr->has_modoff && fr->reason == R_NO_SYMBOL) {
		sb_putc(b, '[');
		sb_puts(b, base_name(fr->module));
		sb_putc(b, '+');
		sb_hex(b, fr->modoff);
		sb_putc(b, ']');
	} else {
		sb_puts(b, "[unknown: ");
		sb_puts(b, why);
		sb_putc(b, ']');
		if (fr->module && fr->has_modoff) {
			sb_putc(b, ' ');
			sb_puts(b, base_name(fr->module));
			sb_putc(b, '+');
			sb_hex(b, fr->modoff);
		} else if (fr->module) {
			sb_puts(b, user ? " (" : " [");
			sb_puts(b, fr->module);
			sb_putc(b, user ? ')' : ']');
		}
	}
	if (fr->src) {
		sb_puts(b, " at ");
		sb_puts(b, fr->src);
		sb_putc(b, ':');
		sb_dec(b, (uint64_t)fr->line, 0);
	}
	if (cfi)
		sb_puts(b, " [cfi]");
}

/*
 * Folded frame: no offsets, no ';' (stackcollapse-perf's conventions); a
 * file that is not the recorded one says so; a frame only CFI found ends
 * in "_[c]", as perf's kernel frames do in "_[k]".
 */
static void make_fold(struct sbuf *b, const struct frame *fr, bool addr, bool cfi)
{
	size_t start = b->len, i;

	if (fr->name) {
		sb_puts(b, fr->name);
	} else if (addr && !fr->module) {
		sb_puts(b, "[unknown ");
		sb_hex(b, fr->addr);
		sb_putc(b, ']');
	} else if (fr->module && fr->reason == R_BUILD_ID_MISMATCH) {
		sb_putc(b, '[');
		sb_puts(b, base_name(fr->module));
		sb_puts(b, ": build-id mismatch]");
	} else if (fr->module && fr->reason != R_ANON) {
		sb_putc(b, '[');
		sb_puts(b, base_name(fr->module));
		sb_putc(b, ']');
	} else {
		sb_puts(b, "[unknown]");
	}
	if (cfi)
		sb_puts(b, "_[c]");
	for (i = start; i < b->len; i++)
		if (b->p[i] == ';')
			b->p[i] = ':';
		else if ((unsigned char)b->p[i] < 0x20 || b->p[i] == 0x7f)
			b->p[i] = '?';
}

/* Copy the resolver's strings and the texts into one allocation: the
 * report's line, the entry, the other strings (struct fent).  The line
 * is made once here so that a stack not seen before is written by copying
 * its frames' lines, as a stack seen before copies its own. */
static struct fent *frame_entry(const struct frame *fr, bool user, uint64_t hash,
				const void *space, int kind)
{
	struct sbuf *b = &C.tmp;
	size_t line, fold, key, name = 0, mod = 0, src = 0, pre, len;
	bool same_key, same_name = false;
	struct fent *e;
	char *base, *p;

	sb_reset(b);
	sb_hex16(b, fr->addr);
	sb_putc(b, ' ');
	make_label(b, fr, user, kind & K_CFI);
	sb_putc(b, '\n');
	line = b->len;
	make_fold(b, fr, false, kind & K_CFI);
	fold = b->len - line;
	make_fold(b, fr, true, kind & K_CFI);
	key = b->len - line - fold;
	/* the texts that are the folded name's are not copied again: the key
	 * of a frame with a symbol or a file, and most symbols' names (a
	 * frame's entry is then a cache line smaller, on libc's and the
	 * kernel's symbols: the caches hold a fifth more frames) */
	same_key = key == fold && !memcmp(b->p + line, b->p + line + fold, fold);
	if (fr->name) {
		name = strlen(fr->name);
		same_name = name == fold && !memcmp(fr->name, b->p + line, fold);
		name = same_name ? 0 : name + 1;
	}
	if (fr->module)
		mod = strlen(fr->module) + 1;
	if (fr->src)
		src = strlen(fr->src) + 1;
	pre = (line + 1 + 7) / 8 * 8;	/* the line and its NUL, the entry aligned */
	len = (pre + sizeof(*e) + fold + 1 + (same_key ? 0 : key + 1) + name + mod + src +
	       FENT_ALIGN - 1) / FENT_ALIGN * FENT_ALIGN;
	make_room(len);
	base = slab_alloc(len);
	e = (struct fent *)(void *)(base + pre);
	memset(e, 0, sizeof(*e));
	e->c.hash = hash;
	e->c.space = space;
	e->c.kind = (uint8_t)kind;
	e->c.bytes = (uint32_t)len;
	e->c.pre = (uint32_t)(pre + offsetof(struct fent, c));
	e->c.epoch = C.epoch;
	e->sf.fr = *fr;
	e->sf.user = user;
	e->sf.cfi = user && (kind & K_CFI);
	e->sf.line = base;
	memcpy(base, b->p, line);
	base[line] = 0;
	p = (char *)(e + 1);
	if (name) {
		memcpy(p, fr->name, name);
		e->sf.fr.name = p;
		p += name;
	}
	if (mod) {
		memcpy(p, fr->module, mod);
		e->sf.fr.module = p;
		p += mod;
	}
	if (src) {
		memcpy(p, fr->src, src);
		e->sf.fr.src = p;
		p += src;
	}
	e->sf.fold = p;
	memcpy(p, b->p + line, fold);
	p[fold] = 0;
	p += fold + 1;
	if (same_name)
		e->sf.fr.name = e->sf.fold;
	if (same_key) {
		e->sf.key = e->sf.fold;
	} else {
		e->sf.key = p;
		memcpy(p, b->p + line + fold, key);
		p[key] = 0;
	}
	e->sf.line_len = (uint32_t)line;
	e->sf.fold_len = (uint32_t)fold;
	e->sf.key_len = (uint32_t)key;
	/* the frames' keys and folded names by number (intern.h), kept
	 * past eviction: summary groups stacks by their frames' keys' numbers
	 * (a stack's key text is some 400 bytes on libc's symbols), folded
	 * and SVG by their folded names' */
	if (C.o.no_ids) {
		e->sf.key_id = e->sf.fold_id = UINT32_MAX;
	} else {
		e->sf.key_id = intern(e->sf.key, key);
		if (user) {
			e->sf.fold_id = intern(e->sf.fold, fold);
		} else {
			sb_reset(b);
			sb_put(b, e->sf.fold, fold);
			sb_put(b, "_[k]", 4);
			e->sf.fold_id = intern(b->p, b->len);
		}
	}
	C.bytes += len;
	return e;
}

/* f is used by this stall (epoch): the CLOCK keeps it */
static inline void frame_touch(struct fslot *f, uint32_t epoch)
{
	f->flags |= FS_REF;
	f->epoch = (uint16_t)epoch;
}

/* f is the frame (space, kind, addr): then it is used by this stall
 * (epoch), and the caller counts a hit */
static inline bool frame_hit(struct fslot *f, uint32_t space, int kind, uint64_t addr,
			     uint32_t epoch)
{
	if (f->addr != addr || f->space != space || f->kind != kind)
		return false;
	frame_touch(f, epoch);
	return true;
}

/* The frame (space, kind, addr) of the space numbered sno, looked up, else
 * made (the slow path of stack_frames(); the caller frame).  Its slot is
 * good until the next frame is made. */
static __attribute__((noinline)) struct fslot *frame_get(const struct stall *s,
							  const void *space, uint32_t sno,
							  int kind, uint64_t addr)
{
	uint64_t h = frame_hash(sno, kind, addr);
	struct fslot *f = ft_find(&C.frames, sno, kind, addr, h), n;
	struct frame fr;
	struct fent *e;

	if (f) {	/* ft_find() matched it */
		frame_touch(f, C.epoch);
		C.hits[0]++;
		return f;
	}
	C.misses[0]++;
	if (kind == K_KERNEL)
		ksym_resolve(s->f, addr, &fr);
	else
		usym_resolve((struct aspace *)space, addr, K_BASE(kind) == K_USER_PC, K_FLAG(kind),
			     &fr);
	e = frame_entry(&fr, kind != K_KERNEL, h, space, kind);	/* may evict */
	e->c.unresolved = fr.reason != R_NONE;
	n = (struct fslot){
		.addr = addr, .e = e, .space = sno, .key_id = e->sf.key_id,
		.fold_id = e->sf.fold_id, .epoch = (uint16_t)C.epoch, .kind = (uint8_t)kind,
		.flags = e->c.unresolved ? FS_UNRESOLVED : 0,
	};
	ft_reserve(&C.frames);
	f = ft_put(&C.frames, &n);
	q_push(&C.frames.q, &e->c);
	C.frames.n++;
	return f;
}

/* The kind of frame i of a stack: kinds[i] when given, else the PC then
 * return addresses (user) or kernel frames. */
static inline int kind_at(bool user, const uint8_t *kinds, unsigned int i)
{
	return kinds ? kinds[i] : !user ? K_KERNEL : i ? K_USER_RET : K_USER_PC;
}

/* ---------------------------------------------------------------- stacks */

/* A stack's key: its frames' addresses and, for a 1.2 user stack, their
 * kinds and why the chain ends. */
struct skey {
	bool user;
	bool submit;		/* a submitter's user stack: its own scratch entry */
	unsigned int depth;
	const __u64 *a;
	const uint8_t *kinds;	/* NULL: the default kinds */
	uint8_t end;
	uint64_t end_addr;
	const struct ahead *ah;	/* a plain user stack looked up ahead, or NULL */
};

/* inlined into the lookup, which a stack seen before is mostly made of */
static inline __attribute__((always_inline)) uint64_t stack_hash(const void *space,
								 const struct skey *k)
{
	uint64_t h = hash_mix(hash_mix(hash_mix(0xc0ffee, (uintptr_t)space), k->user), k->depth);
	unsigned int i;

	for (i = 0; i < k->depth; i++)
		h = hash_mix(h, k->a[i]);
	if (k->kinds) {
		for (i = 0; i < k->depth; i++)
			h = hash_mix(h, k->kinds[i]);
		h = hash_mix(hash_mix(h, k->end), k->end_addr);
	}
	return h;
}

/* A stack entry's kinds (1.2 user stacks): after its frames' numbers */
static const uint8_t *sent_kinds(const struct sent *e)
{
	return (const uint8_t *)(e->st.fold_ids + e->st.depth);
}

static bool stack_is(const struct sent *e, const void *space, const struct skey *k)
{
	const uint8_t *kinds = sent_kinds(e);

	return e->c.space == space && e->c.kind == (k->user | (k->kinds ? 2 : 0)) &&
	       e->st.depth == k->depth && !memcmp(e->addrs, k->a, k->depth * sizeof(*k->a)) &&
	       (!k->kinds || (!memcmp(kinds, k->kinds, k->depth) && e->st.end == k->end &&
			      e->st.end_addr == k->end_addr));
}

#define FRAMES_AHEAD 64

/* The hashes of frames [j, j + n) of the stack (a, kinds) in the space
 * numbered sno, their table slots fetched ahead. */
static void frames_hash(uint32_t sno, bool user, const uint8_t *kinds, const __u64 *a,
			unsigned int j, unsigned int n, uint64_t *h)
{
	const struct fslot *t = C.frames.t;
	size_t mask = C.frames.cap - 1;
	uint64_t seed = 0, first, rest;
	unsigned int i;
	int last = -1;

	if (!kinds) {	/* the default kinds: two seeds */
		first = frame_seed(sno, kind_at(user, NULL, 0));
		rest = frame_seed(sno, kind_at(user, NULL, 1));
		for (i = 0; i < n; i++) {
			uint64_t x = hash_mix(j + i ? rest : first, a[j + i]);

			h[i] = x;
			if (t)
				__builtin_prefetch(&t[x & mask]);
		}
		return;
	}
	for (i = 0; i < n; i++) {
		uint64_t x;

		if (kinds[j + i] != last) {
			last = kinds[j + i];
			seed = frame_seed(sno, last);
		}
		x = hash_mix(seed, a[j + i]);
		h[i] = x;
		if (t)
			__builtin_prefetch(&t[x & mask]);
	}
}

/*
 * The slot of each frame [j, j + n) of a (hashes h), or NULL, its entry
 * fetched ahead when the walk reads the entries (sym_opts' fetch_frames):
 * the entry's start and the cache line before it, where the report's line
 * is (frame_entry(); all of it unless it is longer than a cache line and a
 * half).  Valid while C.frames.gen is.
 */
static void frames_find(uint32_t sno, bool user, const uint8_t *kinds, const __u64 *a,
			unsigned int j, unsigned int n, const uint64_t *h, struct fslot **cand)
{
	int kfirst = kind_at(user, NULL, 0), krest = kind_at(user, NULL, 1);
	unsigned int i;

	for (i = 0; i < n; i++) {
		int kind = kinds ? kinds[j + i] : j + i ? krest : kfirst;
		struct fslot *f = ft_find(&C.frames, sno, kind, a[j + i], h[i]);

		if (f && C.o.fetch_frames) {
			__builtin_prefetch((char *)f->e - 64);
			__builtin_prefetch(&f->e->sf.line_len);
		}
		cand[i] = f;
	}
}

/*
 * The frames of a stack not cached, FRAMES_AHEAD at a time: first each
 * one's hash, its table slot fetched ahead; then each one's slot found
 * (frames_find()); then each one taken.  So the cache misses of a stack
 * of frames seen before overlap instead of coming one after another.
 * Those steps were made a few stalls ahead for a stack of a record's
 * ustack[] as it is (sym_prefetch()).  A frame not found is made
 * (frame_get()): which moves slots, and then the slots found before are
 * looked up again.  The frames' numbers are taken from their slots: the
 * walks that group or fold stacks read no frame's entry.
 */
static void stack_frames(const struct stall *s, const void *space, const struct skey *k,
			 struct sstack *st, const struct sframe **frames, uint32_t *key_ids,
			 uint32_t *fold_ids)
{
	const struct ahead *ah = k->ah;
	const uint8_t *kinds = k->kinds;
	const __u64 *a = k->a;
	int kfirst = kind_at(k->user, NULL, 0), krest = kind_at(k->user, NULL, 1);
	uint32_t epoch = C.epoch, sno = space_no(space);
	uint64_t hbuf[FRAMES_AHEAD];
	struct fslot *cbuf[FRAMES_AHEAD];
	unsigned int j, i, n, unresolved = 0;
	unsigned long hits = 0;
	bool fetch = C.o.fetch_frames;

	for (j = 0; j < k->depth; j += n) {
		const uint64_t *h = hbuf;
		struct fslot *const *cand = cbuf;
		unsigned long gen = C.frames.gen;
		bool stale = false;	/* slots moved: cand[] may be elsewhere */

		n = k->depth - j < FRAMES_AHEAD ? k->depth - j : FRAMES_AHEAD;
		if (ah) {	/* k->depth <= I915_STALL_USTACK_MAX */
			h = ah->h;
			if (ah->found && ah->gen == gen)
				cand = ah->cand;
			else
				frames_find(sno, k->user, kinds, a, j, n, h, cbuf);
		} else {
			frames_hash(sno, k->user, kinds, a, j, n, hbuf);
			frames_find(sno, k->user, kinds, a, j, n, h, cbuf);
		}
		for (i = 0; i < n; i++) {
			int kind = kinds ? kinds[j + i] : j + i ? krest : kfirst;
			struct fslot *f = stale ? NULL : cand[i];

			if (f && frame_hit(f, sno, kind, a[j + i], epoch)) {
				hits++;
			} else {
				f = frame_get(s, space, sno, kind, a[j + i]);
				stale = C.frames.gen != gen;
			}
			/* what report reads next of the frame (frame_entry()) */
			if (fetch)
				__builtin_prefetch(f->e->sf.line);
			frames[j + i] = &f->e->sf;
			key_ids[j + i] = f->key_id;
			fold_ids[j + i] = f->fold_id;
			unresolved += f->flags & FS_UNRESOLVED ? 1 : 0;
		}
	}
	C.hits[0] += hits;
	st->unresolved += unresolved;
}

/* The bytes of a stack's entry of depth frames. */
static size_t sent_size(const struct skey *k)
{
	return sizeof(struct sent) +
	       k->depth * (sizeof(*k->a) + sizeof(struct sframe *) + 2 * sizeof(uint32_t)) +
	       (k->kinds ? k->depth : 0);
}

/* Where the arrays of e, a stack of depth frames, lie after its
 * addresses: the frames, their key_ids, their fold_ids (returned), and a
 * 1.2 user stack's kinds */
static uint32_t *sent_arrays(struct sent *e, unsigned int depth)
{
	const struct sframe **frames = (const struct sframe **)(void *)(e->addrs + depth);
	uint32_t *ids = (uint32_t *)(void *)(frames + depth);

	e->st.addrs = e->addrs;
	e->st.frames = frames;
	e->st.key_ids = ids;
	e->st.fold_ids = ids + depth;
	return ids;
}

/* e, of sent_size(k) bytes, made the stack k (hash h) of this stall, id 0. */
static void stack_fill(struct sent *e, const struct stall *s, const void *space,
		       const struct skey *k, uint64_t h)
{
	uint32_t *ids;

	memset(e, 0, sizeof(*e));
	e->c.hash = h;
	e->c.space = space;
	e->c.kind = (uint8_t)(k->user | (k->kinds ? 2 : 0));
	e->c.epoch = C.epoch;
	memcpy(e->addrs, k->a, k->depth * sizeof(*k->a));
	e->st.depth = k->depth;
	e->st.end = k->end;
	e->st.end_addr = k->end_addr;
	ids = sent_arrays(e, k->depth);
	if (k->kinds)
		memcpy(ids + 2 * k->depth, k->kinds, k->depth);
	stack_frames(s, space, k, &e->st, e->st.frames, ids, ids + k->depth);
}

#define SEEN_SHARE 64	/* seen_place()'s table: at most this part of the budget */

/*
 * The tag of the stack of hash h in the table of the stacks seen, and its
 * place.  A stack is cached the second time it is seen: on distinct
 * stacks, caching each would make an entry that evicts an older one, and
 * neither is used again.  The table holds a tag (the hash's high half) per
 * place (the hash's low bits), a tag overwriting another: a collision only
 * caches a stack early, or at its third sighting.
 */
static uint32_t *seen_place(uint64_t h, uint32_t *tag)
{
	if (!C.seen) {
		size_t n = 1024;

		while (n * sizeof(*C.seen) * SEEN_SHARE < C.budget)
			n *= 2;
		C.seen = xhuge_calloc(n, sizeof(*C.seen));
		C.seen_mask = n - 1;
		C.bytes += n * sizeof(*C.seen);
	}
	*tag = (uint32_t)(h >> 32) | 1;
	return &C.seen[h & C.seen_mask];
}

/*
 * A stack not cached: made in a scratch entry of its own kind (kernel,
 * user: a stall has one of each), id 0, when first seen; cached when seen
 * again.  Whether it was is read last, once its place in the table of the
 * stacks seen, fetched first, has come in while the frames were looked up.
 */
static __attribute__((noinline)) const struct sstack *
stack_miss(const struct stall *s, const void *space, const struct skey *k, uint64_t h)
{
	size_t len = sent_size(k);
	uint32_t tag, *seen = seen_place(h, &tag);
	unsigned int slot = k->submit ? 2 : k->user;
	struct sent *e, *x;

	__builtin_prefetch(seen);
	C.misses[1]++;
	if (k->user && !k->submit) {
		sym_prefetching = true;
		C.user_space = space;
	}
	if (C.scratch_len[slot] < len) {
		free(C.scratch[slot]);
		C.scratch[slot] = xmalloc(len);
		C.scratch_len[slot] = len;
	}
	x = C.scratch[slot];
	stack_fill(x, s, space, k, h);
	if (*seen != tag) {
		*seen = tag;
		return &x->st;
	}
	/* this stall's frames are stamped: making room does not evict them */
	make_room(len);
	e = xmalloc(len);
	memcpy(e, x, len);
	sent_arrays(e, k->depth);
	e->st.id = ++C.next_id;
	e->c.bytes = (uint32_t)len;
	e->c.reused = 1;	/* seen twice: its text is worth keeping */
	C.bytes += len;
	ct_insert(&C.stacks, &e->c);
	return &e->st;
}

static const struct sstack *stack_get_k(const struct stall *s, const void *space,
					const struct skey *k)
{
	uint64_t h = k->ah ? k->ah->sh : stack_hash(space, k);
	struct sent *e;
	size_t i;

	if (C.stacks.cap)
		for (i = h & (C.stacks.cap - 1); C.stacks.t[i].e; i = (i + 1) & (C.stacks.cap - 1)) {
			if (C.stacks.t[i].hash != h)
				continue;
			e = (struct sent *)C.stacks.t[i].e;
			if (stack_is(e, space, k)) {
				e->c.ref = 1;
				e->c.epoch = C.epoch;
				e->c.reused = 1;
				C.hits[1]++;
				return &e->st;
			}
		}
	return stack_miss(s, space, k, h);
}

static const struct sstack *stack_get(const struct stall *s, const void *space, bool user,
				      unsigned int depth, const __u64 *a)
{
	struct skey k = { .user = user, .depth = depth, .a = a };

	return stack_get_k(s, space, &k);
}

static struct sent *sent_of(const struct sstack *st)
{
	return (struct sent *)(void *)((char *)st - offsetof(struct sent, st));
}

/*
 * The text a stack's lines were made into, kept with the cached stack for
 * the next stalls that have it (NULL when not kept: a stack seen once is
 * not).  fmt tells the texts apart.
 */
enum { SYM_TEXT_REPORT = 1 };	/* fmt: the text report's lines */
static const char *sym_stack_text(const struct sstack *st, unsigned int fmt, size_t *len)
{
	const struct sent *e = sent_of(st);

	if (!e->text || e->text_fmt != fmt)
		return NULL;
	*len = e->text_len;
	return e->text;
}

static void sym_stack_keep_text(const struct sstack *st, unsigned int fmt, const char *text,
				size_t len)
{
	struct sent *e = sent_of(st);

	/* a stack seen once (distinct stacks) is not worth a copy; one
	 * format's text at a time; within the budget, as this stall's */
	if (!e->c.reused || e->text || len > UINT32_MAX)
		return;
	make_room(len);
	e->text = xmalloc(len);
	memcpy(e->text, text, len);
	e->text_len = (uint32_t)len;
	e->text_fmt = (uint8_t)fmt;
	e->c.bytes += (uint32_t)len;
	C.bytes += len;
}

static void block(struct sbuf *b, const struct sstack *st)
{
	static char head[100][8];	/* "    #N  ", N left-aligned in 2 columns */
	unsigned int i, n;
	size_t len;
	char *p;

	if (!head[0][0])
		for (i = 0; i < 100; i++) {
			memcpy(head[i], "    #", 5);
			head[i][5] = (char)('0' + (i < 10 ? i : i / 10));
			head[i][6] = i < 10 ? ' ' : (char)('0' + i % 10);
			head[i][7] = ' ';
		}
	/* "    #N  ", then the frame's own "0x%016llx LABEL\n" (its
	 * lines were fetched ahead when the stack was made: sym_stall()),
	 * copied 32 bytes at a time (struct sframe's slack): room for all
	 * the lines is made once */
	if (!st)
		return;
	n = st->depth < 100 ? st->depth : 100;
	for (i = 0, len = 0; i < n; i++)
		len += st->frames[i]->line_len;
	sb_need(b, len + 8 * (size_t)n + SFRAME_LINE_SLACK);
	p = b->p + b->len;
	for (i = 0; i < n; i++) {
		const struct sframe *f = st->frames[i];
		size_t k;

		memcpy(p, head[i], 8);
		p += 8;
		for (k = 0; k < f->line_len; k += SFRAME_LINE_SLACK)
			memcpy(p + k, f->line + k, SFRAME_LINE_SLACK);
		p += f->line_len;
	}
	b->len = (size_t)(p - b->p);
	b->p[b->len] = 0;
	for (; i < st->depth; i++) {	/* not in a record's depths; kept general */
		sb_put(b, "    #", 5);
		sb_dec(b, i, 0);
		sb_putc(b, ' ');
		sb_put(b, st->frames[i]->line, st->frames[i]->line_len);
	}
}

/* "    [end: no CFI for 0x...]": why a 1.2 chain stops where CFI did */
static void ustack_end_text(struct sbuf *b, const struct sstack *u)
{
	sb_puts(b, "    [end: ");
	sb_puts(b, uend_text((enum uend)u->end));
	if (u->end == UEND_NO_CFI || u->end == UEND_NO_MAP || u->end == UEND_ERROR) {
		sb_putc(b, ' ');
		sb_hex(b, u->end_addr);
	}
	sb_puts(b, "]\n");
}

/* A stack's lines, and the end of a 1.2 chain (symbolize.h) */
void sym_stack_lines(struct sbuf *b, const struct sstack *st)
{
	const char *t;
	size_t start, len;

	if (!st)
		return;
	t = sym_stack_text(st, SYM_TEXT_REPORT, &len);
	if (t) {
		sb_put(b, t, len);
		return;
	}
	start = b->len;
	block(b, st);
	if (st->end)
		ustack_end_text(b, st);
	sym_stack_keep_text(st, SYM_TEXT_REPORT, b->p + start, b->len - start);
}

/* The frames of s are this stall's: their slots say so */
static void stamp_frames(const struct sent *s)
{
	unsigned int i;

	for (i = 0; i < s->st.depth; i++) {
		const struct fent *e = (const struct fent *)(const void *)
				       ((const char *)s->st.frames[i] - offsetof(struct fent, sf));

		C.frames.t[ft_slot_of(&C.frames, &e->c)].epoch = (uint16_t)C.epoch;
	}
}

/* ---------------------------------------------------------------- 1.2 user stacks */

#define JOIN_MAX (I915_STALL_USTACK_MAX + USTACK_CFI_MAX)
#define POS_UNKNOWN 0			/* the FP entry's slot is not known */
#define POS_ABOVE UINT64_MAX		/* above the snapshot's end */

/*
 * Where the kernel's frame-pointer walk read each ustack[] entry: it takes
 * ustack[i] from [bp + 8] and the next bp from [bp], starting at user_bp.
 * The walk is redone in the snapshot while it lies there and agrees with
 * ustack[]; once the frame at bp is past the snapshot's end, every later
 * slot is taken to be above it (a frame-pointer chain grows upwards); a bp
 * below user_sp, misaligned, or a word that is not the recorded entry
 * leaves the rest unknown.
 */
static void fp_slots(const struct srec *r, uint64_t *pos)
{
	uint64_t bp = r->user_bp, sp = r->user_sp, top, end;
	unsigned int i;

	for (i = 0; i < r->udepth; i++)
		pos[i] = POS_UNKNOWN;
	/* bp comes from the record, then from the snapshot: any value.  The
	 * sums are checked, never wrapped (decode.c refuses a snapshot that
	 * wraps; checked again here, where it is relied on). */
	if (__builtin_add_overflow(sp, (uint64_t)r->snap_size, &top))
		return;
	for (i = 1; i < r->udepth; i++) {
		uint64_t ret, next;

		if (bp < sp || bp % 8)
			return;
		/* the frame [bp, bp + 16) past the top of the address space:
		 * no frame, the rest is not known */
		if (__builtin_add_overflow(bp, (uint64_t)16, &end))
			return;
		if (end > top) {	/* left the snapshot upwards */
			for (; i < r->udepth; i++)
				pos[i] = POS_ABOVE;
			return;
		}
		memcpy(&next, r->snap + (bp - sp), 8);
		memcpy(&ret, r->snap + (bp - sp) + 8, 8);
		if (ret != r->ustack[i])
			return;
		pos[i] = bp + 8;
		bp = next;
	}
}

/*
 * A 1.2 record's user chain: the CFI walk of its snapshot joined to its
 * frame-pointer chain, each frame once (docs/reader.md, "User stacks of
 * format 1.2"):
 *  - no CFI step (no snapshot, a 32-bit task, no CFI at user_ip): the
 *    frame-pointer chain as recorded;
 *  - else the CFI frames, then the frame-pointer entries whose slot is at
 *    or above the last CFI frame's stack pointer (none if CFI reached the
 *    outermost frame).  A CFI frame whose return address is the
 *    frame-pointer entry read from the same slot is that entry; the
 *    others are marked found by CFI.  Frame-pointer entries below the last
 *    CFI frame that CFI did not find are dropped: CFI is preferred.
 * The end reason is kept when the chain ends where CFI stopped.
 */
static unsigned int ustack_join(struct aspace *as, const struct srec *r, __u64 *a,
				uint8_t *kinds, uint8_t *end, uint64_t *end_addr)
{
	static struct ucfi c;
	uint64_t pos[I915_STALL_USTACK_MAX];
	unsigned int n = 0, i, j;
	bool unwind = (r->flags & FMT_F_USER_REGS) && r->snap_size &&
		      !(r->flags & (I915_STALL_F_COMPAT | I915_STALL_F_KTHREAD));

	*end = UEND_NONE;
	*end_addr = 0;
	c.n = 0;
	c.end = UEND_NONE;	/* not the last record's: c is static */
	c.end_addr = 0;
	if (unwind)
		unwind_snapshot(as, r, &c);
	else if ((r->flags & I915_STALL_F_COMPAT) && r->snap_size)
		c.end = UEND_COMPAT;
	if (c.n <= 1) {
		for (i = 0; i < r->udepth; i++) {
			a[n] = r->ustack[i];
			kinds[n++] = K_MAKE(i ? K_USER_RET : K_USER_PC, false,
					    uframe_flag_of(r, r->ustack_map[i]));
		}
		if ((n <= 1 && c.end != UEND_NONE) || c.end == UEND_COMPAT) {
			*end = (uint8_t)c.end;
			*end_addr = c.end_addr;
			if (!n && c.n) {
				a[n] = c.pc[0];
				kinds[n++] = K_MAKE(K_USER_PC, false, UF_NONE);
			}
		}
		return n;
	}
	fp_slots(r, pos);
	for (j = 0; j < c.n; j++) {
		enum uframe_flag fl = UF_NONE;
		bool cfi = j > 0;

		if (j == 0 && r->udepth && r->ustack[0] == c.pc[0]) {
			fl = uframe_flag_of(r, r->ustack_map[0]);
		} else if (j > 0 && c.sp[j]) {
			for (i = 1; i < r->udepth; i++)
				if (pos[i] != POS_UNKNOWN && pos[i] != POS_ABOVE &&
				    pos[i] == c.sp[j] - 8 && r->ustack[i] == c.pc[j]) {
					fl = uframe_flag_of(r, r->ustack_map[i]);
					cfi = false;
					break;
				}
		}
		a[n] = c.pc[j];
		kinds[n++] = K_MAKE(j == 0 || c.activation[j] ? K_USER_PC : K_USER_RET, cfi, fl);
	}
	if (c.end != UEND_NONE && c.sp[c.n - 1])
		for (i = 1; i < r->udepth && n < JOIN_MAX; i++)
			if (pos[i] != POS_UNKNOWN && pos[i] >= c.sp[c.n - 1]) {
				a[n] = r->ustack[i];
				kinds[n++] = K_MAKE(K_USER_RET, false, uframe_flag_of(r, r->ustack_map[i]));
			}
	if (n == c.n) {
		*end = (uint8_t)c.end;
		*end_addr = c.end_addr;
	}
	return n;
}

void sym_prefetch(const struct stall *s, int step)
{
	const void *space = C.user_space;
	uint8_t kinds[I915_STALL_USTACK_MAX];
	struct ahead *ah;
	struct srec r;
	unsigned int i;
	uint32_t sno;

	if (!C.frames.cap || !space)
		return;
	srec_get(s->f, s->raw, &r);
	/* the kernel frames' slots too, in the last kernel stack's view:
	 * the walks that fold or group read nothing else of them */
	if (step == 1 && C.kernel_space && r.kdepth && r.kdepth <= I915_STALL_KSTACK_MAX) {
		uint64_t kh[I915_STALL_KSTACK_MAX];

		frames_hash(space_no(C.kernel_space), false, NULL, r.kstack, 0, r.kdepth, kh);
	}
	if (!r.udepth || r.udepth > I915_STALL_USTACK_MAX)
		return;
	sno = space_no(space);
	/* a 1.2 record's kinds as its chain joined to a CFI walk
	 * (ustack_join()) mostly has them */
	for (i = 0; r.ustack_map && i < r.udepth; i++)
		kinds[i] = K_MAKE(i ? K_USER_RET : K_USER_PC, false,
				  uframe_flag_of(&r, r.ustack_map[i]));
	if (step == 1) {
		struct skey k = { .user = true, .depth = r.udepth, .a = r.ustack };

		ah = &C.ahead[C.ahead_next++ % AHEAD];
		ah->a = r.ustack;
		ah->n = r.udepth;
		memcpy(ah->addr, r.ustack, r.udepth * sizeof(*ah->addr));
		ah->space = space;
		ah->plain = !r.ustack_map;
		ah->found = false;
		frames_hash(sno, true, r.ustack_map ? kinds : NULL, r.ustack, 0, r.udepth, ah->h);
		if (ah->plain) {	/* the stack's place in the stacks seen */
			ah->sh = stack_hash(space, &k);
			if (C.seen)
				__builtin_prefetch(&C.seen[ah->sh & C.seen_mask]);
		}
		return;
	}
	for (i = 0; i < AHEAD; i++) {
		ah = &C.ahead[i];
		if (ah->a == r.ustack && ah->space == space && ah->n == r.udepth &&
		    ah->plain == !r.ustack_map) {
			frames_find(sno, true, r.ustack_map ? kinds : NULL, r.ustack, 0, ah->n, ah->h,
				    ah->cand);
			ah->found = true;
			ah->gen = C.frames.gen;
			return;
		}
	}
}

/*
 * What sym_prefetch() found of the stall r's user frames, if it was made
 * in its address space, with the default kinds, and of the addresses the
 * record has now.  Entries are not used up, only overwritten.
 */
static const struct ahead *ahead_find(const struct srec *r, const void *space)
{
	unsigned int i;

	for (i = 0; i < AHEAD; i++) {
		const struct ahead *ah = &C.ahead[i];

		if (ah->a == r->ustack && ah->space == space && ah->plain && ah->n == r->udepth &&
		    !memcmp(ah->addr, r->ustack, r->udepth * sizeof(*ah->addr)))
			return ah;
	}
	return NULL;
}

/*
 * The user stack of r (a stall's, or with submit a submit record's, which
 * has no snapshot: its frame-pointer chain), or NULL when empty; ahead:
 * sym_prefetch() ran for the stall.
 */
static const struct sstack *user_stack(const struct stall *s, const struct srec *r, bool submit,
				       bool ahead)
{
	struct aspace *uspace;

	if (r->ustack_map && (r->udepth || r->snap_size)) {
		__u64 a[JOIN_MAX];
		uint8_t kinds[JOIN_MAX];
		struct skey k = { .user = true, .submit = submit, .a = a, .kinds = kinds };

		uspace = usym_space(s->f, r);
		k.depth = ustack_join(uspace, r, a, kinds, &k.end, &k.end_addr);
		if (k.depth || k.end)
			return stack_get_k(s, uspace, &k);
	} else if (r->udepth) {
		struct skey k = { .user = true, .submit = submit, .depth = r->udepth,
				  .a = r->ustack };

		uspace = usym_space(s->f, r);
		if (ahead && !submit)	/* sym_prefetch() ran */
			k.ah = ahead_find(r, uspace);
		return stack_get_k(s, uspace, &k);
	}
	return NULL;
}

void sym_submit(struct sstall *out)
{
	struct ssubmit *sub = &out->sub;
	const struct stall *s = out->s;
	const unsigned char *raw;

	memset(sub, 0, sizeof(*sub));
	sub->status = join_submit(s->f, out->r, &raw);
	if (sub->status != SUBMIT_RECORDED)
		return;
	srec_get_submit(s->f, raw, &sub->r);
	sub->queued_ns = out->r->start_ns - sub->r.start_ns;	/* the join's: not negative */
	/* in sym_stall()'s epoch: making room evicts none of the stall's frames */
	if (sub->r.caller) {
		const void *kspace = ksym_view(s->f);

		sub->caller = &frame_get(s, kspace, space_no(kspace), K_KERNEL,
					 sub->r.caller)->e->sf;
		sub->unresolved += sub->caller->fr.reason != R_NONE;
	}
	sub->u = user_stack(s, &sub->r, true, false);
	if (sub->u)
		sub->unresolved += sub->u->unresolved;
	sym_unresolved += sub->unresolved;
}

void sym_stall(const struct stall *s, const struct srec *r, struct sstall *out)
{
	const void *kspace = NULL;
	bool ahead;

	C.epoch++;
	ahead = sym_prefetching;
	sym_prefetching = false;	/* until a user stack is not cached */
	memset(out, 0, sizeof(*out));
	out->s = s;
	out->r = r;
	if (r->kdepth || r->caller)
		kspace = ksym_view(s->f);
	if (r->kdepth) {
		C.kernel_space = kspace;
		out->k = stack_get(s, kspace, false, r->kdepth, r->kstack);
		out->unresolved += out->k->unresolved;
	}
	if (r->caller) {
		out->caller = &frame_get(s, kspace, space_no(kspace), K_KERNEL, r->caller)->e->sf;
		if (out->caller->fr.reason)
			out->unresolved++;
	}
	out->u = user_stack(s, r, false, ahead);
	if (out->u)
		out->unresolved += out->u->unresolved;
	sym_unresolved += out->unresolved;
}

void sym_stats(void)
{
	infox("symbol caches: %zu of %zu bytes; frames %zu (%lu hits, %lu misses, %lu evicted), "
	      "stacks %zu (%lu hits, %lu misses, %lu evicted)", C.bytes, C.budget, C.frames.n,
	      C.hits[0], C.misses[0], C.evicted[0], C.stacks.n, C.hits[1], C.misses[1],
	      C.evicted[1]);
}

static void ct_free(struct ctable *T)
{
	size_t i;

	for (i = 0; i < T->cap; i++)
		if (T->t[i].e)
			free_entry(T->t[i].e);
	huge_free(T->t, T->cap, sizeof(*T->t));
	free(T->q.q);
	memset(T, 0, sizeof(*T));
}

static void ft_free(struct ftable *T)
{
	size_t i;

	for (i = 0; i < T->cap; i++)
		if (T->t[i].e)
			free_entry(&T->t[i].e->c);
	huge_free(T->t, T->cap, sizeof(*T->t));
	free(T->q.q);
	memset(T, 0, sizeof(*T));
}

void sym_cleanup(void)
{
	sym_stats();
	ct_free(&C.stacks);
	ft_free(&C.frames);
	free(C.sp);
	slab_cleanup();
	sb_free(&C.tmp);
	if (C.seen)
		huge_free(C.seen, C.seen_mask + 1, sizeof(*C.seen));
	free(C.scratch[0]);
	free(C.scratch[1]);
	free(C.scratch[2]);
	intern_free();
	ksym_cleanup();
	usym_cleanup();
	memset(&C, 0, sizeof(C));
}

const char *reason_text(enum reason r)
{
	static const char *const t[R_COUNT] = {
		[R_NONE] = NULL,
#define REASON_TEXT(e, text, why) [e] = text,
		UNRESOLVED_REASONS(REASON_TEXT)
#undef REASON_TEXT
	};

	return (unsigned int)r < R_COUNT ? t[r] : "?";
}
