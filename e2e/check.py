#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check what the end-to-end guest brought back (scripts/e2e.sh).

    check.py --guest DIR --rootfs DIR --reader PATH --vmlinux PATH --hz N
             --work DIR [--console FILE]

DIR is the guest's /tmp/out (see e2e/guest/scenario.sh, run_test).  The
host-built reader symbolizes the guest's record archives against the very
files the initramfs was made of (--symfs ROOTFS) and the kernel's vmlinux.
Prints one "ok NAME" / "not ok NAME" line per check on stdout, the reasons
on stderr; exits 1 if any check failed.

Duration tolerance: a mock wait of D ms is a timer in jiffies that starts
when the request is submitted, a little before the wait begins, so the wait
may be up to one jiffy shorter than D; it can be much longer under TCG, where
4 vCPUs share 2 host cores with a KASAN+lockdep kernel.  Accepted:
    D - (1 jiffy + 1 ms)  <=  duration  <=  D + 250 ms,
and the duration never exceeds what the client measured around its write.
"""

import argparse
import json
import os
import re
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_pie import check_pie  # noqa: E402
from check_wl import check_wlsync  # noqa: E402

SLACK_HIGH_NS = 250_000_000
MAIN_CHAIN = ["gpu_wait", "wait_for_gpu", "submit_batch", "render_frame", "main"]
WORKER_CHAIN = ["gpu_wait", "wait_for_gpu", "submit_batch", "render_frame", "worker_main"]
CLIENT = "/opt/gpu-demo/gpu-demo"
LIBGPU = "/opt/gpu-demo/libgpu.so"
KERNEL_WAIT = "i915_request_wait_timeout"
# innermost first: the wait, the mock control file's write handler, the syscall
KERNEL_CHAIN = [KERNEL_WAIT, "i915_request_wait", "stall_mock_write", "vfs_write",
                "ksys_write", "do_syscall_64"]
SPLAT = re.compile(r"BUG: |WARNING: |KASAN|UBSAN|possible circular locking|"
                   r"possible recursive locking|inconsistent lock state|"
                   r"Kernel panic|Oops|general protection fault|INFO: task .* blocked")

COMPAT_CHAIN = ["gpu_wait32", "wait_for_gpu32", "submit_batch32", "render_frame32", "main"]
# through glibc's write() and the vDSO: the pc is in the vDSO, and the
# caller of write() is lost, as for any frame-pointer unwinder
COMPAT_LIBC_CHAIN = ["wait_for_gpu32", "submit_batch32", "render_frame32", "main"]
F_KTHREAD, F_COMPAT = 0x1, 0x2

# vkapp, the Vulkan-shaped client (e2e/client/vkapp.c, vkdrv.c): its waits
# are DRM syncobj waits through Debian's libdrm, its driver layer has no
# frame pointers, and libdrm's drmIoctl() keeps its ioctl argument in %rbp,
# so the kernel's frame-pointer walk of the user stack finds exactly two
# entries: the pc in glibc's ioctl(), then the argument struct's second
# word taken as a return address (timeout_nsec of DRM_IOCTL_SYNCOBJ_WAIT,
# the point array's address of DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT); its first
# word, the handle array on the heap below the stack, ends the walk.  Lost
# until the user-frames issue lands: drmIoctl, drmSyncobjWait /
# drmSyncobjTimelineWait (libdrm), drv_* (the driver), vkWaitForFences /
# vkWaitSemaphores (the loader's tail calls leave no frame at all, for any
# unwinder), draw_frame / wait_timeline, main / timeline_main.
VK_DIR = "/opt/gpu-demo/"
VK_FILES = {VK_DIR + f for f in ("vkapp", "libvkloader.so", "libvkdrv.so")}
# What a syncobj wait of vkapp's shows after the wrapper (format 1.2: the
# frame-pointer walk ends in libdrm, built without frame pointers; CFI over
# the stack snapshot goes on), one alternative per site; the loader's
# vkWaitForFences / vkWaitSemaphores is a tail call and has no frame.
VK_CHAIN = ["drmIoctl", "drmSyncobjWait|drmSyncobjTimelineWait", "drv_sync_wait_many",
            "drv_WaitForFences|drv_WaitSemaphores", "draw_frame|wait_timeline",
            "main|timeline_main"]
# and then, in libc (or vkapp's _start), the thread's outermost frames
VK_TAIL = {"syncobj_wait": ["__libc_start_call_main", "__libc_start_main", "_start"],
           "syncobj_timeline_wait": ["start_thread", "__clone3"]}
# gpu-demo's chain goes on into libc by CFI after main: then _start
LIBC_START = ["__libc_start_call_main", "__libc_start_main", "_start"]
LIBC_IOCTL = {"ioctl", "__ioctl", "__GI___ioctl"}
VK_SITES = {"syncobj_wait": 5, "syncobj_timeline_wait": 6}
VK_KERNEL = {"syncobj_wait": ["drm_syncobj_wait_ioctl", "drm_ioctl", "__x64_sys_ioctl",
                              "do_syscall_64"],
             "syncobj_timeline_wait": ["drm_syncobj_timeline_wait_ioctl", "drm_ioctl",
                                       "__x64_sys_ioctl", "do_syscall_64"]}
SYNC_NAMES = [(0x1, "wait_all"), (0x2, "for_submit"), (0x4, "available"), (0x8, "deadline"),
              (0x100, "unsubmitted")]

results = []


def diag(msg):
    print("e2e-check: " + msg, file=sys.stderr)


def check(name, ok, why=""):
    results.append((name, bool(ok)))
    print(("ok " if ok else "not ok ") + name, flush=True)
    if not ok and why:
        for line in str(why).splitlines():
            diag(f"{name}: {line}")
    return bool(ok)


def read(path, default=None):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return default


def jsonl(path):
    text = read(path)
    if text is None:
        return None
    return [json.loads(l) for l in text.splitlines() if l.strip()]


class Reader:
    def __init__(self, args):
        self.a = args
        self.n = 0

    def run(self, *argv, symbols=True):
        """Run the host reader; returns (rc, stdout, stderr)."""
        cmd = [self.a.reader]
        cmd += list(argv)
        if symbols:
            cmd += ["--offline", "--symfs", self.a.rootfs, "--vmlinux", self.a.vmlinux]
        else:
            cmd += ["--offline"]
        p = subprocess.run(cmd, capture_output=True, text=True)
        self.n += 1
        base = os.path.join(self.a.work, f"reader-{self.n}")
        with open(base + ".cmd", "w") as f:
            f.write(" ".join(cmd) + "\n")
        with open(base + ".out", "w") as f:
            f.write(p.stdout)
        with open(base + ".err", "w") as f:
            f.write(p.stderr)
        return p.returncode, p.stdout, p.stderr

    def json(self, path, symbols=True):
        rc, out, err = self.run("report", "--format=json", path, symbols=symbols)
        if rc not in (0, 1):
            raise RuntimeError(f"reader exit {rc} on {path}: {err.strip()}")
        return json.loads(out)


def sym_base(sym):
    """A symbol without its ELF version: __libc_start_main@@GLIBC_2.34."""
    return sym.split("@")[0] if sym else None


def user_chain(st):
    """The stall's user frames in the client's own files, innermost first,
    and whether they are the leading frames of the user stack."""
    frames = st["ustack"]
    own = [f for f in frames if f.get("module") in (CLIENT, LIBGPU)]
    lead = frames[:len(own)]
    return [f.get("symbol") for f in own], own == lead, frames


def describe(st):
    us = " <- ".join(f"{f.get('symbol') or '?'}[{f.get('module')}:{f.get('reason')}]"
                     for f in st.get("ustack", []))
    ks = " <- ".join(f.get("symbol") or f"?{f.get('addr')}" for f in st.get("kstack", []))
    return (f"tid {st['tid']} pid {st['pid']} comm {st['comm']} site {st['site']} "
            f"start {st['start_ns']} dur {st['duration_ns']}\n  user: {us}\n  kernel: {ks}")


def jiffy_ns(hz):
    return 1_000_000_000 // hz


def match(stalls, cs):
    """Records of the client stall cs: same thread, started inside the
    client's own window around its write."""
    return [s for s in stalls
            if s["tid"] == cs["tid"] and cs["t0_ns"] <= s["start_ns"] <= cs["t1_ns"]]


def check_stall(name, st, cs, hz, kernel=True):
    """Every property of one recorded stall against what the client did."""
    why = []
    d_ns = cs["delay_ms"] * 1_000_000
    lo = d_ns - jiffy_ns(hz) - 1_000_000
    hi = d_ns + SLACK_HIGH_NS
    if st["pid"] != cs["pid"] or st["tid"] != cs["tid"] or st["comm"] != cs["comm"]:
        why.append(f"pid/tid/comm {st['pid']}/{st['tid']}/{st['comm']}, "
                   f"want {cs['pid']}/{cs['tid']}/{cs['comm']}")
    if st["site"] != "request_wait" or st["site_id"] != 1:
        why.append(f"site {st['site']} ({st['site_id']}), want request_wait (1)")
    if st["outcome"] != "completed" or st["error"] != 0:
        why.append(f"outcome {st['outcome']} error {st['error']}, want completed 0")
    if not lo <= st["duration_ns"] <= hi:
        why.append(f"duration {st['duration_ns']} ns outside [{lo}, {hi}] "
                   f"for a {cs['delay_ms']} ms wait")
    if st["duration_ns"] > cs["t1_ns"] - cs["t0_ns"]:
        why.append(f"duration {st['duration_ns']} ns longer than the client's "
                   f"write took ({cs['t1_ns'] - cs['t0_ns']} ns)")
    want = MAIN_CHAIN if cs["thread"] == "main" else WORKER_CHAIN
    chain, leading, frames = user_chain(st)
    # the frame-pointer chain up to the return address of main (or
    # worker_main) into libc, then by CFI the rest of libc's frames and
    # _start (main) or clone3 (the worker), none guessed
    tail = [sym_base(f.get("symbol")) for f in frames[len(want):]]
    lead = [f.get("symbol") for f in frames[:len(want)]]
    if lead != want or any(f.get("cfi") for f in frames[:len(want)]):
        why.append(f"user chain {chain} (leading: {leading}), want {want}, "
                   f"all by frame pointers")
    want_tail = LIBC_START if cs["thread"] == "main" else ["start_thread", "__clone3"]
    # without libc's symbols (the guest), a static function is "?"
    if (len(tail) != len(want_tail) or
            any(t != w and not (t is None and f.get("reason") == "no symbol" and
                                (f.get("module") or "").endswith("/libc.so.6"))
                for t, w, f in zip(tail, want_tail, frames[len(want):])) or
            frames[len(want)].get("cfi") or
            not all(f.get("cfi") for f in frames[len(want) + 1:])):
        why.append(f"user frames after {want[-1]}: {tail} (cfi "
                   f"{[f.get('cfi') for f in frames[len(want):]]}), want {want_tail}, "
                   f"the first by frame pointers, the others by CFI")
    if frames and frames[0].get("module") != LIBGPU:
        why.append(f"innermost user frame in {frames[0].get('module')}, want {LIBGPU}")
    if len(frames) > 1 and any(f.get("module") != CLIENT for f in frames[1:len(want)]):
        why.append(f"frames 1..{len(want) - 1} not all in {CLIENT}")
    if kernel:
        ks = [f.get("symbol") for f in st["kstack"]]
        if not ks or ks[0] != KERNEL_WAIT:
            why.append(f"kernel stack does not begin with {KERNEL_WAIT}: {ks[:3]}")
        # in this order, other frames (debugfs' proxy, ...) may come between
        it = iter(ks)
        missing = [k for k in KERNEL_CHAIN if k not in it]
        if missing:
            why.append(f"kernel stack lacks, in order, {KERNEL_CHAIN}: from {missing[0]} on")
    if why:
        why.append(describe(st))
    return check(name, not why, "\n".join(why))


def client_stalls(guest, tag):
    lines = jsonl(os.path.join(guest, f"client-{tag}.jsonl")) or []
    return [l for l in lines if l.get("event") == "stall"]


def check_client_ran(name, guest, tag, nstalls):
    lines = jsonl(os.path.join(guest, f"client-{tag}.jsonl"))
    if lines is None:
        return check(name, False, f"no client-{tag}.jsonl")
    st = [l for l in lines if l.get("event") == "stall"]
    bad = [l for l in st if l["errno"] or l["ret"] != len(str(l["delay_ms"]))]
    ex = [l for l in lines if l.get("event") == "exit"]
    why = []
    if len(st) != nstalls:
        why.append(f"{len(st)} stalls, want {nstalls}")
    if bad:
        why.append(f"failed writes: {bad}")
    if not ex or ex[-1]["failures"] != 0:
        why.append(f"no clean exit line: {ex}")
    # every wait really waited: at least its delay less one jiffy
    short = [l for l in st if l["t1_ns"] - l["t0_ns"] < l["delay_ms"] * 1_000_000 - 5_000_000]
    if short:
        why.append(f"writes that returned before their delay: {short}")
    return check(name, not why, "\n".join(why))


def states(guest):
    out = {}
    for line in (read(os.path.join(guest, "states.txt")) or "").splitlines():
        label, *kv = line.split()
        out[label] = dict(x.split("=", 1) for x in kv)
    return out


def raw_records(path):
    """The records of an i915_stalls file, decoded here from the layout in
    i915_stall_format.h (the fields these checks need), without the reader."""
    b = open(path, "rb").read()
    if b[:8] != b"I915STL\n":
        raise ValueError(f"{path}: bad magic")
    rec_size, = struct.unpack_from("<I", b, 16)
    off, count = struct.unpack_from("<QQ", b, 40)
    out = []
    for i in range(count):
        r = off + i * rec_size
        start_ns, = struct.unpack_from("<Q", b, r + 8)
        pid, tgid = struct.unpack_from("<II", b, r + 64)
        site, = struct.unpack_from("<H", b, r + 86)
        udepth = b[r + 92]
        flags, = struct.unpack_from("<H", b, r + 94)
        ustack = struct.unpack_from("<32Q", b, r + 384)[:udepth]
        out.append({"start_ns": start_ns, "pid": pid, "tgid": tgid, "site": site, "flags": flags,
                    "ustack": list(ustack)})
    return out


def nm_functions(elf):
    """(address, name) of the text symbols of a non-PIE ELF file, sorted."""
    p = subprocess.run(["nm", "--defined-only", elf], capture_output=True, text=True)
    syms = []
    for line in p.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTwW":
            syms.append((int(parts[0], 16), parts[2]))
    return sorted(syms)


def symbolize(syms, addr):
    name = None
    for a, n in syms:
        if a > addr:
            break
        name = n
    return name


def check_compat(g, rootfs):
    """The 32-bit client: one record for each of its two waits, flagged
    compat, whose user stack is the client's own frame-pointer chain,
    checked against nm of the very binary the guest ran (static, not PIE:
    its addresses are its own).  The first wait enters the kernel from the
    client's code (int $0x80), the second through glibc and the vDSO."""
    rc = (read(os.path.join(g, "client32.rc")) or "missing").strip()
    cs = {l.get("via"): l for l in (jsonl(os.path.join(g, "client32.jsonl")) or [])
          if l.get("event") == "stall32"}
    if not check("compat-client-ran", rc == "0" and sorted(cs) == ["int80", "libc"],
                 f"rc {rc}, {cs}: {read(os.path.join(g, 'client32.err'))}"):
        return
    try:
        recs = raw_records(os.path.join(g, "stalls32.bin"))
    except (OSError, ValueError, struct.error) as e:
        check("compat-records", False, e)
        return
    mine = {via: [r for r in recs if r["pid"] == c["tid"] and
                  c["t0_ns"] <= r["start_ns"] <= c["t1_ns"]] for via, c in cs.items()}
    if not check("compat-records", len(recs) == 2 and all(len(m) == 1 for m in mine.values()),
                 f"{len(recs)} records; of each wait: { {v: len(m) for v, m in mine.items()} }"):
        return
    syms = nm_functions(os.path.join(rootfs, "opt/gpu-demo/gpu-demo32"))
    for via, c in sorted(cs.items()):
        r = mine[via][0]
        check(f"compat-flag-{via}", r["flags"] & F_COMPAT and not r["flags"] & F_KTHREAD and
              r["site"] == 1 and r["tgid"] == c["pid"], f"record {r}")
        us = r["ustack"]
        # the pc, then return addresses: look those up one byte back, in the call
        names = [symbolize(syms, a if i == 0 else a - 1) for i, a in enumerate(us)]
        below4g = all(a < 1 << 32 for a in us)
        if via == "int80":
            ok = names[:len(COMPAT_CHAIN)] == COMPAT_CHAIN and below4g
            want = f"{COMPAT_CHAIN} first"
        else:
            ok = (len(us) > len(COMPAT_LIBC_CHAIN) and c["vdso"] <= us[0] < c["vdso_end"] and
                  names[1:1 + len(COMPAT_LIBC_CHAIN)] == COMPAT_LIBC_CHAIN and below4g)
            want = (f"a pc in the vDSO [{c['vdso']:#x}, {c['vdso_end']:#x}), "
                    f"then {COMPAT_LIBC_CHAIN}")
        check(f"compat-user-chain-{via}", ok,
              f"user stack {[hex(a) for a in us]} = {names}, want {want}")


def raw_sync(path):
    """(record_size, [(tid, site, fence_count, sync_flags)]) of a 1.4 file,
    decoded here from the layout, without the reader."""
    b = open(path, "rb").read()
    if b[:8] != b"I915STL\n":
        raise ValueError(f"{path}: bad magic")
    major, minor, hsize, rec_size = struct.unpack_from("<HHII", b, 8)
    off, count = struct.unpack_from("<QQ", b, 40)
    if (major, minor) != (1, 4) or rec_size < 712:
        raise ValueError(f"{path}: format {major}.{minor}, record_size {rec_size}: not 1.4")
    out = []
    for i in range(count):
        r = off + i * rec_size
        pid, = struct.unpack_from("<I", b, r + 64)
        site, = struct.unpack_from("<H", b, r + 86)
        fc, sf = struct.unpack_from("<II", b, r + 640)
        out.append((pid, site, fc, sf))
    return rec_size, out


def check_vk_stall(name, st, cs, vk_pid, hz):
    """One syncobj wait of vkapp against what the client did."""
    why = []
    jiffy = jiffy_ns(hz)
    if st["pid"] != cs["pid"] or st["tid"] != cs["tid"] or st["comm"] != cs["comm"]:
        why.append(f"pid/tid/comm {st['pid']}/{st['tid']}/{st['comm']}, "
                   f"want {cs['pid']}/{cs['tid']}/{cs['comm']}")
    if st["site"] != cs["site"] or st["site_id"] != VK_SITES[cs["site"]]:
        why.append(f"site {st['site']} ({st['site_id']}), want {cs['site']}")
    if st["outcome"] != "completed" or st["error"] != 0:
        why.append(f"outcome {st['outcome']} error {st['error']}, want completed 0")
    if st["fence_count"] != cs["fence_count"]:
        why.append(f"fence_count {st['fence_count']}, want {cs['fence_count']}")
    flags = cs["wait_flags"] | (0x100 if cs["kind"] == "unsubmitted" else 0)
    want_sync = [n for b, n in SYNC_NAMES if flags & b]
    if st["sync_flags"] != want_sync:
        why.append(f"sync_flags {st['sync_flags']}, want {want_sync} "
                   f"(the driver passed {cs['wait_flags']:#x})")
    if cs["named"]:
        want_f = {"context": hex(cs["named"]["context"]), "seqno": cs["named"]["seqno"]}
        if st["fence"] != want_f:
            why.append(f"fence {st['fence']}, want {want_f} (the first handle's)")
        if st["owner"] != {"pid": vk_pid, "comm": "vkapp"}:
            why.append(f"owner {st['owner']}, want vkapp[{vk_pid}], the mock file's opener")
        if st["engine"] != {"class": "rcs", "class_id": 0, "instance": 0}:
            why.append(f"engine {st['engine']}, want rcs0")
    elif st["fence"] is not None or st["owner"] is not None:
        why.append(f"fence {st['fence']} owner {st['owner']}: a wait that slept before its "
                   f"fence existed names none")
    # the end of the wait: the work it needed, from the first submit
    end = st["start_ns"] + st["duration_ns"]
    need = cs["ts_ns"] + cs["needed_ms"] * 1_000_000
    lo, hi = need - jiffy - 1_000_000, need + SLACK_HIGH_NS
    if not lo <= end <= hi:
        why.append(f"wait ended at {end}, {(end - need) / 1e6:+.3f} ms from submit + "
                   f"{cs['needed_ms']} ms: outside [-{(jiffy + 1_000_000) / 1e6:g}, "
                   f"+{SLACK_HIGH_NS / 1e6:g}] ms")
    if st["duration_ns"] > cs["t1_ns"] - cs["t0_ns"]:
        why.append(f"duration {st['duration_ns']} ns longer than the client's call took "
                   f"({cs['t1_ns'] - cs['t0_ns']} ns)")
    if cs["kind"] == "unsubmitted" and not st["start_ns"] < cs["ts_ns"]:
        why.append(f"the wait began at {st['start_ns']}, not before point 2's submit at "
                   f"{cs['ts_ns']}: the client's G delay is too short")
    # the user stack: libc's ioctl() (the pc), then by CFI through Debian's
    # libdrm into the driver and the client, to the thread's first frame
    us = st["ustack"]
    alt = 0 if cs["site"] == "syncobj_wait" else 1
    want = [w.split("|")[alt] if "|" in w else w for w in VK_CHAIN] + VK_TAIL[cs["site"]]
    names = [sym_base(f.get("symbol")) for f in us]
    if (not us or names[0] not in LIBC_IOCTL or
            not (us[0].get("module") or "").endswith("/libc.so.6") or
            names[1:] != want or not all(f.get("cfi") for f in us[1:])):
        why.append(f"user stack {[(f['addr'], f.get('symbol'), f.get('module'), f.get('cfi')) for f in us]}, "
                   f"want libc ioctl, then {want}, all found by CFI")
    ks = [f.get("symbol") for f in st["kstack"]]
    it = iter(ks)
    missing = [k for k in VK_KERNEL[cs["site"]] if k not in it]
    if missing:
        why.append(f"kernel stack lacks, in order, {VK_KERNEL[cs['site']]}: from "
                   f"{missing[0]} on: {ks}")
    if why:
        why.append(describe(st))
    return check(name, not why, "\n".join(why))


TRACE_LINE = re.compile(r"^\s*(?P<comm>.*)-(?P<tid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?:\S+\s+)?"
                        r"(?P<ts>\d+\.\d+): (?P<event>\w+): (?P<args>.*)$")
OUTCOMES = {"completed": 0, "timedout": 1, "interrupted": 2, "error": 3}
# The log's probe runs first on each tracepoint: a record starts when the
# begin event is reached and ends when the end event is, and the trace
# stamps its events after the log's probe has run (seen here: 0.1 to 18 ms
# after, under TCG and KASAN).  So a wait's begin event lies between the
# record's start and end, its end event and the i915_stall event after the
# record's end, within SLACK_HIGH_NS; tracefs prints microseconds.
TRACE_US_NS = 1000


def trace_events(path, pattern=None):
    """The events of a tracefs trace file (or, with PERF_LINE, of `perf
    script -F comm,tid,time,event,trace`): dicts of tid, ts_ns, event, sys
    (perf only) and the KEY=VALUE fields of its TP_printk (strings)."""
    ev = []
    for line in (read(path) or "").splitlines():
        m = (pattern or TRACE_LINE).match(line)
        if not m:
            continue
        sec, frac = m["ts"].split(".")
        e = {"tid": int(m["tid"]), "comm": m["comm"].strip(), "event": m["event"],
             "sys": m.groupdict().get("sys"),
             "ts_ns": int(sec) * 1_000_000_000 + int(frac.ljust(9, "0")[:9])}
        e.update(kv.split("=", 1) for kv in m["args"].split() if "=" in kv)
        ev.append(e)
    return ev


def syncobj_pairs(ev):
    """(begin, end) of each syncobj wait, per thread in order."""
    open_, pairs, bad = {}, [], []
    for e in ev:
        if e["event"] == "drm_syncobj_wait_begin":
            if e["tid"] in open_:
                bad.append(f"tid {e['tid']}: begin at {e['ts_ns']} inside another")
            open_[e["tid"]] = e
        elif e["event"] == "drm_syncobj_wait_end":
            b = open_.pop(e["tid"], None)
            if b is None:
                bad.append(f"tid {e['tid']}: end at {e['ts_ns']} without a begin")
            else:
                pairs.append((b, e))
    bad += [f"tid {t}: begin at {b['ts_ns']} never ended" for t, b in open_.items()]
    return pairs, bad


def stall_event_fields(r):
    """What the i915:i915_stall event of record r (the reader's JSON) says."""
    want = {"site": r["site"], "outcome": str(OUTCOMES.get(r["outcome"], -1)),
            "duration_ns": str(r["duration_ns"]), "spin_ns": str(r["spin_ns"]),
            "fences": str(r["fence_count"]), "error": str(r["error"]),
            "owner": str(r["owner"]["pid"] if r["owner"] else 0),
            "fence": (f"{int(r['fence']['context'], 16)}:{r['fence']['seqno']}"
                      if r["fence"] else "0:0")}
    if r["engine"]:
        want["engine"] = f"{r['engine']['class_id']}:{r['engine']['instance']}"
    return want


def stall_event_once(r, stall_ev, what):
    """Why record r does not have exactly one of stall_ev with its fields on
    its thread, fired at its end (trace clock in microseconds), if not."""
    end = r["start_ns"] + r["duration_ns"]
    want = stall_event_fields(r)
    m = [e for e in stall_ev if e["tid"] == r["tid"] and
         all(e.get(k) == v for k, v in want.items())]
    if len(m) != 1:
        return [f"record tid {r['tid']} {want}: {len(m)} {what}; of the thread: "
                f"{[e for e in stall_ev if e['tid'] == r['tid']]}"]
    if not -TRACE_US_NS <= m[0]["ts_ns"] - end <= SLACK_HIGH_NS:
        return [f"record tid {r['tid']} ended at {end}, its event at {m[0]['ts_ns']}"]
    return []


PERF_LINE = re.compile(r"^\s*(?P<comm>.+?)\s+(?P<tid>\d+)\s+(?:\[\d+\]\s+)?"
                       r"(?P<ts>\d+\.\d+):\s+(?P<sys>\w+):(?P<event>\w+):\s*(?P<args>.*)$")


def check_vk_perf(g, st, pairs):
    """Issue 23 with a real tool: Debian's perf recorded the same tracepoints
    system-wide (perf record -a -k mono) while vkapp ran with the log on.
    Each record has exactly one i915:i915_stall sample with its fields on its
    thread, at or after the record's end, and perf saw as many syncobj
    begin/end pairs as tracefs did."""
    rc = (read(os.path.join(g, "perf-vk.rc")) or "").strip()
    ev = trace_events(os.path.join(g, "perf-vk.txt"), PERF_LINE)
    err = (read(os.path.join(g, "perf-vk.err")) or "")[-2000:]
    stall_ev = [e for e in ev if e["event"] == "i915_stall" and e["sys"] == "i915"]
    ppairs, bad = syncobj_pairs([e for e in ev if e["sys"] == "drm"])
    # perf record re-raises the SIGINT that stopped it: 130 from the shell
    why = [f"perf exit {rc}"] if rc not in ("0", "130") else []
    for r in st:
        why += stall_event_once(r, stall_ev, "perf samples")
    if len(stall_ev) != len(st) or len(ppairs) != len(pairs) or bad:
        why.append(f"{len(stall_ev)} i915_stall samples for {len(st)} records, "
                   f"{len(ppairs)} syncobj pairs (tracefs: {len(pairs)}) {bad}")
    check("vk-perf-matches-log", not why and len(st) == 5, "\n".join(why) + "\n" + err)


def check_vk_trace(g, st):
    """Issue 23: the tracepoints beside the log.  Each record has exactly one
    i915:i915_stall event with its fields, on its thread, fired when the wait
    ended (trace clock mono = the log's CLOCK_MONOTONIC, microseconds), and
    exactly one drm_syncobj_wait_begin/end pair on its thread whose begin
    falls within the record and whose end follows it; with
    the log disabled, the same client gives the same syncobj pairs, no
    i915_stall event and no record."""
    setup = read(os.path.join(g, "trace-setup.txt"))
    ev = trace_events(os.path.join(g, "trace-vk.txt"))
    if not check("vk-trace-taken", bool(ev) and not (setup or "").strip(),
                 f"setup: {setup}\n{(read(os.path.join(g, 'trace-vk.txt')) or '')[:2000]}"):
        return
    stall_ev = [e for e in ev if e["event"] == "i915_stall"]
    pairs, bad = syncobj_pairs(ev)
    why = []
    for r in st:
        end = r["start_ns"] + r["duration_ns"]
        why += stall_event_once(r, stall_ev, "i915_stall events")
        p = [(b, e) for b, e in pairs if b["tid"] == r["tid"] and
             r["start_ns"] - TRACE_US_NS <= b["ts_ns"] <= end and
             end - TRACE_US_NS <= e["ts_ns"] <= end + SLACK_HIGH_NS]
        if len(p) != 1:
            why.append(f"record tid {r['tid']} [{r['start_ns']}, {end}]: {len(p)} syncobj "
                       f"begin/end pairs around it")
        else:
            b, e = p[0]
            flags = sum(bit for bit, n in SYNC_NAMES if n in r["sync_flags"]) & 0xf
            tl = "1" if r["site"] == "syncobj_timeline_wait" else "0"
            # ret: the jiffies left once the fences signalled (>= 0)
            if (b.get("count"), int(b.get("flags", "-1"), 16), b.get("timeline")) != \
                    (str(r["fence_count"]), flags, tl) or int(e.get("ret", "-1")) < 0:
                why.append(f"record tid {r['tid']}: begin {b}, end {e}; want count "
                           f"{r['fence_count']} flags {flags:#x} timeline {tl} ret >= 0")
    if len(stall_ev) != len(st):
        why.append(f"{len(stall_ev)} i915_stall events for {len(st)} records")
    check("vk-trace-matches-log", not why and not bad and len(st) == 5,
          "\n".join(why + bad))
    check_vk_perf(g, st, pairs)
    diag(f"vk trace: {len(stall_ev)} i915_stall events, {len(pairs)} syncobj waits that "
         f"slept, for {len(st)} records")

    # the log disabled: the tracepoints still fire, the log records nothing
    off = trace_events(os.path.join(g, "trace-vk-off.txt"))
    opairs, obad = syncobj_pairs(off)
    lines = jsonl(os.path.join(g, "client-vkoff.jsonl")) or []
    otids = {l["tid"] for l in lines if l.get("event") == "stall"}
    ostall = [e for e in off if e["event"] == "i915_stall"]
    try:
        nrec = len(raw_records(os.path.join(g, "stalls-vk-off.bin")))
    except (OSError, ValueError, struct.error) as e:
        nrec = f"unreadable: {e}"
    check("vk-trace-log-disabled",
          len(otids) == 2 and len(opairs) == len(pairs) and not obad and nrec == 0 and
          {b["tid"] for b, _ in opairs} == otids and not ostall,
          f"{len(opairs)} syncobj pairs (with the log: {len(pairs)}), threads "
          f"{sorted({b['tid'] for b, _ in opairs})} want {sorted(otids)}, {nrec} records, "
          f"{len(ostall)} i915_stall events; {obad}")


def check_vkapp(g, R, hz):
    """vkapp's five syncobj waits (vkapp.c): each recorded once, nothing else."""
    diag("vkapp: user frames found by CFI past the frame-pointer walk (asserted): " +
         ", ".join(VK_CHAIN))
    lines = jsonl(os.path.join(g, "client-vk.jsonl")) or []
    cs_all = [l for l in lines if l.get("event") == "stall"]
    ex = [l for l in lines if l.get("event") == "exit"]
    kinds = [c["kind"] for c in cs_all]
    if not check("vk-client-ran", kinds == ["all", "any", "rest", "timeline", "unsubmitted"] and
                 all(c["ret"] == 0 for c in cs_all) and ex and ex[-1]["failures"] == 0,
                 f"kinds {kinds}, exit {ex}: {read(os.path.join(g, 'client-vk.err'))}\n"
                 f"/dev/dri: {read(os.path.join(g, 'dev-dri.txt'))}"):
        return
    vk_pid = cs_all[0]["pid"]
    check("vk-render-node", "renderD128" in (read(os.path.join(g, "dev-dri.txt")) or ""),
          read(os.path.join(g, "dev-dri.txt")))
    try:
        rec_size, raw = raw_sync(os.path.join(g, "stalls-vk.bin"))
        want = sorted((c["tid"], VK_SITES[c["site"]], c["fence_count"],
                       c["wait_flags"] | (0x100 if c["kind"] == "unsubmitted" else 0))
                      for c in cs_all)
        # 712 bytes, 16 maps of 128, the default 8 KiB of user stack (1.3)
        check("vk-raw-records", rec_size == 712 + 16 * 128 + 8192 and sorted(raw) == want,
              f"record_size {rec_size}; records (tid, site, fence_count, sync_flags) "
              f"{sorted(raw)}, want {want}")
    except (OSError, ValueError, struct.error) as e:
        check("vk-raw-records", False, e)
    check("vk-record-rc", (read(os.path.join(g, "vk-record.rc")) or "").strip() == "0",
          read(os.path.join(g, "vk-record.err")))
    try:
        j = R.json(os.path.join(g, "vk.ar"))
    except (RuntimeError, ValueError, OSError) as e:
        check("vk-archive-decodes", False, e)
        return
    inp = j["inputs"][0]
    # 1.3: unattributed no longer counted (unknown), addresses shown to root
    check("vk-header-1.4", inp["version"] == "1.4" and inp["unattributed"] is None and
          inp["kernel_addresses_hidden"] is False,
          f"version {inp['version']}, unattributed {inp['unattributed']}, "
          f"kernel_addresses_hidden {inp.get('kernel_addresses_hidden')}")
    st = j["stalls"]
    used = set()
    for cs in cs_all:
        m = match(st, cs)
        n = f"vk-{cs['kind']}"
        if check(n + "-once", len(m) == 1, f"{len(m)} records for {cs}\n" +
                 "\n".join(describe(s) for s in m)):
            used.add((m[0]["cpu"], m[0]["seq"]))
            check_vk_stall(n, m[0], cs, vk_pid, hz)
    # one record per wait: none for request_wait (not counted twice), none else
    extra = [s for s in st if (s["cpu"], s["seq"]) not in used]
    check("vk-no-other-stalls", not extra and len(st) == 5,
          "\n".join(describe(s) for s in extra))
    check_vk_trace(g, st)
    check("vk-second-thread", {c["comm"] for c in cs_all if c["thread"] == "timeline"} ==
          {"vk-timeline"} and len({c["tid"] for c in cs_all}) == 2)
    rc, txt, err = R.run("report", os.path.join(g, "vk.ar"))
    want_txt = ["  site syncobj_wait, fences 2, all, for-submit, waited ",
                "  site syncobj_wait, fences 2, any, for-submit, waited ",
                "  site syncobj_wait, fences 1, all, for-submit, waited ",
                "  site syncobj_timeline_wait, fences 1, all, for-submit, waited ",
                "  site syncobj_timeline_wait, fences 1, all, for-submit, unsubmitted, waited ",
                "vk-timeline["]
    miss = [w for w in want_txt if w not in txt]
    miss += [f"(absent) {w}" for w in ("unattributed waits", "kernel addresses hidden")
             if w in txt]
    check("vk-text-report", rc in (0, 1) and not miss, f"rc {rc}, missing {miss}\n{err}")
    rc, txt, err = R.run("summary", os.path.join(g, "vk.ar"))
    rows = {l.split()[-1]: int(l.split()[0]) for l in txt.splitlines()
            if l.strip().endswith(("syncobj_wait", "syncobj_timeline_wait")) and
            l.split()[0].isdigit()}
    check("vk-summary-sites", rows == {"syncobj_wait": 3, "syncobj_timeline_wait": 2},
          f"rc {rc}, site rows {rows}\n{err}")


def main():
    ap = argparse.ArgumentParser()
    for o in ("guest", "rootfs", "reader", "vmlinux", "work"):
        ap.add_argument("--" + o, required=True)
    ap.add_argument("--hz", type=int, required=True)
    ap.add_argument("--console")
    a = ap.parse_args()
    g = a.guest
    os.makedirs(a.work, exist_ok=True)
    R = Reader(a)
    diag(f"tolerance: {a.hz} Hz, duration in [D - {(jiffy_ns(a.hz) + 1_000_000) / 1e6:g} ms, "
         f"D + {SLACK_HIGH_NS / 1e6:g} ms]")

    rc = (read(os.path.join(g, "rc")) or "missing").strip()
    if not check("guest-scenario", rc == "0",
                 f"scenario exit {rc}; its log:\n" + (read(os.path.join(g, "scenario.log")) or "")):
        pass

    if a.console:
        con = read(a.console) or ""
        splats = [l for l in con.splitlines() if SPLAT.search(l)]
        check("guest-kernel-no-splat", con and not splats, "\n".join(splats[:20]))

    # --- the debugfs files
    modes = dict(l.split() for l in (read(os.path.join(g, "modes.txt")) or "").splitlines())
    want = ["i915_stalls", "i915_stalls_enable", "i915_stalls_threshold_us",
            "i915_stalls_slots", "i915_stalls_clear", "i915_stalls_mock_wait"]
    check("debugfs-files", modes.get("i915_stalls") == "400" and
          all(modes.get(f, "missing") != "missing" for f in want), f"modes: {modes}")
    S = states(g)
    boot = S.get("boot", {})
    slots = int(boot.get("slots", "0") or 0)
    check("debugfs-defaults", boot.get("enable") == "0" and boot.get("threshold_us") == "1000"
          and 16 <= slots <= 16384 and slots & (slots - 1) == 0, f"at boot: {boot}")

    # --- bad writes: EINVAL, nothing changes
    bad = jsonl(os.path.join(g, "bad-writes.jsonl")) or []
    want_bad = {"enable": ["2", "abc", "-1"], "threshold_us": ["abc", "-5", "12x"],
                "slots": ["17", "8", "32768", "0", "abc"], "clear": ["abc", "x"],
                "mock_wait": ["abc", "-1", "5x"]}
    for f, vals in want_bad.items():
        got = [b for b in bad if b["path"].endswith("/i915_stalls_" + f)]
        ok = [b["value"] for b in got] == vals and all(
            b["ret"] == -22 and b["errno"] == "EINVAL" for b in got)
        check(f"einval-{f.replace('_', '-')}", ok, f"writes: {got}")
    check("einval-changes-nothing", S.get("before-bad") and
          S.get("before-bad") == S.get("after-bad"),
          f"before {S.get('before-bad')} after {S.get('after-bad')}")
    # the same records before and after the bad writes: no clear, no
    # resize, and the bad mock waits recorded nothing
    try:
        bb = R.json(os.path.join(g, "before-bad.bin"), symbols=False)
        ab = R.json(os.path.join(g, "after-bad.bin"), symbols=False)

        def key(j):
            return sorted((s["cpu"], s["seq"], s["start_ns"], s["tid"]) for s in j["stalls"])
        check("einval-keeps-records", len(bb["stalls"]) == 2 and key(bb) == key(ab) and
              bb["inputs"][0]["slots_per_cpu"] == ab["inputs"][0]["slots_per_cpu"],
              f"before: {key(bb)}\nafter: {key(ab)}")
        bad_pids = {b["pid"] for b in bad}
        stray = [s for s in ab["stalls"] if s["pid"] in bad_pids]
        check("einval-mock-wait-no-record", bad_pids and not stray,
              "\n".join(describe(s) for s in stray))
    except (RuntimeError, ValueError, OSError, KeyError, IndexError) as e:
        check("einval-keeps-records", False, e)

    # --- a client gone before its record archive is read
    early_cs = client_stalls(g, "early")
    check_client_ran("client-early-ran", g, "early", 2)
    gone = (read(os.path.join(g, "early-gone.txt")) or "").split()
    check("early-client-exited", gone[:1] == ["gone"],
          f"early-gone.txt: {gone}; record rc {read(os.path.join(g, 'early-record.rc'))}")
    try:
        early = R.json(os.path.join(g, "early.ar"))
    except (RuntimeError, ValueError, OSError) as e:
        early = None
        check("early-archive-decodes", False, e)
    if early is not None:
        check("early-archive-only-its-stalls", len(early["stalls"]) == 2,
              "\n".join(describe(s) for s in early["stalls"]))
        for cs in early_cs:
            m = match(early["stalls"], cs)
            n = f"exited-client-{cs['thread']}-{cs['delay_ms']}ms-host"
            if check(n + "-once", len(m) == 1, f"{len(m)} records for {cs}"):
                check_stall(n, m[0], cs, a.hz)
    gj = read(os.path.join(g, "early-guest.json"))
    grc = (read(os.path.join(g, "early-guest.rc")) or "").strip()
    try:
        guest_early = json.loads(gj) if gj else None
    except ValueError:
        guest_early = None
    if check("early-archive-report-in-guest", grc in ("0", "1") and guest_early,
             f"rc {grc}: {read(os.path.join(g, 'early-guest.err'))}"):
        for cs in early_cs:
            m = match(guest_early["stalls"], cs)
            n = f"exited-client-{cs['thread']}-{cs['delay_ms']}ms-guest"
            if check(n + "-once", len(m) == 1, f"{len(m)} records for {cs}"):
                # the guest had no kernel symbols saved (--no-kallsyms)
                check_stall(n, m[0], cs, a.hz, kernel=False)

    # --- clear
    try:
        cleared = R.json(os.path.join(g, "after-clear.bin"), symbols=False)
        check("clear-empties-log", cleared["count"] == 0 and
              cleared["inputs"][0]["records"] == 0, f"{cleared['count']} records after clear")
    except (RuntimeError, ValueError, OSError) as e:
        check("clear-empties-log", False, e)

    # --- the main snapshot, cat'ed in the guest, recorded, symbolized here
    for tag, n in (("main", 5), ("disabled", 2), ("threshold", 4)):
        check_client_ran(f"client-{tag}-ran", g, tag, n)
    try:
        allj = R.json(os.path.join(g, "all.ar"))
    except (RuntimeError, ValueError, OSError) as e:
        allj = None
        check("archive-decodes", False, e)
    try:
        catj = R.json(os.path.join(g, "stalls.bin"), symbols=False)
    except (RuntimeError, ValueError, OSError) as e:
        catj = None
        check("cat-file-decodes", False, e)
    if allj is not None and catj is not None:
        hdr = catj["inputs"][0]
        check("cat-file-header", hdr["enabled"] is True and hdr["threshold_ns"] == 1_000_000
              and hdr["records"] == 7 and catj["lost"]["total"] == 0 and
              hdr["version"] == "1.4" and hdr["unattributed"] is None and
              hdr["kernel_addresses_hidden"] is False, json.dumps(hdr)[:2000])
        check("record-rc", (read(os.path.join(g, "all-record.rc")) or "").strip() == "0",
              read(os.path.join(g, "all-record.err")))
        st = allj["stalls"]
        check("archive-same-stalls-as-cat",
              sorted((s["cpu"], s["seq"], s["start_ns"]) for s in st) ==
              sorted((s["cpu"], s["seq"], s["start_ns"]) for s in catj["stalls"]))
        main_cs = client_stalls(g, "main")
        used = set()
        for cs in main_cs:
            m = match(st, cs)
            n = f"stall-{cs['thread']}-{cs['delay_ms']}ms"
            if check(n + "-once", len(m) == 1, f"{len(m)} records for {cs}"):
                used.add((m[0]["cpu"], m[0]["seq"]))
                check_stall(n, m[0], cs, a.hz)
        mine = sorted((s for s in st if s["pid"] == main_cs[0]["pid"]),
                      key=lambda s: s["start_ns"]) if main_cs else []
        # the mock GEM context belongs to the opener of the control file:
        # gpu-demo's main thread, for the worker's waits too
        check("owner-is-opener", mine and all(
            s["owner"] == {"pid": main_cs[0]["pid"], "comm": "gpu-demo"} for s in mine),
            "\n".join(f"{s['tid']}: owner {s['owner']}" for s in mine))
        check("engine-is-rcs0", mine and all(
            s["engine"] == {"class": "rcs", "class_id": 0, "instance": 0} for s in mine),
            "\n".join(f"{s['tid']}: engine {s['engine']}" for s in mine))
        # one fd, one context, one timeline: one fence context, seqnos rising
        fences = [s["fence"] for s in mine]
        check("fence-one-timeline", mine and all(fences) and
              len({f["context"] for f in fences}) == 1 and
              all(a["seqno"] < b["seqno"] for a, b in zip(fences, fences[1:])),
              f"fences in time order: {fences}")
        check("second-thread-stalls",
              len({cs["tid"] for cs in main_cs}) == 2 and
              {cs["comm"] for cs in main_cs if cs["thread"] == "worker"} == {"gpu-worker"} and
              sum(1 for s in st if s["comm"] == "gpu-worker" and
                  s["pid"] == main_cs[0]["pid"] and s["tid"] != s["pid"]) == 2,
              "want 2 records of the gpu-worker thread")

        dis_cs = client_stalls(g, "disabled")
        dis_pid = dis_cs[0]["pid"] if dis_cs else -1
        stray = [s for s in st if s["pid"] == dis_pid]
        check("disabled-log-records-nothing",
              dis_cs and not stray and S.get("disabled", {}).get("enable") == "0" and
              S.get("reenabled", {}).get("enable") == "1",
              f"states {S.get('disabled')} {S.get('reenabled')}\n" +
              "\n".join(describe(s) for s in stray))

        thr_cs = client_stalls(g, "threshold")
        check("threshold-readback", S.get("threshold", {}).get("threshold_us") == "100000" and
              S.get("end", {}).get("threshold_us") == "1000", f"{S.get('threshold')} {S.get('end')}")
        for cs in thr_cs:
            m = match(st, cs)
            n = f"threshold-{cs['thread']}-{cs['delay_ms']}ms"
            if cs["delay_ms"] < 100:
                check(n + "-dropped", not m, "\n".join(describe(s) for s in m))
            elif check(n + "-kept-once", len(m) == 1, f"{len(m)} records for {cs}"):
                used.add((m[0]["cpu"], m[0]["seq"]))
                check_stall(n, m[0], cs, a.hz)
        extra = [s for s in st if (s["cpu"], s["seq"]) not in used]
        check("no-other-stalls", not extra and len(st) == 7,
              "\n".join(describe(s) for s in extra))

        # text report, summary, folded, svg: what a user reads
        rc, txt, err = R.run("report", os.path.join(g, "all.ar"))
        want_txt = ["gpu_wait", "wait_for_gpu", "submit_batch", "render_frame", "worker_main",
                    KERNEL_WAIT, "request_wait", "gpu-worker", "libgpu.so"]
        miss = [w for w in want_txt if w not in txt]
        check("text-report", rc in (0, 1) and not miss, f"rc {rc}, missing {miss}\n{err}")
        rc, txt, err = R.run("summary", os.path.join(g, "all.ar"))
        check("text-summary", rc in (0, 1) and "request_wait" in txt and "gpu_wait" in txt,
              f"rc {rc}\n{err}\n{txt[:3000]}")
        rc, fold, err = R.run("report", "--format=folded", "--folded-root=comm",
                              os.path.join(g, "all.ar"))
        stacks = [l.rsplit(" ", 1)[0].split(";") for l in fold.splitlines() if l.strip()]
        main_fold = ["main", "render_frame", "submit_batch", "wait_for_gpu", "gpu_wait"]
        worker_fold = ["worker_main"] + main_fold[1:]

        def has_run(frames, run):
            return any(frames[i:i + len(run)] == run for i in range(len(frames)))
        check("folded-stacks",
              rc in (0, 1) and any(has_run(s, main_fold) and s[0] == "gpu-demo" for s in stacks)
              and any(has_run(s, worker_fold) and s[0] == "gpu-worker" for s in stacks),
              f"rc {rc}\n{err}\n{fold[:3000]}")
        svg_path = os.path.join(a.work, "stalls.svg")
        rc, _, err = R.run("report", "--format=svg", "-o", svg_path, os.path.join(g, "all.ar"))
        svg = read(svg_path) or ""
        check("svg-flame-graph", rc in (0, 1) and svg.lstrip().startswith(("<?xml", "<svg"))
              and "gpu_wait" in svg and "render_frame" in svg, f"rc {rc}\n{err}")

    # --- the reader inside the guest, live on the cat'ed file
    txt = read(os.path.join(g, "guest-report.txt")) or ""
    grc = (read(os.path.join(g, "guest-report.rc")) or "").strip()
    miss = [w for w in ("gpu_wait", "wait_for_gpu", "submit_batch", "render_frame",
                        "worker_main", "main") if w not in txt]
    check("guest-live-report", grc in ("0", "1") and not miss,
          f"rc {grc}, missing {miss}\n{read(os.path.join(g, 'guest-report.err'))}")

    # the reader with no input named, in the guest: each stall once, even
    # where dri/N and dri/<device> are the same directory
    try:
        dj = json.loads(read(os.path.join(g, "default-input.json")) or "null")
        keys = [(s["cpu"], s["seq"], s["start_ns"]) for s in dj["stalls"]]
        check("reader-default-input-once",
              (read(os.path.join(g, "default-input.rc")) or "").strip() in ("0", "1") and
              len(keys) == len(set(keys)) == 7,
              f"{len(keys)} stalls, {len(set(keys))} distinct, from "
              f"{[i['file'] for i in dj['inputs']]}; guest's dri/: "
              f"{read(os.path.join(g, 'dri.txt'))}")
    except (ValueError, TypeError, KeyError) as e:
        check("reader-default-input-once", False,
              f"{e}: {read(os.path.join(g, 'default-input.err'))}")

    check_compat(g, a.rootfs)
    check_vkapp(g, R, a.hz)
    check_pie(g, R, a.rootfs, check, read, jsonl, match, describe)
    check_wlsync(g, R, a.work, a.hz, check, read, jsonl)

    # the reader's CFI walk from cached rules against libdw's own, on the
    # guest's records and variants of them (unwind_compare.py): vkapp's five
    # waits all unwound from the cache
    uc = subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                      "unwind_compare.py"),
                         a.reader, a.rootfs, os.path.join(a.work, "unwind"),
                         os.path.join(g, "stalls-vk.bin"), os.path.join(g, "stalls.bin")],
                        capture_output=True, text=True)
    check("unwind-cache-exact", uc.returncode == 0 and
          "stalls-vk.bin: 5 records from the rule cache, 0 by libdw" in uc.stdout,
          f"rc {uc.returncode}\n{uc.stdout}{uc.stderr[-3000:]}")

    failed = [n for n, ok in results if not ok]
    diag(f"{len(results) - len(failed)} checks ok, {len(failed)} not ok")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
