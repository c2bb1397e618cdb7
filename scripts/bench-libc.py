#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The libc dump of `make bench-reader`: the same call chains as stall
records and as perf samples.

  bench-libc.py spec N KALLSYMS PID > SPEC
  bench-libc.py perf N KALLSYMS IN.data OUT.data

Every chain has KDEPTH kernel frames, each at an address inside a text
symbol of KALLSYMS (one address per symbol, ~121k), and UDEPTH user frames
among POOL distinct addresses of libc's executable mapping.  The chains
depend only on the seed, KALLSYMS and the size of that mapping, so both
commands make the same ones: `spec` as tests/mkstall.c "rec" lines of
process PID (running, for `i915-stalls record` to save its maps), at the
addresses of PID's libc; `perf` by rewriting the call chain of the Nth
sample of a `perf record -g` of a program that makes system calls (its
libc mapping read from the MMAP2 events), kernel part and user part, and
the sizes and offsets that move with it.
"""
import random
import struct
import sys

KDEPTH, UDEPTH, POOL, SEED = 6, 18, 100000, 25
CTX_KERNEL, CTX_USER = 2**64 - 128, 2**64 - 512


def kpool(kallsyms):
    addrs = sorted({int(a, 16) for a, t, *_ in (l.split() for l in open(kallsyms))
                    if t in "tT" and int(a, 16)})
    rnd = random.Random(SEED)
    out = []
    for i, a in enumerate(addrs):
        gap = (addrs[i + 1] - a) if i + 1 < len(addrs) else 64
        out.append(a + rnd.randrange(max(1, min(gap, 256))))
    return out


def chains(n, kallsyms, usize):
    """yields (kernel addresses, user offsets into libc's r-xp mapping)"""
    kp = kpool(kallsyms)
    rnd = random.Random(SEED + 1)
    # 1 .. usize - 1: a return address is looked up at address - 1
    up = rnd.sample(range(1, usize), POOL)
    for _ in range(n):
        yield ([kp[rnd.randrange(len(kp))] for _ in range(KDEPTH)],
               [up[rnd.randrange(POOL)] for _ in range(UDEPTH)])


def libc_text(pid):
    for line in open(f"/proc/{pid}/maps"):
        f = line.split()
        if len(f) >= 6 and f[1].startswith("r-x") and f[5].split("/")[-1].startswith("libc.so"):
            lo, hi = (int(x, 16) for x in f[0].split("-"))
            return lo, hi
    sys.exit(f"bench-libc: no libc text in process {pid}")


def spec(n, kallsyms, pid):
    lo, hi = libc_text(pid)
    w = sys.stdout.write
    w("header kernel_anchor_addr=0xffffffff81000000\n")
    for i, (k, u) in enumerate(chains(n, kallsyms, hi - lo)):
        w(f"rec cpu={i % 4} start={1000000000 + i * 1000} dur={1000 + i % 977} pid={pid} tgid={pid} "
          f"k={','.join(hex(a) for a in k)} u={','.join(hex(lo + o) for o in u)}\n")


def perf(n, kallsyms, src, dst):
    d = open(src, "rb").read()
    magic, hsize, attr_size, ao, asz, do, dsz = struct.unpack_from("<8sQQQQQQ", d, 0)
    assert magic == b"PERFILE2", "not a perf.data file"
    feat = d[hsize - 32:hsize]
    # the attributes: their sample types (the callchain's offset in a sample)
    types = set()
    for off in range(ao, ao + asz, attr_size):
        types.add(struct.unpack_from("<Q", d, off + 24)[0])
    assert len(types) == 1, "one sample type expected"
    st = types.pop()
    assert st & (1 << 5), "no call chains (perf record -g)"
    assert not st & (1 << 4), "PERF_SAMPLE_READ not handled"
    # before CALLCHAIN: IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD (u64 each)
    fixed = sum(1 for b in (16, 0, 1, 2, 3, 6, 9, 7, 8) if st & (1 << b))
    cc = 8 * fixed
    # the libc mapping of the process sampled, from its MMAP2 event
    lo = hi = None
    pos, end = do, do + dsz
    while pos < end:
        typ, misc, size = struct.unpack_from("<IHH", d, pos)
        if typ == 10:	# PERF_RECORD_MMAP2
            addr, ln = struct.unpack_from("<QQ", d, pos + 16)
            prot = struct.unpack_from("<I", d, pos + 64)[0]
            name = d[pos + 72:pos + size].split(b"\0")[0]
            if prot & 4 and name.split(b"/")[-1].startswith(b"libc.so"):
                lo, hi = addr, addr + ln
        pos += size
    assert lo is not None, "no libc mapping in the perf.data"
    gen = chains(n, kallsyms, hi - lo)
    out = [d[:do]]
    pos, done = do, 0
    while pos < end:
        typ, misc, size = struct.unpack_from("<IHH", d, pos)
        if typ == 9 and done < n:	# PERF_RECORD_SAMPLE
            body = d[pos + 8:pos + size]
            nr = struct.unpack_from("<Q", body, cc)[0]
            k, u = next(gen)
            ips = [CTX_KERNEL] + k + [CTX_USER] + [lo + o for o in u]
            body = body[:cc] + struct.pack(f"<Q{len(ips)}Q", len(ips), *ips) + body[cc + 8 + 8 * nr:]
            out.append(struct.pack("<IHH", typ, misc, 8 + len(body)) + body)
            done += 1
        else:
            out.append(d[pos:pos + size])
        pos += size
    data = b"".join(out[1:])
    delta = len(data) - dsz
    # the feature sections after the data: their table's offsets move
    nfeat = sum(bin(b).count("1") for b in feat)
    tab = d[end:end + 16 * nfeat]
    secs = [struct.unpack_from("<QQ", tab, 16 * i) for i in range(nfeat)]
    newtab = b"".join(struct.pack("<QQ", o + delta, s) for o, s in secs)
    head = bytearray(out[0])
    struct.pack_into("<QQ", head, 40, do, len(data))
    with open(dst, "wb") as f:
        f.write(head + data + newtab + d[end + 16 * nfeat:])
    print(done)


if __name__ == "__main__":
    cmd, n, ks = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if cmd == "spec":
        spec(n, ks, int(sys.argv[4]))
    elif cmd == "perf":
        perf(n, ks, sys.argv[4], sys.argv[5])
    else:
        sys.exit("usage: bench-libc.py spec|perf ...")
