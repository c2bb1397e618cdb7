// SPDX-License-Identifier: MIT
/*
 * Flame graphs in SVG: the ordinary one (report, summary -F svg) and the
 * differential one (diff -F svg), both in the contract of docs/bisect.md
 * ("SVG contract"; tests/browser/mksvg.py is its reference writer), with
 * src/flamegraph.css and src/flamegraph.js inlined for zoom, search and
 * details: one self-contained file, nothing fetched.
 *
 * The folded lines are read once, in frame order: the frames of
 * consecutive lines that agree form one node, open until a line differs
 * at its depth.  A node closes knowing its start and its weight; nodes
 * narrower than 0.1 pixel are dropped there (their children are narrower
 * still).  The nodes kept are what the SVG draws, at most 11800 a level
 * whatever the number of stacks, and are buffered: the document needs
 * them in pre-order and the differential colours need the largest change
 * of any frame before the first is written.
 *
 * The differential graph joins OLD's and NEW's lines (fmerge): the NEW
 * pane's nodes carry NEW's and OLD's weight of their path; the lines
 * only OLD has go to a third fagg, read afterwards as the pane of the
 * vanished stacks, on the same scale.  Weights are per capture.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "emit.h"
#include "flamegraph_assets.h"
#include "intern.h"

#define SVG_W 1200
#define SVG_PAD 10
#define SVG_PW (SVG_W - 2 * SVG_PAD)	/* pane width */
#define SVG_FH 16
#define SVG_TOP 52
#define SVG_BOTTOM 28
#define SVG_LEGEND 24
#define SVG_MIN_PX 0.1

enum fkind { K_ROOT, K_TASK, K_USER, K_KERNEL };
static const char *const kind_names[] = { "root", "task", "user", "kernel" };

struct fnode {		/* a frame to draw */
	size_t name;	/* offset in the names */
	uint32_t len;
	uint32_t depth;
	double start, w, old;
};

struct pane {
	struct fnode *f;
	size_t n, cap;
	struct sbuf names;
	double min_w;	/* weights below are dropped as they close */
	/* building */
	struct bopen { size_t off, len; uint32_t id; double start, w, old; } *open;
	size_t nopen, ocap;
	bool ids;	/* pane_line_ids(): open frames by number, not in line */
	struct sbuf line;
	double cum, old_total;
	unsigned int levels;	/* rows: the root and the deepest line's frames */
};

static void pane_push(struct pane *P, const char *name, size_t len, unsigned int depth,
		      double start, double w, double old)
{
	struct fnode *f;

	if (w <= 0 || w < P->min_w)
		return;
	if (P->n == P->cap) {
		P->cap = P->cap ? P->cap * 2 : 256;
		P->f = xreallocarray(P->f, P->cap, sizeof(*P->f));
	}
	f = &P->f[P->n++];
	f->name = P->names.len;
	f->len = (uint32_t)len;
	f->depth = depth;
	f->start = start;
	f->w = w;
	f->old = old;
	sb_put(&P->names, name, len);
}

static void pane_close_to(struct pane *P, size_t d)
{
	while (P->nopen > d) {
		struct bopen *n = &P->open[--P->nopen];
		size_t len = n->len;
		const char *name = P->ids ? intern_text(n->id, &len) : P->line.p + n->off;

		pane_push(P, name, len, (unsigned int)P->nopen + 1, n->start, n->w, n->old);
	}
}

/* One folded line (frames split by FOLD_SEP, root first) of weight w (old). */
static void pane_line(struct pane *P, const char *key, size_t len, double w, double old)
{
	size_t pos = 0, d = 0, i;

	while (d < P->nopen) {
		const char *e = memchr(key + pos, FOLD_SEP, len - pos);
		size_t n = e ? (size_t)(e - key - pos) : len - pos;

		if (n != P->open[d].len || memcmp(key + pos, P->line.p + P->open[d].off, n))
			break;
		pos += n + 1;
		d++;
	}
	pane_close_to(P, d);
	sb_reset(&P->line);
	sb_put(&P->line, key, len);
	while (pos <= len) {
		const char *e = memchr(key + pos, FOLD_SEP, len - pos);
		size_t n = e ? (size_t)(e - key - pos) : len - pos;

		if (P->nopen == P->ocap) {
			P->ocap = P->ocap ? P->ocap * 2 : 64;
			P->open = xreallocarray(P->open, P->ocap, sizeof(*P->open));
		}
		P->open[P->nopen++] = (struct bopen){ .off = pos, .len = n, .start = P->cum };
		pos += n + 1;
	}
	if (P->nopen + 1 > P->levels)
		P->levels = (unsigned int)P->nopen + 1;
	for (i = 0; i < P->nopen; i++) {
		P->open[i].w += w;
		P->open[i].old += old;
	}
	P->cum += w;
	P->old_total += old;
}

/* The same, of a line as its frames' numbers (fagg_next_ids()): a frame
 * is open while the lines have its number at its depth, and its text is
 * taken when it is kept, no line's text made */
static void pane_line_ids(struct pane *P, const uint32_t *ids, uint32_t n, double w)
{
	size_t d = 0, i;

	P->ids = true;
	while (d < P->nopen && d < n && P->open[d].id == ids[d])
		d++;
	pane_close_to(P, d);
	if (P->ocap < n) {
		P->ocap = n < 64 ? 64 : n;
		P->open = xreallocarray(P->open, P->ocap, sizeof(*P->open));
	}
	for (; d < n; d++)
		P->open[P->nopen++] = (struct bopen){ .id = ids[d], .start = P->cum };
	if (P->nopen + 1 > P->levels)
		P->levels = (unsigned int)P->nopen + 1;
	for (i = 0; i < P->nopen; i++)
		P->open[i].w += w;
	P->cum += w;
}

static void pane_end(struct pane *P)
{
	pane_close_to(P, 0);
	if (!P->levels)
		P->levels = 1;
	pane_push(P, "all", 3, 0, 0, P->cum, P->old_total);
}

static void pane_free(struct pane *P)
{
	free(P->f);
	free(P->open);
	sb_free(&P->names);
	sb_free(&P->line);
}

static int cmp_preorder(const void *x, const void *y)
{
	const struct fnode *a = x, *b = y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->depth > b->depth) - (a->depth < b->depth);
}

/* ---------------------------------------------------------------- writing */

static uint32_t fnv1a32(const char *s, size_t n)
{
	uint32_t h = 0x811c9dc5u;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x01000193u;
	return h;
}

struct frame_view {
	enum fkind kind;
	bool unresolved;
	char *name;	/* as data-name: "_[k]" off, valid UTF-8 kept, other */
	size_t len;	/* bytes and controls as '?' */
};

/* The length of the valid UTF-8 sequence at s[0, n), 0 if none. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t need = s[0] >= 0xf0 && s[0] < 0xf5 ? 3 : s[0] >= 0xe0 && s[0] < 0xf0 ? 2 :
		      s[0] >= 0xc2 && s[0] < 0xe0 ? 1 : 0, k;

	if (!need || need >= n)
		return 0;
	for (k = 1; k <= need; k++)
		if ((s[k] & 0xc0) != 0x80)
			return 0;
	return need + 1;
}

/* XML character data of a name made by frame_view() */
static void xml_put(struct sbuf *b, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		switch (s[i]) {
		case '<': sb_puts(b, "&lt;"); break;
		case '>': sb_puts(b, "&gt;"); break;
		case '&': sb_puts(b, "&amp;"); break;
		case '"': sb_puts(b, "&quot;"); break;
		default: sb_putc(b, s[i]);
		}
}

static void frame_view(struct frame_view *v, const char *name, size_t len, unsigned int depth,
		       struct sbuf *tmp)
{
	size_t i;

	v->kind = depth == 0 ? K_ROOT : depth == 1 ? K_TASK : K_USER;
	if (depth > 1 && len > 4 && !memcmp(name + len - 4, "_[k]", 4)) {
		v->kind = K_KERNEL;
		len -= 4;
	}
	sb_reset(tmp);
	sb_put(tmp, name, len);
	for (i = 0; i < len; i++) {
		unsigned char *c = (unsigned char *)tmp->p + i;
		size_t k = *c >= 0x80 ? utf8_len(c, len - i) : 0;

		if (k)
			i += k - 1;
		else if (*c < 0x20 || *c >= 0x7f)
			*c = '?';
	}
	v->name = tmp->p;
	v->len = len;
	v->unresolved = depth > 1 && len >= 8 && !memcmp(v->name, "[unknown", 8);
}

static void kind_fill(const struct frame_view *v, int rgb[3])
{
	uint32_t h = fnv1a32(v->name, v->len);
	int b1 = (int)(h & 255), b2 = (int)(h >> 8 & 255), b3 = (int)(h >> 16 & 255);

	if (v->kind == K_ROOT) {
		rgb[0] = rgb[1] = rgb[2] = 200;
	} else if (v->unresolved) {
		rgb[0] = rgb[1] = rgb[2] = 170 + 40 * b1 / 255;
	} else if (v->kind == K_TASK) {
		rgb[0] = rgb[1] = 170 + 30 * b1 / 255;
		rgb[2] = 215 + 30 * b2 / 255;
	} else if (v->kind == K_KERNEL) {
		rgb[0] = 50 + 60 * b3 / 255;
		rgb[1] = 165 + 55 * b1 / 255;
		rgb[2] = 165 + 55 * b2 / 255;
	} else {
		rgb[0] = 205 + 50 * b3 / 255;
		rgb[1] = 230 * b1 / 255;
		rgb[2] = 55 * b2 / 255;
	}
}

static void diff_fill(double delta, double maxd, int rgb[3])
{
	double r;
	int c;

	if (delta == 0 || maxd <= 0) {
		rgb[0] = rgb[1] = rgb[2] = 230;
		return;
	}
	r = fabs(delta) / maxd;
	if (r > 1)
		r = 1;
	c = (int)(210.0 * (1.0 - r));
	rgb[0] = delta > 0 ? 255 : c;
	rgb[1] = c;
	rgb[2] = delta > 0 ? c : 255;
}

/* "+12 us (+3.0%)" */
static void change_text(struct sbuf *b, double nw, double old, const char *unit)
{
	sb_puts(b, nw >= old ? "+" : "");
	sb_num(b, nw - old);
	sb_printf(b, " %s (", unit);
	if (old == 0)
		sb_puts(b, nw ? "new" : "0%");
	else
		sb_printf(b, "%+.1f%%", 100 * (nw - old) / old);
	sb_putc(b, ')');
}

/* The label: as many characters (code points) as fit in 7 px each. */
static void label(struct sbuf *b, const char *name, size_t len, double w)
{
	double fit = floor((w - 6) / 7);
	size_t n = fit > 0 ? (size_t)fit : 0, chars = 0, i, cut = len;

	if (n < 3)
		return;
	for (i = 0; i < len; i++)
		if (((unsigned char)name[i] & 0xc0) != 0x80 && chars++ == n - 2)
			cut = i;
	if (chars <= n) {
		xml_put(b, name, len);
	} else {
		xml_put(b, name, cut);
		sb_puts(b, "..");
	}
}

enum pane_mode { P_FLAME, P_NEW, P_GONE };

struct svgw {
	struct out *o;
	const char *unit;
	double maxd;	/* diff: the colour scale */
	struct sbuf tmp;
};

static void header(struct svgw *G, unsigned int height, bool diff, const char *title,
		   const char *subtitle)
{
	struct sbuf *b = &G->o->b;

	sb_printf(b, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		  "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		  "height=\"%u\" viewBox=\"0 0 %d %u\" class=\"i915-flame%s\" data-unit=\"%s\">\n",
		  SVG_W, height, SVG_W, height, diff ? " diff" : "", G->unit);
	sb_printf(b, "<style><![CDATA[\n%s]]></style>\n", flamegraph_css);
	sb_printf(b, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n",
		  flamegraph_js);
	sb_printf(b, "<rect class=\"background\" x=\"0\" y=\"0\" width=\"%d\" height=\"%u\" "
		  "fill=\"#f8f8f0\"/>\n", SVG_W, height);
	sb_printf(b, "<text id=\"title\" x=\"%d\" y=\"20\">", SVG_W / 2);
	sb_xml(b, title, strlen(title), 200);
	sb_printf(b, "</text>\n<text id=\"subtitle\" x=\"%d\" y=\"38\">", SVG_W / 2);
	sb_xml(b, subtitle, strlen(subtitle), 1000);
	sb_puts(b, "</text>\n");
	sb_printf(b, "<text id=\"unzoom\" class=\"control hide\" x=\"%d\" y=\"20\">Reset Zoom"
		  "</text>\n<text id=\"search\" class=\"control\" x=\"%d\" y=\"20\">Search</text>\n",
		  SVG_PAD, SVG_W - SVG_PAD - 60);
	sb_printf(b, "<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n"
		  "<text id=\"matched\" x=\"%d\" y=\"%u\"> </text>\n", SVG_PAD, height - 10,
		  SVG_W - SVG_PAD, height - 10);
	out_flush(G->o, false);
}

/* One pane, its root at the bottom; returns its height. */
static unsigned int pane_write(struct svgw *G, struct pane *P, enum pane_mode mode,
			       const char *id, const char *plabel, unsigned int top, double span)
{
	struct sbuf *b = &G->o->b;
	double k = span > 0 ? SVG_PW / span : 0, total = P->cum;
	size_t i;

	xqsort(P->f, P->n, sizeof(*P->f), cmp_preorder);
	sb_printf(b, "<g class=\"pane\" id=\"%s\" data-label=\"%s\" data-x=\"%d\" "
		  "data-width=\"%d\" data-total=\"", id, plabel, SVG_PAD, SVG_PW);
	sb_num(b, total);
	sb_puts(b, "\" data-span=\"");
	sb_num(b, span);
	sb_printf(b, "\">\n<text class=\"pane-label\" x=\"%d\" y=\"%u\">%s</text>\n", SVG_PAD,
		  top + 12, plabel);
	for (i = 0; i < P->n; i++) {
		const struct fnode *f = &P->f[i];
		struct frame_view v;
		double w = f->w * k, x = SVG_PAD + f->start * k;
		double delta = mode == P_NEW ? f->w - f->old : -f->w;
		unsigned int y = top + 18 + (P->levels - 1 - f->depth) * SVG_FH;
		int rgb[3];

		if (w < SVG_MIN_PX)
			continue;
		frame_view(&v, P->names.p + f->name, f->len, f->depth, &G->tmp);
		if (mode == P_FLAME)
			kind_fill(&v, rgb);
		else
			diff_fill(delta, G->maxd, rgb);
		sb_printf(b, "<g class=\"frame %s%s\" data-name=\"", kind_names[v.kind],
			  v.unresolved ? " unresolved" : "");
		xml_put(b, v.name, v.len);
		sb_printf(b, "\" data-depth=\"%u\" data-start=\"", f->depth);
		sb_num(b, f->start);
		sb_puts(b, "\" data-samples=\"");
		sb_num(b, f->w);
		if (mode != P_FLAME) {
			sb_puts(b, "\" data-delta=\"");
			sb_num(b, delta);
		}
		sb_puts(b, "\"><title>");
		xml_put(b, v.name, v.len);
		if (mode == P_FLAME) {
			sb_puts(b, " (");
			sb_num(b, f->w);
			sb_printf(b, " %s, %.2f%%)", G->unit, total ? 100 * f->w / total : 0);
		} else if (mode == P_NEW) {
			sb_puts(b, ": NEW ");
			sb_num(b, f->w);
			sb_printf(b, " %s, OLD ", G->unit);
			sb_num(b, f->old);
			sb_printf(b, " %s, ", G->unit);
			change_text(b, f->w, f->old, G->unit);
		} else {
			sb_puts(b, ": vanished, OLD ");
			sb_num(b, f->w);
			sb_printf(b, " %s", G->unit);
		}
		sb_printf(b, "</title><rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"%d\" rx=\"2\" "
			  "fill=\"rgb(%d,%d,%d)\"/><text x=\"%.2f\" y=\"%u\">", x, y, w, SVG_FH - 1,
			  rgb[0], rgb[1], rgb[2], x + 3, y + SVG_FH - 4);
		label(b, v.name, v.len, w);
		sb_puts(b, "</text></g>\n");
		out_flush(G->o, false);
		if (out_failed(G->o))
			break;
	}
	sb_puts(b, "</g>\n");
	return 18 + P->levels * SVG_FH;
}

static void lost_text(struct sbuf *b, const struct svg_info *info)
{
	if (info->lost)
		sb_printf(b, "; LOST %" PRIu64 " stalls: totals are incomplete", info->lost);
}

int svg_write(struct out *o, struct fagg *A, const struct svg_info *info)
{
	struct svgw G = { .o = o, .unit = info->unit };
	struct pane P = { .min_w = (double)A->total * SVG_MIN_PX / SVG_PW };
	struct sbuf sub = { 0 };
	const uint32_t *ids;
	size_t nlines = 0;
	uint32_t n;
	uint64_t w;
	int rc;

	while ((rc = fagg_next_ids(A, &ids, &n, &w)) > 0) {
		pane_line_ids(&P, ids, n, (double)w);
		nlines++;
	}
	if (rc < 0) {
		pane_free(&P);
		return -1;
	}
	pane_end(&P);
	sb_printf(&sub, "%zu stalls, %zu stacks, ", info->stalls, nlines);
	sb_num(&sub, P.cum);
	sb_printf(&sub, " %s in all", info->unit);
	lost_text(&sub, info);
	header(&G, SVG_TOP + 18 + P.levels * SVG_FH + SVG_BOTTOM, false, info->title, sb_str(&sub));
	pane_write(&G, &P, P_FLAME, "pane-main", "stall time", SVG_TOP, P.cum);
	sb_puts(&o->b, "</svg>\n");
	sb_free(&sub);
	sb_free(&G.tmp);
	pane_free(&P);
	return 0;
}

/* The largest |delta| of a frame other than the roots, over both panes. */
static double max_delta(const struct pane *N, const struct pane *V, double span)
{
	double m = 0, minw = span * SVG_MIN_PX / SVG_PW;
	size_t i;

	for (i = 0; i < N->n; i++)
		if (N->f[i].depth && N->f[i].w >= minw && fabs(N->f[i].w - N->f[i].old) > m)
			m = fabs(N->f[i].w - N->f[i].old);
	for (i = 0; i < V->n; i++)
		if (V->f[i].depth && V->f[i].w >= minw && V->f[i].w > m)
			m = V->f[i].w;
	return m;
}

static void legend(struct svgw *G, unsigned int y)
{
	static const struct { const char *text; double delta; bool kernel; } sw[] = {
		{ "grew", 1, false }, { "shrank", -1, false }, { "unchanged", 0, false },
		{ "kernel frame", 0, true },
	};
	struct sbuf *b = &G->o->b;
	int x = SVG_PAD;
	size_t i;

	sb_puts(b, "<g id=\"legend\">\n");
	for (i = 0; i < ARRAY_SIZE(sw); i++) {
		int rgb[3];

		diff_fill(sw[i].delta, 1, rgb);
		if (sw[i].kernel)
			rgb[0] = rgb[1] = rgb[2] = 255;
		sb_printf(b, "<rect class=\"swatch\" x=\"%d\" y=\"%u\" width=\"24\" height=\"12\" "
			  "fill=\"rgb(%d,%d,%d)\"%s/>\n", x, y + 2, rgb[0], rgb[1], rgb[2],
			  sw[i].kernel ? " stroke=\"rgb(0,140,140)\" stroke-width=\"1.5\"" : "");
		sb_printf(b, "<text x=\"%d\" y=\"%u\">%s</text>\n", x + 30, y + 12, sw[i].text);
		x += 40 + 8 * (int)strlen(sw[i].text);
	}
	sb_printf(b, "<text x=\"%d\" y=\"%u\">colour: change in %s per capture, full at ", x + 10,
		  y + 12, G->unit);
	sb_num(b, G->maxd);
	sb_printf(b, " %s; width: %s per capture</text>\n</g>\n", G->unit, G->unit);
}

int svg_diff_write(struct out *o, struct fagg *old, size_t n_old, struct fagg *new_,
		   size_t n_new, const struct svg_info *info)
{
	struct svgw G = { .o = o, .unit = info->unit };
	double new_total = (double)new_->total / (double)n_new;
	double old_total = (double)old->total / (double)n_old, span;
	struct pane N = { 0 }, V = { 0 };
	struct fagg gone;
	struct fmerge M;
	struct sbuf sub = { 0 };
	const char *key;
	size_t len;
	uint64_t wa, wb;
	unsigned int hn, hg, top;
	int rc;

	/* span >= NEW's total: what is dropped now would be dropped at the end */
	N.min_w = (new_total ? new_total : old_total) * SVG_MIN_PX / SVG_PW;
	fagg_init(&gone, old->budget);
	fmerge_init(&M, old, new_);
	while ((rc = fmerge_next(&M, &key, &len, &wa, &wb)) > 0) {
		pane_line(&N, key, len, (double)wb / (double)n_new, (double)wa / (double)n_old);
		if (!wb)
			fagg_add(&gone, key, len, 1, wa);
	}
	fmerge_free(&M);
	if (rc >= 0)
		rc = fagg_finish(&gone);
	if (rc < 0) {
		fagg_free(&gone);
		pane_free(&N);
		return -1;
	}
	pane_end(&N);
	span = fmax(new_total, (double)gone.total / (double)n_old);
	V.min_w = span * SVG_MIN_PX / SVG_PW;
	while ((rc = fagg_next(&gone, &key, &len, &wa)) > 0)
		pane_line(&V, key, len, (double)wa / (double)n_old, 0);
	fagg_free(&gone);
	if (rc < 0) {
		pane_free(&N);
		pane_free(&V);
		return -1;
	}
	pane_end(&V);
	G.maxd = max_delta(&N, &V, span);

	sb_puts(&sub, "NEW ");
	sb_num(&sub, N.cum);
	sb_printf(&sub, " %s, OLD ", info->unit);
	sb_num(&sub, N.old_total);
	sb_printf(&sub, " %s, change ", info->unit);
	change_text(&sub, N.cum, N.old_total, info->unit);
	sb_puts(&sub, "; vanished stacks ");
	sb_num(&sub, V.cum);
	sb_printf(&sub, " %s; per capture of %zu OLD, %zu NEW", info->unit, n_old, n_new);
	lost_text(&sub, info);
	hn = 18 + N.levels * SVG_FH;
	hg = 18 + V.levels * SVG_FH;
	header(&G, SVG_TOP + SVG_LEGEND + hn + 10 + hg + SVG_BOTTOM, true, info->title,
	       sb_str(&sub));
	legend(&G, SVG_TOP);
	top = SVG_TOP + SVG_LEGEND;
	pane_write(&G, &N, P_NEW, "pane-new", "NEW", top, span);
	pane_write(&G, &V, P_GONE, "pane-gone", "vanished", top + hn + 10, span);
	sb_puts(&o->b, "</svg>\n");
	sb_free(&sub);
	sb_free(&G.tmp);
	pane_free(&N);
	pane_free(&V);
	return 0;
}
