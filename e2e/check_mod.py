#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check the modular i915's guest (scripts/e2e-module.sh, issue 22).

    check_mod.py --guest DIR --rootfs DIR --reader PATH --vmlinux PATH
                 --module I915_KO --hz N --work DIR --console FILE

The guest booted a kernel built as a distribution builds it (DRM_I915=m,
the log on), loaded i915.ko with `modprobe i915 stall_log=1` (the log on from the
first wait, as the README says), stalled gpu-demo on the mock GPU
(two frames on the main thread, one on a worker), recorded the log with
/proc/kallsyms, and unloaded i915 (e2e/guest/scenario.sh, run_module).
Each stall is held to what the client did, as check.py holds the built-in
kernel's (e2e/check.py, check_stall): pid, tid, comm, site, duration, the
user chain by name, and the kernel chain by name, whose frames from the
wait to the mock's write handler are in i915.ko: once symbolized by the
host reader from vmlinux and i915.ko (--vmlinux, --i915-module, placed by
the i915 anchor the log recorded), once from the kallsyms the guest saved.
Prints "ok NAME" / "not ok NAME"; exits 1 if any check failed.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check as C  # noqa: E402

# frames of the kernel chain that live in i915.ko (the others in vmlinux)
IN_MODULE = {"i915_request_wait_timeout", "i915_request_wait", "stall_mock_write"}
STALLS = 3  # --frames 25,40 --worker 30


def module_frames(name, st):
    """The kernel frames named in IN_MODULE are said to be in i915.ko."""
    ks = [(f.get("symbol"), f.get("module")) for f in st["kstack"]]
    bad = [(s, m) for s, m in ks if s in IN_MODULE and m not in ("i915", "i915.ko")]
    seen = {s for s, _ in ks if s in IN_MODULE}
    return C.check(name, not bad and seen == IN_MODULE,
                   f"i915 frames {sorted(seen)} (want {sorted(IN_MODULE)}), not in i915: {bad}"
                   f"\n{C.describe(st)}")


def main():
    ap = argparse.ArgumentParser()
    for o in ("guest", "rootfs", "reader", "vmlinux", "module", "work", "console"):
        ap.add_argument("--" + o, required=True)
    ap.add_argument("--hz", type=int, required=True)
    a = ap.parse_args()
    g = a.guest
    os.makedirs(a.work, exist_ok=True)

    def txt(f):
        return (C.read(os.path.join(g, f)) or "").strip()

    C.check("module-guest-scenario", txt("rc") == "0",
            f"scenario exit {txt('rc')}; its log:\n{txt('scenario.log')}")
    con = C.read(a.console) or ""
    splats = [line for line in con.splitlines() if C.SPLAT.search(line)]
    C.check("module-no-splat", con and not splats, "\n".join(splats[:20]))

    # loaded by hand, as a module, and live
    mods = txt("modules.txt").split()
    C.check("module-loaded", txt("loaded-before.txt") == "0" and txt("modprobe.rc") == "0"
            and mods[:1] == ["i915"] and txt("initstate.txt") == "live",
            f"before {txt('loaded-before.txt')}, modprobe rc {txt('modprobe.rc')} "
            f"({txt('modprobe.err')}), /proc/modules {mods[:4]}, initstate {txt('initstate.txt')}")
    loaded = C.states(g).get("loaded", {})
    C.check("module-param-enables", txt("param.txt") == "Y" and loaded.get("enable") == "1",
            f"parameter stall_log {txt('param.txt')!r}, log at load: {loaded}")
    C.check("module-record", txt("mod-record.rc") == "0",
            f"record rc {txt('mod-record.rc')}: {txt('mod-record.err')}")

    C.check_client_ran("module-client-ran", g, "mod", STALLS)
    cs_all = C.client_stalls(g, "mod")
    ar = os.path.join(g, "mod.ar")
    readings = {
        # vmlinux and i915.ko from the build, placed by the recorded anchors
        "ko": ["--offline", "--symfs", a.rootfs, "--vmlinux", a.vmlinux,
               "--i915-module", a.module],
        # the guest's /proc/kallsyms, saved in the archive
        "kallsyms": ["--offline", "--symfs", a.rootfs],
    }
    for how, opts in readings.items():
        R = C.Reader(argparse.Namespace(reader=a.reader, work=os.path.join(a.work, how)))
        os.makedirs(os.path.join(a.work, how), exist_ok=True)
        rc, out, err = R.run("report", "--format=json", ar, *opts, symbols=False)
        try:
            stalls = json.loads(out)["stalls"] if rc in (0, 1) else None
        except ValueError:
            stalls = None
        if not C.check(f"module-{how}-report", stalls is not None and len(stalls) == STALLS,
                       f"reader exit {rc}: {err.strip()}; "
                       f"{len(stalls) if stalls is not None else 'no'} stalls, want {STALLS}"):
            continue
        for i, cs in enumerate(cs_all):
            n = f"module-{how}-stall-{cs['thread']}-{i}"
            m = C.match(stalls, cs)
            if C.check(n + "-once", len(m) == 1, f"{len(m)} records for {cs}"):
                C.check_stall(n, m[0], cs, a.hz)
                module_frames(n + "-in-i915", m[0])

    # unloaded: the module, the mock device and its debugfs directory gone
    C.check("module-unloaded", txt("rmmod.rc") == "0" and txt("loaded-after.txt") == "0"
            and "i915" not in txt("dri-after.txt"),
            f"rmmod rc {txt('rmmod.rc')} ({txt('rmmod.err')}), still loaded "
            f"{txt('loaded-after.txt')}, dri/ after: {txt('dri-after.txt')!r}")
    return 0 if all(ok for _, ok in C.results) else 1


if __name__ == "__main__":
    sys.exit(main())
