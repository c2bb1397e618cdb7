#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Grow a recorded archive's stall log to N records, for the reader benchmark.

bench-grow.py IN.ar N OUT.ar OUT.bin: the records of IN.ar's first stall
log, repeated (each repeat 10 ms later) until there are N, as a valid log
(grouped by CPU, numbered, counters consistent), written both into a copy
of the archive (with its process maps, so user frames resolve) and alone.
"""
import struct
import sys

src, n, out_ar, out_bin = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
ar = open(src, "rb").read()
assert ar[:8] == b"I915SAR\n", "not an archive"
hsize, count = struct.unpack_from("<II", ar, 12)
sections, off = [], hsize
for _ in range(count):
    typ, _res, size = struct.unpack_from("<IIQ", ar, off)
    sections.append((typ, ar[off + 16:off + 16 + size]))
    off += 16 + size + (-size % 8)
stalls = next(p for t, p in sections if t == 1)

h = bytearray(stalls[:struct.unpack_from("<I", stalls, 12)[0]])
rsize, esize, ncpu = struct.unpack_from("<III", stalls, 16)
table, roff, rcount = struct.unpack_from("<QQQ", stalls, 32)
recs = [bytearray(stalls[roff + i * rsize:roff + (i + 1) * rsize]) for i in range(rcount)]
assert recs, "no records to grow"

grown = []
for i in range(n):
    r = bytearray(recs[i % rcount])
    start, = struct.unpack_from("<Q", r, 8)
    struct.pack_into("<Q", r, 8, start + (i // rcount) * 10_000_000)
    grown.append(r)
grown.sort(key=lambda r: struct.unpack_from("<H", r, 84)[0])
per_cpu = {}
for r in grown:
    cpu, = struct.unpack_from("<H", r, 84)
    struct.pack_into("<Q", r, 0, per_cpu.get(cpu, 0))
    per_cpu[cpu] = per_cpu.get(cpu, 0) + 1

cpus = bytearray(stalls[table:table + ncpu * esize])
for c in range(ncpu):
    k = per_cpu.get(c, 0)
    struct.pack_into("<QQQQQ", cpus, c * esize, k, k, 0, 0, 0)
struct.pack_into("<Q", h, 48, n)
log = bytes(h) + bytes(stalls[len(h):table]) + bytes(cpus) + \
    bytes(stalls[table + ncpu * esize:roff]) + b"".join(grown)
open(out_bin, "wb").write(log)

body = b""
for t, p in sections:
    p = log if t == 1 else p
    body += struct.pack("<IIQ", t, 0, len(p)) + p + b"\0" * (-len(p) % 8)
head = bytearray(ar[:hsize])
struct.pack_into("<Q", head, 24, hsize + len(body))
open(out_ar, "wb").write(bytes(head) + body)
