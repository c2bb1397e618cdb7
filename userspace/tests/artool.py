#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Rewrite the maps of a record archive, to make hostile ones for the tests.

  artool.py IN OUT EDIT...

EDIT is one of (MATCH: a substring of the map's path):
  path=MATCH:NEW          the map's path becomes NEW
  nobuildid=MATCH         its build-id is dropped
  deleted=MATCH           its "deleted" flag is set
  buildid=MATCH:HEX       its build-id becomes HEX
The layout is docs/archive-format.md's; sections other than the process
ones are copied as they are.
"""
import struct
import sys

src, dst, edits = sys.argv[1], sys.argv[2], sys.argv[3:]
ar = open(src, "rb").read()
assert ar[:8] == b"I915SAR\n"
hsize, count = struct.unpack_from("<II", ar, 12)
secs, off = [], hsize
for _ in range(count):
    typ, _res, size = struct.unpack_from("<IIQ", ar, off)
    secs.append((typ, ar[off + 16:off + 16 + size]))
    off += 16 + size + (-size % 8)


def edit_process(p):
    tgid, flags, n, esz = struct.unpack_from("<IIII", p, 0)
    comm = p[16:32]
    strtab = 32 + n * esz
    maps = []
    for i in range(n):
        e = p[32 + i * esz:32 + (i + 1) * esz]
        start, end, pgoff, po, pl, prot, bl, mflags = struct.unpack_from("<QQQIIIBB", e, 0)
        path = None if po == 0xffffffff else p[strtab + po:strtab + po + pl].decode()
        bid = e[40:40 + bl]
        for ed in edits:
            k, v = ed.split("=", 1)
            m, _, new = v.partition(":")
            if path is None or m not in path:
                continue
            if k == "path":
                path = new
            elif k == "nobuildid":
                bid = b""
            elif k == "deleted":
                mflags |= 1
            elif k == "buildid":
                bid = bytes.fromhex(new)
        maps.append((start, end, pgoff, path, prot, bid, mflags))
    out = struct.pack("<IIII", tgid, flags, n, 72) + comm
    strs = b""
    for start, end, pgoff, path, prot, bid, mflags in maps:
        if path is None:
            po, pl = 0xffffffff, 0
        else:
            po, pl = len(strs), len(path.encode())
            strs += path.encode()
        out += struct.pack("<QQQIIIBBH", start, end, pgoff, po, pl, prot, len(bid), mflags, 0)
        out += bid.ljust(32, b"\0")
    return out + strs


body = b""
for typ, p in secs:
    if typ == 2:
        p = edit_process(p)
    body += struct.pack("<IIQ", typ, 0, len(p)) + p + b"\0" * (-len(p) % 8)
head = bytearray(ar[:hsize])
struct.pack_into("<Q", head, 24, hsize + len(body))
open(dst, "wb").write(bytes(head) + body)
