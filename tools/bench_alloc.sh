#!/usr/bin/env bash
# Benchmarks --alloc side by side in one run: what a malloc/free pair costs
# (tools/bench_malloc.c, malloc(64) and free as fast as they go) untraced,
# under flamebpf --alloc (every allocation, and --alloc-sample 512k), bcc's
# memleak (bpfcc-tools: uprobes too) and heaptrack (LD_PRELOAD). Appends a
# Markdown table to build/bench/results.md (every measurement goes to
# build/bench/raw_alloc.tsv). Run by `make bench`, from the repository
# root; needs root, build/flamebpf and clang.
#
#   BENCH_RUNS=N   repetitions, medians reported (default 5)
#   BENCH_QUICK=1  smoke run: 1 repetition, short runs
set -euo pipefail
set -m

# shellcheck source=SCRIPTDIR/bench_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_lib.sh"
RAW=$OUT/raw_alloc.tsv

if [[ ${BENCH_QUICK:-0} == 1 ]]; then
	RUNS=${BENCH_RUNS:-1} SECS=0.5
else
	RUNS=${BENCH_RUNS:-5} SECS=2
fi
CONDS=(none fb fbsample memleak heaptrack)
declare -A WHY=() # conditions that could not run: why
declare -A RSS=() # the profiler's peak RSS, KiB (last run)

label() {
	case $1 in
	none) echo "untraced" ;;
	fb) echo "flamebpf --alloc" ;;
	fbsample) echo "flamebpf --alloc --alloc-sample 512k" ;;
	memleak) echo "bcc memleak" ;;
	heaptrack) echo "heaptrack" ;;
	esac
}

check_env() {
	check_basics "BPF programs"
	command -v clang >/dev/null || die "cannot find 'clang' (tools/deps.sh --all installs it)"
	command -v /usr/bin/time >/dev/null || die "cannot find /usr/bin/time (tools/deps.sh --bench)"
}

# One run of condition $1: adds its pairs per second.
once() {
	local cond=$1 out=$WORK/$1.out err=$WORK/$1.err rss=$WORK/$1.rss peer
	local tm=(/usr/bin/time -f %M -o "$rss")

	rm -f -- "$out" "$rss"
	case $cond in
	none) run_job "$BM" "$SECS" "$out" ;;
	fb) run_job "${tm[@]}" "$FLAMEBPF" --alloc -o "$WORK/fb.folded" -- "$BM" "$SECS" "$out" ;;
	fbsample)
		run_job "${tm[@]}" "$FLAMEBPF" --alloc --alloc-sample 512k -o "$WORK/fb.folded" -- \
			"$BM" "$SECS" "$out"
		;;
	memleak)
		start_job "$BM" "$SECS" "$out"
		peer=$!
		run_job "${tm[@]}" timeout "$(calc 's + 5' s="$SECS")" memleak-bpfcc -p "$peer" || true
		wait_job "$peer" || true
		;;
	heaptrack)
		run_job "${tm[@]}" heaptrack -o "$WORK/heaptrack" "$BM" "$SECS" "$out"
		;;
	esac 2>"$err" >/dev/null || true
	if [[ ! -s $out ]] || { [[ $cond == memleak ]] && grep -q "Failed to compile\|Exception" "$err"; }; then
		WHY[$cond]=$(grep -v '^$' "$err" | grep -m1 -E 'Exception|rror|cannot|not' | cut -c1-160)
		WHY[$cond]=${WHY[$cond]:-no result}
		return
	fi
	add "$cond" "$(kv "$out" pairs_per_sec)"
	[[ ! -s $rss ]] || RSS[$cond]=$(cat "$rss")
}

bench() {
	local r cond

	command -v memleak-bpfcc >/dev/null || WHY[memleak]="memleak-bpfcc is not installed"
	command -v heaptrack >/dev/null || WHY[heaptrack]="heaptrack is not installed"
	for ((r = 1; r <= RUNS; r++)); do
		for cond in "${CONDS[@]}"; do
			[[ -z ${WHY[$cond]:-} ]] || continue
			log "run $r/$RUNS: $(label "$cond")"
			once "$cond"
		done
	done
}

table() {
	local cond base med cost rss

	table_intro "Memory: a malloc/free pair's cost (tools/bench_alloc.sh)" \
		"$(heaptrack --version 2>/dev/null | head -n 1 || echo 'no heaptrack')"
	printf '\n| malloc(64) + free, %s s | pairs/s | cost per pair | profiler peak RSS |\n' "$SECS"
	printf '| --- | --- | --- | --- |\n'
	base=$(mstat median none)
	for cond in "${CONDS[@]}"; do
		if [[ -n ${WHY[$cond]:-} ]]; then
			printf '| %s | did not run: %s | | |\n' "$(label "$cond")" "${WHY[$cond]}"
			continue
		fi
		med=$(mstat median "$cond")
		cost=— rss=—
		if [[ $cond != none ]]; then
			cost=$(printf '%.2f µs' "$(calc '(1 / m - 1 / b) * 1e6' m="$med" b="$base")")
			rss=$(awk -v k="${RSS[$cond]:-0}" 'BEGIN { printf "%.1f MiB", k / 1024 }')
		fi
		printf '| %s | %s k/s | %s | %s |\n' "$(label "$cond")" \
			"$(calc 'int(v / 100 + 0.5) / 10' v="$med")" "$cost" "$rss"
	done
	printf '\nEach allocation and each free is a uprobe trap under the BPF tools (the\n'
	printf 'kernel sets that cost); heaptrack runs in the process (LD_PRELOAD).\n'
}

main() {
	local started=$SECONDS

	check_env
	set_traps
	mkdir -p -- "$OUT"
	WORK=$(mktemp -d "$OUT/alloc.XXXXXX")
	BM=$WORK/bench_malloc
	clang -O2 -g -Wall -Wextra -Werror "$ROOT/tools/bench_malloc.c" -o "$BM"
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
