#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Install the Debian packages the project needs, when missing: the kernel
# source, its build tools, QEMU, what the reader builds and tests with
# (userspace/DEPENDS), gcc-multilib for the end-to-end test's 32-bit
# client and libdrm-dev for its Vulkan-shaped one (vkapp, on Debian's libdrm).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
pkgs="linux-source-6.12 build-essential bc bison flex libssl-dev libelf-dev
      cpio xz-utils kmod rsync python3 ccache sparse qemu-system-x86
      busybox-static pkg-config libdw-dev zlib1g-dev liblzma-dev mandoc
      clang perl git python3-ply python3-git gcc-multilib libdrm-dev"
[ -f "$top/userspace/DEPENDS" ] && pkgs="$pkgs $(grep -v '^#' "$top/userspace/DEPENDS")"

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "setup: installing$missing"
	[ "$(id -u)" = 0 ] || { echo "setup: run as root, or: apt-get install$missing" >&2; exit 1; }
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends $missing
fi
command -v ccache >/dev/null && ccache -M 8G >/dev/null
echo "setup: linux-source-6.12 $(dpkg-query -W -f='${Version}' linux-source-6.12)"
