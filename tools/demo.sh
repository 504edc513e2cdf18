#!/bin/sh
# `make demo`: profiles the bundled demo workload into build/demo.folded.
set -eu
cd "$(dirname "$0")/.."
out=build/demo.folded
sudo=
[ "$(id -u)" = 0 ] || sudo=sudo

echo "flamebpf demo: sampling build/workloads/demo for 3 s at 999 Hz..."
$sudo build/flamebpf --sample 999hz -o "$out" -- build/workloads/demo 3
[ -z "$sudo" ] || $sudo chown "$(id -u):$(id -g)" "$out"

echo
echo "Hottest stacks (samples):"
sort -t' ' -k2 -rn "$out" | head -n 5 | awk '{ n = $NF; $NF = ""; printf "  %6d  %s\n", n, $0 }'
cat <<TXT

Wrote $out (folded stacks). To look at it as a flame graph:
  speedscope:   npm install -g speedscope && speedscope $out
                (or drop the file on https://www.speedscope.app)
  flamegraph.pl: flamegraph.pl $out > demo.svg   (github.com/brendangregg/FlameGraph)
  inferno:       inferno-flamegraph $out > demo.svg
TXT
