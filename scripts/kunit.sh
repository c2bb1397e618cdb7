#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The KUnit suites of the series in QEMU x86_64 (TCG, 4 vCPUs), on the
# tree in $KBASE as it stands.  The kernel is the series' .kunitconfig
# plus kunit/project.kunitconfig (SMP, KASAN, lockdep, ...).  Writes one
# result line per test case, and one for "no KASAN/lockdep/WARN report".
#
#   kunit.sh        that kernel, in $BUILD/kunit (also the e2e guest's)
#   kunit.sh kcsan  kunit/kcsan.kunitconfig instead: KCSAN, no KASAN, in
#                   $BUILD/kunit-kcsan; results as kunit-kcsan.*, where any
#                   KCSAN report fails kunit-kcsan.no-kernel-reports
#   kunit.sh up     kunit/up.kunitconfig: no SMP (so no PER_VMA_LOCK), one
#                   vCPU, the user suite only, in $BUILD/kunit-up
#
# I915_STALL_KVM=1 boots with -accel kvm instead of TCG, where /dev/kvm
# opens (scripts/probe.sh); where it does not, TCG, saying so.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
KBASE=${KBASE:?}
BUILD=${BUILD:?}
OUT=${OUT:-$top/out}
RESULTS=${RESULTS:-$OUT/results}
JOBS=${JOBS:-$(nproc)}
mkdir -p "$RESULTS" "$OUT"

name=kunit
config=$top/kunit/project.kunitconfig
suites='i915_stall*'
smp=4
if [ "${1:-}" = kcsan ]; then
	name=kunit-kcsan
	config=$top/kunit/kcsan.kunitconfig
elif [ "${1:-}" = up ]; then
	name=kunit-up
	config=$top/kunit/up.kunitconfig
	suites='i915_stall_user*'
	smp=1
fi
# the series' .kunitconfig, under the project's; not under up's (it sets SMP)
base=--kunitconfig=drivers/gpu/drm/i915/tests/.kunitconfig
[ "$name" = kunit-up ] && base=
kdir=$BUILD/$name
json=$OUT/$name.json
log=$OUT/$name.out
res=$RESULTS/$name.results
cc=gcc
command -v ccache >/dev/null && cc="ccache gcc"
# One host thread for all vCPUs: multi-threaded TCG can run a stale
# translation of code the kernel just patched (a static key flipped with
# text_poke_bp()), an "Oops: int3" seen here in sched_clock_cpu() at boot.
qemu_args="-smp $smp -accel tcg,thread=single"
if [ "${I915_STALL_KVM:-0}" = 1 ]; then
	# shellcheck source=scripts/probe.sh
	. "$top/scripts/probe.sh"
	if probe kvm; then
		qemu_args="-smp $smp -accel kvm"
	else
		echo "$name: I915_STALL_KVM=1, but $probe_why: TCG instead" >&2
	fi
fi

rm -f "$json"
mkdir -p "$BUILD"	# kunit.py makes only the last level of --build_dir
echo "$name: building and booting in $kdir (log $log)"
(cd "$KBASE" && python3 tools/testing/kunit/kunit.py run --arch=x86_64 \
	${base:+"$base"} \
	--kunitconfig="$config" \
	--build_dir="$kdir" --jobs="$JOBS" --make_options "CC=$cc" \
	--qemu_args="$qemu_args" --timeout=1500 --json="$json" \
	"$suites") > "$log" 2>&1
rc=$?
tail -n 25 "$log"
python3 "$top/scripts/kunit-results.py" "$json" "$kdir/test.log" "$name" > "$res"
status=$?
echo "$name: kunit.py exit $rc; $(grep -c '^ok' "$res") ok, $(grep -c '^not ok' "$res") not ok"
[ $rc = 0 ] && [ $status = 0 ]
