// SPDX-License-Identifier: MIT
/*
 * Address spaces of the processes the records name: which maps a record's
 * user frames resolve in, and whether they may be trusted at all.
 *
 * Live maps (/proc/PID/maps) are used only for a stall file of this boot of
 * the running kernel, and only for stalls of the process that has the pid
 * now (not one started after the stall).  Archived maps are used as they
 * were recorded.  The files they name are found and checked by dwfl.c.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "archive.h"
#include "unwind.h"
#include "usym.h"

struct usym_opts usym_o;

/* A stall file's verdict on live maps, by file. */
struct live_verdict {
	const struct stall_file *f;
	enum reason reason;	/* R_NONE: live maps may be used */
};

static struct {
	struct aspace **t;	/* hash by (archive, tgid), open addressing */
	size_t n, cap;
	struct aspace **rt;	/* 1.2 records' own maps: hash by (tgid, maps) */
	size_t rn, rcap;
	struct aspace *rlast;	/* the last one rec_space() gave */
	struct live_verdict *lv;
	size_t nlv;
	struct aspace no_maps, other_boot, gone;	/* shared by every process */
	int64_t boot_minus_mono;
	bool have_boot_minus_mono;
	struct aspace *last;
} A;

void usym_init(const struct usym_opts *o)
{
	usym_o = *o;
	A.no_maps.reason = R_NO_MAPS;
	A.other_boot.reason = R_OTHER_BOOT;
	A.gone.reason = R_GONE;
	dwfl_layer_init();
	unwind_init();
}

static void space_free(struct aspace *as)
{
	size_t i;

	dwfl_space_close(as);
	for (i = 0; i < as->nmods; i++)
		free(as->mods[i].file);
	free(as->mods);
	free(as->map_mod);
	if (as->live_pid)
		proc_maps_free(&as->pm);
	if (as->reused)
		free(as->reused);
	if (as->rec_maps) {
		for (i = 0; i < as->pm.nmaps; i++)
			free(as->pm.maps[i].path);
		free(as->pm.maps);
		free(as->rec_maps);
	}
	free(as);
}

void usym_cleanup(void)
{
	size_t i;

	for (i = 0; i < A.cap; i++)
		if (A.t[i])
			space_free(A.t[i]);
	free(A.t);
	for (i = 0; i < A.rcap; i++)
		if (A.rt[i])
			space_free(A.rt[i]);
	free(A.rt);
	free(A.lv);
	unwind_end();
	dwfl_layer_end();
	memset(&A, 0, sizeof(A));
}

/* ---------------------------------------------------------------- live maps */

/* The address of symbol name in /proc/kallsyms, 0 if unknown or hidden. */
static uint64_t live_kallsyms_addr(const char *name)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512];
	uint64_t a = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *sp1 = strchr(line, ' '), *n;

		if (!sp1 || !sp1[1] || sp1[2] != ' ')
			continue;
		n = sp1 + 3;
		n[strcspn(n, "\t\n")] = 0;
		if (!strcmp(n, name) && strchr("tT", sp1[1])) {
			a = strtoull(line, NULL, 16);
			break;
		}
	}
	fclose(f);
	return a;
}

/*
 * May live maps be used for f's records?  Only if f was written by the
 * running kernel in this boot:
 *  - the same release;
 *  - a snapshot not in the future of this boot's CLOCK_MONOTONIC;
 *  - the same wall-clock time of boot (CLOCK_REALTIME - CLOCK_MONOTONIC):
 *    another boot started at least the earlier boot's uptime later.  A
 *    suspend or a clock step of more than a second since the snapshot looks
 *    the same, and is refused too (the hint says to use record);
 *  - with KASLR, the kernel anchor at the same address as in /proc/kallsyms.
 */
static enum reason live_verdict(const struct stall_file *f)
{
	const struct i915_stall_file_header *h = &f->hdr;
	char rel[I915_STALL_RELEASE_LEN + 1], anchor[I915_STALL_NAME_LEN + 1];
	struct utsname u;
	int64_t now_off, d;
	uint64_t a;

	if (!usym_o.live)
		return R_NO_MAPS;
	fixstr(rel, h->release, I915_STALL_RELEASE_LEN);
	if (uname(&u) || strcmp(u.release, rel))
		return R_NO_MAPS;
	if (h->snapshot_ns > now_ns(CLOCK_MONOTONIC))
		return R_OTHER_BOOT;
	now_off = (int64_t)(now_ns(CLOCK_REALTIME) - now_ns(CLOCK_MONOTONIC));
	/* realtime_offset_ns is the file's: any value, the difference checked */
	if (__builtin_sub_overflow(now_off, h->realtime_offset_ns, &d) ||
	    d < -1000000000 || d > 1000000000)
		return R_OTHER_BOOT;
	fixstr(anchor, h->kernel_anchor, I915_STALL_NAME_LEN);
	if (*anchor && h->kernel_anchor_addr) {
		a = live_kallsyms_addr(anchor);
		if (a && a != h->kernel_anchor_addr)
			return R_OTHER_BOOT;
	}
	return R_NONE;
}

static enum reason live_ok(const struct stall_file *f)
{
	size_t i;
	enum reason r;

	for (i = 0; i < A.nlv; i++)
		if (A.lv[i].f == f)
			return A.lv[i].reason;
	r = live_verdict(f);
	if (r == R_OTHER_BOOT)
		warnx_("%s: written in another boot (or the clock changed since): not using "
		       "the live maps of its processes; run 'i915-stalls record' while they "
		       "run", f->name);
	A.lv = xreallocarray(A.lv, A.nlv + 1, sizeof(*A.lv));
	A.lv[A.nlv].f = f;
	A.lv[A.nlv++].reason = r;
	return r;
}

static uint64_t proc_start_boot_ns(uint32_t tgid)
{
	char path[64], *p;
	unsigned char *buf;
	size_t size;
	unsigned long long start = 0;
	long hz = sysconf(_SC_CLK_TCK);
	int i;

	snprintf(path, sizeof(path), "/proc/%u/stat", tgid);
	if (read_all(path, &buf, &size))
		return 0;
	p = strrchr((char *)buf, ')');	/* comm may hold spaces */
	for (i = 0; p && i < 20; i++)
		p = strchr(p + 1, ' ');
	if (p)
		start = strtoull(p + 1, NULL, 10);
	free(buf);
	return hz > 0 ? start * (1000000000ull / (uint64_t)hz) : 0;
}

/* ---------------------------------------------------------------- modules */

static bool same_file(const struct pmap *a, const struct pmap *b)
{
	return a->path && b->path && !strcmp(a->path, b->path) && a->inode == b->inode &&
	       a->dev == b->dev && a->build_id_len == b->build_id_len &&
	       !memcmp(a->build_id, b->build_id, a->build_id_len);
}

/*
 * The file instances of a map set: a mapping at file offset 0 starts an
 * instance (the ELF header is mapped first); the later mappings of the
 * same file join the last instance of it.  A file mapped only from an
 * offset above 0 is an instance of its own.
 */
static void space_modules(struct aspace *as)
{
	struct proc_maps *pm = &as->pm;
	size_t i, k;

	as->map_mod = xcalloc(pm->nmaps, sizeof(*as->map_mod));
	for (i = 0; i < pm->nmaps; i++) {
		const struct pmap *m = &pm->maps[i];
		struct umod *u = NULL;

		if (!m->path || (!m->name_only && m->path[0] == '[' && strcmp(m->path, "[vdso]")))
			continue;
		if (m->pgoff) {
			for (k = as->nmods; k-- > 0;)
				if (same_file(as->mods[k].place, m)) {
					u = &as->mods[k];
					break;
				}
		}
		if (!u) {
			as->mods = xreallocarray(as->mods, as->nmods + 1, sizeof(*as->mods));
			u = &as->mods[as->nmods++];
			memset(u, 0, sizeof(*u));
			u->path = m->path;
			u->place = m;
			u->low = m->start;
			u->id = m->build_id_len ? m->build_id : NULL;
			u->idlen = m->build_id_len;
			u->dev = m->dev;
			u->inode = m->inode;
			u->deleted = m->deleted;
			u->name_only = m->name_only;
			u->vdso = !m->name_only && !strcmp(m->path, "[vdso]");
		}
		u->high = m->end;
		as->map_mod[i] = (uint32_t)(u - as->mods) + 1;
	}
	/* place pointers into pm stay valid: pm->maps is not reallocated */
}

/* ---------------------------------------------------------------- spaces */

static uint64_t space_hash(const struct archive *ar, uint32_t tgid)
{
	return hash_mix(hash_mix(0, (uintptr_t)ar), tgid);
}

static void space_insert(struct aspace *as)
{
	size_t i, h;

	if ((A.n + 1) * 2 > A.cap) {
		size_t nc = A.cap ? A.cap * 2 : 64;
		struct aspace **t = xcalloc(nc, sizeof(*t));

		for (i = 0; i < A.cap; i++)
			if (A.t[i]) {
				for (h = space_hash(A.t[i]->ar, A.t[i]->tgid) & (nc - 1); t[h];
				     h = (h + 1) & (nc - 1))
					;
				t[h] = A.t[i];
			}
		free(A.t);
		A.t = t;
		A.cap = nc;
	}
	for (h = space_hash(as->ar, as->tgid) & (A.cap - 1); A.t[h]; h = (h + 1) & (A.cap - 1))
		;
	A.t[h] = as;
	A.n++;
}

static struct aspace *space_lookup(const struct archive *ar, uint32_t tgid)
{
	size_t h;

	if (!A.cap)
		return NULL;
	for (h = space_hash(ar, tgid) & (A.cap - 1); A.t[h]; h = (h + 1) & (A.cap - 1))
		if (A.t[h]->ar == ar && A.t[h]->tgid == tgid)
			return A.t[h];
	return NULL;
}

static struct aspace *space_new(const struct archive *ar, uint32_t tgid)
{
	struct aspace *as = xcalloc(1, sizeof(*as));
	size_t i;

	as->ar = ar;
	as->tgid = tgid;
	if (ar) {
		for (i = 0; i < ar->nprocs; i++)
			if (ar->procs[i].tgid == tgid && !ar->procs[i].gone)
				break;
		if (i == ar->nprocs) {
			as->reason = R_GONE;
		} else {
			as->pm = ar->procs[i];	/* shallow: the archive owns the maps */
			space_modules(as);
		}
	} else if (maps_read_live(tgid, &as->pm)) {
		as->reason = R_GONE;
	} else {
		as->live_pid = tgid;
		as->start_boot_ns = proc_start_boot_ns(tgid);
		space_modules(as);
		as->reused = xcalloc(1, sizeof(*as->reused));
		as->reused->reason = R_PID_REUSED;
		as->reused->tgid = tgid;
	}
	space_insert(as);
	return as;
}

/* ---------------------------------------------------------------- 1.2 maps */

/*
 * The hash of a record's maps: the process and where each map lies, not
 * all of its 128 bytes (the key is compared whole, rec_space()).
 */
static uint64_t rec_hash(uint32_t tgid, const unsigned char *maps, size_t len)
{
	uint64_t h = hash_mix(hash_mix(0x12, tgid), len);
	size_t i;

	for (i = 0; i + FMT12_MAP_SIZE <= len; i += FMT12_MAP_SIZE) {
		uint64_t start, end;

		memcpy(&start, maps + i + FMT12_MAP_START, 8);
		memcpy(&end, maps + i + FMT12_MAP_END, 8);
		h = hash_mix(h, start ^ end << 20);
	}
	return h;
}

/* Whether as is the space of r's own maps. */
static bool rec_space_is(const struct aspace *as, const struct srec *r, size_t len)
{
	return as->tgid == r->tgid && as->rec_nmaps == r->map_count &&
	       as->rec_full == !!(r->flags & (FMT_F_MAPS_FULL | FMT_F_MAPS_CUT)) &&
	       !memcmp(as->rec_maps, r->maps, len);
}

static int cmp_pmap(const void *a, const void *b)
{
	const struct pmap *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * The address space of a 1.2 record's own maps: every record of the
 * process with the same maps[] shares it.  decode.c checked that the maps
 * are non-empty ranges and do not overlap.
 */
static struct aspace *rec_space_new(const struct srec *r, uint64_t h)
{
	struct aspace *as = xcalloc(1, sizeof(*as));
	size_t len = (size_t)r->map_count * FMT12_MAP_SIZE, i, k;

	(void)h;
	as->tgid = r->tgid;
	as->rec_maps = xmalloc(len);
	memcpy(as->rec_maps, r->maps, len);
	as->rec_nmaps = r->map_count;
	as->rec_full = r->flags & (FMT_F_MAPS_FULL | FMT_F_MAPS_CUT);
	as->pm.tgid = r->tgid;
	as->pm.maps = xcalloc(r->map_count, sizeof(*as->pm.maps));
	as->pm.nmaps = r->map_count;
	for (i = 0; i < r->map_count; i++) {
		struct pmap *m = &as->pm.maps[i];
		struct rmap rm;

		rmap_get(r, (unsigned int)i, &rm);
		m->start = rm.start;
		m->end = rm.end;
		m->pgoff = rm.file_offset;
		m->prot = 5;
		m->name_only = !(rm.flags & FMT_MAP_PATH);
		m->deleted = rm.flags & FMT_MAP_DELETED;
		/* a path must be one an archive may hold, else only its build-id is used */
		if (!m->name_only && !maps_path_ok(rm.name))
			m->name_only = true;
		if (m->name_only)	/* a file name: no '/' in it */
			for (k = 0; rm.name[k]; k++)
				if (rm.name[k] == '/')
					rm.name[k] = '_';
		m->path = xstrdup(rm.name[0] ? rm.name : "[unnamed]");
		if ((rm.flags & FMT_MAP_BUILD_ID) && rm.build_id_size) {
			memcpy(m->build_id, rm.build_id, rm.build_id_size);
			m->build_id_len = rm.build_id_size;
		}
	}
	qsort(as->pm.maps, as->pm.nmaps, sizeof(*as->pm.maps), cmp_pmap);
	space_modules(as);
	return as;
}

static struct aspace *rec_space(const struct srec *r)
{
	size_t len = (size_t)r->map_count * FMT12_MAP_SIZE, i, hh;
	uint64_t h;
	struct aspace *as;

	/* the records of a process mostly repeat the last one's maps */
	if (A.rlast && rec_space_is(A.rlast, r, len))
		return A.rlast;
	h = rec_hash(r->tgid, r->maps, len);
	if (A.rcap)
		for (hh = h & (A.rcap - 1); A.rt[hh]; hh = (hh + 1) & (A.rcap - 1)) {
			as = A.rt[hh];
			if (rec_space_is(as, r, len))
				return A.rlast = as;
		}
	if ((A.rn + 1) * 2 > A.rcap) {
		size_t nc = A.rcap ? A.rcap * 2 : 64;
		struct aspace **t = xcalloc(nc, sizeof(*t));

		for (i = 0; i < A.rcap; i++)
			if (A.rt[i]) {
				const struct aspace *o = A.rt[i];

				for (hh = rec_hash(o->tgid, o->rec_maps,
						   (size_t)o->rec_nmaps * FMT12_MAP_SIZE) & (nc - 1);
				     t[hh]; hh = (hh + 1) & (nc - 1))
					;
				t[hh] = A.rt[i];
			}
		free(A.rt);
		A.rt = t;
		A.rcap = nc;
	}
	as = rec_space_new(r, h);
	for (hh = h & (A.rcap - 1); A.rt[hh]; hh = (hh + 1) & (A.rcap - 1))
		;
	A.rt[hh] = as;
	A.rn++;
	return A.rlast = as;
}

struct aspace *usym_space(const struct stall_file *f, const struct srec *r)
{
	struct aspace *as;
	enum reason lr;

	/* a 1.2 record's maps are the ones its frames were in, whatever the
	 * process did since: they come first */
	if (r->map_count)
		return rec_space(r);

	if (!f->ar) {
		lr = live_ok(f);
		if (lr == R_NO_MAPS)
			return &A.no_maps;
		if (lr == R_OTHER_BOOT)
			return &A.other_boot;
	}
	if (A.last && A.last->tgid == r->tgid && A.last->ar == f->ar)
		as = A.last;
	else if (!(as = space_lookup(f->ar, r->tgid)))
		as = space_new(f->ar, r->tgid);
	A.last = as;
	if (!as->live_pid)
		return as;
	/*
	 * The live process started after the stall: its pid was reused, the
	 * maps are another process's.  (20 ms of slack: the start time has
	 * clock-tick resolution.)
	 */
	if (!A.have_boot_minus_mono) {
		uint64_t mono = now_ns(CLOCK_MONOTONIC), boot = now_ns(CLOCK_BOOTTIME);

		/* two reads: boot may come out a little below mono */
		A.boot_minus_mono = boot > mono ? (int64_t)(boot - mono) : 0;
		A.have_boot_minus_mono = true;
	}
	if (as->start_boot_ns &&
	    as->start_boot_ns > add_sat(add_sat(r->start_ns, (uint64_t)A.boot_minus_mono), 20000000ull))
		return as->reused;
	return as;
}

void usym_resolve(struct aspace *as, uint64_t addr, bool pc, enum uframe_flag fl,
		  struct frame *out)
{
	uint64_t a = addr - (!pc && addr ? 1 : 0);
	const struct pmap *m;
	struct umod *u;
	size_t mi;

	memset(out, 0, sizeof(*out));
	out->addr = addr;
	/* the kernel's word on a frame it saved no map for */
	if (fl == UF_ANON || fl == UF_NOVMA) {
		out->reason = fl == UF_ANON ? R_ANON : R_NO_MAP;
		return;
	}
	if (as->reason || (fl != UF_NONE && as->rec_maps)) {
		/* no maps of this record nor of the process: say why the
		 * record has none */
		out->reason = fl == UF_FULL ? R_MAPS_FULL : fl == UF_NOLOCK ? R_MAPS_NOLOCK :
			      fl == UF_CHANGED ? R_MAPS_CHANGED : as->reason;
		return;
	}
	m = maps_find(&as->pm, a);
	if (!m) {
		out->reason = as->rec_maps && as->rec_full ? R_MAPS_FULL : R_NO_MAP;
		return;
	}
	mi = (size_t)(m - as->pm.maps);
	if (!as->map_mod[mi]) {
		out->reason = R_ANON;
		out->module = m->path;
		return;
	}
	u = &as->mods[as->map_mod[mi] - 1];
	out->module = m->path;
	/* until the file says otherwise: the offset in the file */
	out->has_modoff = true;
	out->modoff = a - m->start + m->pgoff + (addr - a);
	dwfl_resolve(as, u, addr, a, out);
}
