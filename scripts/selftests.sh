#!/bin/bash
# SPDX-License-Identifier: MIT
#
# make selftests: Intel's own mock selftests of i915 (i915.mock_selftests=-1:
# 18 groups of tests written by Intel against i915's mock GPU), on the KUnit
# kernel (KASAN, lockdep), booted twice, side by side: with the stall log
# enabled on every mock device at threshold 0 (i915.stall_log=1, so each
# wait the tests make runs the log's enabled path: the capture under
# rq->lock, the ring writes), and without it.  Checks:
#
#   - each subtest that runs without the log runs with it, and fails with it
#     only if it fails without it (named, as a failure of the base kernel);
#   - a KASAN, lockdep, WARN or BUG report with the log is one the boot
#     without it has too (then named as the base kernel's), else it fails;
#   - what the mock devices recorded, per wait site, summed from their
#     "stall log: N stalls recorded: SITE n ...; K kept: ..." lines: the
#     sites the tests reach, as a probe on the i915_stall tracepoint
#     counted every record made (not only those the rings still keep),
#     and that it counted each record once (the sum is N).
#
# Writes "ok NAME" / "not ok NAME" lines to $RESULTS/selftests.results;
# the consoles in $OUT/selftests.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:?}
OUT=${OUT:-$top/out}
RESULTS=${RESULTS:-$OUT/results}
KDIR=${SELFTESTS_KDIR:-$BUILD/kunit}
TIMEOUT=${SELFTESTS_TIMEOUT:-1500}
dir=$OUT/selftests
res=$RESULTS/selftests.results
mkdir -p "$dir" "$RESULTS"
: > "$res"

kernel=$KDIR/arch/x86/boot/bzImage
if [ ! -f "$kernel" ]; then
	echo "selftests: no kernel at $kernel: run 'make kunit' first (make test does)" >&2
	echo "not ok selftests.kernel-image" >> "$res"
	exit 1
fi

boot() { # name extra-cmdline
	local name=$1 t0=$SECONDS
	echo "selftests: booting with i915.mock_selftests=-1 $2 (TCG, 4 vCPUs)" >&2
	timeout -k 10 "$TIMEOUT" qemu-system-x86_64 -nodefaults -display none -no-reboot \
		-m 2048 -smp 4 -accel tcg,thread=single -bios qboot.rom -kernel "$kernel" \
		-append "console=ttyS0 kunit.enable=0 panic=-1 i915.mock_selftests=-1 $2" \
		-serial stdio < /dev/null 2>&1 | tr -d '\r' > "$dir/$name.log"
	echo "selftests: $name: $((SECONDS - t0)) s" >&2
}

# The two boots side by side: each QEMU is one host thread (TCG,
# thread=single), so on two cores this takes the time of one.
boot with "i915.stall_log=1 i915.stall_log_threshold_us=0" &
boot without ""
wait

python3 - "$dir/with.log" "$dir/without.log" >> "$res" <<'EOF'
import re, sys

def parse(path):
    text = open(path, errors='replace').read()
    lines = [re.sub(r'^\[\s*[0-9.]+\]\s*', '', l) for l in text.split('\n')]
    started = 'i915: Performing mock selftests' in text
    subtests, failed = [], set()
    for l in lines:
        m = re.match(r'i915: Running (\S+)/(\S+)$', l)
        if m:
            subtests.append(m.group(1) + '/' + m.group(2))
        m = re.match(r'i915/(\S+): (\S+) failed with error (-?\d+)', l)
        if m:
            failed.add('%s/%s (error %s)' % (m.group(1), m.group(2), m.group(3)))
    # reports: the first line of each, with the function it names
    reports = []
    for i, l in enumerate(lines):
        if re.match(r'(BUG: KASAN|WARNING: possible|WARNING: .*lock|BUG: |WARNING: CPU|'
                    r'======================================================$|'
                    r'Kernel panic - not syncing: (?!VFS))', l):
            head = l
            for k in lines[i + 1:i + 8]:
                if k.strip() and not k.startswith('----'):
                    head += ' / ' + k.strip()
                    break
            reports.append(re.sub(r'\b\d+\b', 'N', head)[:200])
    # per device: "stall log: N stalls recorded: SITE n ...; K kept: SITE n ..."
    # (by site as the i915_stall tracepoint counted them, then as kept)
    recorded, kept = {}, {}
    totals = [0, 0]
    untraced = []
    for l in lines:
        m = re.search(r'stall log: (\d+) stalls recorded:(.*); (\d+) kept:(.*)$', l)
        if m:
            totals[0] += int(m.group(1))
            totals[1] += int(m.group(3))
            traced = re.findall(r' (\w+) (\d+)', m.group(2))
            for site, n in traced:
                recorded[site] = recorded.get(site, 0) + int(n)
            for site, n in re.findall(r' (\w+) (\d+)', m.group(4)):
                kept[site] = kept.get(site, 0) + int(n)
            # each record made fired the tracepoint once
            if sum(int(n) for _, n in traced) != int(m.group(1)):
                untraced.append(l.strip())
    done = 'VFS: Unable to mount root' in text or 'Kernel panic' in text
    return started, done, subtests, failed, reports, recorded, totals, kept, untraced

w = parse(sys.argv[1])
wo = parse(sys.argv[2])

def res(ok, name, why=''):
    """A result line; the reason, on stderr, only for a check that failed."""
    print(('ok ' if ok else 'not ok ') + name)
    if why and not ok:
        print('#   ' + why, file=sys.stderr)

for tag, r in (('with', w), ('without', wo)):
    res(r[0] and r[1], 'selftests.%s-log-ran' % tag,
        'the boot did not run the selftests to the end')

ran_wo = set(wo[2])
for st in wo[2]:
    name = 'selftests.' + st
    if st not in w[2]:
        res(False, name, 'ran without the log, not with it')
        continue
    fw = sorted(f for f in w[3] if f.startswith(st + ' '))
    fwo = sorted(f for f in wo[3] if f.startswith(st + ' '))
    if fw and not fwo:
        res(False, name, 'fails with the log only: ' + ', '.join(fw))
    else:
        res(True, name)
        if fw:
            print('#   %s fails in the base kernel too: %s' % (st, ', '.join(fw)),
                  file=sys.stderr)
extra = [s for s in w[2] if s not in ran_wo]
res(not extra, 'selftests.same-subtests', 'with the log only: ' + ', '.join(extra))

base = set(wo[4])
new = [r for r in w[4] if r not in base]
for r in sorted(set(w[4]) & base):
    print('#   report of the base kernel, in both boots: ' + r, file=sys.stderr)
res(not new, 'selftests.no-new-reports', '; '.join(new))

rec = w[5]
print('#   the mock devices recorded %d stalls: %s; %d kept: %s' % (
    w[6][0], ', '.join('%s %d' % kv for kv in sorted(rec.items())) or 'none',
    w[6][1], ', '.join('%s %d' % kv for kv in sorted(w[7].items())) or 'none'),
    file=sys.stderr)
res(w[6][0] > 0 and not w[8], 'selftests.traced-every-record',
    'recorded %d; devices whose sites the tracepoint did not count in full: %s'
    % (w[6][0], '; '.join(w[8][:5])))
# the sites Intel's mock selftests reach (with a wait that sleeps); the
# others named, not checked: none of the mock tests sleeps in
# __i915_active_wait() or on an object's fences
for site in ('request_wait', 'fence_wait'):
    res(rec.get(site, 0) > 0, 'selftests.recorded-' + site,
        'no %s recorded by any mock device' % site)
unreached = [n for n in ('active_wait', 'object_fence_wait') if not rec.get(n)]
if unreached:
    print('#   sites the selftests do not reach: ' + ', '.join(unreached), file=sys.stderr)
res(not wo[5], 'selftests.without-log-records-nothing')
EOF
nok=$(grep -c '^not ok' "$res")
echo "selftests: $(grep -c '^ok' "$res") ok, $nok not ok (consoles in $dir)" >&2
[ "$nok" = 0 ] && [ -s "$res" ]
