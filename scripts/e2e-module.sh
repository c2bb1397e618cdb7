#!/bin/bash
# SPDX-License-Identifier: MIT
#
# make e2e-module: i915 as a distribution builds it.  Boots the kernel
# scripts/check-build.sh built with DRM_I915=m and the log on (kept in
# $BUILD/check-modules with its modules), with the end-to-end initramfs and
# /lib/modules added to it, and init_on_free=1 (a use after free of freed
# memory reads zeroes).  The guest (e2e/guest/scenario.sh, run_module)
# loads i915.ko with modprobe, stalls gpu-demo on the mock GPU, records the
# log with /proc/kallsyms, and unloads i915.  e2e/check_mod.py holds the
# stalls to what the client did, their kernel frames in i915.ko to their
# names (the host reader, with --vmlinux and --i915-module, and with the
# saved kallsyms), and the unload to a clean console.
#
# Writes "ok NAME" / "not ok NAME" lines to $RESULTS/e2e-module.results;
# work files in $OUT/e2e-module.  Needs make check-build first (make test
# runs it before).
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${CACHE:-${I915_STALL_CACHE:-$HOME/.cache/i915-stall}}
BUILD=${BUILD:-$CACHE/build}
OUT=${OUT:-$TOP/out}
RESULTS=${RESULTS:-$OUT/results}
E2E_OUT=$OUT/e2e-module
E2E_TIMEOUT=${E2E_TIMEOUT:-300}
MOD=$BUILD/check-modules
mkdir -p "$RESULTS" "$E2E_OUT"
res=$RESULTS/e2e-module.results
: > "$res"

# shellcheck source=e2e/lib.sh
. "$TOP/e2e/lib.sh"

result() { e2e_result "$@"; }
finish() { e2e_finish e2e-module; }

if [ ! -f "$MOD/bzImage" ] || [ ! -f "$MOD/vmlinux" ] ||
   ! ls "$MOD"/lib/modules/*/kernel/drivers/gpu/drm/i915/i915.ko > /dev/null 2>&1; then
	e2e_log "no modular kernel in $MOD: run 'make check-build' first (make test does)"
	result 1 e2e-module-kernel
	finish
fi
grep -q '^CONFIG_DRM_I915=m' "$MOD/.config" && grep -q '^CONFIG_DRM_I915_STALL_LOG=y' "$MOD/.config"
result $? e2e-module-kernel

if ! e2e_build; then
	result 1 e2e-module-build
	finish
fi
# the initramfs of make e2e, and /lib/modules after it: the kernel unpacks
# both archives of the one file, the second into the first's tree
initrd=$E2E_OUT/initramfs-modules.cpio.gz
{
	cat "$E2E_INITRD"
	(cd "$MOD" && find lib | cpio --quiet -o -H newc -R 0:0 | gzip -c)
} > "$initrd" || { result 1 e2e-module-build; finish; }
result 0 e2e-module-build

E2E_INITRD=$initrd E2E_KERNEL=$MOD/bzImage E2E_APPEND="init_on_free=1" \
	e2e_boot module "$E2E_TIMEOUT"
rc=$?
result $rc e2e-module-guest-boot
[ $rc = 0 ] || finish

hz=$(sed -n 's/^CONFIG_HZ=//p' "$MOD/.config")
python3 "$TOP/e2e/check_mod.py" --guest "$E2E_OUT/module/guest" --rootfs "$E2E_ROOTFS" \
	--reader "$E2E_READER" --vmlinux "$MOD/vmlinux" --module "$MOD/i915.ko.debug" \
	--hz "${hz:-250}" --work "$E2E_OUT/module/host" \
	--console "$E2E_OUT/module/console.log" >> "$res"
rc=$?
grep '^not ok ' "$res" >&2
[ $rc = 0 ] || [ $rc = 1 ] || result 1 e2e-module-check-py
finish
