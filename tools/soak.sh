#!/bin/bash
# Soak test (make soak; not part of make test): three flamebpf runs at once
# for SOAK_SECS seconds (default 600) at a high event rate, one in uprobe
# timeline mode (--flamechart: a ring-buffer record per call of a function
# called as fast as a loop can), one sampling at 4999 Hz, and one
# continuous profiler (--continuous, system-wide at 99 Hz, a pprof file a
# minute, the newest 3 kept) beside a churn of short-lived processes (a
# `true` about every 20 ms). Prints each one's
# RSS (VmRSS) every SOAK_EVERY seconds (default 10), then the first figure
# and the last one of the capture, the peak (VmHWM, writing the output
# included), the event rates and the losses from the summaries.
# Exits 1 when a run failed or, with SOAK_MAX_GROWTH_KB set, grew more.
# SOAK_ONLY names the runs wanted (default "trace sample cont"): the hour
# of issue 20 is the continuous profiler and the churn alone.
#   SOAK_SECS=120 make soak
#   SOAK_SECS=3600 SOAK_ONLY=cont make soak
set -u
cd "$(dirname "$0")/.." || exit 1

secs=${SOAK_SECS:-600}
every=${SOAK_EVERY:-10}
fb=${FLAMEBPF:-build/flamebpf}
storm=build/workloads/storm
dir=build/soak

if [ "$(id -u)" != 0 ]; then
	echo "soak: needs root (real BPF)" >&2
	exit 1
fi
mkdir -p "$dir" || exit 1
only=" ${SOAK_ONLY:-trace sample cont} "
trace='' sample='' cont=''
wanted() { [[ $only == *" $1 "* ]]; }
alive() {
	{ [ -n "$trace" ] && kill -0 "$trace"; } 2>/dev/null ||
		{ [ -n "$sample" ] && kill -0 "$sample"; } 2>/dev/null ||
		{ [ -n "$cont" ] && kill -0 "$cont"; } 2>/dev/null
}

rss_kb() { # PID -> VmRSS in kB, empty once it is gone
	sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status" 2>/dev/null
}

hwm_kb() {
	sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status" 2>/dev/null
}

if wanted trace; then
	"$fb" -f '^hot$' -d "$secs" --flamechart -o "$dir/trace.folded" -- \
		"$storm" rate $((secs + 60)) >/dev/null 2>"$dir/trace.err" &
	trace=$!
fi
if wanted sample; then
	"$fb" -F 4999 -d "$secs" -o "$dir/sample.folded" -- \
		"$storm" spin 2 $((secs + 60)) >/dev/null 2>"$dir/sample.err" &
	sample=$!
fi
if wanted cont; then
	"$fb" -F 99 --continuous --interval "${SOAK_INTERVAL:-60}" -d "$secs" --keep 3 \
		-o "$dir/cont-%Y%m%d-%H%M%S.pb.gz" -v 2>"$dir/cont.err" &
	cont=$!
fi
# short-lived processes beside it: their mappings and tables must not pile up
(while alive; do
	/bin/true
	sleep 0.02
done) &
churn=$!

echo "soak: ${secs} s, RSS every ${every} s (trace: pid $trace, sample: pid $sample," \
	"cont: pid $cont)"
declare -A first last peak
start=$SECONDS
sleep 2
while alive; do
	line="soak: $((SECONDS - start)) s"
	for name in trace sample cont; do
		pid=${!name}
		[ -n "$pid" ] || continue
		kb=$(rss_kb "$pid")
		[ -n "$kb" ] || continue
		first[$name]=${first[$name]:-$kb}
		# the end of the capture: writing the output allocates
		[ $((SECONDS - start)) -lt "$secs" ] && last[$name]=$kb
		peak[$name]=$(hwm_kb "$pid")
		line+=", $name RSS $((kb / 1024)) MiB"
	done
	echo "$line"
	for ((i = 0; i < every * 10; i++)); do
		alive || break
		sleep 0.1
	done
done
trace_status=0 sample_status=0 cont_status=0
[ -z "$trace" ] || { wait "$trace"; trace_status=$?; }
[ -z "$sample" ] || { wait "$sample"; sample_status=$?; }
[ -z "$cont" ] || { wait "$cont"; cont_status=$?; }
wait "$churn"

failed=0
for name in trace sample cont; do
	wanted "$name" || continue
	status_var=${name}_status
	err=$dir/$name.err
	echo "== $name: exit ${!status_var}"
	grep -E '^flamebpf: [0-9]+ (calls|samples)|^flamebpf: lost:|intervals? (written|lost)' "$err"
	summary=$(grep -E '^flamebpf: [0-9]+ (calls|samples)' "$err")
	rate=$(echo "$summary" | awk '{n = $2; for (i = 1; i < NF; i++) if ($(i + 1) == "s") t = $i; if (t > 0) printf "%.0f", n / t}')
	echo "$name: ${rate:-?} ${summary:+$(echo "$summary" | awk '{sub(/,$/, "", $3); print $3}')}/s;" \
		"RSS $((${first[$name]:-0} / 1024)) MiB at start (${first[$name]:-?} kB)," \
		"$((${last[$name]:-0} / 1024)) MiB at the end of the capture (${last[$name]:-?} kB)," \
		"peak $((${peak[$name]:-0} / 1024)) MiB (writing included)"
	if [ "${!status_var}" != 0 ]; then
		cat "$err"
		failed=1
	fi
	growth=$((${last[$name]:-0} - ${first[$name]:-0}))
	if [ -n "${SOAK_MAX_GROWTH_KB:-}" ] && [ "$growth" -gt "$SOAK_MAX_GROWTH_KB" ]; then
		echo "soak: $name grew by $growth kB (limit $SOAK_MAX_GROWTH_KB)" >&2
		failed=1
	fi
done
rm -f "$dir/trace.folded" "$dir/sample.folded" "$dir"/cont-*.pb.gz
exit $failed
