#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Every prefix of the series builds on its own: for each patch, the objects
# it touches are built with W=1 C=1 (sparse) and CONFIG_DRM_I915_WERROR
# (which also runs kernel-doc -Werror and i915's header test on touched
# headers), with the feature on and off.  A warning in a touched file that
# the same object did not have at base fails the check.  Objects are built
# one by one in a worktree of $KBASE, so this takes minutes, not hours.
#
# And as a distribution builds it: the whole kernel with i915 a module and
# the log on (see config_mod), vmlinux and modules, through modpost: a symbol
# i915.ko uses that the kernel does not export fails it there, as it fails a
# distribution's build.  CHECK_BUILD_MOD says at which prefixes: "all"
# (make check-build's default) every prefix where the option exists;
# "last" (make test, which must end within CI's time) the whole series
# only; "none" skips it.  CHECK_BUILD_PREFIXES=none skips the objects of
# every prefix, for the modular kernel alone.  The last prefix's kernel
# and modules are kept in $BUILD/check-modules, where
# scripts/e2e-module.sh boots them and loads i915.ko by hand.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
KBASE=${KBASE:?}
BUILD=${BUILD:?}
RESULTS=${RESULTS:-$top/out/results}
JOBS=${JOBS:-$(nproc)}
src=$BUILD/check-src
res=$RESULTS/check-build.results
logdir=$BUILD/check-logs
mkdir -p "$RESULTS" "$logdir"
: > "$res"
cc=gcc
command -v ccache >/dev/null && cc="ccache gcc"

patches=$(ls "$top"/patches/*.patch | grep -v '/0000-cover-letter.patch$')

# The series as commits, in a worktree of its own.
if [ ! -e "$src/.git" ]; then
	git -C "$KBASE" worktree prune
	git -C "$KBASE" worktree add -q --detach "$src" base || exit 1
fi
git -C "$src" am --abort >/dev/null 2>&1
git -C "$src" checkout -q --detach base || exit 1
git -C "$src" -c user.name=check -c user.email=check@invalid am -q $patches || {
	echo "not ok check-build.apply" >> "$res"; exit 1; }
commits=$(git -C "$src" rev-list --reverse base..HEAD)

config() { # dir on|off|mod
	local dir=$1 mode=$2 sc="$src/scripts/config --file $1/.config"
	mkdir -p "$dir"
	[ -f "$dir/.config" ] || make -s -C "$src" O="$dir" CC="$cc" x86_64_defconfig || return 1
	$sc -e EXPERT -e DEBUG_FS -e FTRACE -e ENABLE_DEFAULT_TRACERS -e DRM -e DRM_I915 -e DRM_I915_WERROR \
	    -e DRM_I915_SELFTEST -e KUNIT -d COMPILE_TEST
	case $mode in
	on)  $sc -e DRM_I915_STALL_LOG -e DRM_I915_STALL_LOG_KUNIT_TEST \
		 -e DRM_I915_STALL_LOG_MOCK ;;
	off) $sc -d DRM_I915_STALL_LOG -d DRM_I915_STALL_LOG_KUNIT_TEST \
		 -e DRM_I915_STALL_LOG_MOCK ;;
	esac
	make -s -C "$src" O="$dir" CC="$cc" olddefconfig
}

# The modular kernel: the smallest that has i915 as a module with the log
# and the mock GPU in it (tinyconfig, 64-bit SMP with PCI, modules and
# debugfs), so that it builds in minutes on two cores.  SMP gives
# CONFIG_PER_VMA_LOCK, as a distribution kernel has it.  It also boots the
# end-to-end guest (initramfs, ELF, serial console, ACPI power-off,
# kallsyms), where scripts/e2e-module.sh loads i915.ko by hand; with the
# ORC unwinder, as distributions build x86-64 kernels.
config_mod() { # dir
	local dir=$1 sc="$src/scripts/config --file $1/.config"
	mkdir -p "$dir"
	[ -f "$dir/.config" ] || make -s -C "$src" O="$dir" CC="$cc" tinyconfig || return 1
	$sc -e 64BIT -e SMP -e MMU -e PCI -e MODULES -e MODULE_UNLOAD -e EXPERT -e DEBUG_FS \
	    -e SHMEM -e TMPFS -e PRINTK -e BLOCK -e FTRACE -e ENABLE_DEFAULT_TRACERS \
	    -e BLK_DEV_INITRD -e RD_GZIP -e BINFMT_ELF -e BINFMT_SCRIPT -e DEVTMPFS -e PROC_FS \
	    -e SYSFS -e TTY -e SERIAL_8250 -e SERIAL_8250_CONSOLE -e FUTEX -e EPOLL -e SIGNALFD \
	    -e TIMERFD -e EVENTFD -e MULTIUSER -e POSIX_TIMERS -e FILE_LOCKING -e ACPI \
	    -e KALLSYMS -e KALLSYMS_ALL -e PCI_MSI -e UNWINDER_ORC -d UNWINDER_GUESS \
	    -e DRM -m DRM_I915 -e DRM_I915_SELFTEST \
	    -d KUNIT -d DEBUG_INFO_BTF \
	    -e DRM_I915_STALL_LOG -d DRM_I915_STALL_LOG_KUNIT_TEST -e DRM_I915_STALL_LOG_MOCK
	make -s -C "$src" O="$dir" CC="$cc" olddefconfig
}

# At each prefix where the option exists: vmlinux and modules, modpost.
build_modular() {
	local dir=$BUILD/check-mod i=0 c name log which=${CHECK_BUILD_MOD:-all}
	[ "$which" = none ] && return 0
	git -C "$src" checkout -q --detach "$(echo "$commits" | tail -1)"
	config_mod "$dir" || { echo "not ok check-build.config-mod" >> "$res"; return 1; }
	for c in $commits; do
		i=$((i + 1))
		name=$(printf '%04d' $i)-mod
		git -C "$src" checkout -q --detach "$c"
		grep -q '^config DRM_I915_STALL_LOG$' "$src/drivers/gpu/drm/i915/Kconfig" || continue
		[ "$which" = last ] && [ "$c" != "$(echo "$commits" | tail -1)" ] && continue
		config_mod "$dir" >/dev/null
		if ! grep -q '^CONFIG_DRM_I915=m' "$dir/.config" ||
		   ! grep -q '^CONFIG_DRM_I915_STALL_LOG=y' "$dir/.config"; then
			echo "not ok check-build.$name" >> "$res"
			echo "check-build: $name: i915 is not a module with the log on" >&2
			continue
		fi
		log=$logdir/$name.log
		if make -C "$src" O="$dir" CC="$cc" -j"$JOBS" > "$log" 2>&1 &&
		   [ -f "$dir/drivers/gpu/drm/i915/i915.ko" ] &&
		   ! grep -q 'ERROR: modpost' "$log"; then
			echo "ok check-build.$name" >> "$res"
			echo "check-build: $name: vmlinux and i915.ko through modpost"
		else
			echo "not ok check-build.$name" >> "$res"
			echo "check-build: $name ($(git -C "$src" log -1 --format=%s "$c")) as a module:" >&2
			grep -E 'ERROR|error:|undefined' "$log" | head -20 >&2
			fail=1
		fi
	done
	# What the end-to-end test loads: the last prefix's kernel and modules.
	rm -rf "$BUILD/check-modules"
	make -s -C "$src" O="$dir" INSTALL_MOD_PATH="$BUILD/check-modules" \
		INSTALL_MOD_STRIP=1 modules_install > "$logdir/modules_install.log" 2>&1 &&
		cp "$dir/arch/x86/boot/bzImage" "$BUILD/check-modules/bzImage" &&
		cp "$dir/vmlinux" "$dir/.config" "$BUILD/check-modules/" &&
		cp "$dir/drivers/gpu/drm/i915/i915.ko" "$BUILD/check-modules/i915.ko.debug"
}

# Build targets for a list of touched files.
targets() { # dir files...
	local dir=$1 f; shift
	for f in "$@"; do
		case $f in
		drivers/gpu/drm/i915/i915_stall*.c)
			# built only with the feature on
			grep -q '^CONFIG_DRM_I915_STALL_LOG=[ym]' "$dir/.config" && echo "${f%.c}.o" ;;
		drivers/gpu/drm/i915/tests/i915_stall_mock.c)
			# its own object, with or without the log
			grep -q '^CONFIG_DRM_I915_STALL_LOG_MOCK=y' "$dir/.config" && echo "${f%.c}.o" ;;
		drivers/gpu/drm/i915/tests/*.c) ;;	# #included by i915_stall.c
		drivers/gpu/drm/*.c|kernel/*.c|lib/*.c)
			# only objects the configuration builds
			if grep -q "$(basename "${f%.c}").o" "$src/$(dirname "$f")/Makefile" 2>/dev/null; then
				echo "${f%.c}.o"
			fi ;;
		drivers/gpu/drm/i915/*.h)
			# i915's header test: the header compiles on its own
			echo "${f%.h}.hdrtest.o" ;;
		esac
	done | sort -u
}

# Build targets, print normalized warnings (file: message, no line numbers).
build() { # dir log targets...
	local dir=$1 log=$2 t; shift 2
	local rc=0 h
	for t in "$@"; do
		rm -f "$dir/$t"
		case $t in
		*.hdrtest.o)
			h=${t%.hdrtest.o}.h
			printf '#include "%s"\n' "$(basename "$h")" > "$src/${t%.o}.c" ;;
		esac
	done
	[ $# = 0 ] && { : > "$log"; return 0; }
	make -C "$src" O="$dir" CC="$cc" W=1 C=1 -j"$JOBS" "$@" > "$log" 2>&1 || rc=1
	for t in "$@"; do
		case $t in
		*.hdrtest.o)
			rm -f "$src/${t%.o}.c"
			# and its kernel-doc, as i915's hdrtest does
			(cd "$src" && scripts/kernel-doc -none -Werror "${t%.hdrtest.o}.h") >> "$log" 2>&1 || rc=1 ;;
		esac
	done
	return $rc
}

warnings() { # log files...
	local log=$1; shift
	sed -n "s|^$src/||; s|^\.\./||; s|^\([^: ]*\):[0-9]*:[0-9:]* \(warning\|error\): |\1: \2: |p" "$log" |
		grep -F -f <(printf '%s:\n' "$@") | sort
}

fail=0
# CHECK_BUILD_PREFIXES=none: only the modular kernel (and the docs check)
[ "${CHECK_BUILD_PREFIXES:-all}" = none ] && modes= || modes="on off"
for mode in $modes; do
	dir=$BUILD/check-$mode
	git -C "$src" checkout -q --detach base
	config "$dir" "$mode" || { echo "not ok check-build.config-$mode" >> "$res"; fail=1; continue; }

	# Baseline: every touched object that exists at base.
	all=$(git -C "$src" diff --name-only base "$(echo "$commits" | tail -1)")
	basetargets=$(cd "$src" && for f in $all; do [ -e "$f" ] && echo "$f"; done)
	build "$dir" "$logdir/base-$mode.log" $(targets "$dir" $basetargets)
	warnings "$logdir/base-$mode.log" $all > "$logdir/base-$mode.warn"

	i=0
	for c in $commits; do
		i=$((i + 1))
		name=$(printf '%04d' $i)-$mode
		git -C "$src" checkout -q --detach "$c"
		config "$dir" "$mode" >/dev/null
		files=$(git -C "$src" diff --name-only "$c^" "$c")
		t=$(targets "$dir" $files)
		# the core file is built at every step once it exists
		if grep -q '^CONFIG_DRM_I915_STALL_LOG=y' "$dir/.config"; then
			t=$(printf '%s\n' $t $(cd "$src" && ls drivers/gpu/drm/i915/i915_stall*.c 2>/dev/null |
				sed 's/\.c$/.o/') | sort -u | sed '/^$/d')
		fi
		if ! build "$dir" "$logdir/$name.log" $t; then
			echo "not ok check-build.$name" >> "$res"
			echo "check-build: $name ($(git -C "$src" log -1 --format=%s "$c")) failed to build:" >&2
			grep -E 'error|warning' "$logdir/$name.log" | head -30 >&2
			fail=1
			continue
		fi
		new=$(comm -13 "$logdir/base-$mode.warn" <(warnings "$logdir/$name.log" $files \
			$(cd "$src" && ls drivers/gpu/drm/i915/i915_stall*.[ch] 2>/dev/null)))
		if [ -n "$new" ]; then
			echo "not ok check-build.$name" >> "$res"
			echo "check-build: $name: new warnings:" >&2
			echo "$new" >&2
			fail=1
		else
			echo "ok check-build.$name" >> "$res"
			echo "check-build: $name: $(echo $t | wc -w) targets clean"
		fi
	done
done

build_modular || fail=1

# The documentation patch: every kernel-doc directive it adds resolves.
git -C "$src" checkout -q --detach "$(echo "$commits" | tail -1)"
doc=$(grep -A2 'i915_stall.c' "$src/Documentation/gpu/i915.rst" | sed -n 's/.*:doc: //p')
if [ -n "$doc" ] && (cd "$src" && scripts/kernel-doc -rst -Werror -function "$doc" drivers/gpu/drm/i915/i915_stall.c | grep -q .); then
	echo "ok check-build.docs" >> "$res"
else
	echo "not ok check-build.docs" >> "$res"
	echo "check-build: Documentation/gpu/i915.rst: no DOC section of i915_stall.c pulled in" >&2
	fail=1
fi
echo "check-build: $(grep -c '^ok' "$res") ok, $(grep -c '^not ok' "$res") not ok"
exit $fail
