#!/usr/bin/env bash
# Benchmarks USDT probes side by side in one run: what a probe hit costs
# under `flamebpf -f usdt:` (each hit counted by its user stack, as
# stackcount) against bpftrace's `usdt:` with an empty action and with a
# count by user stack, on tests/workloads/usdt_work.c's bench mode (a loop
# of work:tick hits that times itself); and what --span adds to each
# sample's BPF program (its run time per run with kernel.bpf_stats_enabled,
# with and without --span, on tests/workloads/spans.c). Appends a Markdown
# table to build/bench/results.md (every measurement goes to
# build/bench/raw_usdt.tsv). Run by `make bench`, from the repository root;
# needs root, build/flamebpf and the workloads; installs bpftrace when it
# is missing (without it, its rows say so).
#
#   BENCH_RUNS=N   repetitions, medians reported (default 5)
#   BENCH_QUICK=1  smoke run: 1 repetition, fewer hits
set -euo pipefail
set -m

# shellcheck source=SCRIPTDIR/bench_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_lib.sh"
RAW=$OUT/raw_usdt.tsv
UW=$ROOT/build/workloads/usdt_work
SPANS=$ROOT/build/workloads/spans
BPFTRACE=${BPFTRACE:-bpftrace}
BPFTOOL=${BPFTOOL:-bpftool}

if [[ ${BENCH_QUICK:-0} == 1 ]]; then
	RUNS=${BENCH_RUNS:-1} HITS=100000 ROUNDS=20
else
	RUNS=${BENCH_RUNS:-5} HITS=1000000 ROUNDS=60
fi
CONDS=(none fb bt_empty bt_count)
declare -A WHY=() # conditions that could not run: why

label() {
	case $1 in
	none) echo "untraced" ;;
	fb) echo "flamebpf -f usdt: (each hit by its user stack)" ;;
	bt_empty) echo "bpftrace usdt: {} (empty action)" ;;
	bt_count) echo "bpftrace usdt: { @[ustack] = count(); }" ;;
	esac
}

check_env() {
	check_basics "uprobes and BPF programs"
	[[ -x $UW && -x $SPANS ]] || die "cannot run '$UW' or '$SPANS': build them first (make)"
	[[ -w $STATS ]] || die "cannot write '$STATS' (kernel.bpf_stats_enabled)"
	command -v "$BPFTOOL" >/dev/null || die "cannot find '$BPFTOOL' (tools/deps.sh --bench)"
	if ! command -v "$BPFTRACE" >/dev/null; then
		apt-get install -y -qq --no-install-recommends bpftrace >"$OUT/apt-bpftrace.log" 2>&1 ||
			true
	fi
	if ! command -v "$BPFTRACE" >/dev/null; then
		WHY[bt_empty]="no bpftrace (apt-get install bpftrace failed: see $OUT/apt-bpftrace.log)"
		WHY[bt_count]=${WHY[bt_empty]}
	fi
}

# One run of condition $1: adds the seconds the hits took beside the hits.
run_one() {
	local out=$WORK/out.txt err=$WORK/err.txt probe="usdt:$UW:work:tick" secs

	case $1 in
	none) run_job "$UW" bench "$HITS" >"$out" 2>"$err" ;;
	fb) run_job "$FLAMEBPF" -f "usdt:$UW:^work:tick$" -o "$WORK/fb.folded" -- \
		"$UW" bench "$HITS" >"$out" 2>"$err" ;;
	bt_empty) run_job "$BPFTRACE" -e "$probe {}" -c "$UW bench $HITS" >"$out" 2>"$err" ;;
	bt_count) run_job "$BPFTRACE" -e "$probe { @[ustack] = count(); }" \
		-c "$UW bench $HITS" >"$out" 2>"$err" ;;
	esac || {
		WHY[$1]="failed: $(tail -n 1 "$err")"
		return
	}
	secs=$(awk '$1 == "secs" { print $2 }' "$out")
	[[ -n $secs ]] || {
		WHY[$1]="the workload printed no time"
		return
	}
	add "secs:$1" "$secs"
}

# --span's cost per sample: on_sample's run time per run, spans workload
# sampled at 4999 Hz for ROUNDS rounds, with (span*) or without (plain*)
# it; *K with kernel stacks only (-K), where the user stack's unwinding,
# whose time varies from run to run by more than the span's lookup, is
# left out.
SPAN_CONDS=(plain span plainK spanK)
run_span() {
	local args=(-F 4999 -o "$WORK/span.folded") pid stats='' s rt rc
	local req="req=usdt:$SPANS:flamebpf:req_begin(arg0),usdt:$SPANS:flamebpf:req_end"

	[[ $1 == plain* ]] || args+=(--span "$req")
	[[ $1 != *K ]] || args+=(-K)
	start_job "$FLAMEBPF" "${args[@]}" -- "$SPANS" "$ROUNDS" >/dev/null 2>&1
	pid=$!
	# the last reading before it exits
	while kill -0 "$pid" 2>/dev/null; do
		if s=$(sample_stats "$pid"); then
			stats=$s
		fi
		pause 0.2
	done
	wait_job "$pid" || true
	[[ -n $stats ]] || {
		WHY[span_$1]="no run-time statistics of on_sample"
		return
	}
	read -r rt rc <<<"$stats"
	((rc > 0)) && add "span:$1" "$(calc 't / c' t="$rt" c="$rc")"
}

ns_fmt() { awk -v v="$1" 'BEGIN { printf "%.0f ns", v }'; }

table() {
	local base c cost

	table_intro "USDT probes: cost per hit, and --span per sample (tools/bench_usdt.sh)" \
		"$("$BPFTRACE" --version 2>/dev/null || echo 'no bpftrace')"
	printf '\n\n| %s hits of work:tick | time | cost per hit |\n| --- | --- | --- |\n' "$HITS"
	base=$(mstat median secs:none)
	for c in "${CONDS[@]}"; do
		if [[ -n ${WHY[$c]:-} ]]; then
			row "$(label "$c")" "${WHY[$c]}" ""
			continue
		fi
		cost=$(calc '(s - b) / n * 1e9' s="$(mstat median "secs:$c")" b="$base" n="$HITS")
		row "$(label "$c")" "$(spread "secs:$c" secs_fmt)" \
			"$([[ $c == none ]] || ns_fmt "$cost")"
	done
	printf '\n| sampling at 4999 Hz | on_sample per run |\n| --- | --- |\n'
	for c in "${SPAN_CONDS[@]}"; do
		if [[ -n ${WHY[span_$c]:-} ]]; then
			row "$c" "${WHY[span_$c]}"
		else
			row "-F 4999$([[ $c == *K ]] && echo " -K")$([[ $c == span* ]] && echo " --span")" \
				"$(spread "span:$c" ns_fmt)"
		fi
	done
	for k in "" K; do
		[[ -n ${WHY[span_plain$k]:-}${WHY[span_span$k]:-} ]] ||
			printf '\n--span adds %s per sample%s (difference of the medians).\n' \
				"$(ns_fmt "$(calc 'a - b' a="$(mstat median "span:span$k")" \
					b="$(mstat median "span:plain$k")")")" \
				"$([[ -n $k ]] && echo " with kernel stacks only" || echo "")"
	done
}

main() {
	local started=$SECONDS

	mkdir -p "$OUT"
	: >"$RAW"
	check_env
	WORK=$(mktemp -d)
	set_traps
	freeze_flamebpf
	check_idle
	BUSY_BEFORE=$BUSY
	stats_on
	for ((RUN = 1; RUN <= RUNS; RUN++)); do
		for c in "${CONDS[@]}"; do
			[[ -n ${WHY[$c]:-} ]] || run_one "$c"
		done
		for c in "${SPAN_CONDS[@]}"; do
			run_span "$c"
		done
	done
	stats_restore
	check_idle
	BUSY_AFTER=$BUSY
	append_table "$started"
}

main "$@"
