#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write docs/performance.md from what scripts/bench.sh measured."""
import argparse
import json
import os
import re
import statistics as st
import struct

ap = argparse.ArgumentParser()
ap.add_argument("--guest", required=True)
ap.add_argument("--work", required=True)
ap.add_argument("--perf-samples", type=int, default=0)
ap.add_argument("--perf-dwarf-samples", type=int, default=0)
ap.add_argument("--kernel", required=True)
a = ap.parse_args()

rows = [json.loads(l) for l in open(os.path.join(a.guest, "bench.jsonl")) if l.strip()]


def pick(tag, key, rs=None):
    """key of every row of tag, in rs (default: the main boot's rows)"""
    return [r[key] for r in (rows if rs is None else rs) if r["tag"] == tag]


def med(tag, key, rs=None):
    v = pick(tag, key, rs)
    if not v:
        raise SystemExit(f"bench-report: nothing measured for {tag}")
    return st.median(v)


def runs(tag):
    return ", ".join(f"{v:.0f}" for v in pick(tag, "ns_per_iter"))


def times(prefix):
    """(CPU seconds, user + system; peak RSS KiB; wall seconds) per run"""
    out = []
    for f in sorted(os.listdir(a.work)):
        if f.startswith(prefix) and f.endswith(".time"):
            # GNU time adds "Command exited with non-zero status N" first
            t = open(os.path.join(a.work, f)).read().splitlines()[-1].split()
            if len(t) == 4:
                out.append((float(t[2]) + float(t[3]), int(t[1]), float(t[0])))
    return out


def wall(runs):
    return st.median(w for _, _, w in runs) if runs else 0


def goal(ok):
    return "**met**" if ok else "**not met**"


cpu_model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                  if l.startswith("model name")), "unknown")
release = open(os.path.join(a.guest, "uname")).read().strip()

# 1. disabled hooks: boots alternating between the kernel with the log
#    compiled in (disabled) and without it
waits = [json.loads(l) for l in open(os.path.join(a.work, "waits.jsonl")) if l.strip()]
w_on = [r["cpu_ns_median"] for r in waits if r["kernel"] == "on"]
w_off = [r["cpu_ns_median"] for r in waits if r["kernel"] == "off"]
if not w_on or not w_off:
    raise SystemExit("bench-report: no waits measured on one of the kernels")
w_n = waits[0]["n"]
n_boots = len({(r["kernel"], r["boot"]) for r in waits})
empty = med("empty", "ns_per_iter")
hook = med("hook", "ns_per_iter")
hook_cost = max(hook - empty, 0.0)


def disasm(k):
    lines = open(os.path.join(a.work, f"i915_request_wait_timeout-{k}.s")).read().splitlines()
    return [l for l in lines if re.match(r"\s*[0-9a-f]+:\t", l)]


def labels(k):
    return [l.split() for l in open(os.path.join(a.work, f"jump-labels-{k}.txt")) if l.strip()]


insn_on, insn_off = disasm("on"), disasm("off")
lab_on, lab_off = labels("on"), labels("off")
ours = [addr for addr, key in lab_on if key == "i915_stall_key"]
asm_lines = []
for l in insn_on:
    addr = l.split(":")[0].strip()
    key = next((k for ad, k in lab_on if ad == addr), None)
    if key or "__i915_stall_request_end" in l:
        asm_lines.append(l + (f"\t# {key}" if key else ""))
# A run's figure is the median of its waits.  Runs fall into groups set at
# boot, whichever kernel (see the text): compare like with like, the runs
# of each kernel within each group that both kernels reached.
def grouped(w_on, w_off, what):
    allv = sorted([(v, "on") for v in w_on] + [(v, "off") for v in w_off])
    groups, cur = [], [allv[0]]
    for prev, nxt in zip(allv, allv[1:]):
        if nxt[0] > prev[0] * 1.02:
            groups.append(cur)
            cur = []
        cur.append(nxt)
    groups.append(cur)
    pairs = []
    for g in groups:
        gon = [v for v, k in g if k == "on"]
        goff = [v for v, k in g if k == "off"]
        if gon and goff:
            pairs.append((st.median(gon), st.median(goff), len(gon), len(goff)))
    if not pairs:
        raise SystemExit(f"bench-report: the two kernels' {what} share no group")
    return groups, pairs


groups, pairs = grouped(w_on, w_off, "waits")
r1 = max(on / off for on, off, _, _ in pairs)
m_off = st.mean(w_off)
spread = max((max(w) - min(w)) / st.mean(w) for w in (w_on, w_off))
within = max((max(v for v, _ in g) - min(v for v, _ in g)) / min(v for v, _ in g) for g in groups)
diffs = " and ".join(f"{on - off:+.0f}" for on, off, _, _ in pairs)
group_rows = "\n".join(
    f"| {i + 1} | {n_on} runs, median {on:,.0f} | {n_off} runs, median {off:,.0f} | {on / off:.4f} |"
    for i, (on, off, n_on, n_off) in enumerate(pairs))


def vals(v):
    return ", ".join(f"{x:,}" for x in v)


# 1b. the same on the syncobj path: DRM core's hook is in both kernels
sw = [json.loads(l) for l in open(os.path.join(a.work, "syncwaits.jsonl")) if l.strip()]
s_on = [r["cpu_ns_median"] for r in sw if r["kernel"] == "on"]
s_off = [r["cpu_ns_median"] for r in sw if r["kernel"] == "off"]
if not s_on or not s_off:
    raise SystemExit("bench-report: no syncobj waits measured on one of the kernels")
s_groups, s_pairs = grouped(s_on, s_off, "syncobj waits")
r1b = max(on / off for on, off, _, _ in s_pairs)
s_rows = "\n".join(
    f"| {i + 1} | {n_on} runs, median {on:,.0f} | {n_off} runs, median {off:,.0f} | {on / off:.4f} |"
    for i, (on, off, n_on, n_off) in enumerate(s_pairs))


def sync_disasm(k):
    lines = open(os.path.join(a.work, f"drm_syncobj_wait-{k}.s")).read().splitlines()
    return [l for l in lines if re.match(r"\s*[0-9a-f]+:\t", l)]


s_insn_on, s_insn_off = sync_disasm("on"), sync_disasm("off")
s_lab = [l.split() for l in open(os.path.join(a.work, "jump-labels-syncobj-on.txt")) if l.strip()]
s_keys = sorted({key for _, key in s_lab})

# 2. per record
unwind = med("unwind", "ns_per_iter")
record = med("record", "ns_per_iter")
r2 = record / unwind

# 2b. per snapshot size, and the cost of naming mappings
U_SIZES = [0, 512, 1024, 2048, 4096, 8192, 16384]
unwind2b = med("unwind-2b", "ns_per_iter")
rec_u = {c: med(f"record-u{c}", "ns_per_iter") for c in U_SIZES}
unwind_flat = med("unwind-flat", "ns_per_iter")
rec_flat = med("record-flat-u0", "ns_per_iter")
# three more mappings named: (libs record - its unwind) - (flat record - its unwind)
per_lookup = ((rec_u[0] - unwind2b) - (rec_flat - unwind_flat)) / 3
r2b = rec_u[2048] / unwind2b
# 2c. the first record after the mappings changed: a walk of the VMAs
rec_new = med("record-new", "ns_per_iter")
relock = med("relock", "ns_per_iter")
r2c = (rec_new - relock) / unwind2b
one = open(os.path.join(a.guest, "bench-record-one.bin"), "rb").read()
o_hsize, = struct.unpack_from("<I", one, 12)
o_rsize, = struct.unpack_from("<I", one, 16)
o_roff, o_rcount = struct.unpack_from("<QQ", one, 40)
o_maps_off, o_ustack_off = struct.unpack_from("<II", one, 304) if o_hsize >= 312 else (0, 0)
one_maps, one_names, one_usize = 0, [], 0
if o_rcount and o_maps_off:
    base = o_roff
    one_usize, one_maps = struct.unpack_from("<IH", one, base + 648)
    for i in range(one_maps):
        m = base + o_maps_off + 128 * i
        name = one[m + 48:m + 128].split(b"\0")[0].decode(errors="replace")
        bid = one[m + 45] & 1
        one_names.append(f"`{os.path.basename(name)}`" + ("" if bid else " (no build-id)"))
rec_sizes = {c: 712 + 16 * 128 + c for c in U_SIZES}

# 1c (issue 23). syncobj waits in the bench boot, the log enabled against
#    disabled, on this device and on a second mock device with no log;
#    medians of the runs' medians
sync = {t: med(t, "cpu_ns_median") for t in
        ("sync-off", "sync-on", "sync-other-off", "sync-other-on")}
r1c_other = sync["sync-other-on"] / sync["sync-other-off"]
r1c_here = sync["sync-on"] / sync["sync-off"]
nodes_f = os.path.join(a.guest, "render-nodes.txt")
nodes = open(nodes_f).read().split() if os.path.exists(nodes_f) else ["?", "?"]
sync_n = pick("sync-off", "n")[0]


def sync_runs(tag):
    return ", ".join(f"{v:,}" for v in pick(tag, "cpu_ns_median"))


# 2d (issue 22). the record on a client with 2,000+ mappings, a buffer
#    mapped and unmapped before each record (less that alone), over the
#    bare unwinds from the same stacks; and the sections the record path
#    ran with preemption disabled, timed from inside
unwind2d = med("unwind-2d", "ns_per_iter")
rec2d = med("record-2d", "ns_per_iter")
rec_remap = med("record-remap", "ns_per_iter")
remap = med("remap", "ns_per_iter")
r2d = (rec_remap - remap) / unwind2d
r2d_steady = rec2d / unwind2d
maps2d = min(pick("unwind-2d", "maps") + pick("record-remap", "maps") +
             pick("section-remap", "maps"))


def sections(tag, rs=None):
    """(sections, mean ns, longest ns, records) over every run of tag"""
    rs = [r for r in (rows if rs is None else rs) if r["tag"] == tag]
    if not rs:
        raise SystemExit(f"bench-report: nothing measured for {tag}")
    n = sum(r["sections"] for r in rs)
    mean = sum(r["section_ns_mean"] * r["sections"] for r in rs) / n if n else 0.0
    return n, mean, max(r["section_ns_max"] for r in rs), sum(r["iter"] for r in rs)


def section_runs(tag, rs=None):
    """each run's mean / longest section, ns"""
    return ", ".join(f"{m:.0f} / {x}" for m, x in zip(pick(tag, "section_ns_mean", rs),
                                                      pick(tag, "section_ns_max", rs)))


sec_n, sec_mean, sec_max, sec_recs = sections("section-remap")

# the same sections on a guest with one vCPU (run_sections): no other
# vCPU's turn in them; beside the bare unwinds of that boot
one_f = os.path.join(a.work, "sections.jsonl")
if not os.path.exists(one_f):
    raise SystemExit(f"bench-report: no {one_f} (the one-vCPU boot)")
one = [json.loads(l) for l in open(one_f) if l.strip()]
unwind1 = med("unwind-2d", "ns_per_iter", one)
sec1_n, sec1_mean, sec1_max, sec1_recs = sections("section-remap", one)
ssec1_n, ssec1_mean, ssec1_max, ssec1_recs = sections("section-submit", one)
sec1_runs = section_runs("section-remap", one)
sec_bound = 1.1 * unwind2d
sec_runs = section_runs("section-remap")

# 2e (issue 24). submit records: a whole mock submission with the log
#    enabled less disabled, over the bare walk of the user stack; and a
#    submission with the log compiled in (disabled) over compiled out, in
#    the boots of figure 1 (submits.jsonl: not there if BENCH_KEEP_WAITS=1
#    kept boots from before figure 2e)
sub_off = med("submit-off", "ns_per_iter")
sub_on = med("submit-on", "ns_per_iter")
uwalk = med("uwalk", "ns_per_iter")
sub_rec = med("submit-record", "ns_per_iter")
sub_cost = sub_on - sub_off
r2e = sub_cost / uwalk
ssec_n, ssec_mean, ssec_max, ssec_recs = sections("section-submit")
sub_f = os.path.join(a.work, "submits.jsonl")
subs = [json.loads(l) for l in open(sub_f) if l.strip()] if os.path.exists(sub_f) else []
u_on = [r["ns_per_iter"] for r in subs if r["kernel"] == "on"]
u_off = [r["ns_per_iter"] for r in subs if r["kernel"] == "off"]
if u_on and u_off:
    try:
        _, u_pairs = grouped(u_on, u_off, "submissions")
        u_how = "compared group by group as in figure 1, the larger of the groups' ratios"
    except SystemExit:
        # no group both kernels reached: all runs of each, which mixes groups
        u_pairs = [(st.median(u_on), st.median(u_off), len(u_on), len(u_off))]
        u_how = ("the kernels' runs share no group (figure 1), so this compares the "
                 "medians of all their runs, which the groups' spread may move")
    r2e_off = max(on / off for on, off, _, _ in u_pairs)
    u_rows = "\n".join(
        f"| {i + 1} | {n_on} runs, median {on:,.1f} | {n_off} runs, median {off:,.1f} | "
        f"{on / off:.4f} |" for i, (on, off, n_on, n_off) in enumerate(u_pairs))
    r2e_off_cell = f"{r2e_off:.4f}"
    r2e_off_goal = goal(r2e_off <= 1.005)
else:
    r2e_off, u_pairs, u_how, u_rows = None, [], "", ""
    r2e_off_cell, r2e_off_goal = "not measured (boots kept from before figure 2e)", ""


def fvals(v):
    return ", ".join(f"{x:,.1f}" for x in v)


if r2e_off is not None:
    sub_off_text = f"""The submit hook with no log enabled: the boots of figure 1 also ran
`stall-bench kernel DIR submit 10000 0 40 1`, three runs a boot, on the kernel
with the log compiled in and disabled (a patched-out jump in
`__i915_request_commit()`) and on the kernel without it (nothing there):

| kernel | ns per submission, one figure per run |
|---|---|
| log compiled in, disabled | {fvals(u_on)} |
| log compiled out | {fvals(u_off)} |

| group | log compiled in, disabled | log compiled out | ratio |
|---|---|---|---|
{u_rows}

Ratio, compiled in and disabled over compiled out: **{r2e_off:.4f}**
({u_how}); the goal is at most 1.005."""
else:
    sub_off_text = """The submit hook with no log enabled, against the log compiled out: not
measured in this run (`BENCH_KEEP_WAITS=1` kept the boots of figure 1 of a
run from before figure 2e)."""


# 3. against ftrace
trace_on = med("trace-on", "ns_per_iter")
trace_off = med("trace-off", "ns_per_iter")
ftrace_over = trace_on - trace_off
ours_over = record
r3 = ours_over / ftrace_over if ftrace_over > 0 else float("inf")
sample = open(os.path.join(a.guest, "ftrace-sample.txt"), errors="replace").read()
user_frames = [len(m.group(0).splitlines()) - 1 for m in
               re.finditer(r"<user stack trace>\n(?: => .*\n)*", sample)]
ftrace_user = max(user_frames) if user_frames else 0

# 4. snapshots
snap_busy = pick("snap-busy", "ns_median")[0]
snap_busy_max = pick("snap-busy", "ns_max")[0]
snap_bytes = pick("snap-busy", "bytes")[0]
snap_quiet = pick("snap-quiet", "ns_median")[0]
w_alone = st.mean(pick("writer-alone", "ns_per_iter"))
w_snapped = st.mean(pick("writer-snapped", "ns_per_iter"))

# 5. reader
# CPU time (user + system; every command here is single-threaded), medians
# of 3 runs: on this shared 2-core host other jobs' load moves wall time
rep = times("report-")
small = times("stream-small")
perf = times("perf-")
pdwarf = times("pdwarf-")
rep_t = st.median(t for t, _, _ in rep)
rep_rss = max(m for _, m, _ in rep)
big_streams = times("stream-1") + times("stream-2") + times("stream-3")	# not stream-small
stream_t = st.median(t for t, _, _ in big_streams)
stream_rss = max(m for _, m, _ in big_streams)
small_rss = small[0][1] if small else 0
perf_t = st.median(t for t, _, _ in perf) if perf else 0
perf_rss = max(m for _, m, _ in perf) if perf else 0
dwarf_t = st.median(t for t, _, _ in pdwarf) if pdwarf else 0
dwarf_rss = max(m for _, m, _ in pdwarf) if pdwarf else 0
ours_rate = 1_000_000 / rep_t
sums = times("summary-")
sum_t = st.median(t for t, _, _ in sums)
sum_rate = 1_000_000 / sum_t
perf_rate = a.perf_samples / perf_t if perf_t else 0
r5 = ours_rate / perf_rate if perf_rate else float("inf")
dwarf_rate = a.perf_dwarf_samples / dwarf_t if dwarf_t else 0

# stack depths: perf's samples, and the records the big log repeats
p_s, p_k, p_u = (int(x) for x in open(os.path.join(a.work, "perf-depth.txt")).read().split())
log = open(os.path.join(a.guest, "client-stalls.bin"), "rb").read()
rsize, = struct.unpack_from("<I", log, 16)
_, roff, rcount = struct.unpack_from("<QQQ", log, 32)
o_k = st.mean(log[roff + i * rsize + 91] for i in range(rcount))	# kstack_depth
o_u = st.mean(log[roff + i * rsize + 92] for i in range(rcount))	# ustack_depth
# the chains report prints for them: 1.2 records add the frames CFI finds
shown = json.load(open(os.path.join(a.work, "client-report.json")))["stalls"]
s_k = st.mean(len(x["kstack"]) for x in shown)
s_u = st.mean(len(x["ustack"]) for x in shown)
depths = (f"perf's samples have {p_k / p_s:.1f} kernel and {p_u / p_s:.1f} user frames "
          f"on average; the records {o_k:.1f} and {o_u:.1f} (frame pointers), "
          f"printed {s_k:.1f} and {s_u:.1f} (user frames joined with the CFI walk of the "
          f"stack snapshot)")

unwind_note = """Each record carries a 2 KiB snapshot of the user stack (the size
`run_bench` sets for them; 8 KiB is the default since format 1.3), and
each is unwound by CFI from it (`docs/reader.md`, "User stacks
of format 1.2"), every record again: what CFI says at each code address
is asked of libdw once per address space and kept (the CFA rule, the
same-value registers as a mask, the other rules as a list), and nothing
is cached by a snapshot's contents, so distinct stacks cost the same
walk."""

if r5 >= 5 and sum_rate >= 5 * perf_rate:
    reader_note = unwind_note + """

What makes it fast (`docs/reader.md`): a regular file is mapped, not
read, and records are checked and used where they lie, fetched into the
CPU caches a few records ahead (a 1.2 record is read a few hundred bytes
here and there, which the hardware prefetchers do not foresee); the sort
is a stable merge of the runs the per-CPU rings already give, over
pointers; symbolized frames and whole formatted stacks are cached by
address, and a stack seen again keeps its lines of the text report;
numbers are formatted in place into 64 KiB writes; mapped pages are given
back every 64 MiB, which bounds `report`'s RSS too. The records here
repeat a few stacks, so the caches hit almost always; perf's samples come
from two processes in a loop (`perf bench sched pipe`) and repeat theirs
too. Distinct stacks cost more: every frame of a new stack is a cache
lookup and a formatting of its own, and past `--cache-size` entries are
evicted; section 5b measures them."""
else:
    reader_note = unwind_note + """

Not met: profile `summary` and `report` (`perf record`) to see where
the time goes (`docs/reader.md` says what got the reader this far)."""

nrec = rsize	# a record of the client's log, with the snapshot it was taken at
# Memory at the defaults, from the code's sizes (docs/design.md, "Memory"):
# the struct and the maps from the file's header, the rest from the kernel.
c_hsize, = struct.unpack_from("<I", log, 12)
c_maps_off, c_ustack_off = struct.unpack_from("<II", log, 304) if c_hsize >= 312 else (712, 2760)
REC, MAPS = c_maps_off, c_ustack_off - c_maps_off	# struct i915_stall_record, 16 maps
REF = 56	# struct stall_ident_ref, in a slot instead of the maps
USTACK_DEFAULT = 8192	# STALL_USTACK_DEFAULT
cpus = int(open(os.path.join(a.guest, "nproc")).read().split()[0]) \
    if os.path.exists(os.path.join(a.guest, "nproc")) else 4
rec_default = REC + MAPS + USTACK_DEFAULT
slot_head = (REC + REF + 7) // 8 * 8	# STALL_SLOT_USTACK_OFFSET
slot_default = slot_head + USTACK_DEFAULT
# stall_default_slots(): 8 MiB over all CPUs, 16..256 a CPU, a power of two
slots_default = 1 << (max(16, min(256, 8 * 2**20 // (cpus * slot_default))).bit_length() - 1)
ring_cpu = slots_default * slot_default
submit_cpu = slots_default * slot_head	# submit records: no snapshot
versions_max = max(256 * 1024, min(4 * 2**20, slots_default * 4096))	# stall_ident_budget()

print(f"""# Performance

Measured by `make bench` (`scripts/bench.sh`), which boots the end-to-end
guest (`e2e.mode=bench`, `run_bench` in `e2e/guest/scenario.sh`) for
figures 1c and 2 to 4, boots it {n_boots} more times alternating between two
kernels for figure 1 and the disabled submit hook of 2e (`e2e.mode=waits`,
`run_waits`), and measures the reader on the host. Every ratio below compares two figures taken in the same boot,
in alternating boots of the same run, or on the host in the same run.

- Host: {cpu_model}, 2 cores. Guest: QEMU x86_64 under **TCG** (software
  emulation), 4 vCPUs, kernel `{release}`.
- The guest kernel is the series built with `kunit/bench.kunitconfig`: the
  KUnit kernel's configuration without KASAN, lockdep and the other debug
  options (they would dominate every figure), with the function tracer on
  as distributions build it. The baseline of figure 1 is the same with
  `kunit/bench-off.kunitconfig`: no `CONFIG_DRM_I915_STALL_LOG`, the same
  mock GPU.
- **Guest times are instruction counts.** The guest runs with QEMU's
  `-icount shift=0`: its clock advances one nanosecond per guest
  instruction executed, so a "ns" below is one instruction, and a figure is
  the same from run to run (within about 0.5%) whatever the host is doing.
  Without it, TCG's wall-clock figures moved by 30% between runs. What this
  does not model is the memory hierarchy: a cache miss costs what any
  instruction does. Read the ratios, not the absolute figures; hardware
  will differ most where memory traffic differs (the {nrec}-byte record
  store, the snapshot copy).

| # | what | measured | goal | |
|---|---|---|---|---|
| 1 | wait path, log compiled in but disabled, over the log compiled out (alternating boots) | {r1:.4f} | <= 1.01 | {goal(r1 <= 1.01)} |
| 1b | the same on the syncobj path (`DRM_IOCTL_SYNCOBJ_WAIT`) | {r1b:.4f} | <= 1.01 | {goal(r1b <= 1.01)} |
| 1c | a syncobj wait on another device while this device's log is enabled, over the log disabled (same boot; issue 23) | {r1c_other:.4f} ({sync["sync-other-on"]:,.0f} vs {sync["sync-other-off"]:,.0f} ns) | | |
| 1c | the same on this device, the wait below the threshold (the probes, nothing recorded) | {r1c_here:.4f} ({sync["sync-on"]:,.0f} vs {sync["sync-off"]:,.0f} ns) | | |
| 2 | a record with 32 kernel + 32 user frames, over bare `stack_trace_save()` + `stack_trace_save_user()` | {r2:.3f} ({record:.0f} ns vs {unwind:.0f} ns) | <= 1.25 | {goal(r2 <= 1.25)} |
| 2b | the same with a 2 KiB user stack snapshot and the maps of the executable and its 3 libraries (8 KiB, the default since format 1.3: {rec_u[8192] / unwind2b:.3f}) | {r2b:.3f} ({rec_u[2048]:.0f} ns vs {unwind2b:.0f} ns) | <= 1.25 | {goal(r2b <= 1.25)} |
| 2c | the same, the first record after the process's mappings changed (it asks the worker for their version) | {r2c:.3f} ({rec_new - relock:.0f} ns) | | |
| 2d | a record on a client with {maps2d:,} mappings that maps and unmaps a buffer before each stall, 8 KiB snapshot, over the bare unwinds (issue 22) | {r2d:.3f} ({rec_remap - remap:.0f} ns vs {unwind2d:.0f} ns) | <= 1.5 | {goal(r2d <= 1.5)} |
| 2d | the longest preemption-disabled section of those records, over the bare unwinds | {sec_max / unwind2d:.3f} (longest {sec_max:,} ns, mean {sec_mean:,.0f} ns) | <= 1.1 | {goal(sec_max <= sec_bound)}{"" if sec_max <= sec_bound or sec_mean > sec_bound else " (the mean is within)"} |
| 2d | the same, on a guest with one vCPU (no other vCPU's turn in a section), over that boot's bare unwinds | {sec1_max / unwind1:.3f} (longest {sec1_max:,} ns, mean {sec1_mean:,.0f} ns, bare unwinds {unwind1:.0f} ns) | <= 1.1 | {goal(sec1_max <= 1.1 * unwind1)} |
| 2e | submit records: a submission with the log enabled less disabled, over the bare user-stack walk (32 frames; issue 24) | {r2e:.3f} ({sub_cost:.0f} ns vs {uwalk:.0f} ns) | <= 1.25 | {goal(r2e <= 1.25)} |
| 2e | a submission with the log compiled in but disabled, over compiled out (alternating boots) | {r2e_off_cell} | <= 1.005 | {r2e_off_goal} |
| 2e | the submit record's preemption-disabled section (all of it), over the bare unwinds of 2d | {ssec_max / unwind2d:.3f} (longest {ssec_max:,} ns, mean {ssec_mean:,.0f} ns) | <= 1.1 | {goal(ssec_max <= sec_bound)} |
| 2e | the same, on one vCPU | {ssec1_max / unwind1:.3f} (longest {ssec1_max:,} ns, mean {ssec1_mean:,.0f} ns) | <= 1.1 | {goal(ssec1_max <= 1.1 * unwind1)} |
| 3 | per-stall overhead, the log over ftrace's stacktrace trigger + userstacktrace | {r3:.3f} ({ours_over/1000:.1f} us vs {ftrace_over/1000:.1f} us) | <= 1.0 | {goal(r3 <= 1.0)} |
| 4 | snapshot of full rings ({snap_bytes} bytes) while writers record on the other CPUs | {snap_busy/1000:.0f} us median, {snap_busy_max/1000:.0f} us max; writers {w_snapped:.0f} ns/record vs {w_alone:.0f} alone | writers never wait | {goal(w_snapped <= 1.25 * w_alone)} |
| 5 | reader, decode + symbolize + print every frame (`report`), over `perf script` | {r5:.1f}x ({ours_rate:,.0f} records/s vs {perf_rate:,.0f} samples/s) | >= 5x | {goal(r5 >= 5)} |
| 5 | reader, decode + symbolize + aggregate (`summary`), over `perf script` | {sum_rate/perf_rate:.1f}x ({sum_rate:,.0f} records/s) | >= 5x | {goal(sum_rate >= 5 * perf_rate)} |
| 5 | reader `report --stream` peak RSS, 100k vs 1M records | {small_rss/1024:.1f} MiB vs {stream_rss/1024:.1f} MiB | bounded | {goal(stream_rss <= 1.5 * small_rss + 4096)} |
| 6 | memory, from the code's sizes | {rec_default} bytes per record in the file; in the ring {slot_default} a slot: {slots_default} slots = {ring_cpu / 1024:.0f} KiB per CPU by default ({cpus} CPUs), {submit_cpu / 1024:.0f} KiB of submit records, and at most {versions_max / 1024:.0f} KiB of user-code versions per device | | |

## 1. The disabled path

The same workload on two kernels built from the same tree, one with
`CONFIG_DRM_I915_STALL_LOG=y` (its log left disabled) and one without it,
booted alternately, {n_boots // 2} times each: in each boot, three runs of
`stall-bench waits DIR {w_n} 1 1`: {w_n} sleeping 1 ms waits on the mock GPU
(`i915_stalls_mock_wait`: submit a request, `i915_request_wait()` on it)
from a user stack 32 frames deep, pinned to CPU 1, each timed in the
waiting thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`). A run's figure is
the median of its waits:

| kernel | CPU time per wait, one figure per run |
|---|---|
| log compiled in, disabled | {vals(w_on)} |
| log compiled out | {vals(w_off)} |

The runs of each boot agree closely, but boots fall into groups {spread:.0%}
apart, whichever kernel they run (a state set at boot that we did not
pin down; it is not timer migration, path lookup or KASLR, all three
tried). Within a group runs differ by at most {within:.1%}. So the kernels
are compared group by group, over the groups both reached:

| group | log compiled in, disabled | log compiled out | ratio |
|---|---|---|---|
{group_rows}

Ratio, compiled in and disabled over compiled out, the larger of the
groups': **{r1:.4f}**. A wait is some {m_off:,.0f} instructions here (the
system call, the request, the sleep and the wakeup); with the log compiled
in, {diffs} more per wait in the groups above: the {len(ours)} NOPs and
what the compiler arranged around them.

In isolation, in the bench boot: the three hooks of the request wait site
in a loop (`stall-bench kernel DIR hook`, no log enabled) take {hook:.1f}
ns per iteration against {empty:.1f} ns for the same loop empty (medians
of 3), {hook_cost:.1f} instructions for the three. In the code: the jump
labels in `i915_request_wait_timeout()` of the vmlinux that ran (its
`__jump_table` entries, `scripts/jump-labels.py`): {len(ours)} on
`i915_stall_key`, NOPs that become jumps when a log is enabled, next to
the {len(lab_off)} of the function's tracepoints that both kernels have.
With the log compiled in the function is {len(insn_on)} instructions long,
{len(insn_off)} without it; the difference is the out-of-line code behind
the jumps (reading the clock, the call to `__i915_stall_request_end()`),
which runs only while a log is enabled.

```
{chr(10).join(asm_lines[:24])}
```

## 1b. The disabled path of a syncobj wait

The boots of figure 1 also ran `stall-bench syncwaits DIR /dev/dri/renderD128
{sw[0]["n"]} 1 1`: {sw[0]["n"]} waits as Mesa makes them, each on a syncobj
holding the sync_file of a 1 ms mock request (`i915_stalls_mock_fence`),
with `DRM_IOCTL_SYNCOBJ_WAIT` through libc's `ioctl()` from a 32-frame user
stack; only the ioctl is timed, in the waiting thread's CPU time:

| kernel | CPU time per syncobj wait, one figure per run |
|---|---|
| log compiled in, disabled | {vals(s_on)} |
| log compiled out | {vals(s_off)} |

Compared group by group as in figure 1:

| group | log compiled in, disabled | log compiled out | ratio |
|---|---|---|---|
{s_rows}

Ratio, the larger of the groups': **{r1b:.4f}**. Both kernels carry DRM
core's `drm_syncobj_wait_begin` and `_end` tracepoints (a patch of the
series that is not under the option); the log attaches its probes to them
only while a log is enabled, so with the log disabled both kernels run
the same code, and no probe. In the code:
`drm_syncobj_array_wait_timeout()` has
{len(s_lab)} jump label(s) on {", ".join(s_keys) or "no key"} in the
vmlinux that ran, NOPs until a probe is attached, and is
{len(s_insn_on)} instructions long in the kernel with the log
({len(s_insn_off)} in the kernel without it). Figure 1c measures the
waits while a log is enabled.

## 1c. Syncobj waits with the log enabled, here and on another device

Issue 23: what a syncobj wait costs while the log is enabled on another
device. In the bench boot, `stall-bench syncwaits DIR DEV {sync_n} 1 1`
(figure 1b's waits: only the ioctl is timed, in the waiting thread's CPU
time), three runs of each, interleaved, with the log disabled and enabled,
its threshold at 1 s, above the waits, so that nothing is recorded; on two
devices: this mock GPU's render node (`{nodes[0]}`), and that of a second
mock device, made for this by writing 1 to `DIR/i915_stalls_mock_other`,
which has no log, and whose syncobjs hold this device's fences
(`i915_stalls_mock_fence`). CPU time per syncobj wait, the median of each
run's waits, and the median of the runs:

| device | log disabled | log enabled | ratio |
|---|---|---|---|
| another (`{nodes[1]}`) | {sync_runs("sync-other-off")} (**{sync["sync-other-off"]:,.0f}**) | {sync_runs("sync-other-on")} (**{sync["sync-other-on"]:,.0f}**) | **{r1c_other:.4f}** |
| this one (`{nodes[0]}`) | {sync_runs("sync-off")} (**{sync["sync-off"]:,.0f}**) | {sync_runs("sync-on")} (**{sync["sync-on"]:,.0f}**) | **{r1c_here:.4f}** |

While some device's log is enabled, every syncobj wait that sleeps, of
any DRM device, runs DRM core's `drm_syncobj_wait_begin` and `_end`
tracepoints with the log's probes attached (`i915_stall_syncobj.c`): at
begin the probe looks for the enabled log of the wait's device in the list
of those enabled, finds none, and returns; at end it looks for the wait in
its table of waits in progress, under a spinlock, and returns; and DRM
core's wait loop checks the fences once more after begin. On the other
device that is {sync["sync-other-on"] - sync["sync-other-off"]:+,.0f}
instructions a wait. On this device the probes also capture, at begin, what
the wait waits on (the request, its engine and owner) into a table entry
they allocate, and end drops the wait at the threshold:
{sync["sync-on"] - sync["sync-off"]:+,.0f}. With no log enabled on any
device the tracepoints are patched-out jumps (figure 1b). The other device
is a second instance of the same mock driver, not another driver: the probes
compare the wait's `drm_device` with those of the enabled logs and touch
nothing else of it before they return, so the driver behind it does not
change what they do. The figures of both devices come from the same boot;
boots fall into groups (figure 1), so compare the ratios, not these figures
with figure 1b's.

## 2. Cost of one record

`stall-bench kernel DIR unwind|record 20000 26 40` from a user stack 40
frames deep and 26 extra kernel frames, so that both stacks fill their 32
entries, five runs of each, interleaved with those of 3: `record` is `i915_stall_record()` with the threshold at 0 (both
unwinds, the ring, the rest of the fields); `unwind` is
`stack_trace_save(32)` + `stack_trace_save_user(32)` alone. Medians of five
runs: {record:.0f} ns per record against {unwind:.0f} ns for the unwinds:
ratio {r2:.3f}. Unwinding dominates, as expected. The runs, in ns per
iteration: unwind {runs("unwind")}, record {runs("record")}.

## 2b. The user stack snapshot and the identity of user code

The same `record` and `unwind` runs, three times each, with the guest
program's stack running through three shared libraries
(`libbenchdeep1.so`..`3`, every other frame) and the executable, and with
`i915_stalls_ustack_bytes` set to each size in turn: the record then also
copies up to that much stack from `sp` up, once, straight into its ring
slot, never past the end of the stack's mapping (so a size
larger than the stack above `sp` copies no more), and names the version
of the executable mappings of its address space that a worker reads
(build-id, file offset, path), which the snapshot turns into the record's
maps: each mapping a frame or a word of the snapshot points into. One
record of the run, at 2 KiB, names {one_maps} mappings: {", ".join(one_names)},
with {one_usize} bytes of stack. "Bytes per record" is the record in the
file; in the ring a slot is {MAPS - REF} bytes smaller (no maps; its
{REF}-byte reference to the version instead). Figure 2d has a stack deep
enough for a full 8 KiB.

| snapshot | bytes per record | ns per record (median of 3) | over the bare unwinds ({unwind2b:.0f} ns) |
|---|---|---|---|
""" + "".join(f"| {c} | {rec_sizes[c]} | {rec_u[c]:.0f} | {rec_u[c] / unwind2b:.3f} |\n" for c in U_SIZES) + f"""
The version is read once, by the worker, after the first record asks for
it, and then named by each record while the process's mappings stay as
they were: a comparison of `mm_lock_seq` and of the process in the CPU's
cache of address spaces, no lookup. So the snapshot costs its copy, and
the number of mappings the record names costs nothing: the
same record from a stack whose frames are all in the executable
(`STALL_BENCH_FLAT=1`, two mappings to name where the other stack names
five), snapshot 0, against its own unwinds, differs by {per_lookup:.0f} ns a mapping.

Where the words went: in the record path before the tables (at d87e6e42),
each word of the snapshot that pointed into neither a mapping found nor
a range known to hold none cost a `find_vma()`, and the 2 KiB record was
3.276x; a cache of what the lookups found, kept per CPU while the
mappings stayed, brought it to 1.8x, and what remained was the words
themselves, some 30 instructions each to classify, 256 of them in 2 KiB.
Since format 1.2 the snapshot looks them up when the log is read, in the
record's table then, in the version of its mappings since 1.3 (figure 4
is that snapshot).

## 2c. The first record after the mappings changed

`stall-bench kernel DIR record-new 20000 26 40`: the same record with a
2 KiB snapshot, after an `mmap_write_lock()` and unlock of the writer's
mm before each record, which moves `mm_lock_seq` as any `mmap()` or
`munmap()` does, so that the CPU's entry for the address space no longer
holds: the record asks the worker for the version of its mappings
(`stall_ident_name()`), and the worker, later and on its own, finds the
last version still true by a lookup of each of its mappings. (In format
1.2 the record walked the VMAs itself, with preemption disabled: 1.602x.)
Medians of 3: {rec_new:.0f} ns per record, less {relock:.0f} ns for the
lock round trip alone (`relock`): **{r2c:.3f}x** the bare unwinds.
Figure 2d measures the same on an address space of 2,000 mappings that
really maps and unmaps a buffer.

Why 8 KiB by default (2 KiB until format 1.2): on the Vulkan-shaped client
of the end-to-end test (`vkapp` through Debian's libdrm, built without
frame pointers), the reader's CFI unwind of the records cut to 256 bytes
reaches the driver's `drv_sync_wait_many`, to 512 bytes `main`, to 1 KiB
`_start`; 2 KiB was twice that. Real stacks are deeper: with Debian's real
Vulkan loader, a Vulkan `main()` with 1.2 KiB of locals (one
`VkPhysicalDeviceProperties` is 824 bytes) left `_start` out of 2 KiB.
8 KiB is what perf's DWARF mode copies by default (`--call-graph dwarf`).
Here 2 KiB costs {rec_u[2048] / rec_u[1024]:.2f}x the record at 1 KiB,
and 8 KiB {rec_u[8192] / rec_u[2048]:.2f}x the record at 2 KiB, as far as
this program's stack goes (above).

## 2d. The record path since format 1.3, on a GPU client's address space

Issue 22. `stall-bench kernel DIR MODE 10000 26 40` with
`STALL_BENCH_MAPS=1024 STALL_BENCH_PAD=16384`: before it writes, the program
makes the address space of a GPU client, {maps2d:,} mappings in all: 2,048
one-page mappings that cannot merge (read-only and read-write in turn, as
buffers and their guard pages), 32 executable mappings of its own first page
(as more libraries: each is in the version of its mappings the worker
keeps, and checks) and its own; and it writes 16 KiB of stack above its 40
frames, so that the default 8 KiB stack snapshot is full. The snapshot is at
its default, 8 KiB. Three runs of each mode, interleaved:

| mode | ns per iteration (median of 3) | over the bare unwinds |
|---|---|---|
| `unwind`: `stack_trace_save()` + `stack_trace_save_user()`, 32 frames each | {unwind2d:.0f} | 1 |
| `record`: a record, the mappings unchanged since the last | {rec2d:.0f} | {r2d_steady:.3f} |
| `record-remap`: `vm_mmap()` and `vm_munmap()` of a 1 MiB anonymous buffer in the writer's address space, then a record | {rec_remap:.0f} | |
| `remap`: the mapping and unmapping alone | {remap:.0f} | |
| `record-remap` less `remap`: **a record after the client mapped and unmapped a buffer** | {rec_remap - remap:.0f} | **{r2d:.3f}** |

The goal is at most 1.5x. After a buffer was mapped and unmapped,
`mm_lock_seq` has moved, the CPU's entry for the address space no longer
holds, and each record asks the worker for the version of the process's
mappings (`stall_ident_name()`); the worker (`i915_stall_user.c`) runs once a
jiffy at most while records ask, and finds the last version still true by
one lookup per executable mapping of it, without walking the VMAs. It runs
on another CPU; under single-threaded TCG with `-icount` the clock counts
every vCPU's instructions, so the part of the worker's that falls in a run
is in that run's figure.

The longest preemption-disabled section. With `STALL_BENCH_SECTIONS=1` the
same `record-remap` runs have the kernel time, from inside `stall_record()`,
each section the record path runs with preemption disabled, from after
`preempt_disable()` to before `preempt_enable()`, with the clock the
benchmarks read (`i915_stall_sections_start()`: a static key that exists
only in kernels with the mock GPU; in those it is a patched-out jump at each
end of the section until a benchmark asks, and in the others there is
nothing there). The section is `stall_ident_name()` (the CPU's entry for the
address space, under its raw spinlock, and the request to the worker),
the copy into its slot of the record made before with preemption enabled
(its fixed part: the stacks, the ids, the maps' reference), the copy of the
user stack snapshot from `sp` straight into the slot, and the commit; or, if
no buffer could be had without sleeping, the whole record made in the slot. The section is timed where it runs rather than
copied into the benchmark, so that what is measured is that code on each
record, its slot and its CPU's entry. Over the three runs: {sec_n:,}
sections for {sec_recs:,} records, mean {sec_mean:,.0f} ns, the longest
{sec_max:,} ns: **{sec_max / unwind2d:.3f}x** the bare unwinds (goal: at
most 1.1x, {sec_bound:,.0f} ns); the mean is {sec_mean / unwind2d:.3f}x.
Runs (mean / longest, ns): {sec_runs}. Each time includes a reading of the
clock, the interrupts the CPU took during the section (preemption is
disabled there, not interrupts), and, under single-threaded TCG, the
instructions of other vCPUs whose turn came during it: the longest is an
upper bound of the section's own length.

The same on a guest booted with one vCPU (`e2e.mode=sections`, `-smp 1`),
where no other vCPU's turn can fall in a section: {sec1_n:,} sections for
{sec1_recs:,} records, mean {sec1_mean:,.0f} ns, the longest {sec1_max:,} ns,
**{sec1_max / unwind1:.3f}x** that boot's bare unwinds ({unwind1:.0f} ns);
runs (mean / longest, ns): {sec1_runs}. The submit record's section there:
mean {ssec1_mean:,.0f} ns, the longest {ssec1_max:,} ns
({ssec1_max / unwind1:.3f}x). What is left in the longest is the section
and the interrupts the one CPU took during it.

## 2e. Submit records

Issue 24: while the log is enabled, each request a user task submits gets a
submit record (`i915_stall_submit()` in `__i915_request_commit()`): the
frame-pointer walk of the user stack and the identity of its code, made in
its slot with preemption disabled. `stall-bench kernel DIR MODE 10000 0 40`,
from a user stack 40 frames deep, five runs of each, interleaved:

- `submit`: one submission of a mock request on a GEM context of the
  writer, as a client submits its work: `mock_request()`, which makes the
  request (and retires the oldest completed request of the context), and
  `i915_request_add()`, which commits it (the submit hook) and submits it;
  the mock engine completes a request of 0 ms as it is submitted, so the
  context never holds more than two (the completion queues the
  breadcrumbs' `irq_work`, whose interrupt falls in the loop too). That is
  all the timed loop holds: the context is made and pinned before it (a
  busy client's context stays pinned), and closed after. With the log disabled, **{sub_off:,.0f} ns**
  per submission; enabled, **{sub_on:,.0f} ns**.
- `uwalk`: `stack_trace_save_user()` of 32 frames alone, the walk a submit
  record makes: **{uwalk:,.0f} ns**.
- `submit-record`: `i915_stall_record_submit()` alone, of a made-up request:
  {sub_rec:,.0f} ns, {sub_rec / uwalk:.3f}x the walk.

A submission costs {sub_cost:,.0f} ns more with the log enabled:
**{r2e:.3f}x** the bare walk (goal: at most 1.25x). Runs, ns per
iteration: disabled {runs("submit-off")}; enabled {runs("submit-on")};
walk {runs("uwalk")}; submit record {runs("submit-record")}.

The submit record is made with preemption disabled, all of it. Timed as in
2d (`STALL_BENCH_SECTIONS=1`, one run of `submit-record`): {ssec_n:,}
sections, mean {ssec_mean:,.0f} ns, the longest {ssec_max:,} ns:
{ssec_max / unwind2d:.3f}x the bare unwinds of 2d (kernel and user).

{sub_off_text}

## 3. Against ftrace

The classic alternative: `echo stacktrace >
events/i915/i915_request_wait_end/trigger`, the event enabled, and
`options/userstacktrace`, with the log off. `stall-bench kernel DIR trace
20000 26 40` fires the `i915_request_wait_end` tracepoint of a completed
mock request in a loop, from the same user and kernel stacks as the record
measurement above; with the event off the same loop gives the cost of the
disabled tracepoint.

| | per stall (median of 5; disabled: of 3) |
|---|---|
| the log: one record (2 above) | {record/1000:.1f} us |
| ftrace: event + stacktrace trigger + userstacktrace | {trace_on/1000:.1f} us |
| ftrace: event disabled | {trace_off/1000:.3f} us |

Ratio of the overheads, the log over ftrace: {r3:.3f} (runs, ns: ftrace
{runs("trace-on")}, disabled {runs("trace-off")}). The log captures
more: the duration and its busy-spin part, the owner, the outcome, the
fence, and 32 user frames where ftrace's userstacktrace keeps
{ftrace_user} (`FTRACE_STACK_ENTRIES` is 8 on x86_64; see
`out/bench-e2e/bench/guest/ftrace-sample.txt`), and it needs no tracer
running. What the tracepoint cannot give at all is the duration: it would
need a second event at wait begin and a tool to pair them.

## 4. Snapshots while writers run

Three writers (`stall-bench kernel DIR record 100000 0 0 CPU`, CPUs 1-3)
record as fast as they can while CPU 0 takes 200 snapshots
(`stall-bench snap DIR 200`: open, read everything, close) of full rings,
each record's maps filled from the version of its mappings as the
snapshot copies it (after it has the versions that records asked for
read, `stall_ident_flush()`):
{snap_busy/1000:.0f} us per snapshot (median; {snap_busy_max/1000:.0f} us
max), {snap_quiet/1000:.0f} us when the writers are done: 2.7 ms before the
tables of format 1.2 (at d87e6e42), when the records carried their maps
and the snapshot copied them; since then it looks up the words of each
record's 2 KiB snapshot in its table, or version. The writers
recorded at {w_snapped:.0f} ns per record during the snapshots and
{w_alone:.0f} ns alone: they never wait for a reader (there is no lock or
atomic operation on their path). Under single-threaded TCG the four vCPUs
take turns on one host thread, so a writer's figure moves with what the
others do in its turns.

## 5. The reader

A log of 1,000,000 records made of the real stalls of the end-to-end
client, repeated (`scripts/bench-grow.py`), in a `record` archive with the
client's maps, symbolized against its ELF files (`--symfs`) and the
kernel's vmlinux:

CPU time (user + system; each command is single-threaded), with the
wall-clock time in parentheses: medians of 3 runs, all in the same run of
`make bench`, each after reading its input once (so that none reads the
disk); rates are per CPU second.

| command | CPU time (wall) | records/s | peak RSS |
|---|---|---|---|
| `i915-stalls report --offline --symfs ... --vmlinux ... big.ar` | {rep_t:.2f} s ({wall(rep):.2f} s) | {ours_rate:,.0f} | {rep_rss/1024:.0f} MiB |
| `i915-stalls report --stream ... big.bin` (1M, the records' own maps, no archive) | {stream_t:.2f} s ({wall(big_streams):.2f} s) | {1_000_000/stream_t:,.0f} | {stream_rss/1024:.1f} MiB |
| same, 100k records | | | {small_rss/1024:.1f} MiB |
| `i915-stalls summary ... big.ar` | {sum_t:.2f} s ({wall(sums):.2f} s) | {sum_rate:,.0f} | {max(m for _, m, _ in sums)/1024:.0f} MiB |
| `perf script` on {a.perf_samples:,} `sched:sched_switch` samples with frame-pointer call chains (`perf record -g -- perf bench sched pipe -l 500000`): **the goal's baseline** | {perf_t:.2f} s ({wall(perf):.2f} s) | {perf_rate:,.0f} | {perf_rss/1024:.0f} MiB |
| `perf script` on {a.perf_dwarf_samples:,} such samples with a 2 KiB user stack copy unwound by CFI (`perf record --call-graph dwarf,2048`): for comparison | {dwarf_t:.2f} s ({wall(pdwarf):.2f} s) | {dwarf_rate:,.0f} | {dwarf_rss/1024:.0f} MiB |

Stack depths: {depths}.

The goal compares with `perf script` on frame-pointer call chains. Its
`--call-graph dwarf` samples are more like 1.2 records: a copy of the user
stack (the same 2 KiB), unwound with CFI (libdw) when read. For
information only: over those, `report` is
{ours_rate / dwarf_rate if dwarf_rate else 0:.1f}x and `summary`
{sum_rate / dwarf_rate if dwarf_rate else 0:.1f}x `perf script`'s rate (perf
also looks up inlined functions for them).

For reference, the issue measured `perf script` here at about 52k samples/s
(1.93 s for 99,959 samples of 8 kernel + 24 user frames, 62 MiB).

`report` sorts every stall by time, so it holds an entry (24 bytes) per
stall; `report --stream` prints each record as it is decoded, in file
order, and its memory does not grow with the input.

{reader_note}

## 6. Memory

Sizes of formats 1.3 and 1.4, from the code (the struct's and the maps'
from the header of the file the guest wrote), not measured. A record of
the file is {rec_default} bytes by default: the {REC}-byte struct (the
fields, 32 kernel and 32 user frames, the 1.1 and 1.2 fields), 16 maps of
{MAPS // 16} bytes and 8 KiB of user stack; from {REC + MAPS} bytes with no
snapshot to {REC + MAPS + 16384} with 16 KiB (figure 2b's table). In the
ring a slot has no maps, only its {REF}-byte reference to the identity of
its user code: {slot_default} bytes. A submit record (format 1.4) has no
stack snapshot: {slot_head} bytes in its ring, {REC + MAPS} in the file.
The default ring has {slots_default} slots per CPU on {cpus} CPUs
({ring_cpu / 1024:.0f} KiB per CPU, and {submit_cpu / 1024:.0f} KiB of
submit ring; {cpus * (ring_cpu + submit_cpu) / 2**20:.2f} MiB for the
device) and shrinks to keep a device's stall rings near 8 MiB on bigger
machines, at 16 slots per CPU at least; the versions of user code come on
top, once per device, at most 4 KiB a slot of one CPU, from 256 KiB to
4 MiB ({versions_max / 1024:.0f} KiB here), with some 47 KiB for the log's
file cache and scratch and 648 bytes per CPU for its cache of address
spaces; see `docs/design.md`. Nothing is allocated for the rings until
the log is first enabled.
""")
