#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The reader's two CFI unwinders on real guest records: the same output.

    unwind_compare.py READER ROOTFS WORK FILE...

Host side: needs the guest's root file system (--symfs ROOTFS), whose
libraries (Debian's libdrm, libc) the records' frames are found in by CFI;
check.py runs it on the guest's format-1.3 files, it can be run by hand on
out/e2e/test/guest/*.bin.  Each FILE, and variants of it written to WORK
(every record's stack snapshot cut to each multiple of 8 bytes up to its
size, and to 4 and 12; the stack pointer moved up over the same bytes by 8 to 128), is read
with the walk from cached rules (userspace/src/unwind.c) and with libdw's
dwfl_getthread_frames() for every record (I915_STALLS_UNWIND=libdw):
exit status, stdout and stderr (but the counts) must be the same.
Prints "FILE: N records from the rule cache, M by libdw" per FILE, and
on stderr what differs, with the first lines of the stdout or stderr
that differ (a diff, cache then libdw); exits 1 on any difference.
"""
import difflib
import os
import re
import struct
import subprocess
import sys

COUNTS = re.compile(r"CFI unwinds: (\d+) from the rule cache, (\d+) by libdw")


def run(reader, rootfs, path, fmt, libdw):
    env = dict(os.environ)
    env.pop("I915_STALLS_UNWIND", None)
    if libdw:
        env["I915_STALLS_UNWIND"] = "libdw"
    p = subprocess.run([reader, "report", "--offline", "--symfs", rootfs, "-v", "-F", fmt, path],
                       capture_output=True, env=env)
    err = p.stderr.decode(errors="replace")
    m = COUNTS.search(err)
    counts = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
    return p.returncode, p.stdout, re.sub(r".*CFI unwinds:.*\n", "", err), counts


def records(b):
    """The record offsets, snapshot offset and sizes of a 1.2 or 1.3 file (same layout)."""
    major, minor, _, rec_size = struct.unpack_from("<HHII", b, 8)
    off, count = struct.unpack_from("<QQ", b, 40)
    if (major, minor) not in ((1, 2), (1, 3), (1, 4)):
        raise ValueError(f"format {major}.{minor}, not 1.2 to 1.4")
    snap_off, = struct.unpack_from("<I", b, 308)
    return [off + i * rec_size for i in range(count)], snap_off


def variants(path, work):
    b = open(path, "rb").read()
    recs, _ = records(b)
    sizes = [struct.unpack_from("<I", b, r + 648)[0] for r in recs]
    base = os.path.join(work, os.path.basename(path))
    out = []

    def put(name, f):
        v = bytearray(b)
        for r, n in zip(recs, sizes):
            f(v, r, n)
        out.append(f"{base}-{name}")
        open(out[-1], "wb").write(v)

    for cut in [4, 12] + list(range(0, max(sizes, default=0), 8)):
        put(f"size{cut}", lambda v, r, n, cut=cut: struct.pack_into("<I", v, r + 648, min(cut, n)))
    for k in range(1, 17):
        def shift(v, r, n, k=k):
            sp, = struct.unpack_from("<Q", v, r + 664)
            struct.pack_into("<Q", v, r + 664, sp + 8 * k)
            struct.pack_into("<I", v, r + 648, max(n - 8 * k, 0))
        put(f"sp{k}", shift)
    return out


def main():
    reader, rootfs, work, *files = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    bad = 0
    for path in files:
        fast = slow = 0
        for p in [path] + variants(path, work):
            for fmt in (("text", "json") if p == path else ("json",)):
                a = run(reader, rootfs, p, fmt, False)
                z = run(reader, rootfs, p, fmt, True)
                if a[:3] != z[:3] or z[3][0] or a[3][0] + a[3][1] != z[3][1]:
                    bad += 1
                    what = [n for n, x, y in zip(("exit status", "stdout", "stderr"), a, z)
                            if x != y]
                    print(f"{p} -F {fmt}: {', '.join(what) or 'counts'} differ(s): "
                          f"cache {a[3]}, libdw {z[3]}", file=sys.stderr)
                    for i, n in ((1, "stdout"), (2, "stderr")):
                        x, y = a[i], z[i]
                        if isinstance(x, bytes):
                            x, y = x.decode(errors="replace"), y.decode(errors="replace")
                        d = list(difflib.unified_diff(x.splitlines(), y.splitlines(),
                                                      f"{n} (cache)", f"{n} (libdw)",
                                                      n=1, lineterm=""))
                        for line in d[:12]:
                            print(f"  {line[:300]}", file=sys.stderr)
                if p == path and fmt == "text":
                    fast, slow = a[3]
        print(f"{path}: {fast} records from the rule cache, {slow} by libdw")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
