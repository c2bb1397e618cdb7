#!/bin/bash
# SPDX-License-Identifier: MIT
# speedscope (npm, package-lock.json) in Debian's headless Chromium on what
# the suite wrote of one log (tests/export.sh: DIR is run.sh's $W/export):
# -F perf-script, -F pprof and -F trace-event, each checked against the
# reader's JSON report of the same log, and photographed; and -F
# trace-event of a 1.4 log (sx.bin), its submit slices too.
#   speedscope.sh RESULTS DIR
# One "ok NAME" / "not ok NAME" line per check on stdout, appended to
# RESULTS; the screenshots are DIR/speedscope-{perf-script,pprof,
# trace-event,trace-event-submit}.png.  Needs "npm ci" in this directory (scripts/setup.sh).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:?usage: speedscope.sh RESULTS DIR}
D=${2:?usage: speedscope.sh RESULTS DIR}
touch "$OUT"
OUT=$(realpath "$OUT")

fail_setup() {
	echo "not ok speedscope:setup"
	echo "#   $*"
	echo "not ok speedscope:setup" >> "$OUT"
	exit 1
}
command -v node > /dev/null || fail_setup "node not found (Node.js 20, scripts/setup.sh)"
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || fail_setup "no ${CHROMIUM:-/usr/bin/chromium} (apt-get install chromium)"
for m in playwright-core speedscope; do
	[ -d "$HERE/node_modules/$m" ] || fail_setup "no node_modules/$m: run 'npm ci' in $HERE"
done
for f in mix.json mix.perf.txt mix.pb.gz mix.trace.json sx.trace.json; do
	[ -s "$D/$f" ] || fail_setup "no $D/$f: the suite's export tests did not write it"
done
python3 "$HERE/speedscope_expect.py" "$D/mix.json" "$D/mix.perf.txt" "$D/mix.pb.gz" \
	"$D/mix.trace.json" "$D/sx.trace.json" > "$D/speedscope-expect.json" || fail_setup "speedscope_expect.py failed"
cd "$HERE" && node speedscope.js "$OUT" "$D" "$D/speedscope-expect.json"
