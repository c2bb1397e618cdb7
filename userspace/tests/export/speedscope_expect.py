#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What speedscope must show of i915-stalls' outputs (speedscope.js's
EXPECT.json), made from the reader's own JSON report of the same log.

  speedscope_expect.py REPORT.json PERF.txt PROFILE.pb.gz TRACE.json [TRACE14.json] > EXPECT.json

  perf script  a profile per thread (comm, pid, tid), named after its
               frames: "symbol" without "+0x...", "??? (DSO)" for "[unknown]"
  pprof        one profile: every function, with its total (cum) and self
               (flat) wait, the report's
  trace-event  a profile per track: its slices, each named "NAME ARGS" (as
               speedscope names a slice: its name, then its arguments as
               JSON)
  trace-event-submit  the same of TRACE14.json, a 1.4 log's timeline: the
               submit slices (of no duration) on the submitters' tracks too
"""
import json
import sys
from collections import defaultdict

from pprof_check import clean, expect_top, key

report, perf, pprof, trace = sys.argv[1:5]
trace14 = sys.argv[5] if len(sys.argv) > 5 else None
stalls = json.load(open(report))["stalls"]


def perf_name(f, user):
    if f["symbol"] is not None:
        return f["symbol"]
    dso = (f["module"] or "[unknown]") if user else \
        ("[%s]" % f["module"] if f["module"] else "[kernel.kallsyms]")
    return "??? (%s)" % dso


threads = defaultdict(set)
for s in stalls:
    t = (clean(s["comm"]) or ":%d" % s["tid"], s["pid"], s["tid"])
    threads[t] |= {perf_name(f, False) for f in s["kstack"]} | {perf_name(f, True) for f in s["ustack"]}

flat, cum, _, _ = expect_top(report)



def trace_tracks(path):
    T = json.load(open(path))
    tracks = defaultdict(set)
    for e in T["traceEvents"]:
        if e["ph"] == "X":
            tracks[(e["pid"], e["tid"])].add(e["name"] + " " +
                                             json.dumps(e["args"], separators=(",", ":"), ensure_ascii=False))
    return [sorted(v) for v in tracks.values()]


checks = [
    {"name": "perf-script", "file": perf, "import": "linux perf script output",
     "profiles": [sorted(v) for v in threads.values()], "shot": "b_wait"},
    {"name": "pprof", "file": pprof, "import": "protobuf encoded pprof file",
     "profiles": [sorted(cum)], "shot": "fake_ioctl", "view": "2",
     "values": {n: [cum[n][0], flat[n][0] if n in flat else 0] for n in cum}},
    {"name": "trace-event", "file": trace, "import": "Trace Event Format profile",
     "profiles": trace_tracks(trace), "shot": "request_wait"},
]
if trace14:
    checks.append({"name": "trace-event-submit", "file": trace14, "import": "Trace Event Format profile",
                   "profiles": trace_tracks(trace14), "shot": "submit"})
json.dump(checks, sys.stdout, indent=1, ensure_ascii=False)
