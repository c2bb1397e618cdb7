#!/bin/bash
# SPDX-License-Identifier: MIT
#
# make test: every check and suite, each one run even when an earlier one
# failed.  Each writes result lines ("ok NAME" / "not ok NAME") into
# $RESULTS; the last line printed sums them: "N passed, N failed".
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
	# a step that wrote no result line of its own still counts once
	[ -s "$RESULTS/$name.results" ] ||
		{ [ $rc = 0 ] && echo "ok $name" || echo "not ok $name"; } > "$RESULTS/$name.results"
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
step check-build make -s check-build

passed=$(cat "$RESULTS"/*.results | grep -c '^ok ')
failed=$(cat "$RESULTS"/*.results | grep -c '^not ok ')
echo "failed cases:"
grep -h '^not ok ' "$RESULTS"/*.results | sed 's/^/  /' || echo "  none"
echo "total time: $SECONDS s"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
