#!/bin/bash
# SPDX-License-Identifier: MIT
#
# make test: every check and suite, each one run even when an earlier one
# failed.  Each writes result lines ("ok NAME" / "not ok NAME", and "skip
# NAME: REASON" for a check that needs what this host lacks, see
# scripts/probe.sh) into $RESULTS.  The last lines printed sum them: the
# skipped checks, one line per reason, "N skipped: NAME, ... (REASON)" (or
# "0 skipped"), then, last, "N passed, N failed".  A skip is neither.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
export OUT=${OUT:-$top/out}
export RESULTS=${RESULTS:-$OUT/results}
rm -rf "$RESULTS"
mkdir -p "$RESULTS"

step() { # name command...
	local name=$1 t0=$SECONDS rc; shift
	echo "=== $name"
	"$@"
	rc=$?
	# a step that wrote no result line of its own still counts once; one
	# that failed without naming a failed check counts as a failure too
	if [ ! -s "$RESULTS/$name.results" ]; then
		{ [ $rc = 0 ] && echo "ok $name" || echo "not ok $name"; } > "$RESULTS/$name.results"
	elif [ $rc != 0 ] && ! grep -q '^not ok ' "$RESULTS/$name.results"; then
		echo "not ok $name (exit $rc, no failed check named)" >> "$RESULTS/$name.results"
	fi
	echo "=== $name: exit $rc, $((SECONDS - t0)) s"
}

step setup make -s setup
step tree make -s tree
step check-sync make -s check-sync
step check-patches make -s check-patches
step userspace-check make -s userspace-check
step kunit make -s kunit
step kunit-kcsan make -s kunit-kcsan
step e2e make -s e2e
step selftests make -s selftests
step check-build env CHECK_BUILD_MOD=last make -s check-build
step e2e-module make -s e2e-module

echo "total time: $SECONDS s"
bash scripts/summary.sh "$RESULTS"
