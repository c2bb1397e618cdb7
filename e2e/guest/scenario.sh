# SPDX-License-Identifier: MIT
#
# The guest's scenarios, sourced by /init (busybox sh).  Each run_MODE
# writes its files into $out, which /init ships to the host:
#
#   run_test   every scenario scripts/e2e.sh checks (see there)
#   run_demo   one client for `make demo`
#   run_smoke  mounts and the transport only (any kernel)
#   run_bench  the kernel figures of `make bench`
#   run_module i915.ko loaded by hand (scripts/e2e-module.sh)
#   run_sections  figure 2d and 2e's sections on one vCPU (`make bench`)
#   run_waits  mock waits and submissions with no log enabled, on a kernel
#              with the stall log compiled in or out (`make bench`, figures
#              1, 1b and the disabled hook of 2e)
#
# Clients are gpu-demo processes (see e2e/client/gpu-demo.c) that report
# what they did as JSON lines in $out/client-TAG.jsonl, then stay alive
# until /tmp/release exists, so that `i915-stalls record` sees their maps.
# vkapp (e2e/client/vkapp.c), the Vulkan-shaped client, does the same, its
# waits DRM syncobj waits through libdrm on the mock GPU's render node.

D=
demo_pids=
out=${out:-/tmp/out}

log() { echo "e2e-guest: $*"; }

find_dir() {
	for f in /sys/kernel/debug/dri/*/i915_stalls; do
		if [ -e "$f" ]; then
			D=${f%/i915_stalls}
			return 0
		fi
	done
	log "no /sys/kernel/debug/dri/*/i915_stalls: this kernel has no stall log"
	ls -l /sys/kernel/debug/dri/* 2>&1
	return 1
}

ctl() { # FILE VALUE: a good write, checked
	if ! echo "$2" > "$D/$1"; then
		log "echo $2 > $D/$1 failed"
		return 1
	fi
}

state() { # LABEL: the control files' values, one line
	echo "$1 enable=$(cat "$D/i915_stalls_enable") threshold_us=$(cat "$D/i915_stalls_threshold_us") slots=$(cat "$D/i915_stalls_slots")" >> "$out/states.txt"
}

start_client() { # TAG ARGS...: start a held gpu-demo, wait until its frames are done
	start_prog gpu-demo "$@"
}

start_vkapp() { # TAG ARGS...: the same with vkapp
	start_prog vkapp "$@"
}

start_prog() { # PROG TAG ARGS...
	prog=$1
	tag=$2
	shift 2
	"$prog" --tag "$tag" --ready "/tmp/ready.$tag" --hold /tmp/release "$@" \
		> "$out/client-$tag.jsonl" 2> "$out/client-$tag.err" &
	pid=$!
	echo "$tag $pid" >> "$out/pids.txt"
	demo_pids="$demo_pids $pid"
	n=0
	while [ ! -e "/tmp/ready.$tag" ]; do
		if ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid"
			log "client $tag exited ($?) before its frames were done:"
			cat "$out/client-$tag.err"
			return 1
		fi
		n=$((n + 1))
		if [ $n -gt 1200 ]; then
			log "client $tag: frames not done after 60 s"
			return 1
		fi
		usleep 50000
	done
	log "client $tag (pid $pid) done: $*"
}

release_clients() {
	touch /tmp/release
	for p in $demo_pids; do
		wait "$p"
		echo "$p $?" >> "$out/exit-status.txt"
	done
	demo_pids=
}

run_smoke() {
	ls -l /sys/kernel/debug/dri/ > "$out/dri.txt" 2>&1
	find_dir || true
	# the guest's dynamic binaries run: the client against a plain file
	: > /tmp/fake-ctl
	gpu-demo --ctl /tmp/fake-ctl --tag smoke --frames 3 --worker 4 > "$out/client-smoke.jsonl" || return 1
	# vkapp's libraries load (libvkloader, libvkdrv, libdrm): no device here
	vkapp --render /nonexistent --mock /nonexistent > /dev/null 2> "$out/vkapp-smoke.err"
	echo $? > "$out/vkapp-smoke.rc"
	grep -q '^vkdrv: /nonexistent: No such file or directory$' "$out/vkapp-smoke.err" || return 1
	i915-stalls --version > "$out/reader-version.txt" || return 1
	echo smoke > "$out/smoke.txt"
	return 0
}

bad_write() { # FILE VALUE: a write that must fail with EINVAL
	gpu-demo write "$D/$1" "$2" >> "$out/bad-writes.jsonl"
}

run_test() {
	find_dir || return 1
	echo "$D" > "$out/dir.txt"
	ls -l /sys/kernel/debug/dri/ > "$out/dri.txt"
	ls -l "$D"/ > "$out/ls-dir.txt"
	for f in i915_stalls i915_stalls_enable i915_stalls_threshold_us i915_stalls_slots \
		 i915_stalls_clear i915_stalls_mock_wait; do
		echo "$f $(stat -c %a "$D/$f" 2>/dev/null || echo missing)"
	done > "$out/modes.txt"
	state boot

	# 1. a client whose stalls stay in the log through the bad writes below
	ctl i915_stalls_enable 1 || return 1
	start_client early --frames 35 --worker 45 || return 1

	# 2. bad control-file writes: EINVAL, and nothing changes: not the
	#    values, not the records (no clear, no resize, no new stall)
	state before-bad
	cat "$D/i915_stalls" > "$out/before-bad.bin"
	for v in 2 abc -1; do bad_write i915_stalls_enable "$v"; done
	for v in abc -5 12x; do bad_write i915_stalls_threshold_us "$v"; done
	for v in 17 8 32768 0 abc; do bad_write i915_stalls_slots "$v"; done
	for v in abc x; do bad_write i915_stalls_clear "$v"; done
	for v in abc -1 5x; do bad_write i915_stalls_mock_wait "$v"; done
	state after-bad
	cat "$D/i915_stalls" > "$out/after-bad.bin"

	# 3. `i915-stalls record`, straight from debugfs, saves the early
	#    client's maps; the client is gone before the archive is read
	i915-stalls record --no-kallsyms -o "$out/early.ar" "$D/i915_stalls" \
		2> "$out/early-record.err"
	echo $? > "$out/early-record.rc"
	release_clients
	rm -f /tmp/release
	pid=$(awk '$1 == "early" { print $2 }' "$out/pids.txt")
	if [ -d "/proc/$pid" ]; then echo "alive $pid"; else echo "gone $pid"; fi > "$out/early-gone.txt"
	i915-stalls report --format=json --offline "$out/early.ar" \
		> "$out/early-guest.json" 2> "$out/early-guest.err"
	echo $? > "$out/early-guest.rc"

	# 4. clear: the next snapshot is empty
	ctl i915_stalls_clear 1 || return 1
	cat "$D/i915_stalls" > "$out/after-clear.bin"

	# 5. the main client: 3 frames in main, 2 in the gpu-worker thread
	start_client main --frames 20,40,60 --worker 30,50 || return 1

	# 6. log disabled: nothing recorded
	ctl i915_stalls_enable 0 || return 1
	state disabled
	start_client disabled --frames 25 --worker 26 || return 1
	ctl i915_stalls_enable 1 || return 1
	state reenabled

	# 7. threshold 100 ms: the 5 and 6 ms stalls are dropped, 150 and 160 kept
	ctl i915_stalls_threshold_us 100000 || return 1
	state threshold
	start_client threshold --frames 5,150 --worker 6,160 || return 1
	ctl i915_stalls_threshold_us 1000 || return 1
	state end

	# 8. what a user does: cat the file, then record and report it
	cat "$D/i915_stalls" > "$out/stalls.bin" || return 1
	i915-stalls record --no-kallsyms -o "$out/all.ar" "$out/stalls.bin" \
		2> "$out/all-record.err"
	echo $? > "$out/all-record.rc"
	i915-stalls report "$out/stalls.bin" > "$out/guest-report.txt" 2> "$out/guest-report.err"
	echo $? > "$out/guest-report.rc"
	# and with no input named: every /sys/kernel/debug/dri/*/i915_stalls
	i915-stalls report --format=json > "$out/default-input.json" 2> "$out/default-input.err"
	echo $? > "$out/default-input.rc"
	release_clients

	# 9. a 32-bit client: its user stack walked as 32-bit frames
	ctl i915_stalls_clear 1 || return 1
	gpu-demo32 40 > "$out/client32.jsonl" 2> "$out/client32.err"
	echo $? > "$out/client32.rc"
	cat "$D/i915_stalls" > "$out/stalls32.bin" || return 1

	# 10. the Vulkan-shaped client: syncobj waits through libdrm on the
	#     mock GPU's render node (devtmpfs made /dev/dri/renderD*)
	#     The tracepoints traced meanwhile (issue 23): drm_syncobj's
	#     begin and end of each wait, i915:i915_stall of each record, on
	#     CLOCK_MONOTONIC as the log's start_ns; then the same client with
	#     the log disabled, traced the same way
	ls -l /dev/dri/ > "$out/dev-dri.txt" 2>&1
	ctl i915_stalls_clear 1 || return 1
	rm -f /tmp/release
	trace_on > "$out/trace-setup.txt" 2>&1
	perf_on
	start_vkapp vk || return 1
	cat "$D/i915_stalls" > "$out/stalls-vk.bin" || return 1
	trace_take "$out/trace-vk.txt"
	perf_take vk
	i915-stalls record --no-kallsyms -o "$out/vk.ar" "$out/stalls-vk.bin" \
		2> "$out/vk-record.err"
	echo $? > "$out/vk-record.rc"
	release_clients
	rm -f /tmp/release
	ctl i915_stalls_clear 1 && ctl i915_stalls_enable 0 || return 1
	trace_on >> "$out/trace-setup.txt" 2>&1
	start_vkapp vkoff || return 1
	trace_take "$out/trace-vk-off.txt"
	cat "$D/i915_stalls" > "$out/stalls-vk-off.bin" || return 1
	release_clients
	trace_off
	ctl i915_stalls_enable 1 || return 1

	# 11. stallpie (issue 12): waits through glibc's real write() and
	#     ioctl() from a PIE with two libraries, built with and without
	#     frame pointers; every client has exited before the cat.  The swap
	#     copy's libstallio.so is replaced on disk (same path, another
	#     build-id) between its stall and the cat.
	ctl i915_stalls_clear 1 || return 1
	cat "$D/i915_stalls_ustack_bytes" > "$out/ustack-bytes.txt" 2>&1
	for v in fp nofp swap; do
		case $v in
		fp) ops="write:30 ioctl:40 anon:20" ;;
		nofp) ops="write:30 ioctl:40" ;;
		swap) ops="write:25" ;;
		esac
		# shellcheck disable=SC2086
		/opt/stallpie-$v/stallpie --dir "$D" --tag "pie-$v" $ops \
			> "$out/client-pie-$v.jsonl" 2> "$out/client-pie-$v.err"
		echo $? > "$out/client-pie-$v.rc"
	done
	mv -f /opt/stallpie-swap/libstallio-v2.so /opt/stallpie-swap/libstallio.so
	for v in fp nofp swap; do
		pid=$(sed -n 's/^{"event":"start".*"pid":\([0-9]*\).*/\1/p' "$out/client-pie-$v.jsonl")
		if [ -n "$pid" ] && [ ! -d "/proc/$pid" ]; then echo "pie-$v gone $pid"; else echo "pie-$v alive $pid"; fi
	done > "$out/pie-gone.txt"
	cat "$D/i915_stalls" > "$out/stalls-pie.bin" || return 1
	i915-stalls report --format=json "$out/stalls-pie.bin" > "$out/pie-guest.json" 2> "$out/pie-guest.err"
	echo $? > "$out/pie-guest.rc"
	i915-stalls report "$out/stalls-pie.bin" > "$out/pie-guest.txt" 2>> "$out/pie-guest.err"

	# 12. who submitted the work a stall waited for (issue 24): wlsync's
	#     compositor waits on its client's fences, passed over a Unix
	#     socket, while a busy client's work is queued ahead of the first;
	#     all three have exited before the cat
	ctl i915_stalls_clear 1 || return 1
	wlsync > "$out/wlsync.jsonl" 2> "$out/wlsync.err"
	echo $? > "$out/wlsync.rc"
	cat "$D/i915_stalls" > "$out/stalls-wl.bin" || return 1
	i915-stalls report --format=json "$out/stalls-wl.bin" > "$out/wl-guest.json" 2> "$out/wl-guest.err"
	echo $? > "$out/wl-guest.rc"
	i915-stalls report "$out/stalls-wl.bin" > "$out/wl-guest.txt" 2>> "$out/wl-guest.err"
	return 0
}

# capture TAG BIN AR CLIENT_ARGS...: run a held client, cat the stall file
# into $out/BIN, record it with the client's maps into $out/AR, release it
capture() {
	local t=$1 bin=$2 ar=$3
	shift 3
	start_client "$t" "$@" || return 1
	cat "$D/i915_stalls" > "$out/$bin" || return 1
	i915-stalls record --no-kallsyms -o "$out/$ar" "$out/$bin" 2> "$out/$t-record.err"
	echo $? > "$out/$t-record.rc"
	release_clients
}

run_demo() {
	find_dir || return 1
	ctl i915_stalls_enable 1 || return 1
	# both clients in one log: gpu-demo's waits, then vkapp's syncobj waits
	start_client demo --frames 16,33,16,50 --worker 8,66 || return 1
	start_vkapp vkdemo || return 1
	cat "$D/i915_stalls" > "$out/stalls.bin" || return 1
	i915-stalls record --no-kallsyms -o "$out/demo.ar" "$out/stalls.bin" 2> "$out/demo-record.err"
	echo $? > "$out/demo-record.rc"
	release_clients
}

# The tracepoints issue 23 adds, on an empty trace buffer whose clock is
# the log's (CLOCK_MONOTONIC); trace_take FILE saves what they gave.
TR=/sys/kernel/debug/tracing
trace_on() {
	[ -d $TR/events ] || mount -t tracefs nodev $TR
	echo 0 > $TR/tracing_on &&
	echo mono > $TR/trace_clock &&
	echo 1 > $TR/events/drm/drm_syncobj_wait_begin/enable &&
	echo 1 > $TR/events/drm/drm_syncobj_wait_end/enable &&
	echo 1 > $TR/events/i915/i915_stall/enable &&
	echo > $TR/trace &&
	echo 1 > $TR/tracing_on
}
trace_take() {
	echo 0 > $TR/tracing_on
	cat $TR/trace > "$1"
}

# Debian's perf beside tracefs: the same tracepoints, system-wide, on
# CLOCK_MONOTONIC; started disabled and enabled through its control fifo,
# so that it records from the moment it acknowledges, not after a delay.
perf_pid=
perf_on() {
	rm -f /tmp/perf.data /tmp/perf-ctl /tmp/perf-ack
	mkfifo /tmp/perf-ctl /tmp/perf-ack
	perf record -a -k mono -D -1 --control fifo:/tmp/perf-ctl,/tmp/perf-ack \
		-e i915:i915_stall -e drm:drm_syncobj_wait_begin -e drm:drm_syncobj_wait_end \
		-o /tmp/perf.data > "$out/perf-record.out" 2>&1 &
	perf_pid=$!
	echo enable > /tmp/perf-ctl
	read -r ack < /tmp/perf-ack
	echo "perf: $ack" >> "$out/perf-record.out"
}
perf_take() { # TAG
	kill -INT "$perf_pid"
	wait "$perf_pid"
	echo $? > "$out/perf-$1.rc"
	perf script -i /tmp/perf.data -F comm,tid,time,event,trace > "$out/perf-$1.txt" \
		2> "$out/perf-$1.err"
	[ -s "$out/perf-$1.txt" ] || echo 1 > "$out/perf-$1.rc"
}
trace_off() {
	echo 0 > $TR/tracing_on
	for e in drm/drm_syncobj_wait_begin drm/drm_syncobj_wait_end \
		 i915/i915_stall; do
		echo 0 > $TR/events/$e/enable
	done
	echo > $TR/trace
}

# run_bench: what `make bench` measures in the guest (see scripts/bench.sh),
# as JSON lines in $out/bench.jsonl, each tagged with what it measured.
run_bench() {
	local b=/opt/gpu-demo/stall-bench j=$out/bench.jsonl T=/sys/kernel/debug/tracing i c
	tag() { sed "s/^{/{\"tag\":\"$1\",/" >> "$j"; }
	find_dir || return 1
	[ -d $T/events/i915 ] || mount -t tracefs nodev $T 2>/dev/null
	ctl i915_stalls_slots 256 || return 1

	# 1. the wait-site hooks with no log enabled, against an empty loop
	ctl i915_stalls_enable 0 || return 1
	for i in 1 2 3; do
		$b kernel "$D" empty 2000000 0 0 0 | tag empty || return 1
		$b kernel "$D" hook 2000000 0 0 0 | tag hook || return 1
	done

	# 2. one record with 32 kernel and 32 user frames, against the bare
	#    stack_trace_save() + stack_trace_save_user() of the same depth, and
	# 3. one i915_request_wait_end event with ftrace's stacktrace trigger
	#    and userstacktrace, from the same stacks; interleaved, since TCG
	#    is noisy.  Neither mode fires the other's hook.
	ctl i915_stalls_threshold_us 0 && ctl i915_stalls_enable 1 || return 1
	echo 1 > $T/options/userstacktrace &&
	echo stacktrace > $T/events/i915/i915_request_wait_end/trigger &&
	echo 1 > $T/events/i915/i915_request_wait_end/enable || { log "no ftrace"; return 1; }
	for i in 1 2 3 4 5; do
		$b kernel "$D" unwind 20000 26 40 0 | tag unwind || return 1
		$b kernel "$D" record 20000 26 40 0 | tag record || return 1
		$b kernel "$D" trace 20000 26 40 0 | tag trace-on || return 1
	done
	echo 0 > $T/events/i915/i915_request_wait_end/enable

	# 2b. the record with each size of user stack snapshot, against the
	#     bare unwinds; then from a stack whose frames are all in the
	#     executable (one mapping to name instead of four): what naming
	#     three more mappings costs
	for i in 1 2 3; do
		for c in 0 512 1024 2048 4096 8192 16384; do
			ctl i915_stalls_ustack_bytes $c || return 1
			$b kernel "$D" record 20000 26 40 0 | tag "record-u$c" || return 1
		done
		$b kernel "$D" unwind 20000 26 40 0 | tag unwind-2b || return 1
		ctl i915_stalls_ustack_bytes 0 || return 1
		STALL_BENCH_FLAT=1 $b kernel "$D" record 20000 26 40 0 | tag record-flat-u0 || return 1
		STALL_BENCH_FLAT=1 $b kernel "$D" unwind 20000 26 40 0 | tag unwind-flat || return 1
	done
	# 2c. the first record after the mappings changed, at the default
	#     snapshot: the CPU's cache of the address space does not hold;
	#     and the mmap_lock round trip that makes it so, to subtract
	ctl i915_stalls_ustack_bytes 2048 || return 1
	for i in 1 2 3; do
		$b kernel "$D" record-new 20000 26 40 0 | tag record-new || return 1
		$b kernel "$D" relock 20000 26 40 0 | tag relock || return 1
	done
	ctl i915_stalls_clear 1
	$b kernel "$D" record 1 26 40 0 | tag record-one || return 1
	cat "$D/i915_stalls" > "$out/bench-record-one.bin"
	echo '!stacktrace' > $T/events/i915/i915_request_wait_end/trigger
	echo 0 > $T/options/userstacktrace
	head -c 20000 $T/trace > "$out/ftrace-sample.txt"
	echo > $T/trace
	for i in 1 2 3; do
		$b kernel "$D" trace 20000 26 40 0 | tag trace-off || return 1
	done
	cat "$D/i915_stalls" > "$out/bench-records.bin"

	# 4. snapshots of full rings while writers on the other CPUs keep
	#    recording, and the writers' own rate with and without them
	ctl i915_stalls_clear 1
	for c in 1 2 3; do $b kernel "$D" record 100000 0 0 $c | tag writer-alone & done
	wait
	for c in 1 2 3; do $b kernel "$D" record 100000 0 0 $c | tag writer-snapped & done
	$b snap "$D" 200 | tag snap-busy
	wait
	$b snap "$D" 50 | tag snap-quiet

	# 5. a client's stalls, recorded with its maps for the reader benchmark
	ctl i915_stalls_clear 1
	ctl i915_stalls_threshold_us 1000
	capture bench client-stalls.bin client.ar --frames 5,5,5,5 --worker 5,5 || return 1

	# After the reader's input was made, so that none of it changes that:
	# the figures of issues 22, 23 and 24, on the format 1.3/1.4 record path.
	ctl i915_stalls_clear 1 && ctl i915_stalls_threshold_us 0 || return 1

	# 2d (issue 22). A record on a client shaped like a GPU client: more
	#     than 2,000 mappings (STALL_BENCH_MAPS, in stall-bench.c), and 16
	#     KiB of written stack above its 40 frames, so that the default
	#     8 KiB stack snapshot is full; record-remap maps and unmaps a 1 MiB
	#     buffer before each record, so that each record asks for the
	#     version of its mappings, less remap alone; against the bare
	#     unwinds from the same stacks.  And the sections the record path
	#     runs with preemption disabled, timed from inside
	#     (STALL_BENCH_SECTIONS=1): their mean and the longest.
	ctl i915_stalls_ustack_bytes 8192 && ctl i915_stalls_enable 1 || return 1
	for i in 1 2 3; do
		gpu_client unwind | tag unwind-2d || return 1
		gpu_client record | tag record-2d || return 1
		gpu_client record-remap | tag record-remap || return 1
		gpu_client remap | tag remap || return 1
		STALL_BENCH_SECTIONS=1 gpu_client record-remap | tag section-remap || return 1
	done
	ctl i915_stalls_clear 1

	# 2e (issue 24). Submit records: a whole submission of a mock request
	#     from a 40-frame user stack, with the log disabled and enabled,
	#     against the bare walk of the user stack a submit record makes
	#     (uwalk), and the submit record alone; interleaved.  Then the
	#     submit record's preemption-disabled section, timed.
	for i in 1 2 3 4 5; do
		ctl i915_stalls_enable 0 || return 1
		$b kernel "$D" submit 10000 0 40 0 | tag submit-off || return 1
		ctl i915_stalls_enable 1 || return 1
		$b kernel "$D" submit 10000 0 40 0 | tag submit-on || return 1
		$b kernel "$D" uwalk 10000 0 40 0 | tag uwalk || return 1
		$b kernel "$D" submit-record 10000 0 40 0 | tag submit-record || return 1
	done
	STALL_BENCH_SECTIONS=1 $b kernel "$D" submit-record 10000 0 40 0 | tag section-submit || return 1
	ctl i915_stalls_clear 1

	# 1c (issue 23). Syncobj waits (as figure 1b's) with the log enabled,
	#     against the log disabled, on this device and on another one: a
	#     second mock device, with no log, made now
	#     (i915_stalls_mock_other); its syncobjs hold this device's fences.
	#     The threshold is above the waits: on this device the probes
	#     capture each wait and drop it at the threshold, nothing is
	#     recorded; on the other they find no log and return.
	local r1 r2
	for r1 in /dev/dri/renderD*; do
		[ -c "$r1" ] && break
	done
	[ -c "$r1" ] || { log "no render node"; return 1; }
	echo 1 > "$D/i915_stalls_mock_other" || { log "no second mock device"; return 1; }
	r2=/dev/dri/$(cat "$D/i915_stalls_mock_other")
	[ -c "$r2" ] && [ "$r2" != "$r1" ] || { log "second mock device: no render node $r2"; return 1; }
	echo "$r1 $r2" > "$out/render-nodes.txt"
	ctl i915_stalls_threshold_us 1000000 || return 1
	for i in 1 2 3; do
		ctl i915_stalls_enable 0 || return 1
		$b syncwaits "$D" "$r1" 300 1 1 | tag sync-off || return 1
		$b syncwaits "$D" "$r2" 300 1 1 | tag sync-other-off || return 1
		ctl i915_stalls_enable 1 || return 1
		$b syncwaits "$D" "$r1" 300 1 1 | tag sync-on || return 1
		$b syncwaits "$D" "$r2" 300 1 1 | tag sync-other-on || return 1
	done
	ctl i915_stalls_enable 0
	return 0
}

# stall-bench kernel MODE on a client shaped like a GPU client (figure 2d).
gpu_client() {
	STALL_BENCH_MAPS=1024 STALL_BENCH_PAD=16384 $b kernel "$D" "$1" 10000 26 40 0
}

# The same mock waits on a kernel with the stall log compiled in but
# disabled and on one without it: what the disabled hooks cost a wait; and
# the same for a submission (the submit hook).
run_waits() {
	local b=/opt/gpu-demo/stall-bench f i
	D=
	for f in /sys/kernel/debug/dri/*/i915_stalls_mock_wait; do
		[ -e "$f" ] && D=${f%/i915_stalls_mock_wait} && break
	done
	[ -n "$D" ] || { log "no dri/*/i915_stalls_mock_wait: no mock GPU"; return 1; }
	if [ -e "$D/i915_stalls_enable" ]; then
		echo "stall log compiled in" > "$out/kernel"
		[ "$(cat "$D/i915_stalls_enable")" = 0 ] || { log "the log is enabled"; return 1; }
	else
		echo "stall log compiled out" > "$out/kernel"
	fi
	for i in 1 2 3; do
		$b waits "$D" 300 1 1 >> "$out/waits.jsonl" || return 1
	done
	# The syncobj path, as Mesa waits (DRM core's hook, patch 10 on).
	local r
	for r in /dev/dri/renderD*; do
		[ -c "$r" ] && break
	done
	[ -c "$r" ] || { log "no render node"; return 1; }
	for i in 1 2 3; do
		$b syncwaits "$D" "$r" 300 1 1 >> "$out/syncwaits.jsonl" || return 1
	done
	# A submission of a mock request (figure 2e), no log enabled: the
	# submit hook in __i915_request_commit() compiled in or out.
	for i in 1 2 3; do
		$b kernel "$D" submit 10000 0 40 1 >> "$out/submits.jsonl" || return 1
	done
}

# i915 as a distribution builds it (scripts/e2e-module.sh): a kernel with
# DRM_I915=m, i915.ko and its dependencies in /lib/modules, loaded here by
# hand with busybox's modprobe.  The mock device comes up with the module;
# gpu-demo stalls on it, the log is read and recorded with the kernel's
# symbols (the module's among them), then i915 is unloaded: the log, its
# debugfs files and the mock device go away with it, cleanly.
run_module() {
	grep -c '^i915 ' /proc/modules > "$out/loaded-before.txt"
	# as the README says: the log on from the first wait
	modprobe i915 stall_log=1 > "$out/modprobe.err" 2>&1
	echo $? > "$out/modprobe.rc"
	grep '^i915 ' /proc/modules > "$out/modules.txt"
	cat /sys/module/i915/initstate > "$out/initstate.txt" 2>&1
	cat /sys/module/i915/parameters/stall_log > "$out/param.txt" 2>&1
	find_dir || return 1
	echo "$D" > "$out/dir.txt"
	state loaded
	start_client mod --frames 25,40 --worker 30 || return 1
	cat "$D/i915_stalls" > "$out/stalls-mod.bin" || return 1
	# with /proc/kallsyms: the module's symbols at their load addresses
	i915-stalls record -o "$out/mod.ar" "$out/stalls-mod.bin" 2> "$out/mod-record.err"
	echo $? > "$out/mod-record.rc"
	release_clients
	rmmod i915 > "$out/rmmod.err" 2>&1
	echo $? > "$out/rmmod.rc"
	grep -c '^i915 ' /proc/modules > "$out/loaded-after.txt"
	ls /sys/kernel/debug/dri/ > "$out/dri-after.txt" 2>&1
}

# The preemption-disabled sections of figure 2d and 2e again, on a guest
# with one vCPU (scripts/bench.sh boots it with -smp 1): under TCG with
# -icount the clock counts every vCPU's instructions, so on four vCPUs a
# section's time may include other vCPUs' work; on one it is its own
# work and the interrupts it took.  Beside them the bare unwinds.
run_sections() {
	local b=/opt/gpu-demo/stall-bench j=$out/bench.jsonl i
	tag() { sed "s/^{/{\"tag\":\"$1\",/" >> "$j"; }
	find_dir || return 1
	nproc > "$out/sections-cpus.txt"
	ctl i915_stalls_slots 256 && ctl i915_stalls_threshold_us 0 || return 1
	ctl i915_stalls_ustack_bytes 8192 && ctl i915_stalls_enable 1 || return 1
	for i in 1 2 3; do
		gpu_client unwind | tag unwind-2d || return 1
		STALL_BENCH_SECTIONS=1 gpu_client record-remap | tag section-remap || return 1
	done
	STALL_BENCH_SECTIONS=1 $b kernel "$D" submit-record 10000 0 40 0 | tag section-submit || return 1
}
