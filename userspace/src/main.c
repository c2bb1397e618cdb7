// SPDX-License-Identifier: MIT
/*
 * i915-stalls: decode and symbolize the i915 stall log
 * (/sys/kernel/debug/dri/N/i915_stalls).
 */
#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <sys/stat.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "stalls.h"

#define VERSION "1.0"

static const char usage_text[] =
"Usage: i915-stalls [COMMAND] [OPTIONS] [FILE...]\n"
"Decode and symbolize the i915 stall log (CPU waits on the GPU).\n"
"\n"
"Commands:\n"
"  report            one block per stall (default)\n"
"  summary           stalls grouped by site and by user stack, with losses\n"
"  diff OLD NEW      compare two logs per site and user stack, by growth\n"
"  record [-o OUT]   save the log with the maps and build-ids of its processes\n"
"\n"
"Input selection:\n"
"  FILE, -i, --input=FILE  stall file or record archive ('-' for stdin);\n"
"                    default: every /sys/kernel/debug/dri/*/i915_stalls\n"
"      --pid=PID     only stalls of process PID (repeatable)\n"
"      --tid=TID     only stalls of thread TID (repeatable)\n"
"      --comm=COMM   only stalls of threads named COMM (repeatable)\n"
"      --site=SITE   only stalls at SITE, a name or number (repeatable)\n"
"      --min-us=N    only stalls of at least N microseconds\n"
"\n"
"Symbols:\n"
"  -k, --vmlinux=FILE       kernel symbols from vmlinux (KASLR from the header)\n"
"  -m, --i915-module=FILE   i915.ko for a modular i915 (with --vmlinux)\n"
"      --kallsyms=FILE      kernel symbols from a saved /proc/kallsyms\n"
"      --symfs=DIR          look for user ELF and debug files under DIR\n"
"      --offline            never read /proc (kallsyms, PID maps)\n"
"      --lines              source file and line from DWARF (user frames,\n"
"                           and kernel frames with --vmlinux)\n"
"      --no-demangle        keep C++ symbol names mangled\n"
"\n"
"Output:\n"
"  -F, --format=FMT  text (default), json, folded or svg\n"
"  -j, --json        same as --format=json\n"
"  -o, --output=FILE write to FILE instead of stdout\n"
"      --weight=W    folded/svg weight: time (microseconds, default) or count\n"
"      --folded-root=R  root frame: tid (comm-pid/tid, default), pid or comm\n"
"      --top=N       summary: user stacks shown (default 20)\n"
"      --stream      report: print each stall as it is read, in file order,\n"
"                    holding one record in memory (stall files only)\n"
"      --threshold=PCT  diff: exit 0 (good) if the metric grew by at most PCT\n"
"                    percent, 1 (bad) if more, 125 (skip) if NEW is unusable\n"
"      --metric=M    diff metric: total (default), p99 or count\n"
"      --no-kallsyms record: do not save /proc/kallsyms\n"
"  -v, --verbose     more diagnostics on stderr\n"
"  -q, --quiet       no warnings\n"
"  -h, --help        this help\n"
"  -V, --version     version\n"
"\n"
"Exit status:\n"
"  0    success, every frame resolved\n"
"  1    output complete, but some frames could not be resolved\n"
"  2    bad input (the message names the file and byte offset) or fatal error\n"
"  64   usage error\n"
"  diff --threshold: 0 good, 1 bad (grew more than PCT), 125 skip (NEW bad or\n"
"  empty), 128 abort (OLD bad or usage), as git bisect run expects\n";

enum { O_PID = 256, O_TID, O_COMM, O_SITE, O_MINUS, O_KALLSYMS, O_SYMFS, O_OFFLINE,
       O_WEIGHT, O_ROOT, O_TOP, O_THRESHOLD, O_METRIC, O_NOKALLSYMS, O_LINES, O_STREAM, O_NODEMANGLE };

static const struct option long_opts[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "format", required_argument, NULL, 'F' },
	{ "json", no_argument, NULL, 'j' },
	{ "output", required_argument, NULL, 'o' },
	{ "vmlinux", required_argument, NULL, 'k' },
	{ "i915-module", required_argument, NULL, 'm' },
	{ "kallsyms", required_argument, NULL, O_KALLSYMS },
	{ "symfs", required_argument, NULL, O_SYMFS },
	{ "offline", no_argument, NULL, O_OFFLINE },
	{ "pid", required_argument, NULL, O_PID },
	{ "tid", required_argument, NULL, O_TID },
	{ "comm", required_argument, NULL, O_COMM },
	{ "site", required_argument, NULL, O_SITE },
	{ "min-us", required_argument, NULL, O_MINUS },
	{ "weight", required_argument, NULL, O_WEIGHT },
	{ "folded-root", required_argument, NULL, O_ROOT },
	{ "top", required_argument, NULL, O_TOP },
	{ "threshold", required_argument, NULL, O_THRESHOLD },
	{ "metric", required_argument, NULL, O_METRIC },
	{ "no-kallsyms", no_argument, NULL, O_NOKALLSYMS },
	{ "lines", no_argument, NULL, O_LINES },
	{ "stream", no_argument, NULL, O_STREAM },
	{ "no-demangle", no_argument, NULL, O_NODEMANGLE },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

struct filt {
	uint32_t *pids, *tids;
	size_t npids, ntids;
	char **comms;
	size_t ncomms;
	int *sites;
	size_t nsites;
	uint64_t min_ns;
};

struct input {
	const char *name;
	struct input_buf data;	/* mapped or read; records point into it */
	struct archive *ar;
};

/* everything loaded: inputs and their stall files */
struct loaded {
	struct input *in;
	size_t nin;
	struct stall_file **files;
	size_t nfiles;
	unsigned char **copies;	/* aligned copies of misaligned buffers */
	size_t ncopies;
};

static int bad_input(const char *name, const struct diag *d)
{
	fprintf(stderr, "i915-stalls: %s: offset %" PRIu64 ": %s\n", name, d->off, d->msg);
	return -1;
}

static bool pass(const struct filt *F, const struct i915_stall_record *r)
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

/* Decode every stall file of one buffer (concatenated files allowed). */
static int decode_stalls(struct loaded *L, const char *name, const unsigned char *buf,
			 size_t size, uint64_t base, struct archive *ar, const struct filt *F,
			 struct run *R)
{
	size_t off = 0;
	size_t cap = R->n;

	if (!size) {
		struct diag d = { .off = base };

		snprintf(d.msg, sizeof(d.msg), "empty input");
		return bad_input(name, &d);
	}
	/* Records stay where they are, so they must be aligned: they are,
	 * in a map or a malloc()ed buffer, as every offset to them is a
	 * multiple of 8; else use an aligned copy. */
	if ((uintptr_t)buf % 8) {
		unsigned char *c = xmalloc(size);

		memcpy(c, buf, size);
		L->copies = xreallocarray(L->copies, L->ncopies + 1, sizeof(*L->copies));
		L->copies[L->ncopies++] = c;
		buf = c;
	}
	while (off < size) {
		struct stall_file *f = xcalloc(1, sizeof(*f));
		const struct i915_stall_record *r;
		struct stall_iter it;
		struct diag d;
		int rc;

		if (off && (size - off < I915_STALL_MAGIC_LEN ||
			    memcmp(buf + off, I915_STALL_MAGIC, I915_STALL_MAGIC_LEN))) {
			d.off = base + off;
			snprintf(d.msg, sizeof(d.msg), "%zu bytes of trailing data after the records",
				 size - off);
			free(f);
			return bad_input(name, &d);
		}
		if (stall_file_open(f, name, buf + off, size - off, base + off, &d)) {
			free(f);
			return bad_input(name, &d);
		}
		f->ar = ar;
		f->index = (int)L->nfiles;
		L->files = xreallocarray(L->files, L->nfiles + 1, sizeof(*L->files));
		L->files[L->nfiles++] = f;
		stall_iter_init(&it, f);
		while ((rc = stall_iter_next(&it, &r, &d)) > 0) {
			input_touched(f->hdr.record_size);
			if (!pass(F, r))
				continue;
			if (R->n == cap) {
				cap = cap ? cap * 2 : 256;
				R->st = xreallocarray(R->st, cap, sizeof(*R->st));
			}
			R->st[R->n].r = r;
			R->st[R->n].f = f;
			R->st[R->n].start_ns = r->start_ns;
			R->n++;
		}
		if (rc < 0)
			return bad_input(name, &d);
		off += f->end;
	}
	return 0;
}

static int load_input(struct loaded *L, const char *name, const struct filt *F, struct run *R)
{
	struct input *in;
	int err;
	size_t i;

	L->in = xreallocarray(L->in, L->nin + 1, sizeof(*L->in));
	in = &L->in[L->nin++];
	memset(in, 0, sizeof(*in));
	in->name = !strcmp(name, "-") ? "<stdin>" : name;
	err = input_load(name, &in->data);
	if (err) {
		fprintf(stderr, "i915-stalls: %s: %s\n", in->name, strerror(-err));
		return -1;
	}
	if (in->data.size >= AR_MAGIC_LEN && !memcmp(in->data.buf, AR_MAGIC, AR_MAGIC_LEN)) {
		struct diag d;

		in->ar = xcalloc(1, sizeof(*in->ar));
		if (archive_parse(in->name, in->data.buf, in->data.size, in->ar, &d))
			return bad_input(in->name, &d);
		usym_add_archive(in->ar);
		if (in->ar->kallsyms)
			ksym_add_archive_kallsyms(in->ar->kallsyms, in->ar->kallsyms_len);
		for (i = 0; i < in->ar->nstalls; i++)
			if (decode_stalls(L, in->name, in->ar->stalls[i].buf, in->ar->stalls[i].size,
					  in->ar->stalls[i].off, in->ar, F, R))
				return -1;
		return 0;
	}
	return decode_stalls(L, in->name, in->data.buf, in->data.size, 0, NULL, F, R);
}

/* ---- report --stream: one record in memory at a time ---- */

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
	return bad_input(name, &d);
}

/* Decode, filter and print one input as it is read. */
static int stream_input(struct loaded *L, const char *path, const struct filt *F,
			struct run *R, FILE *o, size_t *shown)
{
	const char *name = !strcmp(path, "-") ? "<stdin>" : path;
	struct reader rd = { .fd = -1 };
	uint64_t base = 0;
	int rc = -1, err;

	rd.fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	if (rd.fd < 0) {
		fprintf(stderr, "i915-stalls: %s: %s\n", name, strerror(errno));
		return -1;
	}
	for (;;) {
		struct stall_file *f = xcalloc(1, sizeof(*f));
		const struct i915_stall_record *r;
		const unsigned char *buf;
		struct stall_iter it;
		struct diag d;
		uint64_t need = 16, i;
		size_t have, got;
		bool eof;
		int orc;

		for (;;) {	/* header, CPU table: as much as the header says */
			if ((err = reader_fill(&rd, need, &have))) {
				fprintf(stderr, "i915-stalls: %s: %s\n", name, strerror(-err));
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
				bad_input(name, &d);
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
		rd.pos += f->hdr.records_offset;
		f->buf = NULL;	/* nothing stays in memory */
		f->index = (int)L->nfiles;
		L->files = xreallocarray(L->files, L->nfiles + 1, sizeof(*L->files));
		L->files[L->nfiles++] = f;
		R->files = L->files;
		R->nfiles = L->nfiles;
		out_stream_input(o, f);
		stall_iter_init(&it, f);
		for (i = 0; i < f->hdr.record_count; i++) {
			struct stall st;

			if ((err = reader_fill(&rd, f->hdr.record_size, &got))) {
				fprintf(stderr, "i915-stalls: %s: %s\n", name, strerror(-err));
				goto out;
			}
			if (got < f->hdr.record_size) {
				stream_fail(name, base + f->hdr.records_offset + i * f->hdr.record_size + got,
					    "truncated in a record");
				goto out;
			}
			if (stall_iter_take(&it, rd.buf + rd.pos, &r, &d) < 0) {
				bad_input(name, &d);
				goto out;
			}
			rd.pos += f->hdr.record_size;
			if (!pass(F, r))
				continue;
			st.r = r;
			st.f = f;
			st.start_ns = r->start_ns;
			out_stream_stall(o, R, &st);
			(*shown)++;
		}
		base += f->end;
	}
out:
	out_stream_end(o);
	if (rd.fd != STDIN_FILENO)
		close(rd.fd);
	free(rd.buf);
	return rc;
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

static int load_all(struct loaded *L, char **names, size_t n, const struct filt *F,
		    struct run *R)
{
	size_t i;

	memset(R, 0, sizeof(*R));
	for (i = 0; i < n; i++)
		if (load_input(L, names[i], F, R))
			return -1;
	sort_stalls(R->st, R->n);
	R->files = L->files;
	R->nfiles = L->nfiles;
	return 0;
}

static void free_loaded(struct loaded *L)
{
	size_t i, j;

	for (i = 0; i < L->nfiles; i++) {
		stall_file_close(L->files[i]);
		free(L->files[i]);
	}
	free(L->files);
	for (i = 0; i < L->nin; i++) {
		if (L->in[i].ar) {
			for (j = 0; j < L->in[i].ar->nprocs; j++)
				proc_maps_free(&L->in[i].ar->procs[j]);
			free(L->in[i].ar->procs);
			free(L->in[i].ar->stalls);
			free((char *)L->in[i].ar->kallsyms);
			free(L->in[i].ar);
		}
		input_free(&L->in[i].data);
	}
	free(L->in);
	for (i = 0; i < L->ncopies; i++)
		free(L->copies[i]);
	free(L->copies);
	memset(L, 0, sizeof(*L));
}

/*
 * Every dri/N/i915_stalls, once: dri/N is a symlink to the device's own
 * directory, which the glob also finds, so keep one path per file.
 */
static char **default_inputs(size_t *n)
{
	static glob_t g;
	size_t i, j, kept = 0;

	if (glob("/sys/kernel/debug/dri/*/i915_stalls", 0, NULL, &g) || !g.gl_pathc) {
		*n = 0;
		return NULL;
	}
	for (i = 0; i < g.gl_pathc; i++) {
		struct stat st, prev;
		bool dup = false;

		if (stat(g.gl_pathv[i], &st) == 0) {
			for (j = 0; j < kept && !dup; j++)
				dup = stat(g.gl_pathv[j], &prev) == 0 &&
				      prev.st_dev == st.st_dev && prev.st_ino == st.st_ino;
		}
		if (!dup)
			g.gl_pathv[kept++] = g.gl_pathv[i];
	}
	*n = kept;
	return g.gl_pathv;
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(s, &end, 0);
	if (!*s || *end || errno || *s == '-')
		return false;
	*v = x;
	return true;
}

/* ---- record ---- */

static int cmd_record(struct loaded *L, struct run *R, const char *out_path, bool kallsyms)
{
	const unsigned char **bufs;
	size_t *sizes, nb = 0, i, j, k, np = 0;
	struct proc_maps *procs = NULL;
	struct { char *path; uint64_t inode; uint8_t id[64]; int len; } *ids = NULL;
	size_t nids = 0;
	unsigned char *ks = NULL;
	size_t kslen = 0;
	FILE *o;
	int rc = EXIT_OK;

	for (i = 0; i < L->nin; i++)
		if (L->in[i].ar) {
			fprintf(stderr, "i915-stalls: %s: already a record archive\n", L->in[i].name);
			return EXIT_FATAL;
		}
	bufs = xcalloc(L->nfiles, sizeof(*bufs));
	sizes = xcalloc(L->nfiles, sizeof(*sizes));
	for (i = 0; i < L->nfiles; i++) {
		bufs[nb] = L->files[i]->buf;
		sizes[nb++] = L->files[i]->end;
	}
	/* every process named by a record with a user stack */
	for (i = 0; i < R->n; i++) {
		uint32_t t = R->st[i].r->tgid;

		if (!R->st[i].r->ustack_depth)
			continue;
		for (j = 0; j < np && procs[j].tgid != t; j++)
			;
		if (j < np)
			continue;
		procs = xreallocarray(procs, np + 1, sizeof(*procs));
		{
			int err = maps_read_live(t, &procs[np]);

			if (err) {
				warnx_("/proc/%u/maps: %s: the user frames of process %u will "
				       "stay unresolved", t, strerror(-err), t);
				procs[np].gone = true;
			}
		}
		for (k = 0; k < procs[np].nmaps; k++) {
			struct pmap *m = &procs[np].maps[k];
			size_t q;

			if (!m->path || m->path[0] != '/')
				continue;
			for (q = 0; q < nids && (strcmp(ids[q].path, m->path) || ids[q].inode != m->inode); q++)
				;
			if (q == nids) {
				char *mf = xasprintf("/proc/%u/map_files/%" PRIx64 "-%" PRIx64, t,
						     m->start, m->end);

				ids = xreallocarray(ids, nids + 1, sizeof(*ids));
				ids[nids].path = m->path;
				ids[nids].inode = m->inode;
				/* the mapped file itself if we may, else its path */
				ids[nids].len = elf_build_id_file(mf, ids[nids].id, sizeof(ids[nids].id));
				if (ids[nids].len <= 0)
					ids[nids].len = elf_build_id_file(m->path, ids[nids].id,
									  sizeof(ids[nids].id));
				if (ids[nids].len < 0)
					ids[nids].len = 0;
				free(mf);
				nids++;
			}
			if (ids[q].len > 0 && ids[q].len <= 32) {
				memcpy(m->build_id, ids[q].id, (size_t)ids[q].len);
				m->build_id_len = (uint8_t)ids[q].len;
			}
		}
		np++;
	}
	if (kallsyms) {
		unsigned char *buf;
		size_t size;

		if (!read_all("/proc/kallsyms", &buf, &size)) {
			/* keep text symbols with a non-zero address */
			char *p = (char *)xrealloc(buf, size + 1), *line = p;

			p[size] = 0;
			ks = xmalloc(size + 1);
			while (line && *line) {
				char *nl = strchr(line, '\n');
				size_t len = nl ? (size_t)(nl - line) + 1 : strlen(line);

				if (len > 19 && line[16] == ' ' && strchr("tTwW", line[17]) &&
				    strspn(line, "0") < 16) {
					memcpy(ks + kslen, line, len);
					kslen += len;
				}
				line = nl ? nl + 1 : NULL;
			}
			free(p);
			if (!kslen)
				warnx_("/proc/kallsyms: addresses hidden (kptr_restrict): not saved; "
				       "run as root to save kernel symbols");
		} else {
			warnx_("/proc/kallsyms: unreadable, not saved");
		}
	}
	o = strcmp(out_path, "-") ? fopen(out_path, "wb") : stdout;
	if (!o) {
		fprintf(stderr, "i915-stalls: %s: %s\n", out_path, strerror(errno));
		rc = EXIT_FATAL;
	} else {
		bool to_stdout = o == stdout;

		if (archive_write(o, bufs, sizes, nb, procs, np, kslen ? (char *)ks : NULL, kslen) ||
		    (to_stdout ? fflush(o) : fclose(o))) {
			fprintf(stderr, "i915-stalls: %s: write error\n", out_path);
			rc = EXIT_FATAL;
		}
		if (!rc)
			infox("%s: %zu stall files, %zu processes, %zu bytes of kallsyms", out_path,
			      nb, np, kslen);
	}
	for (i = 0; i < np; i++)
		proc_maps_free(&procs[i]);
	free(procs);
	free(ids);
	free(ks);
	free(bufs);
	free(sizes);
	return rc;
}

int main(int argc, char **argv)
{
	enum { C_REPORT, C_SUMMARY, C_DIFF, C_RECORD } cmd = C_REPORT;
	bool cmd_given = false;
	enum { F_TEXT, F_JSON, F_FOLDED, F_SVG } fmt = F_TEXT;
	struct ksym_opts ko = { .live = true };
	struct usym_opts uo = { .live = true };
	struct filt F = { 0 };
	struct run R = { 0 }, R2 = { 0 };
	struct loaded L = { 0 }, L2 = { 0 };
	const char *out_path = NULL;
	char **inputs = NULL;
	size_t ninputs = 0;
	double threshold = -1;
	enum metric metric = M_TOTAL;
	int weight = W_TIME, root = ROOT_TID;
	size_t top = 20;
	bool save_kallsyms = true, stream = false;
	FILE *out = stdout;
	int c, rc = EXIT_OK;
	uint64_t v;

	if (argc > 1) {
		if (!strcmp(argv[1], "report"))
			cmd = C_REPORT;
		else if (!strcmp(argv[1], "summary"))
			cmd = C_SUMMARY;
		else if (!strcmp(argv[1], "diff"))
			cmd = C_DIFF;
		else if (!strcmp(argv[1], "record"))
			cmd = C_RECORD;
		else
			goto noshift;
		cmd_given = true;
		argv[1] = argv[0];
		argv++;
		argc--;
	}
noshift:
	while ((c = getopt_long(argc, argv, "i:F:jo:k:m:vqhV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			inputs = xreallocarray(inputs, ninputs + 1, sizeof(*inputs));
			inputs[ninputs++] = optarg;
			break;
		case 'F':
			if (!strcmp(optarg, "text")) fmt = F_TEXT;
			else if (!strcmp(optarg, "json")) fmt = F_JSON;
			else if (!strcmp(optarg, "folded")) fmt = F_FOLDED;
			else if (!strcmp(optarg, "svg")) fmt = F_SVG;
			else goto usage_bad;
			break;
		case 'j': fmt = F_JSON; break;
		case 'o': out_path = optarg; break;
		case 'k': ko.vmlinux = optarg; break;
		case 'm': ko.module = optarg; break;
		case O_KALLSYMS: ko.kallsyms = optarg; break;
		case O_SYMFS: uo.symfs = optarg; break;
		case O_OFFLINE: ko.live = uo.live = false; break;
		case O_PID:
		case O_TID:
			if (!parse_u64(optarg, &v) || v > UINT32_MAX)
				goto usage_bad;
			if (c == O_PID) {
				F.pids = xreallocarray(F.pids, F.npids + 1, sizeof(*F.pids));
				F.pids[F.npids++] = (uint32_t)v;
			} else {
				F.tids = xreallocarray(F.tids, F.ntids + 1, sizeof(*F.tids));
				F.tids[F.ntids++] = (uint32_t)v;
			}
			break;
		case O_COMM:
			F.comms = xreallocarray(F.comms, F.ncomms + 1, sizeof(*F.comms));
			F.comms[F.ncomms++] = optarg;
			break;
		case O_SITE: {
			int s = site_parse(optarg);

			if (s < 0)
				goto usage_bad;
			F.sites = xreallocarray(F.sites, F.nsites + 1, sizeof(*F.sites));
			F.sites[F.nsites++] = s;
			break;
		}
		case O_MINUS:
			if (!parse_u64(optarg, &v) || v > UINT64_MAX / 1000)
				goto usage_bad;
			F.min_ns = v * 1000;
			break;
		case O_WEIGHT:
			if (!strcmp(optarg, "time")) weight = W_TIME;
			else if (!strcmp(optarg, "count")) weight = W_COUNT;
			else goto usage_bad;
			break;
		case O_ROOT:
			if (!strcmp(optarg, "tid")) root = ROOT_TID;
			else if (!strcmp(optarg, "pid")) root = ROOT_PID;
			else if (!strcmp(optarg, "comm")) root = ROOT_COMM;
			else goto usage_bad;
			break;
		case O_TOP:
			if (!parse_u64(optarg, &v) || !v)
				goto usage_bad;
			top = (size_t)v;
			break;
		case O_THRESHOLD: {
			char *end;

			threshold = strtod(optarg, &end);
			if (*end == '%')
				end++;
			if (end == optarg || *end || !(threshold >= 0))
				goto usage_bad;
			break;
		}
		case O_METRIC:
			if (!strcmp(optarg, "total")) metric = M_TOTAL;
			else if (!strcmp(optarg, "p99")) metric = M_P99;
			else if (!strcmp(optarg, "count")) metric = M_COUNT;
			else goto usage_bad;
			break;
		case O_NOKALLSYMS: save_kallsyms = false; break;
		case O_LINES: uo.lines = ko.lines = true; break;
		case O_STREAM: stream = true; break;
		case O_NODEMANGLE: uo.no_demangle = true; break;
		case 'v': verbose++; break;
		case 'q': quiet = true; break;
		case 'h':
			fputs(usage_text, stdout);
			return EXIT_OK;
		case 'V':
			printf("i915-stalls %s (stall format %u.%u, archive format 1.0)\n", VERSION,
			       I915_STALL_VERSION_MAJOR, I915_STALL_VERSION_MINOR);
			return EXIT_OK;
		default:
			goto usage;
		}
	}
	if (!cmd_given && optind < argc) {
		/* the command may also follow options, as in "-F json summary" */
		static const char *const names[] = { "report", "summary", "diff", "record" };
		int k;

		for (k = 0; k < 4; k++)
			if (!strcmp(argv[optind], names[k])) {
				cmd = k;
				optind++;
				break;
			}
	}
	for (; optind < argc; optind++) {
		inputs = xreallocarray(inputs, ninputs + 1, sizeof(*inputs));
		inputs[ninputs++] = argv[optind];
	}
	elf_version(EV_CURRENT);
	ksym_init(&ko);
	usym_init(&uo);

	if (cmd == C_DIFF) {
		double growth = 0;
		bool bisect = threshold >= 0;

		if (ninputs != 2) {
			fprintf(stderr, "i915-stalls: diff needs OLD and NEW\n");
			free(inputs);
			return bisect ? EXIT_BISECT_ABORT : EXIT_USAGE;
		}
		R.weight = R2.weight = W_TIME;
		R.top = R2.top = top;
		if (load_all(&L, &inputs[0], 1, &F, &R)) {
			rc = bisect ? EXIT_BISECT_ABORT : EXIT_FATAL;
			goto done;
		}
		if (load_all(&L2, &inputs[1], 1, &F, &R2)) {
			rc = bisect ? EXIT_BISECT_SKIP : EXIT_FATAL;
			goto done;
		}
		if (out_path && !(out = fopen(out_path, "w"))) {
			fprintf(stderr, "i915-stalls: %s: %s\n", out_path, strerror(errno));
			rc = bisect ? EXIT_BISECT_ABORT : EXIT_FATAL;
			goto done;
		}
		warn_loss(&R);
		warn_loss(&R2);
		out_diff(out, &R, &R2, fmt == F_JSON, metric, &growth);
		if (bisect) {
			if (!R2.n) {
				warnx_("%s: no stalls: cannot judge (skip)", inputs[1]);
				rc = EXIT_BISECT_SKIP;
			} else {
				rc = growth > threshold ? 1 : 0;
				infox("growth %.2f%% %s threshold %.2f%%", growth,
				      rc ? ">" : "<=", threshold);
			}
		}
		goto done;
	}

	if (!ninputs) {
		char **d = default_inputs(&ninputs);

		if (!ninputs) {
			fprintf(stderr, "i915-stalls: no /sys/kernel/debug/dri/*/i915_stalls "
				"(debugfs not mounted, not root, or a kernel without "
				"CONFIG_DRM_I915_DEBUG_STALL); give a FILE\n");
			return EXIT_FATAL;
		}
		inputs = xreallocarray(inputs, ninputs, sizeof(*inputs));
		memcpy(inputs, d, ninputs * sizeof(*inputs));
	}
	if (stream) {
		size_t shown = 0, k;

		if (cmd != C_REPORT || fmt != F_TEXT) {
			fprintf(stderr, "i915-stalls: --stream is for the text report\n");
			free(inputs);
			return EXIT_USAGE;
		}
		if (out_path && !(out = fopen(out_path, "w"))) {
			fprintf(stderr, "i915-stalls: %s: %s\n", out_path, strerror(errno));
			rc = EXIT_FATAL;
			goto done;
		}
		R.weight = weight;
		R.top = top;
		for (k = 0; k < ninputs && !rc; k++)
			if (stream_input(&L, inputs[k], &F, &R, out, &shown))
				rc = EXIT_FATAL;
		fprintf(out, "# %zu stalls shown\n", shown);
		if (!rc && R.unresolved)
			rc = EXIT_PARTIAL;
		goto done;
	}
	if (load_all(&L, inputs, ninputs, &F, &R)) {
		rc = EXIT_FATAL;
		goto done;
	}
	R.weight = weight;
	R.root = root;
	R.top = top;

	if (cmd == C_RECORD) {
		rc = cmd_record(&L, &R, out_path ? out_path : "i915-stalls.data", save_kallsyms);
		goto done;
	}
	if (out_path && !(out = fopen(out_path, "w"))) {
		fprintf(stderr, "i915-stalls: %s: %s\n", out_path, strerror(errno));
		rc = EXIT_FATAL;
		goto done;
	}
	if (fmt != F_TEXT)
		warn_loss(&R);	/* text shows it in the output itself */
	switch (fmt) {
	case F_TEXT:
		if (cmd == C_SUMMARY)
			out_summary_text(out, &R);
		else
			out_report_text(out, &R);
		break;
	case F_JSON:
		out_json(out, &R, cmd == C_REPORT, cmd == C_SUMMARY);
		break;
	case F_FOLDED:
		out_folded(out, &R);
		break;
	case F_SVG:
		out_svg(out, &R, "i915 stalls");
		break;
	}
	if (R.unresolved) {
		infox("%lu frames unresolved", R.unresolved);
		rc = EXIT_PARTIAL;
	}
done:
	/* ferror(): large writes bypass the stream's buffer */
	if (out != stdout && (ferror(out) | fclose(out)) && !rc)
		rc = EXIT_FATAL;
	else if (out == stdout && (ferror(stdout) || fflush(stdout)) && !rc)
		rc = EXIT_FATAL;
	out_cleanup();
	ksym_cleanup();
	usym_cleanup();
	free(R.st);
	free(R2.st);
	free_loaded(&L);
	free_loaded(&L2);
	free(inputs);
	free(F.pids);
	free(F.tids);
	free(F.comms);
	free(F.sites);
	return rc;

usage_bad:
	fprintf(stderr, "i915-stalls: invalid value '%s'\n", optarg);
usage:
	fprintf(stderr, "Try 'i915-stalls --help'.\n");
	free(inputs);
	return cmd == C_DIFF && threshold >= 0 ? EXIT_BISECT_ABORT : EXIT_USAGE;
}
