# SPDX-License-Identifier: MIT
"""wlsync's checks (issue 24), called by check.py: who submitted the work a
stall waited for (e2e/client/wlsync.c, e2e/guest/scenario.sh step 12).

A compositor waited, through Debian's libdrm, on the fences its client
submitted on the mock GPU and passed over a Unix socket; a busy client's
work was queued ahead of the first frame.  All three had exited before the
guest cat'ed the log.  The checks hold the reader's report (in the guest,
on its real files; and on the host with --symfs) to what the processes
printed, and the raw file (decoded here) to the format: submit records in
their own section, flags SUBMITTED and AHEAD on the stalls.  Then the join
is broken on purpose in copies of the file (a submit record's seqno
changed, a submit record's context changed, the submit records dropped)
and the reader must say "gone", never name a submitter.
"""

import json
import os
import struct

F_SUBMITTED, F_AHEAD = 0x4000, 0x8000
SITE_SUBMIT, SITE_SYNCOBJ = 7, 5
COMPOSITOR_CHAIN = ["wait_client_buffer", "compositor_repaint", "compositor_main", "main"]
WLSYNC = "/opt/gpu-demo/wlsync"
LIBC = "/lib/x86_64-linux-gnu/libc.so.6"
# A submit record keeps the frame-pointer chain only (no stack snapshot, so
# no CFI): the pc in glibc's ioctl(), which keeps no frame, then the return
# address its caller's frame holds, so submit_buffer() itself is skipped,
# as any frame-pointer unwinder skips it.
CLIENT_CHAIN = ["ioctl", "client_draw_frame", "client_main", "main"]
CLIENT_MODULES = [LIBC, WLSYNC, WLSYNC, WLSYNC]
# the frames' work (wlsync.c defaults) and how late a wait may end
FRAME_MS, BUSY_MS = 60, 300
SLACK_NS = 250_000_000


def raw(path):
    """Header, submit records and stall records of a 1.4 file, decoded here."""
    b = open(path, "rb").read()
    if b[:8] != b"I915STL\n":
        raise ValueError(f"{path}: bad magic")
    minor, hsize, rsize = struct.unpack_from("<HII", b, 10)
    off, count = struct.unpack_from("<QQ", b, 40)
    h = {"minor": minor, "header_size": hsize, "record_size": rsize,
         "records_offset": off, "record_count": count}
    if hsize >= 344:
        (h["submit_cpu_table_offset"], h["submit_records_offset"], h["submit_record_count"],
         h["submit_record_size"], h["submit_slots_per_cpu"]) = struct.unpack_from("<QQQII", b, 312)

    def rec(r):
        ctx, seqno = struct.unpack_from("<QQ", b, r + 32)
        return {"offset": r, "start_ns": struct.unpack_from("<Q", b, r + 8)[0],
                "context": ctx, "seqno": seqno,
                "pid": struct.unpack_from("<I", b, r + 64)[0],
                "tgid": struct.unpack_from("<I", b, r + 68)[0],
                "site": struct.unpack_from("<H", b, r + 86)[0],
                "flags": struct.unpack_from("<H", b, r + 94)[0],
                "ahead": struct.unpack_from("<H", b, r + 654)[0],
                "kdepth": b[r + 91], "udepth": b[r + 92],
                "ustack_size": struct.unpack_from("<I", b, r + 648)[0]}
    subs = [rec(h["submit_records_offset"] + i * h["submit_record_size"])
            for i in range(h.get("submit_record_count", 0))]
    recs = [rec(off + i * rsize) for i in range(count)]
    return b, h, subs, recs


def frames(chain):
    return [f.get("symbol") for f in chain or []]


def has_run(names, run):
    return any(names[i:i + len(run)] == run for i in range(len(names)))


def check_wlsync(g, R, work, hz, check, read, jsonl):
    ev = jsonl(os.path.join(g, "wlsync.jsonl")) or []
    rc = (read(os.path.join(g, "wlsync.rc")) or "").strip()
    exits = {e["role"]: e for e in ev if e.get("event") == "exit"}
    subs = {(e["role"], e["frame"]): e for e in ev if e.get("event") == "submit"}
    waits = sorted((e for e in ev if e.get("event") == "stall"), key=lambda e: e["frame"])
    ran = (rc == "0" and set(exits) == {"compositor", "client", "busy"} and
           all(e["failures"] == 0 for e in exits.values()) and len(waits) == 2 and
           all(w["ret"] == 0 for w in waits) and ("busy", 0) in subs and
           ("client", 0) in subs and ("client", 1) in subs)
    check("wl-ran", ran, f"rc {rc}\n{ev}\n{read(os.path.join(g, 'wlsync.err'))}")
    if not ran:
        return
    comp = exits["compositor"]["pid"]
    client = subs[("client", 0)]
    busy = subs[("busy", 0)]
    path = os.path.join(g, "stalls-wl.bin")

    # --- the file itself: 1.4, submit records apart, flags on the stalls
    b, h, srecs, recs = raw(path)
    mine = [s for s in srecs if s["tgid"] in (client["pid"], busy["pid"])]
    want = {(client["context"], subs[("client", f)]["seqno"]) for f in range(2)}
    want.add((busy["context"], busy["seqno"]))
    got = {(s["context"], s["seqno"]) for s in mine}
    check("wl-raw-submit-records",
          h["minor"] == 4 and h["header_size"] == 344 and
          h["submit_records_offset"] + len(srecs) * h["submit_record_size"] == h["records_offset"] and
          got == want and len(mine) == 3 and
          all(s["site"] == SITE_SUBMIT and s["kdepth"] == 0 and s["ustack_size"] == 0 and
              s["udepth"] >= 4 for s in mine) and
          not any(r["site"] == SITE_SUBMIT for r in recs),
          f"header {h}\nsubmits {srecs}\nwant {sorted(want)}")
    busy_start = next((s["start_ns"] for s in srecs if s["tgid"] == busy["pid"]), 0)
    jiffy = 1_000_000_000 // hz
    cs = sorted((r for r in recs if r["tgid"] == comp), key=lambda r: r["start_ns"])
    check("wl-raw-stall-flags",
          len(cs) == 2 and all(r["site"] == SITE_SYNCOBJ and
                               r["flags"] & (F_SUBMITTED | F_AHEAD) == F_SUBMITTED | F_AHEAD
                               for r in cs) and
          [r["ahead"] for r in cs] == [1, 0] and
          [(r["context"], r["seqno"]) for r in cs] ==
          [(w["context"], w["seqno"]) for w in waits],
          f"compositor {comp}: {cs}\nwaits {waits}")

    # --- the reports: in the guest (its own files), on the host (--symfs)
    def report_ok(name, rep, err):
        st = sorted((s for s in rep.get("stalls", []) if s["pid"] == comp),
                    key=lambda s: s["start_ns"])
        why = []
        if len(st) != 2:
            why.append(f"{len(st)} compositor stalls, want 2")
        for f, s in enumerate(st):
            w, cl = waits[f], subs[("client", f)]
            sub = s.get("submit") or {}
            if not has_run(frames(s.get("ustack")), COMPOSITOR_CHAIN):
                why.append(f"frame {f}: waiter chain {frames(s.get('ustack'))}")
            if (sub.get("status"), sub.get("pid"), sub.get("comm")) != \
                    ("recorded", client["pid"], "wl-client"):
                why.append(f"frame {f}: submit {sub.get('status')} "
                           f"{sub.get('pid')} {sub.get('comm')}")
            if not has_run(frames(sub.get("ustack")), CLIENT_CHAIN):
                why.append(f"frame {f}: submitter chain {frames(sub.get('ustack'))}")
            if [m.get("module") for m in (sub.get("ustack") or [])[:4]] != CLIENT_MODULES:
                why.append(f"frame {f}: submitter modules "
                           f"{[m.get('module') for m in sub.get('ustack') or []]}")
            # submitted after the client's clock read, before the wait began
            q = sub.get("queued_ns")
            if not (isinstance(q, int) and cl["ts_ns"] <= sub.get("start_ns", 0) <= s["start_ns"]
                    and q == s["start_ns"] - sub.get("start_ns", 0)):
                why.append(f"frame {f}: submitted {sub.get('start_ns')} queued {q}, client "
                           f"{cl['ts_ns']}, wait {s['start_ns']}")
            ahead = s.get("ahead") or {}
            if (ahead.get("count"), ahead.get("more")) != ((1, False) if f == 0 else (0, False)):
                why.append(f"frame {f}: ahead {s.get('ahead')}")
            # the mock engine runs one request after the other, each timed
            # from its submission: frame 0's work ends no sooner than the
            # busy work's submission + both lengths, frame 1's than its own
            # submission + its length (less a jiffy and a ms, as check.py)
            if f == 0:
                done = busy_start + (BUSY_MS + FRAME_MS) * 1_000_000
            else:
                done = sub.get("start_ns", 0) + FRAME_MS * 1_000_000
            low = done - s["start_ns"] - jiffy - 1_000_000
            if not (low <= s["duration_ns"] <= w["t1_ns"] - w["t0_ns"] and
                    s["duration_ns"] <= low + SLACK_NS + jiffy + 1_000_000):
                why.append(f"frame {f}: duration {s['duration_ns']}, at least {low}, client "
                           f"{w['t1_ns'] - w['t0_ns']}")
        check(name, not why, "\n".join(why) + f"\n{err}")
        return st

    try:
        gj = json.loads(read(os.path.join(g, "wl-guest.json")) or "null")
        report_ok("wl-guest-report", gj, read(os.path.join(g, "wl-guest.err")))
    except (ValueError, TypeError, AttributeError) as e:
        check("wl-guest-report", False, f"{e}: {read(os.path.join(g, 'wl-guest.err'))}")
    txt = read(os.path.join(g, "wl-guest.txt")) or ""
    check("wl-guest-text", "submitted by wl-client[" in txt and "1 request ahead" in txt and
          all(w in txt for w in CLIENT_CHAIN + COMPOSITOR_CHAIN), txt[-3000:])
    try:
        hj = R.json(path)
        report_ok("wl-host-report", hj, "")
    except (RuntimeError, ValueError) as e:
        check("wl-host-report", False, str(e))

    # --- the join broken on purpose: never a submitter, "gone" instead
    def mutated(name, edit):
        m = bytearray(b)
        edit(m)
        p = os.path.join(work, f"wl-{name}.bin")
        with open(p, "wb") as f:
            f.write(m)
        rep = R.json(p)
        return sorted((s for s in rep["stalls"] if s["pid"] == comp), key=lambda s: s["start_ns"])

    f0 = [s for s in srecs if (s["context"], s["seqno"]) == (waits[0]["context"], waits[0]["seqno"])]
    try:
        # frame 0's submit record with another seqno: frame 0 gone, frame 1 found
        st = mutated("seqno", lambda m: struct.pack_into("<Q", m, f0[0]["offset"] + 40,
                                                         waits[0]["seqno"] + 100))
        check("wl-join-wrong-seqno",
              [(s.get("submit") or {}).get("status") for s in st] == ["gone", "recorded"],
              str([s.get("submit") for s in st]))
        # the same record as if of another engine's context
        st = mutated("context", lambda m: struct.pack_into("<Q", m, f0[0]["offset"] + 32,
                                                           waits[0]["context"] + 1))
        check("wl-join-other-context",
              [(s.get("submit") or {}).get("status") for s in st] == ["gone", "recorded"],
              str([s.get("submit") for s in st]))

        # every submit record lost (the section emptied, the count says so)
        def drop_all(m):
            struct.pack_into("<Q", m, 328, 0)
            esize, ncpu = struct.unpack_from("<II", m, 20)
            for i in range(ncpu):
                e = h["submit_cpu_table_offset"] + i * esize
                emitted, overwritten = struct.unpack_from("<QQ", m, e + 8)
                struct.pack_into("<QQ", m, e + 8, 0, overwritten + emitted)
        st = mutated("lost", drop_all)
        check("wl-join-lost",
              [(s.get("submit") or {}).get("status") for s in st] == ["gone", "gone"],
              str([s.get("submit") for s in st]))
    except (RuntimeError, ValueError, IndexError, KeyError) as e:
        check("wl-join-mutations", False, repr(e))
