#!/usr/bin/env bash
# Benchmarks `flamebpf -f py:` (README, "Python function tracing"): what a
# Python call costs with the probes in, against the same program without
# them, for each CPython present (Debian's 3.11, pyenv's 3.10, 3.11,
# 3.12, 3.13). The program times CALLS calls of an empty function f itself
# (time.perf_counter around the loop, so interpreter start-up and the
# attach are left out) and prints microseconds per call; traced, flamebpf
# runs it as its COMMAND with -f 'py:^(f)$'. Prints one Markdown row per
# interpreter: the medians of RUNS runs. Needs root and build/flamebpf.
#
#   BENCH_RUNS=N   repetitions, medians reported (default 5)
#   BENCH_CALLS=N  calls of f a run (default 200000)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FLAMEBPF=${FLAMEBPF:-$ROOT/build/flamebpf}
RUNS=${BENCH_RUNS:-5}
CALLS=${BENCH_CALLS:-200000}
PYENV=/root/.pyenv/versions
PYTHONS=(/usr/bin/python3.11 "$PYENV/3.10.13/bin/python3.10" "$PYENV/3.11.7/bin/python3.11"
	"$PYENV/3.12.1/bin/python3.12" "$PYENV/3.13.0/bin/python3.13")

die() {
	printf 'bench_pytrace: %s\n' "$*" >&2
	exit 1
}

[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "BENCH_RUNS must be a positive integer, not '$RUNS'"
[[ $CALLS =~ ^[1-9][0-9]*$ ]] || die "BENCH_CALLS must be a positive integer, not '$CALLS'"
[[ $(id -u) == 0 ]] || die "needs root (BPF)"
[[ -x $FLAMEBPF ]] || die "cannot run '$FLAMEBPF': build it first (make)"

WORK=$(mktemp -d)
trap 'rm -rf -- "$WORK"' EXIT
cat >"$WORK/calls.py" <<'EOF'
import sys
import time


def f():
    pass


def main(n):
    t = time.perf_counter()
    for _ in range(n):
        f()
    print(f"{(time.perf_counter() - t) / n * 1e6:.3f}")


main(int(sys.argv[1]))
EOF

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# one run's microseconds per call: run traced|cprofile|plain PYTHON
run() {
	case $1 in
	traced)
		"$FLAMEBPF" -f 'py:^(f)$' -o "$WORK/out.folded" -- "$2" "$WORK/calls.py" "$CALLS" \
			2>"$WORK/err" || die "flamebpf failed: $(tail -n 3 "$WORK/err")"
		;;
	# Python's own deterministic profiler, which counts every call too
	cprofile) "$2" -m cProfile -o "$WORK/cprofile.out" "$WORK/calls.py" "$CALLS" ;;
	*) "$2" "$WORK/calls.py" "$CALLS" ;;
	esac
}

added() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a - b }'; }

echo "| CPython | untraced µs/call | -f 'py:^(f)\$' µs/call (added) | cProfile µs/call (added) |"
echo "|---|---|---|---|"
for py in "${PYTHONS[@]}"; do
	[[ -x $py ]] || continue
	plain=$(for _ in $(seq "$RUNS"); do run plain "$py"; done | median)
	traced=$(for _ in $(seq "$RUNS"); do run traced "$py"; done | median)
	cprof=$(for _ in $(seq "$RUNS"); do run cprofile "$py"; done | median)
	echo "| $py | $plain | $traced ($(added "$traced" "$plain")) | $cprof ($(added "$cprof" "$plain")) |"
done
