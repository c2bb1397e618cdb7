// SPDX-License-Identifier: MIT
/*
 * A flame graph in SVG, self-contained (no script, nothing fetched), from
 * the folded lines in frame order.
 *
 * The lines are read once: the frames of consecutive lines that agree form
 * one node, open until a line differs at its depth.  A node is drawn when
 * it closes, at the x of the weight before it and as wide as the weight
 * under it; nodes narrower than 0.1 pixel are not drawn (nor, then, their
 * children).  So memory holds the open nodes only, whatever the number of
 * stacks, and the output is bounded by the width times the depth.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "emit.h"

#define SVG_W 1200.0
#define SVG_PAD 10.0
#define SVG_FH 16
#define SVG_MIN_PX 0.1

struct open_node {
	size_t off, len;	/* its name in the current line */
	uint64_t start;		/* weight before it */
};

struct svg {
	struct out *o;
	const struct svg_info *info;
	uint64_t total;
	unsigned int levels;	/* "all" and the deepest line's frames */
};

static uint64_t hash_name(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static void node(struct svg *G, const char *name, size_t len, unsigned int depth,
		 uint64_t start, uint64_t value)
{
	double w = (SVG_W - 2 * SVG_PAD) * (double)value / (double)G->total;
	double x = SVG_PAD + (SVG_W - 2 * SVG_PAD) * (double)start / (double)G->total;
	double y = 30 + (double)(G->levels - depth - 1) * SVG_FH;
	struct sbuf *b = &G->o->b;
	uint64_t h = hash_name(name, len);
	bool kern = len > 4 && !memcmp(name + len - 4, "_[k]", 4);
	int r, g, bl;

	if (w < SVG_MIN_PX)
		return;
	if (kern) {
		r = 220 + (int)(h % 35);
		g = 110 + (int)((h >> 8) % 60);
		bl = 30 + (int)((h >> 16) % 30);
	} else {
		r = 200 + (int)(h % 55);
		g = 180 + (int)((h >> 8) % 60);
		bl = 40 + (int)((h >> 16) % 40);
	}
	sb_puts(b, "<g><title>");
	sb_xml(b, name, len, 4096);
	sb_printf(b, " (%" PRIu64 " %s, %.2f%%)</title>", value, G->info->unit,
		  100.0 * (double)value / (double)G->total);
	sb_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" rx=\"2\" "
		  "fill=\"rgb(%d,%d,%d)\"/>", x, y, w, SVG_FH - 1, r, g, bl);
	if (w > 21) {
		sb_printf(b, "<text x=\"%.1f\" y=\"%.1f\">", x + 3, y + SVG_FH - 4);
		sb_xml(b, name, len, (size_t)((w - 6) / 7));
		sb_puts(b, "</text>");
	}
	sb_puts(b, "</g>\n");
	out_flush(G->o, false);
}

int svg_write(struct out *o, struct fagg *A, const struct svg_info *info)
{
	struct svg G = { .o = o, .info = info, .total = A->total, .levels = A->maxdepth + 1 };
	struct open_node *open = xcalloc(A->maxdepth + 1, sizeof(*open));
	struct sbuf line = { 0 }, *b = &o->b;
	unsigned int nopen = 0, height;
	uint64_t cum = 0, w;
	const char *key;
	size_t len;
	int rc = 0;

	height = G.levels * SVG_FH + 60;
	sb_printf(b, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		  "<svg version=\"1.1\" width=\"%d\" height=\"%u\" viewBox=\"0 0 %d %u\" "
		  "xmlns=\"http://www.w3.org/2000/svg\">\n"
		  "<style>text{font-family:monospace;font-size:12px;fill:#000}"
		  "g:hover rect{stroke:#000;stroke-width:0.5}</style>\n"
		  "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#f8f8f0\"/>\n"
		  "<text x=\"%d\" y=\"20\" text-anchor=\"middle\" style=\"font-size:15px\">",
		  (int)SVG_W, height, (int)SVG_W, height, (int)SVG_W / 2);
	sb_xml(b, info->title, strlen(info->title), 200);
	sb_printf(b, " (%zu stalls, %" PRIu64 " %s)</text>\n", info->stalls, A->total, info->unit);
	if (info->lost)
		sb_printf(b, "<text x=\"%d\" y=\"%u\" fill=\"#c00\">LOST %" PRIu64
			  " stalls: totals are incomplete</text>\n", (int)SVG_PAD, height - 10,
			  info->lost);
	while (A->total && (rc = fagg_next(A, &key, &len, &w)) > 0) {
		size_t pos = 0;
		unsigned int d = 0;

		/* the frames this line shares with the open nodes */
		while (d < nopen) {
			const char *e = memchr(key + pos, FOLD_SEP, len - pos);
			size_t n = e ? (size_t)(e - key - pos) : len - pos;

			if (n != open[d].len || memcmp(key + pos, line.p + open[d].off, n))
				break;
			pos += n + 1;
			d++;
		}
		while (nopen > d) {	/* close the others, deepest first */
			nopen--;
			node(&G, line.p + open[nopen].off, open[nopen].len, nopen + 1,
			     open[nopen].start, cum - open[nopen].start);
		}
		sb_reset(&line);
		sb_put(&line, key, len);
		while (pos <= len && nopen < A->maxdepth) {
			const char *e = memchr(key + pos, FOLD_SEP, len - pos);
			size_t n = e ? (size_t)(e - key - pos) : len - pos;

			open[nopen].off = pos;
			open[nopen].len = n;
			open[nopen].start = cum;
			nopen++;
			pos += n + 1;
		}
		cum = add_sat(cum, w);
		if (out_failed(o))
			break;
	}
	if (A->total && rc < 0) {
		free(open);
		sb_free(&line);
		return -1;
	}
	while (nopen > 0) {
		nopen--;
		node(&G, line.p + open[nopen].off, open[nopen].len, nopen + 1, open[nopen].start,
		     cum - open[nopen].start);
	}
	if (A->total)
		node(&G, "all", 3, 0, 0, A->total);
	sb_puts(b, "</svg>\n");
	free(open);
	sb_free(&line);
	return 0;
}
