#!/bin/bash
# SPDX-License-Identifier: MIT
# Run the issue-15 part-A tests (built by tests/bisect.mk into BUILDDIR):
#   bisect_check.sh RESULTS BUILDDIR
# stats_test under gcc, clang (names "clang:...") and ASan+UBSan
# ("asan:..."), the embedding of the flame graph script, the bisect
# helper on a fake debugfs and the flame graphs in headless Chromium.
# One "ok NAME" / "not ok NAME" line per test in RESULTS (appended), or
# "skip NAME: REASON" where this host lacks what it needs (../../scripts/
# probe.sh: sanitized programs for asan:*, chromium for the browser's); the
# last line on stdout is "N passed, N failed"; exit 1 if any failed.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/probe.sh
. "$HERE/../../scripts/probe.sh"
RES=$1
B=$(cd "$2" && pwd)
touch "$RES"
RES=$(realpath "$RES")
start=$(wc -l < "$RES")

# stats_test BIN PREFIX: its ok/not ok lines, prefixed; a crash is a failure
stats() {
	local rc
	local log=$B/out.${2:-gcc:}
	"$1" > "$log" 2>&1
	rc=$?
	grep -v '^#' "$log" | grep -E '^(not )?ok ' | sed -E "s/^(not ok|ok) /\1 $2/" |
		tee -a "$RES"
	grep '^#' "$log" | sed 's/^/  /'
	if [ $rc != 0 ] && ! grep -q '^not ok' "$log"; then
		echo "not ok ${2}stats_test_exit_$rc" | tee -a "$RES"
		tail -20 "$log"
	fi
}
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
stats "$B/stats_test-gcc" ""
stats "$B/stats_test-clang" "clang:"
if probe sanitizers clang; then
	stats "$B/stats_test-asan" "asan:"
else
	skip_checks 'asan:*' "$probe_why" 'asan:*' >> "$RES"
fi

if "$B/embed_test" js | cmp -s - "$HERE/../src/flamegraph.js" &&
   "$B/embed_test" css | cmp -s - "$HERE/../src/flamegraph.css"; then
	echo "ok embed_flamegraph_assets" | tee -a "$RES"
else
	echo "not ok embed_flamegraph_assets" | tee -a "$RES"
fi

bash "$HERE/bisect_test.sh" "$RES" | grep -v ' passed, '
bash "$HERE/browser/run.sh" "$RES" | grep -v '^# browser'

npass=$(tail -n +"$((start + 1))" "$RES" | grep -c '^ok ')
nfail=$(tail -n +"$((start + 1))" "$RES" | grep -c '^not ok ')
echo "$npass passed, $nfail failed"
[ "$nfail" = 0 ]
