#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The ring's memory ordering in the Linux-kernel memory model: the litmus
# tests of kunit/litmus/ (one slot of the ring: publish, overwrite,
# accounting; one table of user mappings: table), as they stand and with
# each mutation of scripts/mutate.sh, run with herd7 and the model in the
# kernel tree (tools/memory-model).  A mutation of the ring edits the
# ring's tests, one of the tables (user-*) the table's.
# Prints, for each mutation, the tests whose forbidden outcome becomes
# reachable.  Needs herd7 (herdtools7, not packaged by Debian 12; HERD7=
# names the binary, HERDLIB= its libdir with stdlib.cat); not part of
# `make test`.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
KBASE=${KBASE:-${CACHE:-${I915_STALL_CACHE:-$HOME/.cache/i915-stall}}/linux}
herd=${HERD7:-herd7}
command -v "$herd" >/dev/null || { echo "check-litmus: no herd7 (HERD7=)" >&2; exit 2; }
model=$KBASE/tools/memory-model
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for m in none no-reserve-wmb no-commit-seq-release no-commit-head-release \
	 no-snapshot-head-acquire no-snapshot-seq-acquire no-snapshot-rmb \
	 swap-commit-stores no-odd-mark commit-before-fill \
	 user-no-table-place-wmb user-no-snapshot-table-rmb; do
	reached=
	for t in "$top"/kunit/litmus/*.litmus; do
		name=$(basename "$t" .litmus)
		python3 - "$t" "$m" "$name" > "$work/$name.litmus" <<'PY' || exit 1
import re, sys
s = open(sys.argv[1]).read()
m = sys.argv[2]
p0, sep, p1 = s.partition("\nP1(")
def sub(text, old, new, count=1):
    return re.sub(old, new, text, count=count, flags=re.M)
if (sys.argv[3] == "stall-table") != m.startswith("user-"):
    pass	# a mutation of the other structure: the test as it stands
elif m == "user-no-table-place-wmb":
    p0 = sub(p0, r"^\tsmp_wmb\(\);\n", "")
elif m == "user-no-snapshot-table-rmb":
    p1 = sub(p1, r"^\tsmp_rmb\(\);\n", "")
elif m == "no-reserve-wmb":
    p0 = sub(p0, r"^\tsmp_wmb\(\);\n", "")
elif m == "no-commit-seq-release":
    p0 = sub(p0, r"smp_store_release\(s, (\d)\)", r"WRITE_ONCE(*s, \1)")
elif m == "no-commit-head-release":
    p0 = sub(p0, r"smp_store_release\(h, (\d)\)", r"WRITE_ONCE(*h, \1)")
elif m == "no-snapshot-head-acquire":
    p1 = sub(p1, r"r0 = smp_load_acquire\(h\)", "r0 = READ_ONCE(*h)")
elif m == "no-snapshot-seq-acquire":
    p1 = sub(p1, r"r1 = smp_load_acquire\(s\)", "r1 = READ_ONCE(*s)")
elif m == "no-snapshot-rmb":
    p1 = sub(p1, r"^\tsmp_rmb\(\);\n", "")
elif m == "swap-commit-stores":
    p0 = sub(p0, r"^(\tsmp_store_release\(s, \d\);\n)(\tsmp_store_release\(h, \d\);\n)", r"\2\1")
elif m == "no-odd-mark":
    p0 = sub(p0, r"^\tWRITE_ONCE\(\*s, \d\);\n", "")
elif m == "commit-before-fill":
    p0 = sub(p0, r"^(\tWRITE_ONCE\(\*d, \d\);\n)((?:\tsmp_store_release.*\n)+)", r"\2\1")
sys.stdout.write(p0 + sep + p1)
PY
		obs=$(cd "$model" && "$herd" ${HERDLIB:+-I "$HERDLIB"} -conf linux-kernel.cfg "$work/$name.litmus" 2>&1 |
			awk '/^Observation/ { print $3 }')
		[ -n "$obs" ] || { echo "check-litmus: $name ($m): herd7 failed" >&2; exit 1; }
		[ "$obs" = Never ] || reached="$reached $name($obs)"
	done
	echo "$m:${reached:- nothing reachable}"
done
