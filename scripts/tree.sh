#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The series workflow on the kernel tree $KBASE (a git repository whose
# tag "base" is Debian's pristine linux-source-6.12):
#
#   tree.sh apply       branch "series" = base + patches/*.patch (git am)
#   tree.sh export      patches/ and the readable copies from "series"
#   tree.sh check-sync  the copies equal what patches/ produces
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
KBASE=${KBASE:?}
RESULTS=${RESULTS:-$top/out/results}
cd "$top"

patches() { ls patches/*.patch 2>/dev/null | grep -v '/0000-cover-letter.patch$' || true; }

# Tree object of base + patches/, made in a scratch index (no checkout).
series_tree() {
	local idx p
	idx=$(mktemp)
	GIT_INDEX_FILE=$idx git -C "$KBASE" read-tree base
	for p in $(patches); do
		GIT_INDEX_FILE=$idx git -C "$KBASE" apply --cached "$top/$p" ||
			{ echo "tree: $p does not apply to base" >&2; rm -f "$idx"; return 1; }
	done
	GIT_INDEX_FILE=$idx git -C "$KBASE" write-tree
	rm -f "$idx"
}

# The Kconfig entries of the series, as Kconfig.snippet mirrors them.
kconfig_entries() {
	awk '/^config DRM_I915_STALL/ { on = 1 }
	     /^(config|menu|endmenu|if|endif)/ && !/^config DRM_I915_STALL/ { on = 0 }
	     on' | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
}

# i915's Kconfig files at a commit or tree.
kconfigs() {
	git -C "$KBASE" show "$1:drivers/gpu/drm/i915/Kconfig"
	git -C "$KBASE" show "$1:drivers/gpu/drm/i915/Kconfig.debug"
}

apply() {
	local want have
	if ! git -C "$KBASE" diff --quiet HEAD -- || ! git -C "$KBASE" diff --cached --quiet; then
		# Never lose them, never fail on them: make test must run from
		# patches/, whatever a developer left in the tree.
		git -C "$KBASE" stash push -q -m "tree.sh apply, $(date -u +%FT%TZ)"
		echo "tree: $KBASE had uncommitted changes; stashed (git -C $KBASE stash list)" >&2
	fi
	want=$(series_tree)
	have=$(git -C "$KBASE" rev-parse -q --verify 'series^{tree}' || true)
	# The same tree on another base commit (kernel-base.sh committed the
	# base again) is not the series: base..series must be the patches.
	if [ -n "$have" ] && { ! git -C "$KBASE" merge-base --is-ancestor base series ||
		[ "$(git -C "$KBASE" rev-list --count base..series)" != "$(patches | wc -l)" ]; }; then
		have=other-base
	fi
	if [ "$want" = "$have" ]; then
		[ "$(git -C "$KBASE" symbolic-ref -q --short HEAD)" = series ] ||
			git -C "$KBASE" checkout -q series
		echo "tree: series is base + $(patches | wc -l) patches (unchanged)"
		return
	fi
	if [ -n "$have" ]; then
		local keep=series-old-$(date +%Y%m%d-%H%M%S)
		git -C "$KBASE" branch -q -m series "$keep"
		echo "tree: the old series branch differs from patches/; kept as $keep"
	fi
	git -C "$KBASE" checkout -q -B series base
	if [ -n "$(patches)" ]; then
		git -C "$KBASE" am -q --whitespace=nowarn --committer-date-is-author-date \
			$(patches | sed "s|^|$top/|")
	fi
	echo "tree: series is base + $(patches | wc -l) patches at $KBASE"
}

export_series() {
	local n
	[ "$(git -C "$KBASE" symbolic-ref -q --short HEAD)" = series ] ||
		{ echo "export: $KBASE is not on branch series" >&2; exit 1; }
	n=$(git -C "$KBASE" rev-list --count base..series)
	rm -f patches/*.patch
	# The cover letter is from the series' author, dated as its last patch;
	# no commit hashes: they differ from machine to machine and say
	# nothing git am needs.
	git -C "$KBASE" -c user.name="$(git -C "$KBASE" log -1 --format=%an series)" \
		-c user.email="$(git -C "$KBASE" log -1 --format=%ae series)" \
		format-patch -q --base=base --cover-letter --no-signature --zero-commit \
		--subject-prefix=PATCH -o "$top/patches" base..series
	python3 scripts/cover-letter.py patches/0000-cover-letter.patch docs/cover-letter.txt \
		"$(git -C "$KBASE" log -1 --format=%aD series)"
	while read -r k r; do
		case "$k" in ''|'#'*) continue ;; esac
		if git -C "$KBASE" cat-file -e "series:$k" 2>/dev/null; then
			mkdir -p "$(dirname "$r")"
			git -C "$KBASE" show "series:$k" > "$r"
		fi
	done < scripts/copies.txt
	kconfigs series | kconfig_entries > Kconfig.snippet
	echo "export: $n patches to patches/, copies refreshed"
}

check_sync() {
	local t bad=0 k r
	t=$(series_tree)
	while read -r k r; do
		case "$k" in ''|'#'*) continue ;; esac
		if ! git -C "$KBASE" cat-file -e "$t:$k" 2>/dev/null; then
			echo "check-sync: $k: not produced by the series (copy $r)" >&2; bad=1
		elif ! git -C "$KBASE" show "$t:$k" | cmp -s - "$r"; then
			echo "check-sync: $r differs from $k as patches/ produce it:" >&2
			git -C "$KBASE" show "$t:$k" | diff -u --label "series:$k" --label "$r" - "$r" | head -40 >&2 || true
			bad=1
		fi
	done < scripts/copies.txt
	if ! kconfigs "$t" | kconfig_entries | cmp -s - Kconfig.snippet; then
		echo "check-sync: Kconfig.snippet differs from the series' Kconfig entries:" >&2
		kconfigs "$t" | kconfig_entries |
			diff -u --label series:Kconfig.debug --label Kconfig.snippet - Kconfig.snippet | head -40 >&2 || true
		bad=1
	fi
	mkdir -p "$RESULTS"
	if [ $bad = 0 ]; then
		echo "ok check-sync" > "$RESULTS/check-sync.results"
		echo "check-sync: copies equal the series"
	else
		echo "not ok check-sync" > "$RESULTS/check-sync.results"
	fi
	return $bad
}

case "${1:-}" in
apply) apply ;;
export) export_series ;;
check-sync) check_sync ;;
*) echo "usage: tree.sh apply|export|check-sync" >&2; exit 64 ;;
esac
