// SPDX-License-Identifier: MIT
/* Strings by number (intern.h): an open-addressing table over one arena. */
#include <stdlib.h>
#include <string.h>

#include "intern.h"
#include "strbuf.h"

static struct {
	struct { size_t off; uint32_t len; uint64_t hash; } *s;
	uint32_t n;
	size_t cap;
	uint32_t *ht;		/* number + 1, 0 empty */
	size_t hcap;
	struct sbuf text;	/* each string and a NUL */
	uint32_t *ord, nord;	/* intern_ranks(): the first nord numbers by text */
} I;

uint32_t intern(const char *k, size_t len)
{
	uint64_t h = hash_bytes(k, len, 0x4b657973);
	size_t i, j;

	if (((size_t)I.n + 1) * 2 > I.hcap) {
		size_t nc = I.hcap ? I.hcap * 2 : 1024;

		free(I.ht);
		I.ht = xcalloc(nc, sizeof(*I.ht));
		I.hcap = nc;
		for (i = 0; i < I.n; i++) {
			for (j = I.s[i].hash & (nc - 1); I.ht[j]; j = (j + 1) & (nc - 1))
				;
			I.ht[j] = (uint32_t)i + 1;
		}
	}
	for (j = h & (I.hcap - 1); I.ht[j]; j = (j + 1) & (I.hcap - 1)) {
		i = I.ht[j] - 1;
		if (I.s[i].hash == h && I.s[i].len == len && !memcmp(I.text.p + I.s[i].off, k, len))
			return (uint32_t)i;
	}
	if (I.n == I.cap) {
		I.cap = I.cap ? I.cap * 2 : 1024;
		I.s = xreallocarray(I.s, I.cap, sizeof(*I.s));
	}
	I.s[I.n].off = I.text.len;
	I.s[I.n].len = (uint32_t)len;
	I.s[I.n].hash = h;
	sb_put(&I.text, k, len);
	sb_putc(&I.text, 0);
	I.ht[j] = I.n + 1;
	return I.n++;
}

const char *intern_text(uint32_t id, size_t *len)
{
	*len = I.s[id].len;
	return I.text.p + I.s[id].off;
}

void intern_texts(const uint32_t *ids, size_t n, const char **t, uint32_t *len)
{
	size_t i;

	for (i = 0; i < n; i++)
		__builtin_prefetch(&I.s[ids[i]]);
	for (i = 0; i < n; i++) {
		t[i] = I.text.p + I.s[ids[i]].off;
		len[i] = I.s[ids[i]].len;
		__builtin_prefetch(t[i]);
	}
}

uint32_t intern_count(void)
{
	return I.n;
}

static int cmp_text(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	size_t lx = I.s[x].len, ly = I.s[y].len;
	int c = memcmp(I.text.p + I.s[x].off, I.text.p + I.s[y].off, lx < ly ? lx : ly);

	return c ? c : (lx > ly) - (lx < ly);
}

/*
 * The numbers in their texts' order are kept between calls: a folded
 * report that spills asks again at each spill, and only the strings made
 * since are sorted, then merged in.
 */
void intern_ranks(uint32_t *rank)
{
	uint32_t i, j, k, old = I.nord, nn = I.n - I.nord, *m;

	if (nn) {
		I.ord = xreallocarray(I.ord, I.n, sizeof(*I.ord));
		for (i = 0; i < nn; i++)
			I.ord[old + i] = old + i;
		xqsort(I.ord + old, nn, sizeof(*I.ord), cmp_text);
		if (old) {
			m = xreallocarray(NULL, I.n, sizeof(*m));
			for (i = 0, j = old, k = 0; i < old || j < I.n;)
				m[k++] = j == I.n || (i < old && cmp_text(&I.ord[i], &I.ord[j]) < 0) ?
					 I.ord[i++] : I.ord[j++];
			free(I.ord);
			I.ord = m;
		}
		I.nord = I.n;
	}
	for (i = 0; i < I.n; i++)	/* distinct numbers: distinct strings */
		rank[I.ord[i]] = i;
}

void intern_free(void)
{
	free(I.s);
	free(I.ht);
	free(I.ord);
	sb_free(&I.text);
	memset(&I, 0, sizeof(I));
}
