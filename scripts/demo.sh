#!/bin/bash
# SPDX-License-Identifier: MIT
#
# make demo: what the i915 stall log does, in one command, without Intel
# hardware.  Boots the kernel with the series in QEMU (the KUnit image, with
# i915's mock GPU), runs a small graphics-like client whose frames wait on
# the GPU (main -> render_frame -> submit_batch -> wait_for_gpu -> gpu_wait
# in libgpu.so), then a Vulkan-shaped one (vkapp: vkWaitForFences and
# vkWaitSemaphores through a loader, a driver and Debian's libdrm, as DRM
# syncobj waits on the mock GPU's render node), cats
# /sys/kernel/debug/dri/N/i915_stalls and records the processes' maps in the
# guest, then symbolizes it all here with
# i915-stalls: the report, the summary, and a flame graph in SVG.
#
# Builds what is missing first; a missing kernel means `make tree kunit`,
# which takes a long while (tens of minutes on 2 cores).
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${CACHE:-${I915_STALL_CACHE:-$HOME/.cache/i915-stall}}
BUILD=${BUILD:-$CACHE/build}
OUT=${OUT:-$TOP/out}
E2E_OUT=$OUT/e2e
DEMO=$OUT/demo
export CACHE BUILD OUT

# shellcheck source=e2e/lib.sh
. "$TOP/e2e/lib.sh"

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

if ! e2e_kernel_has_feature; then
	say "No kernel with the stall log in $E2E_KDIR yet: building it with"
	echo "   'make tree kunit' (kernel tree + KUnit image; this takes a long while)"
	make -C "$TOP" tree kunit || true	# the image is what we need, even if a test failed
	e2e_kernel_has_feature || { echo "demo: still no kernel with i915_stalls_mock_wait" >&2; exit 1; }
fi
e2e_kernel_has_mock_fence ||
	{ echo "demo: $E2E_KDIR/vmlinux has no i915_stalls_mock_fence (issue 11): rebuild with 'make kunit'" >&2; exit 1; }

say "Building the demo client, the reader and the guest's initramfs"
e2e_build

say "Booting the guest (QEMU, TCG, 4 vCPUs; a KASAN kernel: about half a minute)"
echo "   in the guest: echo 1 > i915_stalls_enable; gpu-demo renders 4 frames, its"
echo "   gpu-worker thread 2 more, each waiting in i915_request_wait() on the mock GPU;"
echo "   vkapp waits 3 times in vkWaitForFences() and its vk-timeline thread twice in"
echo "   vkWaitSemaphores(), each a DRM_IOCTL_SYNCOBJ_(TIMELINE_)WAIT from libdrm;"
echo "   then: cat /sys/kernel/debug/dri/N/i915_stalls > stalls.bin;"
echo "         i915-stalls record -o demo.ar stalls.bin   (saves the maps and build-ids)"
e2e_boot demo 300 1
guest=$E2E_OUT/demo/guest
if [ "$(cat "$guest/rc" 2>/dev/null)" != 0 ]; then
	echo "demo: the guest scenario failed:" >&2
	cat "$guest/scenario.log" >&2 || true
	exit 1
fi
mkdir -p "$DEMO"
cp "$guest/stalls.bin" "$guest/demo.ar" "$DEMO/"
for f in "$guest"/client-*.jsonl; do cp "$f" "$DEMO/"; done

reader() { # the reader, on the host, with the guest's files and the kernel's symbols
	local rc=0
	"$E2E_READER" "$@" --symfs "$E2E_ROOTFS" --vmlinux "$E2E_KDIR/vmlinux" \
		"$DEMO/demo.ar" || rc=$?
	# 1: some frames (libc's, without symbols) stayed unresolved
	[ $rc -le 1 ] || { echo "demo: i915-stalls $* failed ($rc)" >&2; exit 1; }
}

say "What the client did (its own log)"
grep '"event":"stall"' "$DEMO/client-demo.jsonl" |
	sed -E 's/.*"tid":([0-9]+),"comm":"([^"]*)".*"frame":([0-9]+),"delay_ms":([0-9]+).*/   tid \1 (\2) frame \3: asked the GPU for \4 ms/'
grep '"event":"stall"' "$DEMO/client-vkdemo.jsonl" |
	sed -E 's/.*"kind":"([^"]*)".*"tid":([0-9]+),"comm":"([^"]*)".*"site":"([^"]*)","fence_count":([0-9]+).*"needed_ms":([0-9]+).*/   tid \2 (\3) \4 on \5 fence(s), "\1": \6 ms of GPU work from the submit/'
echo "   (vkapp's user stacks end in libc's ioctl(): its driver and Debian's libdrm keep"
echo "   no frame pointers; see e2e/README.md)"

say "i915-stalls report --symfs ${E2E_ROOTFS#"$TOP"/} --vmlinux $E2E_KDIR/vmlinux ${DEMO#"$TOP"/}/demo.ar"
echo "   (--symfs: the guest's files as packed into its initramfs; demo.ar: the"
echo "   file cat'ed in the guest, with the client's maps and build-ids)"
echo
reader report

say "i915-stalls summary ..."
reader summary

reader report --format=svg -o "$DEMO/stalls.svg"
reader report --format=folded -o "$DEMO/stalls.folded"
say "Flame graph: $DEMO/stalls.svg"
echo "   (folded stacks: $DEMO/stalls.folded; raw file from the guest: $DEMO/stalls.bin)"
