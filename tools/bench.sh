#!/usr/bin/env bash
# Benchmarks flamebpf against perf record, side by side in one run: overhead on
# a CPU-bound workload, ready time, stop time, peak RSS and losses. Prints a
# Markdown table and writes it to build/bench/results.md (every measurement
# goes to build/bench/raw.tsv). Run by `make bench` from the repository root;
# needs root, build/flamebpf, perf and gcc.
#
#   BENCH_RUNS=N   repetitions of each measurement, medians reported (default 5)
#   BENCH_QUICK=1  smoke run: 1 repetition, short durations
#   FLAMEBPF, PERF override build/flamebpf and perf
set -euo pipefail
# Every background job gets its own process group, so cleanup can end a job
# together with whatever it started (bench_marker's profiler, find, gcc).
set -m

# ROOT, OUT, FLAMEBPF, and the functions shared with bench_trace.sh
# shellcheck source=SCRIPTDIR/bench_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_lib.sh"
RAW=$OUT/raw.tsv
PERF=${PERF:-perf}
SPIN=$OUT/bench_spin
MARKER=$OUT/bench_marker

if [[ ${BENCH_QUICK:-0} == 1 ]]; then
	RUNS=${BENCH_RUNS:-1} SPIN_SECS=2 LONG_SECS=3 LOSS_SECS=10
else
	RUNS=${BENCH_RUNS:-5} SPIN_SECS=8 LONG_SECS=10 LOSS_SECS=30
fi
SETTLE=1  # seconds a profiler gets to start before the spin workload does
TAIL=0.5  # seconds it keeps sampling after the spin workload ended
FREQS=(99 4999)
OVH_CONDS=(none fb@99 perfg@99 perf@99 fb@4999 perfg@4999 perf@4999)

mib_fmt() { awk -v k="$1" 'BEGIN { printf "%.1f MiB", k / 1024 }'; }

check_env() {
	check_basics "BPF programs and system-wide perf events"
	command -v "$PERF" >/dev/null ||
		die "cannot find '$PERF' (tools/deps.sh --bench installs it)"
	command -v gcc >/dev/null || die "cannot find gcc"
}

build_helpers() {
	mkdir -p -- "$OUT"
	gcc -O2 -Wall -Wextra -Werror -std=gnu11 -pthread "$ROOT/tools/bench_spin.c" -o "$SPIN"
	gcc -O2 -Wall -Wextra -Werror -std=gnu11 "$ROOT/tools/bench_marker.c" -o "$MARKER"
}

# Sets PROF to the command line of a profiler condition: fb@F, perfg@F or
# perf@F (perf without stacks), sampling system-wide for DURATION seconds
# into FILE: prof_argv COND DURATION FILE
prof_argv() {
	local f=${1#*@}

	case $1 in
	fb@*) PROF=("$FLAMEBPF" --sample "$f" -d "$2" -o "$3") ;;
	perfg@*) PROF=("$PERF" record -a -g -F "$f" -e cpu-clock -o "$3" -- sleep "$2") ;;
	perf@*) PROF=("$PERF" record -a -F "$f" -e cpu-clock -o "$3" -- sleep "$2") ;;
	*) die "unknown condition '$1'" ;;
	esac
}

# Sets TPUT to the spin throughput (iterations per CPU-second) under COND and
# PCPU to the profiler's CPU time in seconds.
overhead_once() {
	local dur pid data=$WORK/ovh.data spun=$WORK/spin.out res=$WORK/ovh.res status

	if [[ $1 == none ]]; then
		run_job "$SPIN" "$SPIN_SECS" 2 >"$spun" || die "bench_spin failed"
		TPUT=$(<"$spun")
		return
	fi
	dur=$(ovh_secs)
	prof_argv "$1" "$dur" "$data"
	start_job "$MARKER" run -o "$res" -- "${PROF[@]}" >"$WORK/prof.log" 2>&1
	pid=$!
	pause "$SETTLE"
	run_job "$SPIN" "$SPIN_SECS" 2 >"$spun" || die "bench_spin failed"
	TPUT=$(<"$spun")
	wait_job "$pid" || die "bench_marker failed"
	status=$(kv "$res" status)
	[[ $status == 0 && -s $data ]] ||
		die_log "$WORK/prof.log" "'${PROF[*]}' failed (status $status)"
	PCPU=$(kv "$res" cpu_s)
	rm -f -- "$data"
}

# Conditions rotate by one place each repetition to spread drift and noise.
bench_overhead() {
	local r i n=${#OVH_CONDS[@]} cond

	for ((r = 0; r < RUNS; r++)); do
		for ((i = 0; i < n; i++)); do
			cond=${OVH_CONDS[(i + r) % n]}
			log "overhead: run $((r + 1))/$RUNS: $cond"
			overhead_once "$cond"
			[[ $TPUT =~ ^[0-9]+$ ]] || die "bench_spin printed '$TPUT', not a number"
			add "tput:$cond:$r" "$TPUT"
			add "tput:$cond" "$TPUT"
			[[ $cond == none ]] || add "pcpu:$cond" "$PCPU"
		done
	done
	for cond in "${OVH_CONDS[@]:1}"; do
		for ((r = 0; r < RUNS; r++)); do
			add "ovh:$cond" "$(calc '100 * (1 - v / b)' v="${M[tput:$cond:$r]# }" \
				b="${M[tput:none:$r]# }")"
		done
	done
}

# Ready time of WHO (fb or perf): launch (the fork of the profiler's exec)
# to the start of the profiled command, which the profiler releases only
# once its perf events are on every CPU: that point as an outside harness
# sees it, plus the command's own exec (about 1 ms).
ready_once() {
	local res=$WORK/ready.res mark=$WORK/ready.mark status

	case $1 in
	fb) PROF=("$FLAMEBPF" --sample 99 -o "$WORK/ready.out" -- "$MARKER") ;;
	perf) PROF=("$PERF" record -a -g -F 99 -o "$WORK/ready.data" -- "$MARKER") ;;
	esac
	run_job "$MARKER" run -o "$res" -- "${PROF[@]}" >"$mark" 2>"$WORK/prof.log" ||
		die "bench_marker failed"
	status=$(kv "$res" status)
	# flamebpf exits 1 when the marker ran too briefly to be sampled: fine here
	[[ -s $mark && ($status == 0 || ($1 == fb && $status == 1)) ]] ||
		die_log "$WORK/prof.log" "'${PROF[*]}' failed (status $status)"
	add "ready:$1" "$(calc 'm - l' m="$(cat "$mark")" l="$(kv "$res" launch)")"
	rm -f -- "$WORK/ready.out" "$WORK/ready.data"
}

bench_ready() {
	local r who

	for ((r = 0; r < RUNS; r++)); do
		for who in fb perf; do
			log "ready time: run $((r + 1))/$RUNS: $who"
			ready_once "$who"
		done
	done
}

# perf script on DATA to text; records its time under KEY: perf_script DATA KEY
perf_script() {
	local res=$WORK/script.res

	run_job "$MARKER" run -o "$res" -- "$PERF" script -i "$1" >"$WORK/long.txt" \
		2>"$WORK/prof.log" || die "bench_marker failed"
	[[ $(kv "$res" status) == 0 && -s $WORK/long.txt ]] ||
		die_log "$WORK/prof.log" "'$PERF script' failed"
	add "$2" "$(calc 'e - l' e="$(kv "$res" exit)" l="$(kv "$res" launch)")"
	rm -f -- "$WORK/long.txt"
}

# Records the results of a long run of WHO at FREQ: long_record WHO FREQ
long_record() {
	local res=$WORK/long.res status maps

	status=$(kv "$res" status)
	if [[ $1 == fb ]]; then
		maps=$(sed -n 's/^flamebpf: .*; BPF maps \([0-9.]*\) MiB;.*/\1/p' "$WORK/prof.log")
		[[ $status == 0 && -s $WORK/long.out && -n $maps ]] ||
			die_log "$WORK/prof.log" "'${PROF[*]}' failed (status $status)"
		add "maps:$2" "$maps"
	else
		# perf record ends itself with the SIGINT it got once the file is written
		[[ ($status == 0 || $status == 130) && -s $WORK/long.out ]] ||
			die_log "$WORK/prof.log" "'${PROF[*]}' failed (status $status)"
	fi
	add "stop:$1@$2" "$(calc 'e - i' e="$(kv "$res" exit)" i="$(kv "$res" sigint)")"
	add "rss:$1@$2" "$(kv "$res" maxrss_kib)"
}

# A system-wide run of WHO at FREQ with the spin workload on, ended by SIGINT
# after LONG_SECS: stop time and peak RSS (and for perf, perf script's time).
long_once() {
	local spin

	case $1 in
	fb) PROF=("$FLAMEBPF" --sample "$2" -v -o "$WORK/long.out") ;;
	perf) PROF=("$PERF" record -a -g -F "$2" -e cpu-clock -o "$WORK/long.out") ;;
	esac
	start_job "$SPIN" "$((LONG_SECS + 600))" 2 >/dev/null
	spin=$!
	pause 0.2
	run_job "$MARKER" run -o "$WORK/long.res" -i "$LONG_SECS" -- "${PROF[@]}" \
		>/dev/null 2>"$WORK/prof.log" || die "bench_marker failed"
	end_job "$spin"
	long_record "$1" "$2"
	if [[ $1 == perf ]]; then
		perf_script "$WORK/long.out" "script:$2"
		add "text:perf@$2" \
			"$(calc 's + p' s="${M[stop:perf@$2]##* }" p="${M[script:$2]##* }")"
	fi
	rm -f -- "$WORK/long.out"
}

bench_long() {
	local r who f

	for ((r = 0; r < RUNS; r++)); do
		for f in "${FREQS[@]}"; do
			for who in fb perf; do
				log "stop time and RSS: run $((r + 1))/$RUNS: $who at $f Hz"
				long_once "$who" "$f"
			done
		done
	done
}

# Background load with many distinct stacks: file system walks and compiles.
churn() {
	while :; do
		find /usr/lib -name '*.so' >/dev/null 2>&1 || true
		gcc -O2 -c "$ROOT/tools/bench_marker.c" -o "$WORK/churn.o" 2>/dev/null || true
	done
}

bench_losses() {
	local spin churner status=0 err=$WORK/loss.log

	log "losses: flamebpf at 4999 Hz for ${LOSS_SECS} s with spin + find/gcc loop"
	start_job "$SPIN" "$((LOSS_SECS + 600))" 2 >/dev/null
	spin=$!
	start_job churn
	churner=$!
	run_job "$FLAMEBPF" --sample 4999 -v -d "$LOSS_SECS" -o "$WORK/loss.out" 2>"$err" ||
		status=$?
	end_job "$churner"
	end_job "$spin"
	[[ $status == 0 ]] || die_log "$err" "flamebpf failed (status $status)"
	LOSS_SUMMARY=$(sed -n -e 's/^flamebpf: \([0-9]* samples\), [0-9]* processes, /\1, /' \
		-e 's/^\([0-9]* samples, [0-9]* stacks\) in .*/\1/p' "$err")
	LOSS_LINE=$(sed -n 's/^flamebpf: \(lost: .*\)/\1/p' "$err")
	LOSS_STACKS=$(sed -n 's/^flamebpf: \([0-9]* unique [^;]*\); BPF maps .*/\1/p' "$err")
	[[ -n $LOSS_SUMMARY && -n $LOSS_LINE ]] || die_log "$err" "cannot parse flamebpf's summary"
}

# Sets IRQ_TIME to a warning when the kernel keeps interrupt time apart from
# the interrupted thread's CPU time, which hides the sampling cost from the spin.
check_irq_time() {
	IRQ_TIME=
	if { zcat /proc/config.gz 2>/dev/null || cat "/boot/config-$(uname -r)" 2>/dev/null; } |
		grep '^CONFIG_IRQ_TIME_ACCOUNTING=y' >/dev/null; then
		IRQ_TIME="Warning: CONFIG_IRQ_TIME_ACCOUNTING=y, so the overhead rows leave out "
		IRQ_TIME+="the time spent in interrupt context."
		log "warning: ${IRQ_TIME#Warning: }"
	fi
}

warm_up() {
	log "warm-up (not measured)"
	run_job "$FLAMEBPF" --sample 99 -d 0.5 -o "$WORK/warm.out" 2>/dev/null || true
	run_job "$PERF" record -a -g -F 99 -o "$WORK/warm.data" -- sleep 0.5 >/dev/null 2>&1 || true
	rm -f -- "$WORK/warm.out" "$WORK/warm.data"
}

# Table cells -------------------------------------------------------------

pct_fmt() { awk -v p="$1" 'BEGIN { p = sprintf("%.1f", p); printf "%s%%", p + 0 == 0 ? "0.0" : p }'; }
mtput_fmt() { awk -v v="$1" 'BEGIN { printf "%.1f M", v / 1e6 }'; }

ovh_cell() {
	printf '%s; %s' "$(spread "ovh:$1" pct_fmt)" "$(mtput_fmt "$(mstat median "tput:$1")")"
}

text_cell() {
	printf '%s (%s exit + %s perf script)' "$(secs_fmt "$(mstat median "text:perf@$1")")" \
		"$(secs_fmt "$(mstat median "stop:perf@$1")")" \
		"$(secs_fmt "$(mstat median "script:$1")")"
}

ovh_secs() { calc 's + t + a' s="$SETTLE" t="$SPIN_SECS" a="$TAIL"; }

table_head() {
	table_intro "flamebpf vs perf record" "$("$PERF" --version)"
	printf 'Spin workload alone: %s iterations per CPU-second (2 threads, %s s);\n' \
		"$(mtput_fmt "$(mstat median tput:none)")" "$SPIN_SECS"
	printf 'overhead cells give that throughput under the profiler after the ";".\n'
	[[ -z $IRQ_TIME ]] || printf '%s\n' "$IRQ_TIME"
	printf '\n'
}

table() {
	local f

	table_head
	row "measure" "flamebpf" "perf record -g" "perf record (no stacks)"
	row "---" "---" "---" "---"
	for f in "${FREQS[@]}"; do
		row "spin overhead at $f Hz, system-wide" "$(ovh_cell "fb@$f")" \
			"$(ovh_cell "perfg@$f")" "$(ovh_cell "perf@$f")"
	done
	for f in "${FREQS[@]}"; do
		row "profiler's own CPU time at $f Hz ($(ovh_secs) s run and exit)" \
			"$(spread "pcpu:fb@$f" secs_fmt)" "$(spread "pcpu:perfg@$f" secs_fmt)" \
			"$(spread "pcpu:perf@$f" secs_fmt)"
	done
	row "ready at 99 Hz: launch to command start (events on every CPU)" \
		"$(spread ready:fb secs_fmt)" \
		"$(spread ready:perf secs_fmt)" "—"
	for f in "${FREQS[@]}"; do
		row "stop at $f Hz: SIGINT to exit" "$(spread "stop:fb@$f" secs_fmt)" \
			"$(spread "stop:perf@$f" secs_fmt)" "—"
		row "stop at $f Hz: SIGINT to text output" \
			"$(secs_fmt "$(mstat median "stop:fb@$f")")" "$(text_cell "$f")" "—"
	done
	for f in "${FREQS[@]}"; do
		row "peak RSS, ${LONG_SECS} s at $f Hz" "$(spread "rss:fb@$f" mib_fmt)" \
			"$(spread "rss:perf@$f" mib_fmt)" "—"
	done
	row "BPF map memory (-v), 99 / 4999 Hz" \
		"$(mstat median maps:99) / $(mstat median maps:4999) MiB" "—" "—"
	row "${LOSS_SECS} s at 4999 Hz, spin + find/gcc loop" \
		"$LOSS_SUMMARY${LOSS_STACKS:+ ($LOSS_STACKS)}; $LOSS_LINE" "—" "—"
	notes
}

notes() {
	cat <<EOF

Overhead: drop in the loop iterations per CPU-second of tools/bench_spin.c (2
threads; their own CPU time) while a profiler samples every CPU, paired with the
same repetition's run without one; conditions rotate within repetitions. Work
done in interrupt context (timer, sampling handler, BPF program, stack walk) is
charged to the interrupted thread, so it shows there; time other processes take
does not, so the profiler's own process is listed as CPU time instead (it
includes its exit: symbolizing, writing, perf's build-id pass). Commands:
\`flamebpf --sample F -d T -o FILE\`, \`perf record -a [-g] -F F -e cpu-clock -o FILE
-- sleep T\`, T = ${SETTLE} s + the ${SPIN_SECS} s spin + ${TAIL} s. Ready: \`flamebpf --sample 99
-o FILE -- bench_marker\` and \`perf record -a -g -F 99 -- bench_marker\`; the marker
prints CLOCK_MONOTONIC at its start. Stop and RSS: system-wide with the spin
running, SIGINT after ${LONG_SECS} s; for perf, text output adds \`perf script\` (run with
the spin stopped). RSS is the peak from wait4(). BPF map memory is kernel
memory, not part of flamebpf's RSS.
EOF
}

main() {
	local started=$SECONDS

	check_env
	set_traps
	build_helpers
	WORK=$(mktemp -d "$OUT/tmp.XXXXXX")
	freeze_flamebpf
	: >"$RAW"
	check_irq_time
	check_idle
	BUSY_BEFORE=$BUSY
	warm_up
	bench_overhead
	bench_ready
	bench_long
	bench_losses
	check_idle
	BUSY_AFTER=$BUSY
	table >"$WORK/results.md"
	mv -- "$WORK/results.md" "$OUT/results.md"
	log "done in $((SECONDS - started)) s; table in build/bench/results.md"
	cat -- "$OUT/results.md"
}

main "$@"
