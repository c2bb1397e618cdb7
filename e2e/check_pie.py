# SPDX-License-Identifier: MIT
"""stallpie's checks (issue 12), called by check.py: format 1.2 records of
a PIE client with two shared libraries that waited through glibc's real
write() and ioctl(), built with and without frame pointers, and that had
exited before the guest cat'ed the log (e2e/guest/scenario.sh, step 11).

Raw checks decode the records here (struct, from i915_stall_format.h):
user registers, the snapshot, maps[] with the files' build-ids (compared
with `readelf -n` of the very files of the rootfs), ustack_map[].  Report
checks run the reader on the cat'ed file: in the guest (its real files), on
the host with --symfs ROOTFS, and on the host with only a build-id tree.
"""

import json
import os
import re
import shutil
import struct
import subprocess

F_USER_REGS = 0x80
F_MAPS_NOLOCK, F_MAPS_FULL = 0x100, 0x200
FRAME_FULL, FRAME_NOLOCK, FRAME_ANON, FRAME_NOVMA = 0xfc, 0xfd, 0xfe, 0xff
MAP_BUILD_ID, MAP_PATH, MAP_DELETED = 0x1, 0x2, 0x4
REC_SIZE, MAP_SIZE = 712, 128

# what each build ran (scenario.sh), in order
PIE_OPS = {"fp": ["write", "ioctl", "anon"], "nofp": ["write", "ioctl"], "swap": ["write"]}
PIE_SITES = {"request_wait": 1, "syncobj_wait": 5}
LIBC_WRITE = {"write", "__write", "__libc_write", "__GI___libc_write"}
LIBC_IOCTL = {"ioctl", "__ioctl", "__GI___ioctl"}
# after the libc wrapper, innermost first
PIE_CHAIN = ["wait_idle", "present_frame", "run_frame", "main"]
ANON_CHAIN = ["wait_idle", None, "run_frame", "main"]
SWAP_CHAIN = [None, "present_frame", "run_frame", "main"]


def pie_dir(v):
    return f"/opt/stallpie-{v}/"


def build_id(path):
    p = subprocess.run(["readelf", "-n", path], capture_output=True, text=True)
    m = re.search(r"Build ID: ([0-9a-f]+)", p.stdout)
    return m.group(1) if m else None


def raw12(path):
    """(header dict, [record dict]) of a format 1.2 file."""
    b = open(path, "rb").read()
    if b[:8] != b"I915STL\n":
        raise ValueError(f"{path}: bad magic")
    major, minor, hsize, rec_size = struct.unpack_from("<HHII", b, 8)
    off, count = struct.unpack_from("<QQ", b, 40)
    map_max, snap_max, maps_off, ustack_off = struct.unpack_from("<IIII", b, 296)
    h = {"version": (major, minor), "header_size": hsize, "record_size": rec_size,
         "map_max": map_max, "snapshot_max": snap_max, "maps_offset": maps_off,
         "ustack_offset": ustack_off, "count": count}
    if (major, minor) < (1, 2) or hsize < 312 or rec_size < REC_SIZE:
        raise ValueError(f"{path}: {h}: not format 1.2")
    if maps_off < REC_SIZE or maps_off + map_max * MAP_SIZE > ustack_off or \
            ustack_off + snap_max > rec_size:
        raise ValueError(f"{path}: {h}: layout does not fit the record")
    recs = []
    for i in range(count):
        r = off + i * rec_size
        start_ns, dur = struct.unpack_from("<QQ", b, r + 8)
        pid, tgid = struct.unpack_from("<II", b, r + 64)
        site, = struct.unpack_from("<H", b, r + 86)
        udepth = b[r + 92]
        flags, = struct.unpack_from("<H", b, r + 94)
        ustack = list(struct.unpack_from("<32Q", b, r + 384)[:udepth])
        usize, = struct.unpack_from("<I", b, r + 648)
        mcount, = struct.unpack_from("<H", b, r + 652)
        ip, sp, bp = struct.unpack_from("<QQQ", b, r + 656)
        umap = list(b[r + 680:r + 680 + udepth])
        maps = []
        for k in range(min(mcount, map_max)):
            m = r + maps_off + k * MAP_SIZE
            start, end, foff = struct.unpack_from("<QQQ", b, m)
            bid = b[m + 24:m + 24 + b[m + 44]].hex()
            name = b[m + 48:m + 128].split(b"\0", 1)[0].decode("utf-8", "replace")
            maps.append({"start": start, "end": end, "offset": foff, "build_id": bid,
                         "flags": b[m + 45], "name": name})
        snap = b[r + ustack_off:r + ustack_off + min(usize, snap_max)]
        recs.append({"start_ns": start_ns, "duration_ns": dur, "pid": pid, "tgid": tgid,
                     "site": site, "flags": flags, "ustack": ustack, "ustack_size": usize,
                     "map_count": mcount, "user_ip": ip, "user_sp": sp, "user_bp": bp,
                     "ustack_map": umap, "maps": maps, "snapshot": snap})
    return h, recs


def map_path(m):
    return m["name"] if m["flags"] & MAP_PATH else None


def find_map(maps, path):
    """The maps of file PATH: by whole path, or by file name if only that was kept."""
    base = os.path.basename(path)
    return [m for m in maps if m["name"] == path or
            (not m["flags"] & MAP_PATH and m["name"] == base)]


def describe_raw(r):
    ms = "\n".join(f"    [{i}] {m['start']:#x}-{m['end']:#x} off {m['offset']:#x} "
                   f"flags {m['flags']:#x} bid {m['build_id']} {m['name']}"
                   for i, m in enumerate(r["maps"]))
    us = " ".join(f"{a:#x}@{i}" for a, i in zip(r["ustack"], r["ustack_map"]))
    return (f"  pid {r['pid']} tgid {r['tgid']} site {r['site']} flags {r['flags']:#x} "
            f"ip {r['user_ip']:#x} sp {r['user_sp']:#x} bp {r['user_bp']:#x} "
            f"ustack_size {r['ustack_size']} map_count {r['map_count']}\n"
            f"  ustack {us}\n  maps:\n{ms}")


def check_raw(check, name, v, cs, r, bids):
    """One record against the client's wait and the files' build-ids."""
    why = []
    kind = cs["kind"]
    if r["tgid"] != cs["pid"] or r["pid"] != cs["tid"] or r["site"] != PIE_SITES[cs["site"]]:
        why.append(f"pid/tgid/site {r['pid']}/{r['tgid']}/{r['site']}, want "
                   f"{cs['tid']}/{cs['pid']}/{PIE_SITES[cs['site']]}")
    if not r["flags"] & F_USER_REGS or r["flags"] & (F_MAPS_NOLOCK | F_MAPS_FULL):
        why.append(f"flags {r['flags']:#x}: want USER_REGS, not MAPS_NOLOCK/MAPS_FULL")
    if not 0 < r["ustack_size"] <= len(r["snapshot"]) or r["ustack_size"] % 8:
        why.append(f"ustack_size {r['ustack_size']} (snapshot bytes {len(r['snapshot'])})")
    us, um = r["ustack"], r["ustack_map"]
    if not us or us[0] != r["user_ip"]:
        why.append(f"ustack[0] {us[:1]} is not user_ip {r['user_ip']:#x}")
    if v != "nofp" and not r["user_sp"] < r["user_bp"] < r["user_sp"] + r["ustack_size"]:
        why.append(f"user_bp {r['user_bp']:#x} (wait_idle's frame) not inside the snapshot "
                   f"[{r['user_sp']:#x}, +{r['ustack_size']})")
    # every own file: one map, its whole path, the build-id of the file that ran
    d = pie_dir(v)
    # the trampoline calls wait_idle itself: libstallfmt.so is not on that path
    own = ("stallpie", "libstallio.so") if kind == "anon" else \
        ("stallpie", "libstallfmt.so", "libstallio.so")
    for f in own:
        want_bid = bids[(v, f)]
        ms = find_map(r["maps"], d + f)
        if not ms:
            why.append(f"no map of {d + f}")
            continue
        for m in ms:
            if m["flags"] & MAP_DELETED or not m["flags"] & MAP_BUILD_ID or \
                    m["build_id"] != want_bid or map_path(m) != d + f:
                why.append(f"map {m['name']}: flags {m['flags']:#x} build-id {m['build_id']}, "
                           f"want BUILD_ID|PATH, not DELETED, {want_bid}, path {d + f}")
    libc = [m for m in r["maps"] if m["name"].endswith("/libc.so.6")]
    if len(libc) != 1 or libc[0]["build_id"] != bids[("libc", "")]:
        why.append(f"libc maps {libc}, want one with build-id {bids[('libc', '')]}")
    if len({(m['start']) for m in r["maps"]}) != len(r["maps"]) or \
            r["map_count"] != len(r["maps"]):
        why.append("maps not distinct, or map_count beyond map_max")
    # ustack_map: each frame in the map it names, or FRAME_ANON in the trampoline
    anon_frames = []
    for i, (a, k) in enumerate(zip(us, um)):
        if k < len(r["maps"]):
            m = r["maps"][k]
            if not m["start"] <= a < m["end"]:
                why.append(f"ustack[{i}] {a:#x} not in its map [{k}] {m['name']}")
        elif k == FRAME_ANON:
            anon_frames.append(a)
        elif k == FRAME_NOVMA and v == "nofp" and i > 0:
            pass    # no frame pointer: %rbp held data, the walk read it as a frame
        else:
            why.append(f"ustack[{i}] {a:#x}: ustack_map {k:#x}")
    if libc and us and um[0] < len(r["maps"]) and r["maps"][um[0]] is not libc[0]:
        why.append(f"ustack[0] (the pc in write/ioctl) in {r['maps'][um[0]]['name']}, not libc")
    if kind == "anon":
        lo, hi = cs["anon_start"], cs["anon_end"]
        if len(anon_frames) != 1 or not lo <= anon_frames[0] < hi:
            why.append(f"FRAME_ANON frames {[hex(a) for a in anon_frames]}, want one in the "
                       f"trampoline [{lo:#x}, {hi:#x})")
    elif anon_frames:
        why.append(f"FRAME_ANON frames {[hex(a) for a in anon_frames]}")
    # the return address into wait_idle is a word of the snapshot
    io = find_map(r["maps"], d + "libstallio.so")
    words = struct.unpack_from(f"<{len(r['snapshot']) // 8}Q", r["snapshot"])
    if io and not any(io[0]["start"] <= w < io[0]["end"] for w in words):
        why.append("no word of the snapshot points into libstallio.so")
    if why:
        why.append(describe_raw(r))
    return check(name, not why, "\n".join(why))


def frames_of(st):
    return [(f.get("symbol"), f.get("reason"), bool(f.get("cfi")), f.get("module"),
             int(f["addr"], 16)) for f in st.get("ustack", [])]


def check_chain(check, name, v, cs, st, where):
    """The reader's user chain of one stall: the libc wrapper, then
    wait_idle found by CFI, then present_frame, run_frame, main, by name."""
    fr = frames_of(st)
    why = []
    wrapper = LIBC_IOCTL if cs["kind"] == "ioctl" else LIBC_WRITE
    if not fr or fr[0][0] not in wrapper or not (fr[0][3] or "").endswith("/libc.so.6") or fr[0][2]:
        why.append(f"frame 0 {fr[:1]}: want {sorted(wrapper)} in libc.so.6, not cfi")
    want = {"anon": ANON_CHAIN, "write": PIE_CHAIN, "ioctl": PIE_CHAIN}[cs["kind"]]
    # the replaced file: a mismatch, unless the build-id tree holds the
    # original (stallpie-fp's libstallio.so, the same build-id): then its names
    swap_mismatch = v == "swap" and where != "buildid"
    if swap_mismatch:
        want = SWAP_CHAIN
    got = [f[0] for f in fr[1:1 + len(want)]]
    if got != want:
        why.append(f"frames 1..{len(want)} {got}, want {want}")
    if len(fr) > 1 and not fr[1][2] and want[0] == "wait_idle":
        why.append("wait_idle is not marked cfi")
    d = pie_dir(v)
    mods = {"wait_idle": d + "libstallio.so", "present_frame": d + "libstallfmt.so",
            "run_frame": d + "stallpie", "main": d + "stallpie"}
    for s, r, cfi, mod, addr in fr[1:1 + len(want)]:
        if s in mods and mod != mods[s] and not (where == "buildid" and mod):
            why.append(f"{s} in module {mod}, want {mods[s]}")
    if cs["kind"] == "anon":
        s, r, cfi, mod, addr = fr[2] if len(fr) > 2 else (None,) * 5
        if r != "anon" or mod is not None or addr is None or \
                not cs["anon_start"] <= addr < cs["anon_end"]:
            why.append(f"frame 2 {fr[2:3]}: want reason anon, no module, a raw address in "
                       f"[{cs['anon_start']:#x}, {cs['anon_end']:#x})")
    if swap_mismatch:
        s, r, cfi, mod, addr = fr[1] if len(fr) > 1 else (None,) * 5
        if s is not None or r != "build-id mismatch" or not cfi:
            why.append(f"frame 1 {fr[1:2]}: want no symbol, reason build-id mismatch, "
                       f"found by CFI")
    v2 = [f for f in fr if (f[0] or "").startswith("stallio_v2")]
    if v2:
        why.append(f"frames named from the replacing file: {v2}")
    if why:
        why.append("user: " + " <- ".join(f"{s}[{r}{',cfi' if c else ''}]@{m}"
                                          for s, r, c, m, a in fr))
    return check(name, not why, "\n".join(why))


def buildid_tree(work, rootfs, files):
    """A --symfs holding nothing but usr/lib/debug/.build-id/xx/yyyy(.debug)
    links to FILES: the dump plus the build-id files, nothing at any path."""
    top = os.path.join(work, "buildid-symfs")
    shutil.rmtree(top, ignore_errors=True)
    for f in files:
        bid = build_id(os.path.join(rootfs, f.lstrip("/")))
        if not bid:
            continue
        d = os.path.join(top, "usr/lib/debug/.build-id", bid[:2])
        os.makedirs(d, exist_ok=True)
        for suffix in ("", ".debug"):
            dst = os.path.join(d, bid[2:] + suffix)
            if not os.path.exists(dst):
                shutil.copyfile(os.path.join(rootfs, f.lstrip("/")), dst)
    return top


def check_pie(g, R, rootfs, check, read, jsonl, match, describe):
    cs_all = {}
    for v, ops in PIE_OPS.items():
        lines = jsonl(os.path.join(g, f"client-pie-{v}.jsonl")) or []
        st = [l for l in lines if l.get("event") == "stall"]
        ex = [l for l in lines if l.get("event") == "exit"]
        rc = (read(os.path.join(g, f"client-pie-{v}.rc")) or "").strip()
        ok = (rc == "0" and [l["kind"] for l in st] == ops and ex and ex[-1]["failures"] == 0
              and all(l["errno"] == "" and l["ret"] >= 0 for l in st))
        check(f"pie-{v}-client-ran", ok, f"rc {rc}, stalls {st}, exit {ex}: "
              f"{read(os.path.join(g, f'client-pie-{v}.err'))}")
        cs_all[v] = st
    gone = (read(os.path.join(g, "pie-gone.txt")) or "").split("\n")
    check("pie-clients-exited-before-cat",
          sorted(l.split()[:2] for l in gone if l) ==
          [["pie-fp", "gone"], ["pie-nofp", "gone"], ["pie-swap", "gone"]], gone)

    bids = {("libc", ""): build_id(os.path.join(rootfs, "lib/x86_64-linux-gnu/libc.so.6"))}
    for v in ("fp", "nofp"):
        for f in ("stallpie", "libstallfmt.so", "libstallio.so"):
            bids[(v, f)] = build_id(os.path.join(rootfs, f"opt/stallpie-{v}", f))
    # the swap copy ran stallpie-fp's files; its libstallio.so is now v2's
    for f in ("stallpie", "libstallfmt.so", "libstallio.so"):
        bids[("swap", f)] = bids[("fp", f)]
    new_bid = build_id(os.path.join(rootfs, "opt/stallpie-swap/libstallio.so"))
    check("pie-replaced-file-differs", new_bid and new_bid != bids[("fp", "libstallio.so")] and
          new_bid == build_id(os.path.join(rootfs, "opt/stallpie-swap/libstallio-v2.so")),
          f"rootfs swap libstallio.so {new_bid}, the original {bids[('fp', 'libstallio.so')]}")
    check("pie-fp-nofp-files-differ", bids[("fp", "libstallio.so")] != bids[("nofp", "libstallio.so")])

    path = os.path.join(g, "stalls-pie.bin")
    try:
        h, recs = raw12(path)
    except (OSError, ValueError, struct.error) as e:
        check("pie-raw-format-1.2", False, e)
        return
    want_snap = (read(os.path.join(g, "ustack-bytes.txt")) or "").strip()
    check("pie-raw-format-1.2", h["snapshot_max"] == int(want_snap or -1) > 0 and
          h["map_max"] > 0 and h["count"] == sum(len(s) for s in cs_all.values()),
          f"header {h}; i915_stalls_ustack_bytes {want_snap!r}; "
          f"{sum(len(s) for s in cs_all.values())} waits")
    for v, st in cs_all.items():
        for cs in st:
            m = [r for r in recs if r["pid"] == cs["tid"] and
                 cs["t0_ns"] <= r["start_ns"] <= cs["t1_ns"]]
            n = f"pie-{v}-{cs['kind']}-raw"
            if check(n + "-once", len(m) == 1, f"{len(m)} records for {cs}"):
                check_raw(check, n, v, cs, m[0], bids)
                if v == "swap":
                    io = find_map(m[0]["maps"], "/opt/stallpie-swap/libstallio.so")
                    check("pie-swap-raw-build-id-is-the-old-file",
                          io and io[0]["build_id"] == bids[("fp", "libstallio.so")] != new_bid,
                          f"recorded {io}, the file now {new_bid}")

    # the reader: the guest's own report, the host's with --symfs, and the
    # host's with only the build-id files
    reports = {}
    gj = read(os.path.join(g, "pie-guest.json"))
    grc = (read(os.path.join(g, "pie-guest.rc")) or "").strip()
    try:
        reports["guest"] = json.loads(gj) if gj else None
    except ValueError:
        reports["guest"] = None
    check("pie-guest-report", grc in ("0", "1") and reports["guest"],
          f"rc {grc}: {read(os.path.join(g, 'pie-guest.err'))}")
    try:
        reports["host"] = R.json(path)
    except (RuntimeError, ValueError, OSError) as e:
        reports["host"] = None
        check("pie-host-report", False, e)
    files = [f"/opt/stallpie-{v}/{f}" for v in ("fp", "nofp")
             for f in ("stallpie", "libstallfmt.so", "libstallio.so")]
    files += ["/opt/stallpie-swap/libstallio.so", "/lib/x86_64-linux-gnu/libc.so.6"]
    bt = buildid_tree(R.a.work, rootfs, files)
    try:
        rc2, out2, err2 = R.run("report", "--format=json", "--symfs", bt, path, symbols=False)
        reports["buildid"] = json.loads(out2) if rc2 in (0, 1) else None
        if reports["buildid"] is None:
            check("pie-buildid-report", False, f"rc {rc2}: {err2}")
    except (ValueError, OSError) as e:
        reports["buildid"] = None
        check("pie-buildid-report", False, e)
    chains = {}
    for where, j in reports.items():
        if not j:
            continue
        for v, st in cs_all.items():
            for cs in st:
                m = match(j["stalls"], cs)
                n = f"pie-{v}-{cs['kind']}-{where}"
                if check(n + "-once", len(m) == 1, f"{len(m)} stalls for {cs}"):
                    check_chain(check, n, v, cs, m[0], where)
                    chains[(where, v, cs["kind"])] = [f[0] for f in frames_of(m[0])]
    for where in reports:
        for kind in ("write", "ioctl"):
            a, b = chains.get((where, "fp", kind)), chains.get((where, "nofp", kind))
            if a is None or b is None:
                continue
            end = lambda c: c[:c.index("main") + 1] if "main" in c else c
            check(f"pie-fp-nofp-same-chain-{kind}-{where}", end(a) == end(b),
                  f"fp {a}\nnofp {b}")
    # text: the [cfi] mark and the mismatch, as a user reads them
    rc, txt, err = R.run("report", path)
    lines = txt.splitlines()
    check("pie-text-cfi-mark", any(re.search(r" wait_idle\+0x[0-9a-f]+ \(/opt/stallpie-nofp/"
                                              r"libstallio\.so\) \[cfi\]$", l) for l in lines),
          f"rc {rc}\n{err}\n{txt[:3000]}")
    check("pie-text-mismatch", any(re.search(r" \[unknown: build-id mismatch\] libstallio\.so"
                                              r"\+0x[0-9a-f]+", l) for l in lines) and
          "stallio_v2" not in txt, f"rc {rc}\n{err}\n{txt[:3000]}")
