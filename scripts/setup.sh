#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Install the Debian packages the project needs, when missing: the kernel
# source, its build tools, QEMU, what the reader builds and tests with
# (userspace/DEPENDS), gcc-multilib for the end-to-end test's 32-bit
# client and libdrm-dev for its Vulkan-shaped one (vkapp, on Debian's libdrm),
# linux-perf for the tracepoints read with perf in the guest.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
pkgs="linux-source-6.12 build-essential bc bison flex libssl-dev libelf-dev
      cpio xz-utils kmod rsync python3 ccache sparse qemu-system-x86
      busybox-static pkg-config libdw-dev zlib1g-dev liblzma-dev mandoc
      clang perl git python3-ply python3-git gcc-multilib libdrm-dev linux-perf"
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

# The flame graph browser tests (userspace/tests/browser): playwright-core
# from package-lock.json, with the machine's Node.js 20 or later (Debian 12's
# nodejs is 18, too old); it drives Debian's chromium, never downloads one.
# npm ci reuses ~/.npm's cache when the registry cannot be reached; with
# neither, the browser tests are skipped, saying why (their run.sh probes
# the registry again), and setup goes on.  The same for the speedscope
# tests of -F perf-script, pprof and trace-event (userspace/tests/export:
# speedscope and playwright-core).
for br in "$top/userspace/tests/browser" "$top/userspace/tests/export"; do
	[ -d "$br/node_modules/playwright-core" ] &&
		{ [ "${br##*/}" != export ] || [ -d "$br/node_modules/speedscope" ]; } && continue
	command -v node > /dev/null && command -v npm > /dev/null ||
		{ echo "setup: Node.js 20 and npm needed for the browser tests" >&2; exit 1; }
	nv=$(node -p 'process.versions.node.split(".")[0]')
	[ "$nv" -ge 20 ] || { echo "setup: Node.js $nv: the browser tests need 20 or later" >&2; exit 1; }
	echo "setup: npm ci in ${br#"$top"/} (Node.js $(node --version))"
	if ! (cd "$br" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --prefer-offline --no-audit --no-fund); then
		# shellcheck source=scripts/probe.sh
		. "$top/scripts/probe.sh"
		if probe npm-registry; then
			echo "setup: npm ci failed in $br" >&2
			exit 1
		fi
		echo "setup: npm ci failed in $br: $probe_why, and ~/.npm has no" \
			"copy of its packages: its browser tests will be skipped" >&2
	fi
done
echo "setup: linux-source-6.12 $(dpkg-query -W -f='${Version}' linux-source-6.12)"
