#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The reader's diff at scale (issue 15): prints a Markdown section for
# docs/performance.md (scripts/bench.sh appends it; runs on its own too):
#   bash scripts/bench-diff.sh [WORKDIR]
#  - the diff table of OLD... -- NEW... (5 captures a side) with 5k to 40k
#    distinct user stacks: the join by hash and the tests are linear, the
#    sort n log n, so the time per stack should stay flat;
#  - diff -F svg with 250k and 1M distinct stacks (one capture a side):
#    the stacks stay in the bounded folded store and the SVG holds only the
#    frames it draws, so the peak RSS should not grow with the stacks.
# User stacks are resolved live: addresses of the exported functions of
# Debian's python3 (PYBIN) in one that sleeps meanwhile; kernel stacks from
# a made-up kallsyms.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
R=${I915_STALLS:-$TOP/userspace/i915-stalls}
# the reader to measure (I915_STALLS, else userspace/'s); mkstall either way
[ -n "${I915_STALLS:-}" ] || make -s -C "$TOP/userspace" i915-stalls
make -s -C "$TOP/userspace" build/mkstall
MK=$TOP/userspace/build/mkstall
W=${1:-$TOP/out/bench-diff}
rm -rf "$W"
mkdir -p "$W"

boot="release=$(uname -r) snapshot_ns=1 realtime_offset_ns=$(python3 -c '
import time; print(time.clock_gettime_ns(time.CLOCK_REALTIME) - time.clock_gettime_ns(time.CLOCK_MONOTONIC))')"

# python3, sleeping, prints the addresses of its exported functions
PYBIN=$(readlink -f "${PYBIN:-/usr/bin/python3}")
nm -D --defined-only "$PYBIN" | awk '$2 == "T" {print $3}' | grep -v '@' | sort -u > "$W/names"
"$PYBIN" -u -c '
import ctypes, sys, time
for n in open(sys.argv[1]).read().split():
    try:
        print(n, ctypes.cast(getattr(ctypes.pythonapi, n), ctypes.c_void_p).value)
    except AttributeError:
        pass
print("ready")
time.sleep(3600)' "$W/names" > "$W/addrs" &
PY=$!
trap 'kill $PY 2> /dev/null || true' EXIT
for _ in $(seq 100); do grep -q ready "$W/addrs" && break; sleep 0.1; done

timed() { # NAME COMMAND...: "seconds KiB" in $W/NAME.time
	local name=$1; shift
	/usr/bin/time -f '%e %M' -o "$W/$name.time" "$@" > "$W/$name.out" 2> "$W/$name.err" || true
	tail -1 "$W/$name.time"
}

# captures SIDE N K: K capture files of N records, one per distinct user
# stack (two frames), durations varying per capture
captures() {
	local side=$1 n=$2 k=$3 i
	for i in $(seq "$k"); do
		python3 - "$W/addrs" "$n" "$i" "$side" "$PY" "$boot" <<'EOF' | "$MK" "$W/$side-$n-$i.bin"
import random, sys
addrs = [int(l.split()[1]) for l in open(sys.argv[1]) if l.strip() != "ready"]
n, cap, side, pid, boot = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
import time
start = time.clock_gettime_ns(time.CLOCK_MONOTONIC)   # after the process started: its maps
rnd = random.Random(cap * 7 + (side == "new"))
m = len(addrs)
print("header " + boot)
print("cpu 0")
for s in range(n):
    a, b = addrs[s % m], addrs[(s // m + 1 + s % 7) % m]
    dur = int(rnd.lognormvariate(13.8, 0.5) * (1.3 if side == "new" and s % 10 == 0 else 1))
    print(f"rec cpu=0 start={start} dur={dur} pid={pid} tgid={pid} comm=py u={a + 16:#x},{b + 16:#x}")
EOF
	done
}

echo "## 7. diff at scale"
echo
echo "\`scripts/bench-diff.sh\` on $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'),"
echo "$(nproc) CPUs: \`i915-stalls diff OLD1..5 -- NEW1..5\` (text), one record per distinct"
echo "user stack in each capture, frames resolved in a live process:"
echo
echo "| stacks a capture | distinct stacks (names) | records | time | per stack | peak RSS |"
echo "|---|---|---|---|---|---|"
for n in 5000 10000 20000 40000; do
	captures old $n 5
	captures new $n 5
	read -r t kb < <(timed "table-$n" "$R" diff "$W"/old-$n-?.bin -- "$W"/new-$n-?.bin)
	# the stacks are told apart: resolved, not "[unknown]" (some addresses
	# resolve to the same name, or to none: "[python3.11]")
	k=$(sed -n 's/^# 20 of \([0-9]*\) user stacks shown.*/\1/p' "$W/table-$n.out")
	[ "${k:-0}" -ge $((n * 3 / 4)) ] ||
		{ echo "bench-diff: ${k:-no} stacks of $n" >&2; tail -n 3 "$W/table-$n.err" >&2; exit 1; }
	awk -v n=$n -v k="$k" -v t="$t" -v kb="$kb" 'BEGIN {
		printf "| %d | %d | %d | %.2f s | %.1f us | %.0f MiB |\n", n, k, 10 * n, t, 1e6 * t / k, kb / 1024 }'
done
rm -f "$W"/old-*.bin "$W"/new-*.bin

# kernel stacks for the SVG: 1000 symbols, stack s = (s % 1000, s / 1000)
awk 'BEGIN { printf "ffffffff81000000 T _stext\n";
	for (i = 0; i < 1000; i++) printf "%x T kfn_%d\n", 0xffffffff81100000 + i * 256, i }' \
	> "$W/kallsyms"
ksvg() { # OUT N SIDE: N records in stall files of 50000, concatenated
	local out=$1 n=$2 side=$3 part
	: > "$out"
	for part in $(seq 0 50000 $((n - 1))); do
		python3 - "$part" "$n" "$side" <<'EOF' | "$MK" "$W/part.bin"
import sys
start, n, side = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
print("header kernel_anchor=_stext kernel_anchor_addr=0xffffffff81000000")
print("cpu 0")
for s in range(start, min(n, start + 50000)):
    if side == "new" and s % 10 == 0:
        continue            # vanished in NEW
    a, b = 0xffffffff81100000 + (s % 1000) * 256, 0xffffffff81100000 + (s // 1000 % 1000) * 256
    dur = 100000 + (s % 13) * 1000 * (2 if side == "new" else 1)
    print(f"rec cpu=0 dur={dur} pid=7 tgid=7 comm=app k={a + 16:#x},{b + 16:#x}")
EOF
		cat "$W/part.bin" >> "$out"
	done
}
echo
echo "\`i915-stalls diff -F svg --offline --kallsyms K OLD NEW\`: one capture a"
echo "side, every stack distinct (NEW lacks a tenth of them: the vanished pane):"
echo
echo "| distinct stacks | \`--cache-size\` | time | peak RSS | SVG |"
echo "|---|---|---|---|---|"
for n in 250000 1000000; do
	ksvg "$W/kold-$n.bin" $n old
	ksvg "$W/knew-$n.bin" $n new
	for cs in 128 16; do
		read -r t kb < <(timed "svg-$n-$cs" "$R" diff -F svg --offline --kallsyms "$W/kallsyms" \
			--cache-size=$cs "$W/kold-$n.bin" "$W/knew-$n.bin")
		grep -q 'id="pane-gone"' "$W/svg-$n-$cs.out" ||
			{ echo "bench-diff: no SVG for $n" >&2; cat "$W/svg-$n-$cs.err" >&2; exit 1; }
		awk -v n=$n -v cs=$cs -v t="$t" -v kb="$kb" -v sz="$(stat -c %s "$W/svg-$n-$cs.out")" 'BEGIN {
			printf "| %d | %d MiB | %.2f s | %.0f MiB | %.0f KiB |\n", n, cs, t, kb / 1024, sz / 1024 }'
	done
	rm -f "$W/kold-$n.bin" "$W/knew-$n.bin"
done
echo
echo "The folded stacks spill sorted runs to temporary files past the budget"
echo "(half of \`--cache-size\` a side) and are merged when read; the SVG keeps the"
echo "frames at least 0.1 px wide, at most 11,800 a row. So the peak RSS follows"
echo "\`--cache-size\` (the default 128 MiB fills before the first spill), not the"
echo "number of stacks. In the table, a stack costs its symbolization, its place"
echo "in the hash tables and one Mann-Whitney test; the intervals are computed"
echo "for the rows shown only."
