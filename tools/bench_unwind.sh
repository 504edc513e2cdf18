#!/usr/bin/env bash
# Benchmarks flamebpf's user-stack unwinding (--unwind fp, dwarf, auto) side
# by side with perf record --call-graph dwarf and perf record -g in one run,
# system-wide at 99 and 999 Hz, on loads built without frame pointers: the
# BPF program's own cost per sample (kernel.bpf_stats_enabled), the loads'
# throughput drop, the profiler's CPU time, perf's post-processing, data
# sizes and how many stacks reach main; then flamebpf's symbolizer against
# addr2line on random addresses of large system libraries, and the build
# time of their unwind tables. Appends Markdown tables to
# build/bench/results.md (every measurement goes to build/bench/raw_unwind.tsv).
# Run by `make bench` from the repository root; needs root, build/flamebpf,
# gcc, Debian's python3 and make (for build/bench/bench_symbolize); without
# perf, bpftool or addr2line their cells say why they are empty.
#
#   BENCH_RUNS=N      repetitions of each measurement, medians reported (default 5)
#   BENCH_QUICK=1     smoke run: 1 repetition, short phases, fewer addresses
#   BENCH_SYM_LIBS    the libraries the symbolizer rows use (space-separated)
#   BENCH_SYM_ADDRS   random addresses looked up in each (default 100000)
#   FLAMEBPF, PERF, PYTHON, BPFTOOL override build/flamebpf, perf,
#                     /usr/bin/python3 and bpftool
set -Eeuo pipefail
# Every background job gets its own process group, so cleanup can end a job
# together with whatever it started (bench_marker's profiler).
set -m

# ROOT, OUT, FLAMEBPF, and the functions shared with bench.sh
# shellcheck source=SCRIPTDIR/bench_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_lib.sh"
RAW=$OUT/raw_unwind.tsv
PERF=${PERF:-perf}
PYTHON=${PYTHON:-/usr/bin/python3}
BPFTOOL=${BPFTOOL:-bpftool}
SYMBOLIZE_BIN=$OUT/bench_symbolize
PY_SCRIPT=$ROOT/tools/bench_unwind.py
PY_COMM=bench_py # the Python processes' name: a link to the interpreter
STATS_SYSCTL=/proc/sys/kernel/bpf_stats_enabled

if [[ ${BENCH_QUICK:-0} == 1 ]]; then
	RUNS=${BENCH_RUNS:-1} PHASE_SECS=2 SYM_ADDRS=${BENCH_SYM_ADDRS:-20000} UNW_REPS=3
else
	RUNS=${BENCH_RUNS:-5} PHASE_SECS=5 SYM_ADDRS=${BENCH_SYM_ADDRS:-100000} UNW_REPS=11
fi
LIBDIR=/usr/lib/x86_64-linux-gnu
SYM_LIBS=${BENCH_SYM_LIBS:-$LIBDIR/libstdc++.so.6 $LIBDIR/libpython3.11.so.1.0}
PY_DEPTH=4 # levels of bench_unwind.py's recursion: about 28 user frames
SETTLE=1   # seconds a profiler gets to start before the loads do
TAIL=0.5   # seconds it keeps sampling after the loads ended
FREQS=(99 999)
COLS=(fp dwarf auto perfdw perfg) # flamebpf --unwind MODE, then perf
NCPU=$(nproc)

declare -A SKIP=()         # peer -> why its cells are empty
declare -A LAST_SAMPLES=() # py, spin -> on_sample runs in that phase of the current run
RUN=0                      # the current repetition
NOTES=()
STATS_WAS=

check_env() {
	local tool

	check_basics "BPF programs and system-wide perf events"
	for tool in gcc make pgrep; do
		command -v "$tool" >/dev/null || die "cannot find '$tool'"
	done
	[[ -x $PYTHON ]] || die "cannot run '$PYTHON': the Python load needs Debian's python3"
	PY_REAL=$(readlink -f -- "$PYTHON")
	[[ $(head -c 4 -- "$PY_REAL") == $'\x7fELF' ]] ||
		die "'$PYTHON' is not an ELF binary (a shim?): set PYTHON=/usr/bin/python3"
	[[ -w $STATS_SYSCTL ]] || die "cannot write '$STATS_SYSCTL' (kernel.bpf_stats_enabled)"
	command -v "$PERF" >/dev/null ||
		SKIP[perf]="cannot find '$PERF' (tools/deps.sh --bench installs it)"
	command -v "$BPFTOOL" >/dev/null ||
		SKIP[bpftool]="cannot find '$BPFTOOL': run_time_ns and run_cnt read from /proc/PID/fdinfo"
	command -v addr2line >/dev/null ||
		SKIP[addr2line]="cannot find 'addr2line' (package binutils)"
	for tool in "${!SKIP[@]}"; do
		log "warning: ${SKIP[$tool]}"
	done
}

# bench_spin and bench_marker as bench.sh builds them, in WORK (bench.sh may
# be running the copies in build/bench); bench_symbolize by make, frozen.
build_helpers() {
	SPIN=$WORK/bench_spin
	MARKER=$WORK/bench_marker
	gcc -O2 -Wall -Wextra -Werror -std=gnu11 -pthread "$ROOT/tools/bench_spin.c" -o "$SPIN"
	gcc -O2 -Wall -Wextra -Werror -std=gnu11 "$ROOT/tools/bench_marker.c" -o "$MARKER"
	make --no-print-directory -C "$ROOT" build/bench/bench_symbolize >"$WORK/make.log" 2>&1 ||
		die_log "$WORK/make.log" "cannot build build/bench/bench_symbolize"
	cp -- "$SYMBOLIZE_BIN" "$WORK/bench_symbolize"
	SYMBOLIZE_BIN=$WORK/bench_symbolize
	ln -s -- "$PY_REAL" "$WORK/$PY_COMM"
	PY_LINK=$WORK/$PY_COMM
}

# kernel.bpf_stats_enabled: on for the profiled runs, then as it was.
stats_on() {
	STATS_WAS=$(<"$STATS_SYSCTL")
	echo 1 >"$STATS_SYSCTL"
}

stats_restore() {
	[[ -z $STATS_WAS ]] && return
	echo "$STATS_WAS" >"$STATS_SYSCTL" ||
		log "warning: cannot restore kernel.bpf_stats_enabled to $STATS_WAS"
	STATS_WAS=
}

on_exit() {
	cleanup
	stats_restore
}

# set -e ends the script on an unexpected failure: say where.
on_err() { log "unexpected failure (status $1) at line $2: $3"; }

# Loads ---------------------------------------------------------------------

# NCPU copies of the Python load for PHASE_SECS; sets PY_TPUT to their mean
# recursions per CPU-second.
phase_python() {
	local i sum=0 v pids=()

	for ((i = 0; i < NCPU; i++)); do
		start_job "$PY_LINK" -E -s "$PY_SCRIPT" "$PHASE_SECS" "$PY_DEPTH" \
			>"$WORK/py$i.out" 2>"$WORK/py$i.err"
		pids+=("$!")
	done
	for i in "${!pids[@]}"; do
		wait_job "${pids[i]}" || die_log "$WORK/py$i.err" "the Python load failed"
		v=$(<"$WORK/py$i.out")
		[[ $v =~ ^[0-9]+$ ]] || die_log "$WORK/py$i.err" "the Python load printed '$v'"
		sum=$((sum + v))
	done
	PY_TPUT=$((sum / NCPU))
}

# bench_spin on NCPU threads for PHASE_SECS; sets SPIN_TPUT.
phase_spin() {
	run_job "$SPIN" "$PHASE_SECS" "$NCPU" >"$WORK/spin.out" || die "bench_spin failed"
	SPIN_TPUT=$(<"$WORK/spin.out")
	[[ $SPIN_TPUT =~ ^[0-9]+$ ]] || die "bench_spin printed '$SPIN_TPUT', not a number"
}

# Profilers -----------------------------------------------------------------

# Sets PROF to the command line of condition COL@F, sampling system-wide
# until SIGINT into FILE: prof_argv COND FILE
prof_argv() {
	local col=${1%@*} f=${1#*@}

	case $col in
	fp | dwarf | auto) PROF=("$FLAMEBPF" --sample "$f" --unwind "$col" -v -o "$2") ;;
	perfdw) PROF=("$PERF" record -a --call-graph dwarf -F "$f" -e cpu-clock -o "$2") ;;
	perfg) PROF=("$PERF" record -a -g -F "$f" -e cpu-clock -o "$2") ;;
	*) die "unknown condition '$1'" ;;
	esac
}

# "ID FD" of the perf_event BPF program (on_sample) that process PID holds
# (its fds come and go meanwhile).
sample_prog() {
	local fd

	for fd in /proc/"$1"/fdinfo/*; do
		awk -v fd="${fd##*/}" '$1 == "prog_type:" { t = $2 } $1 == "prog_id:" { id = $2 }
			END { if (t == 7) print id, fd }' "$fd" 2>/dev/null || true
	done
}

# Waits (up to 30 s) until the profiler PID has loaded on_sample; sets PROG
# and PROG_FD.
wait_prog() {
	local i line

	PROG='' PROG_FD=''
	for ((i = 0; i < 300; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		line=$(sample_prog "$1")
		if [[ -n $line ]]; then
			read -r PROG PROG_FD <<<"$line"
			return 0
		fi
		pause 0.1
	done
}

# Sets RT and RC to program PROG's run_time_ns and run_cnt (empty when the
# kernel does not count them: someone turned kernel.bpf_stats_enabled off).
prog_stats() {
	local json

	if [[ -n ${SKIP[bpftool]:-} ]]; then
		RT=$(awk '$1 == "run_time_ns:" { print $2 }' "/proc/$FPID/fdinfo/$PROG_FD")
		RC=$(awk '$1 == "run_cnt:" { print $2 }' "/proc/$FPID/fdinfo/$PROG_FD")
		return
	fi
	json=$("$BPFTOOL" prog show id "$PROG" --json)
	RT=$(sed -n 's/.*"run_time_ns":\([0-9]*\).*/\1/p' <<<"$json")
	RC=$(sed -n 's/.*"run_cnt":\([0-9]*\).*/\1/p' <<<"$json")
}

# Adds the BPF cost per sample in PHASE (py, spin) of COND since an earlier
# prog_stats reading: cost PHASE COND RT0 RC0
cost() {
	local v

	if [[ -z $RT || -z $RC || -z $3 || -z $4 ]] || ((RC <= $4)); then
		log "warning: no BPF run-time statistics for $2 (kernel.bpf_stats_enabled turned off?)"
		return
	fi
	v=$(calc '(t1 - t0) / (c1 - c0)' t1="$RT" t0="$3" c1="$RC" c0="$4")
	add "cost_$1:$2" "$v"
	add "cost_$1:$2:$RUN" "$v"
	add "samples_$1:$2" "$((RC - $4))"
	LAST_SAMPLES[$1]=$((RC - $4))
}

# Samples of the Python load in folded FILE: "SAMPLES REACHING_MAIN USER_FRAMES"
py_stats() {
	awk -v root="$PY_COMM" '{
		n = $NF
		stack = substr($0, 1, length($0) - length($NF) - 1)
		k = split(stack, f, ";")
		if (f[1] != root)
			next
		tot += n
		if (stack ~ /;(Py_BytesMain|main)(;|$)/)
			reach += n
		for (i = 2; i <= k; i++)
			if (f[i] !~ /_\[k\]$/)
				frames += n
	}
	END { printf "%d %d %d\n", tot, reach, frames }' "$1"
}

# Records the Python samples of folded FILE under COND: reach_record FILE COND
reach_record() {
	local tot reach frames

	read -r tot reach frames < <(py_stats "$1")
	if ((tot == 0)); then
		log "warning: $2: no samples of the Python load in the profile"
		return
	fi
	add "reach:$2" "$(calc '100 * r / t' r="$reach" t="$tot")"
	add "depth:$2" "$(calc 'f / t' f="$frames" t="$tot")"
}

# Samples whose root is ROOT in folded FILE: root_samples FILE ROOT
root_samples() {
	awk -v root="$2" 'index($0, root ";") == 1 { n += $NF } END { print n + 0 }' "$1"
}

# Of the samples a phase's on_sample runs saw, the share that were the load's
# own (the rest: other processes of the machine): share_record FILE COND
share_record() {
	local n key

	for key in py:"$PY_COMM" spin:bench_spin; do
		[[ -n ${LAST_SAMPLES[${key%%:*}]:-} ]] || continue
		n=$(root_samples "$1" "${key#*:}")
		add "share${key%%:*}:$2" "$(calc '100 * n / s' n="$n" s="${LAST_SAMPLES[${key%%:*}]}")"
	done
}

# flamebpf's -v summary: the unwind tables it built (auto and dwarf).
fb_record() {
	local log=$WORK/prof.log line bins rows ms

	line=$(sed -n 's/^flamebpf: unwind tables: \([0-9]*\) binaries, \([0-9]*\) rows .* built in \([0-9.]*\) ms;.*/\1 \2 \3/p' "$log")
	[[ -z $line ]] && return
	read -r bins rows ms <<<"$line"
	add "tbins:$1" "$bins"
	add "trows:$1" "$rows"
	add "tms:$1" "$ms"
}

# perf script on DATA, timed, then rendered to folded by flamebpf: perf_post COND DATA
perf_post() {
	local res=$WORK/script.res

	run_job "$MARKER" run -o "$res" -- "$PERF" script -i "$2" >"$WORK/perf.txt" \
		2>"$WORK/script.log" || die "bench_marker failed"
	[[ $(kv "$res" status) == 0 && -s $WORK/perf.txt ]] ||
		die_log "$WORK/script.log" "'$PERF script -i $2' failed"
	add "post:$1" "$(calc 'e - l' e="$(kv "$res" exit)" l="$(kv "$res" launch)")"
	add "postcpu:$1" "$(kv "$res" cpu_s)"
	add "text:$1" "$(stat -c %s -- "$WORK/perf.txt")"
	"$FLAMEBPF" render "$WORK/perf.txt" -o "$WORK/perf.folded" 2>"$WORK/render.log" ||
		die_log "$WORK/render.log" "flamebpf render of perf script's output failed"
	reach_record "$WORK/perf.folded" "$1"
	rm -f -- "$WORK/perf.txt" "$WORK/perf.folded"
}

# The loads without a profiler: run_none R
run_none() {
	phase_python
	phase_spin
	add "tpy:none:$1" "$PY_TPUT"
	add "tspin:none:$1" "$SPIN_TPUT"
}

# Profiler COND over the loads, stopped by SIGINT once they ended: run_prof COND R
run_prof() {
	local cond=$1 res=$WORK/prof.res out=$WORK/prof.out mpid status rt0='' rc0='' rt1='' rc1=''

	LAST_SAMPLES=()
	prof_argv "$cond" "$out"
	start_job "$MARKER" run -o "$res" -- "${PROF[@]}" >"$WORK/prof.log" 2>&1
	mpid=$!
	pause 0.2
	FPID=$(pgrep -P "$mpid" | head -n 1) || true
	[[ -n $FPID ]] || die_log "$WORK/prof.log" "'${PROF[*]}' did not start"
	PROG=
	if [[ $cond != perf* ]]; then
		wait_prog "$FPID"
		[[ -n $PROG ]] || die_log "$WORK/prof.log" "'${PROF[*]}' loaded no on_sample program"
	fi
	pause "$SETTLE"
	kill -0 "$FPID" 2>/dev/null || die_log "$WORK/prof.log" "'${PROF[*]}' exited early"
	[[ -z $PROG ]] || { prog_stats && rt0=$RT rc0=$RC; }
	phase_python
	[[ -z $PROG ]] || { prog_stats && rt1=$RT rc1=$RC && cost py "$cond" "$rt0" "$rc0"; }
	phase_spin
	[[ -z $PROG ]] || { prog_stats && cost spin "$cond" "$rt1" "$rc1"; }
	pause "$TAIL"
	kill -INT "$FPID" 2>/dev/null || true
	wait_job "$mpid" || die "bench_marker failed"
	status=$(kv "$res" status)
	# perf record ends itself with the SIGINT it got once the file is written
	[[ ($status == 0 || ($cond == perf* && $status == 130)) && -s $out ]] ||
		die_log "$WORK/prof.log" "'${PROF[*]}' failed (status $status)"
	add "tpy:$cond:$2" "$PY_TPUT"
	add "tspin:$cond:$2" "$SPIN_TPUT"
	add "pcpu:$cond" "$(kv "$res" cpu_s)"
	add "size:$cond" "$(stat -c %s -- "$out")"
	if [[ $cond == perf* ]]; then
		perf_post "$cond" "$out"
	else
		reach_record "$out" "$cond"
		share_record "$out" "$cond"
		fb_record "$cond"
	fi
	rm -f -- "$out"
}

# Conditions rotate by one place each repetition to spread drift and noise.
bench_profiled() {
	local r i n cond conds=(none) col f

	for f in "${FREQS[@]}"; do
		for col in "${COLS[@]}"; do
			[[ $col == perf* && -n ${SKIP[perf]:-} ]] || conds+=("$col@$f")
		done
	done
	n=${#conds[@]}
	stats_on
	for ((r = 0; r < RUNS; r++)); do
		for ((i = 0; i < n; i++)); do
			cond=${conds[(i + r) % n]}
			log "profiled loads: run $((r + 1))/$RUNS: $cond"
			RUN=$r
			if [[ $cond == none ]]; then run_none "$r"; else run_prof "$cond" "$r"; fi
		done
	done
	stats_restore
	for cond in "${conds[@]:1}"; do
		for ((r = 0; r < RUNS; r++)); do
			add "ovhpy:$cond" "$(calc '100 * (1 - v / b)' v="${M[tpy:$cond:$r]# }" \
				b="${M[tpy:none:$r]# }")"
			add "ovhspin:$cond" "$(calc '100 * (1 - v / b)' v="${M[tspin:$cond:$r]# }" \
				b="${M[tspin:none:$r]# }")"
		done
	done
	for ((r = 0; r < RUNS; r++)); do
		add "tpy:none" "${M[tpy:none:$r]# }"
		add "tspin:none" "${M[tspin:none:$r]# }"
	done
	cost_ratios
}

# Each repetition's BPF cost per sample of dwarf and auto over fp's.
cost_ratios() {
	local r f col ph a b

	for ((r = 0; r < RUNS; r++)); do
		for f in "${FREQS[@]}"; do
			for col in dwarf auto; do
				for ph in py spin; do
					a=${M[cost_$ph:$col@$f:$r]:-} b=${M[cost_$ph:fp@$f:$r]:-}
					[[ -z $a || -z $b ]] ||
						add "costr_$ph:$col@$f" "$(calc 'a / b' a="$a" b="$b")"
				done
			done
		done
	done
}

# Symbolization -------------------------------------------------------------

# flamebpf's symbolizer on LIB's addresses: sym_fb LIB ADDRS
sym_fb() {
	local res=$WORK/sym.res kvs=$WORK/sym.kv

	run_job "$MARKER" run -o "$res" -- "$SYMBOLIZE_BIN" lookup "$1" "$2" "$WORK/fb.names" \
		>"$kvs" 2>"$WORK/sym.log" || die "bench_marker failed"
	[[ $(kv "$res" status) == 0 ]] || die_log "$WORK/sym.log" "bench_symbolize lookup '$1' failed"
	add "symload:$1" "$(kv "$kvs" load_s)"
	add "symlookup:$1" "$(kv "$kvs" lookup_s)"
	add "symwall:fb:$1" "$(calc 'e - l' e="$(kv "$res" exit)" l="$(kv "$res" launch)")"
	add "symrss:fb:$1" "$(kv "$res" maxrss_kib)"
	add "symgrow:$1" "$(kv "$kvs" hwm_grow_kib)"
	SYM_FUNCS[$1]=$(kv "$kvs" funcs)
	SYM_NAMED[fb:$1]=$(kv "$kvs" named)
}

# addr2line -f on the same addresses (from its standard input): sym_a2l LIB ADDRS
sym_a2l() {
	local res=$WORK/sym.res

	# shellcheck disable=SC2016 # expanded by that shell
	run_job "$MARKER" run -o "$res" -- sh -c 'exec addr2line -f -e "$1" <"$2"' sh "$1" "$2" \
		>"$WORK/a2l.out" 2>"$WORK/sym.log" || die "bench_marker failed"
	[[ $(kv "$res" status) == 0 ]] || die_log "$WORK/sym.log" "addr2line -f -e '$1' failed"
	add "symwall:a2l:$1" "$(calc 'e - l' e="$(kv "$res" exit)" l="$(kv "$res" launch)")"
	add "symrss:a2l:$1" "$(kv "$res" maxrss_kib)"
	awk 'NR % 2 == 1' "$WORK/a2l.out" >"$WORK/a2l.names"
}

# unwind_table__build on LIB: sym_unwind LIB
sym_unwind() {
	local kvs=$WORK/unw.kv

	"$SYMBOLIZE_BIN" unwind "$1" "$UNW_REPS" >"$kvs" 2>"$WORK/sym.log" ||
		die_log "$WORK/sym.log" "bench_symbolize unwind '$1' failed"
	add "unwbuild:$1" "$(kv "$kvs" build_s)"
	SYM_ROWS[$1]=$(kv "$kvs" rows)
	SYM_FDES[$1]=$(kv "$kvs" fdes)
}

# How addr2line's names compare with flamebpf's, on the last run: sym_compare LIB
sym_compare() {
	[[ -s $WORK/a2l.names ]] || return 0
	read -r SYM_NAMED["a2l:$1"] SYM_AGREE["$1"] SYM_BOTH["$1"] < <(
		paste -d '\n' "$WORK/fb.names" "$WORK/a2l.names" | awk '
			NR % 2 { f = $0; next }
			{ a += $0 != "??"; if (f != "??" && $0 != "??") { b++; s += f == $0 } }
			END { printf "%d %d %d\n", a, s, b }')
}

bench_symbolize() {
	local r lib addrs i libs=()

	for lib in $SYM_LIBS; do
		if [[ ! -r $lib ]]; then
			NOTES+=("Symbolizer: no '$lib' on this system, skipped.")
			log "warning: cannot read '$lib': skipped"
			continue
		fi
		libs+=("$lib")
		"$SYMBOLIZE_BIN" addrs "$lib" "$SYM_ADDRS" 1 >"$WORK/addrs.$((${#libs[@]} - 1))" \
			2>"$WORK/sym.log" || die_log "$WORK/sym.log" "cannot pick addresses in '$lib'"
	done
	SYM_USED=("${libs[@]}")
	for ((r = 0; r < RUNS; r++)); do
		for i in "${!libs[@]}"; do
			lib=${libs[i]} addrs=$WORK/addrs.$i
			log "symbolizer: run $((r + 1))/$RUNS: $lib"
			if (((r + i) % 2)) && [[ -z ${SKIP[addr2line]:-} ]]; then
				sym_a2l "$lib" "$addrs"
				sym_fb "$lib" "$addrs"
			else
				sym_fb "$lib" "$addrs"
				[[ -n ${SKIP[addr2line]:-} ]] || sym_a2l "$lib" "$addrs"
			fi
			sym_unwind "$lib"
			((r < RUNS - 1)) || sym_compare "$lib"
		done
	done
}

warm_up() {
	log "warm-up (not measured)"
	run_job "$PY_LINK" -E -s "$PY_SCRIPT" 0.5 "$PY_DEPTH" >/dev/null 2>&1 || true
	run_job "$FLAMEBPF" --sample 99 -d 0.5 -o "$WORK/warm.out" 2>/dev/null || true
	[[ -n ${SKIP[perf]:-} ]] ||
		run_job "$PERF" record -a -g -F 99 -o "$WORK/warm.data" -- sleep 0.5 >/dev/null 2>&1 ||
		true
	rm -f -- "$WORK/warm.out" "$WORK/warm.data"
}

# Table cells -----------------------------------------------------------------

ns_fmt() {
	awk -v v="$1" 'BEGIN { if (v >= 1e4 || v <= -1e4) printf "%.1f µs", v / 1e3; else printf "%.0f ns", v }'
}
int_fmt() { awk -v v="$1" 'BEGIN { printf "%.0f", v }'; }
ratio_fmt() { awk -v v="$1" 'BEGIN { printf "%.2f×", v }'; }
pct_fmt() { awk -v p="$1" 'BEGIN { p = sprintf("%.1f", p); printf "%s%%", p + 0 == 0 ? "0.0" : p }'; }
num_fmt() { awk -v v="$1" 'BEGIN { printf "%.1f", v }'; }
bytes_fmt() {
	awk -v b="$1" 'BEGIN {
		if (b >= 1048576) printf "%.1f MiB", b / 1048576
		else if (b >= 1024) printf "%.0f KiB", b / 1024
		else printf "%d B", b }'
}
kib_fmt() { bytes_fmt "$(calc 'k * 1024' k="$1")"; }
rate_fmt() {
	awk -v v="$1" 'BEGIN {
		if (v >= 1e6) printf "%.1f M/s", v / 1e6
		else if (v >= 1e3) printf "%.1f k/s", v / 1e3
		else printf "%.0f /s", v }'
}
ms_fmt() { awk -v v="$1" 'BEGIN { printf "%.2f ms", v }'; }

# A cell of KEY formatted by FMT, or "—" when KEY has no value: cell KEY FMT
cell() {
	if [[ -n ${M[$1]:-} ]]; then spread "$1" "$2"; else printf '—'; fi
}

# A table row of KEY@F over every column: col_row LABEL KEY F FMT
col_row() {
	local cells=() col

	for col in "${COLS[@]}"; do
		cells+=("$(cell "$1:$col@$3" "$4")")
	done
	row "$2" "${cells[@]}"
}

# CPU time the Python load lost per sample, from its drop at F Hz (d / F),
# in ns; a median over runs of the pairwise drops.
lost_per_sample() {
	local col v

	for col in "${COLS[@]}"; do
		for v in ${M[ovhpy:$col@$1]:-}; do
			add "lost:$col@$1" "$(calc 'd / 100 / f * 1e9' d="$v" f="$1")"
		done
	done
}

profiled_table() {
	local f peer

	if [[ -n ${SKIP[perf]:-} ]]; then peer="no perf"; else peer=$("$PERF" --version); fi
	table_intro "User-stack unwinding: flamebpf --unwind fp / dwarf / auto vs perf" "$peer"
	printf 'Loads without frame pointers, one after the other under one profiler run:\n'
	printf "%s copies of Debian's %s (%s) recursing through C for %s s, %s user frames a sample\n" \
		"$NCPU" "$PYTHON" "$("$PY_REAL" --version 2>&1)" "$PHASE_SECS" \
		"$(num_fmt "$(mstat median depth:auto@99 2>/dev/null || echo 0)")"
	printf '(%s k recursions per CPU-second alone), then bench_spin on %s threads for %s s\n' \
		"$(num_fmt "$(calc 'v / 1e3' v="$(mstat median tpy:none)")")" "$NCPU" "$PHASE_SECS"
	printf '(%s M iterations per CPU-second alone).\n\n' \
		"$(num_fmt "$(calc 'v / 1e6' v="$(mstat median tspin:none)")")"
	row "measure" "flamebpf --unwind fp" "--unwind dwarf" "--unwind auto" \
		"perf --call-graph dwarf" "perf -g"
	row "---" "---" "---" "---" "---" "---"
	for f in "${FREQS[@]}"; do
		col_row cost_py "BPF program per sample, Python phase, $f Hz" "$f" ns_fmt
		col_row cost_spin "BPF program per sample, spin phase, $f Hz" "$f" ns_fmt
	done
	for f in "${FREQS[@]}"; do
		col_row costr_py "the same ÷ --unwind fp's in the same repetition, Python, $f Hz" \
			"$f" ratio_fmt
		col_row costr_spin "the same ÷ --unwind fp's in the same repetition, spin, $f Hz" \
			"$f" ratio_fmt
	done
	for f in "${FREQS[@]}"; do
		col_row sharepy "Python phase: samples that were the load's, $f Hz" "$f" pct_fmt
		col_row sharespin "spin phase: samples that were the load's, $f Hz" "$f" pct_fmt
	done
	for f in "${FREQS[@]}"; do
		col_row ovhpy "Python throughput drop at $f Hz" "$f" pct_fmt
		col_row ovhspin "spin throughput drop at $f Hz" "$f" pct_fmt
	done
	lost_per_sample 999
	col_row lost "Python CPU time lost per sample at 999 Hz (drop ÷ 999 Hz)" 999 ns_fmt
	for f in "${FREQS[@]}"; do
		col_row pcpu "profiler's own CPU time at $f Hz (run and exit)" "$f" secs_fmt
	done
	for f in "${FREQS[@]}"; do
		col_row post "perf script (wall) at $f Hz" "$f" secs_fmt
		col_row postcpu "perf script (CPU) at $f Hz" "$f" secs_fmt
	done
	for f in "${FREQS[@]}"; do
		col_row size "output (folded) / perf.data at $f Hz" "$f" bytes_fmt
		col_row text "perf script text at $f Hz" "$f" bytes_fmt
	done
	for f in "${FREQS[@]}"; do
		col_row reach "Python samples reaching Py_BytesMain or main, $f Hz" "$f" pct_fmt
		col_row depth "Python samples: mean user frames, $f Hz" "$f" num_fmt
	done
	for f in "${FREQS[@]}"; do
		col_row tbins "unwind tables at $f Hz: binaries" "$f" int_fmt
		col_row trows "unwind tables at $f Hz: rows" "$f" int_fmt
		col_row tms "unwind tables at $f Hz: build time" "$f" ms_fmt
	done
	profiled_notes
}

profiled_notes() {
	local k

	cat <<EOF

Each run starts one profiler system-wide, waits ${SETTLE} s, runs the Python phase,
then the spin phase, and stops the profiler with SIGINT ${TAIL} s later:
\`flamebpf --sample F --unwind MODE -v -o FILE\`, \`perf record -a --call-graph dwarf
-F F -e cpu-clock\` (8 KiB of stack copied a sample) and \`perf record -a -g -F F -e
cpu-clock\`. Conditions rotate within repetitions; drops are paired with the same
repetition's run without a profiler. BPF program per sample: the on_sample
program's run_time_ns / run_cnt (bpftool prog show, kernel.bpf_stats_enabled=1
for these runs), read between the phases, so over every sample of that phase,
other processes' included; it covers the whole program (filters, stack walk or
unwind, map updates), not the perf_event and interrupt around it. Throughput:
recursions (iterations) per CPU-second of the loads' own CPU time, to which the
sampling interrupt is charged, so a drop is what sampling costs the sampled
thread; the CPU time lost per sample derives it from the drop (noisy at small
drops). Profiler CPU time: bench_marker's user + system time of the profiler
process over the run and its exit (perf's includes writing perf.data and its
build-id pass; its unwinding happens after, in perf script). Reach: share of the
Python processes' samples whose stack holds Py_BytesMain or main (flamebpf's
folded output; perf's through \`perf script\` and \`flamebpf render\`).
Unwind tables: what flamebpf -v says it built for every process it sampled,
the other users of this machine's included.
EOF
	for k in "${!SKIP[@]}"; do
		printf '%s\n' "${SKIP[$k]}."
	done
}

symbolize_table() {
	local lib name

	printf '\n## Symbolizer and unwind tables (%s)\n\n' "$(date '+%Y-%m-%d %H:%M')"
	printf '%s distinct random addresses inside .text, in random order; medians of %s run(s)' \
		"$SYM_ADDRS" "$RUNS"
	((RUNS == 1)) || printf ', (min–max) in brackets'
	printf '.\n%s.\n\n' "$(addr2line --version 2>/dev/null | head -n 1 || echo 'no addr2line')"
	row "library" "measure" "flamebpf (elf_symtab)" "addr2line -f"
	row "---" "---" "---" "---"
	for lib in "${SYM_USED[@]}"; do
		name=$(basename -- "$lib")
		row "$name" "functions in the symbol table" "${SYM_FUNCS[$lib]}" "—"
		row "$name" "load symbols" "$(cell "symload:$lib" secs_fmt)" "—"
		row "$name" "look up every address" "$(cell "symlookup:$lib" secs_fmt)" "—"
		row "$name" "lookups per second" \
			"$(rate_fmt "$(calc 'n / s' n="$SYM_ADDRS" s="$(mstat median "symlookup:$lib")")")" "—"
		row "$name" "whole process, addresses in, names out" \
			"$(cell "symwall:fb:$lib" secs_fmt)" "$(cell "symwall:a2l:$lib" secs_fmt)"
		row "$name" "addresses per second, whole process" \
			"$(sym_rate "fb:$lib")" "$(sym_rate "a2l:$lib")"
		row "$name" "peak RSS of the process" "$(cell "symrss:fb:$lib" kib_fmt)" \
			"$(cell "symrss:a2l:$lib" kib_fmt)"
		row "$name" "peak RSS growth during load and lookups" \
			"$(cell "symgrow:$lib" kib_fmt)" "—"
		row "$name" "addresses named" "$(named_cell "fb:$lib")" "$(named_cell "a2l:$lib")"
		row "$name" "same name where both name one" "$(agree_cell "$lib")" "—"
		row "$name" "unwind table: build (unwind_table__build, median of $UNW_REPS)" \
			"$(cell "unwbuild:$lib" secs_fmt); ${SYM_ROWS[$lib]} rows, ${SYM_FDES[$lib]} FDEs" "—"
	done
	cat <<EOF

flamebpf: tools/bench_symbolize.c linked with flamebpf's objects:
elf_symtab__load (.symtab and .dynsym, no debug file), then elf_symtab__lookup of
each address, timed apart; names are the symbol table's (no demangling). addr2line
reads the addresses on its standard input and prints name and line for each.
Whole process: launch to exit, reading the addresses and writing the names
included. A function is named by flamebpf only within its size (or up to the next
symbol when it has none); addr2line names the nearest exported symbol below.
EOF
	printf '%s\n' "${NOTES[@]}"
}

sym_rate() {
	if [[ -n ${M[symwall:$1]:-} ]]; then
		rate_fmt "$(calc 'n / s' n="$SYM_ADDRS" s="$(mstat median "symwall:$1")")"
	else
		printf '—'
	fi
}

named_cell() {
	if [[ -n ${SYM_NAMED[$1]:-} ]]; then
		printf '%s (%s)' "${SYM_NAMED[$1]}" "$(pct_fmt "$(calc '100 * n / t' \
			n="${SYM_NAMED[$1]}" t="$SYM_ADDRS")")"
	else
		printf '—'
	fi
}

agree_cell() {
	if [[ -n ${SYM_BOTH[$1]:-} ]] && ((SYM_BOTH[$1] > 0)); then
		printf '%s of %s (%s)' "${SYM_AGREE[$1]}" "${SYM_BOTH[$1]}" "$(pct_fmt "$(calc \
			'100 * a / b' a="${SYM_AGREE[$1]}" b="${SYM_BOTH[$1]}")")"
	else
		printf '—'
	fi
}

main() {
	local started=$SECONDS

	check_env
	set_traps
	trap on_exit EXIT
	trap 'on_err $? $LINENO "$BASH_COMMAND"' ERR
	mkdir -p -- "$OUT"
	WORK=$(mktemp -d "$OUT/tmp.XXXXXX")
	build_helpers
	freeze_flamebpf
	: >"$RAW"
	declare -gA SYM_FUNCS=() SYM_NAMED=() SYM_AGREE=() SYM_BOTH=() SYM_ROWS=() SYM_FDES=()
	check_idle
	BUSY_BEFORE=$BUSY
	warm_up
	bench_profiled
	bench_symbolize
	check_idle
	BUSY_AFTER=$BUSY
	{
		profiled_table
		symbolize_table
	} >"$WORK/results.md"
	{
		printf '\n'
		cat -- "$WORK/results.md"
	} >>"$OUT/results.md"
	log "done in $((SECONDS - started)) s; tables appended to build/bench/results.md"
	cat -- "$WORK/results.md"
}

main "$@"
