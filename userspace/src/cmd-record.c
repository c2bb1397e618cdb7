// SPDX-License-Identifier: MIT
/*
 * i915-stalls record: the stall files, the maps of the processes they name
 * with the build-id of every ELF file mapped, the vDSO image and the
 * kernel's text symbols, in one archive (docs/archive-format.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "options.h"

struct rec_ctx {
	struct proc_maps *procs;
	size_t np;
	struct { char *path; uint64_t dev, inode; uint8_t id[BUILD_ID_MAX]; int len; } *ids;
	size_t nids;
	unsigned char *vdso;
	size_t vdso_len;
};

/*
 * The build-id of a mapped file.  /proc/PID/map_files gives the very file
 * mapped; without it (no CAP_SYS_ADMIN), the path only if it still names
 * the mapped inode, and never for a deleted file (its path now names
 * nothing, or the file that replaced it).  0: unknown.
 */
static int mapped_build_id(uint32_t tgid, const struct pmap *m, uint8_t *id)
{
	char *mf = xasprintf("/proc/%u/map_files/%llx-%llx", tgid, (unsigned long long)m->start,
			     (unsigned long long)m->end);
	struct stat st;
	int n = elf_build_id_file(mf, id, BUILD_ID_MAX);

	free(mf);
	if (n >= 0)
		return n;
	if (m->deleted) {
		infox("%s: deleted, and /proc/%u/map_files unreadable: build-id not recorded",
		      m->path, tgid);
		return 0;
	}
	if (stat(m->path, &st) || st.st_ino != m->inode || major(st.st_dev) != (m->dev >> 32) ||
	    minor(st.st_dev) != (m->dev & 0xffffffff)) {
		infox("%s: not the file process %u mapped, build-id not recorded", m->path, tgid);
		return 0;
	}
	n = elf_build_id_file(m->path, id, BUILD_ID_MAX);
	return n > 0 ? n : 0;
}

/* The [vdso] of a process: its image (saved once) and build-id. */
static void record_vdso(struct rec_ctx *c, uint32_t tgid, struct pmap *m)
{
	size_t len = m->end - m->start;
	unsigned char *buf;
	char path[64];
	uint8_t id[BUILD_ID_MAX];
	int fd, n;

	if (len > (1u << 20))
		return;
	snprintf(path, sizeof(path), "/proc/%u/mem", tgid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	buf = xmalloc(len);
	if (pread(fd, buf, len, (off_t)m->start) == (ssize_t)len &&
	    (n = elf_build_id_mem(buf, len, id, sizeof(id))) > 0) {
		memcpy(m->build_id, id, (size_t)n);
		m->build_id_len = (uint8_t)n;
		if (!c->vdso) {
			c->vdso = buf;
			c->vdso_len = len;
			buf = NULL;
		}
	}
	free(buf);
	close(fd);
}

static int rec_one(void *ctx, const struct stall *s, const struct srec *r)
{
	struct rec_ctx *c = ctx;
	struct proc_maps *pm;
	size_t j, k, q;
	int err;

	(void)s;
	if (!r->udepth)
		return 0;
	for (j = 0; j < c->np && c->procs[j].tgid != r->tgid; j++)
		;
	if (j < c->np)
		return 0;
	c->procs = xreallocarray(c->procs, c->np + 1, sizeof(*c->procs));
	pm = &c->procs[c->np++];
	err = maps_read_live(r->tgid, pm);
	if (err) {
		warnx_("/proc/%u/maps: %s: the user frames of process %u will stay unresolved",
		       r->tgid, strerror(-err), r->tgid);
		pm->gone = true;
		return 0;
	}
	for (k = 0; k < pm->nmaps; k++) {
		struct pmap *m = &pm->maps[k];

		if (m->path && !strcmp(m->path, "[vdso]")) {
			record_vdso(c, r->tgid, m);
			continue;
		}
		if (!m->path || m->path[0] != '/')
			continue;
		for (q = 0; q < c->nids && (strcmp(c->ids[q].path, m->path) ||
					     c->ids[q].inode != m->inode || c->ids[q].dev != m->dev);
		     q++)
			;
		if (q == c->nids) {
			c->ids = xreallocarray(c->ids, c->nids + 1, sizeof(*c->ids));
			c->ids[q].path = m->path;
			c->ids[q].dev = m->dev;
			c->ids[q].inode = m->inode;
			c->ids[q].len = mapped_build_id(r->tgid, m, c->ids[q].id);
			c->nids++;
		}
		if (c->ids[q].len > 0) {
			memcpy(m->build_id, c->ids[q].id, (size_t)c->ids[q].len);
			m->build_id_len = (uint8_t)c->ids[q].len;
		}
	}
	return 0;
}

/*
 * 1.4: the processes of the submit records too, for those without maps of
 * their own (the kernel could not take the mmap lock).  They were checked
 * when the session opened the files (join_build()).
 */
static int record_submitters(const struct session *S, struct rec_ctx *c)
{
	size_t i;

	for (i = 0; i < S->nfiles; i++) {
		struct stall_iter it;
		const unsigned char *raw;
		struct srec r;
		struct diag d;
		int rc;

		submit_iter_init(&it, S->files[i]);
		while ((rc = stall_iter_next(&it, &raw, &r, &d)) > 0)
			rec_one(c, NULL, &r);
		if (rc < 0)
			return diag_print(S->files[i]->name, &d);
	}
	return 0;
}

/* /proc/kallsyms' text symbols with a non-zero address. */
static char *read_kallsyms(size_t *len)
{
	unsigned char *buf;
	char *p, *line, *ks;
	size_t size, kl = 0;

	*len = 0;
	if (read_all("/proc/kallsyms", &buf, &size)) {
		warnx_("/proc/kallsyms: unreadable, not saved");
		return NULL;
	}
	p = (char *)buf;
	ks = xmalloc(size + 1);
	for (line = p; line && *line;) {
		char *nl = strchr(line, '\n');
		size_t l = nl ? (size_t)(nl - line) + 1 : strlen(line);

		if (l > 19 && line[16] == ' ' && strchr("tTwW", line[17]) && strspn(line, "0") < 16) {
			memcpy(ks + kl, line, l);
			kl += l;
		}
		line = nl ? nl + 1 : NULL;
	}
	free(buf);
	if (!kl) {
		warnx_("/proc/kallsyms: addresses hidden (kptr_restrict): not saved; "
		       "run as root to save kernel symbols");
		free(ks);
		return NULL;
	}
	*len = kl;
	return ks;
}

int cmd_record(struct opts *o)
{
	const char *path = o->out_path ? o->out_path : "i915-stalls.data";
	struct rec_ctx c = { 0 };
	struct archive_in in = { 0 };
	const unsigned char **bufs;
	struct session S;
	size_t *sizes, i;
	char *ks = NULL;
	FILE *f;
	int rc = EXIT_OK, err;

	if (!o->ninputs && (rc = opts_default_inputs(o)))
		return rc;
	if (session_open(&S, o->inputs, o->ninputs)) {
		session_close(&S);
		return EXIT_FATAL;
	}
	for (i = 0; i < S.nin; i++)
		if (S.in[i].ar) {
			errx_("%s: already a record archive", S.in[i].name);
			session_close(&S);
			return EXIT_FATAL;
		}
	/* every process named by a record with a user stack */
	if (session_each(&S, &o->F, rec_one, NULL, &c) || record_submitters(&S, &c)) {
		rc = EXIT_FATAL;
		goto done;
	}
	bufs = xcalloc(S.nfiles, sizeof(*bufs));
	sizes = xcalloc(S.nfiles, sizeof(*sizes));
	for (i = 0; i < S.nfiles; i++) {
		bufs[i] = S.files[i]->buf;
		sizes[i] = S.files[i]->end;
	}
	in.stalls = bufs;
	in.stall_sizes = sizes;
	in.nstalls = S.nfiles;
	in.procs = c.procs;
	in.nprocs = c.np;
	if (o->save_kallsyms)
		ks = read_kallsyms(&in.kallsyms_len);
	in.kallsyms = ks;
	in.vdso = c.vdso;
	in.vdso_len = c.vdso_len;
	f = strcmp(path, "-") ? fopen(path, "wb") : stdout;
	if (!f) {
		errx_("%s: %s", path, strerror(errno));
		rc = EXIT_FATAL;
	} else {
		err = archive_write(f, &in);
		if (!err && (f == stdout ? fflush(f) : 0))
			err = -errno;
		if (f != stdout && fclose(f) && !err)
			err = -(errno ? errno : EIO);
		if (err) {
			errx_("%s: write error: %s", path, strerror(-err));
			rc = EXIT_FATAL;
		} else {
			infox("%s: %zu stall files, %zu processes, %zu bytes of kallsyms", path,
			      in.nstalls, in.nprocs, in.kallsyms_len);
		}
	}
	free(bufs);
	free(sizes);
done:
	for (i = 0; i < c.np; i++)
		proc_maps_free(&c.procs[i]);
	free(c.procs);
	free(c.ids);
	free(c.vdso);
	free(ks);
	session_close(&S);
	return rc;
}
