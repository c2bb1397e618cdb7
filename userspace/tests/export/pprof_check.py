#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Hold what pprof says of an i915-stalls -F pprof profile to the reader.

  pprof_check.py hide REPORT.json
      the -hide regular expression of the kernel functions of the report
  pprof_check.py top REPORT.json SUMMARY.json TOP_WAIT TOP_COUNT
      "pprof -top -unit=ns" (wait) and "-sample_index=stalls" (count): the
      totals are summary's, every function's flat and cum the report's
  pprof_check.py traces SUMMARY.json TRACES_WAIT TRACES_COUNT
      "pprof -traces" with the kernel functions hidden: per user stack,
      the count and wait summary gives
  pprof_check.py diff DIFF.json TOP_WAIT TRACES_WAIT TRACES_COUNT
      "pprof -diff_base OLD NEW": the total change and, per user stack, the
      change "i915-stalls diff OLD NEW" gives
  pprof_check.py sites SUMMARY.json|DIFF.json TAGGED
      "pprof -tagfocus site=SITE -top" per site (TAGGED: lines "SITE WAIT
      COUNT"): summary's count and total, or diff's change
  pprof_check.py submitters SUMMARY.json REPORT.json TAGS_WAIT TAGS_COUNT FOCUSED
      format 1.4: "pprof -tags" (wait, count) and "pprof -tagfocus KEY=VALUE
      -top" (FOCUSED: lines "KEY VALUE WAIT COUNT", KEY submit or
      submitter, "- - WAIT COUNT" for -tagignore submit=.): per submitter
      and per status the stalls and wait of the report's join (its
      "submit"), and per submitter's comm and status those of "summary
      --submitter" (its markers "[submitted by COMM]", "[submit record
      gone]", "[submit not recorded]", "[submitter unknown]")

A function's name in the profile is the reader's frame key: the symbol, or
the placeholder summary shows for an unresolved frame ("[unknown 0xADDR]",
"[FILE]", "[FILE: build-id mismatch]"), without the "_[c]" mark of a frame
only CFI found (a profile has no place for it).  Exits 1 with the
differences.
"""
import json
import os
import re
import sys
from collections import defaultdict

errors = []


def err(msg):
    errors.append(msg)


def clean(s):
    return "".join(":" if c == ";" else "?" if ord(c) < 0x20 or c == "\x7f" else c for c in s)


def key(f):
    """The reader's key of a JSON frame (symbolize.c's make_fold, by address)."""
    if f["symbol"] is not None:
        return clean(f["symbol"])
    mod = f["module"]
    if not mod:
        return "[unknown %s]" % f["addr"]
    base = clean(os.path.basename(mod))
    if f["reason"] == "build-id mismatch":
        return "[%s: build-id mismatch]" % base
    if f["reason"] != "anon":
        return "[%s]" % base
    return "[unknown]"


def stalls(report):
    return json.load(open(report))["stalls"]


def kernel_names(report):
    return sorted({key(f) for s in stalls(report) for f in s["kstack"]})


def num(s):
    """A pprof value: "123ns", "123" or "0"."""
    m = re.fullmatch(r"(-?\d+)(ns)?", s)
    if not m:
        raise ValueError("not a plain value: %r (use -unit=ns)" % s)
    return int(m.group(1))


def parse_top(path):
    """{function: (flat, cum)}, and the total of the header."""
    rows, total, shown = {}, None, None
    for line in open(path):
        m = re.match(r"Showing nodes accounting for (\S+), [\d.]+% of (\S+) total", line)
        if m:
            shown, total = num(m.group(1)), num(m.group(2))
            continue
        m = re.match(r"\s*(-?\d+(?:ns)?)\s+-?[\d.]+%\s+-?[\d.]+%\s+(-?\d+(?:ns)?)\s+-?[\d.]+%\s+(.*)$",
                     line.rstrip("\n"))
        if m:
            name = m.group(3)
            if name in rows:
                err("pprof -top lists %r twice" % name)
            rows[name] = (num(m.group(1)), num(m.group(2)))
    if total is None:
        err("%s: no 'Showing nodes accounting for' line" % path)
    return rows, total, shown


def parse_traces(path):
    """[(labels, value, [frames, leaf first])]"""
    out, cur = [], None
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("-----------+"):
            if cur and cur[1] is not None:
                out.append(cur)
            cur = [{}, None, []]
            continue
        if cur is None:
            continue
        m = re.match(r"\s*(\S+):\s+(.*)$", line)
        if m and cur[1] is None and not re.match(r"\s*-?\d+(ns)?\s", line):
            cur[0][m.group(1)] = m.group(2)
            continue
        m = re.match(r"\s*(-?\d+(?:ns)?)   (.*)$", line)
        if m and cur[1] is None:
            cur[1] = num(m.group(1))
            cur[2].append(m.group(2))
            continue
        m = re.match(r"\s{13}(.*)$", line)
        if m and cur[1] is not None:
            cur[2].append(m.group(1))
    if cur and cur[1] is not None:
        out.append(cur)
    return out


def expect_top(report):
    """The report's flat and cum per function, wait and count."""
    flat = defaultdict(lambda: [0, 0])
    cum = defaultdict(lambda: [0, 0])
    tw = tc = 0
    for s in stalls(report):
        names = [key(f) for f in s["kstack"]] + [key(f) for f in s["ustack"]]
        w = s["duration_ns"]
        tw += w
        tc += 1
        if names:
            flat[names[0]][0] += w
            flat[names[0]][1] += 1
        for n in set(names):
            cum[n][0] += w
            cum[n][1] += 1
    return flat, cum, tw, tc


def cmd_top(report, summary, top_wait, top_count):
    S = json.load(open(summary))
    flat, cum, tw, tc = expect_top(report)
    if (tw, tc) != (S["total_ns"], S["count"]):
        err("the report's totals %d ns, %d stalls differ from summary's %d, %d" %
            (tw, tc, S["total_ns"], S["count"]))
    for i, (path, total) in enumerate(((top_wait, S["total_ns"]), (top_count, S["count"]))):
        what = ("wait", "stalls")[i]
        rows, ptotal, shown = parse_top(path)
        if ptotal != total:
            err("pprof -top (%s): total %s, summary says %s" % (what, ptotal, total))
        if shown != total:
            err("pprof -top (%s): shows %s of the total %s (not every node)" % (what, shown, total))
        want = {n for n in cum if cum[n][i]}
        for n in sorted(want - rows.keys()):
            err("pprof -top (%s): no %r" % (what, n))
        for n in sorted(rows.keys() - want):
            err("pprof -top (%s): %r is not in the report" % (what, n))
        for n in sorted(want & rows.keys()):
            w = (flat[n][i] if n in flat else 0, cum[n][i])
            if rows[n] != w:
                err("pprof -top (%s): %r flat, cum %s, the report's %s" % (what, n, rows[n], w))
    print("pprof -top: %d functions, %d stalls, %d ns, as summary" % (len(cum), tc, tw))


def user_part(trace):
    """The user stack of a -traces entry whose kernel frames pprof hid, root
    first, as summary's stack keys."""
    return tuple(reversed(trace[2]))


def summary_stacks(S):
    """summary's stacks: root-first keys without the CFI mark; the stalls
    without a user stack ([kernel thread], [no user stack]) apart."""
    got, empty = defaultdict(lambda: [0, 0]), [0, 0]
    for g in S["stacks"]:
        st = tuple(k[:-4] if k.endswith("_[c]") else k for k in g["stack"])
        if st in (("[kernel thread]",), ("[no user stack]",)):
            empty[0] += g["total_ns"]
            empty[1] += g["count"]
            continue
        got[st][0] += g["total_ns"]
        got[st][1] += g["count"]
    return got, empty


def cmd_traces(summary, tr_wait, tr_count):
    S = json.load(open(summary))
    if len(S["stacks"]) >= 1000:
        err("summary has %d stacks: run it with a larger --top" % len(S["stacks"]))
    stacks = defaultdict(lambda: [0, 0])
    tw, tc = parse_traces(tr_wait), parse_traces(tr_count)
    if len(tw) != len(tc):
        err("pprof -traces: %d samples of wait, %d of stalls" % (len(tw), len(tc)))
    shown = [0, 0]
    for i, traces in enumerate((tw, tc)):
        for t in traces:
            stacks[user_part(t)][i] += t[1]
            shown[i] += t[1]
    want_stacks, empty = summary_stacks(S)
    # the stalls whose stacks were all kernel frames are not among the traces
    hidden = [S["total_ns"] - shown[0], S["count"] - shown[1]]
    if hidden != empty:
        err("stalls without user frames: pprof %s (wait, count), summary %s" % (hidden, empty))
    for st in sorted(set(want_stacks) | set(stacks)):
        if want_stacks.get(st) != stacks.get(st):
            err("user stack %s: pprof %s, summary %s" % (";".join(st), stacks.get(st),
                                                          want_stacks.get(st)))
    print("pprof -traces: %d samples, %d user stacks as summary" % (len(tw), len(want_stacks)))


def cmd_sites(doc, tagged):
    """pprof -tagfocus site=S totals, TAGGED: lines "SITE WAIT COUNT", against
    summary's sites or diff's changes per site"""
    D = json.load(open(doc))
    if "rows" in D:
        want = {r["key"]: (r["new"]["total_ns"] - r["old"]["total_ns"],
                           r["new"]["count"] - r["old"]["count"])
                for r in D["rows"] if r["kind"] == "site"}
    else:
        want = {g["site"]: (g["total_ns"], g["count"]) for g in D["sites"]}
    got = {}
    for line in open(tagged):
        site, w, c = line.split()
        got[site] = (int(w), int(c))
    for site in sorted(set(got) | set(want)):
        if got.get(site) != want.get(site):
            err("site %s: pprof -tagfocus %s, i915-stalls %s" % (site, got.get(site), want.get(site)))
    print("pprof -tagfocus site=...: %d sites as i915-stalls %s" %
          (len(got), "diff" if "rows" in D else "summary"))


NUMERIC = ("pid", "tid", "submitter_pid", "submitter_tid")


def parse_tags(path):
    """pprof -tags: {key: (total, {value: amount})}"""
    out, cur = {}, None
    for line in open(path):
        line = line.rstrip("\n")
        m = re.match(r"^ *(\S+): Total (\S+)$", line)
        if m:
            cur = {}
            out[m.group(1)] = (tag_num(m.group(2)), cur)
            key = m.group(1)
            continue
        m = re.match(r"^ *(\S+) \( *[\d.]+%\): (.*)$", line)
        if m and cur is not None:
            v = m.group(2)
            if key in NUMERIC:
                v = re.sub(r"ns$", "", v)
            if v in cur:
                err("pprof -tags: %s %r twice" % (key, v))
            cur[v] = tag_num(m.group(1))
    return out


def tag_num(s):
    """"6000000.0ns", "3.0": an exact whole number"""
    m = re.fullmatch(r"(-?\d+)(?:\.0+)?(ns)?", s)
    if not m:
        raise ValueError("not a whole value: %r (use -unit=ns)" % s)
    return int(m.group(1))


def cmd_submitters(summary, report, tags_wait, tags_count, focused):
    S = json.load(open(summary))
    if len(S["stacks"]) >= 1000:
        err("summary has %d stacks: run it with a larger --top" % len(S["stacks"]))
    # the report's join, stall by stall: [wait, count] per label value
    want = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    none = [0, 0]
    for s in stalls(report):
        sub = s.get("submit")
        w = s["duration_ns"]
        vals = []
        if sub:
            vals.append(("submit", sub["status"]))
        if sub and sub["status"] == "recorded":
            vals += [("submitter", "%s[%d]" % (sub["comm"], sub["pid"])),
                     ("submitter_pid", str(sub["pid"])), ("submitter_tid", str(sub["tid"]))]
        if not sub:
            none[0] += w
            none[1] += 1
        for k, v in vals:
            want[k][v][0] += w
            want[k][v][1] += 1
    # summary --submitter's, by marker
    markers = defaultdict(lambda: [0, 0])
    for g in S["stacks"]:
        if not g.get("submitter"):
            err("summary stack %s has no submitter: run summary --submitter" % g["stack"])
            continue
        markers[g["submitter"][0]][0] += g["total_ns"]
        markers[g["submitter"][0]][1] += g["count"]
    tags = [parse_tags(tags_wait), parse_tags(tags_count)]
    got = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for i in (0, 1):
        for k in ("submit", "submitter", "submitter_pid", "submitter_tid"):
            total, vals = tags[i].get(k, (0, {}))
            if total != sum(vals.values()):
                err("pprof -tags %s: total %d, its values sum to %d" % (k, total, sum(vals.values())))
            for v, n in vals.items():
                got[k][v][i] = n
    for k in ("submit", "submitter", "submitter_pid", "submitter_tid"):
        for v in sorted(set(want[k]) | set(got[k])):
            if want[k].get(v) != got[k].get(v):
                err("pprof -tags %s=%s: %s (wait, stalls), the report's join %s" %
                    (k, v, got[k].get(v), want[k].get(v)))
    # pprof's by comm and status, summary's by marker
    pm = defaultdict(lambda: [0, 0])
    for v, (w, c) in got["submitter"].items():
        m = re.fullmatch(r"(.*)\[\d+\]", v)
        pm["[submitted by %s]" % m.group(1)][0] += w
        pm["[submitted by %s]" % m.group(1)][1] += c
    for st, mk in (("gone", "[submit record gone]"), ("not_recorded", "[submit not recorded]")):
        if st in got["submit"]:
            pm[mk] = list(got["submit"][st])
    labelled = [sum(v[i] for v in got["submit"].values()) for i in (0, 1)]
    unknown = [S["total_ns"] - labelled[0], S["count"] - labelled[1]]
    if unknown != [0, 0]:
        pm["[submitter unknown]"] = unknown
    if unknown != none:
        err("stalls without submit label: %s (wait, stalls), the report's without a submitter %s" %
            (unknown, none))
    for mk in sorted(set(pm) | set(markers)):
        if pm.get(mk) != markers.get(mk):
            err("%s: pprof %s (wait, stalls), summary --submitter %s" % (mk, pm.get(mk), markers.get(mk)))
    # -tagfocus KEY=VALUE (and -tagignore submit=.): the same amounts
    nf = 0
    for line in open(focused):
        k, v, w, c = line.split()
        nf += 1
        want_v = none if k == "-" else want[k].get(v, [0, 0])
        if [int(w), int(c)] != want_v:
            err("pprof -tagfocus %s=%s: %s, %s, the report's join %s" % (k, v, w, c, want_v))
    print("pprof -tags: %d submitters, %d statuses, %d -tagfocus runs%s" %
          (len(got["submitter"]), len(got["submit"]), nf,
           "" if errors else " as the report and summary --submitter"))


def strip_c(k):
    return ";".join(f[:-4] if f.endswith("_[c]") else f for f in k.split(";"))


def diff_name(n):
    # diff pairs the runs by frame names, the unresolved ones merged
    return "[unknown]" if re.fullmatch(r"\[unknown 0x[0-9a-f]+\]", n) else n


def cmd_diff(diff, top, tr_wait, tr_count):
    D = json.load(open(diff))
    a = D["all"]
    delta = a["new"]["total_ns"] - a["old"]["total_ns"]
    rows, total, shown = parse_top(top)
    if shown != delta:
        err("pprof -diff_base -top: nodes account for %s, diff's change is %s" % (shown, delta))
    flat = sum(v[0] for v in rows.values())
    if flat != delta:
        err("pprof -diff_base -top: flat sums to %s, diff's change is %s" % (flat, delta))
    want_stacks = defaultdict(lambda: [0, 0])
    for r in D["rows"]:
        d = [r["new"]["total_ns"] - r["old"]["total_ns"], r["new"]["count"] - r["old"]["count"]]
        if r["kind"] == "site":
            continue
        if r["key"] not in ("[kernel thread]", "[no user stack]"):
            k = strip_c(r["key"])
            want_stacks[k][0] += d[0]
            want_stacks[k][1] += d[1]
    if D["stacks_shown"] != D["stacks"]:
        err("diff showed %d of %d stacks: run it with a larger --top" % (D["stacks_shown"], D["stacks"]))
    stacks = defaultdict(lambda: [0, 0])
    for i, path in enumerate((tr_wait, tr_count)):
        for t in parse_traces(path):
            stacks[";".join(diff_name(n) for n in user_part(t))][i] += t[1]
    for k in sorted(set(want_stacks) | set(stacks)):
        w, g = want_stacks.get(k, [0, 0]), stacks.get(k, [0, 0])
        if w != g:
            err("user stack %s: pprof -diff_base changes it by %s, diff by %s" % (k, g, w))
    print("pprof -diff_base: total %+d ns and %d user stacks as diff" % (delta, len(want_stacks)))


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "hide":
        print("^(%s)$" % "|".join(re.escape(n) for n in kernel_names(args[0])))
        return
    {"top": cmd_top, "traces": cmd_traces, "diff": cmd_diff, "sites": cmd_sites,
     "submitters": cmd_submitters}[cmd](*args)
    for e in errors:
        print(e)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
