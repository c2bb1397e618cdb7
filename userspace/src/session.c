// SPDX-License-Identifier: MIT
/*
 * The inputs of a command: mapped or read whole, record archives parsed,
 * stall files opened; records handed out in file order, sorted by time, or
 * streamed from a file or pipe in chunks.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "session.h"

/* ---------------------------------------------------------------- filter */

bool filter_pass(const struct filter *F, const struct srec *r)
{
	size_t i;
	bool ok;

	if (r->duration_ns < F->min_ns)
		return false;
	if (F->npids) {
		for (ok = false, i = 0; i < F->npids; i++)
			ok |= F->pids[i] == r->tgid;
		if (!ok)
			return false;
	}
	if (F->ntids) {
		for (ok = false, i = 0; i < F->ntids; i++)
			ok |= F->tids[i] == r->pid;
		if (!ok)
			return false;
	}
	if (F->ncomms) {
		char comm[I915_STALL_COMM_LEN + 1];

		fixstr(comm, r->comm, I915_STALL_COMM_LEN);
		for (ok = false, i = 0; i < F->ncomms; i++)
			ok |= !strcmp(F->comms[i], comm);
		if (!ok)
			return false;
	}
	if (F->nsites) {
		for (ok = false, i = 0; i < F->nsites; i++)
			ok |= F->sites[i] == r->site;
		if (!ok)
			return false;
	}
	return true;
}

void filter_free(struct filter *F)
{
	free(F->pids);
	free(F->tids);
	free(F->comms);
	free(F->sites);
	memset(F, 0, sizeof(*F));
}

/* ---------------------------------------------------------------- maps */

/*
 * Pages of a map count in the RSS once read.  They are given back from
 * time to time as records are walked (they stay in the page cache and come
 * back with a minor fault), so the RSS does not grow with the input.
 */
#define SHED_BYTES (64u << 20)
#define POP_SHIFT 21
#define POP_BLOCK ((size_t)1 << POP_SHIFT)
#define pop_words(size) (((size) >> POP_SHIFT) / 64 + 1)

static struct {
	void *p;
	size_t size;
	const char *path;
	uint64_t *pop;		/* input_populate(): its blocks mapped since the last shed */
} *maps;
static size_t nmaps, touched;

/* A mapped file cut short while it is read: an error, not a crash. */
static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	static const char pre[] = "i915-stalls: ", post[] = ": truncated while being read\n";
	const char *path = "a mapped file";
	uintptr_t a = (uintptr_t)si->si_addr;
	char num[40], *n = num + sizeof(num);
	size_t i, off = 0;
	bool found = false;

	(void)sig;
	(void)uc;
	for (i = 0; i < nmaps; i++)
		if (a - (uintptr_t)maps[i].p < maps[i].size) {
			path = maps[i].path;
			off = a - (uintptr_t)maps[i].p;
			found = true;
		}
	/* async-signal-safe: write() and _exit() only, digits by hand */
	do
		*--n = (char)('0' + off % 10);
	while (off /= 10);
	n -= sizeof(": offset ") - 1;
	memcpy(n, ": offset ", sizeof(": offset ") - 1);
	if (write(STDERR_FILENO, pre, sizeof(pre) - 1) > 0 &&
	    write(STDERR_FILENO, path, strlen(path)) > 0 &&
	    (!found || write(STDERR_FILENO, n, (size_t)(num + sizeof(num) - n)) > 0))
		(void)!write(STDERR_FILENO, post, sizeof(post) - 1);
	_exit(EXIT_FATAL);
}

void input_touched(size_t bytes)
{
	size_t i;

	touched += bytes;
	if (touched < SHED_BYTES)
		return;
	touched = 0;
	for (i = 0; i < nmaps; i++) {
		madvise(maps[i].p, maps[i].size, MADV_DONTNEED);
		memset(maps[i].pop, 0, pop_words(maps[i].size) * sizeof(*maps[i].pop));
	}
}

/*
 * Map the 2 MiB block of an input about to be read with one call rather
 * than a minor fault every 16 pages: the records were three quarters of
 * the faults of a report of a million records (the other quarter, its
 * tables, are on huge pages).  Called for the records fetched ahead; the
 * walks in time order read a few runs of a file at once (its CPUs'), so
 * each block is marked when done, until the next shed.
 */
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22	/* Linux 5.14 */
#endif
void input_populate(const void *p)
{
	static bool off;
	uintptr_t a = (uintptr_t)p;
	size_t i, b, start, len;

	for (i = 0; i < nmaps && !off; i++) {
		if (a - (uintptr_t)maps[i].p >= maps[i].size)
			continue;
		b = (a - (uintptr_t)maps[i].p) >> POP_SHIFT;
		if (maps[i].pop[b / 64] & (1ull << (b % 64)))
			return;
		maps[i].pop[b / 64] |= 1ull << (b % 64);
		start = b << POP_SHIFT;
		len = maps[i].size - start < POP_BLOCK ? maps[i].size - start : POP_BLOCK;
		/* an error leaves the faults to do it (EFAULT: a file cut short,
		 * which the SIGBUS handler reports when read) */
		if (madvise((char *)maps[i].p + start, len, MADV_POPULATE_READ) && errno == EINVAL)
			off = true;	/* an older kernel */
		return;
	}
}

/*
 * A regular file with a size is mapped: no copy, and its pages stay in the
 * page cache.  Anything else (stdin, a pipe, a FIFO, a debugfs file, whose
 * size reads as 0 and whose content is made at open) is read until EOF.
 */
static int input_load(const char *path, struct input *in)
{
	struct stat st;
	int fd, err;
	void *p;

	if (!strcmp(path, "-"))
		return read_fd_all(STDIN_FILENO, &in->buf, &in->size);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size <= SIZE_MAX) {
		p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED) {
			struct sigaction sa = { .sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO };

			close(fd);
			in->buf = p;
			in->size = (size_t)st.st_size;
			in->mapped = true;
			maps = xreallocarray(maps, nmaps + 1, sizeof(*maps));
			maps[nmaps].p = p;
			maps[nmaps].path = in->name;
			maps[nmaps].pop = xcalloc(pop_words(in->size), sizeof(*maps[nmaps].pop));
			maps[nmaps++].size = in->size;
			sigaction(SIGBUS, &sa, NULL);
			return 0;
		}
	}
	err = read_fd_all(fd, &in->buf, &in->size);
	close(fd);
	return err;
}

static void input_free(struct input *in)
{
	size_t i;

	if (in->mapped) {
		munmap(in->buf, in->size);
		for (i = 0; i < nmaps && maps[i].p != in->buf; i++)
			;
		if (i < nmaps) {
			free(maps[i].pop);
			maps[i] = maps[--nmaps];
		}
		if (!nmaps) {
			free(maps);
			maps = NULL;
		}
	} else {
		free(in->buf);
	}
	if (in->ar) {
		archive_free(in->ar);
		free(in->ar);
	}
	free(in->copy);
	memset(in, 0, sizeof(*in));
}

/* ---------------------------------------------------------------- open */

/*
 * Count f's stalls in S's totals.  Each file's own sums fit 64 bits
 * (decode.c); those of all the files of a session must too, else a sum of
 * lost stalls could wrap to a small number, even 0.  -1 after a message
 * naming f's CPU table.
 */
static int session_count(struct session *S, const struct stall_file *f)
{
	uint64_t seen, sseen;
	struct diag d;

	if (__builtin_add_overflow(S->seen, f->recorded, &seen) ||
	    __builtin_add_overflow(seen, f->lost_dropped, &seen)) {
		diag_fail(&d, f->base + f->hdr.cpu_table_offset,
			  "the CPU table's counts of stalls, with those of the stall files before "
			  "it, overflow 64 bits");
		return diag_print(f->name, &d);
	}
	if (__builtin_add_overflow(S->sseen, f->srecorded, &sseen) ||
	    __builtin_add_overflow(sseen, f->slost_dropped, &sseen)) {
		diag_fail(&d, f->base + f->submit_tab,
			  "the submit CPU table's counts of submit records, with those of the "
			  "stall files before it, overflow 64 bits");
		return diag_print(f->name, &d);
	}
	S->seen = seen;
	S->sseen = sseen;
	S->lost_overwritten += f->lost_overwritten;
	S->lost_torn += f->lost_torn;
	S->lost_dropped += f->lost_dropped;
	S->slost_overwritten += f->slost_overwritten;
	S->slost_torn += f->slost_torn;
	S->slost_dropped += f->slost_dropped;
	return 0;
}

/* A stall file's submit records checked and indexed for the join (1.4);
 * -1 after a message. */
static int session_join(struct stall_file *f)
{
	struct diag d;

	if (join_build(f, &d))
		return diag_print(f->name, &d);
	return 0;
}

/* Open every stall file of one buffer (concatenated files allowed). */
static int open_stalls(struct session *S, struct input *in, const unsigned char *buf,
		       size_t size, uint64_t base)
{
	size_t off = 0;
	struct diag d;

	if (!size)
		return diag_print(in->name, &(struct diag){ .off = base, .msg = "empty input" });
	/* Records stay where they are, so they must be aligned: they are,
	 * in a map or a malloc()ed buffer, as every offset to them is a
	 * multiple of 8; else use an aligned copy. */
	if ((uintptr_t)buf % 8) {
		in->copy = xmalloc(size);
		memcpy(in->copy, buf, size);
		buf = in->copy;
	}
	while (off < size) {
		struct stall_file *f;

		if (off && (size - off < I915_STALL_MAGIC_LEN ||
			    memcmp(buf + off, I915_STALL_MAGIC, I915_STALL_MAGIC_LEN))) {
			diag_fail(&d, base + off, "%zu bytes of trailing data after the records",
				  size - off);
			return diag_print(in->name, &d);
		}
		f = xcalloc(1, sizeof(*f));
		if (stall_file_open(f, in->name, buf + off, size - off, base + off, &d)) {
			free(f);
			return diag_print(in->name, &d);
		}
		f->ar = in->ar;
		f->index = (int)S->nfiles;
		S->files = xreallocarray(S->files, S->nfiles + 1, sizeof(*S->files));
		S->files[S->nfiles++] = f;
		if (session_count(S, f) || session_join(f))
			return -1;
		off += f->end;
	}
	return 0;
}

int session_open(struct session *S, char *const *names, size_t n)
{
	size_t i, k;
	int err;

	memset(S, 0, sizeof(*S));
	S->in = xcalloc(n, sizeof(*S->in));
	for (i = 0; i < n; i++) {
		struct input *in = &S->in[S->nin++];
		struct diag d;

		in->name = !strcmp(names[i], "-") ? "<stdin>" : names[i];
		err = input_load(names[i], in);
		if (err) {
			errx_("%s: %s", in->name, strerror(-err));
			return -1;
		}
		if (in->size >= AR_MAGIC_LEN && !memcmp(in->buf, AR_MAGIC, AR_MAGIC_LEN)) {
			in->ar = xcalloc(1, sizeof(*in->ar));
			if (archive_parse(in->name, in->buf, in->size, in->ar, &d))
				return diag_print(in->name, &d);
			for (k = 0; k < in->ar->nstalls; k++)
				if (open_stalls(S, in, in->ar->stalls[k].buf, in->ar->stalls[k].size,
						in->ar->stalls[k].off))
					return -1;
			continue;
		}
		if (open_stalls(S, in, in->buf, in->size, 0))
			return -1;
	}
	return 0;
}

void session_close(struct session *S)
{
	size_t i;

	for (i = 0; i < S->nfiles; i++) {
		join_free(S->files[i]);
		stall_file_close(S->files[i]);
		free(S->files[i]);
	}
	free(S->files);
	for (i = 0; i < S->nin; i++)
		input_free(&S->in[i]);
	free(S->in);
	memset(S, 0, sizeof(*S));
}

void session_warn_loss(const struct session *S)
{
	size_t i;

	for (i = 0; i < S->nfiles; i++) {
		const struct stall_file *f = S->files[i];

		if (file_lost(f))
			warnx_("%s: LOST %llu stalls (overwritten %llu, torn %llu, dropped %llu): "
			       "totals are incomplete", f->name, (unsigned long long)file_lost(f),
			       (unsigned long long)f->lost_overwritten,
			       (unsigned long long)f->lost_torn, (unsigned long long)f->lost_dropped);
		if (file_slost(f))
			warnx_("%s: LOST %llu submit records (overwritten %llu, torn %llu, dropped "
			       "%llu): the submitters of some stalls are gone", f->name,
			       (unsigned long long)file_slost(f),
			       (unsigned long long)f->slost_overwritten,
			       (unsigned long long)f->slost_torn,
			       (unsigned long long)f->slost_dropped);
	}
}

/* ---------------------------------------------------------------- walks */

/* la's work on the records ahead of record i of f, at raw */
static void look_ahead(const struct lookahead *la, const struct stall_file *f, uint64_t i,
		       const unsigned char *raw)
{
	struct stall a = { .f = f };

	if (i + la->far < f->hdr.record_count) {
		a.raw = raw + la->far * (size_t)f->hdr.record_size;
		la->fn(&a, 1);
	}
	if (i + la->near < f->hdr.record_count) {
		a.raw = raw + la->near * (size_t)f->hdr.record_size;
		la->fn(&a, 2);
	}
}

/*
 * Every record in file order.  Ahead of the one fn() gets, records are
 * fetched into the CPU caches: all they use when fn() symbolizes them
 * (their maps and stack snapshot are read), else what decoding reads (the
 * fields and the maps); and la works on them.
 */
static int walk(struct session *S, const struct filter *F, stall_fn fn,
		const struct lookahead *la, void *ctx, bool whole)
{
	static const bool never;
	const bool *ahead = la ? la->on : &never;
	size_t i;

	for (i = 0; i < S->nfiles; i++) {
		const struct stall_file *f = S->files[i];
		struct stall_iter it;
		struct stall st = { .f = f };
		struct srec v;
		struct diag d;
		int rc;

		stall_iter_init(&it, f);
		it.prefetch = whole ? 2 : 1;
		while ((rc = stall_iter_next(&it, &st.raw, &v, &d)) > 0) {
			input_touched(stall_record_size(f));
			if (*ahead)
				look_ahead(la, f, it.next - 1, st.raw);
			if (!filter_pass(F, &v))
				continue;
			st.start_ns = v.start_ns;
			rc = fn(ctx, &st, &v);
			if (rc)
				return rc;
		}
		if (rc < 0)
			return diag_print(f->name, &d);
	}
	return 0;
}

int session_each(struct session *S, const struct filter *F, stall_fn fn,
		 const struct lookahead *la, void *ctx)
{
	return walk(S, F, fn, la, ctx, true);
}

/*
 * Stable merge sort by start time: ties keep the load order, which is input,
 * CPU and seq order.  Each CPU's records are mostly in time order already,
 * so runs are found and merged, which takes a few passes instead of log n.
 */
static void sort_stalls(struct stall *st, size_t n)
{
	struct stall *tmp, *a = st, *b;
	size_t *runs, nruns = 0, i, k;

	if (n < 2)
		return;
	runs = xmalloc((n + 1) * sizeof(*runs));
	runs[nruns++] = 0;
	for (i = 1; i < n; i++)
		if (st[i].start_ns < st[i - 1].start_ns)
			runs[nruns++] = i;
	runs[nruns] = n;
	if (nruns == 1) {
		free(runs);
		return;
	}
	tmp = b = xmalloc(n * sizeof(*st));
	while (nruns > 1) {	/* merge pairs of runs from a into b */
		for (k = 0; k < nruns; k += 2) {
			size_t lo = runs[k], mid = runs[k + 1];
			size_t hi = k + 2 <= nruns ? runs[k + 2] : mid;	/* or alone */
			size_t x = lo, y = mid, z = lo;

			while (x < mid && y < hi)
				b[z++] = a[y].start_ns < a[x].start_ns ? a[y++] : a[x++];
			memcpy(b + z, a + x, (mid - x) * sizeof(*a));
			z += mid - x;
			memcpy(b + z, a + y, (hi - y) * sizeof(*a));
			runs[k / 2] = lo;
		}
		nruns = (nruns + 1) / 2;
		runs[nruns] = n;
		a = a == st ? tmp : st;
		b = b == st ? tmp : st;
	}
	if (a != st)
		memcpy(st, a, n * sizeof(*st));
	free(tmp);
	free(runs);
}

struct collect {
	struct stall *st;
	size_t n, cap;
};

static int collect_one(void *ctx, const struct stall *s, const struct srec *v)
{
	struct collect *c = ctx;

	(void)v;
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 256;
		c->st = xreallocarray(c->st, c->cap, sizeof(*c->st));
	}
	c->st[c->n++] = *s;
	return 0;
}

int session_sorted(struct session *S, const struct filter *F, struct stall **st, size_t *n)
{
	struct collect c = { 0 };
	int rc = walk(S, F, collect_one, NULL, &c, false);

	if (rc) {
		free(c.st);
		return rc;
	}
	sort_stalls(c.st, c.n);
	*st = c.st;
	*n = c.n;
	return 0;
}

/* ---------------------------------------------------------------- stream */

#define STREAM_CHUNK (256u << 10)	/* read()s of this size: few calls, bounded memory */

/* Buffered reads of a file or pipe; the unread bytes are buf[pos, len). */
struct reader {
	int fd;
	unsigned char *buf;
	size_t cap, pos, len;
	bool eof;
};

/* Make n bytes readable at buf + pos; *have < n only at the end. */
static int reader_fill(struct reader *rd, size_t n, size_t *have)
{
	if (rd->len - rd->pos < n && rd->pos) {
		memmove(rd->buf, rd->buf + rd->pos, rd->len - rd->pos);
		rd->len -= rd->pos;
		rd->pos = 0;
	}
	if (n > rd->cap) {
		rd->cap = n > STREAM_CHUNK ? n : STREAM_CHUNK;
		rd->buf = xrealloc(rd->buf, rd->cap);
	}
	while (rd->len - rd->pos < n && !rd->eof) {
		ssize_t r = read(rd->fd, rd->buf + rd->len, rd->cap - rd->len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			rd->eof = true;
		rd->len += (size_t)r;
	}
	*have = rd->len - rd->pos < n ? rd->len - rd->pos : n;
	return 0;
}

static int stream_fail(const char *name, uint64_t off, const char *what)
{
	struct diag d = { .off = off };

	snprintf(d.msg, sizeof(d.msg), "%s", what);
	return diag_print(name, &d);
}

/* Decode, filter and hand out one input as it is read. */
static int stream_input(struct session *S, const char *path, const struct filter *F,
			void (*head)(void *, const struct stall_file *), stall_fn fn, void *ctx)
{
	const char *name = !strcmp(path, "-") ? "<stdin>" : path;
	struct reader rd = { .fd = -1 };
	uint64_t base = 0;
	int rc = -1, err;

	rd.fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	if (rd.fd < 0) {
		errx_("%s: %s", name, strerror(errno));
		return -1;
	}
	for (;;) {
		struct stall_file *f = xcalloc(1, sizeof(*f));
		const unsigned char *buf;
		struct stall_iter it;
		struct diag d;
		uint64_t need = 16, i;
		size_t have, got;
		bool eof;
		int orc;

		for (;;) {	/* header, CPU table: as much as the header says */
			if ((err = reader_fill(&rd, need, &have))) {
				errx_("%s: %s", name, strerror(-err));
				free(f);
				goto out;
			}
			buf = rd.buf + rd.pos;
			eof = have < need;
			if (!have && base) {	/* clean end after a stall file */
				free(f);
				rc = 0;
				goto out;
			}
			if (!have) {
				free(f);
				stream_fail(name, 0, "empty input");
				goto out;
			}
			if (!base && have >= AR_MAGIC_LEN && !memcmp(buf, AR_MAGIC, AR_MAGIC_LEN)) {
				free(f);
				stream_fail(name, 0, "a record archive: report it without --stream");
				goto out;
			}
			if (base && (have < I915_STALL_MAGIC_LEN ||
				     memcmp(buf, I915_STALL_MAGIC, I915_STALL_MAGIC_LEN))) {
				free(f);
				stream_fail(name, base, "trailing data after the records");
				goto out;
			}
			if (have == 16 && need == 16) {
				uint32_t hs;

				memcpy(&hs, buf + 12, 4);
				if (hs > 16 && hs <= (1u << 20)) {
					need = hs;
					continue;
				}
			}
			orc = stall_file_open_stream(f, name, buf, have, base, &d, &need);
			if (orc < 0) {
				free(f);
				diag_print(name, &d);
				goto out;
			}
			if (orc == 0)
				break;
			if (eof) {	/* before the first record */
				free(f);
				stream_fail(name, base + have, "truncated before the first record");
				goto out;
			}
		}
		/* 1.4: the submit records stay, copied (the prefix before the
		 * records is bounded: MAX_STREAM_PREFIX) */
		f->sbuf = NULL;
		if (f->v14 && f->submit_count) {
			size_t n = (size_t)(f->submit_count * f->submit_size);

			f->scopy = xmalloc(n);	/* malloc()'s alignment: 8 at least */
			memcpy(f->scopy, buf + f->submit_off, n);
			f->sbuf = f->scopy;
		}
		rd.pos += f->hdr.records_offset;
		f->buf = NULL;	/* nothing stays in memory */
		f->index = (int)S->nfiles;
		S->files = xreallocarray(S->files, S->nfiles + 1, sizeof(*S->files));
		S->files[S->nfiles++] = f;
		if (session_count(S, f) || session_join(f))
			goto out;
		head(ctx, f);
		stall_iter_init(&it, f);
		for (i = 0; i < f->hdr.record_count; i++) {
			struct stall st = { .f = f };
			struct srec v;

			if ((err = reader_fill(&rd, stall_record_size(f), &got))) {
				errx_("%s: %s", name, strerror(-err));
				goto out;
			}
			if (got < stall_record_size(f)) {
				stream_fail(name, base + f->hdr.records_offset +
					    i * f->hdr.record_size + got, "truncated in a record");
				goto out;
			}
			st.raw = rd.buf + rd.pos;
			if (stall_iter_take(&it, st.raw, &v, &d) < 0) {
				diag_print(name, &d);
				goto out;
			}
			rd.pos += stall_record_size(f);
			if (!filter_pass(F, &v))
				continue;
			st.start_ns = v.start_ns;
			if (fn(ctx, &st, &v))
				goto out;
		}
		base += f->end;
	}
out:
	if (rd.fd != STDIN_FILENO)
		close(rd.fd);
	free(rd.buf);
	return rc;
}

int session_stream(struct session *S, char *const *names, size_t n, const struct filter *F,
		   void (*head)(void *ctx, const struct stall_file *f), stall_fn fn, void *ctx)
{
	size_t i;

	memset(S, 0, sizeof(*S));
	for (i = 0; i < n; i++)
		if (stream_input(S, names[i], F, head, fn, ctx))
			return -1;
	return 0;
}
