#!/usr/bin/env bash
# Benchmarks flamebpf's uprobe mode (-f) side by side with bpftrace in one run:
# the cost of one traced call by kind of probe site, start-up and exit with
# every function of libc, and the call rate traced without loss. Appends a
# Markdown table to build/bench/results.md (every measurement goes to
# build/bench/raw_trace.tsv). Run by `make bench` after tools/bench.sh, from
# the repository root; needs root, build/flamebpf, clang and objdump, and
# installs bpftrace when it is missing (without it, its columns stay empty).
#
#   BENCH_RUNS=N   repetitions of each measurement, medians reported (default 5)
#   BENCH_QUICK=1  smoke run: 1 repetition, short durations
#   FLAMEBPF, BPFTRACE override build/flamebpf and bpftrace
set -euo pipefail
# Every background job gets its own process group, so cleanup can end a job
# together with whatever it started.
set -m

# ROOT, OUT, FLAMEBPF, and the functions shared with bench.sh
# shellcheck source=SCRIPTDIR/bench_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_lib.sh"
RAW=$OUT/raw_trace.tsv
BPFTRACE=${BPFTRACE:-bpftrace}

if [[ ${BENCH_QUICK:-0} == 1 ]]; then
	RUNS=${BENCH_RUNS:-1} LOOP_SECS=0.2 BASE_SECS=0.1 RATE_SECS=1 STOP_AFTER=0.5 PART_SECS=1
else
	RUNS=${BENCH_RUNS:-5} LOOP_SECS=0.5 BASE_SECS=0.2 RATE_SECS=3 STOP_AFTER=1 PART_SECS=2
fi
WARMUP=1000 # untimed calls bench_calls makes before its loop (traced too)
SHORT=0.01  # -d of the libc start-up run
CALL_ROWS=(push nop5 sstep outer outerx)
# none: untraced; pair, session: the floors, empty programs (bench_floor) as a
# classic uprobe + uretprobe pair and as a uprobe session; floor, hist:
# bpftrace; fb, fbp: flamebpf -- COMMAND and -p PID; fbt: its timeline mode
CALL_CONDS=(none pair session floor fb fbp fbt hist)
FLOORS=(pair session)
# the programs whose run times are read beside flamebpf's (bench_floor.bpf.c)
PART_CONDS=(empty clock clock_storage fb)
# NTHREADS:RATE (calls per second in all; 0: no limit); u: untraced
# uN: untraced; N: aggregated; tN: timeline mode (--flamechart: a record per call)
RATE_CONDS=(u2:0 2:500000 2:1000000 2:2000000 2:0 8:0 t2:1000000 t2:0)

declare -A SITE=()      # per-call rows: what flamebpf said about the probe sites
declare -A LOST=()      # rate conditions: the distinct "lost:" lines, each in []
declare -A SHORTFALL=() # rate conditions: calls made but not seen, summed
HAVE_BT=0
PARTS_WHY= # why the programs' run times were not read
BT_NOTE=
WARNINGS=()

ns_fmt() {
	awk -v v="$1" 'BEGIN {
		if (v < 10) printf "%.2f ns", v; else if (v < 100) printf "%.1f ns", v
		else printf "%.0f ns", v }'
}
rate_fmt() {
	awk -v v="$1" 'BEGIN { if (v >= 1e6) printf "%.2f M/s", v / 1e6; else printf "%.0f k/s", v / 1e3 }'
}
ratio_fmt() { awk -v v="$1" 'BEGIN { printf "%.2f×", v }'; }

check_env() {
	local tool

	check_basics "uprobes and BPF programs"
	for tool in clang clang++ objdump gcc; do
		command -v "$tool" >/dev/null || die "cannot find '$tool' (tools/deps.sh --all installs it)"
	done
	[[ -x $ROOT/build/bench/bench_floor && -f $ROOT/build/bench/bench_floor.bpf.o ]] ||
		die "no build/bench/bench_floor (make build/bench/bench_floor builds it)"
}

# Sets HAVE_BT; installs Debian's bpftrace when it is missing (as root).
check_bpftrace() {
	local apt=$OUT/apt-bpftrace.log tried=0

	if ! command -v "$BPFTRACE" >/dev/null && [[ $BPFTRACE == bpftrace ]] &&
		! dpkg -s bpftrace >/dev/null 2>&1; then
		log "installing bpftrace (the peer of the per-call rows; log in $apt)"
		export DEBIAN_FRONTEND=noninteractive
		tried=1
		apt-get install -y -qq --no-install-recommends bpftrace >"$apt" 2>&1 ||
			{ apt-get update -qq >>"$apt" 2>&1 &&
				apt-get install -y -qq --no-install-recommends bpftrace >>"$apt" 2>&1; } ||
			true
	fi
	if ! command -v "$BPFTRACE" >/dev/null; then
		BT_NOTE="No bpftrace: cannot find '$BPFTRACE'"
		((!tried)) || BT_NOTE+=" (apt-get install bpftrace failed: see $apt)"
		BT_NOTE+="; its cells are empty."
	elif [[ $WORK == *[[:space:]]* ]]; then
		BT_NOTE="No bpftrace: its -c cannot take '$WORK' (a space); its cells are empty."
	else
		HAVE_BT=1
		return
	fi
	log "warning: $BT_NOTE"
}

build_helpers() {
	local flags=(-O2 -g -fno-omit-frame-pointer -Wall -Wextra -Werror -pthread)

	clang "${flags[@]}" -std=gnu11 "$ROOT/tools/bench_calls.c" -o "$BC"
	# clang++ links libstdc++; the dummy try/catch gives a .gcc_except_table
	clang++ "${flags[@]}" -x c++ "$ROOT/tools/bench_calls.c" -x none -o "$BCXX"
	gcc -O2 -Wall -Wextra -Werror -std=gnu11 "$ROOT/tools/bench_marker.c" -o "$MARKER"
	check_sites
}

# The first instruction of SYMBOL in BINARY as "BYTES|TEXT": insn BINARY SYMBOL
insn() {
	objdump -d --disassemble="$2" "$1" | awk -F '\t' -v s="<$2>:" '
		index($0, s) { on = 1; next }
		on && NF >= 3 && !done {
			gsub(/ +$/, "", $2)
			gsub(/ +/, " ", $3)
			print $2 "|" $3
			done = 1
		}'
}

# The instructions of SYMBOL in BINARY, without their addresses: code BINARY SYMBOL
code() {
	objdump -d --no-addresses --no-show-raw-insn --disassemble="$2" "$1" |
		awk -v s="<$2>:" 'index($0, s) { on = 1; next } on && NF == 0 { exit } on'
}

# Fails unless the probe sites are what the rows claim.
check_sites() {
	local got bin f

	got=$(insn "$BC" bench_push)
	[[ $got == "55|push %rbp" ]] || die "bench_push starts with '$got', not push %rbp"
	got=$(insn "$BC" bench_nop5)
	[[ ${got%%|*} == "0f 1f 44 00 00" ]] || die "bench_nop5 starts with '$got', not a nop5"
	got=$(insn "$BC" bench_sstep)
	[[ ${got#*|} == lea* ]] || die "bench_sstep starts with '$got', not lea"
	got=$(insn "$BCXX" bench_outer_ret)
	[[ ${got%%|*} == c3 ]] || die "bench_outer_ret is '$got', not a ret"
	# the twins of the one-loop table: the same instructions under another name
	for bin in "$BC" "$BCXX"; do
		for f in push nop5 sstep outer; do
			[[ $(code "$bin" "bench_$f") == "$(code "$bin" "bench_${f}_b")" ]] ||
				die "bench_${f}_b in $bin is not bench_$f's twin"
		done
	done
	# whole outputs, not pipes into grep -q: a SIGPIPE would fail them under pipefail
	[[ $(objdump -h "$BCXX") == *.gcc_except_table* ]] || die "$BCXX has no .gcc_except_table"
	[[ $(objdump -h "$BC") != *.gcc_except_table* ]] || die "$BC has a .gcc_except_table"
}

# Per-call cost ------------------------------------------------------------

# Sets BIN, FUNC, LOOPARG and RETP (bpftrace's return probe) for a row.
call_site() {
	BIN=$BC FUNC=bench_$1 LOOPARG=$1
	case $1 in
	outer) FUNC=bench_outer ;;
	outerx) BIN=$BCXX FUNC=bench_outer LOOPARG=outer ;;
	esac
	RETP="uretprobe:$BIN:$FUNC" RETSYM=()
	# flamebpf probes the ret instruction there: so do the peers
	[[ $1 != outerx ]] || RETP="uprobe:$BIN:bench_outer_ret" RETSYM=(bench_outer_ret)
}

# Sets CMD to the command line of ROW under COND, the loop writing to FILE:
# call_argv ROW COND SECONDS FILE
call_argv() {
	local loop

	call_site "$1"
	loop=("$BIN" loop "$LOOPARG" "$3" "$4")
	LOOP=("${loop[@]}")
	case $2 in
	none) CMD=("${loop[@]}") ;;
	pair | session)
		CMD=("$FLOOR" "$FLOOR_OBJ" "$2" "$BIN" "$FUNC" "${RETSYM[@]}" -- "${loop[@]}")
		;;
	fb) CMD=("$FLAMEBPF" -f "$BIN:^$FUNC\$" -o "$WORK/call.folded" -- "${loop[@]}") ;;
	fbp) CMD=("$FLAMEBPF" -f "$BIN:^$FUNC\$" -o "$WORK/call.folded" -p) ;;
	fbt)
		CMD=("$FLAMEBPF" --flamechart --max-calls 20000000 -f "$BIN:^$FUNC\$"
			-o "$WORK/call.folded" -- "${loop[@]}")
		;;
	floor) CMD=("$BPFTRACE" -e "uprobe:$BIN:$FUNC {} $RETP {}" -c "${loop[*]}") ;;
	hist)
		CMD=("$BPFTRACE" -e "uprobe:$BIN:$FUNC { @s[tid] = nsecs; } $RETP {
			@h = hist(nsecs - @s[tid]); delete(@s[tid]); }" -c "${loop[*]}")
		;;
	*) die "unknown condition '$2'" ;;
	esac
}

# What flamebpf's summary in LOG says about the probe sites of ROW: record_site ROW LOG
record_site() {
	local ret stepped

	ret=$(sed -n 's/^flamebpf: returns: .*, \([0-9]*\) by probes on ret .*/\1/p' "$2")
	stepped=$(sed -n 's/^flamebpf: entries: \([0-9]*\) of .* single-stepped.*/\1/p' "$2")
	SITE[$1]=
	[[ ${stepped:-0} == 0 ]] || SITE[$1]=" (single-stepped)"
	if [[ ${ret:-0} == 0 ]]; then
		SITE[$1]+=", uretprobe return"
	else
		SITE[$1]+=", probe on \`ret\` (single-stepped) as return"
	fi
}

# Checks that flamebpf saw every call the loop of ROW made: check_calls ROW LOG RESULT
check_calls() {
	local seen made

	seen=$(sed -n 's/^flamebpf: \([0-9]*\) calls of .*/\1/p' "$2")
	made=$(($(kv "$3" calls) + WARMUP))
	[[ $seen == "$made" ]] ||
		WARNINGS+=("flamebpf counted ${seen:-no} calls of $1's loop, which made $made.")
}

# flamebpf -p on the loop of call_argv's command, which waits for the probe
# before its timed calls; flamebpf ends when the loop does: call_attached LOG
call_attached() {
	local loop status=0

	BENCH_WAIT_PROBE=1 start_job "${LOOP[@]}"
	loop=$!
	run_job "${CMD[@]}" "$loop" >"$1" 2>&1 || status=$?
	wait_job "$loop" || die_log "$1" "'${LOOP[*]}' failed"
	((status == 0)) || die_log "$1" "'${CMD[*]} $loop' failed (status $status)"
}

# Sets NS to the ns per call of ROW under COND: call_once ROW COND
call_once() {
	local res=$WORK/call.res log=$WORK/call.log secs=$LOOP_SECS

	[[ $2 != none ]] || secs=$BASE_SECS
	call_argv "$1" "$2" "$secs" "$res"
	rm -f -- "$res"
	if [[ $2 == fbp ]]; then
		call_attached "$log"
	else
		run_job "${CMD[@]}" >"$log" 2>&1 || die_log "$log" "'${CMD[*]}' failed"
	fi
	# bpftrace -c exits 0 whatever the command did: the result file tells
	[[ -s $res ]] || die_log "$log" "'${CMD[*]}' did not finish its loop"
	NS=$(kv "$res" ns_per_call)
	if [[ $2 == fb* ]]; then
		record_site "$1" "$log"
		check_calls "$1" "$log" "$res"
	fi
	rm -f -- "$WORK/call.folded"
}

call_conds() {
	if ((HAVE_BT)); then
		CONDS=("${CALL_CONDS[@]}")
	else
		CONDS=(none pair session fb fbp fbt)
	fi
}

# Rows and conditions rotate by one place each repetition.
bench_calls() {
	local r i j nr=${#CALL_ROWS[@]} nc row cond floor

	call_conds
	nc=${#CONDS[@]}
	for ((r = 0; r < RUNS; r++)); do
		for ((i = 0; i < nr; i++)); do
			row=${CALL_ROWS[(i + r) % nr]}
			for ((j = 0; j < nc; j++)); do
				cond=${CONDS[(j + i + r) % nc]}
				# a session's return is a uretprobe's, not a ret instruction's
				[[ $row != outerx || $cond != session ]] || continue
				log "per call: run $((r + 1))/$RUNS: $row: $cond"
				call_once "$row" "$cond"
				add "ns:$row:$cond" "$NS"
				add "ns:$row:$cond:$r" "$NS"
			done
		done
	done
	for row in "${CALL_ROWS[@]}"; do
		for cond in fb fbp fbt hist; do
			[[ $cond != hist ]] || ((HAVE_BT)) || continue
			for floor in "${FLOORS[@]}" floor; do
				[[ -n ${M[ns:$row:$floor:0]:-} && -n ${M[ns:$row:$cond:0]:-} ]] || continue
				for ((r = 0; r < RUNS; r++)); do
					add "ratio:$row:$cond:$floor" "$(calc 'v / f' v="${M[ns:$row:$cond:$r]# }" \
						f="${M[ns:$row:$floor:$r]# }")"
				done
			done
		done
	done
}

# Per call in one loop: the floor and flamebpf side by side ------------------

# The pid of the loop the floor runs (its child), once it is there: loop_of FLOOR_PID
loop_of() {
	local i pid

	for ((i = 0; i < 500; i++)); do
		pid=$(pgrep -P "$1" | head -n 1) && [[ -n $pid ]] && echo "$pid" && return
		pause 0.01
	done
	return 1
}

# Adds the ns per call of ROW's function under the pair floor and of its
# twin under flamebpf (COND fb: -- COMMAND, fbp: -p PID), in one loop of
# batches taken in turn (bench_calls twin): twin_once ROW COND
twin_once() {
	local res=$WORK/twin.res log=$WORK/twin.log floor fb loop fp pid status=0

	call_site "$1"
	floor=("$FLOOR" "$FLOOR_OBJ" pair "$BIN" "$FUNC" "${RETSYM[@]}" --)
	fb=("$FLAMEBPF" -f "$BIN:^${FUNC}_b\$" -o "$WORK/twin.folded")
	loop=("$BIN" twin "$LOOPARG" "$LOOP_SECS" "$res")
	rm -f -- "$res"
	if [[ $2 == fb ]]; then
		run_job "${floor[@]}" "${fb[@]}" -- "${loop[@]}" >"$log" 2>&1 ||
			die_log "$log" "the twin loop of $1 under flamebpf -- COMMAND failed"
	else
		BENCH_WAIT_PROBE=1 start_job "${floor[@]}" "${loop[@]}" >"$WORK/twin.loop" 2>&1
		fp=$!
		pid=$(loop_of "$fp") || die_log "$WORK/twin.loop" "the floor started no loop"
		run_job "${fb[@]}" -p "$pid" >"$log" 2>&1 || status=$?
		wait_job "$fp" || die_log "$WORK/twin.loop" "the twin loop of $1 failed"
		((status == 0)) || die_log "$log" "flamebpf -p on the twin loop of $1 failed"
	fi
	[[ -s $res ]] || die_log "$log" "the twin loop of $1 did not finish"
	check_calls "$1 (twin)" "$log" "$res"
	add "twin:$1:$2:pair" "$(kv "$res" a_ns)"
	add "twin:$1:$2" "$(kv "$res" b_ns)"
	add "twin:$1:$2:ratio" "$(calc 'b / a' a="$(kv "$res" a_ns)" b="$(kv "$res" b_ns)")"
	rm -f -- "$WORK/twin.folded"
}

bench_twins() {
	local r i nr=${#CALL_ROWS[@]} row cond

	for ((r = 0; r < RUNS; r++)); do
		for ((i = 0; i < nr; i++)); do
			row=${CALL_ROWS[(i + r) % nr]}
			for cond in fb fbp; do
				log "per call, one loop: run $((r + 1))/$RUNS: $row: $cond"
				twin_once "$row" "$cond"
			done
		done
	done
}

# Where a traced call's time goes: run times of programs ---------------------

# Sets NS to the run time a run of COND's program (PART_CONDS) on the nop5
# loop, from its last reading while the loop ran: part_once COND
part_once() {
	local res=$WORK/part.res log=$WORK/part.log prog=$1 pid s rt='' rc=''

	call_site nop5
	rm -f -- "$res"
	if [[ $1 == fb ]]; then
		prog=on_session
		start_job "$FLAMEBPF" -f "$BIN:^$FUNC\$" -o "$WORK/part.folded" -- \
			"$BIN" loop nop5 "$PART_SECS" "$res" >"$log" 2>&1
	else
		start_job env BENCH_FLOOR_PROG="$1" "$FLOOR" "$FLOOR_OBJ" session "$BIN" "$FUNC" -- \
			"$BIN" loop nop5 "$PART_SECS" "$res" >"$log" 2>&1
	fi
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		if s=$(sample_stats "$pid" "$prog"); then
			read -r rt rc <<<"$s"
		fi
		pause 0.2
	done
	wait_job "$pid" || die_log "$log" "the $1 run of the parts failed"
	if [[ -z $rt ]] || ((rc == 0)); then
		die_log "$log" "no run-time statistics of $prog"
	fi
	NS=$(calc 't / c' t="$rt" c="$rc")
	rm -f -- "$WORK/part.folded"
}

# Each program runs at both ends of a call (a uprobe session, as flamebpf
# attaches its own where the kernel has them, 6.13+, and as the session
# floor does); run times need kernel.bpf_stats_enabled.
bench_parts() {
	local r j n=${#PART_CONDS[@]} cond

	if [[ ! -w $STATS ]]; then
		PARTS_WHY="cannot write $STATS (kernel.bpf_stats_enabled)"
		return
	fi
	stats_on
	for ((r = 0; r < RUNS; r++)); do
		for ((j = 0; j < n; j++)); do
			cond=${PART_CONDS[(j + r) % n]}
			log "parts: run $((r + 1))/$RUNS: $cond"
			part_once "$cond"
			add "part:$cond" "$NS"
			add "part:$cond:$r" "$NS"
		done
	done
	stats_restore
	for cond in "${PART_CONDS[@]}"; do
		[[ $cond != empty ]] || continue
		for ((r = 0; r < RUNS; r++)); do
			add "part:call:$cond" "$(calc '2 * (v - e)' v="${M[part:$cond:$r]# }" \
				e="${M[part:empty:$r]# }")"
		done
	done
}

# Start-up and exit with every function of libc -----------------------------

# The launch-to-start and exit times in COMMAND mode (any repetition).
libc_command_once() {
	local res=$WORK/libc.res mark=$WORK/libc.mark status

	CMD=("$FLAMEBPF" -f 'libc:.' -o "$WORK/libc.out" -- "$MARKER")
	run_job "$MARKER" run -o "$res" -- "${CMD[@]}" >"$mark" 2>"$WORK/libc.log" ||
		die "bench_marker failed"
	status=$(kv "$res" status)
	[[ $status == 0 && -s $mark ]] || die_log "$WORK/libc.log" "'${CMD[*]}' failed (status $status)"
	add libc:ready "$(calc 'm - l' m="$(cat "$mark")" l="$(kv "$res" launch)")"
	add libc:exit "$(calc 'e - m' e="$(kv "$res" exit)" m="$(cat "$mark")")"
	rm -f -- "$WORK/libc.out"
}

# Status 1 is fine when it only says that the sleeper made no calls: ok_status RES LOG
ok_status() {
	local status

	status=$(kv "$1" status)
	[[ $status == 0 ]] || { [[ $status == 1 ]] && grep -q '^flamebpf: no calls' "$2"; } ||
		die_log "$2" "'${CMD[*]}' failed (status $status)"
}

# The wall time of -p SLEEPER -d SHORT in repetition R (-v: the summary has
# everything): libc_short_once R
libc_short_once() {
	local res=$WORK/libc.res

	CMD=("$FLAMEBPF" -v -f 'libc:.' -p "$SLEEPER" -d "$SHORT" -o "$WORK/libc.out")
	run_job "$MARKER" run -o "$res" -- "${CMD[@]}" >/dev/null 2>"$WORK/libc.log" ||
		die "bench_marker failed"
	ok_status "$res" "$WORK/libc.log"
	add libc:short "$(calc 'e - l' e="$(kv "$res" exit)" l="$(kv "$res" launch)")"
	add "libc:short:$1" "${M[libc:short]##* }"
	cp -- "$WORK/libc.log" "$WORK/libc.summary"
	rm -f -- "$WORK/libc.out"
}

# The stop time of -p SLEEPER in repetition R, SIGINT to exit: libc_stop_once R
libc_stop_once() {
	local res=$WORK/libc.res

	CMD=("$FLAMEBPF" -f 'libc:.' -p "$SLEEPER" -o "$WORK/libc.out")
	run_job "$MARKER" run -o "$res" -i "$STOP_AFTER" -- "${CMD[@]}" >/dev/null \
		2>"$WORK/libc.log" || die "bench_marker failed"
	ok_status "$res" "$WORK/libc.log"
	add libc:stop "$(calc 'e - i' e="$(kv "$res" exit)" i="$(kv "$res" sigint)")"
	add "libc:stop:$1" "${M[libc:stop]##* }"
	rm -f -- "$WORK/libc.out"
}

# What bpftrace says to every function of libc (one try).
libc_bpftrace() {
	local libc pid

	BT_LIBC="—"
	((HAVE_BT)) || return 0
	libc=$(awk '$6 ~ /\/libc\.so/ { print $6; exit }' "/proc/$SLEEPER/maps")
	start_job "$BPFTRACE" -e "uprobe:$libc:* {}" -p "$SLEEPER" >"$WORK/bt.log" 2>&1
	pid=$!
	# it refuses at once; should a newer one not, it gets 20 s to attach
	for _ in {1..200}; do
		kill -0 "$pid" 2>/dev/null || break
		pause 0.1
	done
	end_job "$pid"
	BT_LIBC=$(grep -m 1 -e "^ERROR: Can't" -e '^Attaching' "$WORK/bt.log" || true)
	BT_LIBC=${BT_LIBC#ERROR: }
	case $BT_LIBC in
	Attaching*) BT_LIBC="attached: \`${BT_LIBC}\` (stopped; not timed)" ;;
	'') BT_LIBC="failed: \`$(grep -m 1 -v RLIMIT "$WORK/bt.log" || true)\`" ;;
	*) BT_LIBC="refuses: \`$BT_LIBC\`" ;;
	esac
}

bench_libc() {
	local r i n=3 steps=(libc_command_once libc_short_once libc_stop_once)

	start_job sleep 3600
	SLEEPER=$!
	pause 0.2
	log "every function of libc: warm-up (not measured)"
	run_job "$FLAMEBPF" -f 'libc:.' -p "$SLEEPER" -d "$SHORT" -o "$WORK/libc.out" 2>/dev/null ||
		true
	for ((r = 0; r < RUNS; r++)); do
		for ((i = 0; i < n; i++)); do
			log "every function of libc: run $((r + 1))/$RUNS: ${steps[(i + r) % n]#libc_}"
			"${steps[(i + r) % n]}" "$r"
		done
		add libc:start "$(calc "s - $SHORT - t" s="${M[libc:short:$r]# }" \
			t="${M[libc:stop:$r]# }")"
	done
	log "every function of libc: bpftrace"
	libc_bpftrace
	end_job "$SLEEPER"
}

# Call rate in aggregated mode ---------------------------------------------

# One run of rate condition COND ([u]NTHREADS:RATE).
rate_once() {
	local res=$WORK/rate.res log=$WORK/rate.log n=${1%%:*} lost seen made mode=()

	n=${n#[ut]}
	# room for every call of the run: what is measured is the ring buffer
	[[ $1 != t* ]] || mode=(--flamechart --max-calls 20000000)
	CMD=("$BC" hammer "$n" "${1#*:}" "$RATE_SECS" "$res")
	[[ $1 == u* ]] || CMD=("$FLAMEBPF" "${mode[@]}" -f "$BC:^bench_hammer\$" -o "$WORK/rate.out" -- "${CMD[@]}")
	rm -f -- "$res"
	run_job "${CMD[@]}" >"$log" 2>&1 || die_log "$log" "'${CMD[*]}' failed"
	[[ -s $res ]] || die_log "$log" "'${CMD[*]}' wrote no result"
	add "rate:$1" "$(kv "$res" rate)"
	[[ $1 != u* ]] || return 0
	lost=$(sed -n 's/^flamebpf: lost: //p' "$log")
	[[ -n $lost ]] || die_log "$log" "no 'lost:' line in flamebpf's summary"
	[[ ${LOST[$1]:-} == *"[$lost]"* ]] || LOST[$1]+="[$lost]"
	seen=$(sed -n 's/^flamebpf: \([0-9]*\) calls of .*/\1/p' "$log")
	made=$(kv "$res" calls)
	SHORTFALL[$1]=$((${SHORTFALL[$1]:-0} + made - ${seen:-0}))
	rm -f -- "$WORK/rate.out"
}

bench_rate() {
	local r i n=${#RATE_CONDS[@]} cond

	for ((r = 0; r < RUNS; r++)); do
		for ((i = 0; i < n; i++)); do
			cond=${RATE_CONDS[(i + r) % n]}
			log "call rate: run $((r + 1))/$RUNS: $cond"
			rate_once "$cond"
		done
	done
}

# One untimed run of every per-call condition (page cache, bpftrace's start).
warm_up() {
	local cond

	log "warm-up (not measured)"
	call_conds
	for cond in "${CONDS[@]}"; do
		call_once push "$cond"
	done
	SITE=()
	WARNINGS=()
}

# Table cells -------------------------------------------------------------

call_label() {
	local i

	call_site "$1"
	i=$(insn "$BIN" "$FUNC")
	# shellcheck disable=SC2016 # the backquotes are Markdown
	printf '`%s`, %s %s: `%s` entry%s' "$FUNC" "$([[ $BIN == "$BCXX" ]] && echo C++ || echo C)" \
		"$([[ $FUNC == bench_outer ]] && echo non-leaf || echo leaf)" "${i#*|}" "${SITE[$1]:-?}"
}

# The cell of ROW under COND: ns per call, and for the tools the ratio to
# each floor measured (the session's, the pair's; bpftrace's for hist()).
call_cell() {
	local f sep='; '

	if [[ -z ${M[ns:$1:$2]:-} ]]; then
		printf '—'
		return
	fi
	spread "ns:$1:$2" ns_fmt
	[[ $2 == fb* || $2 == hist ]] || return 0
	for f in session pair floor; do
		[[ $2 != hist || $f == floor ]] || continue
		[[ $2 == hist || $f != floor ]] || continue
		[[ -n ${M[ratio:$1:$2:$f]:-} ]] || continue
		printf '%s%s %s' "$sep" "$(ratio_fmt "$(mstat median "ratio:$1:$2:$f")")" "$f"
		sep=', '
	done
}

table_calls() {
	local r

	row "per-call cost, tight loop: ns per call; × each floor" "untraced" \
		"floor: empty uprobe + uretprobe pair" "floor: empty uprobe session" \
		"floor: bpftrace, empty probes" "flamebpf -f (aggregated), -- COMMAND" \
		"flamebpf -f, -p PID" "flamebpf --flamechart (a record per call)" "bpftrace hist()"
	row "---" "---" "---" "---" "---" "---" "---" "---" "---"
	for r in "${CALL_ROWS[@]}"; do
		row "$(call_label "$r")" "$(call_cell "$r" none)" "$(call_cell "$r" pair)" \
			"$(call_cell "$r" session)" "$(call_cell "$r" floor)" "$(call_cell "$r" fb)" \
			"$(call_cell "$r" fbp)" "$(call_cell "$r" fbt)" "$(call_cell "$r" hist)"
	done
}

table_twins() {
	local r c cells

	row "per call in one loop: the pair floor on F, flamebpf on its twin F_b; ns per call (median batch)" \
		"floor, beside flamebpf -- COMMAND" "flamebpf -f, -- COMMAND" "× the floor" \
		"floor, beside flamebpf -p" "flamebpf -f, -p PID" "× the floor"
	row "---" "---" "---" "---" "---" "---" "---"
	for r in "${CALL_ROWS[@]}"; do
		cells=()
		for c in fb fbp; do
			cells+=("$(spread "twin:$r:$c:pair" ns_fmt)" "$(spread "twin:$r:$c" ns_fmt)"
				"$(spread "twin:$r:$c:ratio" ratio_fmt)")
		done
		row "$(call_label "$r")" "${cells[@]}"
	done
}

part_label() {
	# shellcheck disable=SC2016 # the backquotes are Markdown
	case $1 in
	empty) printf 'empty program (the session floor)' ;;
	clock) printf 'a read of the clock (`bpf_ktime_get_ns`)' ;;
	clock_storage) printf "the clock and the thread's own storage (\`bpf_task_storage_get\`)" ;;
	fb) printf 'flamebpf -f, `on_session` (aggregated)' ;;
	esac
}

table_parts() {
	local c

	if [[ -n $PARTS_WHY ]]; then
		printf 'Where a call'"'"'s time goes: not measured: %s.\n' "$PARTS_WHY"
		return
	fi
	row "where a call's time goes: BPF program run time (\`kernel.bpf_stats_enabled\`), 5-byte-nop leaf, uprobe session" \
		"ns a run" "ns a call (two runs) beyond the empty program"
	row "---" "---" "---"
	for c in "${PART_CONDS[@]}"; do
		if [[ $c == empty ]]; then
			row "$(part_label "$c")" "$(spread "part:$c" ns_fmt)" "—"
		else
			row "$(part_label "$c")" "$(spread "part:$c" ns_fmt)" \
				"$(spread "part:call:$c" ns_fmt)"
		fi
	done
}

# Functions attached and left out, from flamebpf's summary (-v).
libc_funcs() {
	local s=$WORK/libc.summary attached uret ret stepped ifuncs left

	attached=$(sed -n 's/^flamebpf: [0-9]* calls of \([0-9]*\) functions.*/\1/p' "$s")
	uret=$(sed -n 's/^flamebpf: returns: \([0-9]*\) by uretprobe.*/\1/p' "$s")
	ret=$(sed -n 's/^flamebpf: returns: .*, \([0-9]*\) by probes on ret .*/\1/p' "$s")
	stepped=$(sed -n 's/^flamebpf: entries: \([0-9]*\) of .*/\1/p' "$s")
	ifuncs=$(sed -n 's/^flamebpf: \([0-9]*\) IFUNC resolvers left out.*/\1/p' "$s")
	left=$(sed -n 's/^flamebpf: \([0-9]*\) functions left out: \(.*\)/\1: \2/p' "$s" |
		paste -sd ';' | sed 's/;/; /g')
	printf '%s attached (returns: %s by uretprobe, %s by probes on ret instructions; ' \
		"${attached:-?}" "${uret:-all}" "${ret:-0}"
	printf '%s entries single-stepped); left out: %s%s IFUNC resolvers' "${stepped:-0}" \
		"${left:+$left; }" "${ifuncs:-?}"
}

table_libc() {
	row "every function of libc (\`-f 'libc:.'\`)" "flamebpf"
	row "---" "---"
	row "ready: launch to command start (\`-- bench_marker\`)" "$(spread libc:ready secs_fmt)"
	row "exit: command end to flamebpf's exit" "$(spread libc:exit secs_fmt)"
	row "\`-p PID -d $SHORT\` of a sleeping process: launch to exit" \
		"$(spread libc:short secs_fmt)"
	row "\`-p PID\`: SIGINT to exit" "$(spread libc:stop secs_fmt)"
	row "\`-p PID\`: launch to tracing live (wall − $SHORT s − stop, paired runs)" \
		"$(spread libc:start secs_fmt)"
	row "functions (summary)" "$(libc_funcs)"
	row "bpftrace 0.17, \`uprobe:LIBC:*\`" "$BT_LIBC"
}

rate_label() {
	local n=${1%%:*} r=${1#*:} limit

	limit="$(rate_fmt "$r") target"
	[[ $r != 0 ]] || limit="no limit"
	if [[ $n == u* ]]; then
		printf 'untraced, %s threads, %s' "${n#u}" "$limit"
	elif [[ $n == t* ]]; then
		printf 'timeline (--flamechart), %s threads, %s' "${n#t}" "$limit"
	else
		printf 'traced, %s threads, %s' "$n" "$limit"
	fi
}

rate_lost() {
	local l=${LOST[$1]#[}

	l=${l%]}
	printf '%s' "${l//][/ \/ }"
}

table_rate() {
	local c best='' bestc='' lossy=''

	row "call rate (\`bench_hammer\`, push leaf)" "calls/s achieved" \
		"calls not seen (all runs)" "lost: (summary)"
	row "---" "---" "---" "---"
	for c in "${RATE_CONDS[@]}"; do
		if [[ $c == u* ]]; then
			row "$(rate_label "$c")" "$(spread "rate:$c" rate_fmt)" "—" "—"
			continue
		fi
		row "$(rate_label "$c")" "$(spread "rate:$c" rate_fmt)" "${SHORTFALL[$c]}" \
			"$(rate_lost "$c")"
		if [[ ${LOST[$c]} == "[nothing]" && ${SHORTFALL[$c]} == 0 ]]; then
			if [[ -z $best ]] || (($(calc '(r > b)' r="$(mstat median "rate:$c")" b="$best"))); then
				best=$(mstat median "rate:$c") bestc=$c
			fi
		else
			lossy+="${lossy:+, }$(rate_label "$c")"
		fi
	done
	printf '\nSustained without loss: %s' "${best:+$(rate_fmt "$best") ($(rate_label "$bestc"))}"
	[[ -n $best ]] || printf 'none'
	if [[ -n $lossy ]]; then
		printf '. Loss seen at: %s.\n' "$lossy"
	else
		printf '; loss did not begin at any rate reached (both CPUs busy with the calls).\n'
	fi
}

table_head() {
	table_intro "flamebpf uprobe mode vs bpftrace" \
		"$( ((HAVE_BT)) && "$BPFTRACE" --version || echo "no bpftrace")"
	[[ -z $BT_NOTE ]] || printf '%s\n' "$BT_NOTE"
	printf '\n'
}

table() {
	local w

	table_head
	table_calls
	printf '\n'
	table_twins
	for w in "${WARNINGS[@]}"; do
		printf '\nWarning: %s\n' "$w"
	done
	printf '\n'
	table_parts
	printf '\n'
	table_libc
	printf '\n'
	table_rate
	notes
}

notes() {
	cat <<EOF

Per call: tools/bench_calls.c calls one noinline function in a loop for
${LOOP_SECS} s (untraced ${BASE_SECS} s) and prints the wall time per call; built with
clang -O2 -fno-omit-frame-pointer as C, and as C++ with a try/catch (a
.gcc_except_table: flamebpf then catches the returns of functions that call
something with probes on their ret instructions). The row says what flamebpf's
summary reported; the kernel emulates \`push\`, turns a 5-byte nop into a call
(6.18+), and single-steps other instructions (\`lea\` here, \`ret\`) out of line.
Floors: tools/bench_floor.c attaches an empty program (\`return 0\`) at F's
entry and return as a classic uprobe + uretprobe pair (perf_event uprobe
PMU) and as one uprobe session link (the program runs at both; kernels
6.13+), then runs LOOP; at bench_outer_ret (a symbol on the ret
instruction) the pair's return is a uprobe there, and there is no session.
bpftrace's: \`bpftrace -e 'uprobe:BIN:F {} R {}' -c LOOP\` with R the return probe
flamebpf uses (\`uretprobe:BIN:F\`, or \`uprobe:BIN:bench_outer_ret\`,
a symbol on the ret instruction); hist(): \`@s[tid] = nsecs\` at entry,
\`@h = hist(nsecs - @s[tid]); delete(@s[tid])\` at R. flamebpf: \`flamebpf -f
'BIN:^F\$' -o FILE -- LOOP\`, and \`-p PID\` of LOOP started first, which waits
for the probe (its function's first byte changed) before its timed calls
(BENCH_WAIT_PROBE=1); \`--flamechart --max-calls 20000000\` is the timeline mode
(a record of every call through the ring buffer, kept). Ratios are paired
with the same repetition's floor;
In one loop: this VM's speed moves by 20-40% within seconds, more than the
gap measured, so the second table takes the floor and flamebpf in the same
loop: \`bench_floor OBJ pair BIN F -- flamebpf -f 'BIN:^F_b\$' -- BIN twin F
${LOOP_SECS} FILE\` (and \`-p\` of the loop the floor runs), where F_b is F's twin
(the same instructions under another name) and the loop calls 256 times F,
then 256 times F_b, in turn, and takes the median of each one's batches; the
ratio is each run's.
rows and conditions rotate within repetitions. libc: \`flamebpf -f 'libc:.'\`;
ready is launch to the first instruction of the command (it starts once every
probe is attached), exit is the command's end to flamebpf's exit; \`-p\` runs
trace a \`sleep\`; the stop run gets SIGINT after ${STOP_AFTER} s. Call rate:
\`bench_calls hammer N RATE ${RATE_SECS} FILE\` (N threads calling \`bench_hammer\`,
RATE calls per second in all) under \`flamebpf -f 'BIN:^bench_hammer\$' -- ...\`
(timeline rows add \`--flamechart --max-calls 20000000\`, room for every call);
"calls not seen" compares flamebpf's count with the threads' own.
Where a call's time goes: the run time a run of each program (the last
reading of its \`run_time_ns / run_cnt\` while the nop5 loop ran ${PART_SECS} s), each
attached as a uprobe session by tools/bench_floor.c (BENCH_FLOOR_PROG=NAME)
or by flamebpf; the kernel's statistics add two reads of the clock to every
run, of every program alike. A call is two runs; what it adds is paired with
the same repetition's empty program.
EOF
}

main() {
	local started=$SECONDS

	check_env
	set_traps
	mkdir -p -- "$OUT"
	WORK=$(mktemp -d "$OUT/trace.XXXXXX")
	BC=$WORK/bench_calls BCXX=$WORK/bench_calls_cxx MARKER=$WORK/bench_marker
	FLOOR=$ROOT/build/bench/bench_floor FLOOR_OBJ=$ROOT/build/bench/bench_floor.bpf.o
	build_helpers
	check_bpftrace
	freeze_flamebpf
	: >"$RAW"
	check_idle
	BUSY_BEFORE=$BUSY
	warm_up
	bench_calls
	bench_twins
	bench_parts
	bench_libc
	bench_rate
	check_idle
	BUSY_AFTER=$BUSY
	append_table "$started"
}

main "$@"
