#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Turn kunit.py's --json output into result lines, one per test case.

A skipped case is a failure here: no test may skip itself silently.  The
kernel log is searched for reports of the debug options the suites run
under (KASAN or KCSAN, lockdep, sleeping in atomic, preemption bugs,
WARN, BUG); any report fails the "no-kernel-reports" case, but for
KCSAN reports of races within the base kernel, which are printed to stderr
as ignored: those whose report (both stacks, the task, the workqueue)
names no code of i915, DRM, dma-fence, KUnit or the series.  Such races
(a workqueue's statistics counter bumped from two CPUs' ticks while the
kernel boots) come and go with the timing of a boot under TCG and are
not the series' to fix.  Exit status 1 if anything failed or nothing
ran.
"""
import json
import re
import sys

REPORTS = re.compile(
    r"BUG: KASAN|BUG: sleeping function|BUG: using .* in preemptible|"
    r"WARNING: (?!.*kunit)|possible circular locking|possible recursive locking|"
    r"inconsistent lock state|suspicious RCU usage|BUG: |Kernel panic|"
    r"UBSAN:|general protection fault")

# A KCSAN report that names none of OURS is a race within the base kernel.
# Seen so far: wq_worker_tick() against itself (two CPUs' ticks adding to
# an unbound workqueue's CPU-time counter, at boot), and the NMI-safe fast
# timekeeper, a seqcount_latch_t that 6.12 reads with
# raw_read_seqcount_latch(), which KCSAN does not treat as a latch read
# section (ktime_get_mono_fast_ns(), ktime_get_raw_fast_ns() against
# update_fast_timekeeper(); upstream moved the readers to
# read_seqcount_latch() in v6.13), about 1 boot in 12.
KCSAN_HEAD = re.compile(r"BUG: KCSAN: data-race in (.*)$")
# Code a race of the series could show in: the driver, DRM, fences, the
# KUnit tasks and the series' own functions.
OURS = re.compile(r"i915|drm|dma_fence|dma_resv|syncobj|kunit|stall_")


def known_race(log, i):
    """True if the KCSAN report whose header is log[i] is a race of the base
    kernel: naming none of OURS up to the report's end (a report cut off
    before its end is never ignored)."""
    m = KCSAN_HEAD.search(log[i])
    if not m:
        return False
    if OURS.search(m.group(1)):
        return False
    for line in log[i + 1:i + 120]:
        if "==================" in line:
            return True
        if OURS.search(line):
            return False
    return False


# "    # stall_syncobj_timeout: EXPECTATION FAILED at drivers/...c:348",
# then the indented lines of what was expected and what was found.
FAILED = re.compile(r"^(\s*)# (\S+): (?:EXPECTATION|ASSERTION) FAILED at (\S+)")
SUBTEST = re.compile(r"^(\s*)# Subtest: (\S+)")
RESULT = re.compile(r"^\s*(?:not )?ok \d+ ")
STAMP = re.compile(r"^\[[^]]*\] ")	# a console line's printk time, if any


def failures(log):
    """{(suite, case): [message, ...]} of the failed expectations in the
    KTAP log; each message is the FAILED line's place and what follows it
    up to the next KTAP line."""
    found = {}
    suites = []		# (indent, name) of the open subtests
    for i, raw in enumerate(log):
        line = STAMP.sub("", raw)
        m = SUBTEST.match(line)
        if m:
            indent = len(m.group(1))
            suites = [s for s in suites if s[0] < indent] + [(indent, m.group(2))]
            continue
        m = FAILED.match(line)
        if not m:
            continue
        indent = len(m.group(1))
        # A subtest header is indented as its cases: the suite is the last
        # one opened at or above the case's level, or the one before when
        # that is the case itself (a parameterised case is a subtest).
        outer = [s[1] for s in suites if s[0] <= indent]
        suite = outer[-2] if len(outer) > 1 and outer[-1] == m.group(2) else \
            (outer[-1] if outer else "")
        what = [m.group(3) + ":"]
        for more in log[i + 1:i + 12]:
            more = STAMP.sub("", more).strip()
            if not more or more.startswith("#") or RESULT.match(more) or \
                    more.startswith("KTAP"):
                break
            what.append(more)
        found.setdefault((suite, m.group(2)), []).append(" ".join(what))
    return found


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
    try:
        log = open(log_path, errors="replace").read().splitlines()
    except OSError:
        log = []
    why = failures(log)
    for sub in doc.get("sub_groups", []):
        for name, status in leaves(sub, ""):
            parts = name.split(".")
            name = re.sub(r"[^A-Za-z0-9_.:=-]+", "_", name)
            count += 1
            if status == "PASS":
                print(f"ok {prefix}.{name}")
                continue
            failed += 1
            # The first failed expectation on the line the summary shows,
            # all of them on stderr.
            msgs = why.get(tuple(parts[:2]), [])
            first = f": {msgs[0][:300]}" if msgs else ""
            print(f"not ok {prefix}.{name} ({status}{first})")
            for msg in msgs:
                print(f"kunit-results: {prefix}.{name}: {msg}", file=sys.stderr)
    if count == 0:
        print(f"not ok {prefix}.none-ran")
        failed += 1
    hits = []
    for i, line in enumerate(log):
        if not REPORTS.search(line):
            continue
        if known_race(log, i):
            print("kunit-results: ignored, a race within the base kernel: " + line,
                  file=sys.stderr)
        else:
            hits.append(line)
    if hits or not log:
        failed += 1
        print(f"not ok {prefix}.no-kernel-reports")
        for l in hits[:40] or ["(no kernel log)"]:
            print("kunit-results: " + l, file=sys.stderr)
    else:
        print(f"ok {prefix}.no-kernel-reports")
    return 1 if failed else 0


sys.exit(main())
