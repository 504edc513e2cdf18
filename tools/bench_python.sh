#!/usr/bin/env bash
# Benchmarks sampling a Python process with its Python frames walked in
# BPF against the same capture without the walk (FLAMEBPF_NO_PYTHON=1),
# at 99 and 999 Hz: the throughput tests/workloads/py_busy.py loses (its
# rounds of work per CPU-second of its own, against an untraced run of the
# same repetition), and what on_sample costs per sample of it, by
# kernel.bpf_stats_enabled, and what the walk itself takes a sample
# (FLAMEBPF_PY_TIME=1: the kernel's clock read around it), the steadier
# figure: only the walk in it, none of the rest of on_sample. Beside them, the
# floor of any walk at each rate: what a sample costs a program that only
# looks up the sampled process's entry and reads 256 bytes of its stack,
# against an empty one (build/bench/bench_floor sample). py-spy, the peer,
# is not packaged by Debian 12 nor npm: its row says so. Appends a Markdown table to
# build/bench/results.md (every measurement goes to
# build/bench/raw_python.tsv). Run by `make bench`, from the repository
# root; needs root, build/flamebpf and Debian's python3.11.
#
#   BENCH_RUNS=N   repetitions, medians reported (default 5)
#   BENCH_QUICK=1  smoke run: 1 repetition, shorter runs
#   PYTHON         the interpreter (default /usr/bin/python3.11)
set -euo pipefail
set -m

# shellcheck source=SCRIPTDIR/bench_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_lib.sh"
RAW=$OUT/raw_python.tsv
PYTHON=${PYTHON:-/usr/bin/python3.11}
PY_BUSY=$ROOT/tests/workloads/py_busy.py
BPFTOOL=${BPFTOOL:-bpftool}

if [[ ${BENCH_QUICK:-0} == 1 ]]; then
	RUNS=${BENCH_RUNS:-1} SECS=3
else
	RUNS=${BENCH_RUNS:-5} SECS=8
fi
SETTLE=0.3 # seconds py_busy runs before flamebpf is started on it
FLOOR_BIN=$ROOT/build/bench/bench_floor FLOOR_OBJ=$ROOT/build/bench/bench_floor.bpf.o
# py_busy on a CPU of its own, the rest (flamebpf, the reads of its
# statistics) on the other (poll_stats())
BUSY_CPU=()
FREQS=(99 999)
CONDS=(none py@99 nopy@99 walk@99 py@999 nopy@999 walk@999)
# py_busy's functions and their shares of its CPU (its SLICE split)
FUNCS=(parse compute encode)
declare -A SHARE=([parse]=0.3 [compute]=0.6 [encode]=0.1)
declare -A WHY=() # conditions that could not run: why
FLOOR=''

label() {
	case $1 in
	none) echo "untraced" ;;
	py@*) echo "flamebpf -F ${1#*@} -p PID (Python frames walked)" ;;
	nopy@*) echo "flamebpf -F ${1#*@} -p PID, FLAMEBPF_NO_PYTHON=1 (native frames only)" ;;
	walk@*) echo "flamebpf -F ${1#*@} -p PID, FLAMEBPF_PY_TIME=1 (the walk timed)" ;;
	esac
}

# py-spy is the peer: installed when a registry this machine reaches has it.
find_pyspy() {
	command -v py-spy >/dev/null && return
	if apt-cache show py-spy >/dev/null 2>&1; then
		apt-get install -y -qq --no-install-recommends py-spy >"$OUT/apt-py-spy.log" 2>&1 ||
			true
	fi
	command -v py-spy >/dev/null ||
		PYSPY_WHY="py-spy is not packaged by Debian 12 nor npm (PyPI and crates.io are out of reach here): compared with flamebpf without the Python walk"
}

check_env() {
	check_basics "BPF programs and system-wide perf events"
	[[ -x $PYTHON && $(head -c 4 -- "$(readlink -f -- "$PYTHON")") == $'\x7fELF' ]] ||
		die "cannot run '$PYTHON' as an ELF binary: set PYTHON to Debian's python3.11"
	[[ -r $PY_BUSY ]] || die "cannot read '$PY_BUSY'"
	[[ -w $STATS ]] || die "cannot write '$STATS' (kernel.bpf_stats_enabled)"
	[[ -x $FLOOR_BIN && -f $FLOOR_OBJ ]] ||
		die "no build/bench/bench_floor (make build/bench/bench_floor builds it)"
	command -v "$BPFTOOL" >/dev/null || die "cannot find '$BPFTOOL' (tools/deps.sh --bench)"
	PYSPY_WHY=
	find_pyspy
	[[ -z $PYSPY_WHY ]] || log "$PYSPY_WHY"
}

# Adds py_busy's rate of each function (rounds per CPU-second) in its
# output FILE under COND and repetition R: add_rates FILE COND R
add_rates() {
	local f spent work

	for f in "${FUNCS[@]}"; do
		spent=$(awk -v f="$f" '$1 == "py_busy:" { for (i = 2; i < NF; i++) if ($i == f) print $(i + 1) }' "$1")
		work=$(awk -v f="$f" '$2 == "work:" { for (i = 3; i < NF; i++) if ($i == f) print $(i + 1) }' "$1")
		[[ -n $spent && -n $work ]] || die_log "$1" "py_busy printed no work or CPU time for $f"
		add "rate:$f:$2:$3" "$(calc 'w / s' w="$work" s="$spent")"
	done
}

# The summary's count in flamebpf's -v stderr FILE: summary_num FILE SED_REGEX
summary_num() { sed -n "s/^flamebpf: $2.*/\\1/p" "$1" | head -n 1; }

# on_sample's cost per sample of py_busy, from its last RT RC reading and
# flamebpf's summary (LOG): runs for other processes (the other CPU's,
# filtered out at once) are taken out at FLOOR ns each: per_sample RT RC LOG
per_sample() {
	local n f

	n=$(summary_num "$3" '\([0-9]*\) samples, ')
	f=$(summary_num "$3" '.* \([0-9]*\) samples of other processes skipped')
	[[ -n $n && -n $f ]] && ((n > 0)) || return 1
	calc '(t - c * q * fl) / (c * (1 - q))' t="$1" c="$2" q="$(calc 'f / (n + f)' f="$f" n="$n")" \
		fl="$FLOOR"
}

# Samples flamebpf for PID (-F FREQ), its -v summary into LOG, until PID
# exits (or for SECS when given); sets RT and RC to on_sample's last
# reading: sample_pid COND FREQ PID LOG [SECS]
sample_pid() {
	local fpid s args=(-v -F "$2" -p "$3" -o "$WORK/out.folded") off=0 timed=0

	[[ -z ${5:-} ]] || args+=(-d "$5")
	[[ $1 != nopy* ]] || off=1
	[[ $1 != walk* ]] || timed=1
	RT='' RC=''
	start_job env FLAMEBPF_NO_PYTHON=$off FLAMEBPF_PY_TIME=$timed "$FLAMEBPF" "${args[@]}" \
		>/dev/null 2>"$4"
	fpid=$!
	poll_stats "$fpid"
	wait_job "$fpid" || true
}

# Reads on_sample's statistics of process PID into RT and RC once a second
# until it exits. Each read (a bpftool and a python3) costs py_busy, on
# the other CPU, 12-13% of its rounds while it runs (the two CPUs share
# caches): read every 0.2 s, that was 17-20 points of "overhead" in every
# condition. The untraced runs read as often (nothing to find) so that
# the cost is the same in each: poll_stats PID
poll_stats() {
	local s i=0

	while kill -0 "$1" 2>/dev/null; do
		if ((i++ % 5 == 4)) && s=$(sample_stats "$1"); then
			read -r RT RC <<<"$s"
		fi
		pause 0.2
	done
}

# What a filtered run costs (a sleeping target: every sample is another
# process's), into FLOOR for this repetition (the last one's if no reading
# came).
run_floor() {
	local spid

	start_job sleep 600
	spid=$!
	sample_pid floor 999 "$spid" "$WORK/floor.log" 2
	end_job "$spid"
	if [[ -n $RT ]] && ((RC > 0)); then
		FLOOR=$(calc 't / c' t="$RT" c="$RC")
		add "floor" "$FLOOR"
	elif [[ -z ${FLOOR:-} ]]; then
		die_log "$WORK/floor.log" "no run-time statistics of on_sample (kernel.bpf_stats_enabled?)"
	fi
}

# One run of condition $1 in repetition $2.
run_one() {
	local out=$WORK/py.out log=$WORK/fb.log pid v pct

	start_job "${BUSY_CPU[@]}" "$PYTHON" "$PY_BUSY" "$SECS" >"$out" 2>&1
	pid=$!
	if [[ $1 != none ]]; then
		pause "$SETTLE"
		sample_pid "$1" "${1#*@}" "$pid" "$log"
	else
		poll_stats "$pid"
	fi
	wait_job "$pid" || die_log "$out" "py_busy failed"
	add_rates "$out" "$1" "$2"
	[[ $1 != none ]] || return 0
	if [[ -z $RT ]] || ! v=$(per_sample "$RT" "$RC" "$log"); then
		WHY[$1]="no run-time statistics of on_sample, or no samples: $(tail -n 1 "$log")"
		return
	fi
	add "ns:$1" "$v"
	if [[ $1 == walk* ]]; then
		v=$(summary_num "$log" 'python: the walk took \([0-9]*\) ns')
		[[ -n $v ]] || die_log "$log" "flamebpf printed no time of the walk"
		add "walkns:$1" "$v"
	fi
	pct=$(summary_num "$log" 'python: .*, \([0-9]*\)% of its samples with Python frames')
	add "pyshare:$1" "${pct:-0}"
}

# The least walk's cost per sample at FREQ in repetition R: a program
# that looks up the process's entry and reads 256 bytes of its stack,
# less an empty program, each sampling its own run of py_busy: least FREQ R
least() {
	local p ns log=$WORK/least.log
	declare -A at=()

	for p in sample_empty sample_lookup_read; do
		run_job "${BUSY_CPU[@]}" env BENCH_FLOOR_PROG="$p" "$FLOOR_BIN" "$FLOOR_OBJ" sample \
			"$1" -- "$PYTHON" "$PY_BUSY" "$SECS" >/dev/null 2>"$log" ||
			die_log "$log" "bench_floor sample $1 with $p failed"
		ns=$(sed -n "s/^bench_floor: $p: [0-9]* runs, \([0-9]*\) ns a run$/\1/p" "$log")
		[[ -n $ns ]] || die_log "$log" "bench_floor printed no run time for $p"
		at[$p]=$ns
	done
	add "least:$1" "$(calc 'a - b' a="${at[sample_lookup_read]}" b="${at[sample_empty]}")"
}

# py_busy's throughput under each condition against the untraced run of
# the same repetition: its functions' rates, weighed by their CPU shares.
overheads() {
	local c r f ratio

	for c in "${CONDS[@]:1}"; do
		for ((r = 1; r <= RUNS; r++)); do
			ratio=0
			for f in "${FUNCS[@]}"; do
				ratio=$(calc 'a + s * v / b' a="$ratio" s="${SHARE[$f]}" \
					v="${M[rate:$f:$c:$r]# }" b="${M[rate:$f:none:$r]# }")
			done
			add "ovh:$c" "$(calc '100 * (1 - x)' x="$ratio")"
		done
	done
}

ns_fmt() { awk -v v="$1" 'BEGIN { printf "%.0f ns", v }'; }
pt_fmt() { awk -v v="$1" 'BEGIN { printf "%.1f", v }'; }

# Median difference with Python frames and without at FREQ, of KEY: delta KEY FREQ FMT
delta() {
	"$3" "$(calc 'a - b' a="$(mstat median "$1:py@$2")" b="$(mstat median "$1:nopy@$2")")"
}

table() {
	local c f w

	table_intro "Python: sampling py_busy.py with and without its Python frames (tools/bench_python.sh)" \
		"$("$PYTHON" --version 2>&1)"
	printf '\n\n| %s s of py_busy.py | overhead (points of CPU) | on_sample per sample of it | the walk itself per sample | samples with Python frames |\n| --- | --- | --- | --- | --- |\n' "$SECS"
	row "$(label none)" "" "" "" ""
	for c in "${CONDS[@]:1}"; do
		if [[ -n ${WHY[$c]:-} ]]; then
			row "$(label "$c")" "${WHY[$c]}" "" "" ""
			continue
		fi
		w=
		[[ $c != walk* ]] || w=$(spread "walkns:$c" ns_fmt)
		row "$(label "$c")" "$(spread "ovh:$c" pt_fmt)" "$(spread "ns:$c" ns_fmt)" "$w" \
			"$(pt_fmt "$(mstat median "pyshare:$c")")%"
	done
	[[ -z $PYSPY_WHY ]] || row "py-spy" "not run: $PYSPY_WHY" "" "" ""
	printf '\nA filtered run of on_sample (the other CPU'"'"'s samples, taken out above): %s.\n' \
		"$(spread floor ns_fmt)"
	for f in "${FREQS[@]}"; do
		[[ -n ${WHY[py@$f]:-}${WHY[nopy@$f]:-} ]] ||
			printf 'At %s Hz the Python walk adds %s per sample and %s points of overhead (differences of the medians).\n' \
				"$f" "$(delta ns "$f" ns_fmt)" "$(delta ovh "$f" pt_fmt)"
	done
	for f in "${FREQS[@]}"; do
		[[ -n ${WHY[walk@$f]:-} ]] ||
			printf 'At %s Hz the walk itself takes %s per sample (FLAMEBPF_PY_TIME=1, median): %s points of a CPU sampled %s times a second.\n' \
				"$f" "$(ns_fmt "$(mstat median "walkns:walk@$f")")" \
				"$(awk -v v="$(calc 'n * f / 1e7' n="$(mstat median "walkns:walk@$f")" f="$f")" \
					'BEGIN { printf "%.3f", v }')" "$f"
	done
	for f in "${FREQS[@]}"; do
		printf 'At %s Hz a program that only looks up the sampled process'"'"'s entry and reads 256 bytes of its stack costs %s a sample more than an empty one (bench_floor sample): the first two steps of a walk built as flamebpf'"'"'s is, at that rate, on this machine.\n' \
			"$f" "$(spread "least:$f" ns_fmt)"
	done
	if ((${#BUSY_CPU[@]})); then
		printf 'py_busy ran on CPU 0, flamebpf and the reads of its statistics on CPU 1.\n'
	else
		printf 'py_busy was not pinned to a CPU of its own (one CPU, or no taskset).\n'
	fi
}

main() {
	local started=$SECONDS r i n=${#CONDS[@]} c f

	mkdir -p "$OUT"
	: >"$RAW"
	check_env
	if (($(nproc) >= 2)) && command -v taskset >/dev/null; then
		BUSY_CPU=(taskset -c 0)
		taskset -cp 1 $$ >/dev/null
	fi
	WORK=$(mktemp -d)
	set_traps
	freeze_flamebpf
	check_idle
	BUSY_BEFORE=$BUSY
	stats_on
	for ((r = 1; r <= RUNS; r++)); do
		run_floor
		for f in "${FREQS[@]}"; do
			log "run $r/$RUNS: the least walk's floor at $f Hz"
			least "$f" "$r"
		done
		# conditions rotate by one place each repetition to spread drift
		for ((i = 0; i < n; i++)); do
			c=${CONDS[(i + r - 1) % n]}
			log "run $r/$RUNS: $c"
			run_one "$c" "$r"
		done
	done
	stats_restore
	overheads
	check_idle
	BUSY_AFTER=$BUSY
	append_table "$started"
}

main "$@"
