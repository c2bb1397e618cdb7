#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The reader's user frames against eu-addr2line's, on every call site.

  compare.py --reader BIN --mkstall MK --work DIR --pid PID --file PATH
             [--objfile ELF] [--sample K] [--plt] [--boot HEADER]
             [--reader-arg ARG]... [--eu-arg ARG]... [--archive-from FILE]
             [--eu-offline ELF]

Every call instruction of the ELF file PATH (or --objfile, the file to
disassemble when PATH is stripped of sections) gives a return address: the
address after it, as a stack walk records it.  With --plt, every PLT entry
too, as a program counter.  Every --sample'th one is kept.  The addresses,
placed where process PID maps the file, go into a stall file (32 per
record: ustack[0] looked up as a PC, the others at address - 1), the reader
reports it as JSON, and eu-addr2line -S looks up the same addresses in the
same process (-p PID), or with --eu-offline in that ELF file at its own
addresses.  Each frame must agree: the same symbol at the same offset (the
reader prints the offset of the recorded address, eu-addr2line of the one
looked up), or no symbol in both.

Prints "LABEL: N frames compared, M mismatches" and each mismatch; exits 1
if there is any.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

ap = argparse.ArgumentParser()
for a in ("--reader", "--mkstall", "--work", "--pid", "--file"):
    ap.add_argument(a, required=True)
ap.add_argument("--objfile")
ap.add_argument("--label")
ap.add_argument("--sample", type=int, default=1)
ap.add_argument("--plt", action="store_true")
ap.add_argument("--boot", default="")
ap.add_argument("--reader-arg", action="append", default=[])
ap.add_argument("--eu-arg", action="append", default=[])
ap.add_argument("--archive-from")
ap.add_argument("--eu-offline")
ap.add_argument("--min", type=int, default=1, help="fail if fewer frames compared")
a = ap.parse_args()
label = a.label or a.file
objfile = a.objfile or a.file
path = os.path.realpath(a.file)


def run(cmd, stdin=None):
    p = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


# where the process maps the file
maps = []
for line in open(f"/proc/{a.pid}/maps"):
    f = line.split(maxsplit=5)
    if len(f) == 6 and os.path.realpath(f[5].strip()) == path:
        lo, hi = (int(x, 16) for x in f[0].split("-"))
        maps.append((lo, hi, int(f[2], 16)))
if not maps:
    sys.exit(f"{label}: process {a.pid} does not map {path}")
_, hdr, _ = run(["readelf", "-hlW", objfile])
exec_type = re.search(r"Type:\s+EXEC", hdr) is not None
first_load = int(re.search(r"^\s+LOAD\s+0x[0-9a-f]+ (0x[0-9a-f]+)", hdr, re.M).group(1), 16)
zero = [lo for lo, hi, off in maps if off == 0]
bias = 0 if exec_type else min(zero) - (first_load & ~0xfff)

# call sites: the instruction after each call
_, dis, _ = run(["objdump", "-d", "-w", "--no-show-raw-insn", objfile])
sites, prev_call = [], False
for line in dis.splitlines():
    m = re.match(r"\s+([0-9a-f]+):\s+(\S+)", line)
    if not m:
        if line.startswith("Disassembly of section"):
            prev_call = False
        continue
    addr, insn = int(m.group(1), 16), m.group(2)
    if prev_call:
        sites.append(("ret", addr))
    prev_call = insn.startswith("call")
if a.plt:
    _, sh, _ = run(["readelf", "-SW", objfile])
    for m in re.finditer(r"\] (\.plt(?:\.sec|\.got)?)\s+\S+\s+([0-9a-f]+) [0-9a-f]+ ([0-9a-f]+)", sh):
        base, size = int(m.group(2), 16), int(m.group(3), 16)
        step = 8 if m.group(1) == ".plt.got" else 16
        sites += [("pc", base + k) for k in range(0, size, step)]
sites = sites[::a.sample]
if len(sites) < a.min:
    sys.exit(f"{label}: only {len(sites)} call sites in {objfile}")

# the stall file: 32 addresses a record, the first as the PC
now = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
recs, lookups = [], []
rets = [v + bias for k, v in sites if k == "ret"]
pcs = [v + bias for k, v in sites if k == "pc"]
for i in range(0, len(rets), 32):
    chunk = rets[i:i + 32]
    recs.append(chunk)
    lookups += [chunk[0]] + [x - 1 for x in chunk[1:]]
for p in pcs:
    recs.append([p])
    lookups.append(p)
spec = [f"header {a.boot}"]
for i, r in enumerate(recs):
    spec.append(f"rec cpu=0 start={now + i} dur=1000 pid={a.pid} tgid={a.pid} comm=cmp "
                "u=" + ",".join(hex(x) for x in r))
dump = os.path.join(a.work, "cmp.bin")
subprocess.run([a.mkstall, dump], input="\n".join(spec) + "\n", text=True, check=True)
src = dump
if a.archive_from:
    # record now, then report the archive (the caller removed the file)
    subprocess.run([a.reader, "record", "--no-kallsyms", "-o", a.archive_from, dump],
                   check=True, capture_output=True)
    src = a.archive_from
    if os.environ.get("COMPARE_BEFORE_REPORT"):
        subprocess.run(["sh", "-c", os.environ["COMPARE_BEFORE_REPORT"]], check=True)
rc, out, err = run([a.reader, "report", "--no-demangle", "-F", "json",
                    src] + a.reader_arg)
if rc not in (0, 1):
    sys.exit(f"{label}: reader exit {rc}: {err}")
frames = [f for s in json.loads(out)["stalls"] for f in s["ustack"]]

# eu-addr2line on the same addresses
if a.eu_offline:
    q = [x - bias for x in lookups]
    cmd = ["eu-addr2line", "-S", "--pretty-print", "-e", a.eu_offline] + a.eu_arg
else:
    q = lookups
    cmd = ["eu-addr2line", "-S", "--pretty-print", "-p", str(a.pid)] + a.eu_arg
rc, eu, err = run(cmd, "\n".join(hex(x) for x in q) + "\n")
eu = eu.splitlines()
if rc or len(eu) != len(lookups) or len(frames) != len(lookups):
    sys.exit(f"{label}: eu-addr2line exit {rc}, {len(eu)} lines, reader {len(frames)} frames, "
             f"{len(lookups)} addresses: {err}")

bad, nosym = [], 0
for fr, e, look in zip(frames, eu, lookups):
    sym = e.rsplit(" at ", 1)[0].strip()
    recorded = int(fr["addr"], 16)
    m = re.fullmatch(r"(.+?)(?:\+(0x[0-9a-f]+))?", sym)
    if sym == "??" or sym.startswith("("):
        want = None
    else:
        want = (m.group(1), int(m.group(2), 16) if m.group(2) else 0)
    got = None
    if fr["symbol"] is not None:
        got = (fr["symbol"], int(fr["offset"], 16) - (recorded - look))
    nosym += want is None
    if want != got or (got is None and fr["reason"] != "no symbol"):
        bad.append(f"  {hex(recorded)} (looked up at {hex(look)}, file {hex(look - bias)}): "
                   f"reader {fr['symbol']}+{fr['offset']} [{fr['reason']}], eu-addr2line {sym}")
print(f"{label}: {len(frames)} frames compared ({nosym} without a symbol), {len(bad)} mismatches")
for b in bad[:40]:
    print(b)
sys.exit(1 if bad else 0)
