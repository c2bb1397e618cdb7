#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Variants of one ustack-gen record, for comparing the two CFI unwinders.

    variants.py FILE.bin JSON OUTDIR PREFIX

FILE.bin holds the one record tests/ustack/gen.c writes (the record at 360,
format 1.2); JSON is the reader's -F json of it.  Writes OUTDIR/PREFIX-*.bin:
the snapshot cut to many sizes (every 8 bytes up to 640, some not a
multiple of 8, then coarser), the stack pointer moved up over the same bytes
(so the walk reads stack words as saved registers and return addresses),
user_ip set to each recorded return address (so the first frame's rules
are other addresses' and the walk starts at a call site), and user_ip in
libusta.so's PLT: at its first instruction (plain rules) and in an entry,
whose CFA is a DWARF expression (the rules the cache does not hold, so the
record is unwound by libdw), and user_ip in fake.S's reg_rules, at
register(R) rules.
"""
import json
import os
import struct
import subprocess
import sys

R0 = 360
SIZE, IP, SP, BP = R0 + 648, R0 + 656, R0 + 664, R0 + 672

src, js, out, prefix = sys.argv[1:]
b = open(src, "rb").read()
st = json.load(open(js))["stalls"][0]
full = st["ustack_snapshot_bytes"]
sp = int(st["user_regs"]["sp"], 16)


def put(name, pokes):
    v = bytearray(b)
    for off, size, val in pokes:
        v[off:off + size] = (val % (1 << (8 * size))).to_bytes(size, "little")
    open(os.path.join(out, f"{prefix}-{name}.bin"), "wb").write(v)


# (the snapshot runs to the top of the stack: its size depends on the
# environment; the coarse sizes are capped to it, so the count is fixed)
sizes = sorted({0, 4, 12, 20, 36} | set(range(8, 320, 8)) | set(range(320, 640, 40)))
for n in sizes:
    put(f"size{n}", [(SIZE, 4, n)])
for j, n in enumerate(range(640, 3000, 400)):
    put(f"sizec{j}", [(SIZE, 4, min(n, full - 4))])
for k in range(1, 17):
    put(f"sp{k}", [(SP, 8, sp + 8 * k), (SIZE, 4, full - 8 * k)])
for i, f in enumerate(st["ustack"][1:], 1):
    put(f"ip{i}", [(IP, 8, int(f["addr"], 16))])
put("bp0", [(BP, 8, 0)])
# the first frame's return address (the snapshot's first word: the PC is
# fake_ioctl's, which pushes nothing) made the start of each function
# recorded: the caller's rules are then those of the end of the function
# before, not the ones at its start
for i, f in enumerate(st["ustack"][1:], 1):
    if f["symbol"] and f["offset"]:
        put(f"retfn{i}", [(R0 + 2760, 8, int(f["addr"], 16) - int(f["offset"], 16))])


def section(path, want):
    """The address of ELF64 file path's section named want."""
    e = open(path, "rb").read()
    shoff, = struct.unpack_from("<Q", e, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", e, 0x3A)
    sh = [struct.unpack_from("<IIQQQQ", e, shoff + i * shentsize) for i in range(shnum)]
    strtab = sh[shstrndx][4]
    for name, _, _, addr, _, _ in sh:
        if e[strtab + name:e.index(b"\0", strtab + name)].decode() == want:
            return addr
    raise SystemExit(f"{path}: no section {want}")


a = next(f for f in st["ustack"] if f["module"] and f["module"].endswith("/libusta.so"))
plt = int(a["addr"], 16) - int(a["module_offset"], 16) + section(a["module"], ".plt")
put("plt0", [(IP, 8, plt)])
put("pltexpr", [(IP, 8, plt + 0x16)])

# user_ip in fake.S's reg_rules, whose CFI has register(R) rules: the
# return address in rdx (not recorded: the walk ends), or in rbp, made a
# return address of the chain, while rbp's own rule reads rsp
f0 = st["ustack"][0]
assert f0["symbol"] == "fake_ioctl", f0
nm = dict((l.split()[2], int(l.split()[0], 16))
          for l in subprocess.run(["nm", f0["module"]], capture_output=True, text=True,
                                  check=True).stdout.splitlines() if len(l.split()) == 3)
base = int(f0["addr"], 16) - int(f0["offset"], 16) - nm["fake_ioctl"]
ret = int(st["ustack"][3]["addr"], 16)
put("regunknown", [(IP, 8, base + nm["reg_rules_unknown"])])
put("regknown", [(IP, 8, base + nm["reg_rules_known"]), (BP, 8, ret)])
