// SPDX-License-Identifier: MIT
/*
 * User symbols: map an address through /proc/PID/maps (live, or saved in a
 * record archive) to a file offset, through the file's PT_LOAD segments to
 * an ELF virtual address, then to a symbol of .symtab (the file's own, a
 * separate debug file found by build-id or .gnu_debuglink, or the
 * MiniDebugInfo in .gnu_debugdata) or else .dynsym.
 */
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "stalls.h"

struct elfobj {
	char *path;		/* as mapped */
	uint64_t inode;		/* live maps: the mapped file's inode */
	uint32_t live_pid;	/* live maps: a process mapping it */
	uint64_t start, end;	/* ... at this range (for map_files) */
	uint8_t want_id[64];
	size_t want_len;
	char *file;		/* main file opened, NULL if none found */
	char *debug;		/* debug file used, if any */
	const char *reason;	/* when unusable */
	GElf_Phdr *loads;
	size_t nloads;
	struct symtab syms;
	const char *mismatch;	/* why a candidate was refused */
	char *dwarf_file;	/* file with .debug_info, for --lines */
	Dwarf *dw;
	int dwfd;
	bool dw_tried;
};

struct proc {
	uint32_t tgid;
	const struct archive *ar;
	struct proc_maps pm;
	bool have;		/* pm valid */
	bool owned;		/* pm read live (free it) */
	const char *reason;
	uint64_t start_boot_ns;	/* live: process start, CLOCK_BOOTTIME */
};

/* libstdc++'s demangler (the C++ ABI), as eu-stack and perf use */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

static struct {
	struct usym_opts o;
	struct { const char *raw; char *nice; } *dm;	/* demangle cache */
	size_t ndm, dmcap;
	struct elfobj **objs;	/* stable pointers: maps cache them */
	size_t nobjs;
	struct proc *procs;
	size_t nprocs;
	struct archive **ars;
	size_t nars;
	int live_ok;		/* -1 unknown, 0 no, 1 yes */
	size_t last;		/* get_proc()'s last hit */
	int64_t boot_minus_mono;
} U = { .live_ok = -1 };

void usym_init(const struct usym_opts *o)
{
	U.o = *o;
}

void usym_add_archive(struct archive *ar)
{
	U.ars = xreallocarray(U.ars, U.nars + 1, sizeof(*U.ars));
	U.ars[U.nars++] = ar;
}

char *build_id_hex(const uint8_t *id, size_t len)
{
	char *s = xmalloc(len * 2 + 1);
	size_t i;

	for (i = 0; i < len; i++)
		sprintf(s + 2 * i, "%02x", id[i]);
	s[len * 2] = 0;
	return s;
}

static size_t elf_build_id(Elf *elf, uint8_t *id, size_t max)
{
	const void *p;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &p);

	if (n <= 0 || (size_t)n > max)
		return 0;
	memcpy(id, p, (size_t)n);
	return (size_t)n;
}

int elf_build_id_file(const char *path, uint8_t *id, size_t max)
{
	int fd = -1, n = 0;
	Elf *elf = elf_open(path, &fd);

	if (!elf)
		return -1;
	n = (int)elf_build_id(elf, id, max);
	elf_close(elf, fd);
	return n;
}

static bool same_id(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	return al == bl && !memcmp(a, b, al);
}

static char *rooted(const char *p)
{
	return xasprintf("%s%s", U.o.symfs ? U.o.symfs : "", p);
}

static char *build_id_path(const uint8_t *id, size_t len, const char *suffix)
{
	char *hex = build_id_hex(id, len), *p;

	p = xasprintf("%s/usr/lib/debug/.build-id/%.2s/%s%s", U.o.symfs ? U.o.symfs : "", hex,
		      hex + 2, suffix);
	free(hex);
	return p;
}

static bool has_section(Elf *elf, uint32_t type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type && sh.sh_size)
			return true;
	return false;
}

static Elf_Scn *find_section(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstr;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstr))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (gelf_getshdr(scn, &sh) && (n = elf_strptr(elf, shstr, sh.sh_name)) &&
		    !strcmp(n, name))
			return scn;
	}
	return NULL;
}

static void read_loads(Elf *elf, struct elfobj *o)
{
	size_t n, i;

	if (elf_getphdrnum(elf, &n))
		return;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		o->loads = xreallocarray(o->loads, o->nloads + 1, sizeof(*o->loads));
		o->loads[o->nloads++] = ph;
	}
}

static bool crc_matches(const char *path, uint32_t want)
{
	unsigned char *buf;
	size_t size, done = 0;
	uLong crc = crc32(0, Z_NULL, 0);

	if (read_all(path, &buf, &size))
		return false;
	while (done < size) {
		uInt chunk = size - done > (1u << 30) ? (1u << 30) : (uInt)(size - done);

		crc = crc32(crc, buf + done, chunk);
		done += chunk;
	}
	free(buf);
	return (uint32_t)crc == want;
}

/* Open a debug file with a .symtab whose build-id matches (if we know one). */
static Elf *open_debug(const char *path, const uint8_t *id, size_t len, int *fd)
{
	uint8_t got[64];
	Elf *e = elf_open(path, fd);

	if (!e)
		return NULL;
	if (len && !same_id(got, elf_build_id(e, got, sizeof(got)), id, len)) {
		infox("%s: build-id does not match, ignored", path);
		elf_close(e, *fd);
		return NULL;
	}
	return e;
}

/* MiniDebugInfo: .gnu_debugdata is an xz-compressed ELF with a .symtab. */
static int load_minidebug(Elf *elf, struct elfobj *o)
{
	Elf_Scn *scn = find_section(elf, ".gnu_debugdata");
	Elf_Data *d;
	uint8_t *out = NULL;
	size_t cap = 1 << 20, inpos = 0, outpos = 0;
	uint64_t memlimit = UINT64_MAX;
	lzma_ret ret;
	Elf *mini;
	int rc = -1;

	if (!scn || !(d = elf_rawdata(scn, NULL)) || !d->d_size)
		return -1;
	for (;;) {
		out = xrealloc(out, cap);
		inpos = outpos = 0;
		ret = lzma_stream_buffer_decode(&memlimit, 0, NULL, d->d_buf, &inpos, d->d_size,
						out, &outpos, cap);
		if (ret != LZMA_BUF_ERROR || cap >= (1u << 30))
			break;
		cap *= 4;
	}
	if (ret != LZMA_OK) {
		infox("%s: .gnu_debugdata: xz decode failed (%d)", o->path, (int)ret);
		free(out);
		return -1;
	}
	mini = elf_memory((char *)out, outpos);
	if (mini && elf_kind(mini) == ELF_K_ELF && !elf_syms(mini, SHT_SYMTAB, -1, NULL, &o->syms))
		rc = 0;
	if (mini)
		elf_end(mini);	/* names were copied */
	free(out);
	return rc;
}

static void load_obj(struct elfobj *o)
{
	char *cands[6];
	size_t nc = 0, i;
	Elf *elf = NULL, *dbg = NULL;
	int fd = -1, dfd = -1;
	uint8_t id[64];
	size_t idlen = 0;

	if (U.o.symfs)
		cands[nc++] = rooted(o->path);
	if (o->want_len)
		cands[nc++] = build_id_path(o->want_id, o->want_len, "");
	if (o->live_pid) {
		/* the very file mapped, even if deleted or in another mount
		 * namespace (needs CAP_SYS_ADMIN) */
		cands[nc++] = xasprintf("/proc/%u/map_files/%" PRIx64 "-%" PRIx64, o->live_pid,
					o->start, o->end);
		cands[nc++] = xasprintf("/proc/%u/root%s", o->live_pid, o->path);
	}
	cands[nc++] = xstrdup(o->path);	/* last: verified by build-id or inode */
	for (i = 0; i < nc && !elf; i++) {
		struct stat st;

		elf = elf_open(cands[i], &fd);
		if (!elf)
			continue;
		if (o->inode && (fstat(fd, &st) || st.st_ino != o->inode)) {
			infox("%s: not the mapped file (inode differs), ignored", cands[i]);
			o->mismatch = "file changed";
			elf_close(elf, fd);
			elf = NULL;
			fd = -1;
			continue;
		}
		idlen = elf_build_id(elf, id, sizeof(id));
		if (o->want_len && !same_id(id, idlen, o->want_id, o->want_len)) {
			infox("%s: build-id differs from the recorded one, ignored", cands[i]);
			o->mismatch = "build-id mismatch";
			elf_close(elf, fd);
			elf = NULL;
			fd = -1;
			continue;
		}
		o->file = xstrdup(cands[i]);
	}
	for (i = 0; i < nc; i++)
		free(cands[i]);
	if (!elf) {
		idlen = o->want_len;
		memcpy(id, o->want_id, idlen);
	}

	/* Full symbols in the file itself? */
	if (elf && has_section(elf, SHT_SYMTAB) &&
	    !elf_syms(elf, SHT_SYMTAB, -1, NULL, &o->syms) && o->syms.n)
		goto done;

	/* Separate debug file: by build-id, then by .gnu_debuglink. */
	if (idlen) {
		char *p = build_id_path(id, idlen, ".debug");

		dbg = open_debug(p, id, idlen, &dfd);
		if (dbg)
			o->debug = p;
		else
			free(p);
	}
	if (!dbg && elf) {
		GElf_Word crc;
		const char *link = dwelf_elf_gnu_debuglink(elf, &crc);

		if (link && !strchr(link, '/')) {
			char *dir = xstrdup(o->path), *slash = strrchr(dir, '/');
			char *tries[3];

			if (slash)
				*slash = 0;
			tries[0] = xasprintf("%s%s/%s", U.o.symfs ? U.o.symfs : "", dir, link);
			tries[1] = xasprintf("%s%s/.debug/%s", U.o.symfs ? U.o.symfs : "", dir, link);
			tries[2] = xasprintf("%s/usr/lib/debug%s/%s", U.o.symfs ? U.o.symfs : "", dir, link);
			for (i = 0; i < 3; i++) {
				if (!dbg && access(tries[i], R_OK) == 0) {
					if (!crc_matches(tries[i], crc)) {
						warnx_("%s: .gnu_debuglink CRC mismatch, ignored", tries[i]);
						continue;
					}
					dbg = open_debug(tries[i], NULL, 0, &dfd);
					if (dbg) {
						o->debug = tries[i];
						tries[i] = NULL;
					}
				}
			}
			for (i = 0; i < 3; i++)
				free(tries[i]);
			free(dir);
		}
	}
	if (dbg && !elf_syms(dbg, SHT_SYMTAB, -1, NULL, &o->syms) && o->syms.n) {
		if (!elf)
			read_loads(dbg, o);	/* only the debug file: its phdrs */
		goto done;
	}
	if (!elf) {
		o->reason = o->mismatch ? o->mismatch : "no file";
		goto out;
	}
	/* .dynsym (+ MiniDebugInfo): sizeless entries only match exactly */
	load_minidebug(elf, o);
	if (!elf_syms(elf, SHT_DYNSYM, -1, NULL, &o->syms))
		o->syms.exact_sizeless = true;
done:
	if (elf && find_section(elf, ".debug_info"))
		o->dwarf_file = xstrdup(o->file);
	else if (dbg && find_section(dbg, ".debug_info"))
		o->dwarf_file = xstrdup(o->debug);
	if (elf)
		read_loads(elf, o);
	symtab_finish(&o->syms, false);
	if (!o->syms.n)
		o->reason = "stripped";
out:
	elf_close(dbg, dfd);
	elf_close(elf, fd);
	if (o->file || o->debug)
		infox("%s: %s%s%s, %zu symbols", o->path, o->file ? o->file : "(no file)",
		      o->debug ? ", debug " : "", o->debug ? o->debug : "", o->syms.n);
}

/* --lines: the source line of va (the adjusted address) from DWARF */
static void src_line(struct elfobj *o, uint64_t va, struct frame *out)
{
	Dwarf_Die cu;
	Dwarf_Line *l;
	int line;

	if (!o->dw_tried) {
		o->dw_tried = true;
		o->dwfd = -1;
		if (o->dwarf_file) {
			o->dwfd = open(o->dwarf_file, O_RDONLY | O_CLOEXEC);
			if (o->dwfd >= 0)
				o->dw = dwarf_begin(o->dwfd, DWARF_C_READ);
			if (!o->dw)
				infox("%s: no usable DWARF: %s", o->dwarf_file, dwarf_errmsg(-1));
		}
	}
	if (!o->dw || !dwarf_addrdie(o->dw, va, &cu) || !(l = dwarf_getsrc_die(&cu, va)))
		return;
	if (dwarf_lineno(l, &line) || line <= 0)
		return;
	out->src = dwarf_linesrc(l, NULL, NULL);
	out->line = out->src ? line : 0;
}

/* Demangled C++ name, cached by the (stable) raw name pointer. */
static const char *demangle(const char *raw)
{
	size_t h, i;
	int status = -1;
	char *nice;

	if (U.o.no_demangle || raw[0] != '_' || raw[1] != 'Z')
		return raw;
	if ((U.ndm + 1) * 2 > U.dmcap) {
		size_t nc = U.dmcap ? U.dmcap * 2 : 256;
		__typeof__(U.dm) t = xcalloc(nc, sizeof(*t));

		for (i = 0; i < U.dmcap; i++)
			if (U.dm[i].raw) {
				h = ((uintptr_t)U.dm[i].raw >> 3) & (nc - 1);
				while (t[h].raw)
					h = (h + 1) & (nc - 1);
				t[h] = U.dm[i];
			}
		free(U.dm);
		U.dm = t;
		U.dmcap = nc;
	}
	h = ((uintptr_t)raw >> 3) & (U.dmcap - 1);
	while (U.dm[h].raw) {
		if (U.dm[h].raw == raw)
			return U.dm[h].nice ? U.dm[h].nice : raw;
		h = (h + 1) & (U.dmcap - 1);
	}
	nice = __cxa_demangle(raw, NULL, NULL, &status);
	if (status != 0) {
		free(nice);
		nice = NULL;
	}
	U.dm[h].raw = raw;
	U.dm[h].nice = nice;
	U.ndm++;
	return nice ? nice : raw;
}

static struct elfobj *get_obj(const struct pmap *m, uint32_t live_pid)
{
	struct elfobj *o;
	size_t i;

	for (i = 0; i < U.nobjs; i++)
		if (!strcmp(U.objs[i]->path, m->path) && U.objs[i]->inode == m->inode &&
		    same_id(U.objs[i]->want_id, U.objs[i]->want_len, m->build_id, m->build_id_len))
			return U.objs[i];
	U.objs = xreallocarray(U.objs, U.nobjs + 1, sizeof(*U.objs));
	o = U.objs[U.nobjs++] = xcalloc(1, sizeof(*o));
	o->path = xstrdup(m->path);
	memcpy(o->want_id, m->build_id, m->build_id_len);
	o->want_len = m->build_id_len;
	o->inode = m->inode;
	o->live_pid = live_pid;
	o->start = m->start;
	o->end = m->end;
	load_obj(o);
	return o;
}

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool live_allowed(const struct stall_file *f)
{
	struct utsname u;
	char rel[I915_STALL_RELEASE_LEN + 1];

	if (!U.o.live || f->ar)
		return false;
	fixstr(rel, f->hdr.release, I915_STALL_RELEASE_LEN);
	/* same kernel and a snapshot from this boot (not in the future) */
	if (uname(&u) || strcmp(u.release, rel) || f->hdr.snapshot_ns > now_ns(CLOCK_MONOTONIC))
		return false;
	return true;
}

static uint64_t proc_start_boot_ns(uint32_t tgid)
{
	char path[64];
	unsigned char *buf;
	size_t size;
	unsigned long long start = 0;
	char *p;
	int i;
	long hz = sysconf(_SC_CLK_TCK);

	snprintf(path, sizeof(path), "/proc/%u/stat", tgid);
	if (read_all(path, &buf, &size))
		return 0;
	buf = xrealloc(buf, size + 1);
	buf[size] = 0;
	p = strrchr((char *)buf, ')');	/* comm may hold spaces */
	for (i = 0; p && i < 20; i++)
		p = strchr(p + 1, ' ');
	if (p)
		start = strtoull(p + 1, NULL, 10);
	free(buf);
	return hz > 0 ? start * (1000000000ull / (uint64_t)hz) : 0;
}

static struct proc *get_proc(const struct stall_file *f, uint32_t tgid)
{
	struct proc *p;
	size_t i;

	if (U.last < U.nprocs && U.procs[U.last].tgid == tgid && U.procs[U.last].ar == f->ar)
		return &U.procs[U.last];
	for (i = 0; i < U.nprocs; i++)
		if (U.procs[i].tgid == tgid && U.procs[i].ar == f->ar) {
			U.last = i;
			return &U.procs[i];
		}
	U.procs = xreallocarray(U.procs, U.nprocs + 1, sizeof(*U.procs));
	p = &U.procs[U.nprocs++];
	memset(p, 0, sizeof(*p));
	p->tgid = tgid;
	p->ar = f->ar;
	if (f->ar) {
		for (i = 0; i < f->ar->nprocs; i++)
			if (f->ar->procs[i].tgid == tgid && !f->ar->procs[i].gone) {
				p->pm = f->ar->procs[i];
				p->have = true;
				return p;
			}
		p->reason = "process gone";
		return p;
	}
	if (!live_allowed(f)) {
		p->reason = "no maps";
		return p;
	}
	if (maps_read_live(tgid, &p->pm)) {
		p->reason = "process gone";
		return p;
	}
	p->have = p->owned = true;
	p->start_boot_ns = proc_start_boot_ns(tgid);
	if (!U.boot_minus_mono)
		U.boot_minus_mono = (int64_t)(now_ns(CLOCK_BOOTTIME) - now_ns(CLOCK_MONOTONIC));
	return p;
}

static struct pmap *find_map(const struct proc_maps *pm, uint64_t a)
{
	size_t lo = 0, hi = pm->nmaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pm->maps[mid].end <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < pm->nmaps && pm->maps[lo].start <= a ? &pm->maps[lo] : NULL;
}

/* Live maps only: was the pid reused since the record?  (Then the maps are
 * another process's.)  Otherwise a frame depends on f, tgid and address. */
bool usym_pid_reused(const struct stall_file *f, const struct i915_stall_record *r)
{
	const struct proc *p = get_proc(f, r->tgid);

	return p->have && p->owned && p->start_boot_ns &&
	       p->start_boot_ns > r->start_ns + (uint64_t)U.boot_minus_mono + 20000000ull;
}

void usym_resolve(const struct stall_file *f, const struct i915_stall_record *r,
		  unsigned int i, struct frame *out)
{
	uint64_t addr = r->ustack[i], a = addr - (i && addr ? 1 : 0), off, va = 0;
	struct pmap *m;
	struct elfobj *o;
	struct proc *p;
	const struct sym *s;
	bool have_va = false;
	size_t k;

	memset(out, 0, sizeof(*out));
	out->addr = addr;
	p = get_proc(f, r->tgid);
	if (!p->have) {
		out->reason = p->reason;
		return;
	}
	if (usym_pid_reused(f, r)) {
		out->reason = "pid reused";
		return;
	}
	m = find_map(&p->pm, a);
	if (!m) {
		out->reason = "no map";
		return;
	}
	if (!m->path || (m->path[0] == '[' && strcmp(m->path, "[vdso]"))) {
		out->reason = "anon";
		out->module = m->path;
		return;
	}
	if (!strcmp(m->path, "[vdso]")) {
		out->reason = "vdso";
		out->module = m->path;
		out->modoff = addr - m->start;
		out->has_modoff = true;
		return;
	}
	out->module = m->path;
	off = a - m->start + m->pgoff;
	o = m->obj;
	if (!o)
		o = m->obj = get_obj(m, p->owned ? p->tgid : 0);
	for (k = 0; k < o->nloads; k++) {
		const GElf_Phdr *ph = &o->loads[k];

		if (off >= ph->p_offset && off - ph->p_offset < ph->p_filesz) {
			va = off - ph->p_offset + ph->p_vaddr;
			have_va = true;
			break;
		}
	}
	out->has_modoff = true;
	out->modoff = (have_va ? va : off) + (addr - a);
	if (o->reason) {
		out->reason = o->reason;
		return;
	}
	if (!have_va) {
		out->reason = "no segment";
		return;
	}
	s = symtab_find(&o->syms, va);
	if (!s) {
		out->reason = "no symbol";
		return;
	}
	out->name = demangle(s->name);
	out->off = va - s->addr + (addr - a);
	if (U.o.lines)
		src_line(o, va, out);
}

void usym_cleanup(void)
{
	size_t i;

	for (i = 0; i < U.nobjs; i++) {
		free(U.objs[i]->path);
		free(U.objs[i]->file);
		free(U.objs[i]->debug);
		free(U.objs[i]->loads);
		free(U.objs[i]->dwarf_file);
		if (U.objs[i]->dw)
			dwarf_end(U.objs[i]->dw);
		if (U.objs[i]->dw_tried && U.objs[i]->dwfd >= 0)
			close(U.objs[i]->dwfd);
		symtab_free(&U.objs[i]->syms);
		free(U.objs[i]);
	}
	free(U.objs);
	for (i = 0; i < U.dmcap; i++)
		free(U.dm[i].nice);
	free(U.dm);
	for (i = 0; i < U.nprocs; i++)
		if (U.procs[i].owned)
			proc_maps_free(&U.procs[i].pm);
	free(U.procs);
	free(U.ars);
	memset(&U, 0, sizeof(U));
	U.live_ok = -1;
}
