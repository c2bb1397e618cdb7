#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Grow a recorded archive's stall log to N records, for the reader benchmark.

bench-grow.py IN.ar N OUT.ar OUT.bin: the records of IN.ar's first stall
log, repeated (each repeat 10 ms later) until there are N, as a valid log
(grouped by CPU, numbered, counters consistent), written both into a copy
of the archive (with its process maps, so user frames resolve) and alone.
The output is written as it is made: a million 1.2 records (4808 bytes
each with the default snapshot) are 4.8 GB.
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
recs = [bytes(stalls[roff + i * rsize:roff + (i + 1) * rsize]) for i in range(rcount)]
assert recs, "no records to grow"


def cpu_of(r):
    return struct.unpack_from("<H", r, 84)[0]


# Record i is recs[i % rcount], (i // rcount) * 10 ms later; the log holds
# them grouped by CPU (ascending), in order of i within a CPU, each CPU's
# numbered from 0.
per_cpu = {}
for j, r in enumerate(recs):
    per_cpu[cpu_of(r)] = per_cpu.get(cpu_of(r), 0) + n // rcount + (j < n % rcount)


def records():
    for c in sorted(per_cpu):
        js = [j for j, r in enumerate(recs) if cpu_of(r) == c]
        seq = 0
        for rep in range((n + rcount - 1) // rcount):
            chunk = []
            for j in js:
                if rep * rcount + j >= n:
                    break
                r = bytearray(recs[j])
                start, = struct.unpack_from("<Q", r, 8)
                struct.pack_into("<Q", r, 8, start + rep * 10_000_000)
                struct.pack_into("<Q", r, 0, seq)
                seq += 1
                chunk.append(r)
            yield b"".join(chunk)


cpus = bytearray(stalls[table:table + ncpu * esize])
for c in range(ncpu):
    k = per_cpu.get(c, 0)
    struct.pack_into("<QQQQQ", cpus, c * esize, k, k, 0, 0, 0)
struct.pack_into("<Q", h, 48, n)
prefix = bytes(h) + bytes(stalls[len(h):table]) + bytes(cpus) + \
    bytes(stalls[table + ncpu * esize:roff])
log_len = len(prefix) + n * rsize


def write_log(f):
    # in writes of 64 MiB or more, as one write of everything did: a small
    # write makes small page cache folios, which cost the readers that map
    # the file several times the page faults
    buf = bytearray(prefix)
    for b in records():
        buf += b
        if len(buf) >= 64 << 20:
            f.write(buf)
            buf.clear()
    f.write(buf)


with open(out_bin, "wb") as f:
    write_log(f)

body_len = sum(16 + (log_len if t == 1 else len(p)) + (-(log_len if t == 1 else len(p)) % 8)
               for t, p in sections)
head = bytearray(ar[:hsize])
struct.pack_into("<Q", head, 24, hsize + body_len)
with open(out_ar, "wb") as f:
    f.write(head)
    for t, p in sections:
        size = log_len if t == 1 else len(p)
        f.write(struct.pack("<IIQ", t, 0, size))
        if t == 1:
            write_log(f)
        else:
            f.write(p)
        f.write(b"\0" * (-size % 8))
