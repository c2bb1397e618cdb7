# SPDX-License-Identifier: MIT
# The tests of the bisect statistics, the bisect helper and the flame
# graph script (issue 15, part A), on their own until the reader's
# Makefile includes this file:
#   make -f tests/bisect.mk check-bisect [BISECT_RESULTS=/abs/file]
# From userspace/Makefile: "include tests/bisect.mk" and depend on
# check-bisect; $(BISECT_B)/flamegraph_assets.h is the header the SVG
# writer includes (flamegraph_js[] and flamegraph_css[]).
BISECT_B ?= build/bisect
BISECT_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow \
	-Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wno-format-nonliteral \
	-Isrc -I$(BISECT_B)
BISECT_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
BISECT_RESULTS ?= $(CURDIR)/$(BISECT_B)/results.txt
STATS_DEPS := src/stats.c src/stats.h tests/stats_test.c

$(BISECT_B):
	mkdir -p $@

$(BISECT_B)/stats_test-gcc: $(STATS_DEPS) | $(BISECT_B)
	gcc $(BISECT_CFLAGS) -O2 -g -o $@ tests/stats_test.c src/stats.c -lm

$(BISECT_B)/stats_test-clang: $(STATS_DEPS) | $(BISECT_B)
	clang $(BISECT_CFLAGS) -O2 -g -o $@ tests/stats_test.c src/stats.c -lm

$(BISECT_B)/stats_test-asan: $(STATS_DEPS) | $(BISECT_B)
	clang $(BISECT_CFLAGS) -O1 -g $(BISECT_SAN) -o $@ tests/stats_test.c src/stats.c -lm

$(BISECT_B)/flamegraph_assets.h: src/flamegraph.js src/flamegraph.css src/embed.awk | $(BISECT_B)
	awk -v name=flamegraph_js -v src=src/flamegraph.js -f src/embed.awk \
		src/flamegraph.js > $@.tmp
	awk -v name=flamegraph_css -v src=src/flamegraph.css -f src/embed.awk \
		src/flamegraph.css >> $@.tmp
	mv $@.tmp $@

$(BISECT_B)/embed_test: tests/embed_test.c $(BISECT_B)/flamegraph_assets.h
	gcc $(BISECT_CFLAGS) -O1 -o $@ tests/embed_test.c

BISECT_BINS := $(BISECT_B)/stats_test-gcc $(BISECT_B)/stats_test-clang \
	$(BISECT_B)/stats_test-asan $(BISECT_B)/embed_test

check-bisect: $(BISECT_BINS)
	@bash tests/bisect_check.sh "$(BISECT_RESULTS)" "$(BISECT_B)"

.PHONY: check-bisect
