/* SPDX-License-Identifier: MIT */
/*
 * i915-stalls: strings by number.  Equal strings get equal numbers, for the
 * program's life (until intern_free()): symbolize.c numbers its frames'
 * keys and folded names, aggregate.c the other parts of a folded line, so
 * that stacks are grouped by their numbers and a group's text is made once.
 */
#ifndef I915_STALLS_INTERN_H
#define I915_STALLS_INTERN_H

#include "util.h"

/* The number of the len bytes at s (no NUL needed). */
uint32_t intern(const char *s, size_t len);
/* The string of number id: len bytes, then a NUL. */
const char *intern_text(uint32_t id, size_t *len);
/* The texts of n numbers, fetched into the CPU's caches together: the
 * misses of a line of frames overlap instead of coming one by one */
void intern_texts(const uint32_t *ids, size_t n, const char **t, uint32_t *len);
/* How many numbers were given: they are 0 to intern_count() - 1. */
uint32_t intern_count(void);
/*
 * The rank of each number in the order of its string (memcmp(), a prefix
 * first) into rank[0 .. intern_count() - 1]: equal ranks, equal strings.
 */
void intern_ranks(uint32_t *rank);
void intern_free(void);

#endif
