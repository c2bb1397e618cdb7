#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The mutation table of the ring: break the ring code of i915_stall.c in
# the kernel tree one way at a time, run the i915_stall suite on the KUnit
# kernel (or, with "kcsan", on the KCSAN one), restore the file, and print
# which cases failed.  Not part of `make test`: about two minutes a
# mutation.  The tree must be clean; it is left as it was.
#
#   scripts/mutate.sh [kcsan] [MUTATION...]    (default: all of them)
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
KBASE=${KBASE:-${CACHE:-${I915_STALL_CACHE:-$HOME/.cache/i915-stall}}/linux}
BUILD=${BUILD:-${CACHE:-${I915_STALL_CACHE:-$HOME/.cache/i915-stall}}/build}
variant=kunit config=$top/kunit/project.kunitconfig
if [ "${1:-}" = kcsan ]; then
	variant=kunit-kcsan config=$top/kunit/kcsan.kunitconfig
	shift
fi
file=drivers/gpu/drm/i915/i915_stall.c
out=${OUT:-$top/out}/mutate-$variant
mkdir -p "$out"

all="no-reserve-wmb no-commit-seq-release no-commit-head-release
     no-snapshot-head-acquire no-snapshot-seq-acquire no-snapshot-rmb
     swap-commit-stores no-odd-mark commit-before-fill"

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
 "commit-before-fill": [("""	n = stall_slot_reserve(rings, &ring, &slot);
	fill(slot, arg);
	stall_slot_commit(ring, slot, n);""", """	n = stall_slot_reserve(rings, &ring, &slot);
	stall_slot_commit(ring, slot, n);
	fill(slot, arg);""")],
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
	(cd "$KBASE" && python3 tools/testing/kunit/kunit.py run --arch=x86_64 \
		--kunitconfig=drivers/gpu/drm/i915/tests/.kunitconfig --kunitconfig="$config" \
		--build_dir="$BUILD/$variant" --jobs="$(nproc)" --make_options "CC=$cc" \
		--qemu_args="-smp 4 -accel tcg,thread=single" --timeout=900 \
		--json="$out/$m.json" 'i915_stall') > "$out/$m.log" 2>&1
	cp "$BUILD/$variant/test.log" "$out/$m.test.log" 2>/dev/null
	python3 "$top/scripts/kunit-results.py" "$out/$m.json" "$out/$m.test.log" "$variant" \
		> "$out/$m.results" 2>/dev/null
	failed=$(grep '^not ok' "$out/$m.results" | sed 's/^not ok //; s/ (.*//' | tr '\n' ' ')
	echo "$m: ${failed:-nothing failed}"
	git -C "$KBASE" checkout -q -- "$file"
done
