#!/usr/bin/env bash
# What --continuous costs: flamebpf sampling the whole system at 19 and
# 99 Hz, pprof files every 10 s, for SECS seconds (60 by default); at 99 Hz
# also beside a churn of short-lived processes (a `true` about every 20 ms).
# Prints, per run, the CPU flamebpf used (/proc/PID/stat utime + stime)
# from 5 s after the start to the end, as a share of one CPU, and its RSS
# at 5 s and at the end. Needs root and build/flamebpf.
#
#   SECS=N   seconds a run lasts (default 60)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FLAMEBPF=${FLAMEBPF:-$ROOT/build/flamebpf}
SECS=${SECS:-60}
HZ=$(getconf CLK_TCK)
WORK=$(mktemp -d /tmp/bench_continuous.XXXXXX)
CHURN=

cleanup() {
	[[ -n $CHURN ]] && kill "$CHURN" 2>/dev/null
	rm -rf -- "$WORK"
}
trap cleanup EXIT

[[ $(id -u) == 0 ]] || { echo "bench_continuous: needs root" >&2; exit 1; }

ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

churn() {
	while :; do
		/bin/true
		sleep 0.02
	done
}

# run FREQ LABEL: one measured run
run() {
	local freq=$1 label=$2 pid t0 t1 r0 r1 files
	mkdir -p "$WORK/$label"
	"$FLAMEBPF" -F "$freq" --continuous --interval 10s \
		-o "$WORK/$label/%Y%m%d-%H%M%S.pb.gz" 2>"$WORK/$label.err" &
	pid=$!
	sleep 5
	t0=$(ticks "$pid") r0=$(rss_kib "$pid")
	sleep $((SECS - 5))
	t1=$(ticks "$pid") r1=$(rss_kib "$pid")
	kill -TERM "$pid"
	wait "$pid" || true
	files=$(find "$WORK/$label" -name '*.pb.gz' | wc -l)
	awk -v l="$label" -v t="$((t1 - t0))" -v hz="$HZ" -v s="$((SECS - 5))" \
		-v r0="$r0" -v r1="$r1" -v f="$files" 'BEGIN {
		printf "| %s | %.2f%% | %.1f MiB | %.1f MiB | %d |\n",
			l, 100 * t / hz / s, r0 / 1024, r1 / 1024, f }'
}

echo "| run ($SECS s, system-wide, 10 s intervals) | CPU (of one) | RSS at 5 s | RSS at end | files |"
echo "|---|---|---|---|---|"
run 19 "-F 19"
run 99 "-F 99"
churn &
CHURN=$!
run 99 "-F 99, process churn"
kill "$CHURN" 2>/dev/null
CHURN=
# The peers' own figures: claims from their documentation, not measured
# here (neither is packaged by Debian 12 nor npm).
echo "| OpenTelemetry eBPF profiler (its README's claim, not measured here) | \"1% CPU\", an upper limit in its own testing | | \"250 MB\", the same | |"
echo "| Grafana Alloy \`pyroscope.ebpf\` (embeds a fork of the OTel profiler; its documentation gives no figure) | — | | — | |"
