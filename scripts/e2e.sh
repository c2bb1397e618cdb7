#!/bin/bash
# SPDX-License-Identifier: MIT
#
# make e2e: the whole chain in QEMU, without Intel hardware.  One boot of
# the KUnit kernel image (kunit.enable=0) with the project's initramfs
# (e2e/guest): the demo client (e2e/client) blocks in i915_request_wait()
# through i915_stalls_mock_wait, a shell cats the debugfs file, and
# `i915-stalls record` saves the maps; the results come back over ttyS1 and
# the host-built reader symbolizes them against the initramfs' own files.
# e2e/check.py asserts every stall, once, with its exact user and kernel
# chain, site, pid/tid/comm and duration; the exited client; disable,
# threshold, clear; EINVAL on bad control-file writes; and vkapp, the
# Vulkan-shaped client, whose syncobj waits through Debian's libdrm must each
# be recorded once with their site, fence count, sync flags, fence, owner,
# the user frames a frame-pointer walk can reach, and duration; and
# stallpie (issue 12), a PIE client with two libraries waiting through
# glibc's write() and ioctl(), built with and without frame pointers, gone
# before the cat: its format 1.2 records (registers, snapshot, maps with
# build-ids, FRAME_ANON, a library replaced on disk) and the reader's
# chains by CFI in the guest, with --symfs and with a build-id tree only
# (e2e/check_pie.py); vkapp's waits also read through tracefs and Debian's
# perf, with the log on and off (issue 23); and wlsync (issue 24), a
# compositor waiting on its client's fences passed over a Unix socket with
# a busy client's work queued ahead: each stall joined to the client's
# submit record by name after all three exited, and the join broken on
# purpose in copies of the file (e2e/check_wl.py).
#
# Writes "ok NAME" / "not ok NAME" lines to $RESULTS/e2e.results, and
# "skip NAME: REASON" for a host check that needs what this host lacks
# (e2e/client/check.sh, scripts/probe.sh); work files in $OUT/e2e.  Exit
# status non-zero if any check failed.
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${CACHE:-${I915_STALL_CACHE:-$HOME/.cache/i915-stall}}
BUILD=${BUILD:-$CACHE/build}
OUT=${OUT:-$TOP/out}
RESULTS=${RESULTS:-$OUT/results}
E2E_OUT=$OUT/e2e
E2E_TIMEOUT=${E2E_TIMEOUT:-300}
mkdir -p "$RESULTS" "$E2E_OUT"
res=$RESULTS/e2e.results
: > "$res"

# shellcheck source=e2e/lib.sh
. "$TOP/e2e/lib.sh"

result() { e2e_result "$@"; }
finish() { e2e_finish e2e; }

kernel=$(e2e_kernel)
if [ ! -f "$kernel" ]; then
	e2e_log "no kernel image at $kernel: run 'make kunit' first (make test does)"
	result 1 e2e-kernel-image
	finish
fi
result 0 e2e-kernel-image
if e2e_kernel_has_feature; then
	result 0 e2e-kernel-has-mock-wait
else
	e2e_log "$E2E_KDIR/vmlinux has no i915_stalls_mock_wait: the kernel was built" \
		"without the series' mock control file; the guest will only smoke-test"
	result 1 e2e-kernel-has-mock-wait
fi
if e2e_kernel_has_mock_fence; then
	result 0 e2e-kernel-has-mock-fence
else
	e2e_log "$E2E_KDIR/vmlinux has no i915_stalls_mock_fence: the kernel was built" \
		"without issue 11's mock fences; vkapp's syncobj waits cannot run"
	result 1 e2e-kernel-has-mock-fence
fi
hz=$(e2e_kernel_hz)
[ -n "$hz" ] || { e2e_log "no CONFIG_HZ in $E2E_KDIR/.config, assuming 250"; hz=250; }

# the client on the host first: its own behaviour, independent of the kernel
if e2e_build; then
	result 0 e2e-build
	# result lines into $res, the failures and skips shown; its reasons
	# (stderr) shown only, never taken for result lines
	n0=$(grep -c '^not ok ' "$res")
	bash "$TOP/e2e/client/check.sh" "$E2E_CLIENT" | tee -a "$res" | grep -v '^ok \|^skip ' >&2
	rc=${PIPESTATUS[0]}
	# a failure that wrote no "not ok" line (the script stopped early)
	[ "$rc" = 0 ] || [ "$(grep -c '^not ok ' "$res")" != "$n0" ] || result 1 e2e-client-check-sh
else
	result 1 e2e-build
	finish
fi

if e2e_kernel_has_feature; then
	mode="test"
else
	mode=smoke
fi
if ! e2e_boot "$mode" "$E2E_TIMEOUT"; then
	result 1 e2e-guest-boot
	finish
fi
result 0 e2e-guest-boot
guest=$E2E_OUT/$mode/guest
if [ "$mode" = smoke ]; then
	grep -q '"event":"exit","tag":"smoke","pid":[0-9]*,"failures":0' "$guest/client-smoke.jsonl" 2>/dev/null
	result $? e2e-guest-smoke
	finish
fi

python3 "$TOP/e2e/check.py" --guest "$guest" --rootfs "$E2E_ROOTFS" \
	--reader "$E2E_READER" --vmlinux "$E2E_KDIR/vmlinux" --hz "$hz" \
	--work "$E2E_OUT/$mode/host" --console "$E2E_OUT/$mode/console.log" >> "$res"
rc=$?
grep '^not ok ' "$res" >&2
[ $rc = 0 ] || [ $rc = 1 ] || result 1 e2e-check-py
finish
