#!/usr/bin/env bash
# Benchmarks --off-cpu side by side in one run: what one block off the CPU
# costs when two threads ping-pong through pipes (tools/bench_switch.c), as
# fast as they can, untraced and under each profiler. Both threads are
# pinned to one CPU: each block is then a switch from one to the other,
# where on two CPUs it would be a wake-up from idle, which is slower in a
# VM than any profiler (the untraced run came out slowest). Appends a Markdown
# table to build/bench/results.md (every measurement goes to
# build/bench/raw_offcpu.tsv). Run by `make bench`, from the repository
# root; needs root, build/flamebpf and clang.
#
#   BENCH_RUNS=N   repetitions, medians reported (default 5)
#   BENCH_QUICK=1  smoke run: 1 repetition, short runs
#
# Peers: perf record -e sched:sched_switch -g (the classic way: Debian's
# perf 6.1 has no --off-cpu), which needs tracefs, mounted for the run when
# it is not; bcc's offcputime and offwaketime (bpfcc-tools), which need
# kprobes: where the kernel has none, their rows say why they did not run.
set -euo pipefail
set -m

# shellcheck source=SCRIPTDIR/bench_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_lib.sh"
RAW=$OUT/raw_offcpu.tsv

if [[ ${BENCH_QUICK:-0} == 1 ]]; then
	RUNS=${BENCH_RUNS:-1} SECS=0.5
else
	RUNS=${BENCH_RUNS:-5} SECS=2
fi
CONDS=(none fb fbfp fbwake fbwall perf bcc bccwake)
declare -A WHY=() # conditions that could not run: why
declare -A RSS=() # peak RSS of the profiler, KiB, per condition (median later)
declare -A MAPS=() # memory of the BPF maps the profiler holds, KiB, per condition
declare -A LOST=() # what the profiler said it lost, per condition (the last run's)
MOUNTED_TRACEFS=

label() {
	case $1 in
	none) echo "untraced" ;;
	fb) echo "flamebpf --off-cpu" ;;
	fbfp) echo "flamebpf --off-cpu --unwind fp" ;;
	fbwake) echo "flamebpf --wakers" ;;
	fbwall) echo "flamebpf --wall -F 99" ;;
	perf) echo "perf record -e sched:sched_switch -g" ;;
	bcc) echo "bcc offcputime -f" ;;
	bccwake) echo "bcc offwaketime -f" ;;
	esac
}

check_env() {
	check_basics "BPF programs"
	command -v clang >/dev/null || die "cannot find 'clang' (tools/deps.sh --all installs it)"
	command -v /usr/bin/time >/dev/null || die "cannot find /usr/bin/time (tools/deps.sh --bench)"
}

# perf needs tracefs to find the tracepoint: mounted for the run, unmounted after.
tracefs_up() {
	[[ -d /sys/kernel/tracing/events ]] && return 0
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || return 1
	MOUNTED_TRACEFS=1
}

tracefs_down() {
	[[ -z $MOUNTED_TRACEFS ]] || umount /sys/kernel/tracing 2>/dev/null || true
}

bcc_tool() { [[ $1 == bcc ]] && echo offcputime-bpfcc || echo offwaketime-bpfcc; }

# Halfway through run $1, the BPF maps of the newest process whose command
# line matches $2, into $WORK/$1.maps.
probe_maps() {
	local pid

	sleep "$(calc 's / 2 + 0.3' s="$SECS")"
	pid=$(pgrep -n -f -- "$2") || return 0
	map_kib "$pid" >"$WORK/$1.maps"
}

# One run of condition $1: adds its blocks per second (and its profiler's
# RSS and BPF maps).
once() {
	local cond=$1 out=$WORK/$1.out err=$WORK/$1.err rss=$WORK/$1.rss peer probe
	local tm=(/usr/bin/time -f %M -o "$rss")

	rm -f -- "$out" "$rss" "$WORK/$1.maps"
	case $cond in
	fb*) probe_maps "$cond" "^$FLAMEBPF " & probe=$! ;;
	bcc) probe_maps "$cond" offcputime & probe=$! ;;
	bccwake) probe_maps "$cond" offwaketime & probe=$! ;;
	esac
	case $cond in
	none) run_job "${PIN[@]}" "$BS" "$SECS" "$out" ;;
	fb) run_job "${tm[@]}" "$FLAMEBPF" --off-cpu -o "$WORK/fb.folded" -- "${PIN[@]}" "$BS" "$SECS" "$out" ;;
	fbfp)
		run_job "${tm[@]}" "$FLAMEBPF" --off-cpu --unwind fp -o "$WORK/fbfp.folded" -- \
			"${PIN[@]}" "$BS" "$SECS" "$out"
		;;
	fbwake)
		run_job "${tm[@]}" "$FLAMEBPF" --wakers -o "$WORK/fbwake.folded" -- \
			"${PIN[@]}" "$BS" "$SECS" "$out"
		;;
	fbwall)
		run_job "${tm[@]}" "$FLAMEBPF" --wall -F 99 -o "$WORK/fbwall.folded" -- \
			"${PIN[@]}" "$BS" "$SECS" "$out"
		;;
	perf)
		run_job "${tm[@]}" perf record -q -e sched:sched_switch -g -o "$WORK/perf.data" -- \
			"${PIN[@]}" "$BS" "$SECS" "$out"
		;;
	bcc | bccwake)
		start_job "${tm[@]}" "$(bcc_tool "$cond")" -f "$(calc 'int(s + 3)' s="$SECS")"
		peer=$!
		pause 2
		if kill -0 "$peer" 2>/dev/null; then
			run_job "${PIN[@]}" "$BS" "$SECS" "$out"
			end_job "$peer"
		else
			wait_job "$peer"
		fi
		;;
	esac 2>"$err" >/dev/null || true
	if [[ ! -s $out ]]; then
		WHY[$cond]=$(grep -v '^$' "$err" | tail -n 1 | cut -c1-160)
		WHY[$cond]=${WHY[$cond]:-no result}
		return
	fi
	add "$cond" "$(kv "$out" blocks_per_sec)"
	[[ ! -s $rss ]] || RSS[$cond]="${RSS[$cond]:-} $(cat "$rss")"
	[[ -z ${probe:-} ]] || wait "$probe" 2>/dev/null || true
	[[ ! -s $WORK/$cond.maps ]] || MAPS[$cond]="${MAPS[$cond]:-} $(cat "$WORK/$cond.maps")"
	LOST[$cond]=$(losses "$err")
}

# What a profiler's stderr says it lost: flamebpf's summary line, perf's
# warnings.
losses() {
	local said

	said=$(grep -m1 -E '^flamebpf: lost: |[Ll]ost [0-9]+ ' "$1" | sed 's/^flamebpf: lost: //' | cut -c1-60)
	echo "${said:-nothing said}"
}

bench() {
	local r cond

	tracefs_up || WHY[perf]="cannot mount tracefs at /sys/kernel/tracing"
	command -v offcputime-bpfcc >/dev/null || WHY[bcc]="offcputime-bpfcc is not installed"
	command -v offwaketime-bpfcc >/dev/null || WHY[bccwake]="offwaketime-bpfcc is not installed"
	for ((r = 1; r <= RUNS; r++)); do
		for cond in "${CONDS[@]}"; do
			[[ -z ${WHY[$cond]:-} ]] || continue
			log "run $r/$RUNS: $(label "$cond")"
			once "$cond"
		done
	done
	tracefs_down
}

# The most blocks a second flamebpf can see: a ping-pong on each CPU at
# once, traced together; the rate and what flamebpf said it lost.
RATE= RATE_LOST=
rate_check() {
	local both=$WORK/both.sh

	log "full rate: a ping-pong on each CPU under flamebpf --off-cpu"
	printf '%s\n' '#!/bin/sh' "taskset -c 0 '$BS' $SECS '$WORK/rate0.out' &" \
		"taskset -c 1 '$BS' $SECS '$WORK/rate1.out'" 'wait' >"$both"
	chmod +x "$both"
	run_job "$FLAMEBPF" --off-cpu -o "$WORK/rate.folded" -- "$both" 2>"$WORK/rate.err" >/dev/null || true
	[[ -s $WORK/rate0.out && -s $WORK/rate1.out ]] || return 0
	RATE=$(calc 'int((a + b) / 1000)' a="$(kv "$WORK/rate0.out" blocks_per_sec)" \
		b="$(kv "$WORK/rate1.out" blocks_per_sec)")
	RATE_LOST=$(losses "$WORK/rate.err")
}

rss_median() {
	# shellcheck disable=SC2086 # the value list is split on purpose
	printf '%s\n' $1 | sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%.1f MiB", v[int((NR + 1) / 2)] / 1024 }'
}

table() {
	local cond base med cost rss

	table_intro "Off-CPU: a block's cost (tools/bench_offcpu.sh)" "$(perf --version 2>/dev/null || echo 'no perf')"
	printf '\n| ping-pong through pipes, %s s | blocks/s | cost per block | profiler peak RSS | BPF maps | lost |\n' "$SECS"
	printf '| --- | --- | --- | --- | --- | --- |\n'
	base=$(mstat median none)
	for cond in "${CONDS[@]}"; do
		if [[ -n ${WHY[$cond]:-} ]]; then
			printf '| %s | did not run: %s | | | | |\n' "$(label "$cond")" "${WHY[$cond]}"
			continue
		fi
		med=$(mstat median "$cond")
		cost=— rss=— maps=—
		if [[ $cond != none ]]; then
			cost=$(printf '%.2f µs' "$(calc '(1 / m - 1 / b) * 1e6' m="$med" b="$base")")
			rss=$(rss_median "${RSS[$cond]:-}")
		fi
		[[ -z ${MAPS[$cond]:-} ]] || maps=$(rss_median "${MAPS[$cond]}")
		[[ $cond != perf ]] || maps="none (its buffers are in its RSS)"
		printf '| %s | %s k/s (%s–%s) | %s | %s | %s | %s |\n' "$(label "$cond")" \
			"$(calc 'int(v / 100 + 0.5) / 10' v="$med")" \
			"$(calc 'int(v / 1000)' v="$(mstat min "$cond")")" \
			"$(calc 'int(v / 1000)' v="$(mstat max "$cond")")" "$cost" "$rss" "$maps" \
			"$([[ $cond == none ]] && echo — || echo "${LOST[$cond]:-}")"
	done
	printf '\nA block is a thread leaving the CPU to wait (two a round trip, both\n'
	printf 'threads on CPU 0); the cost is the time a block takes more than untraced.\n'
	[[ -z $RATE ]] ||
		printf '\nAt full rate, a ping-pong on each CPU traced at once: %s k blocks/s, lost: %s.\n\n' \
			"$RATE" "$RATE_LOST"
	printf 'BPF maps: the kernel memory of the maps the profiler holds, halfway\n'
	printf 'through a run (memlock in /proc/PID/fdinfo; task storage counts its map\n'
	printf 'alone, not the few hundred bytes it keeps per thread).\n'
}

main() {
	local started=$SECONDS

	check_env
	set_traps
	mkdir -p -- "$OUT"
	WORK=$(mktemp -d "$OUT/offcpu.XXXXXX")
	BS=$WORK/bench_switch
	PIN=(taskset -c 0)
	clang -O2 -g -fno-omit-frame-pointer -Wall -Wextra -Werror -pthread \
		"$ROOT/tools/bench_switch.c" -o "$BS"
	freeze_flamebpf
	: >"$RAW"
	check_idle
	BUSY_BEFORE=$BUSY
	bench
	rate_check
	check_idle
	BUSY_AFTER=$BUSY
	append_table "$started"
}

main "$@"
