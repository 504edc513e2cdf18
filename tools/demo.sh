#!/bin/sh
# `make demo`: profiles the bundled demo workload into build/demo.svg (an
# interactive flame graph) and build/demo.folded, from one capture.
set -eu
cd "$(dirname "$0")/.."
svg=build/demo.svg
out=build/demo.folded
sudo=
[ "$(id -u)" = 0 ] || sudo=sudo

echo "flamebpf demo: sampling build/workloads/demo for 3 s at 999 Hz..."
$sudo build/flamebpf --sample 999hz -o "$svg" -o "$out" -- build/workloads/demo 3
[ -z "$sudo" ] || $sudo chown "$(id -u):$(id -g)" "$svg" "$out"

echo
echo "Hottest stacks (samples):"
sort -t' ' -k2 -rn "$out" | head -n 5 | awk '{ n = $NF; $NF = ""; printf "  %6d  %s\n", n, $0 }'
cat <<TXT

Wrote $svg: open it in a browser (hover, click to zoom, Search).
Also $out (folded stacks, for speedscope, flamegraph.pl or inferno).
TXT
