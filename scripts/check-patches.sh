#!/bin/bash
# SPDX-License-Identifier: MIT
#
# checkpatch.pl with i915's profile on every patch of the series: zero
# errors, warnings and checks.  One result line per patch.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
KBASE=${KBASE:?}
RESULTS=${RESULTS:-$top/out/results}
mkdir -p "$RESULTS"
res=$RESULTS/check-patches.results
: > "$res"
fail=0

for p in "$top"/patches/*.patch; do
	name=$(basename "$p" .patch)
	[ "$name" = 0000-cover-letter ] && continue
	# Debian's python3 first: checkpatch runs spdxcheck.py, which needs
	# python3-ply and python3-git from Debian, not another python3 on PATH.
	out=$(cd "$KBASE" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict --max-line-length=100 \
		--no-summary-file --show-types "$p" 2>&1)
	# a here-string, not a pipe: with pipefail, grep -q leaving early can
	# fail the pipe by SIGPIPE (seen once in a cold run, on a clean patch)
	if grep -q '^total: 0 errors, 0 warnings, 0 checks' <<< "$out"; then
		echo "ok check-patches/$name" >> "$res"
	else
		echo "not ok check-patches/$name" >> "$res"
		echo "check-patches: $name:" >&2
		echo "$out" >&2
		fail=1
	fi
	# Subjects: imperative, under 75 characters.
	subj=$(sed -n 's/^Subject: \[PATCH[^]]*\] //p' "$p")
	if [ ${#subj} -ge 75 ]; then
		echo "not ok check-patches/$name-subject" >> "$res"
		echo "check-patches: $name: subject is ${#subj} characters: $subj" >&2
		fail=1
	fi
done
[ -s "$res" ] || { echo "not ok check-patches/none" >> "$res"; fail=1; }
echo "check-patches: $(grep -c '^ok' "$res") clean, $(grep -c '^not ok' "$res") not"
exit $fail
