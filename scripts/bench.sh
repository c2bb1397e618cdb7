#!/bin/bash
# SPDX-License-Identifier: MIT
#
# make bench: measure what a stall record costs and how fast the reader is,
# and write docs/performance.md.  I915_STALLS may name the reader binary to
# measure (default: build userspace/).  Kernel figures come from one boot of the
# end-to-end guest (e2e.mode=bench, see e2e/guest/scenario.sh run_bench)
# on a build of the tree in $KBASE without debug options
# (kunit/bench.kunitconfig, in $BUILD/bench: about 12 minutes cold, less
# with ccache), and from boots alternating between that kernel and one
# built without the stall log (kunit/bench-off.kunitconfig, in
# $BUILD/bench-off), e2e.mode=waits; reader figures from the host.
#
# The guest runs with QEMU's -icount shift=0: its clock advances one
# nanosecond per guest instruction, so what it times is an instruction
# count, the same from run to run whatever the host is doing.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:?}
OUT=${OUT:-$TOP/out}
E2E_OUT=$OUT/bench-e2e
ON=$BUILD/bench
OFF=$BUILD/bench-off
declare -A KDIR=([on]=$ON [off]=$OFF)
E2E_KDIR=$ON
E2E_QEMU_ARGS="-icount shift=0"
W=$OUT/bench
# BENCH_KEEP_WAITS=1: keep figure 1's boots of the last run ($W/waits.jsonl,
# $W/syncwaits.jsonl, and $W/submits.jsonl for figure 2e if it has it),
# which only a change to the disabled path can move, and sections 5b and 7
# of docs/performance.md; measure the rest again.
KEEP=${BENCH_KEEP_WAITS:-0}
if [ "$KEEP" = 1 ]; then
	[ -s "$W/waits.jsonl" ] && [ -s "$W/syncwaits.jsonl" ] ||
		{ echo "bench: BENCH_KEEP_WAITS=1 but no earlier waits in $W" >&2; exit 1; }
	find "$W" -mindepth 1 -maxdepth 1 ! -name 'waits.jsonl' ! -name 'syncwaits.jsonl' \
		! -name 'submits.jsonl' -exec rm -rf {} +
	cp "$TOP/docs/performance.md" "$W/performance.old.md"
else
	rm -rf "$W"
fi
mkdir -p "$W" "$BUILD"
export TOP BUILD E2E_OUT E2E_KDIR E2E_QEMU_ARGS

# The kernels: the series as it stands in $KBASE, no KASAN or lockdep,
# with the stall log and without it.
cc=gcc
command -v ccache >/dev/null && cc="ccache gcc"
kbuild() { # DIR KUNITCONFIG...
	local dir=$1
	shift
	(cd "${KBASE:?}" && python3 tools/testing/kunit/kunit.py build --arch=x86_64 \
		"${@/#/--kunitconfig=}" --build_dir="$dir" \
		--jobs="${JOBS:-$(nproc)}" --make_options "CC=$cc") \
		> "$W/kernel-build-${dir##*/}.log" 2>&1 ||
		{ echo "bench: building $dir failed, see $W/kernel-build-${dir##*/}.log" >&2; exit 1; }
}
# The series' .kunitconfig, less the default tracers it turns on for its
# tracefs tests: the bench kernel's function tracer excludes them, and
# kunit.py refuses two values for one option.
grep -v '^CONFIG_ENABLE_DEFAULT_TRACERS=' "$KBASE/drivers/gpu/drm/i915/tests/.kunitconfig" \
	> "$W/series.kunitconfig"
kbuild "$ON" "$W/series.kunitconfig" "$TOP/kunit/bench.kunitconfig"
[ "$KEEP" = 1 ] ||
	kbuild "$OFF" "$TOP/kunit/bench.kunitconfig" "$TOP/kunit/bench-off.kunitconfig"
# shellcheck source=../e2e/lib.sh
. "$TOP/e2e/lib.sh"

grep -aq i915_stalls_mock_bench "$ON/vmlinux" ||
	{ echo "bench: the kernel has no i915_stalls_mock_bench: run make tree" >&2; exit 1; }
# figures 1c, 2d and 2e: the second mock device, and the modes that came with it
for k in on $([ "$KEEP" = 1 ] || echo off); do
	grep -aq i915_stalls_mock_other "${KDIR[$k]}/vmlinux" ||
		{ echo "bench: ${KDIR[$k]} has no i915_stalls_mock_other (figures 1c, 2d, 2e): a tree from before them" >&2; exit 1; }
done
if ! grep -aq i915_stalls_mock_wait "$OFF/vmlinux" || grep -q '^CONFIG_DRM_I915_STALL_LOG=y' "$OFF/.config"; then
	echo "bench: $OFF is not a mock GPU kernel without the stall log" >&2
	exit 1
fi

e2e_build
e2e_boot bench 1500 1
G=$E2E_OUT/bench/guest
[ "$(cat "$G/rc")" = 0 ] || { echo "bench: the guest scenario failed:" >&2; cat "$G/scenario.log" >&2; exit 1; }

# 2d and 2e's preemption-disabled sections again, on one vCPU (the later
# -smp wins over e2e_boot's): there no other vCPU's instructions fall in
# a section's time.
E2E_QEMU_ARGS="-icount shift=0 -smp 1" e2e_boot sections 900 0
S1=$E2E_OUT/sections/guest
[ "$(cat "$S1/rc")" = 0 ] && [ "$(cat "$S1/sections-cpus.txt")" = 1 ] ||
	{ echo "bench: the one-vCPU sections failed (cpus $(cat "$S1/sections-cpus.txt")):" >&2
	  cat "$S1/scenario.log" >&2; exit 1; }
cp "$S1/bench.jsonl" "$W/sections.jsonl"

# 1. The same waits with the log compiled in but disabled and compiled out,
#    boots alternating.
for i in 1 2 3 4 5; do
	[ "$KEEP" = 1 ] && break
	for k in on off; do
		E2E_KDIR=${KDIR[$k]}
		e2e_boot waits 600 0
		[ "$(cat "$E2E_OUT/waits/guest/rc")" = 0 ] ||
			{ echo "bench: waits on $E2E_KDIR failed:" >&2; cat "$E2E_OUT/waits/guest/scenario.log" >&2; exit 1; }
		sed "s/^{/{\"kernel\":\"$k\",\"boot\":$i,/" "$E2E_OUT/waits/guest/waits.jsonl" >> "$W/waits.jsonl"
		sed "s/^{/{\"kernel\":\"$k\",\"boot\":$i,/" "$E2E_OUT/waits/guest/syncwaits.jsonl" >> "$W/syncwaits.jsonl"
		sed "s/^{/{\"kernel\":\"$k\",\"boot\":$i,/" "$E2E_OUT/waits/guest/submits.jsonl" >> "$W/submits.jsonl"
	done
done
E2E_KDIR=$ON

# The patched-out jumps in the hooked wait function, and the same function
# without the log.
for k in on off; do
	d=${KDIR[$k]}
	objdump -d --no-show-raw-insn "$d/vmlinux" \
		--disassemble=i915_request_wait_timeout > "$W/i915_request_wait_timeout-$k.s"
	python3 "$TOP/scripts/jump-labels.py" "$d/vmlinux" i915_request_wait_timeout \
		> "$W/jump-labels-$k.txt"
	# DRM core's syncobj wait, with its hook (patch 10) in both kernels
	f=$(nm "$d/vmlinux" | awk '$3 ~ /^drm_syncobj_array_wait_timeout/ && !n++ { print $3 }')
	objdump -d --no-show-raw-insn "$d/vmlinux" --disassemble="$f" > "$W/drm_syncobj_wait-$k.s"
	python3 "$TOP/scripts/jump-labels.py" "$d/vmlinux" "$f" > "$W/jump-labels-syncobj-$k.txt"
done

# Reader: a log of a million records, made of the client's real stalls.
R=${I915_STALLS:-$TOP/userspace/i915-stalls}
[ -n "${I915_STALLS:-}" ] || make -s -C "$TOP/userspace"
python3 "$TOP/scripts/bench-grow.py" "$G/client.ar" 1000000 "$W/big.ar" "$W/big.bin"
python3 "$TOP/scripts/bench-grow.py" "$G/client.ar" 100000 "$W/small.ar" "$W/small.bin"
sym=(--offline --symfs "$E2E_ROOTFS" --vmlinux "$E2E_KDIR/vmlinux")
# the chains as report prints them, for their depths
"$R" report -F json "${sym[@]}" "$G/client.ar" > "$W/client-report.json" || [ $? = 1 ]
# timed NAME INPUT COMMAND...: wall seconds, peak RSS, user and system CPU
# seconds into $W/NAME.time.  INPUT is read first, so that no run times the
# disk: page cache left idle between runs may have been reclaimed.
timed() {
	local name=$1 in=$2; shift 2
	cat "$in" > /dev/null
	/usr/bin/time -f '%e %M %U %S' -o "$W/$name.time" "$@" > /dev/null 2> "$W/$name.err" || true
}
for i in 1 2 3; do
	timed "report-$i" "$W/big.ar" "$R" report "${sym[@]}" "$W/big.ar"
	timed "stream-$i" "$W/big.bin" "$R" report --stream "${sym[@]}" "$W/big.bin"
done
timed stream-small "$W/small.bin" "$R" report --stream "${sym[@]}" "$W/small.bin"
for i in 1 2 3; do
	timed "summary-$i" "$W/big.ar" "$R" summary "${sym[@]}" "$W/big.ar"
done

# perf script on about 1M sched_switch samples with call chains, here.
perf record -q -e sched:sched_switch -g -o "$W/perf.data" -- \
	perf bench sched pipe -l 500000 > /dev/null 2>&1 || true
perf_samples=$(perf script -i "$W/perf.data" -F event 2>/dev/null | grep -c sched_switch || true)
# its call chains: samples, kernel frames, user frames
perf script -i "$W/perf.data" -F ip 2>/dev/null |
	awk 'NF == 0 { if (n) s++; n = 0; next }
	     { n++; if (length($1) == 16 && substr($1, 1, 1) == "f") k++; else u++ }
	     END { if (n) s++; print s + 0, k + 0, u + 0 }' > "$W/perf-depth.txt"
for i in 1 2 3; do
	timed "perf-$i" "$W/perf.data" perf script -i "$W/perf.data"
done
# For comparison, not the goal: perf script on samples that carry a copy of
# the user stack (--call-graph dwarf, 2 KiB as the records' default
# snapshot), which it unwinds with CFI (libdw) as the reader does 1.2 records.
perf record -q -e sched:sched_switch --call-graph dwarf,2048 -o "$W/perf-dwarf.data" -- \
	perf bench sched pipe -l 500000 > /dev/null 2>&1 || true
dwarf_samples=$(perf script -i "$W/perf-dwarf.data" -F event 2>/dev/null | grep -c sched_switch || true)
for i in 1 2 3; do
	timed "pdwarf-$i" "$W/perf-dwarf.data" perf script -i "$W/perf-dwarf.data"
done
rm -f "$W/perf-dwarf.data"	# about 2 GB

python3 "$TOP/scripts/bench-report.py" --guest "$G" --work "$W" \
	--perf-samples "${perf_samples:-0}" --perf-dwarf-samples "${dwarf_samples:-0}" \
	--kernel "$(e2e_kernel)" > "$TOP/docs/performance.md"
if [ "$KEEP" = 1 ]; then
	# sections 5b and 7 as the last full run wrote them
	python3 - "$W/performance.old.md" "$TOP/docs/performance.md" <<'PY'
import sys
old, new = open(sys.argv[1]).read(), open(sys.argv[2]).read()
a, b = "<!-- bench-reader:", "<!-- bench-reader end -->"
block = old[old.index(a):old.index(b) + len(b)] + "\n\n" if a in old else ""
tail = old[old.index("## 7. "):] if "## 7. " in old else ""
i = new.index("## 6. ")
new = new[:i] + block + new[i:]
# and section 5b's rows of the goal table, after figure 5's
rows = [l for l in old.partition("\n## 1.")[0].split("\n") if l.startswith("| 5b |")]
head, sep, rest = new.partition("\n## 1.")
lines = head.split("\n")
last5 = max((j for j, l in enumerate(lines) if l.startswith("| 5 |")), default=None)
if rows and last5 is not None:
    lines[last5 + 1:last5 + 1] = rows
    new = "\n".join(lines) + sep + rest
open(sys.argv[2], "w").write(new.rstrip("\n") + "\n\n" + tail)
PY
	echo "bench: wrote docs/performance.md (figure 1, sections 5b and 7 kept)"
	exit 0
fi
# diff at scale: host only, its own section
I915_STALLS=$R bash "$TOP/scripts/bench-diff.sh" "$W/diff" >> "$TOP/docs/performance.md"
echo "bench: wrote docs/performance.md"
# section 5b: the reader on repeated and on distinct stacks (host only)
I915_STALLS=$R bash "$TOP/scripts/bench-reader.sh"
