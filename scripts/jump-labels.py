#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""List the jump labels (static branches) inside one function of a vmlinux.

jump-labels.py VMLINUX FUNCTION: one line per __jump_table entry whose code
address falls in FUNCTION, "ADDRESS KEY", KEY being the static key's
symbol (a tracepoint's key is __tracepoint_NAME+0x8).  x86_64 layout:
struct jump_entry { s32 code; s32 target; long key; }, each field relative
to its own address, the key's two low bits flags.
"""
import bisect
import struct
import subprocess
import sys

vmlinux, func = sys.argv[1], sys.argv[2]
syms, lo, hi = [], None, None
for line in subprocess.run(["nm", "-S", vmlinux], capture_output=True, text=True,
                           check=True).stdout.splitlines():
    f = line.split()
    if len(f) == 4 and f[3] == func:
        lo = int(f[0], 16)
        hi = lo + int(f[1], 16)
    if len(f) >= 3:
        syms.append((int(f[0], 16), f[-1]))
if lo is None:
    sys.exit(f"jump-labels: no {func} in {vmlinux}")
syms.sort()
addrs = [a for a, _ in syms]
where = dict((n, a) for a, n in syms)
start, stop = where["__start___jump_table"], where["__stop___jump_table"]

# the file offset of the table, from the section that holds it
for line in subprocess.run(["readelf", "-SW", vmlinux], capture_output=True, text=True,
                           check=True).stdout.splitlines():
    f = line.split("]", 1)[-1].split()
    if "]" not in line or len(f) < 5:
        continue
    try:
        addr, off, size = int(f[2], 16), int(f[3], 16), int(f[4], 16)
    except ValueError:
        continue
    if addr <= start < addr + size and f[1] == "PROGBITS":
        table_off = off + start - addr
        break
else:
    sys.exit(f"jump-labels: no section holds __jump_table in {vmlinux}")

with open(vmlinux, "rb") as fh:
    fh.seek(table_off)
    table = fh.read(stop - start)
for i in range(0, len(table), 16):
    code, _target, key = struct.unpack_from("<iiq", table, i)
    ea = start + i
    code += ea
    key = (ea + 8 + key) & ~3
    if lo <= code < hi:
        s = bisect.bisect_right(addrs, key) - 1
        off = key - syms[s][0]
        print(f"{code:x} {syms[s][1]}" + (f"+{off:#x}" if off else ""))
