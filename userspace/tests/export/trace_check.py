#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The structural check of i915-stalls -F trace-event: every slice, flow and
stack held to the log.

  trace_check.py TRACE.json REPORT.json REPORT.txt

REPORT.json and REPORT.txt are the reader's JSON and text reports of the same
log (its records, sorted by start time, and their frames' lines).  Checked:

  stall slices  ("cat":"i915.stall") one per stall (by process, CPU and
                sequence number): on the waiter's process and thread (or on a track of that
                process named "COMM TID (overlapping waits)"), named after
                the site, "ts"/"dur" the start and wait to the nanosecond,
                every argument the record's, "kernel_stack"/"user_stack" the
                text report's frame lines, "sf" the stack root first (user
                frames outermost first, then the kernel's)
  submit slices ("cat":"i915.submit", format 1.4) one per stall joined to
                its submit record (the JSON report's "submit", status
                "recorded"): on the submitter's process and thread, named
                "submit", "ts" the submit record's start, "dur" 0, the
                submitter, fence, waiter and "user_stack" (the text
                report's "submit stack" lines) in args, "sf" that stack
  engine slices ("cat":"i915.work") on the track of the stall's engine in
                the process of its GPU: each stall inside exactly one, of its
                fence; each slice spans exactly its stalls and counts them
  tracks        every slice nests in or follows the ones before it on its
                track; every process and thread used is named
  flows         Perfetto's flow binding: each joined stall's slice has
                "flow_in" and a "bind_id" that exactly one other slice has,
                with "flow_out": its submit slice; a stall whose submit
                record is gone or was not made, or that has no fence, has
                no flow; no slice has two ends, no bind_id is used twice, no
                submit slice is left without its stall; no flow events
                ("s", "t", "f": the reader writes none; any must still be
                well formed, an "s" with its "f")
  nothing else  no other event

Numbers are read as decimals, exactly.  Exits 1 with what failed.
"""
import json
import re
import sys
from collections import defaultdict
from decimal import Decimal

GPU_PID_BASE = 0x40000000
errors = []


def err(msg):
    if len(errors) < 50:
        errors.append(msg)


def ns(us):
    v = Decimal(us) * 1000
    if v != v.to_integral_value():
        err("time %s us is not a whole number of nanoseconds" % us)
    return int(v)


def clean(s):
    return "".join("?" if ord(c) < 0x20 or c == "\x7f" else c for c in s)


def report_blocks(path):
    """Per stall of the text report: its kernel, user and submitter's user
    frame lines."""
    out = []
    for b in open(path, encoding="utf-8", errors="surrogateescape").read().split("\n\n"):
        lines = b.strip("\n").split("\n")
        if not lines or not re.match(r"^\d+\.\d{9} ", lines[0]):
            continue
        k, u, sub, cur = [], [], [], None
        for line in lines[1:]:
            if line.startswith("  kernel stack:"):
                cur = k
            elif line.startswith("  user stack:"):
                cur = u
            elif line.startswith("  submit stack:"):
                cur = sub
            elif line.startswith("  submitted"):
                cur = None
            elif cur is not None:
                m = re.match(r"^    #\d+ +(0x[0-9a-f]{16} .*)$", line)
                if m:
                    cur.append(m.group(1))
        out.append((k, u, sub))
    return out


def engine_of(s):
    e = s["engine"]
    return "%s%d" % (e["class"], e["instance"]) if e and e["class"] else \
        "class%d:%d" % (e["class_id"], e["instance"]) if e else None


def want_args(s, k, u):
    f = s["fence"]
    o = s["owner"]
    a = {
        "site": s["site"], "engine": engine_of(s),
        "fence": "%d:%d" % (int(f["context"], 16), f["seqno"]) if f else None,
        "owner": "%s[%d]" % (clean(o["comm"]), o["pid"]) if o else None,
        "outcome": s["outcome"], "error": s["error"], "duration_ns": s["duration_ns"],
        "spin_ns": s["spin_ns"], "timeout_ns": s["timeout_ns"], "fence_count": s["fence_count"],
        "cpu": s["cpu"], "seq": s["seq"], "kernel_stack": k, "user_stack": u,
    }
    end = s.get("ustack_end")
    if end:
        a["user_stack_end"] = end["reason"] + \
            (" " + end["addr"] if end["reason"] in ("no CFI for", "no mapping for", "unwinding failed at") else "")
    sub = s.get("submit")
    if sub:
        a["submit"] = sub["status"]
        if sub["status"] == "recorded":
            a["submitter"] = "%s[%d/%d]" % (clean(sub["comm"]), sub["pid"], sub["tid"])
            a["queued_ns"] = sub["queued_ns"]
    return a


def want_submit_args(s, lines):
    """The args of the submit slice of stall s, joined; lines: the text
    report's submit stack lines"""
    sub = s["submit"]
    f = sub["fence"]
    return {
        "comm": clean(sub["comm"]), "pid": sub["pid"], "tid": sub["tid"], "engine": engine_of(sub),
        "fence": "%d:%d" % (int(f["context"], 16), f["seqno"]), "cpu": sub["cpu"], "seq": sub["seq"],
        "queued_ns": sub["queued_ns"], "waiter": "%s[%d/%d]" % (clean(s["comm"]), s["pid"], s["tid"]),
        "user_stack": lines,
    }


def stack_of(frames, node, who):
    """The frames of stackFrames node, root first"""
    got = []
    while node is not None:
        f = frames.get(str(node))
        if f is None:
            err("%s: stack frame %s is not in stackFrames" % (who, node))
            break
        got.append((f["category"], f["name"]))
        node = f.get("parent")
        if len(got) > 1000:
            err("%s: stackFrames loops" % who)
            break
    return list(reversed(got))


def main():
    trace_path, report_json, report_txt = sys.argv[1:4]
    T = json.load(open(trace_path), parse_float=Decimal)
    R = json.load(open(report_json))
    stalls = R["stalls"]
    blocks = report_blocks(report_txt)
    if len(blocks) != len(stalls):
        err("the text report has %d stalls, the JSON report %d" % (len(blocks), len(stalls)))
    ev = T.get("traceEvents")
    frames = T.get("stackFrames", {})
    if not isinstance(ev, list):
        err("no traceEvents")
        ev = []
    if T.get("otherData", {}).get("clock") != "CLOCK_MONOTONIC":
        err("otherData.clock is not CLOCK_MONOTONIC")

    pnames, tnames = {}, {}
    stall_sl, work_sl, sub_sl, flows, other = [], [], [], [], []
    for e in ev:
        ph = e.get("ph")
        if ph == "M":
            if e["name"] == "process_name":
                pnames[e["pid"]] = e["args"]["name"]
            elif e["name"] == "thread_name":
                tnames[(e["pid"], e["tid"])] = e["args"]["name"]
            elif e["name"] not in ("process_sort_index", "thread_sort_index"):
                other.append(e)
        elif ph == "X" and e.get("cat") == "i915.stall":
            stall_sl.append(e)
        elif ph == "X" and e.get("cat") == "i915.work":
            work_sl.append(e)
        elif ph == "X" and e.get("cat") == "i915.submit":
            sub_sl.append(e)
        elif ph in ("s", "t", "f"):
            flows.append(e)
        else:
            other.append(e)
    for e in other[:5]:
        err("an event that is no stall, submit, work, name or flow: %s" % json.dumps(e, default=str)[:200])

    # ---- stall slices: each stall's by process, CPU and sequence number
    # (a record's identity within its input; the same input twice gives
    # the same slices twice)
    if len(stall_sl) != len(stalls):
        err("%d stall slices, %d stalls in the log" % (len(stall_sl), len(stalls)))
    by_key = defaultdict(list)
    for sl in stall_sl:
        a = sl.get("args") or {}
        by_key[(sl["pid"], a.get("cpu"), a.get("seq"))].append(sl)
    pairs = []
    for i, s in enumerate(stalls):
        who = "stall %d (cpu %d seq %d, %s[%d/%d])" % (i, s["cpu"], s["seq"], s["comm"], s["pid"], s["tid"])
        cand = by_key.get((s["pid"], s["cpu"], s["seq"]))
        if not cand:
            err("%s: no slice" % who)
            continue
        pairs.append((i, s, cand.pop(0), who))
    for left in by_key.values():
        for sl in left:
            err("slice %s at %s on %d/%d: no stall of the log" % (sl["name"], sl["ts"], sl["pid"], sl["tid"]))
    for i, s, sl, who in pairs:
        if sl["pid"] != s["pid"] or sl["name"] != s["site"]:
            err("%s: slice %s on pid %s, want %s on pid %d" % (who, sl["name"], sl["pid"], s["site"], s["pid"]))
        if sl["tid"] != s["tid"]:
            want = "%s %d (overlapping waits)" % (clean(s["comm"]), s["tid"])
            if tnames.get((sl["pid"], sl["tid"])) != want:
                err("%s: on thread %s (%r), not its own" % (who, sl["tid"], tnames.get((sl["pid"], sl["tid"]))))
        if ns(sl["ts"]) != s["start_ns"] or ns(sl["dur"]) != s["duration_ns"]:
            err("%s: ts %s dur %s, the record's start %d ns and wait %d ns" %
                (who, sl["ts"], sl["dur"], s["start_ns"], s["duration_ns"]))
        k, u, _ = blocks[i] if i < len(blocks) else ([], [], [])
        a = want_args(s, k, u)
        if sl.get("args") != a:
            got = sl.get("args") or {}
            for key in sorted(set(a) | set(got)):
                if got.get(key) != a.get(key):
                    err("%s: args.%s is %r, the log's %r" % (who, key, got.get(key), a.get(key)))
        # the stack of the slice, root first
        want = [("user", l[19:]) for l in reversed(u)] + [("kernel", l[19:]) for l in reversed(k)]
        got = stack_of(frames, sl.get("sf"), who)
        if got != want:
            err("%s: sf gives %s, the report's frames %s" % (who, got, want))
        s["_slice"] = sl

    # ---- engine slices
    devs = {}
    for p, n in pnames.items():
        if p >= GPU_PID_BASE:
            m = re.match(r"^GPU dri/(\d+) (.*)$", n)
            if not m:
                err("GPU process %d named %r" % (p, n))
            else:
                devs[(int(m.group(1)), m.group(2))] = p
    inputs = R["inputs"]
    cover = defaultdict(list)
    for s in stalls:
        f = inputs[s["input"]]
        p = devs.get((f["drm_minor"], f["device"]))
        if p is None:
            err("stall cpu %d seq %d: no GPU process for dri/%d %s" % (s["cpu"], s["seq"], f["drm_minor"], f["device"]))
            continue
        eng = engine_of(s) or "unknown engine"
        fence = s["fence"]
        name = "fence %d:%d" % (int(fence["context"], 16), fence["seqno"]) if fence else "awaited work"
        st, en = s["start_ns"], s["start_ns"] + s["duration_ns"]
        found = [w for w in work_sl if w["pid"] == p and
                 re.sub(r" \(\d+\)$", "", tnames.get((p, w["tid"]), "")) == eng and
                 w["name"] == name and ns(w["ts"]) <= st and en <= ns(w["ts"]) + ns(w["dur"])]
        # the waits on one fence at one time are one slice; work without a
        # fence is a slice per wait (identical waits: any of theirs)
        free = [w for w in found if len(cover[id(w)]) < w["args"]["waits"]]
        if not found or (fence and len(found) != 1) or not free:
            err("stall cpu %d seq %d: %d slices of %s on %s cover it" % (s["cpu"], s["seq"], len(found), name, eng))
            continue
        cover[id(free[0])].append(s)
    for w in work_sl:
        ss = cover.get(id(w), [])
        if not ss:
            err("work slice %s on %s at %s: no stall in the log waited on it" %
                (w["name"], tnames.get((w["pid"], w["tid"])), w["ts"]))
            continue
        st = min(s["start_ns"] for s in ss)
        en = max(s["start_ns"] + s["duration_ns"] for s in ss)
        if (ns(w["ts"]), ns(w["ts"]) + ns(w["dur"])) != (st, en):
            err("work slice %s at %s: spans [%s, %s], its stalls [%d, %d]" %
                (w["name"], w["ts"], ns(w["ts"]), ns(w["ts"]) + ns(w["dur"]), st, en))
        if w["args"]["waits"] != len(ss):
            err("work slice %s at %s: %s waits, %d stalls" % (w["name"], w["ts"], w["args"]["waits"], len(ss)))

    # ---- tracks: proper nesting, names
    tracks = defaultdict(list)
    for e in stall_sl + work_sl + sub_sl:
        tracks[(e["pid"], e["tid"])].append(e)
    for (p, t), es in tracks.items():
        if p not in pnames:
            err("process %d has no process_name" % p)
        if (p, t) not in tnames:
            err("thread %d/%d has no thread_name" % (p, t))
        es.sort(key=lambda e: (ns(e["ts"]), -ns(e["dur"])))
        open_ends = []
        for e in es:
            a, b = ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])
            while open_ends and open_ends[-1] <= a:
                open_ends.pop()
            if open_ends and b > open_ends[-1]:
                err("track %d/%d: slice %s at %s overlaps the one before without nesting" % (p, t, e["name"], e["ts"]))
            open_ends.append(b)

    # ---- submits and flows: the slices' bindings by bind_id
    ends = defaultdict(lambda: ([], []))     # bind_id: (flow_out slices, flow_in slices)
    for e in stall_sl + work_sl + sub_sl:
        if "bind_id" in e or "flow_in" in e or "flow_out" in e:
            if "bind_id" not in e or bool(e.get("flow_in")) == bool(e.get("flow_out")):
                err("slice %s at %s on %d/%d: bind_id %s, flow_in %s, flow_out %s: not one end of one flow" %
                    (e["name"], e["ts"], e["pid"], e["tid"], e.get("bind_id"), e.get("flow_in"), e.get("flow_out")))
                continue
            ends[e["bind_id"]][0 if e.get("flow_out") else 1].append(e)
    used = set()
    njoined = 0
    for i, s, sl, who in pairs:
        sub = s.get("submit")
        if not sub or sub["status"] != "recorded":
            if "bind_id" in sl or "flow_in" in sl or "flow_out" in sl:
                err("%s: submit %s, but its slice has flow %s" %
                    (who, sub["status"] if sub else "none", sl.get("bind_id")))
            continue
        njoined += 1
        who += " joined to submit cpu %d seq %d" % (sub["cpu"], sub["seq"])
        if not sl.get("flow_in") or "bind_id" not in sl:
            err("%s: its slice is the in end of no flow" % who)
            continue
        outs, ins = ends.get(sl["bind_id"], ([], []))
        if len(ins) != 1:
            err("%s: flow %s has %d in ends" % (who, sl["bind_id"], len(ins)))
        if len(outs) != 1:
            err("%s: flow %s has %d out ends, want 1 (the submit's slice)" % (who, sl["bind_id"], len(outs)))
            continue
        o = outs[0]
        used.add(id(o))
        if o.get("cat") != "i915.submit" or o["name"] != "submit":
            err("%s: flow %s starts at %s %s, not a submit slice" % (who, sl["bind_id"], o.get("cat"), o["name"]))
            continue
        if (o["pid"], o["tid"]) != (sub["pid"], sub["tid"]):
            err("%s: its submit slice is on %d/%d, the submitter is %d/%d" %
                (who, o["pid"], o["tid"], sub["pid"], sub["tid"]))
        if ns(o["ts"]) != sub["start_ns"] or ns(o["dur"]) != 0:
            err("%s: its submit slice at ts %s dur %s, the submit record's start %d ns (dur 0)" %
                (who, o["ts"], o["dur"], sub["start_ns"]))
        lines = blocks[i][2] if i < len(blocks) else []
        a = want_submit_args(s, lines)
        got = o.get("args") or {}
        for key in sorted(set(a) | set(got)):
            if got.get(key) != a.get(key):
                err("%s: submit slice args.%s is %r, the log's %r" % (who, key, got.get(key), a.get(key)))
        want = [("user", l[19:]) for l in reversed(lines)]
        gsf = stack_of(frames, o.get("sf"), who)
        if gsf != want:
            err("%s: submit slice sf gives %s, the report's submit stack %s" % (who, gsf, want))
    if len(sub_sl) != njoined:
        err("%d submit slices, %d stalls joined to their submit records in the log" % (len(sub_sl), njoined))
    for o in sub_sl:
        if id(o) not in used:
            err("submit slice at %s on %d/%d (flow %s): the out end of no joined stall's flow" %
                (o["ts"], o["pid"], o["tid"], o.get("bind_id")))
    for b, (outs, ins) in ends.items():
        if len(outs) != 1 or len(ins) != 1:
            err("flow %s: %d out ends, %d in ends" % (b, len(outs), len(ins)))
        for e in outs + ins:
            if e.get("cat") not in ("i915.submit", "i915.stall"):
                err("flow %s: bound to %s %s, neither a submit nor a stall" % (b, e.get("cat"), e["name"]))
    # flow events (the reader binds flows to slices instead)
    for e in flows:
        err("flow %s %s: a flow event, the reader writes none (bind_id on slices)" %
            (e.get("ph"), e.get("id")))
    starts = {(e.get("cat"), e.get("id")) for e in flows if e.get("ph") == "s"}
    fends = {(e.get("cat"), e.get("id")) for e in flows if e.get("ph") == "f"}
    for k in sorted(starts - fends, key=str):
        err("flow %s: an 's' without its 'f'" % (k,))
    for k in sorted(fends - starts, key=str):
        err("flow %s: an 'f' without its 's'" % (k,))
    for e in flows:
        if e.get("ph") in ("s", "t", "f"):
            t = ns(e["ts"])
            if not any(ns(x["ts"]) <= t <= ns(x["ts"]) + ns(x["dur"]) for x in tracks.get((e["pid"], e["tid"]), [])):
                err("flow %s %s: no slice of its thread at %s" % (e["ph"], e.get("id"), e["ts"]))

    for e in errors:
        print(e)
    print("trace: %d stall slices, %d submit slices, %d work slices, %d tracks, %d stack frames, "
          "%d flows: %s" %
          (len(stall_sl), len(sub_sl), len(work_sl), len(tracks), len(frames), len(ends),
           "%d problems" % len(errors) if errors else "as the log"))
    sys.exit(1 if errors else 0)


main()
