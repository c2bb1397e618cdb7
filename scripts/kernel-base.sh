#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Make the pristine kernel base: Debian's linux-source-6.12 extracted into
# $KBASE and committed as one git commit tagged "base".  Idempotent: an
# existing base at the installed package version is reused.
set -euo pipefail

KBASE=${KBASE:?KBASE not set}
tarball=$(ls /usr/src/linux-source-6.12.tar.xz 2>/dev/null || true)
[ -n "$tarball" ] || { echo "kernel-base: /usr/src/linux-source-6.12.tar.xz missing (run make setup)" >&2; exit 1; }
debver=$(dpkg-query -W -f='${Version}' linux-source-6.12)

if [ -d "$KBASE/.git" ] && git -C "$KBASE" rev-parse -q --verify refs/tags/base >/dev/null; then
	have=$(git -C "$KBASE" log -1 --format=%s base)
	case "$have" in
	*"($debver)"*) echo "kernel-base: $have"; exit 0 ;;
	esac
	echo "kernel-base: base is '$have', package is $debver: re-extracting" >&2
fi

rm -rf "$KBASE.tmp"
mkdir -p "$KBASE.tmp"
tar -xf "$tarball" -C "$KBASE.tmp" --strip-components=1
cd "$KBASE.tmp"
kver=$(make -s kernelversion)
git init -q -b base-branch .
git config user.name "i915-stall base"
git config user.email "base@invalid"
git config core.autocrlf false
git add -A -f .
git commit -q -m "Linux $kver from Debian linux-source-6.12 ($debver)"
git tag base
cd - >/dev/null
rm -rf "$KBASE"
mv "$KBASE.tmp" "$KBASE"
echo "kernel-base: $(git -C "$KBASE" log -1 --format=%s base)"
