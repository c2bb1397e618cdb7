#!/bin/bash
# SPDX-License-Identifier: MIT
#
# make bench: measure what a stall record costs and how fast the reader is,
# and write docs/performance.md.  Kernel figures come from one boot of the
# end-to-end guest (e2e.mode=bench, see e2e/guest/scenario.sh run_bench)
# on a build of the tree in $KBASE without debug options
# (kunit/bench.kunitconfig, in $BUILD/bench: about 12 minutes cold, less
# with ccache); reader figures from the host.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:?}
OUT=${OUT:-$TOP/out}
E2E_OUT=$OUT/bench-e2e
E2E_KDIR=$BUILD/bench
W=$OUT/bench
mkdir -p "$W" "$BUILD"
export TOP BUILD E2E_OUT E2E_KDIR

# The kernel: the series as it stands in $KBASE, no KASAN or lockdep.
cc=gcc
command -v ccache >/dev/null && cc="ccache gcc"
(cd "${KBASE:?}" && python3 tools/testing/kunit/kunit.py build --arch=x86_64 \
	--kunitconfig=drivers/gpu/drm/i915/tests/.kunitconfig \
	--kunitconfig="$TOP/kunit/bench.kunitconfig" \
	--build_dir="$E2E_KDIR" --jobs="${JOBS:-$(nproc)}" --make_options "CC=$cc") \
	> "$W/kernel-build.log" 2>&1 ||
	{ echo "bench: building the kernel failed, see $W/kernel-build.log" >&2; exit 1; }
# shellcheck source=../e2e/lib.sh
. "$TOP/e2e/lib.sh"

grep -aq i915_stalls_mock_bench "$E2E_KDIR/vmlinux" ||
	{ echo "bench: the kernel has no i915_stalls_mock_bench: run make tree" >&2; exit 1; }

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
