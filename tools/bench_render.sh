#!/usr/bin/env bash
# Benchmarks `flamebpf render`: a large perf script (synthetic, >= 200 MB)
# to folded stacks, side by side with a collapser in Perl, and a profile of
# 100k unique stacks from folded to SVG. Appends a Markdown table to
# build/bench/results.md (every measurement goes to build/bench/raw_render.tsv).
# Run by `make bench` after the other benchmarks, from the repository root.
#
# brendangregg/FlameGraph's stackcollapse-perf.pl is packaged neither by
# Debian (apt-cache search flamegraph, stackcollapse: nothing) nor by any
# npm package found (flamegraph and stackvis carry JavaScript ports, not the
# script), and this machine reaches no other source. So the Perl column is
# the script when one is on PATH (or COLLAPSE names it), and otherwise
# tools/collapse_perf_min.pl: the same work without the script's inline,
# JIT, tidying and kernel-annotation rules, which only add to its time.
# Ratios against the stand-in are therefore a lower bound of those against
# the real script. The real script weighs records by their period: flamebpf
# is then checked against it with --period.
#
#   BENCH_RUNS=N   repetitions, medians reported (default 5)
#   BENCH_QUICK=1  smoke run: 1 repetition, a 20 MB input
#   FLAMEBPF, COLLAPSE override build/flamebpf and the Perl collapser
set -euo pipefail
set -m

# shellcheck source=SCRIPTDIR/bench_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_lib.sh"
RAW=$OUT/raw_render.tsv
COLLAPSE=${COLLAPSE:-$(command -v stackcollapse-perf.pl || echo "$ROOT/tools/collapse_perf_min.pl")}
PERIOD=()
[[ $(basename "$COLLAPSE") == stackcollapse-perf.pl ]] && PERIOD=(--period)

if [[ ${BENCH_QUICK:-0} == 1 ]]; then
	RUNS=${BENCH_RUNS:-1} RECORDS=16000 STACKS=20000
else
	RUNS=${BENCH_RUNS:-5} RECORDS=160000 STACKS=100000
fi
SVG_STACKS=100000

check_env() {
	[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "BENCH_RUNS must be a positive integer, not '$RUNS'"
	[[ -x $FLAMEBPF ]] || die "cannot run '$FLAMEBPF': build it first (make)"
	[[ -x /usr/bin/time ]] || die "needs /usr/bin/time (package time) for peak RSS"
	command -v perl >/dev/null || die "needs perl for the Perl collapser"
	[[ -r $COLLAPSE ]] || die "cannot read the collapser '$COLLAPSE'"
}

# Runs "$@" with stdin from IN and stdout to OUTFILE, adding wall seconds
# and peak RSS (KiB) under KEY: timed KEY IN OUTFILE CMD...
timed() {
	local key=$1 in=$2 outfile=$3 t0 t1 rss

	shift 3
	t0=$(date +%s.%N)
	/usr/bin/time -f '%M' -o "$WORK/rss" "$@" <"$in" >"$outfile" 2>"$WORK/err" ||
		die_log "$WORK/err" "'$*' failed"
	t1=$(date +%s.%N)
	rss=$(tail -n 1 "$WORK/rss")
	add "$key.secs" "$(calc 't1 - t0' t1="$t1" t0="$t0")"
	add "$key.rss" "$rss"
}

make_inputs() {
	log "generating a perf script: $RECORDS records over $STACKS stacks"
	awk -v RECORDS="$RECORDS" -v STACKS="$STACKS" -f "$ROOT/tools/gen_perf_script.awk" \
		>"$WORK/big.perf"
	BYTES=$(stat -c %s "$WORK/big.perf")
	log "$((BYTES >> 20)) MiB of perf script"
	awk -v RECORDS="$((SVG_STACKS * 3))" -v STACKS="$SVG_STACKS" -v SEED=2 \
		-f "$ROOT/tools/gen_perf_script.awk" >"$WORK/svg.perf"
	"$FLAMEBPF" render "$WORK/svg.perf" -o "$WORK/svg.folded" ||
		die "cannot make the folded input of the SVG run"
	SVG_LINES=$(wc -l <"$WORK/svg.folded")
}

# The two collapsers must agree before their times mean anything.
check_agree() {
	"$FLAMEBPF" render "${PERIOD[@]}" "$WORK/big.perf" -o "$WORK/fb.folded"
	perl "$COLLAPSE" <"$WORK/big.perf" | LC_ALL=C sort >"$WORK/pl.folded"
	LC_ALL=C sort "$WORK/fb.folded" | cmp -s - "$WORK/pl.folded" ||
		die "flamebpf render and $COLLAPSE disagree on $WORK/big.perf"
}

measure() {
	local i

	for ((i = 1; i <= RUNS; i++)); do
		log "run $i/$RUNS"
		timed fb "$WORK/big.perf" "$WORK/fb.folded" "$FLAMEBPF" render - -o -
		timed pl "$WORK/big.perf" "$WORK/pl.folded" perl "$COLLAPSE"
		timed svg "$WORK/svg.folded" "$WORK/out.svg" "$FLAMEBPF" render - --format svg -o -
		add svg.bytes "$(stat -c %s "$WORK/out.svg")"
	done
	xmllint --noout "$WORK/out.svg" 2>/dev/null || log "warning: the SVG is not well-formed XML"
}

mib_fmt() { awk -v k="$1" 'BEGIN { printf "%.1f MiB", k / 1024 }'; }
rate_fmt() { awk -v s="$1" -v b="$BYTES" 'BEGIN { printf "%.0f MB/s", b / s / 1e6 }'; }

table() {
	local fb pl

	fb=$(mstat median fb.secs)
	pl=$(mstat median pl.secs)
	printf '## flamebpf render (%s)\n\n' "$(date '+%Y-%m-%d %H:%M')"
	printf 'Linux %s, %s CPUs; %s; medians of %s run(s).\n\n' "$(uname -r)" "$(nproc)" \
		"$("$FLAMEBPF" --version)" "$RUNS"
	row "perf script → folded, $((BYTES >> 20)) MiB, $STACKS stacks" time throughput "peak RSS"
	row --- --- --- ---
	row "flamebpf render" "$(spread fb.secs secs_fmt)" "$(rate_fmt "$fb")" \
		"$(mib_fmt "$(mstat median fb.rss)")"
	row "$(basename "$COLLAPSE") (Perl)" "$(spread pl.secs secs_fmt)" "$(rate_fmt "$pl")" \
		"$(mib_fmt "$(mstat median pl.rss)")"
	row "ratio" "$(calc 'p / f' p="$pl" f="$fb" | awk '{ printf "%.1f× faster", $1 }')" "" ""
	printf '\n'
	row "folded → SVG, $SVG_LINES unique stacks" time "output size" "peak RSS"
	row --- --- --- ---
	row "flamebpf render --format svg" "$(spread svg.secs secs_fmt)" \
		"$(mib_fmt "$(calc 'b / 1024' b="$(mstat median svg.bytes)")")" \
		"$(mib_fmt "$(mstat median svg.rss)")"
	printf '\nPerl collapser: %s%s.\n\n' "$COLLAPSE" \
		"$([[ ${#PERIOD[@]} == 0 ]] && echo " (see tools/bench_render.sh on why not stackcollapse-perf.pl)")"
}

main() {
	check_env
	mkdir -p -- "$OUT"
	WORK=$(mktemp -d /tmp/flamebpf-bench-render.XXXXXX)
	set_traps
	freeze_flamebpf
	make_inputs
	check_agree
	measure
	table >"$WORK/results.md"
	cat -- "$WORK/results.md"
	cat -- "$WORK/results.md" >>"$OUT/results.md"
}

main "$@"
