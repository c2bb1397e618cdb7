# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# Host side of the end-to-end guest, sourced by scripts/e2e.sh and
# scripts/demo.sh.  Needs TOP (the repository), BUILD (kernel build dirs)
# and E2E_OUT (work directory for this run); I915_STALLS may name a reader
# binary to use instead of building userspace/.
#
#   e2e_kernel             path of the kernel image (the KUnit one, or E2E_KERNEL)
#   e2e_kernel_has_feature 0 if its vmlinux has the mock control file
#   e2e_kernel_has_mock_fence 0 if it also has the mock fence file (vkapp)
#   e2e_build              client, reader and initramfs, when missing/stale
#   e2e_result, e2e_finish the result lines of a run into $res, and its end
#   e2e_boot MODE TIMEOUT  boot the guest with e2e.mode=MODE, bring back its
#                          /tmp/out into $E2E_OUT/MODE/guest; the console log
#                          is $E2E_OUT/MODE/console.log

E2E_DIR=$TOP/e2e
E2E_CLIENT=$E2E_OUT/client
E2E_ROOTFS=$E2E_OUT/rootfs
E2E_INITRD=$E2E_OUT/initramfs.cpio.gz
# I915_STALLS: a reader binary to use as it is (default: build userspace/)
E2E_READER=${I915_STALLS:-$TOP/userspace/i915-stalls}
# the KUnit kernel, or another build of the series (make bench)
E2E_KDIR=${E2E_KDIR:-$BUILD/kunit}
# more QEMU options, e.g. -icount (make bench)
E2E_QEMU_ARGS=${E2E_QEMU_ARGS:-}
# more kernel command line (scripts/e2e-module.sh)
E2E_APPEND=${E2E_APPEND:-}

e2e_log() { echo "e2e: $*" >&2; }

# e2e_result 0|1 NAME: a result line into $res (the caller's results file)
# shellcheck disable=SC2154 # res is the caller's
e2e_result() {
	if [ "$1" = 0 ]; then echo "ok $2"; else echo "not ok $2"; fi | tee -a "$res"
}

# e2e_finish TAG: sum $res up on stderr and exit, non-zero if a check failed
e2e_finish() {
	local nok
	nok=$(grep -c '^not ok ' "$res")
	echo "$1: $(grep -c '^ok ' "$res") checks ok, $nok not ok, $(grep -c '^skip ' "$res") skipped" \
		"(details in $res, work files in $E2E_OUT)" >&2
	[ "$nok" = 0 ] && [ -s "$res" ]
	exit $?
}

e2e_kernel() { echo "${E2E_KERNEL:-$E2E_KDIR/arch/x86/boot/bzImage}"; }

e2e_kernel_has_feature() {
	[ -f "$E2E_KDIR/vmlinux" ] &&
		grep -aq i915_stalls_mock_wait "$E2E_KDIR/vmlinux"
}

e2e_kernel_has_mock_fence() {
	[ -f "$E2E_KDIR/vmlinux" ] &&
		grep -aq i915_stalls_mock_fence "$E2E_KDIR/vmlinux"
}

# CONFIG_HZ of the kernel build (the tolerance on durations is one jiffy)
e2e_kernel_hz() {
	sed -n 's/^CONFIG_HZ=//p' "$E2E_KDIR/.config" 2>/dev/null | head -n 1
}

# newer FILE THAN...: FILE exists and is newer than every other argument
e2e_newer() {
	local f=$1 d
	shift
	[ -e "$f" ] || return 1
	for d in "$@"; do
		[ "$f" -nt "$d" ] || return 1
	done
}

e2e_build() {
	mkdir -p "$E2E_OUT"
	make -s -C "$E2E_DIR/client" O="$E2E_CLIENT" >&2 || return 1
	if [ -z "${I915_STALLS:-}" ]; then
		make -s -C "$TOP/userspace" >&2 || { e2e_log "building the reader failed"; return 1; }
	fi
	[ -x "$E2E_READER" ] || { e2e_log "no reader at $E2E_READER"; return 1; }
	if ! e2e_newer "$E2E_INITRD" "$E2E_CLIENT/gpu-demo" "$E2E_CLIENT/libgpu.so" \
		"$E2E_CLIENT/stall-bench" "$E2E_CLIENT/gpu-demo32" "$E2E_CLIENT/vkapp" \
		"$E2E_CLIENT/libvkloader.so" "$E2E_CLIENT/libvkdrv.so" \
		"$E2E_CLIENT"/stallpie-{fp,nofp}/{stallpie,libstallfmt.so,libstallio.so} \
		"$E2E_CLIENT/stallpie-v2/libstallio.so" \
		"$E2E_READER" "$E2E_DIR/guest/init" "$E2E_DIR/guest/scenario.sh" \
		"$E2E_DIR/guest/mkinitramfs.sh"; then
		bash "$E2E_DIR/guest/mkinitramfs.sh" "$E2E_ROOTFS" "$E2E_INITRD" \
			"$E2E_CLIENT" "$E2E_READER" || return 1
	fi
}

# e2e_boot MODE TIMEOUT_S [LIVE]: LIVE=1 also shows the guest's progress
e2e_boot() {
	local mode=$1 tmo=$2 live=${3:-0} dir=$E2E_OUT/$1 rc t0=$SECONDS
	local kernel
	kernel=$(e2e_kernel)
	rm -rf "$dir"
	mkdir -p "$dir/guest"
	e2e_log "booting $kernel (QEMU TCG, 4 vCPUs, e2e.mode=$mode, timeout ${tmo}s)"
	# console on stdio (ttyS0), results on ttyS1; single-threaded TCG, see
	# scripts/kunit.sh
	{
		timeout -k 10 "$tmo" qemu-system-x86_64 -nodefaults -display none -no-reboot \
			-m 1024 -smp 4 -accel tcg,thread=single -bios qboot.rom $E2E_QEMU_ARGS \
			-kernel "$kernel" -initrd "$E2E_INITRD" \
			-append "console=ttyS0 kunit.enable=0 panic=-1 e2e.mode=$mode $E2E_APPEND" \
			-serial stdio -serial "file:$dir/ttyS1.txt" < /dev/null
		echo $? > "$dir/qemu.rc"
	} | tr -d '\r' | tee "$dir/console.log" |
		if [ "$live" = 1 ]; then grep --line-buffered '^e2e-guest: ' >&2; else cat > /dev/null; fi ||
		true
	rc=$(cat "$dir/qemu.rc")
	e2e_log "guest stopped after $((SECONDS - t0)) s (qemu exit $rc)"
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		e2e_log "the guest timed out; console tail:"
		tail -n 30 "$dir/console.log" >&2
		return 1
	fi
	tr -d '\r' < "$dir/ttyS1.txt" |
		sed -n '/^==== BEGIN e2e-out ====$/,/^==== END e2e-out rc=[0-9]* ====$/p' \
		> "$dir/ttyS1.framed"
	if ! grep -q '^==== END e2e-out rc=' "$dir/ttyS1.framed"; then
		e2e_log "no framed results on ttyS1; console tail:"
		tail -n 30 "$dir/console.log" >&2
		return 1
	fi
	sed '1d;$d' "$dir/ttyS1.framed" | base64 -d | tar -xzf - -C "$dir/guest" || {
		e2e_log "the results from ttyS1 do not decode"
		return 1
	}
}
