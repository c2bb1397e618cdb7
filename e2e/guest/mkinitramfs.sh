#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Build the end-to-end guest's initramfs:
#   mkinitramfs.sh ROOTFS_DIR CPIO_GZ CLIENT_DIR READER
# ROOTFS_DIR is staged from scratch (it doubles as the reader's --symfs on
# the host: every ELF file sits at the path the guest maps it from) and
# packed into CPIO_GZ.  It holds busybox (static, from Debian's
# busybox-static), /init and the scenarios, gpu-demo and libgpu.so from
# CLIENT_DIR in /opt/gpu-demo (with vkapp, libvkloader.so and libvkdrv.so),
# the reader as /usr/bin/i915-stalls, and the dynamic loader and every
# shared library ldd names for them (Debian's libdrm.so.2 among them).  ROOTFS_DIR
# also gets the host's debug files of those libraries, which stay out of
# the initramfs.
set -euo pipefail

[ $# = 4 ] || { echo "usage: $0 ROOTFS_DIR CPIO_GZ CLIENT_DIR READER" >&2; exit 64; }
root=$1 cpio_gz=$2 client=$3 reader=$4
here=$(cd "$(dirname "$0")" && pwd)

busybox=/bin/busybox
if [ ! -x "$busybox" ] || ! { ldd "$busybox" 2>&1 || true; } | grep -q 'not a dynamic'; then
	echo "mkinitramfs: $busybox is missing or not static: apt-get install busybox-static" >&2
	exit 1
fi
for f in "$client/gpu-demo" "$client/libgpu.so" "$client/vkapp" "$client/libvkloader.so" \
	"$client/libvkdrv.so" "$client/stallpie-fp/stallpie" "$client/stallpie-nofp/stallpie" \
	"$client/stallpie-v2/libstallio.so" "$client/wlsync" "$reader"; do
	[ -x "$f" ] || [ -f "$f" ] || { echo "mkinitramfs: missing $f" >&2; exit 1; }
done

rm -rf "$root"
mkdir -p "$root"/{bin,dev,proc,sys,tmp,e2e,opt/gpu-demo,usr/bin,lib64,lib/x86_64-linux-gnu}
cp "$busybox" "$root/bin/busybox"
for a in $("$busybox" --list); do
	case $a in busybox|init|linuxrc) continue ;; esac
	ln -s busybox "$root/bin/$a"
done
install -m 0755 "$here/init" "$root/init"
install -m 0755 "$here/scenario.sh" "$root/e2e/scenario.sh"
install -m 0755 "$client/gpu-demo" "$root/opt/gpu-demo/gpu-demo"
install -m 0755 "$client/libgpu.so" "$root/opt/gpu-demo/libgpu.so"
install -m 0755 "$client/stall-bench" "$root/opt/gpu-demo/stall-bench"
for n in 1 2 3; do
	install -m 0755 "$client/libbenchdeep$n.so" "$root/opt/gpu-demo/libbenchdeep$n.so"
done
install -m 0755 "$client/gpu-demo32" "$root/opt/gpu-demo/gpu-demo32"
for f in vkapp libvkloader.so libvkdrv.so wlsync; do
	install -m 0755 "$client/$f" "$root/opt/gpu-demo/$f"
done
# stallpie (issue 12): each build in its own directory, and a third copy
# of the frame-pointer build whose libstallio.so the scenario replaces on
# disk with stallpie-v2's (another build-id) between the stall and the cat
for v in fp nofp swap; do
	src=$client/stallpie-$v
	[ $v = swap ] && src=$client/stallpie-fp
	mkdir -p "$root/opt/stallpie-$v"
	for f in stallpie libstallfmt.so libstallio.so; do
		install -m 0755 "$src/$f" "$root/opt/stallpie-$v/$f"
	done
done
install -m 0755 "$client/stallpie-v2/libstallio.so" "$root/opt/stallpie-swap/libstallio-v2.so"
install -m 0755 "$reader" "$root/usr/bin/i915-stalls"
# Debian's perf (package linux-perf), for the tracepoints read with a real tool
perf=$(command -v perf || true)
[ -n "$perf" ] && [ -x "$(readlink -f "$perf")" ] ||
	{ echo "mkinitramfs: no perf: apt-get install linux-perf" >&2; exit 1; }
perf=$(readlink -f "$perf")
install -m 0755 "$perf" "$root/usr/bin/perf"

# The loader and libraries, as real files at the paths ldd prints (which
# are the paths the guest's maps will show).
for elf in "$client/gpu-demo" "$client/vkapp" "$client/libvkdrv.so" "$reader" "$perf"; do
	ldd "$elf" | awk '/=> \// { print $3 } /^\t\/[^ ]+ \(/ { print $1 }'
done | sort -u | while read -r lib; do
	case $lib in /lib/*|/lib64/*|/usr/lib/*|/usr/lib64/*) ;; *) continue ;; esac
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done
[ -f "$root/lib64/ld-linux-x86-64.so.2" ] || { echo "mkinitramfs: no dynamic loader copied" >&2; exit 1; }
[ -n "$(find "$root" -name libdrm.so.2)" ] ||
	{ echo "mkinitramfs: libdrm.so.2 not copied (apt-get install libdrm-dev)" >&2; exit 1; }

# Host-side symbols only (kept out of the cpio): the separate debug files
# of those libraries, when the host has them (e.g. libc6-dbg), where the
# reader looks for them under --symfs, so libc's frames get names too.
find "$root/lib" "$root/lib64" -type f -name '*.so*' | while read -r lib; do
	id=$(readelf -n "$lib" 2>/dev/null | sed -n 's/^ *Build ID: *//p' | head -n 1)
	[ -n "$id" ] || continue
	dbg=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
	if [ -f "$dbg" ]; then
		mkdir -p "$root/usr/lib/debug/.build-id/${id:0:2}"
		cp -L "$dbg" "$root$dbg"
	fi
done

# /dev/console for init's stdio before devtmpfs is mounted
mknod -m 600 "$root/dev/console" c 5 1 2>/dev/null ||
	echo "mkinitramfs: cannot mknod dev/console (not root?); relying on the kernel's" >&2

mkdir -p "$(dirname "$cpio_gz")"
(cd "$root" && find . -mindepth 1 -path ./usr/lib/debug -prune -o -print | LC_ALL=C sort |
	cpio --quiet -o -H newc -R 0:0 | gzip -6 -n) > "$cpio_gz.tmp"
mv "$cpio_gz.tmp" "$cpio_gz"
# The host's --symfs must show what the guest's disk holds when its log is
# read: the scenario has replaced /opt/stallpie-swap/libstallio.so by then.
cp "$root/opt/stallpie-swap/libstallio-v2.so" "$root/opt/stallpie-swap/libstallio.so"
echo "mkinitramfs: $cpio_gz ($(( $(stat -c %s "$cpio_gz") / 1024 )) KiB)" >&2
