// SPDX-License-Identifier: MIT
/* Groups (summary, diff) and folded stacks in bounded memory (folded, SVG). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "intern.h"

#define ARENA_CHUNK (1u << 20)

/* ---------------------------------------------------------------- arenas */

static char *arena_put(char ***chunks, size_t *nchunks, size_t *used, const char *s, size_t n)
{
	char *p;

	if (!*nchunks || *used + n + 1 > ARENA_CHUNK) {
		size_t sz = n + 1 > ARENA_CHUNK ? n + 1 : ARENA_CHUNK;

		*chunks = xreallocarray(*chunks, *nchunks + 1, sizeof(**chunks));
		(*chunks)[(*nchunks)++] = xmalloc(sz);
		*used = 0;
		if (sz > ARENA_CHUNK) {	/* a key of its own: the next one starts a chunk */
			p = (*chunks)[*nchunks - 1];
			memcpy(p, s, n);
			p[n] = 0;
			*used = ARENA_CHUNK;
			return p;
		}
	}
	p = (*chunks)[*nchunks - 1] + *used;
	memcpy(p, s, n);
	p[n] = 0;
	*used += n + 1;
	return p;
}

static void arena_free(char **chunks, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(chunks[i]);
	free(chunks);
}

/* ---------------------------------------------------------------- groups */

/* ids: key is frame numbers (a text key never equals one: ids differ) */
static struct group *groups_get_x(struct groups *G, const char *key, size_t len, bool ids)
{
	uint64_t hash = hash_bytes(key, len, ids ? 0x1d5 : 0x6a09e667);
	uint32_t tag = (uint32_t)(hash >> 32);
	size_t i, h;

	if ((G->n + 1) * 2 > G->hcap) {
		size_t nc = G->hcap ? G->hcap * 2 : 64;

		huge_free(G->ht, G->hcap, sizeof(*G->ht));
		G->ht = xhuge_calloc(nc, sizeof(*G->ht));
		G->hcap = nc;
		for (i = 0; i < G->n; i++) {
			for (h = G->g[i].hash & (nc - 1); G->ht[h].i1; h = (h + 1) & (nc - 1))
				;
			G->ht[h].i1 = (uint32_t)i + 1;
			G->ht[h].tag = (uint32_t)(G->g[i].hash >> 32);
		}
	}
	for (h = hash & (G->hcap - 1); G->ht[h].i1; h = (h + 1) & (G->hcap - 1)) {
		struct group *g;

		if (G->ht[h].tag != tag)
			continue;
		g = &G->g[G->ht[h].i1 - 1];
		if (g->hash == hash && g->key_len == len && g->ids == ids &&
		    !memcmp(g->key, key, len))
			return g;
	}
	if (G->n == G->cap) {
		G->cap = G->cap ? G->cap * 2 : 64;
		G->g = xreallocarray(G->g, G->cap, sizeof(*G->g));
	}
	G->ht[h].i1 = (uint32_t)G->n + 1;
	G->ht[h].tag = tag;
	memset(&G->g[G->n], 0, sizeof(G->g[0]));
	G->g[G->n].key = arena_put(&G->arena, &G->narena, &G->aused, key, len);
	G->g[G->n].key_len = (uint32_t)len;
	G->g[G->n].hash = hash;
	G->g[G->n].ids = ids;
	return &G->g[G->n++];
}

struct group *groups_get(struct groups *G, const char *key, size_t len)
{
	return groups_get_x(G, key, len, false);
}

struct group *groups_find(const struct groups *G, const char *key, size_t len)
{
	uint64_t hash = hash_bytes(key, len, 0x6a09e667);
	size_t h;

	if (!G->hcap)
		return NULL;
	for (h = hash & (G->hcap - 1); G->ht[h].i1; h = (h + 1) & (G->hcap - 1)) {
		struct group *g = &G->g[G->ht[h].i1 - 1];

		if (g->hash == hash && g->key_len == len && !memcmp(g->key, key, len))
			return g;
	}
	return NULL;
}

void group_add(struct group *g, const struct srec *r)
{
	/* a group's first duration is in it (d1): on distinct stacks most
	 * groups have one stall, and a million allocations took their time */
	if (g->n && g->n >= g->cap) {	/* cap 0: d1 holds the one */
		g->cap = g->cap ? g->cap * 2 : 4;
		g->d = xreallocarray(g->d, g->cap, sizeof(*g->d));
		if (g->cap == 4)
			g->d[0] = g->d1;
	}
	if (!g->n || r->start_ns < g->rep_start) {
		g->rep_start = r->start_ns;
		g->rep_tgid = r->tgid;
		comm_clean(g->rep_comm, r->comm, false);
	}
	if (!g->cap)
		g->d1 = r->duration_ns;
	else
		g->d[g->n] = r->duration_ns;
	g->n++;
	g->total = add_sat(g->total, r->duration_ns);
	if (r->duration_ns > g->max)
		g->max = r->duration_ns;
	g->sorted = false;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Durations in ascending order: a least-significant-byte-first radix
 * sort, skipping the bytes every value shares (the high ones, mostly);
 * qsort() for a few.  A million durations sort in 14 ms instead of qsort()'s
 * 127 ms here.
 */
static void sort_u64(uint64_t *a, size_t n)
{
	static size_t cnt[8][256];
	uint64_t *src = a, *dst, *tmp, *t;
	unsigned int d, k;
	size_t i, sum;

	if (n < 256) {
		xqsort(a, n, sizeof(*a), cmp_u64);
		return;
	}
	memset(cnt, 0, sizeof(cnt));
	for (i = 0; i < n; i++)
		for (d = 0; d < 8; d++)
			cnt[d][(a[i] >> (8 * d)) & 255]++;
	tmp = dst = xreallocarray(NULL, n, sizeof(*tmp));
	for (d = 0; d < 8; d++) {
		if (cnt[d][(a[0] >> (8 * d)) & 255] == n)
			continue;	/* one value of this byte: order unchanged */
		for (k = 0, sum = 0; k < 256; k++) {
			size_t c = cnt[d][k];

			cnt[d][k] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[cnt[d][(src[i] >> (8 * d)) & 255]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
	free(tmp);
}

uint64_t group_pct(struct group *g, unsigned int p)
{
	size_t k;

	if (!g->n)
		return 0;
	if (!g->cap)
		return g->d1;
	if (!g->sorted)
		sort_u64(g->d, g->n);
	g->sorted = true;
	k = (g->n * p + 99) / 100;
	return g->d[k ? k - 1 : 0];
}

void groups_free(struct groups *G)
{
	size_t i;

	for (i = 0; i < G->n; i++)
		free(G->g[i].d);
	free(G->g);
	huge_free(G->ht, G->hcap, sizeof(*G->ht));
	free(G->ids);
	arena_free(G->arena, G->narena);
	memset(G, 0, sizeof(*G));
}

/* A key of frame numbers (g->ids) as the text stack_key() makes, into b */
static void ids_text(struct sbuf *b, const struct group *g)
{
	size_t i, n = g->key_len / sizeof(uint32_t), len;

	for (i = 0; i < n; i++) {
		uint32_t id;
		const char *k;

		memcpy(&id, g->key + i * sizeof(id), sizeof(id));
		k = intern_text(id, &len);

		if (i)
			sb_putc(b, ';');
		sb_put(b, k, len);
	}
}

static int key_cmp(const struct group *x, const struct group *y)
{
	static struct sbuf tx, ty;	/* ties of keys by number: their texts */
	const char *kx = x->key, *ky = y->key;
	size_t lx = x->key_len, ly = y->key_len, n;
	int c;

	if (x->ids) {
		sb_reset(&tx);
		ids_text(&tx, x);
		kx = tx.p;
		lx = tx.len;
	}
	if (y->ids) {
		sb_reset(&ty);
		ids_text(&ty, y);
		ky = ty.p;
		ly = ty.len;
	}
	n = lx < ly ? lx : ly;
	c = n ? memcmp(kx, ky, n) : 0;
	return c ? c : (lx > ly) - (lx < ly);
}

static int cmp_total_desc(const struct group *x, const struct group *y)
{
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return key_cmp(x, y);
}

static int qcmp_total(const void *a, const void *b)
{
	return cmp_total_desc(a, b);
}

void groups_sort_total(struct groups *G)
{
	xqsort(G->g, G->n, sizeof(*G->g), qcmp_total);
	huge_free(G->ht, G->hcap, sizeof(*G->ht));	/* indexes changed */
	G->ht = NULL;
	G->hcap = 0;
	free(G->ids);
	G->ids = NULL;
	G->nids = G->idcap = 0;
}

/* A heap of the n best: its root is the worst of them. */
static void top_sift(struct group **h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, w = i;

		if (l < n && cmp_total_desc(h[l], h[w]) > 0)
			w = l;
		if (r < n && cmp_total_desc(h[r], h[w]) > 0)
			w = r;
		if (w == i)
			return;
		struct group *t = h[i];

		h[i] = h[w];
		h[w] = t;
		i = w;
	}
}

static int qcmp_ptr_total(const void *a, const void *b)
{
	return cmp_total_desc(*(struct group *const *)a, *(struct group *const *)b);
}

size_t groups_top(const struct groups *G, size_t n, struct group **top)
{
	size_t i, k = 0;

	for (i = 0; i < G->n && n; i++) {
		struct group *g = &G->g[i];

		if (k < n) {
			size_t j = k++;

			top[j] = g;
			while (j) {	/* sift up */
				size_t p = (j - 1) / 2;

				if (cmp_total_desc(top[j], top[p]) <= 0)
					break;
				struct group *t = top[p];

				top[p] = top[j];
				top[j] = t;
				j = p;
			}
		} else if (cmp_total_desc(g, top[0]) < 0) {
			top[0] = g;
			top_sift(top, k, 0);
		}
	}
	xqsort(top, k, sizeof(*top), qcmp_ptr_total);
	for (i = 0; i < k; i++)	/* the keys shown: as text */
		if (top[i]->ids) {
			struct sbuf b = { 0 };
			struct groups *W = (struct groups *)G;

			ids_text(&b, top[i]);
			top[i]->key = arena_put(&W->arena, &W->narena, &W->aused, b.len ? b.p : "",
						b.len);
			top[i]->key_len = (uint32_t)b.len;
			top[i]->ids = false;
			sb_free(&b);
		}
	return k;
}

void site_key(struct sbuf *b, unsigned int site)
{
	const char *s = site_name(site);

	sb_reset(b);
	if (s) {
		sb_puts(b, s);
	} else {
		sb_puts(b, "site#");
		sb_dec(b, site, 0);
	}
}

static uint32_t *id_slot(struct groups *G, uint64_t id, bool *found)
{
	size_t h;

	if ((G->nids + 1) * 2 > G->idcap) {
		size_t nc = G->idcap ? G->idcap * 2 : 256, i;
		__typeof__(G->ids) t = xcalloc(nc, sizeof(*t));

		for (i = 0; i < G->idcap; i++)
			if (G->ids[i].id) {
				for (h = G->ids[i].id * 0x9e3779b97f4a7c15ull >> 20 & (nc - 1); t[h].id;
				     h = (h + 1) & (nc - 1))
					;
				t[h] = G->ids[i];
			}
		free(G->ids);
		G->ids = t;
		G->idcap = nc;
	}
	for (h = id * 0x9e3779b97f4a7c15ull >> 20 & (G->idcap - 1); G->ids[h].id;
	     h = (h + 1) & (G->idcap - 1))
		if (G->ids[h].id == id) {
			*found = true;
			return &G->ids[h].gi;
		}
	*found = false;
	G->ids[h].id = id;
	G->nids++;
	return &G->ids[h].gi;
}

/* A user stack's frames root first, ';' between them, appended to b */
static void frames_root_first(struct sbuf *b, const struct sstack *u, bool by_addr)
{
	int i;

	for (i = (int)u->depth - 1; i >= 0; i--) {
		const struct sframe *f = u->frames[i];

		if (i != (int)u->depth - 1)
			sb_putc(b, ';');
		if (by_addr)
			sb_put(b, f->key, f->key_len);
		else
			sb_put(b, f->fold, f->fold_len);
	}
}

/* The waiter's stack key (stack_group()), appended to b */
static void stack_key(struct sbuf *b, const struct sstall *ss, bool by_addr)
{
	if (ss->r->flags & I915_STALL_F_KTHREAD)
		sb_puts(b, "[kernel thread]");
	else if (!ss->u)
		sb_puts(b, "[no user stack]");
	else
		frames_root_first(b, ss->u, by_addr);
}

struct group *stack_group(struct groups *G, const struct sstall *ss, bool by_addr,
			  struct sbuf *b)
{
	const struct sstack *u = ss->u;
	uint32_t *gi = NULL;
	struct group *g;
	bool found;

	if (u && u->id && !(ss->r->flags & I915_STALL_F_KTHREAD)) {
		gi = id_slot(G, u->id, &found);
		if (found)
			return &G->g[*gi];
	}
	sb_reset(b);
	if (by_addr && u && !(ss->r->flags & I915_STALL_F_KTHREAD)) {
		/* the frames' numbers, root first: a tenth of the text's bytes */
		uint32_t id;
		int i;

		for (i = (int)u->depth - 1; i >= 0; i--) {
			id = u->key_ids[i];
			sb_put(b, (const char *)&id, sizeof(id));
		}
		g = groups_get_x(G, b->p ? b->p : "", b->len, true);
	} else {
		stack_key(b, ss, by_addr);
		g = groups_get(G, sb_str(b), b->len);
	}
	if (gi)
		*gi = (uint32_t)(g - G->g);
	return g;
}

/* The submitter's marker frame, appended to b */
static void submit_marker(struct sbuf *b, const struct ssubmit *sub)
{
	char comm[I915_STALL_COMM_LEN + 1];

	switch (sub->status) {
	case SUBMIT_RECORDED:
		comm_clean(comm, sub->r.comm, true);
		sb_puts(b, "[submitted by ");
		sb_puts(b, comm);
		sb_putc(b, ']');
		break;
	case SUBMIT_GONE:
		sb_puts(b, "[submit record gone]");
		break;
	case SUBMIT_NOT_RECORDED:
		sb_puts(b, "[submit not recorded]");
		break;
	default:
		sb_puts(b, "[submitter unknown]");
	}
}

/* The submitter's key (submit_group()), appended to b */
static void submit_key(struct sbuf *b, const struct sstall *ss, bool by_addr)
{
	const struct ssubmit *sub = &ss->sub;

	submit_marker(b, sub);
	if (sub->status != SUBMIT_RECORDED)
		return;
	sb_putc(b, ';');
	if (sub->u && sub->u->depth)
		frames_root_first(b, sub->u, by_addr);
	else
		sb_puts(b, "[no user stack]");
}

struct group *submit_group(struct groups *G, const struct sstall *ss, bool by_addr,
			   struct sbuf *b)
{
	sb_reset(b);
	submit_key(b, ss, by_addr);
	return groups_get(G, sb_str(b), b->len);
}

struct group *pair_group(struct groups *G, const struct sstall *ss, bool by_addr,
			 struct sbuf *b)
{
	sb_reset(b);
	stack_key(b, ss, by_addr);
	sb_putc(b, SUBMIT_KEY_SEP);
	submit_key(b, ss, by_addr);
	return groups_get(G, sb_str(b), b->len);
}

/* ---------------------------------------------------------------- folded */

void comm_clean(char *dst, const char *src, bool folded)
{
	size_t i;

	fixstr(dst, src, I915_STALL_COMM_LEN);
	for (i = 0; dst[i]; i++)
		if (folded && dst[i] == ';')
			dst[i] = ':';
		else if ((unsigned char)dst[i] < 0x20 || dst[i] == 0x7f)
			dst[i] = '?';
}

/* The number of the root of a stall's folded line ("comm-pid/tid" per
 * root); the last one is kept, stalls mostly come from few threads */
static uint32_t root_id(struct fstack *f, const struct srec *r, enum fold_root root)
{
	char comm[I915_STALL_COMM_LEN + 1];
	struct sbuf *b = &f->tmp;

	if (f->root_valid && f->root_mode == root && f->root_tgid == r->tgid &&
	    f->root_pid == r->pid && !memcmp(f->root_comm, r->comm, sizeof(f->root_comm)))
		return f->root;
	sb_reset(b);
	comm_clean(comm, r->comm, true);
	sb_puts(b, comm);
	if (root != ROOT_COMM) {
		sb_putc(b, '-');
		sb_dec(b, r->tgid, 0);
	}
	if (root == ROOT_TID) {
		sb_putc(b, '/');
		sb_dec(b, r->pid, 0);
	}
	f->root = intern(b->p, b->len);
	f->root_valid = true;
	f->root_mode = (uint8_t)root;
	f->root_tgid = r->tgid;
	f->root_pid = r->pid;
	memcpy(f->root_comm, r->comm, sizeof(f->root_comm));
	return f->root;
}

static void fstack_need(struct fstack *f, size_t n)
{
	if (f->n + n > f->cap) {
		f->cap = (f->n + n) * 2;
		f->ids = xreallocarray(f->ids, f->cap, sizeof(*f->ids));
	}
}

unsigned int fold_stack(struct fstack *f, const struct sstall *ss, enum fold_root root,
			bool submitter)
{
	unsigned int i;

	f->n = 0;
	fstack_need(f, 1 + (ss->u ? ss->u->depth : 0) + (ss->k ? ss->k->depth : 0) + 1 +
		       (ss->sub.u ? ss->sub.u->depth : 0));
	f->ids[f->n++] = root_id(f, ss->r, root);
	for (i = ss->u ? ss->u->depth : 0; i-- > 0;)
		f->ids[f->n++] = ss->u->fold_ids[i];
	for (i = ss->k ? ss->k->depth : 0; i-- > 0;)
		f->ids[f->n++] = ss->k->fold_ids[i];	/* with its "_[k]" */
	if (!submitter)
		return f->n;
	/* the waiter's chain root to leaf, the marker, the submitter's leaf
	 * to root (offwaketime's "--", then the waker's stack) */
	sb_reset(&f->tmp);
	submit_marker(&f->tmp, &ss->sub);
	f->ids[f->n++] = intern(f->tmp.p, f->tmp.len);
	if (ss->sub.status != SUBMIT_RECORDED || !ss->sub.u)
		return f->n;
	for (i = 0; i < ss->sub.u->depth; i++)
		f->ids[f->n++] = ss->sub.u->fold_ids[i];
	return f->n;
}

void fstack_free(struct fstack *f)
{
	free(f->ids);
	sb_free(&f->tmp);
	memset(f, 0, sizeof(*f));
}

/*
 * The lines are kept and spilled as their frames' numbers (intern.h), and
 * made text only when read, once each.  Their order is the text's: frames
 * are separated by FOLD_SEP, below every byte of a frame, so two lines
 * compare as their first differing frames' texts do (a line that is
 * another's first frames comes first); the numbers are compared by their
 * texts' ranks (intern_ranks(), made again at each sort: numbers are only
 * ever added).
 */
#define IDS_CHUNK (256u << 10)	/* numbers a chunk of the lines' storage */

static int spill_err;

void fagg_init(struct fagg *A, size_t budget)
{
	memset(A, 0, sizeof(*A));
	A->budget = budget;
	A->sep = FOLD_SEP;
	spill_err = 0;
}

/* Room for n numbers in the chunks (kept across spills: reused) */
static uint32_t *ids_put(struct fagg *A, const uint32_t *ids, uint32_t n)
{
	uint32_t *p;

	if (n > IDS_CHUNK) {	/* a line of its own */
		p = xreallocarray(NULL, n, sizeof(*p));
		A->big = xreallocarray(A->big, A->nbig + 1, sizeof(*A->big));
		A->big[A->nbig++] = p;
	} else {
		if (A->chunk >= A->nchunks || A->cused + n > IDS_CHUNK) {
			if (A->chunk < A->nchunks && A->cused)
				A->chunk++;
			if (A->chunk >= A->nchunks) {
				A->chunks = xreallocarray(A->chunks, A->nchunks + 1,
							  sizeof(*A->chunks));
				A->chunks[A->nchunks++] = xreallocarray(NULL, IDS_CHUNK,
									sizeof(uint32_t));
			}
			A->cused = 0;
		}
		p = A->chunks[A->chunk] + A->cused;
		A->cused += n;
	}
	memcpy(p, ids, n * sizeof(*p));
	return p;
}

static void fagg_reset_mem(struct fagg *A)
{
	size_t i;

	for (i = 0; i < A->nbig; i++)
		free(A->big[i]);
	A->nbig = 0;
	A->chunk = A->cused = 0;
	if (A->ht)
		memset(A->ht, 0, A->hcap * sizeof(*A->ht));
	A->n = 0;
	A->bytes = A->hcap * sizeof(*A->ht);
}

/* the ranks of every number so far, for a sort or a merge */
static void fagg_ranks(struct fagg *A)
{
	uint32_t n = intern_count();

	if (n > A->nrank) {
		free(A->rank);
		A->rank = xreallocarray(NULL, n, sizeof(*A->rank));
	}
	A->nrank = n;
	intern_ranks(A->rank);
}

static int ids_cmp(const uint32_t *rank, const uint32_t *x, uint32_t nx, const uint32_t *y,
		   uint32_t ny)
{
	uint32_t i, n = nx < ny ? nx : ny;

	for (i = 0; i < n; i++)
		if (x[i] != y[i]) {
			uint32_t a = rank[x[i]], b = rank[y[i]];

			return (a > b) - (a < b);
		}
	return (nx > ny) - (nx < ny);
}

/*
 * A line's first frames' ranks, compared first: three of 21 bits while
 * the numbers are fewer than 2^21 - 1, else two of 32.  On distinct stacks
 * the first frame (the root, "comm-pid") is the same in every line and
 * the second one of a few thousand: with two, most comparisons went on
 * to the lines' numbers, a cache miss each.
 */
static unsigned int sort_k;	/* frames in the prefix */
static const uint32_t *sort_rank;

static uint64_t line_prefix(const uint32_t *rank, const uint32_t *ids, uint32_t n)
{
	unsigned int bits = sort_k == 3 ? 21 : 32, i;
	uint64_t p = 0;

	/* rank + 1: a line that ends there sorts first */
	for (i = 0; i < sort_k; i++)
		p = p << bits | (i < n ? rank[ids[i]] + 1ull : 0);
	return p;
}

static int fline_cmp(const void *a, const void *b)
{
	const struct fline *x = a, *y = b;

	if (x->pfx != y->pfx)
		return x->pfx < y->pfx ? -1 : 1;
	if (x->n <= sort_k || y->n <= sort_k)	/* the prefix was all of one */
		return (x->n > y->n) - (x->n < y->n);
	return ids_cmp(sort_rank, x->ids + sort_k, x->n - sort_k, y->ids + sort_k,
		       y->n - sort_k);
}

/*
 * Sort the lines by their prefix (a radix sort of (prefix, line) pairs,
 * 16 bits a pass, the passes whose digit is the same in every line
 * skipped: the root's), then each run of equal prefixes by fline_cmp().
 * On distinct stacks qsort()'s comparisons were a tenth of folded's time,
 * through a function pointer and mostly decided by the prefix.
 */
struct pfx_pair { uint64_t pfx; size_t i; };

static void fagg_sort(struct fagg *A)
{
	struct pfx_pair *a, *b, *t;
	struct fline *e;
	size_t i, j, n = A->n, *cnt;
	unsigned int shift;

	fagg_ranks(A);
	sort_k = A->nrank < (1u << 21) - 1 ? 3 : 2;
	sort_rank = A->rank;
	for (i = 0; i < n; i++)
		A->e[i].pfx = line_prefix(A->rank, A->e[i].ids, A->e[i].n);
	if (n < 2)
		return;
	a = xreallocarray(NULL, n, sizeof(*a));
	b = xreallocarray(NULL, n, sizeof(*b));
	cnt = xcalloc(1u << 16, sizeof(*cnt));
	for (i = 0; i < n; i++)
		a[i] = (struct pfx_pair){ A->e[i].pfx, i };
	for (shift = 0; shift < 64; shift += 16) {
		size_t sum = 0, c;

		memset(cnt, 0, (1u << 16) * sizeof(*cnt));
		for (i = 0; i < n; i++)
			cnt[(a[i].pfx >> shift) & 0xffff]++;
		if (cnt[(a[0].pfx >> shift) & 0xffff] == n)
			continue;	/* one digit: the order stays */
		for (j = 0; j < (1u << 16); j++) {
			c = cnt[j];
			cnt[j] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			b[cnt[(a[i].pfx >> shift) & 0xffff]++] = a[i];
		t = a;
		a = b;
		b = t;
	}
	free(cnt);
	free(b);
	e = xreallocarray(NULL, A->cap, sizeof(*e));
	for (i = 0; i < n; i++)
		e[i] = A->e[a[i].i];
	free(a);
	free(A->e);
	A->e = e;
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && e[j].pfx == e[i].pfx; j++)
			;
		if (j - i > 1)
			xqsort(e + i, j - i, sizeof(*e), fline_cmp);
	}
}

#define RUN_BUF (1u << 20)	/* a run's writes and reads, at a time */

/* Sort what is in memory and write it out as a run: per line its number
 * of frames, its weight, its frames' numbers. */
static int spill(struct fagg *A)
{
	FILE *f = tmpfile();
	size_t i;

	if (!f) {
		errx_("temporary file for folded stacks: %s", strerror(errno));
		return -1;
	}
	fagg_sort(A);
	for (i = 0; i < A->n; i++) {	/* RUN_BUF at a time, not three calls a line */
		sb_put(&A->wbuf, (const char *)&A->e[i].n, sizeof(A->e[i].n));
		sb_put(&A->wbuf, (const char *)&A->e[i].weight, sizeof(A->e[i].weight));
		sb_put(&A->wbuf, (const char *)A->e[i].ids, A->e[i].n * sizeof(*A->e[i].ids));
		if (A->wbuf.len >= RUN_BUF) {
			fwrite(A->wbuf.p, 1, A->wbuf.len, f);
			sb_reset(&A->wbuf);
		}
	}
	fwrite(A->wbuf.p, 1, A->wbuf.len, f);
	sb_reset(&A->wbuf);
	if (fflush(f) || ferror(f) || fseek(f, 0, SEEK_SET)) {
		errx_("temporary file for folded stacks: %s", strerror(errno ? errno : EIO));
		fclose(f);
		return -1;
	}
	A->runs = xreallocarray(A->runs, A->nruns + 1, sizeof(*A->runs));
	A->runs[A->nruns++] = f;
	fagg_reset_mem(A);
	return 0;
}

void fagg_add_ids(struct fagg *A, const uint32_t *ids, uint32_t n, unsigned int depth,
		  uint64_t w)
{
	uint64_t hash = hash_bytes(ids, n * sizeof(*ids), 0xbb67ae85);
	uint32_t tag = (uint32_t)(hash >> 32);
	size_t h, i;

	A->total = add_sat(A->total, w);
	if (depth > A->maxdepth)
		A->maxdepth = depth;
	if ((A->n + 1) * 2 > A->hcap) {
		size_t nc = A->hcap ? A->hcap * 2 : 1024;

		/* on huge pages: on distinct stacks each probe is a miss, and
		 * calloc()'s fresh pages cost a fault (read: the zero page)
		 * and a second one (written) 4 KiB at a time */
		huge_free(A->ht, A->hcap, sizeof(*A->ht));
		A->bytes += (nc - A->hcap) * sizeof(*A->ht);
		A->ht = xhuge_calloc(nc, sizeof(*A->ht));
		A->hcap = nc;
		for (i = 0; i < A->n; i++) {
			for (h = A->e[i].hash & (nc - 1); A->ht[h].i1; h = (h + 1) & (nc - 1))
				;
			A->ht[h].i1 = (uint32_t)i + 1;
			A->ht[h].tag = (uint32_t)(A->e[i].hash >> 32);
		}
	}
	for (h = hash & (A->hcap - 1); A->ht[h].i1; h = (h + 1) & (A->hcap - 1)) {
		struct fline *e;

		if (A->ht[h].tag != tag)
			continue;
		e = &A->e[A->ht[h].i1 - 1];
		if (e->hash == hash && e->n == n && !memcmp(e->ids, ids, n * sizeof(*ids))) {
			e->weight = add_sat(e->weight, w);
			return;
		}
	}
	if (A->n == A->cap) {
		A->cap = A->cap ? A->cap * 2 : 1024;
		A->e = xreallocarray(A->e, A->cap, sizeof(*A->e));
	}
	A->ht[h].i1 = (uint32_t)A->n + 1;
	A->ht[h].tag = tag;
	A->e[A->n].ids = ids_put(A, ids, n);
	A->e[A->n].n = n;
	A->e[A->n].hash = hash;
	A->e[A->n].weight = w;
	A->n++;
	A->bytes += n * sizeof(*ids) + sizeof(*A->e);
	if (A->bytes > A->budget && spill(A))
		spill_err = -1;
}

void fagg_add(struct fagg *A, const char *key, size_t len, unsigned int depth, uint64_t w)
{
	size_t pos = 0;

	A->split.n = 0;
	for (;;) {
		const char *e = memchr(key + pos, FOLD_SEP, len - pos);
		size_t end = e ? (size_t)(e - key) : len;

		fstack_need(&A->split, 1);
		A->split.ids[A->split.n++] = intern(key + pos, end - pos);
		if (!e)
			break;
		pos = end + 1;
	}
	fagg_add_ids(A, A->split.ids, A->split.n, depth, w);
}

/* At least need bytes of run r in its buffer, unless it ends first */
static bool run_fill(struct fagg *A, size_t r, size_t need)
{
	struct frun *f = &A->rd[r];

	if (f->len - f->pos >= need)
		return true;
	if (f->pos < f->len)
		memmove(f->buf, f->buf + f->pos, f->len - f->pos);
	f->len -= f->pos;
	f->pos = 0;
	if (f->bcap < need) {	/* need > 0 here: a first read allocates */
		f->bcap = need > RUN_BUF ? need : RUN_BUF;
		f->buf = xrealloc(f->buf, f->bcap);
	}
	f->len += fread(f->buf + f->len, 1, f->bcap - f->len, A->runs[r]);
	return f->len >= need;
}

/* run reader: the next line of run r into rd[r]; false at its end */
static bool run_read(struct fagg *A, size_t r)
{
	struct frun *f = &A->rd[r];

	if (!run_fill(A, r, sizeof(f->n) + sizeof(f->w)))
		return false;
	memcpy(&f->n, f->buf + f->pos, sizeof(f->n));
	memcpy(&f->w, f->buf + f->pos + sizeof(f->n), sizeof(f->w));
	f->pos += sizeof(f->n) + sizeof(f->w);
	if (f->n > f->cap) {
		f->cap = f->n;
		f->ids = xreallocarray(f->ids, f->cap, sizeof(*f->ids));
	}
	if (!run_fill(A, r, f->n * sizeof(*f->ids)))
		return false;
	memcpy(f->ids, f->buf + f->pos, f->n * sizeof(*f->ids));
	f->pos += f->n * sizeof(*f->ids);
	return true;
}

static int run_cmp(struct fagg *A, size_t x, size_t y)
{
	const struct frun *a = &A->rd[x], *b = &A->rd[y];

	return ids_cmp(A->rank, a->ids, a->n, b->ids, b->n);
}

static void heap_down(struct fagg *A, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < A->nheap && run_cmp(A, A->heap[l], A->heap[m]) < 0)
			m = l;
		if (r < A->nheap && run_cmp(A, A->heap[r], A->heap[m]) < 0)
			m = r;
		if (m == i)
			return;
		size_t t = A->heap[i];

		A->heap[i] = A->heap[m];
		A->heap[m] = t;
		i = m;
	}
}

int fagg_finish(struct fagg *A)
{
	size_t i;

	if (spill_err)
		return -1;
	if (!A->nruns) {
		fagg_sort(A);
		A->pos = 0;
		return 0;
	}
	if (A->n && spill(A))
		return -1;
	fagg_ranks(A);
	A->rd = xcalloc(A->nruns, sizeof(*A->rd));
	A->heap = xcalloc(A->nruns, sizeof(*A->heap));
	for (i = 0; i < A->nruns; i++)
		if (run_read(A, i))
			A->heap[A->nheap++] = i;
	for (i = A->nheap / 2; i-- > 0;)
		heap_down(A, i);
	return 0;
}

/* The text of a line of n frames' numbers into A->cur */
static size_t line_text(struct fagg *A, const uint32_t *ids, uint32_t n)
{
	const char *tv[64];
	uint32_t lv[64];
	size_t len = 0, l, i;

	for (i = 0; i < n; i++) {
		const char *t;

		if (i % 64 == 0)
			intern_texts(ids + i, n - i < 64 ? n - i : 64, tv, lv);
		t = tv[i % 64];
		l = lv[i % 64];
		if (A->curcap < len + l + 2) {
			A->curcap = (len + l + 2) * 2;
			A->cur = xrealloc(A->cur, A->curcap);
		}
		if (i)
			A->cur[len++] = A->sep;
		memcpy(A->cur + len, t, l);
		len += l;
	}
	if (!A->cur) {
		A->curcap = 1;
		A->cur = xrealloc(A->cur, A->curcap);
	}
	A->cur[len] = 0;
	return len;
}

int fagg_next_ids(struct fagg *A, const uint32_t **ids, uint32_t *n, uint64_t *w)
{
	if (!A->nruns) {
		if (A->pos >= A->n)
			return 0;
		*ids = A->e[A->pos].ids;
		*n = A->e[A->pos].n;
		*w = A->e[A->pos].weight;
		A->pos++;
		return 1;
	}
	if (!A->nheap)
		return 0;
	{
		struct frun *f = &A->rd[A->heap[0]];
		uint64_t sum = 0;
		size_t r;

		fstack_need(&A->split, f->n);
		memcpy(A->split.ids, f->ids, f->n * sizeof(*f->ids));
		A->split.n = f->n;
		/* every run's copy of this line: they are at the heap's top in turn */
		while (A->nheap) {
			f = &A->rd[A->heap[0]];
			if (f->n != A->split.n || memcmp(f->ids, A->split.ids, f->n * sizeof(*f->ids)))
				break;
			sum = add_sat(sum, f->w);
			if (!run_read(A, A->heap[0]))
				A->heap[0] = A->heap[--A->nheap];
			heap_down(A, 0);
		}
		for (r = 0; r < A->nruns; r++)
			if (ferror(A->runs[r])) {
				errx_("temporary file for folded stacks: read error");
				return -1;
			}
		*ids = A->split.ids;
		*n = (uint32_t)A->split.n;
		*w = sum;
		return 1;
	}
}

int fagg_next(struct fagg *A, const char **key, size_t *len, uint64_t *w)
{
	const uint32_t *ids;
	uint32_t n;
	int rc = fagg_next_ids(A, &ids, &n, w);

	if (rc > 0) {
		*len = line_text(A, ids, n);
		*key = A->cur;
	}
	return rc;
}

void fagg_free(struct fagg *A)
{
	size_t i;

	fagg_reset_mem(A);
	for (i = 0; i < A->nchunks; i++)
		free(A->chunks[i]);
	free(A->chunks);
	free(A->big);
	huge_free(A->ht, A->hcap, sizeof(*A->ht));
	free(A->e);
	for (i = 0; i < A->nruns; i++) {
		fclose(A->runs[i]);
		if (A->rd) {
			free(A->rd[i].ids);
			free(A->rd[i].buf);
		}
	}
	free(A->runs);
	free(A->rd);
	free(A->heap);
	free(A->cur);
	free(A->rank);
	fstack_free(&A->split);
	sb_free(&A->wbuf);
	memset(A, 0, sizeof(*A));
}

/* ---------------------------------------------------------------- merge */

void fmerge_init(struct fmerge *M, struct fagg *a, struct fagg *b)
{
	memset(M, 0, sizeof(*M));
	M->a = a;
	M->b = b;
	M->adv_a = M->adv_b = true;
}

static int fmerge_read(struct fagg *A, struct sbuf *k, uint64_t *w)
{
	const char *key;
	size_t len;
	int rc = fagg_next(A, &key, &len, w);

	if (rc > 0) {
		sb_reset(k);
		sb_put(k, key, len);
	}
	return rc;
}

int fmerge_next(struct fmerge *M, const char **key, size_t *len, uint64_t *wa, uint64_t *wb)
{
	size_t n;
	int c;

	if (M->adv_a && (M->ra = fmerge_read(M->a, &M->ka, &M->wa)) < 0)
		return -1;
	if (M->adv_b && (M->rb = fmerge_read(M->b, &M->kb, &M->wb)) < 0)
		return -1;
	M->adv_a = M->adv_b = false;
	if (!M->ra && !M->rb)
		return 0;
	if (!M->ra) {
		c = 1;
	} else if (!M->rb) {
		c = -1;
	} else {
		n = M->ka.len < M->kb.len ? M->ka.len : M->kb.len;
		c = memcmp(M->ka.p, M->kb.p, n);
		if (!c)
			c = (M->ka.len > M->kb.len) - (M->ka.len < M->kb.len);
	}
	*wa = c <= 0 ? M->wa : 0;
	*wb = c >= 0 ? M->wb : 0;
	*key = c <= 0 ? M->ka.p : M->kb.p;
	*len = c <= 0 ? M->ka.len : M->kb.len;
	M->adv_a = c <= 0;
	M->adv_b = c >= 0;
	return 1;
}

void fmerge_free(struct fmerge *M)
{
	sb_free(&M->ka);
	sb_free(&M->kb);
}
