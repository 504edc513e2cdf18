#!/usr/bin/env bash
# Measures what two runtime flags that help a profiler change, and what
# they cost: HotSpot's -XX:+PreserveFramePointer on tests/workloads/Hot.java
# (the share of the JVM's samples whose stack goes on to JavaMain, and the
# rounds of Hot.hot per second of CPU), and node's
# --interpreted-frames-native-stack beside --perf-basic-prof on
# tests/workloads/hot.js with warmLoop() left interpreted (the share of
# node's samples in a warmLoop frame named as itself, and the rounds per
# second of CPU). Speeds are per second of CPU so that other load on the
# machine changes them less; runs with and without a flag alternate.
# Appends a Markdown table to build/bench/results.md (every measurement
# goes to build/bench/raw_runtimes.tsv). From the repository root; needs
# root, build/flamebpf, and java/javac/jcmd and node (a runtime missing is
# said in its rows).
#
#   BENCH_RUNS=N   repetitions, medians reported (default 5)
#   BENCH_QUICK=1  smoke run: 1 repetition, short runs
set -euo pipefail
set -m

# shellcheck source=SCRIPTDIR/bench_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_lib.sh"
RAW=$OUT/raw_runtimes.tsv

if [[ ${BENCH_QUICK:-0} == 1 ]]; then
	RUNS=${BENCH_RUNS:-1} SECS=2
else
	RUNS=${BENCH_RUNS:-5} SECS=4
fi
CONDS=(jvm jvm_fp node node_ifns)
declare -A WHY=() # conditions that could not run: why

label() {
	case $1 in
	jvm) echo "java Hot" ;;
	jvm_fp) echo "java -XX:+PreserveFramePointer Hot" ;;
	node) echo "node --perf-basic-prof hot.js" ;;
	node_ifns) echo "node --perf-basic-prof --interpreted-frames-native-stack hot.js" ;;
	esac
}

# The runtime's command for condition $1, for SECONDS $2.
command_of() {
	# node writes its log (isolate-*.log) in the working directory
	local js=(node --no-logfile-per-isolate "--logfile=$WORK/v8.log" --perf-basic-prof
		--turbo-filter=hotLoop --sparkplug-filter=hotLoop)

	case $1 in
	jvm) echo java -XX:CompileCommand=quiet -XX:CompileCommand=dontinline,Hot::hot \
		-cp "$WORK" Hot "$2" ;;
	jvm_fp) echo java -XX:CompileCommand=quiet -XX:CompileCommand=dontinline,Hot::hot \
		-XX:+PreserveFramePointer -cp "$WORK" Hot "$2" ;;
	node) echo "${js[@]}" "$ROOT/tests/workloads/hot.js" "$2" ;;
	node_ifns) echo "${js[@]}" --interpreted-frames-native-stack \
		"$ROOT/tests/workloads/hot.js" "$2" ;;
	esac
}

check_env() {
	check_basics "BPF programs"
	if ! command -v javac >/dev/null || ! command -v jcmd >/dev/null; then
		WHY[jvm]="no javac or jcmd (Debian: openjdk-17-jdk-headless)"
	elif ! javac -d "$WORK" "$ROOT/tests/workloads/Hot.java" 2>"$WORK/javac.txt"; then
		WHY[jvm]="javac failed: $(tail -n 1 "$WORK/javac.txt")"
	fi
	command -v node >/dev/null || WHY[node]="no node (Debian: nodejs)"
	WHY[jvm_fp]=${WHY[jvm]:-}
	WHY[node_ifns]=${WHY[node]:-}
}

# Removes the perf maps of the processes in folded file $1.
remove_maps() {
	local pid

	sed -n 's/^[^;]*-\([0-9][0-9]*\);.*/\1/p' "$1" | sort -u | while read -r pid; do
		rm -f -- "/tmp/perf-$pid.map"
	done
}

# Share (%) of the samples of folded file $1 whose stack matches regex $2.
share() {
	awk -v re="$2" '{ n = $NF; all += n; if ($0 ~ re) hit += n }
		END { printf "%.1f\n", all ? 100 * hit / all : 0 }' "$1"
}

# Speed of condition $1 unprofiled: rounds per second of CPU.
run_speed() {
	local out=$WORK/speed.txt rate pid status=0

	# shellcheck disable=SC2046 # the command's words
	start_job $(command_of "$1" "$SECS") >"$out" 2>&1
	pid=$!
	wait_job "$pid" || status=$?
	rm -f -- "/tmp/perf-$pid.map" # node's, with --perf-basic-prof
	rate=$(sed -n 's/.* of CPU: \([0-9][0-9]*\)\/s.*/\1/p' "$out")
	if ((status)) || [[ -z $rate ]]; then
		WHY[$1]="failed: $(tail -n 1 "$out")"
		return
	fi
	add "speed:$1" "$rate"
}

# Condition $1 sampled at 499 Hz: a JVM for 2 s after 2 s of warm-up (so
# that the JIT has compiled Hot.hot), node for its whole run.
run_capture() {
	local folded=$WORK/$1.folded pid

	if [[ $1 == jvm* ]]; then
		# shellcheck disable=SC2046 # the command's words
		start_job $(command_of "$1" 6) >/dev/null 2>&1
		pid=$!
		pause 2
		run_job "$FLAMEBPF" -F 499 -p "$pid" -d 2 --pids -o "$folded" 2>/dev/null || true
		wait_job "$pid" || true
		add "whole:$1" "$(share "$folded" ';JavaMain;')"
	else
		# shellcheck disable=SC2046 # the command's words
		run_job "$FLAMEBPF" -F 499 --pids -o "$folded" -- $(command_of "$1" 3) \
			>/dev/null 2>&1 || true
		add "warm:$1" "$(share "$folded" ';JS:~warmLoop ')"
		add "named:$1" "$(share "$folded" ';JS:[~^*]?main ')"
	fi
	remove_maps "$folded"
}

pct_fmt() { awk -v v="$1" 'BEGIN { printf "%.1f%%", v }'; }
rate_fmt() { awk -v v="$1" 'BEGIN { printf "%.0f/s", v }'; }

table() {
	local c

	table_intro "Runtime flags for profilers: what they change and cost (tools/bench_runtimes.sh)" \
		"$(java -version 2>&1 | head -n 1 || echo 'no java'); node $(node --version 2>/dev/null ||
			echo 'absent')"
	printf '\n\n| %s | %s | %s | %s |\n| --- | --- | --- | --- |\n' "workload" \
		"rounds per CPU second" "samples with a whole stack (JavaMain) / in warmLoop named" \
		"samples under main() named (node)"
	for c in "${CONDS[@]}"; do
		if [[ -n ${WHY[$c]:-} ]]; then
			row "$(label "$c")" "${WHY[$c]}" "" ""
		elif [[ $c == jvm* ]]; then
			row "$(label "$c")" "$(spread "speed:$c" rate_fmt)" \
				"$(spread "whole:$c" pct_fmt)" ""
		else
			row "$(label "$c")" "$(spread "speed:$c" rate_fmt)" \
				"$(spread "warm:$c" pct_fmt)" "$(spread "named:$c" pct_fmt)"
		fi
	done
}

main() {
	local started=$SECONDS c

	mkdir -p "$OUT"
	: >"$RAW"
	WORK=$(mktemp -d)
	set_traps
	check_env
	freeze_flamebpf
	check_idle
	BUSY_BEFORE=$BUSY
	for ((RUN = 1; RUN <= RUNS; RUN++)); do
		for c in "${CONDS[@]}"; do
			[[ -n ${WHY[$c]:-} ]] || run_speed "$c"
			[[ -n ${WHY[$c]:-} ]] || run_capture "$c"
		done
	done
	check_idle
	BUSY_AFTER=$BUSY
	append_table "$started"
}

main "$@"
