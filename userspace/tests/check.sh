#!/bin/bash
# SPDX-License-Identifier: MIT
# make check: the whole reader suite, then the same suite under ASan+UBSan,
# a bounded libFuzzer run, a clang build and the man page lint.
#   check.sh RESULTS
# "ok NAME" / "not ok NAME" lines in RESULTS, and "skip NAME: REASON" for
# what needs what this host lacks (../scripts/probe.sh): the sanitizer runs
# where sanitized programs cannot run, and the suite's and the browser
# tests' own (tests/run.sh, tests/browser/run.sh).
set -u
RES=$1
U=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/probe.sh
. "$U/../scripts/probe.sh"
B=$U/build
W=$B/test
FUZZ_SECONDS=${FUZZ_SECONDS:-20}
mkdir -p "$W"
: > "$RES"

line() { echo "$1 $2" >> "$RES"; echo "$1 $2"; }

# fixtures (compiled test programs, fake kernel images)
if bash "$U/tests/fixtures.sh" "$W/fx" > "$W/fixtures.log" 2>&1; then
	line ok fixtures_build
else
	line "not ok" fixtures_build
	sed 's/^/#   /' "$W/fixtures.log"
fi

# 1. the suite
bash "$U/tests/run.sh" "$U/i915-stalls" "$W/plain.results" "$W/plain" "$W/fx"
cat "$W/plain.results" >> "$RES"

# 1b. the reader's own flame graphs in headless Chromium (tests/browser/):
# the ordinary one of the golden dump, derived expectations; the
# differential one of the suite's known diff against hand-computed ones
if [ -s "$W/plain/f.svg" ] && [ -s "$W/plain/d.svg" ]; then
	cp "$W/plain/f.svg" "$W/reader-flame.svg"
	cp "$W/plain/d.svg" "$W/reader-diff.svg"
	bash "$U/tests/browser/run.sh" "$RES" "$W/reader-flame.svg" \
		--expect "$U/tests/browser/cases/reader-diff.expect.json" "$W/reader-diff.svg" |
		grep -v '^# browser'
else
	line "not ok" browser_reader_svgs
	echo "#   the suite wrote no f.svg or d.svg (svg_contract_flame, diff_svg_colours)"
fi

# 1c. the statistics (gcc, clang, ASan+UBSan), the embedded flame graph
# script, the bisect helper and the reference SVGs in Chromium (issue 15)
bash "$U/tests/bisect_check.sh" "$RES" "$B/bisect" | grep -v ' passed, '

# 1d. the formats other tools open, in speedscope in headless Chromium
# (tests/export/): the suite's perf script, pprof and trace-event outputs of
# one log, and the trace-event output of a 1.4 log (submit slices);
# screenshots in $W/plain/export/speedscope-*.png
bash "$U/tests/export/speedscope.sh" "$RES" "$W/plain/export"

# 1e. make install into a scratch DESTDIR; the installed reader, bisect
# helper and man page used
bash "$U/tests/install_test.sh" "$RES" "$W/install"

# 2. the same suite under AddressSanitizer + UndefinedBehaviorSanitizer,
# where this host runs sanitized programs at all
if ! probe sanitizers "${CC:-cc}"; then
	skip_checks asan_ubsan_suite "$probe_why" asan_ubsan_suite >> "$RES"
else
	make -s -C "$U" asan > "$W/asan-build.log" 2>&1 || cat "$W/asan-build.log"
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1:exitcode=99
	export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=99
	if bash "$U/tests/run.sh" "$B/asan/i915-stalls" "$W/asan.results" "$W/asan" "$W/fx" > "$W/asan.log" 2>&1 &&
	   ! grep -q "^not ok" "$W/asan.results"; then
		line ok asan_ubsan_suite
		# the tests this host cannot run were skipped there too (1. said so)
		n=$(grep -c '^skip ' "$W/asan.results")
		[ "$n" = 0 ] || echo "#   asan_ubsan_suite: $n tests skipped as in the plain run"
	else
		line "not ok" asan_ubsan_suite
		grep -E "^not ok|ERROR: |runtime error" -A12 "$W/asan.log" | head -60 | sed 's/^/#   /'
	fi
	unset ASAN_OPTIONS UBSAN_OPTIONS
fi

# 3. libFuzzer on the decoders, bounded, seeded with the suite's dumps
# (clang, ASan+UBSan: where this host runs sanitized programs)
if ! probe sanitizers clang; then
	skip_checks "fuzz_decoder_${FUZZ_SECONDS}s" "$probe_why" "fuzz_decoder_${FUZZ_SECONDS}s" >> "$RES"
else
	rm -rf "$W/corpus" "$W/fuzz-artifacts"
	mkdir -p "$W/corpus" "$W/fuzz-artifacts"
	find "$W/plain" -maxdepth 1 \( -name '*.bin' -o -name '*.ar' \) -size -200k -exec cp {} "$W/corpus/" \;
	make -s -C "$U" fuzz > "$W/fuzz-build.log" 2>&1 || cat "$W/fuzz-build.log"
	# seeds of both parsers: stall files and record archives (the hostile-archive
	# and vDSO tests leave about ten)
	nbin=$(find "$W/corpus" -name '*.bin' | wc -l)
	nar=$(find "$W/corpus" -name '*.ar' | wc -l)
	echo "# fuzz seed corpus: $nbin stall files, $nar record archives"
	if [ "$nbin" -gt 3 ] && [ "$nar" -ge 5 ] && [ -x "$B/fuzz/fuzz_decode" ] &&
	   "$B/fuzz/fuzz_decode" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=1024 \
		-artifact_prefix="$W/fuzz-artifacts/" -print_final_stats=1 "$W/corpus" > "$W/fuzz.log" 2>&1; then
		line ok fuzz_decoder_${FUZZ_SECONDS}s
	else
		line "not ok" fuzz_decoder_${FUZZ_SECONDS}s
		tail -30 "$W/fuzz.log" | sed 's/^/#   /'
	fi
fi

# 4. clang builds it too, warnings as errors
if make -s -C "$U" CC=clang BIN="$B/i915-stalls-clang" "$B/i915-stalls-clang" > "$W/clang.log" 2>&1 &&
   "$B/i915-stalls-clang" --version > /dev/null; then
	line ok build_clang
else
	line "not ok" build_clang
	sed 's/^/#   /' "$W/clang.log" | head -30
fi

# 5. the man page
if mandoc -T lint "$U/i915-stalls.1" > "$W/mandoc.log" 2>&1; then
	line ok man_page_lint
else
	line "not ok" man_page_lint
	sed 's/^/#   /' "$W/mandoc.log"
fi

# the eu-addr2line comparisons, for the log
sed 's/^/# /' "$W/plain/compare-summary.txt" 2>/dev/null

nok=$(grep -c '^ok ' "$RES")
nnok=$(grep -c '^not ok ' "$RES")
echo "reader: $nok ok, $nnok not ok, $(grep -c '^skip ' "$RES") skipped"
[ "$nnok" = 0 ]
