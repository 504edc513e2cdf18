#!/usr/bin/env bash
# Benchmarks -e (stacks weighed by a software event) side by side in one
# run: what one event costs when every one is taken (or one in 100), for
# flamebpf and for perf record -e EVENT -g, on tests/workloads/events.c: a
# page fault per fresh page touched (events faults N), a context switch per
# block of a ping-pong pinned to one CPU (events pingpong N). The workload
# times its own counted part; the cost is the time an event takes more than
# untraced. Appends a Markdown table to build/bench/results.md (every
# measurement goes to build/bench/raw_events.tsv). Run by `make bench`,
# from the repository root; needs root, build/flamebpf and the workload.
#
#   BENCH_RUNS=N   repetitions, medians reported (default 5)
#   BENCH_QUICK=1  smoke run: 1 repetition, smaller runs
set -euo pipefail
set -m

# shellcheck source=SCRIPTDIR/bench_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_lib.sh"
RAW=$OUT/raw_events.tsv
EV=$ROOT/build/workloads/events

if [[ ${BENCH_QUICK:-0} == 1 ]]; then
	RUNS=${BENCH_RUNS:-1} PAGES=20000 TRIPS=20000
else
	RUNS=${BENCH_RUNS:-5} PAGES=100000 TRIPS=100000
fi
# workload:condition
CONDS=(faults:none faults:fb faults:fb100 faults:perf faults:perf100
	cs:none cs:fb cs:perf)
declare -A WHY=() # conditions that could not run: why
declare -A RSS=() # the profiler's peak RSS, KiB (last run)

label() {
	case ${1#*:} in
	none) echo "untraced" ;;
	fb) echo "flamebpf -e $(event "$1")" ;;
	fb100) echo "flamebpf -e $(event "$1") -c 100" ;;
	perf) echo "perf record -e $(event "$1") -c 1 -g" ;;
	perf100) echo "perf record -e $(event "$1") -c 100 -g" ;;
	esac
}

event() { [[ ${1%%:*} == faults ]] && echo page-faults || echo context-switches; }

check_env() {
	check_basics "BPF programs"
	[[ -x $EV ]] || die "cannot run '$EV': build it first (make build/workloads/events)"
	command -v /usr/bin/time >/dev/null || die "cannot find /usr/bin/time (tools/deps.sh --bench)"
}

# The workload's command line for condition $1.
workload() {
	if [[ ${1%%:*} == faults ]]; then
		echo "$EV" faults "$PAGES"
	else
		echo taskset -c 0 "$EV" pingpong "$TRIPS"
	fi
}

# One run of condition $1: adds the seconds the counted part took.
once() {
	local cond=$1 out=$WORK/out err=$WORK/err rss=$WORK/rss ev
	local tm=(/usr/bin/time -f %M -o "$rss") w

	read -ra w <<<"$(workload "$cond")"
	ev=$(event "$cond")
	rm -f -- "$out" "$rss"
	case ${cond#*:} in
	none) run_job "${w[@]}" >"$out" ;;
	fb) run_job "${tm[@]}" "$FLAMEBPF" -e "$ev" -o "$WORK/fb.folded" -- "${w[@]}" >"$out" ;;
	fb100)
		run_job "${tm[@]}" "$FLAMEBPF" -e "$ev" -c 100 -o "$WORK/fb.folded" -- "${w[@]}" >"$out"
		;;
	perf)
		run_job "${tm[@]}" perf record -q -e "$ev" -c 1 -g -o "$WORK/perf.data" -- "${w[@]}" \
			>"$out"
		;;
	perf100)
		run_job "${tm[@]}" perf record -q -e "$ev" -c 100 -g -o "$WORK/perf.data" -- \
			"${w[@]}" >"$out"
		;;
	esac 2>"$err" || true
	if [[ -z $(kv "$out" secs) ]]; then
		WHY[$cond]=$(grep -v '^$' "$err" | tail -n 1 | cut -c1-160)
		WHY[$cond]=${WHY[$cond]:-no result}
		return
	fi
	add "$cond" "$(kv "$out" secs)"
	[[ ! -s $rss ]] || RSS[$cond]=$(cat "$rss")
}

bench() {
	local r cond

	if ! command -v perf >/dev/null; then
		for cond in "${CONDS[@]}"; do
			[[ $cond != *:perf* ]] || WHY[$cond]="no perf on PATH (linux-perf)"
		done
	fi
	for ((r = 1; r <= RUNS; r++)); do
		for cond in "${CONDS[@]}"; do
			[[ -z ${WHY[$cond]:-} ]] || continue
			log "run $r/$RUNS: $(label "$cond") ($(workload "$cond"))"
			once "$cond"
		done
	done
}

# Events the counted part of workload $1 makes.
events_of() { [[ $1 == faults ]] && echo "$PAGES" || echo $((2 * TRIPS)); }

table() {
	local cond base med cost n rss

	table_intro "Software events: an event's cost (tools/bench_events.sh)" \
		"$(perf --version 2>/dev/null || echo 'no perf')"
	printf '\n| workload | profiler | time of the counted part | cost per event | profiler peak RSS |\n'
	printf '| --- | --- | --- | --- | --- |\n'
	for cond in "${CONDS[@]}"; do
		if [[ -n ${WHY[$cond]:-} ]]; then
			printf '| %s | %s | did not run: %s | | |\n' "${cond%%:*}" "$(label "$cond")" \
				"${WHY[$cond]}"
			continue
		fi
		base=$(mstat median "${cond%%:*}:none")
		med=$(mstat median "$cond")
		n=$(events_of "${cond%%:*}")
		cost=— rss=—
		if [[ ${cond#*:} != none ]]; then
			cost=$(printf '%.2f µs' "$(calc '(m - b) / n * 1e6' m="$med" b="$base" n="$n")")
			rss=$(awk -v k="${RSS[$cond]:-0}" 'BEGIN { printf "%.1f MiB", k / 1024 }')
		fi
		# time's peak RSS is the largest process's: there the workload's pages
		[[ ${cond%%:*} != faults ]] || rss="(the workload's)"
		printf '| %s | %s | %s | %s | %s |\n' "${cond%%:*}" "$(label "$cond")" \
			"$(spread "$cond" secs_fmt)" "$cost" "$rss"
	done
	printf '\nfaults: %s fresh pages touched, a page fault each; cs: a ping-pong of %s\n' \
		"$PAGES" "$TRIPS"
	printf 'rounds through pipes on CPU 0, two context switches a round.\n'
}

main() {
	local started=$SECONDS

	check_env
	set_traps
	mkdir -p -- "$OUT"
	WORK=$(mktemp -d "$OUT/events.XXXXXX")
	freeze_flamebpf
	: >"$RAW"
	check_idle
	BUSY_BEFORE=$BUSY
	bench
	check_idle
	BUSY_AFTER=$BUSY
	append_table "$started"
}

main "$@"
