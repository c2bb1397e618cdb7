#!/bin/bash
# SPDX-License-Identifier: MIT
# Tests of i915-stalls-bisect against a fake debugfs directory and a stub
# reader, on the host.
#   bisect_test.sh [RESULTS]
# One "ok NAME" / "not ok NAME" line per test on stdout (and appended to
# RESULTS if given); exit 1 if any failed.
#
# The fake dri/0 holds regular files.  The workload (work.sh below) logs
# what the control files hold when it runs, then empties i915_stalls_clear
# (so each run proves the helper wrote "1" again before it) and writes a
# payload naming its run into i915_stalls (so each capture proves it was
# read after that run).  The stub reader logs its arguments, checks that
# the captures it is given exist, and exits with $STUB_RC.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
BISECT=${BISECT:-$HERE/../i915-stalls-bisect}
RES=${1:-/dev/null}
W=$(mktemp -d /tmp/i915-bisect-test.XXXXXX)
trap 'rm -rf "$W"' EXIT
npass=0 nfail=0

t() {
	local name=$1 rc
	shift
	( set -e; "$@" ) > "$W/why" 2>&1
	rc=$?
	if [ $rc = 0 ]; then
		echo "ok $name" | tee -a "$RES"
		npass=$((npass + 1))
	else
		echo "not ok $name" | tee -a "$RES"
		sed 's/^/#   /' "$W/why" | tail -20
		nfail=$((nfail + 1))
	fi
}

# A fresh fake dri directory with N devices; the log disabled, 1000 us.
fake() {
	rm -rf "$W/dri" "$W/log" "$W/stub.log"
	local n
	for n in $(seq 0 $((${1:-1} - 1))); do
		mkdir -p "$W/dri/$n"
		echo 0 > "$W/dri/$n/i915_stalls_enable"
		echo 1000 > "$W/dri/$n/i915_stalls_threshold_us"
		: > "$W/dri/$n/i915_stalls_clear"
		echo "stale log" > "$W/dri/$n/i915_stalls"
	done
}

cat > "$W/work.sh" <<'EOF'
#!/bin/bash
D=$FAKE_D
echo "run $I915_STALLS_RUN enable=$(cat "$D/i915_stalls_enable") clear=$(cat "$D/i915_stalls_clear") threshold=$(cat "$D/i915_stalls_threshold_us") args=$*" >> "$WORKLOG"
: > "$D/i915_stalls_clear"
echo "capture of run $I915_STALLS_RUN" > "$D/i915_stalls"
[ "${FAIL_AT:-x}" != "$I915_STALLS_RUN" ] || exit 3
EOF
cat > "$W/stub" <<'EOF'
#!/bin/bash
echo "$*" >> "$STUB_LOG"
for f in "$@"; do
	case $f in */capture-*.bin | */ref/*) [ -s "$f" ] || echo "missing $f" >> "$STUB_LOG" ;; esac
done
exit "${STUB_RC:-0}"
EOF
chmod +x "$W/work.sh" "$W/stub"
mkdir -p "$W/ref"
for k in 1 2 3; do echo "reference $k" > "$W/ref/capture-$k.bin"; done
export WORKLOG=$W/log STUB_LOG=$W/stub.log FAKE_D=$W/dri/0 I915_STALLS_DEBUGFS=$W/dri
unset I915_STALLS

# bis WANT_RC ARGS...: run the helper, stderr in $W/err
bis() {
	local want=$1 rc=0
	shift
	"${BISECT}" "$@" 2> "$W/err" || rc=$?
	if [ "$rc" != "$want" ]; then
		echo "exit status $rc, want $want; stderr:"
		cat "$W/err"
		return 1
	fi
}

expect_file() {	# FILE CONTENT
	local got
	got=$(cat "$1")
	[ "$got" = "$2" ] || { echo "$1: \"$got\", want \"$2\""; return 1; }
}

expect_log() {	# the workload's log, line by line
	local want
	want=$(printf '%s\n' "$@")
	[ "$(cat "$WORKLOG" 2> /dev/null)" = "$want" ] ||
		{ echo "workload log:"; cat "$WORKLOG"; echo "want:"; echo "$want"; return 1; }
}

# ------------------------------------------------------------------ tests

t_capture_sequence() {
	fake
	bis 0 capture -o "$W/out" -n 3 -w 1 -t 500 -- "$W/work.sh" a b
	expect_log "run 0 enable=1 clear=1 threshold=500 args=a b" \
		   "run 1 enable=1 clear=1 threshold=500 args=a b" \
		   "run 2 enable=1 clear=1 threshold=500 args=a b" \
		   "run 3 enable=1 clear=1 threshold=500 args=a b"
	expect_file "$W/out/capture-1.bin" "capture of run 1"
	expect_file "$W/out/capture-2.bin" "capture of run 2"
	expect_file "$W/out/capture-3.bin" "capture of run 3"
	[ "$(ls "$W/out")" = "$(printf 'capture-1.bin\ncapture-2.bin\ncapture-3.bin')" ]
	# put back as they were: disabled, 1000 us
	expect_file "$W/dri/0/i915_stalls_enable" 0
	expect_file "$W/dri/0/i915_stalls_threshold_us" 1000
	[ ! -e "$W/stub.log" ]
}
t bisect_capture_sequence t_capture_sequence

t_enabled_stays() {
	fake
	echo 1 > "$W/dri/0/i915_stalls_enable"
	bis 0 capture -o "$W/out" -n 1 -- "$W/work.sh"
	expect_log "run 1 enable=1 clear=1 threshold=1000 args="
	expect_file "$W/dri/0/i915_stalls_enable" 1
}
t bisect_enabled_log_left_enabled t_enabled_stays

# run: the verdict of the stub reader is the exit status
t_verdict() {
	local rc
	for rc in 0 1 125; do
		fake
		STUB_RC=$rc bis $rc run --ref "$W/ref" -n 2 --reader "$W/stub" -o "$W/new" \
			-D --comm=vkcube -D --alpha=0.01 -- "$W/work.sh"
		expect_file "$W/stub.log" "diff --comm=vkcube --alpha=0.01 $W/ref/capture-1.bin \
$W/ref/capture-2.bin $W/ref/capture-3.bin -- $W/new/capture-1.bin $W/new/capture-2.bin"
		expect_log "run 1 enable=1 clear=1 threshold=1000 args=" \
			   "run 2 enable=1 clear=1 threshold=1000 args="
		expect_file "$W/dri/0/i915_stalls_enable" 0
	done
}
t bisect_run_verdict_0_1_125 t_verdict

t_reader_error() {
	local rc
	for rc in 2 64 128 139; do
		fake
		STUB_RC=$rc bis 128 run --ref "$W/ref" -n 1 --reader "$W/stub" -- "$W/work.sh"
		grep -q "i915-stalls diff exited with status $rc: abort" "$W/err"
	done
}
t bisect_reader_error_aborts t_reader_error

t_tempdir() {
	fake
	STUB_RC=0 bis 0 run --ref "$W/ref" -n 2 --reader "$W/stub" -- "$W/work.sh"
	# the stub saw both captures (it logs "missing" otherwise) in a directory now gone
	if grep -q missing "$W/stub.log"; then exit 1; fi
	local new
	new=$(sed 's/.* -- //; s/ .*//' "$W/stub.log")
	case $new in */i915-stalls-bisect.*/capture-1.bin) ;; *) echo "capture $new"; exit 1 ;; esac
	[ ! -e "$(dirname "$new")" ]
}
t bisect_run_temporary_captures_removed t_tempdir

t_reader_default() {
	fake
	mkdir -p "$W/bin" "$W/alone" "$W/pair"
	cp "$W/stub" "$W/bin/i915-stalls"
	STUB_RC=1 I915_STALLS=$W/bin/i915-stalls bis 1 run --ref "$W/ref" -n 1 -- "$W/work.sh"
	# a copy of the helper with no reader beside it takes the one in PATH
	cp "$BISECT" "$W/alone/i915-stalls-bisect"
	fake
	STUB_RC=125 PATH=$W/bin:$PATH BISECT=$W/alone/i915-stalls-bisect \
		bis 125 run --ref "$W/ref" -n 1 -- "$W/work.sh"
	grep -q "^diff " "$W/stub.log"
	# and one beside it before PATH
	cp "$BISECT" "$W/pair/i915-stalls-bisect"
	# shellcheck disable=SC2016  # expanded by the stub
	printf '#!/bin/sh\necho beside >> "$STUB_LOG"; exit 1\n' > "$W/pair/i915-stalls"
	chmod +x "$W/pair/i915-stalls"
	fake
	PATH=$W/bin:$PATH BISECT=$W/pair/i915-stalls-bisect bis 1 run --ref "$W/ref" -n 1 -- "$W/work.sh"
	expect_file "$W/stub.log" beside
}
t bisect_reader_from_env_and_path t_reader_default

t_workload_fails() {
	fake
	FAIL_AT=2 bis 125 run --ref "$W/ref" -n 3 --reader "$W/stub" -- "$W/work.sh"
	grep -q "run 2: .*work.sh exited with status 3: skip" "$W/err"
	[ ! -e "$W/stub.log" ]	# no verdict asked for
	expect_log "run 1 enable=1 clear=1 threshold=1000 args=" \
		   "run 2 enable=1 clear=1 threshold=1000 args="
	expect_file "$W/dri/0/i915_stalls_enable" 0
	fake
	FAIL_AT=1 bis 1 run --ref "$W/ref" -n 3 --fail=bad --reader "$W/stub" -- "$W/work.sh"
	fake
	FAIL_AT=0 bis 125 capture -o "$W/out" -w 1 -n 3 -- "$W/work.sh"	# a warm-up run too
}
t bisect_workload_failure_skips t_workload_fails

# a control file that refuses the write (as the kernel's EINVAL would)
t_ctl_refused() {
	fake
	rm "$W/dri/0/i915_stalls_clear"
	mkdir "$W/dri/0/i915_stalls_clear"
	bis 128 run --ref "$W/ref" -n 2 --reader "$W/stub" -- "$W/work.sh"
	grep -q "writing 1 to $W/dri/0/i915_stalls_clear failed" "$W/err"
	[ ! -e "$WORKLOG" ] && [ ! -e "$W/stub.log" ]
	expect_file "$W/dri/0/i915_stalls_enable" 0	# put back all the same
	fake
	rm "$W/dri/0/i915_stalls_threshold_us"
	mkdir "$W/dri/0/i915_stalls_threshold_us"
	bis 128 capture -o "$W/out" -t 100 -- "$W/work.sh"
}
t bisect_control_write_refused_aborts t_ctl_refused

t_devices() {
	fake 2
	bis 128 capture -o "$W/out" -n 1 -- "$W/work.sh"
	grep -q "2 devices have a stall log: choose one with -d N" "$W/err"
	FAKE_D=$W/dri/1 bis 0 capture -o "$W/out" -n 1 -d 1 -- "$W/work.sh"
	expect_file "$W/out/capture-1.bin" "capture of run 1"
	expect_file "$W/dri/0/i915_stalls" "stale log"
	fake
	bis 128 capture -o "$W/out" -d 7 -- "$W/work.sh"
	grep -q "dri/7/i915_stalls: no such file" "$W/err"
	I915_STALLS_DEBUGFS=$W/nothing bis 128 capture -o "$W/out" -- "$W/work.sh"
	grep -q "no $W/nothing/\*/i915_stalls" "$W/err"
	# --debugfs wins over the environment
	I915_STALLS_DEBUGFS=$W/nothing bis 0 capture --debugfs "$W/dri" -o "$W/out" -n 1 -- "$W/work.sh"
}
t bisect_device_selection t_devices

t_usage() {
	fake
	bis 128 run -n 2 --reader "$W/stub" -- "$W/work.sh"		# no --ref
	bis 128 run --ref "$W/nothing" --reader "$W/stub" -- "$W/work.sh"
	mkdir -p "$W/empty"
	bis 128 run --ref "$W/empty" --reader "$W/stub" -- "$W/work.sh"
	bis 128 capture -n 2 -- "$W/work.sh"			# no -o
	bis 128 capture -o "$W/out" -n 0 -- "$W/work.sh"
	bis 128 capture -o "$W/out" -n x -- "$W/work.sh"
	bis 128 capture -o "$W/out" -t -5 -- "$W/work.sh"
	bis 128 capture -o "$W/out" --fail=maybe -- "$W/work.sh"
	bis 128 capture -o "$W/out" --bogus -- "$W/work.sh"
	bis 128 capture -o "$W/out"					# no workload
	bis 128 bogus
	bis 0 --help
	[ ! -e "$WORKLOG" ]
}
t bisect_usage_errors_abort t_usage

echo "$npass passed, $nfail failed"
[ "$nfail" = 0 ]
