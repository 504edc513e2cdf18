# shellcheck shell=bash
# Shell functions shared by tools/bench.sh and tools/bench_trace.sh, which
# source this file: background jobs and cleanup, measurements and their
# medians, table cells. The sourcing script sets RAW (the file every
# measurement is appended to) and RUNS (repetitions) before it uses them.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck disable=SC2034 # for the sourcing script
OUT=$ROOT/build/bench
FLAMEBPF=${FLAMEBPF:-$ROOT/build/flamebpf}

declare -A BG=() # pids of running background jobs (= their process groups)
declare -A M=()  # measurements: M[key] is a space-separated list of values
WORK=
STATS=/proc/sys/kernel/bpf_stats_enabled
STATS_WAS= # what kernel.bpf_stats_enabled was before stats_on, while it is on

log() { printf 'bench: %s\n' "$*" >&2; }
die() {
	log "$*"
	exit 1
}

# die with the tail of a log file: die_log FILE MESSAGE
die_log() {
	sed -e 's/^/  | /' -- "$1" | tail -n 20 >&2 || true
	die "$2"
}

# Checks BENCH_RUNS, that we are root (needed for WHY) and $FLAMEBPF: check_basics WHY
check_basics() {
	[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "BENCH_RUNS must be a positive integer, not '$RUNS'"
	[[ $(id -u) == 0 ]] || die "needs root ($1)"
	[[ -x $FLAMEBPF ]] || die "cannot run '$FLAMEBPF': build it first (make)"
}

# BPF programs' run times on (kernel.bpf_stats_enabled): each run then
# costs two more reads of the clock, so only the runs that read them have it
# on; stats_restore (or the exit) puts back what it was.
stats_on() {
	[[ -n $STATS_WAS ]] || STATS_WAS=$(<"$STATS")
	echo 1 >"$STATS"
}

stats_restore() {
	[[ -z $STATS_WAS ]] || echo "$STATS_WAS" >"$STATS" ||
		log "warning: cannot restore kernel.bpf_stats_enabled to $STATS_WAS"
	STATS_WAS=
}

cleanup() {
	local pid

	trap - INT TERM HUP
	for pid in "${!BG[@]}"; do
		kill -TERM -- "-$pid" 2>/dev/null || true
	done
	wait 2>/dev/null || true
	[[ -z $WORK ]] || rm -rf -- "$WORK"
	stats_restore
}

# Cleans up on exit, and exits on INT, TERM and HUP with the shell's status.
set_traps() {
	trap cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap 'exit 129' HUP
}

# Measures a copy of $FLAMEBPF in $WORK, so that every measurement uses the
# same build even if make runs meanwhile.
freeze_flamebpf() {
	cp -- "$FLAMEBPF" "$WORK/flamebpf"
	FLAMEBPF=$WORK/flamebpf
}

# Starts "$@" in the background as a job of its own; its pid is in $!.
start_job() {
	"$@" </dev/null &
	BG[$!]=1
}

# Waits for job PID; returns its status.
wait_job() {
	local status=0

	wait "$1" || status=$?
	unset "BG[$1]"
	return "$status"
}

# Ends job PID (and its process group) and waits for it, quietly: the shell
# reports jobs killed by a signal, and this one is killed on purpose.
end_job() {
	{
		kill -TERM -- "-$1"
		wait_job "$1"
	} 2>/dev/null || true
}

# Runs "$@" as a job and waits for it, so a signal reaches our trap at once.
run_job() {
	start_job "$@"
	wait_job "$!"
}

pause() { run_job sleep "$1"; }

# Records a measurement: add KEY VALUE (also appended to $RAW).
add() {
	M[$1]="${M[$1]:-} $2"
	printf '%s\t%s\n' "$1" "$2" >>"$RAW"
}

# Median, minimum or maximum of the values of KEY: mstat median|min|max KEY
mstat() {
	# shellcheck disable=SC2086 # the value list is split on purpose
	printf '%s\n' ${M[$2]:-} | sort -g | awk -v what="$1" '
		{ v[NR] = $1 }
		END {
			if (!NR) exit 1
			if (what == "min") r = v[1]
			else if (what == "max") r = v[NR]
			else if (NR % 2) r = v[(NR + 1) / 2]
			else r = (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%.10g\n", r
		}'
}

# calc EXPR [VAR=VALUE...]: floating-point arithmetic through awk.
calc() {
	local expr=$1 a args=()

	shift
	for a in "$@"; do
		args+=(-v "$a")
	done
	awk "${args[@]}" "BEGIN { printf \"%.10g\\n\", $expr }" </dev/null
}

# The value of KEY in a key/value file (bench_marker run writes one): kv FILE KEY
kv() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }

# Sets BUSY to the percentage of the CPUs' time spent busy over one second
# (from /proc/stat) and warns when something else keeps them busy.
check_idle() {
	local a b

	a=$(head -n 1 /proc/stat)
	pause 1
	b=$(head -n 1 /proc/stat)
	# user nice system idle iowait irq softirq steal (guest time is in user)
	BUSY=$(awk -v a="$a" -v b="$b" 'BEGIN {
		split(a, x); split(b, y)
		for (i = 2; i <= 9; i++) {
			d = y[i] - x[i]; t += d
			if (i == 5 || i == 6) idle += d
		}
		printf "%.0f\n", t ? 100 * (1 - idle / t) : 0
	}')
	((BUSY <= 5)) ||
		log "warning: the CPUs are ${BUSY}% busy without the benchmark: noisy results"
}

# The BPF program NAME (default on_sample) of the process $1: "RUN_TIME_NS
# RUN_CNT", from the fdinfo of its descriptor (bpftool may not say pids):
# sample_stats PID [NAME]
sample_stats() {
	"${BPFTOOL:-bpftool}" prog show --json | python3 -c '
import glob, json, sys
ids = {p["id"] for p in json.load(sys.stdin) if p.get("name") == sys.argv[2]}
for f in glob.glob("/proc/%s/fdinfo/*" % sys.argv[1]):
    try:
        info = dict(l.split(":", 1) for l in open(f).read().splitlines() if ":" in l)
    except OSError:
        continue
    if int(info.get("prog_id", "-1")) in ids and "run_cnt" in info:
        print(info["run_time_ns"].strip(), info["run_cnt"].strip())
        sys.exit(0)
sys.exit(1)' "$1" "${2:-on_sample}"
}

# Tables ------------------------------------------------------------------

# Appends what table() prints to build/bench/results.md, after the tables
# of the benchmarks before it, and shows it: append_table STARTED_SECONDS
append_table() {
	table >"$WORK/results.md"
	{
		printf '\n'
		cat -- "$WORK/results.md"
	} >>"$OUT/results.md"
	log "done in $((SECONDS - $1)) s; table appended to build/bench/results.md"
	cat -- "$WORK/results.md"
}

# The opening lines of a results table: table_intro TITLE PEER_VERSION
table_intro() {
	printf '## %s (%s)\n\n' "$1" "$(date '+%Y-%m-%d %H:%M')"
	printf 'Linux %s, %s CPUs; %s; %s; medians of %s run(s)' "$(uname -r)" "$(nproc --all)" \
		"$("$FLAMEBPF" --version)" "$2" "$RUNS"
	((RUNS == 1)) || printf ', (min–max) in brackets'
	printf '.\nCPUs busy without the benchmark (other load): %s%% before, %s%% after.\n' \
		"$BUSY_BEFORE" "$BUSY_AFTER"
}

secs_fmt() {
	awk -v s="$1" 'BEGIN { if (s < 1) printf "%.1f ms", s * 1000; else printf "%.2f s", s }'
}

# "median (range min–max)" when there is more than one run: spread KEY FMT
spread() {
	local med lo hi

	med=$(mstat median "$1")
	if ((RUNS == 1)); then
		"$2" "$med"
		return
	fi
	lo=$(mstat min "$1")
	hi=$(mstat max "$1")
	printf '%s (%s–%s)' "$("$2" "$med")" "$("$2" "$lo")" "$("$2" "$hi")"
}

# A Markdown table row of the cells given: row CELL...
row() {
	local out='|' cell

	for cell in "$@"; do
		out+=" $cell |"
	done
	printf '%s\n' "$out"
}

# The kernel memory of the BPF maps process $1 holds, KiB: each map once,
# as its fdinfo counts it (memlock).
map_kib() {
	local f id mem total=0 seen=' '

	for f in /proc/"$1"/fdinfo/*; do
		id=$(awk '$1 == "map_id:" { print $2 }' "$f" 2>/dev/null) || continue
		[[ -n $id && $seen != *" $id "* ]] || continue
		seen+="$id "
		mem=$(awk '$1 == "memlock:" { print $2 }' "$f" 2>/dev/null)
		total=$((total + ${mem:-0}))
	done
	echo $((total / 1024))
}
