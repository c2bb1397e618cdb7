#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Turn kunit.py's --json output into result lines, one per test case.

A skipped case is a failure here: no test may skip itself silently.  The
kernel log is searched for reports of the debug options the suites run
under (KASAN or KCSAN, lockdep, sleeping in atomic, preemption bugs,
WARN, BUG); any report fails the "no-kernel-reports" case.  Exit status 1 if
anything failed or nothing ran.
"""
import json
import re
import sys

REPORTS = re.compile(
    r"BUG: KASAN|BUG: sleeping function|BUG: using .* in preemptible|"
    r"WARNING: (?!.*kunit)|possible circular locking|possible recursive locking|"
    r"inconsistent lock state|suspicious RCU usage|BUG: |Kernel panic|"
    r"UBSAN:|general protection fault")


def leaves(group, prefix):
    name = prefix + "." + group["name"] if prefix else group["name"]
    for case in group.get("test_cases", []):
        yield name + "." + case["name"], case["status"]
    for sub in group.get("sub_groups", []):
        yield from leaves(sub, name)


def main():
    json_path, log_path = sys.argv[1], sys.argv[2]
    prefix = sys.argv[3] if len(sys.argv) > 3 else "kunit"
    failed = 0
    count = 0
    try:
        doc = json.load(open(json_path))
    except (OSError, ValueError) as e:
        print(f"not ok {prefix}.run")
        print(f"kunit-results: no results in {json_path}: {e}", file=sys.stderr)
        return 1
    for sub in doc.get("sub_groups", []):
        for name, status in leaves(sub, ""):
            name = re.sub(r"[^A-Za-z0-9_.:=-]+", "_", name)
            count += 1
            if status == "PASS":
                print(f"ok {prefix}.{name}")
            else:
                failed += 1
                print(f"not ok {prefix}.{name} ({status})")
    if count == 0:
        print(f"not ok {prefix}.none-ran")
        failed += 1
    try:
        log = open(log_path, errors="replace").read().splitlines()
    except OSError:
        log = []
    hits = [l for l in log if REPORTS.search(l)]
    if hits or not log:
        failed += 1
        print(f"not ok {prefix}.no-kernel-reports")
        for l in hits[:40] or ["(no kernel log)"]:
            print("kunit-results: " + l, file=sys.stderr)
    else:
        print(f"ok {prefix}.no-kernel-reports")
    return 1 if failed else 0


sys.exit(main())
