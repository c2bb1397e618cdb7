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

# The same commit on every machine, so that the series' base-commit line
# names one: the package's tree, a fixed identity, and the date of the
# package's tarball (dpkg keeps its mtime).
export GIT_AUTHOR_NAME="i915-stall base" GIT_AUTHOR_EMAIL="base@invalid"
export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
GIT_AUTHOR_DATE="@$(stat -c %Y "$tarball") +0000"
export GIT_AUTHOR_DATE GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE

if [ -d "$KBASE/.git" ] && git -C "$KBASE" rev-parse -q --verify refs/tags/base >/dev/null; then
	have=$(git -C "$KBASE" log -1 --format=%s base)
	case "$have" in
	*"($debver)"*)
		# A base committed before the dates were fixed: the same tree,
		# committed again.  tree.sh apply then rebuilds the series on it.
		want=$(git -C "$KBASE" commit-tree -m "$have" 'base^{tree}')
		if [ "$want" != "$(git -C "$KBASE" rev-parse 'base^{commit}')" ]; then
			git -C "$KBASE" tag -f base "$want" >/dev/null
			git -C "$KBASE" branch -f base-branch base 2>/dev/null || true
			echo "kernel-base: base committed again as $want (the package's date)"
		fi
		echo "kernel-base: $have"; exit 0 ;;
	esac
	echo "kernel-base: base is '$have', package is $debver: re-extracting" >&2
fi

rm -rf "$KBASE.tmp"
mkdir -p "$KBASE.tmp"
tar -xf "$tarball" -C "$KBASE.tmp" --strip-components=1
cd "$KBASE.tmp"
kver=$(make -s kernelversion)
git init -q -b base-branch .
git config user.name "$GIT_AUTHOR_NAME"
git config user.email "$GIT_AUTHOR_EMAIL"
git config core.autocrlf false
git add -A -f .
git commit -q -m "Linux $kver from Debian linux-source-6.12 ($debver)"
git tag base
cd - >/dev/null
rm -rf "$KBASE"
mv "$KBASE.tmp" "$KBASE"
echo "kernel-base: $(git -C "$KBASE" log -1 --format=%s base)"
