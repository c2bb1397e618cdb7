#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The mutation table of the ring: break the ring code of i915_stall.c in
# the kernel tree one way at a time, run the i915_stall suite (the
# i915_stall_user suite for the user-* mutations, i915_stall_syncobj for
# the syncobj-* ones) on a KUnit kernel of its own in $BUILD/mutate, never
# the one the end-to-end guest boots (or, with "kcsan", on the KCSAN one),
# restore the file, and print which cases failed.  Not part of `make test`: about two minutes a mutation.  The
# tree must be clean; it is left as it was.
#
#   scripts/mutate.sh [kcsan] [MUTATION...]    (default: all of them)
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
KBASE=${KBASE:-${CACHE:-${I915_STALL_CACHE:-$HOME/.cache/i915-stall}}/linux}
BUILD=${BUILD:-${CACHE:-${I915_STALL_CACHE:-$HOME/.cache/i915-stall}}/build}
variant=kunit config=$top/kunit/project.kunitconfig bdir=$BUILD/mutate
if [ "${1:-}" = kcsan ]; then
	variant=kunit-kcsan config=$top/kunit/kcsan.kunitconfig bdir=$BUILD/kunit-kcsan
	shift
fi
file=drivers/gpu/drm/i915/i915_stall.c
out=${OUT:-$top/out}/mutate-$variant
mkdir -p "$out"

all="no-reserve-wmb no-commit-seq-release no-commit-head-release
     no-snapshot-head-acquire no-snapshot-seq-acquire no-snapshot-rmb
     swap-commit-stores no-odd-mark commit-before-fill
     user-no-clear-ustack user-anon-as-novma user-keep-deleted-suffix
     user-no-map-dedup user-no-copy-stop user-cache-ignores-times
     user-no-words user-nolock-no-reason user-table-ignores-seq
     user-table-ignores-process user-table-never-kept user-walk-no-cut
     user-place-keeps-past-head user-place-ignores-count
     user-snapshot-ignores-gone user-name-alone-as-path
     user-no-table-place-wmb user-no-snapshot-table-rmb
     syncobj-timeout-halved"

mutate() { # name: edit $KBASE/$file
	python3 - "$KBASE/$file" "$1" <<'PY'
import sys
p, m = sys.argv[1], sys.argv[2]
s = open(p).read()
edits = {
 "no-reserve-wmb": [("\tsmp_wmb(); /* LMM(stall_slot_reserve:A) */\n", "")],
 "no-commit-seq-release": [("smp_store_release(&slot->seq, 2 * n + 2); /* LMM(stall_slot_commit:A) */",
                            "WRITE_ONCE(slot->seq, 2 * n + 2);")],
 "no-commit-head-release": [("smp_store_release(&ring->head, n + 1); /* LMM(stall_slot_commit:B) */",
                             "WRITE_ONCE(ring->head, n + 1);")],
 "no-snapshot-head-acquire": [("heads[cpu] = smp_load_acquire(&ring->head);",
                               "heads[cpu] = READ_ONCE(ring->head);")],
 "no-snapshot-seq-acquire": [("seq = smp_load_acquire(&slot->seq); /* LMM(stall_snapshot_cpu:B) */",
                              "seq = READ_ONCE(slot->seq);")],
 "no-snapshot-rmb": [("\t\tsmp_rmb(); /* LMM(stall_snapshot_cpu:C) */\n", "")],
 "swap-commit-stores": [("""	smp_store_release(&slot->seq, 2 * n + 2); /* LMM(stall_slot_commit:A) */
	smp_store_release(&ring->head, n + 1); /* LMM(stall_slot_commit:B) */""",
                         """	smp_store_release(&ring->head, n + 1);
	smp_store_release(&slot->seq, 2 * n + 2);""")],
 "no-odd-mark": [("\tWRITE_ONCE(slot->seq, 2 * n + 1);\n", "")],
 "commit-before-fill": [("""	stall_slot_table(slot)->id = 0;
	fill(rings, slot, arg);
	stall_slot_commit(ring, slot, n);""", """	stall_slot_table(slot)->id = 0;
	stall_slot_commit(ring, slot, n);
	fill(rings, slot, arg);""")],
 "user-no-clear-ustack": [("""		memset(stall_rec_ustack(rec) + rec->ustack_size, 0,
		       stride - STALL_USTACK_OFFSET - rec->ustack_size);
""", "")],
 "user-anon-as-novma": [("""	if (m->flags & STALL_MAP_ANON)
		return I915_STALL_FRAME_ANON;""", """	if (m->flags & STALL_MAP_ANON)
		return I915_STALL_FRAME_NOVMA;""")],
 "user-keep-deleted-suffix": [("""			len -= sizeof(deleted) - 1;
""", "")],
 "user-no-map-dedup": [("""	if (idx[i] != U8_MAX)
		return idx[i];
""", "")],
 "user-cache-ignores-times": [("""	return timespec64_equal(&mtime, &id->mtime) && timespec64_equal(&ctime, &id->ctime);""",
                               """	return true;""")],
 "user-no-copy-stop": [("""			break;
		done += chunk;""", """			memset(dst + done, 0, chunk);
		done += chunk;""")],
 "user-no-words": [("""		if (m && !(m->flags & STALL_MAP_ANON))
			stall_rec_add(rec, t, idx, m);""", """		if (0)
			stall_rec_add(rec, t, idx, m);""")],
 "user-nolock-no-reason": [("""		memset(s->ustack_map, I915_STALL_FRAME_NOLOCK, s->ustack_depth);
""", "")],
 "user-table-ignores-seq": [("""		if (t && t->key.seq == key.seq)
			goto named;""", """		if (t)
			goto named;""")],
 "user-table-ignores-process": [("""	return a->mm == b->mm && a->tgid == b->tgid &&
	       a->start_time == b->start_time && a->exec_id == b->exec_id;""",
                                 """	return a->mm == b->mm;""")],
 "user-table-never-kept": [("""	if (same) {
		old->key = *key;
		return old;
	}""", """	if (0) {
		old->key = *key;
		return old;
	}""")],
 "user-walk-no-cut": [("""		if (walked++ == walk_max) {""", """		if (walked++ == walk_max && 0) {""")],
 "user-place-keeps-past-head": [("""		    !(wrap && old->off >= ring->table_head) &&
""", "")],
 "user-place-ignores-count": [("""		if (ring->nr_tables < STALL_TABLES &&
		    !(wrap""", """		if (!(wrap""")],
 "user-name-alone-as-path": [("""		strscpy_pad(map->name, READ_ONCE(dentry->d_name.name), sizeof(map->name));
""", """		strscpy_pad(map->name, READ_ONCE(dentry->d_name.name), sizeof(map->name));
		map->flags |= I915_STALL_MAP_PATH;
""")],
 "user-no-table-place-wmb": [("\tsmp_wmb(); /* LMM(stall_table_place:A) */\n", "")],
 "user-no-snapshot-table-rmb": [("\tsmp_rmb(); /* LMM(stall_snapshot_table:A) */\n", "")],
 "user-snapshot-ignores-gone": [("""	if (READ_ONCE(ring->tables_gone) >= ref->id) {""",
                                 """	if (0) {""")],
 "syncobj-timeout-halved": [("jiffies64_to_nsecs(info->timeout);",
                             "jiffies64_to_nsecs(info->timeout) / 2;")],
}[m]
for o, n in edits:
    if s.count(o) != 1:
        sys.exit(f"mutate: {m}: {o!r} found {s.count(o)} times")
    s = s.replace(o, n)
open(p, "w").write(s)
PY
}

git -C "$KBASE" diff --quiet -- "$file" || { echo "mutate: $KBASE/$file is modified" >&2; exit 1; }
trap 'git -C "$KBASE" checkout -q -- "$file"' EXIT
cc=gcc
command -v ccache >/dev/null && cc="ccache gcc"
for m in ${*:-$all}; do
	mutate "$m" || exit 1
	case $m in
	user-*) suite=i915_stall_user ;;
	syncobj-*) suite=i915_stall_syncobj ;;
	*) suite=i915_stall ;;
	esac
	(cd "$KBASE" && python3 tools/testing/kunit/kunit.py run --arch=x86_64 \
		--kunitconfig=drivers/gpu/drm/i915/tests/.kunitconfig --kunitconfig="$config" \
		--build_dir="$bdir" --jobs="$(nproc)" --make_options "CC=$cc" \
		--qemu_args="-smp 4 -accel tcg,thread=single" --timeout=900 \
		--json="$out/$m.json" "$suite") > "$out/$m.log" 2>&1
	cp "$bdir/test.log" "$out/$m.test.log" 2>/dev/null
	python3 "$top/scripts/kunit-results.py" "$out/$m.json" "$out/$m.test.log" "$variant" \
		> "$out/$m.results" 2>/dev/null
	failed=$(grep '^not ok' "$out/$m.results" | sed 's/^not ok //; s/ (.*//' | tr '\n' ' ')
	echo "$m: ${failed:-nothing failed}"
	git -C "$KBASE" checkout -q -- "$file"
done
