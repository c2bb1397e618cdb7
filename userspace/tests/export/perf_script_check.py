#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Hold i915-stalls -F perf-script to the log and to perf script's layout.

  perf_script_check.py log REPORT.json OURS.txt
      every event is the report's stall at the same place (both sorted by
      start time): comm, pid/tid, CPU, time, period = wait, event name, and
      the kernel then the user frames: address, symbol+offset, DSO
  perf_script_check.py layout PERF.txt OURS.txt
      PERF.txt is what "perf script -F comm,pid,tid,cpu,time,period,event,
      ip,sym,symoff,dso" printed for a real capture with call chains; each
      of its lines is parsed and printed again by the rules below, which
      must give the line back byte for byte, and so must every line of
      OURS.txt: one layout for both

The rules (perf 6.1's builtin-script.c and callchain printing):
  event line  "%s %5d/%-5d [%03d] %12s: %10llu %s: " (comm, pid, tid, cpu,
              "SECONDS.MICROSECONDS", period, event)
  frame line  "\\t%16llx %s (%s)" (address, "symbol+0xoff" or "[unknown]",
              DSO), the innermost first
  then an empty line.
"""
import json
import os
import re
import sys

EVENT = re.compile(r"^(.+?) +(-?\d+)/(-?\d+) +\[(\d+)\] +(\d+\.\d{6}): +(\d+) (\S+): $")
FRAME = re.compile(r"^\t *([0-9a-f]+) (.+) \((.*)\)$")
errors = []


def err(msg):
    if len(errors) < 40:
        errors.append(msg)


def render_event(comm, pid, tid, cpu, time, period, event):
    return "%s %5d/%-5d [%03d] %12s: %10d %s: " % (comm, pid, tid, cpu, time, period, event)


def render_frame(addr, sym, dso):
    return "\t%16x %s (%s)" % (addr, sym, dso)


def events(path):
    """[(event line, [frame lines])], the '#' lines skipped."""
    out, cur = [], None
    for n, line in enumerate(open(path, encoding="utf-8", errors="surrogateescape"), 1):
        line = line.rstrip("\n")
        if line.startswith("#"):
            continue
        if not line:
            if cur is None:
                err("%s:%d: an empty line outside an event" % (path, n))
            cur = None
            continue
        if cur is None:
            cur = (line, [])
            out.append(cur)
        else:
            cur[1].append(line)
    return out


def layout(path):
    evs = events(path)
    nframes = 0
    for ev, frames in evs:
        m = EVENT.match(ev)
        if not m:
            err("%s: not an event line: %r" % (path, ev))
            continue
        comm, pid, tid, cpu, time, period, event = m.groups()
        again = render_event(comm, int(pid), int(tid), int(cpu), time, int(period), event)
        if again != ev:
            err("%s: event line %r printed again is %r" % (path, ev, again))
        for f in frames:
            m = FRAME.match(f)
            if not m:
                err("%s: not a frame line: %r" % (path, f))
                continue
            again = render_frame(int(m.group(1), 16), m.group(2), m.group(3))
            if again != f:
                err("%s: frame line %r printed again is %r" % (path, f, again))
            nframes += 1
    return len(evs), nframes


def clean(s):
    return "".join("?" if ord(c) < 0x20 or c == "\x7f" else c for c in s)


def frame_of(f, user):
    a = int(f["addr"], 16)
    if user and f["module"] and f["module_offset"] is not None:
        a = int(f["module_offset"], 16)
    sym = "%s+%s" % (f["symbol"], f["offset"]) if f["symbol"] is not None else "[unknown]"
    if user:
        dso = f["module"] or "[unknown]"
    else:
        dso = "[%s]" % f["module"] if f["module"] else "[kernel.kallsyms]"
    return render_frame(a, sym, dso)


def cmd_log(report, ours):
    stalls = json.load(open(report))["stalls"]
    evs = events(ours)
    if len(evs) != len(stalls):
        err("%d events, %d stalls in the report" % (len(evs), len(stalls)))
    for i, (s, (ev, frames)) in enumerate(zip(stalls, evs)):
        comm = clean(s["comm"]) or ":%d" % s["tid"]
        t = "%d.%06d" % (s["start_ns"] // 10**9, s["start_ns"] % 10**9 // 1000)
        want = render_event(comm, s["pid"], s["tid"], s["cpu"], t, s["duration_ns"], "i915:stall")
        if ev != want:
            err("event %d: %r, the stall (cpu %d seq %d) gives %r" % (i, ev, s["cpu"], s["seq"], want))
        wf = [frame_of(f, False) for f in s["kstack"]] + [frame_of(f, True) for f in s["ustack"]]
        if frames != wf:
            err("event %d (cpu %d seq %d): frames\n  %s\nthe stall's\n  %s" %
                (i, s["cpu"], s["seq"], "\n  ".join(frames), "\n  ".join(wf)))
    print("perf script: %d events, as the %d stalls of the report" % (len(evs), len(stalls)))


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "log":
        cmd_log(*args)
    elif cmd == "layout":
        real, ours = args
        n, nf = layout(real)
        if n < 10 or nf < 10:
            err("%s: %d events, %d frames: too few to learn the layout from" % (real, n, nf))
        m, mf = layout(ours)
        print("layout: %d events, %d frames of perf script (%s) and %d events, %d frames "
              "of i915-stalls printed again identically" % (n, nf, os.path.basename(real), m, mf))
    for e in errors:
        print(e)
    sys.exit(1 if errors else 0)


main()
