#!/usr/bin/env bash
# Benchmarks the HTML report side by side in one run: the size of the page
# and the time headless Chromium takes to open it (from the navigation to
# the first flame graph drawn), beside the Chrome JSON and folded output of
# the same capture opened in speedscope (npm, in build/viewers). Two
# captures: system-wide sampling (-F 999 -a, while cpu_tree keeps a CPU
# busy) and a uprobe timeline (tracee nest: outer and inner, a call each
# per round). Appends a Markdown table to build/bench/results.md (every
# measurement goes to build/bench/raw_html.tsv). Run by `make bench`, from
# the repository root; needs root, build/flamebpf, node and the viewers'
# modules (tools/deps.sh --test).
#
#   BENCH_RUNS=N   openings of each file, medians reported (default 3)
#   BENCH_QUICK=1  smoke run: 1 opening, a 3 s capture and 100,000 calls
set -euo pipefail
set -m

# shellcheck source=SCRIPTDIR/bench_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_lib.sh"
RAW=$OUT/raw_html.tsv
MODULES=${VIEWERS_MODULES:-$ROOT/build/viewers/node_modules}

if [[ ${BENCH_QUICK:-0} == 1 ]]; then
	RUNS=${BENCH_RUNS:-1} SYS_SECS=3 ROUNDS=50000 TIMEOUT_MS=20000
else
	RUNS=${BENCH_RUNS:-3} SYS_SECS=30 ROUNDS=500000 TIMEOUT_MS=120000
fi
declare -A DESC=() # what each capture holds, in words
declare -A WHY=()  # files that did not open: why

# Without a browser nothing opens: said in the results, and not a failure
# of `make bench` (the registry may be out of reach).
skip() {
	log "skipped: $1"
	printf '\n## HTML report: size and open time (tools/bench_html.sh)\n\nDid not run: %s.\n' \
		"$1" >>"$OUT/results.md"
	exit 0
}

check_env() {
	check_basics "BPF programs"
	[[ -x $ROOT/build/workloads/cpu_tree && -x $ROOT/build/workloads/tracee ]] ||
		die "the workloads are not built (make)"
	mkdir -p -- "$OUT"
	command -v node >/dev/null || skip "no 'node' (tools/deps.sh --test installs it)"
	[[ -d $MODULES/playwright-core && -d $MODULES/speedscope ]] ||
		skip "the node modules are not in $MODULES (tools/deps.sh --test installs them)"
	[[ -x ${CHROMIUM:-/usr/bin/chromium} ]] || skip "no Chromium (tools/deps.sh --test installs it)"
}

# Every process for SYS_SECS s while cpu_tree keeps a CPU busy.
capture_system() {
	local load

	start_job "$ROOT/build/workloads/cpu_tree" "$((SYS_SECS + 2))"
	load=$!
	run_job "$FLAMEBPF" -F 999 -a -d "$SYS_SECS" -o "$WORK/system.html" \
		-o "$WORK/system.json" -o "$WORK/system.folded" 2>"$WORK/system.log" ||
		die_log "$WORK/system.log" "the system-wide capture failed"
	end_job "$load"
	DESC[system]=$(printf '%s s system-wide, 999 Hz: %s samples, %s processes, %s stacks' \
		"$SYS_SECS" "$(awk '{ n += $NF } END { print n }' "$WORK/system.folded")" \
		"$(grep -o '"processes":[0-9]*' "$WORK/system.html" | head -n 1 | cut -d: -f2)" \
		"$(wc -l <"$WORK/system.folded")")
}

# outer and inner, each called ROUNDS times: 2 x ROUNDS calls.
capture_trace() {
	run_job "$FLAMEBPF" -f '^(outer|inner)$' --max-calls "$((2 * ROUNDS))" \
		-o "$WORK/trace.html" -o "$WORK/trace.json" -o "$WORK/trace.folded" \
		-- "$ROOT/build/workloads/tracee" nest 0 0 "$ROUNDS" >"$WORK/trace.out" 2>"$WORK/trace.log" ||
		die_log "$WORK/trace.log" "the uprobe capture failed"
	# shellcheck disable=SC2016 # the backquotes are Markdown's
	DESC[trace]=$(printf 'uprobe timeline, %s calls (`tracee nest 0 0 %s`)' \
		"$(grep -o '"events":{"n":[0-9]*' "$WORK/trace.html" | cut -d: -f3)" "$ROUNDS")
}

sizes() {
	local f

	for f in system.html system.json system.folded trace.html trace.json trace.folded; do
		add "size_$f" "$(stat -c %s "$WORK/$f")"
		add "gzip_$f" "$(gzip -c "$WORK/$f" | wc -c)"
	done
}

# Opens each file RUNS times: its viewer's times, or why it did not open.
open_all() {
	local file viewer run ms

	log "opening each file $RUNS time(s) in headless Chromium"
	node "$ROOT/tools/bench_html.js" "$WORK" "$RUNS" "$TIMEOUT_MS" \
		html:system.html speedscope:system.json speedscope:system.folded \
		html:trace.html speedscope:trace.json speedscope:trace.folded >"$WORK/open.tsv" ||
		die "tools/bench_html.js failed"
	while IFS=$'\t' read -r file viewer run ms; do
		if [[ $ms =~ ^[0-9]+$ ]]; then
			add "open_${viewer}_$file" "$(calc 'v / 1000' v="$ms")"
		else
			WHY["open_${viewer}_$file"]=$ms
		fi
		: "$run"
	done <"$WORK/open.tsv"
}

mb() {
	awk -v b="$1" 'BEGIN {
		if (b >= 1e6) printf "%.2f MB", b / 1e6
		else if (b >= 1e3) printf "%.0f kB", b / 1e3
		else printf "%d bytes", b
	}'
}

# A row: open_cell VIEWER FILE
open_cell() {
	local key="open_$1_$2"

	if [[ -n ${WHY[$key]:-} ]]; then
		if [[ ${WHY[$key]} =~ ^timeout\ after\ ([0-9]+) ]]; then
			printf 'not drawn after %s (gave up)' "$(secs_fmt "$(calc 'v / 1000' v="${BASH_REMATCH[1]}")")"
		else
			printf '%s' "${WHY[$key]}"
		fi
	else
		spread "$key" secs_fmt
	fi
}

table() {
	local cap f what viewer

	table_intro "HTML report: size and open time (tools/bench_html.sh)" \
		"speedscope $(node -p "require('$MODULES/speedscope/package.json').version")"
	printf '\n| capture | file | size | gzip'"'"'d | opened by | open (navigation to first graph) |\n'
	printf '| --- | --- | --- | --- | --- | --- |\n'
	for cap in system trace; do
		for f in html json folded; do
			case $f in
			html) what="HTML report" viewer=html ;;
			json) what="Chrome JSON" viewer=speedscope ;;
			folded) what="folded" viewer=speedscope ;;
			esac
			row "$([[ $f == html ]] && printf '%s' "${DESC[$cap]}")" "$what" \
				"$(mb "$(mstat median "size_$cap.$f")")" \
				"$(mb "$(mstat median "gzip_$cap.$f")")" \
				"$([[ $viewer == html ]] && echo "the page itself" || echo speedscope)" \
				"$(open_cell "$viewer" "$cap.$f")"
		done
	done
	printf '\nEach file served by a local HTTP server and opened in a fresh page of\n'
	printf 'headless Chromium; the page is drawn when it says so (body[data-ready]),\n'
	printf 'speedscope when its toolbar shows the profile.\n'
}

main() {
	local started=$SECONDS

	check_env
	set_traps
	mkdir -p -- "$OUT"
	WORK=$(mktemp -d "$OUT/html.XXXXXX")
	freeze_flamebpf
	: >"$RAW"
	check_idle
	BUSY_BEFORE=$BUSY
	log "capturing: ${SYS_SECS} s system-wide, then $((2 * ROUNDS)) traced calls"
	capture_system
	capture_trace
	sizes
	open_all
	check_idle
	BUSY_AFTER=$BUSY
	append_table "$started"
}

main "$@"
