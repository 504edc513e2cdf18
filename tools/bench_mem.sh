#!/usr/bin/env bash
# Measures flamebpf's memory for 10 s at 99 Hz, system-wide and on one
# process without frame pointers (build/workloads/nofp/cpu_tree): the kernel
# memory of its BPF maps (memlock in /proc/PID/fdinfo, each map once, 8 s
# in), its RSS then, its peak RSS then (the capture's: the stacks are read
# at the end) and over the run, and its summary's "user stacks:" line.
# With BASE=/path/to/another/flamebpf, that one runs at the same time on the
# same load, for a before/after pair. Prints a Markdown table. Run from the
# repository root; needs root and build/flamebpf.
#
#   BASE=PATH   a second flamebpf measured beside build/flamebpf
#   SECS=N      seconds of each capture (default 10; measured at N - 2)
#   CLANG=1     clang-14 -O2 compiles some of src/ in a loop beside them, so
#               that libLLVM's unwind table (0.9M rows) is built in the capture
set -euo pipefail
set -m # each background job in its own process group, which cleanup ends

# shellcheck source=SCRIPTDIR/bench_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_lib.sh"
WORKLOAD=$ROOT/build/workloads/nofp/cpu_tree
SECS=${SECS:-10}

# One capture by $1 named $2 with the arguments after: a table row's cells.
measure() {
	local bin=$1 tag=$2 pid maps rss hwm peak stacks
	shift 2

	/usr/bin/time -f '%M' -o "$WORK/$tag.peak" "$bin" -F 99 -d "$SECS" "$@" \
		-o "$WORK/$tag.folded" 2>"$WORK/$tag.err" &
	sleep "$((SECS - 2))"
	pid=$(pgrep -n -f -- "-o $WORK/$tag.folded") || die "'$bin' ended early: $(tail -n 3 "$WORK/$tag.err")"
	maps=$(map_kib "$pid")
	rss=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$pid/status")
	hwm=$(awk '$1 == "VmHWM:" { print $2 }' "/proc/$pid/status")
	wait "$!" || die "'$bin' failed: $(tail -n 3 "$WORK/$tag.err")"
	peak=$(tail -n 1 "$WORK/$tag.peak")
	stacks=$(sed -n 's/^flamebpf: user stacks: //p' "$WORK/$tag.err")
	printf '%s | %.1f MiB | %.1f / %.1f / %.1f MiB | %s\n' "$tag" "$(bc -l <<<"$maps / 1024")" \
		"$(bc -l <<<"$rss / 1024")" "$(bc -l <<<"$hwm / 1024")" "$(bc -l <<<"$peak / 1024")" \
		"${stacks:-(none)}"
}

# The pair (or one) of captures with the arguments given.
row() {
	local what=$1 bpid
	shift

	if [[ -n ${BASE:-} ]]; then
		measure "$BASE" before "$@" >"$WORK/before.row" &
		bpid=$!
		measure "$FLAMEBPF" after "$@" >"$WORK/after.row"
		wait "$bpid"
		printf '| %s | %s |\n' "$what" "$(cat "$WORK/before.row")"
		printf '| %s | %s |\n' "$what" "$(cat "$WORK/after.row")"
	else
		printf '| %s | %s |\n' "$what" "$(measure "$FLAMEBPF" flamebpf "$@")"
	fi
}

# Compiles some of src/ with clang-14 -O2 until killed.
compile_loop() {
	while :; do
		for f in "$ROOT"/src/symbols/*.c; do
			clang-14 -O2 -c -I"$ROOT/src" -I"$ROOT/bpf" -I"$ROOT/build" "$f" -o /dev/null \
				2>/dev/null || true
		done
	done
}

main() {
	local wpid

	[[ $(id -u) == 0 ]] || die "needs root (BPF)"
	[[ -x $FLAMEBPF ]] || die "cannot run '$FLAMEBPF': build it first (make)"
	[[ -z ${BASE:-} || -x $BASE ]] || die "cannot run BASE '$BASE'"
	[[ -x $WORKLOAD ]] || die "cannot run '$WORKLOAD': make it first"
	[[ $SECS =~ ^[0-9]+$ && $SECS -ge 3 ]] || die "SECS must be an integer of 3 or more, not '$SECS'"
	[[ ${CLANG:-0} == 0 ]] || command -v clang-14 >/dev/null || die "CLANG=1 needs clang-14"
	set_traps
	WORK=$(mktemp -d)
	if [[ ${CLANG:-0} != 0 ]]; then
		start_job compile_loop
		sleep 1
	fi
	printf '| capture | build | BPF maps | RSS at %d s / peak then / peak | user stacks |\n' \
		"$((SECS - 2))"
	printf '| --- | --- | --- | --- | --- |\n'
	row "-a" -a
	"$WORKLOAD" "$((SECS + 4))" >/dev/null &
	wpid=$!
	row "-p cpu_tree" -p "$wpid"
	kill "$wpid" 2>/dev/null || true
	wait "$wpid" 2>/dev/null || true
}

main "$@"
