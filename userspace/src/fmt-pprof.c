// SPDX-License-Identifier: MIT
/*
 * -F pprof: the stalls as a profile.proto profile (src/profile.proto),
 * gzip-compressed, for "go tool pprof" and everything that reads pprof's
 * format.
 *
 *  - Values: "stalls" (count) and "wait" (nanoseconds), the default.
 *  - Samples: one per distinct stack and labels, the stalls summed.  The
 *    stack is the kernel frames, innermost first, then the user frames,
 *    as in perf.  Labels: "site", "engine" ("rcs0", "unknown"), "comm"
 *    (strings) and "pid", "tid" (numbers).  Format 1.4, a stall with a
 *    fence: "submit", the join's status as the JSON report names it
 *    ("recorded", "gone", "not_recorded"), and when recorded the
 *    submitter: "submitter" ("COMM[PID]", the submitting process) and
 *    "submitter_pid", "submitter_tid" (numbers).  No fence, or a file
 *    before 1.4: none of these (summary's "[submitter unknown]").
 *  - Functions: the reader's own names, as summary shows them (a frame only
 *    CFI found is not marked); an unresolved frame gets the placeholder
 *    summary shows ("[unknown 0xADDR]", "[libfoo.so]",
 *    "[libfoo.so: build-id mismatch]"); --lines adds the file and line.
 *  - Mappings: each file mapping a user frame lies in, with its path (the
 *    file name alone where the record has no more), its GNU build-id and
 *    its file offset: the record's own maps (format 1.2), the archived or
 *    the live ones; "[kernel.kallsyms]" and "[MODULE]" for kernel frames,
 *    over the addresses seen.  A mapping none of whose frames the reader
 *    named says it has no functions, so that pprof symbolizes it itself
 *    when it finds the file (PPROF_BINARY_PATH, by build-id).
 *  - Locations: the address looked up: the PC of the first user frame,
 *    every other address (a return address) minus one, so that the call
 *    is found and not what follows it.
 *
 * The samples and tables are gathered in memory (one entry per distinct
 * stack, label set, location, function, mapping, string); at the end they
 * are encoded by protobuf-c, in chunks: a serialized message followed by
 * another is the merge of the two, repeated fields appended, so each
 * chunk is a Profile holding some of the entries and the whole is never
 * held encoded.  The encoding is gzip-compressed by zlib as it is made.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <zlib.h>

#include "export.h"
#include "join.h"
#include "profile.pb-c.h"

#define CHUNK 4096	/* entries per encoded chunk */

/* ---------------------------------------------------------------- tables */

/* An open-addressing table of uint32 indexes + 1, by a 64-bit hash. */
struct index {
	uint32_t *slot;
	size_t cap, n;
};

/* The slot of the entry with hash h that eq() accepts, or the empty slot
 * where it goes (*found false); the table grows first. */
static uint32_t *index_find(struct index *I, uint64_t h, bool (*eq)(void *ctx, uint32_t i),
			    uint64_t (*rehash)(void *ctx, uint32_t i), void *ctx, bool *found)
{
	size_t k, j;

	if ((I->n + 1) * 2 > I->cap) {
		size_t nc = I->cap ? I->cap * 2 : 1024;
		uint32_t *t = xcalloc(nc, sizeof(*t));

		for (k = 0; k < I->cap; k++)
			if (I->slot[k]) {
				for (j = rehash(ctx, I->slot[k] - 1) & (nc - 1); t[j]; j = (j + 1) & (nc - 1))
					;
				t[j] = I->slot[k];
			}
		free(I->slot);
		I->slot = t;
		I->cap = nc;
	}
	for (k = h & (I->cap - 1); I->slot[k]; k = (k + 1) & (I->cap - 1))
		if (eq(ctx, I->slot[k] - 1)) {
			*found = true;
			return &I->slot[k];
		}
	*found = false;
	return &I->slot[k];
}

#define GROW(arr, n, cap)						\
	do {								\
		if ((n) == (cap)) {					\
			(cap) = (cap) ? (cap) * 2 : 256;		\
			(arr) = xreallocarray((arr), (cap), sizeof(*(arr))); \
		}							\
	} while (0)

struct fn { int64_t name, file; uint64_t hash; };
struct map {
	uint64_t start, limit, off;
	int64_t file, build_id;
	bool has_fn, has_file, has_line, kernel;
	uint64_t hash;
};
struct loc { uint64_t map, addr, fn; int64_t line; uint64_t hash; };
struct stk { uint32_t off, n; uint64_t hash; };	/* location ids in ids[] */
struct smp {
	uint32_t k, u;		/* stacks + 1, 0 none */
	int64_t site, engine, comm;
	uint32_t pid, tid;
	int64_t submit, submitter;	/* strings: the join's status (0: none), "COMM[PID]" */
	uint32_t sub_pid, sub_tid;	/* with submitter */
	int64_t count, wait;
	uint64_t hash;
};
/* what a pointer (a pmap, a cached stack's id) was found to be */
struct memo { uint64_t key, val; };

struct pw {
	struct out *out;
	/* strings: the string table, entry 0 "" */
	char **str;
	size_t nstr, capstr;
	uint64_t *strhash;
	struct index stri;
	struct fn *fns;
	size_t nfns, capfns;
	struct index fni;
	struct map *maps;
	size_t nmaps, capmaps;
	struct index mapi;
	struct loc *locs;
	size_t nlocs, caplocs;
	struct index loci;
	uint32_t *ids;		/* location ids of the stacks */
	size_t nids, capids;
	struct stk *stks;
	size_t nstks, capstks;
	struct index stki;
	struct smp *smps;
	size_t nsmps, capsmps;
	struct index smpi;
	struct memo *memo;	/* pmap -> mapping, stack id -> stack */
	size_t memocap, nmemo;
	/* what a lookup compares with */
	const char *k_s;
	size_t k_len;
	const void *k_p;
	/* the profile's span */
	uint64_t count, wait;
	uint64_t first_ns, last_ns;
	__int128 first_real;
	int64_t s_site, s_engine, s_comm, s_pid, s_tid;
	int64_t s_submit, s_submitter, s_sub_pid, s_sub_tid;
	struct sbuf tmp;
	uint32_t *cur;		/* the stack being made */
	size_t ncur, capcur;
};

static uint64_t str_rehash(void *ctx, uint32_t i)
{
	return ((struct pw *)ctx)->strhash[i];
}

static bool str_eq(void *ctx, uint32_t i)
{
	struct pw *w = ctx;

	return !strncmp(w->str[i], w->k_s, w->k_len) && !w->str[i][w->k_len];
}

static int64_t str_id(struct pw *w, const char *s, size_t len)
{
	uint64_t h = hash_bytes(s, len, 0x5715);
	bool found;
	uint32_t *slot;

	w->k_s = s;
	w->k_len = len;
	slot = index_find(&w->stri, h, str_eq, str_rehash, w, &found);
	if (found)
		return *slot - 1;
	if (w->nstr == w->capstr) {
		w->capstr = w->capstr ? w->capstr * 2 : 256;
		w->str = xreallocarray(w->str, w->capstr, sizeof(*w->str));
		w->strhash = xreallocarray(w->strhash, w->capstr, sizeof(*w->strhash));
	}
	w->str[w->nstr] = xstrndup(s, len);
	w->strhash[w->nstr] = h;
	*slot = (uint32_t)++w->nstr;
	w->stri.n++;
	return (int64_t)w->nstr - 1;
}

static int64_t str_of(struct pw *w, const char *s)
{
	return str_id(w, s, strlen(s));
}

/* memo: pointer or id -> value + 1 */
static struct memo *memo_slot(struct pw *w, uint64_t key)
{
	size_t k, j;

	if ((w->nmemo + 1) * 2 > w->memocap) {
		size_t nc = w->memocap ? w->memocap * 2 : 1024;
		struct memo *t = xcalloc(nc, sizeof(*t));

		for (k = 0; k < w->memocap; k++)
			if (w->memo[k].val) {
				for (j = hash_mix(7, w->memo[k].key) & (nc - 1); t[j].val; j = (j + 1) & (nc - 1))
					;
				t[j] = w->memo[k];
			}
		free(w->memo);
		w->memo = t;
		w->memocap = nc;
	}
	for (k = hash_mix(7, key) & (w->memocap - 1); w->memo[k].val; k = (k + 1) & (w->memocap - 1))
		if (w->memo[k].key == key)
			return &w->memo[k];
	w->memo[k].key = key;
	return &w->memo[k];
}

/* ---------------------------------------------------------------- functions */

static struct fn fn_key;

static uint64_t fn_rehash(void *ctx, uint32_t i)
{
	return ((struct pw *)ctx)->fns[i].hash;
}

static bool fn_eq(void *ctx, uint32_t i)
{
	const struct fn *f = &((struct pw *)ctx)->fns[i];

	return f->name == fn_key.name && f->file == fn_key.file;
}

static uint64_t fn_id(struct pw *w, int64_t name, int64_t file)
{
	bool found;
	uint32_t *slot;

	fn_key.name = name;
	fn_key.file = file;
	fn_key.hash = hash_mix(hash_mix(3, (uint64_t)name), (uint64_t)file);
	slot = index_find(&w->fni, fn_key.hash, fn_eq, fn_rehash, w, &found);
	if (found)
		return *slot;
	GROW(w->fns, w->nfns, w->capfns);
	w->fns[w->nfns] = fn_key;
	*slot = (uint32_t)++w->nfns;
	w->fni.n++;
	return w->nfns;
}

/* ---------------------------------------------------------------- mappings */

static struct map map_key;

static uint64_t map_rehash(void *ctx, uint32_t i)
{
	return ((struct pw *)ctx)->maps[i].hash;
}

static bool map_eq(void *ctx, uint32_t i)
{
	const struct map *m = &((struct pw *)ctx)->maps[i];

	if (m->kernel || map_key.kernel)
		return m->kernel == map_key.kernel && m->file == map_key.file;
	return m->start == map_key.start && m->limit == map_key.limit && m->off == map_key.off &&
	       m->file == map_key.file && m->build_id == map_key.build_id;
}

static uint64_t map_id(struct pw *w)
{
	bool found;
	uint32_t *slot;

	map_key.hash = map_key.kernel ? hash_mix(11, (uint64_t)map_key.file) :
		hash_mix(hash_mix(hash_mix(hash_mix(13, map_key.start), map_key.limit), map_key.off),
			 (uint64_t)map_key.file ^ (uint64_t)map_key.build_id << 32);
	slot = index_find(&w->mapi, map_key.hash, map_eq, map_rehash, w, &found);
	if (found)
		return *slot;
	GROW(w->maps, w->nmaps, w->capmaps);
	w->maps[w->nmaps] = map_key;
	*slot = (uint32_t)++w->nmaps;
	w->mapi.n++;
	return w->nmaps;
}

/*
 * The build-id of a live mapping (live maps do not carry one): the very
 * file mapped (/proc/PID/map_files), else the path while it still is the
 * mapped inode, as record does.  0: unknown.
 */
static int live_build_id(uint32_t pid, const struct pmap *m, uint8_t *id)
{
	char *mf = xasprintf("/proc/%u/map_files/%" PRIx64 "-%" PRIx64, pid, m->start, m->end);
	struct stat st;
	int n = elf_build_id_file(mf, id, BUILD_ID_MAX);

	free(mf);
	if (n >= 0)
		return n;
	if (m->deleted || stat(m->path, &st) || st.st_ino != m->inode ||
	    major(st.st_dev) != (m->dev >> 32) || minor(st.st_dev) != (m->dev & 0xffffffff))
		return 0;
	n = elf_build_id_file(m->path, id, BUILD_ID_MAX);
	return n > 0 ? n : 0;
}

/* The mapping of user address a (looked up) in the stall's address space. */
static uint64_t user_map(struct pw *w, const struct aspace *as, uint64_t a)
{
	const struct pmap *m = maps_find(&as->pm, a);
	struct memo *mm;
	uint8_t id[BUILD_ID_MAX];
	int idlen;

	if (!m || !m->path)
		return 0;
	mm = memo_slot(w, (uintptr_t)m);
	if (mm->val)
		return mm->val - 1;
	memset(&map_key, 0, sizeof(map_key));
	map_key.start = m->start;
	map_key.limit = m->end;
	map_key.off = m->pgoff;
	map_key.file = str_of(w, m->path);
	idlen = m->build_id_len;
	if (idlen)
		memcpy(id, m->build_id, (size_t)idlen);
	else if (as->live_pid && m->path[0] == '/')
		idlen = live_build_id(as->live_pid, m, id);
	if (idlen > 0) {
		char *hex = build_id_hex(id, (size_t)idlen);

		map_key.build_id = str_of(w, hex);
		free(hex);
	}
	mm->val = map_id(w) + 1;
	w->nmemo++;
	return mm->val - 1;
}

static uint64_t kernel_map(struct pw *w, const char *module, uint64_t a)
{
	struct map *m;
	uint64_t id;

	memset(&map_key, 0, sizeof(map_key));
	map_key.kernel = true;
	if (module) {
		sb_reset(&w->tmp);
		sb_printf(&w->tmp, "[%s]", module);
		map_key.file = str_of(w, sb_str(&w->tmp));
	} else {
		map_key.file = str_of(w, "[kernel.kallsyms]");
	}
	map_key.start = a;
	map_key.limit = a + 1;
	id = map_id(w);
	m = &w->maps[id - 1];
	if (a < m->start)
		m->start = a;
	if (a >= m->limit)
		m->limit = a + 1;
	return id;
}

/* ---------------------------------------------------------------- locations */

static struct loc loc_key;

static uint64_t loc_rehash(void *ctx, uint32_t i)
{
	return ((struct pw *)ctx)->locs[i].hash;
}

static bool loc_eq(void *ctx, uint32_t i)
{
	const struct loc *l = &((struct pw *)ctx)->locs[i];

	return l->map == loc_key.map && l->addr == loc_key.addr && l->fn == loc_key.fn &&
	       l->line == loc_key.line;
}

/* The location of frame i of a stack (user or kernel). */
static uint32_t frame_loc(struct pw *w, const struct sframe *sf, bool user, unsigned int i,
			  const struct aspace *as)
{
	const struct frame *fr = &sf->fr;
	uint64_t a = fr->addr - (fr->addr && (!user || i) ? 1 : 0);
	size_t len = sf->key_len - (sf->cfi && sf->key_len >= 4 ? 4 : 0);	/* "_[c]" */
	int64_t name = str_id(w, sf->key, len), file = fr->src ? str_of(w, fr->src) : 0;
	struct map *m;
	bool found;
	uint32_t *slot;

	loc_key.map = user ? (as ? user_map(w, as, a) : 0) : kernel_map(w, fr->module, a);
	loc_key.addr = a;
	loc_key.fn = fn_id(w, name, file);
	loc_key.line = fr->src ? fr->line : 0;
	loc_key.hash = hash_mix(hash_mix(hash_mix(hash_mix(17, loc_key.map), a), loc_key.fn),
				(uint64_t)loc_key.line);
	if (loc_key.map) {
		m = &w->maps[loc_key.map - 1];
		m->has_fn |= fr->name != NULL;
		m->has_file |= fr->src != NULL;
		m->has_line |= fr->src && fr->line > 0;
	}
	slot = index_find(&w->loci, loc_key.hash, loc_eq, loc_rehash, w, &found);
	if (found)
		return *slot;
	GROW(w->locs, w->nlocs, w->caplocs);
	w->locs[w->nlocs] = loc_key;
	*slot = (uint32_t)++w->nlocs;
	w->loci.n++;
	return (uint32_t)w->nlocs;
}

/* ---------------------------------------------------------------- stacks */

static uint64_t stk_rehash(void *ctx, uint32_t i)
{
	return ((struct pw *)ctx)->stks[i].hash;
}

static bool stk_eq(void *ctx, uint32_t i)
{
	struct pw *w = ctx;
	const struct stk *s = &w->stks[i];

	return s->n == w->ncur && !memcmp(w->ids + s->off, w->cur, w->ncur * sizeof(*w->cur));
}

/* The stack (index + 1) of st's frames; 0 for none. */
static uint32_t stack_of(struct pw *w, const struct sstack *st, bool user,
			 const struct aspace *as)
{
	struct memo *mm = NULL;
	uint64_t h = user;
	unsigned int i;
	bool found;
	uint32_t *slot;

	if (!st || !st->depth)
		return 0;
	if (st->id) {	/* a cached stack: the same frames in the same space */
		mm = memo_slot(w, st->id ^ 0x8000000000000000ull);
		if (mm->val)
			return (uint32_t)mm->val;
	}
	w->ncur = 0;
	for (i = 0; i < st->depth; i++) {
		GROW(w->cur, w->ncur, w->capcur);
		w->cur[w->ncur++] = frame_loc(w, st->frames[i], user, i, as);
		h = hash_mix(h, w->cur[w->ncur - 1]);
	}
	slot = index_find(&w->stki, h, stk_eq, stk_rehash, w, &found);
	if (!found) {
		GROW(w->stks, w->nstks, w->capstks);
		while (w->nids + w->ncur > w->capids) {
			w->capids = w->capids ? w->capids * 2 : 4096;
			w->ids = xreallocarray(w->ids, w->capids, sizeof(*w->ids));
		}
		memcpy(w->ids + w->nids, w->cur, w->ncur * sizeof(*w->cur));
		w->stks[w->nstks].off = (uint32_t)w->nids;
		w->stks[w->nstks].n = (uint32_t)w->ncur;
		w->stks[w->nstks].hash = h;
		w->nids += w->ncur;
		*slot = (uint32_t)++w->nstks;
		w->stki.n++;
	}
	if (mm) {
		/* memo_slot() may have moved: find it again */
		mm = memo_slot(w, st->id ^ 0x8000000000000000ull);
		mm->val = *slot;
		w->nmemo++;
	}
	return *slot;
}

/* ---------------------------------------------------------------- samples */

static struct smp smp_key;

static uint64_t smp_rehash(void *ctx, uint32_t i)
{
	return ((struct pw *)ctx)->smps[i].hash;
}

static bool smp_eq(void *ctx, uint32_t i)
{
	const struct smp *s = &((struct pw *)ctx)->smps[i];

	return s->k == smp_key.k && s->u == smp_key.u && s->site == smp_key.site &&
	       s->engine == smp_key.engine && s->comm == smp_key.comm && s->pid == smp_key.pid &&
	       s->tid == smp_key.tid && s->submit == smp_key.submit &&
	       s->submitter == smp_key.submitter && s->sub_pid == smp_key.sub_pid &&
	       s->sub_tid == smp_key.sub_tid;
}

static void *pp_begin(struct out *out, const struct session *S)
{
	struct pw *w = xcalloc(1, sizeof(*w));

	(void)S;
	w->out = out;
	str_of(w, "");
	w->s_site = str_of(w, "site");
	w->s_engine = str_of(w, "engine");
	w->s_comm = str_of(w, "comm");
	w->s_pid = str_of(w, "pid");
	w->s_tid = str_of(w, "tid");
	w->first_ns = UINT64_MAX;
	return w;
}

/* 1.4: the submit labels of the stall's sample (the join, join.h): its
 * status, and the submitter's process and thread when its record is there */
static void submit_labels(struct pw *w, const struct sstall *ss)
{
	const unsigned char *raw;
	enum submit_status st = join_submit(ss->s->f, ss->r, &raw);
	char comm[I915_STALL_COMM_LEN + 1];
	struct srec sr;

	if (st == SUBMIT_NONE)
		return;
	if (!w->s_submit) {	/* the keys, once a stall has them */
		w->s_submit = str_of(w, "submit");
		w->s_submitter = str_of(w, "submitter");
		w->s_sub_pid = str_of(w, "submitter_pid");
		w->s_sub_tid = str_of(w, "submitter_tid");
	}
	smp_key.submit = str_of(w, submit_status_name(st));
	if (st != SUBMIT_RECORDED)
		return;
	srec_get_submit(ss->s->f, raw, &sr);
	comm_clean(comm, sr.comm, false);
	sb_reset(&w->tmp);
	sb_printf(&w->tmp, "%s[%u]", comm, sr.tgid);
	smp_key.submitter = str_id(w, w->tmp.p, w->tmp.len);
	smp_key.sub_pid = sr.tgid;
	smp_key.sub_tid = sr.pid;
}

static void pp_stall(void *wp, const struct sstall *ss)
{
	struct pw *w = wp;
	const struct srec *r = ss->r;
	const struct aspace *as = NULL;
	char comm[I915_STALL_COMM_LEN + 1];
	__int128 real = (__int128)r->start_ns + ss->s->f->hdr.realtime_offset_ns;
	const char *ec;
	bool found;
	uint32_t *slot;
	struct smp *s;
	int64_t d;

	if (ss->u && ss->u->depth)
		as = usym_space(ss->s->f, r);
	memset(&smp_key, 0, sizeof(smp_key));
	smp_key.k = stack_of(w, ss->k, false, NULL);
	smp_key.u = stack_of(w, ss->u, true, as);
	site_key(&w->tmp, r->site);
	smp_key.site = str_id(w, w->tmp.p, w->tmp.len);
	sb_reset(&w->tmp);
	ec = engine_class_name(r->engine_class);
	if (!(r->flags & I915_STALL_F_ENGINE) || r->engine_class == I915_STALL_ENGINE_NONE)
		sb_puts(&w->tmp, "unknown");
	else if (ec)
		sb_printf(&w->tmp, "%s%u", ec, r->engine_instance);
	else
		sb_printf(&w->tmp, "class%u:%u", r->engine_class, r->engine_instance);
	smp_key.engine = str_id(w, w->tmp.p, w->tmp.len);
	comm_clean(comm, r->comm, false);
	smp_key.comm = str_of(w, comm);
	smp_key.pid = r->tgid;
	smp_key.tid = r->pid;
	submit_labels(w, ss);
	smp_key.hash = hash_mix(hash_mix(hash_mix(hash_mix(hash_mix(19, smp_key.k), smp_key.u),
						  (uint64_t)smp_key.site << 32 ^ (uint64_t)smp_key.engine),
					 (uint64_t)smp_key.comm),
				(uint64_t)smp_key.pid << 32 | smp_key.tid);
	if (smp_key.submit)
		smp_key.hash = hash_mix(hash_mix(smp_key.hash, (uint64_t)smp_key.submit << 32 ^
						 (uint64_t)smp_key.submitter),
					(uint64_t)smp_key.sub_pid << 32 | smp_key.sub_tid);
	slot = index_find(&w->smpi, smp_key.hash, smp_eq, smp_rehash, w, &found);
	if (!found) {
		GROW(w->smps, w->nsmps, w->capsmps);
		w->smps[w->nsmps] = smp_key;
		*slot = (uint32_t)++w->nsmps;
		w->smpi.n++;
	}
	s = &w->smps[*slot - 1];
	s->count++;
	d = r->duration_ns > INT64_MAX ? INT64_MAX : (int64_t)r->duration_ns;
	s->wait = s->wait > INT64_MAX - d ? INT64_MAX : s->wait + d;
	w->count++;
	w->wait = add_sat(w->wait, r->duration_ns);
	if (r->start_ns < w->first_ns) {
		w->first_ns = r->start_ns;
		w->first_real = real;
	}
	if (add_sat(r->start_ns, r->duration_ns) > w->last_ns)
		w->last_ns = add_sat(r->start_ns, r->duration_ns);
}

/* ---------------------------------------------------------------- encoding */

/* protobuf-c's output: straight into deflate, then the output file */
struct gzbuf {
	ProtobufCBuffer base;
	z_stream z;
	struct out *out;
	int zerr;
	unsigned char chunk[1 << 16];
};

static void gz_run(struct gzbuf *g, int flush)
{
	do {
		int rc;

		g->z.next_out = g->chunk;
		g->z.avail_out = sizeof(g->chunk);
		rc = deflate(&g->z, flush);
		if (rc == Z_STREAM_ERROR) {
			g->zerr = rc;
			return;
		}
		out_put(g->out, g->chunk, sizeof(g->chunk) - g->z.avail_out);
	} while (g->z.avail_out == 0);
}

static void gz_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	struct gzbuf *g = (struct gzbuf *)(void *)b;

	while (len && !g->zerr) {
		uInt n = len > (1u << 30) ? 1u << 30 : (uInt)len;

		g->z.next_in = (Bytef *)(uintptr_t)data;
		g->z.avail_in = n;
		gz_run(g, Z_NO_FLUSH);
		data += n;
		len -= n;
	}
}

static void pack(struct gzbuf *g, Pprof__Profile *p)
{
	protobuf_c_message_pack_to_buffer(&p->base, &g->base);
}

static void write_header(struct pw *w, const struct session *S, struct gzbuf *g)
{
	Pprof__Profile p = PPROF__PROFILE__INIT;
	Pprof__ValueType vt[2] = { PPROF__VALUE_TYPE__INIT, PPROF__VALUE_TYPE__INIT };
	Pprof__ValueType *vtp[2] = { &vt[0], &vt[1] }, period = PPROF__VALUE_TYPE__INIT;
	int64_t *com = xcalloc(S->nfiles + 3, sizeof(*com));
	size_t i, nc = 0;

	vt[0].type = str_of(w, "stalls");
	vt[0].unit = str_of(w, "count");
	vt[1].type = str_of(w, "wait");
	vt[1].unit = str_of(w, "nanoseconds");
	period.type = vt[1].type;
	period.unit = vt[1].unit;
	p.n_sample_type = 2;
	p.sample_type = vtp;
	p.default_sample_type = vt[1].type;
	p.period_type = &period;
	if (w->count) {
		p.time_nanos = w->first_real < 0 ? 0 : w->first_real > INT64_MAX ? INT64_MAX :
			       (int64_t)w->first_real;
		p.duration_nanos = (int64_t)((w->last_ns - w->first_ns) & INT64_MAX);
	}
	sb_reset(&w->tmp);
	sb_printf(&w->tmp, "i915-stalls -F pprof: %" PRIu64 " stalls, %" PRIu64 " ns stalled; "
		  "locations: the address looked up (a return address minus one)", w->count, w->wait);
	com[nc++] = str_of(w, sb_str(&w->tmp));
	for (i = 0; i < S->nfiles; i++) {
		const struct stall_file *f = S->files[i];
		char dev[I915_STALL_NAME_LEN + 1], rel[I915_STALL_RELEASE_LEN + 1];

		fixstr(dev, f->hdr.device, I915_STALL_NAME_LEN);
		fixstr(rel, f->hdr.release, I915_STALL_RELEASE_LEN);
		sb_reset(&w->tmp);
		sb_printf(&w->tmp, "input %s @%" PRIu64 ": format %u.%u, device %s (dri/%u), "
			  "kernel %s, %" PRIu64 " records", f->name, f->base, f->hdr.version_major,
			  f->hdr.version_minor, dev, f->hdr.drm_minor, rel,
			  (uint64_t)f->hdr.record_count);
		com[nc++] = str_of(w, sb_str(&w->tmp));
	}
	sb_reset(&w->tmp);
	if (session_lost(S))
		sb_printf(&w->tmp, "LOST %" PRIu64 " stalls: overwritten %" PRIu64 ", torn %" PRIu64
			  ", dropped %" PRIu64, session_lost(S), S->lost_overwritten, S->lost_torn,
			  S->lost_dropped);
	else
		sb_puts(&w->tmp, "no stalls lost");
	com[nc++] = str_of(w, sb_str(&w->tmp));
	p.n_comment = nc;
	p.comment = com;
	/* every string is known now */
	p.n_string_table = w->nstr;
	p.string_table = w->str;
	pack(g, &p);
	free(com);
}

static void write_tables(struct pw *w, struct gzbuf *g)
{
	Pprof__Profile p;
	Pprof__Mapping *mp = xcalloc(CHUNK, sizeof(*mp)), **mpp = xcalloc(CHUNK, sizeof(*mpp));
	Pprof__Location *lc = xcalloc(CHUNK, sizeof(*lc)), **lcp = xcalloc(CHUNK, sizeof(*lcp));
	Pprof__Line *ln = xcalloc(CHUNK, sizeof(*ln)), **lnp = xcalloc(CHUNK, sizeof(*lnp));
	Pprof__Function *fn = xcalloc(CHUNK, sizeof(*fn)), **fnp = xcalloc(CHUNK, sizeof(*fnp));
	size_t i, j, n;

	for (i = 0; i < w->nmaps; i += n) {
		n = w->nmaps - i < CHUNK ? w->nmaps - i : CHUNK;
		p = (Pprof__Profile)PPROF__PROFILE__INIT;
		for (j = 0; j < n; j++) {
			const struct map *m = &w->maps[i + j];

			mp[j] = (Pprof__Mapping)PPROF__MAPPING__INIT;
			mp[j].id = i + j + 1;
			mp[j].memory_start = m->start;
			mp[j].memory_limit = m->limit;
			mp[j].file_offset = m->off;
			mp[j].filename = m->file;
			mp[j].build_id = m->build_id;
			mp[j].has_functions = m->has_fn;
			mp[j].has_filenames = m->has_file;
			mp[j].has_line_numbers = m->has_line;
			mpp[j] = &mp[j];
		}
		p.n_mapping = n;
		p.mapping = mpp;
		pack(g, &p);
	}
	for (i = 0; i < w->nfns; i += n) {
		n = w->nfns - i < CHUNK ? w->nfns - i : CHUNK;
		p = (Pprof__Profile)PPROF__PROFILE__INIT;
		for (j = 0; j < n; j++) {
			fn[j] = (Pprof__Function)PPROF__FUNCTION__INIT;
			fn[j].id = i + j + 1;
			fn[j].name = w->fns[i + j].name;
			fn[j].system_name = w->fns[i + j].name;
			fn[j].filename = w->fns[i + j].file;
			fnp[j] = &fn[j];
		}
		p.n_function = n;
		p.function = fnp;
		pack(g, &p);
	}
	for (i = 0; i < w->nlocs; i += n) {
		n = w->nlocs - i < CHUNK ? w->nlocs - i : CHUNK;
		p = (Pprof__Profile)PPROF__PROFILE__INIT;
		for (j = 0; j < n; j++) {
			const struct loc *l = &w->locs[i + j];

			ln[j] = (Pprof__Line)PPROF__LINE__INIT;
			ln[j].function_id = l->fn;
			ln[j].line = l->line;
			lnp[j] = &ln[j];
			lc[j] = (Pprof__Location)PPROF__LOCATION__INIT;
			lc[j].id = i + j + 1;
			lc[j].mapping_id = l->map;
			lc[j].address = l->addr;
			lc[j].n_line = 1;
			lc[j].line = &lnp[j];
			lcp[j] = &lc[j];
		}
		p.n_location = n;
		p.location = lcp;
		pack(g, &p);
	}
	free(mp);
	free(mpp);
	free(lc);
	free(lcp);
	free(ln);
	free(lnp);
	free(fn);
	free(fnp);
}

/* The next label of a sample: a string (@str, a string table index) or a number. */
static void label(Pprof__Label *l, size_t *n, int64_t key, int64_t str, int64_t num)
{
	l[*n].key = key;
	l[*n].str = str;
	l[*n].num = num;
	(*n)++;
}

static void write_samples(struct pw *w, struct gzbuf *g)
{
	enum { NL = 9 };	/* at most */
	Pprof__Profile p;
	Pprof__Sample *sm = xcalloc(CHUNK, sizeof(*sm)), **smp = xcalloc(CHUNK, sizeof(*smp));
	Pprof__Label *lb = xcalloc((size_t)CHUNK * NL, sizeof(*lb));
	Pprof__Label **lbp = xcalloc((size_t)CHUNK * NL, sizeof(*lbp));
	int64_t *val = xcalloc((size_t)CHUNK * 2, sizeof(*val));
	uint64_t *ids = NULL;
	size_t i, j, k, n, nl, nids, capids = 0;

	for (i = 0; i < w->nsmps; i += n) {
		n = w->nsmps - i < CHUNK ? w->nsmps - i : CHUNK;
		for (j = 0, nids = 0; j < n; j++) {
			const struct smp *s = &w->smps[i + j];

			nids += (s->k ? w->stks[s->k - 1].n : 0) + (s->u ? w->stks[s->u - 1].n : 0);
		}
		if (nids > capids) {
			capids = nids;
			ids = xreallocarray(ids, capids, sizeof(*ids));
		}
		p = (Pprof__Profile)PPROF__PROFILE__INIT;
		for (j = 0, nids = 0; j < n; j++) {
			const struct smp *s = &w->smps[i + j];
			Pprof__Label *l = &lb[j * NL];
			const struct stk *st;

			sm[j] = (Pprof__Sample)PPROF__SAMPLE__INIT;
			sm[j].location_id = ids + nids;
			/* leaf first: the kernel frames, then the user frames */
			if (s->k)
				for (st = &w->stks[s->k - 1], k = 0; k < st->n; k++)
					ids[nids++] = w->ids[st->off + k];
			if (s->u)
				for (st = &w->stks[s->u - 1], k = 0; k < st->n; k++)
					ids[nids++] = w->ids[st->off + k];
			sm[j].n_location_id = (size_t)(ids + nids - sm[j].location_id);
			val[2 * j] = s->count;
			val[2 * j + 1] = s->wait;
			sm[j].n_value = 2;
			sm[j].value = &val[2 * j];
			for (k = 0; k < NL; k++) {
				l[k] = (Pprof__Label)PPROF__LABEL__INIT;
				lbp[j * NL + k] = &l[k];
			}
			nl = 0;
			label(l, &nl, w->s_site, s->site, 0);
			label(l, &nl, w->s_engine, s->engine, 0);
			label(l, &nl, w->s_comm, s->comm, 0);
			label(l, &nl, w->s_pid, 0, s->pid);
			label(l, &nl, w->s_tid, 0, s->tid);
			if (s->submit)
				label(l, &nl, w->s_submit, s->submit, 0);
			if (s->submitter) {
				label(l, &nl, w->s_submitter, s->submitter, 0);
				label(l, &nl, w->s_sub_pid, 0, s->sub_pid);
				label(l, &nl, w->s_sub_tid, 0, s->sub_tid);
			}
			sm[j].n_label = nl;
			sm[j].label = &lbp[j * NL];
			smp[j] = &sm[j];
		}
		p.n_sample = n;
		p.sample = smp;
		pack(g, &p);
	}
	free(ids);
	free(sm);
	free(smp);
	free(lb);
	free(lbp);
	free(val);
}

static void pp_free(struct pw *w)
{
	size_t i;

	for (i = 0; i < w->nstr; i++)
		free(w->str[i]);
	free(w->str);
	free(w->strhash);
	free(w->stri.slot);
	free(w->fns);
	free(w->fni.slot);
	free(w->maps);
	free(w->mapi.slot);
	free(w->locs);
	free(w->loci.slot);
	free(w->ids);
	free(w->stks);
	free(w->stki.slot);
	free(w->smps);
	free(w->smpi.slot);
	free(w->memo);
	free(w->cur);
	sb_free(&w->tmp);
	free(w);
}

static int pp_end(void *wp, const struct session *S, bool ok)
{
	struct pw *w = wp;
	struct gzbuf *g;
	int rc = 0;

	if (!ok) {
		pp_free(w);
		return 0;
	}
	g = xcalloc(1, sizeof(*g));
	g->base.append = gz_append;
	g->out = w->out;
	/* windowBits 15 + 16: a gzip stream */
	if (deflateInit2(&g->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		errx_("pprof: zlib: %s", g->z.msg ? g->z.msg : "deflateInit2 failed");
		free(g);
		pp_free(w);
		return -1;
	}
	write_header(w, S, g);
	write_tables(w, g);
	write_samples(w, g);
	if (!g->zerr) {
		g->z.avail_in = 0;
		gz_run(g, Z_FINISH);
	}
	if (g->zerr) {
		errx_("pprof: zlib: deflate failed (%d)", g->zerr);
		rc = -1;
	}
	deflateEnd(&g->z);
	free(g);
	pp_free(w);
	return rc;
}

const struct export_fmt export_pprof = {
	.name = "pprof", .binary = true,
	.begin = pp_begin, .stall = pp_stall, .end = pp_end,
};
