#!/bin/bash
# SPDX-License-Identifier: MIT
# Browser tests of the flame graph SVGs (src/flamegraph.js, src/flamegraph.css).
#   run.sh OUTFILE              the self-test: SVGs from cases/ by mksvg.py, checked
#                               against the hand-written cases/*.expect.json
#   run.sh OUTFILE SVG...       check the given SVGs (e.g. the reader's -F svg),
#                               expectations derived from their data attributes;
#                               "--expect FILE" before an SVG gives its own
# One "ok NAME" / "not ok NAME" line per check on stdout, appended to OUTFILE.
# Needs Debian's chromium (or CHROMIUM=path) and "npm ci" run in this directory
# (README.md).  Exit status 1 if a check failed or the setup is missing.
# Where this host lacks what they need (../../../scripts/probe.sh): headless
# chromium cannot start, or playwright-core is not here because the npm
# registry cannot be reached, "skip SVG:*: REASON" for each SVG instead.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:?usage: run.sh OUTFILE [SVG...]}
shift
touch "$OUT"
OUT=$(realpath "$OUT")
# shellcheck source=scripts/probe.sh
. "$HERE/../../../scripts/probe.sh"

fail_setup() {
	echo "not ok browser:setup"
	echo "#   $*"
	echo "not ok browser:setup" >> "$OUT"
	exit 1
}
# skip_all REASON: each SVG's checks skipped, in OUT; one line shown
skip_all() {
	local a names=()
	for a in "${svgs[@]}"; do
		names+=("$(basename "$a"):*")
	done
	skip_checks 'browser:*' "$1" "${names[@]}" >> "$OUT"
	exit 0
}
# the SVGs checked: the arguments but --expect's, or the self-test's two
svgs=()
if [ $# = 0 ]; then
	svgs=(flame.svg diff.svg)
else
	expect=
	for a in "$@"; do
		if [ "$a" = --expect ]; then
			expect=1
		elif [ -n "$expect" ]; then
			expect=
		else
			svgs+=("$a")
		fi
	done
fi
command -v node > /dev/null || fail_setup "node not found (apt-get install nodejs)"
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || fail_setup "no ${CHROMIUM:-/usr/bin/chromium} (apt-get install chromium)"
if [ ! -d "$HERE/node_modules/playwright-core" ]; then
	probe npm-registry || skip_all "no node_modules/playwright-core, and $probe_why"
	fail_setup "no node_modules/playwright-core: run 'npm ci' in $HERE"
fi
probe chromium "${CHROMIUM:-/usr/bin/chromium}" || skip_all "$probe_why"

if [ $# = 0 ]; then
	W=$(mktemp -d /tmp/i915-flame.XXXXXX)
	trap 'rm -rf "$W"' EXIT
	python3 "$HERE/mksvg.py" flame "$HERE/cases/flame.folded" -o "$W/flame.svg" \
		--title "flame test" ${MKSVG_SCRIPT:+--script "$MKSVG_SCRIPT"} || fail_setup "mksvg.py flame"
	python3 "$HERE/mksvg.py" diff "$HERE/cases/diff-old.folded" "$HERE/cases/diff-new.folded" \
		-o "$W/diff.svg" --title "diff test" ${MKSVG_SCRIPT:+--script "$MKSVG_SCRIPT"} ||
		fail_setup "mksvg.py diff"
	set -- --expect "$HERE/cases/flame.expect.json" "$W/flame.svg" \
		--expect "$HERE/cases/diff.expect.json" "$W/diff.svg"
fi
cd "$HERE" && node check.js "$OUT" "$@"
