#!/bin/bash
# SPDX-License-Identifier: MIT
#
# make bench: measure what a stall record costs and how fast the reader is,
# and write docs/performance.md.  Kernel figures come from one boot of the
# end-to-end guest (e2e.mode=bench, see e2e/guest/scenario.sh run_bench)
# on the KUnit kernel; reader figures from the host.  Needs `make kunit`
# first (the kernel) and takes about five minutes.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:?}
OUT=${OUT:-$TOP/out}
E2E_OUT=$OUT/bench-e2e
W=$OUT/bench
mkdir -p "$W"
export TOP BUILD E2E_OUT
# shellcheck source=../e2e/lib.sh
. "$TOP/e2e/lib.sh"

[ -f "$(e2e_kernel)" ] && e2e_kernel_has_feature ||
	{ echo "bench: no kernel with the stall log mock at $(e2e_kernel): run make kunit" >&2; exit 1; }
grep -aq i915_stalls_mock_bench "$E2E_KDIR/vmlinux" ||
	{ echo "bench: the kernel has no i915_stalls_mock_bench: run make tree kunit" >&2; exit 1; }

e2e_build
e2e_boot bench 900 1
G=$E2E_OUT/bench/guest
[ "$(cat "$G/rc")" = 0 ] || { echo "bench: the guest scenario failed:" >&2; cat "$G/scenario.log" >&2; exit 1; }

# The patched-out jumps in the hooked wait function.
objdump -d --no-show-raw-insn "$E2E_KDIR/vmlinux" \
	--disassemble=i915_request_wait_timeout > "$W/i915_request_wait_timeout.s"

# Reader: a log of a million records, made of the client's real stalls.
R=$TOP/userspace/i915-stalls
make -s -C "$TOP/userspace"
python3 "$TOP/scripts/bench-grow.py" "$G/client.ar" 1000000 "$W/big.ar" "$W/big.bin"
python3 "$TOP/scripts/bench-grow.py" "$G/client.ar" 100000 "$W/small.ar" "$W/small.bin"
sym=(--offline --symfs "$E2E_ROOTFS" --vmlinux "$E2E_KDIR/vmlinux")
timed() { # NAME COMMAND...: wall seconds and peak RSS into $W/NAME.time
	local name=$1; shift
	/usr/bin/time -f '%e %M' -o "$W/$name.time" "$@" > /dev/null 2> "$W/$name.err" || true
}
for i in 1 2 3; do
	timed "report-$i" "$R" report "${sym[@]}" "$W/big.ar"
	timed "stream-$i" "$R" report --stream "${sym[@]}" "$W/big.bin"
done
timed stream-small "$R" report --stream "${sym[@]}" "$W/small.bin"
timed summary "$R" summary "${sym[@]}" "$W/big.ar"

# perf script on about 100k sched_switch samples with call chains, here.
perf record -q -e sched:sched_switch -g -o "$W/perf.data" -- \
	perf bench sched pipe -l 50000 > /dev/null 2>&1 || true
perf_samples=$(perf script -i "$W/perf.data" -F event 2>/dev/null | grep -c sched_switch || true)
for i in 1 2 3; do
	timed "perf-$i" perf script -i "$W/perf.data"
done

python3 "$TOP/scripts/bench-report.py" --guest "$G" --work "$W" \
	--perf-samples "${perf_samples:-0}" --kernel "$(e2e_kernel)" \
	> "$TOP/docs/performance.md"
echo "bench: wrote docs/performance.md"
