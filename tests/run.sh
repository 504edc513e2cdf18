#!/bin/bash
# Runs the test binaries and sums their cmocka results into one closing line.
#   tests/run.sh            unit tests, then integration tests with the
#                           normal and the ASan+UBSan builds of flamebpf
#   tests/run.sh unit|integ one tier
#   tests/run.sh fuzz       each libFuzzer harness for FUZZ_SECS seconds
#                           (default 5); part of the default run once built
#   tests/run.sh viewers    the outputs opened in real viewers in headless
#                           Chromium (tests/viewers/viewers.js)
#   tests/run.sh valgrind   the main paths of build/flamebpf under memcheck
#   TESTS=test_command tests/run.sh integ   only the binaries named
set -u
cd "$(dirname "$0")/.." || exit 1

tier=${1:-all}
passed=0 failed=0 skipped=0
failures=()

# Reads cmocka's summary lines; a binary that ends without one crashed.
count() {
	local name=$1 log=$2 p f s
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
	s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
	if [ -z "$p$f$s" ]; then
		failed=$((failed + 1))
		failures+=("$name (no cmocka summary: crashed?)")
		return
	fi
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0}))
	skipped=$((skipped + ${s:-0}))
	[ "${f:-0}" = 0 ] || failures+=("$name")
}

run_dir() {
	local dir=$1 label=$2 bin name log
	for bin in "$dir"/test_*; do
		[ -x "$bin" ] || continue
		name=$(basename "$bin")
		if [ -n "${TESTS:-}" ] && [[ " $TESTS " != *" $name "* ]]; then
			continue
		fi
		log=build/tests/logs/$label-$name.log
		echo "== $label: $name"
		"$bin" 2>&1 | tee "$log"
		count "$label/$name" "$log"
		# the unit tests are the sanitizer build: a leak or an error
		# after the tests ran shows only in the exit status
		if [ "${PIPESTATUS[0]}" = 86 ]; then
			failed=$((failed + 1))
			failures+=("$label/$name (the sanitizers reported an error: see $log)")
		fi
	done
}

# tests/viewers/viewers.js prints cmocka's summary lines too.
run_viewers() {
	local log=build/tests/logs/viewers.log

	if [ -n "${TESTS:-}" ] && [[ " $TESTS " != *" viewers "* ]]; then
		return
	fi
	echo "== viewers: tests/viewers/viewers.js"
	if ! command -v node >/dev/null; then
		echo "SKIP: node is not installed (the viewer tests are a node script)"
		skipped=$((skipped + 1))
		return
	fi
	FLAMEBPF=build/flamebpf node tests/viewers/viewers.js 2>&1 | tee "$log"
	count viewers "$log"
}

# The main paths of the normal (-O2) build under valgrind's memcheck: a
# pass for each run that ends without an error or a definite leak (exit 99
# otherwise). The captures need root and BPF; without them they are skipped.
vg_one() {
	local what=$1 log rc
	shift
	log=build/tests/logs/valgrind-${what// /_}.log
	if [ -n "${TESTS:-}" ] && [[ " $TESTS " != *" valgrind "* ]]; then
		return
	fi
	echo "== valgrind: $what"
	valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
		--suppressions=tests/valgrind.supp \
		--show-leak-kinds=definite "$@" >"$log" 2>&1
	rc=$?
	if [ "$rc" = 99 ] || grep -q '^==[0-9]*== ' "$log"; then
		cat "$log"
		failed=$((failed + 1))
		failures+=("valgrind: $what (see $log)")
	else
		passed=$((passed + 1))
	fi
}

run_valgrind() {
	local fb=build/flamebpf out=build/tests/valgrind perf=tests/data/perf-real-cpuclock.perf
	if ! command -v valgrind >/dev/null; then
		echo "SKIP: valgrind is not installed (tools/deps.sh --test installs it)"
		skipped=$((skipped + 1))
		return
	fi
	mkdir -p "$out"
	vg_one "render to every format" "$fb" render "$perf" -o "$out/r.folded" -o "$out/r.svg" \
		-o "$out/r.pb.gz" -o "$out/r.json" -o "$out/r.perf" -o "$out/r.html"
	vg_one "render chrome JSON" "$fb" render "$out/r.json" -o "$out/c.folded" --flamechart
	vg_one "diff" "$fb" diff "$out/r.folded" "$out/r.folded" -o "$out/d.svg" --format json
	vg_one "list" "$fb" -l 'libc:^mem'
	if [ "$(id -u)" != 0 ]; then
		echo "SKIP: the valgrind runs of captures need root"
		skipped=$((skipped + 1))
		return
	fi
	vg_one "sample, unwind tables" "$fb" --sample 499hz --unwind dwarf -o "$out/s.folded" \
		-o "$out/s.json" -- build/workloads/nofp/cpu_tree 0.3
	vg_one "trace, timeline" "$fb" -f '^(outer|inner)$' -o "$out/t.json" -o "$out/t.folded" -o "$out/t.html" \
		-- build/workloads/tracee nest 20 2 3
}

# Runs each fuzzer on its corpus (tests/fuzz/run.sh): a pass when it ran
# clean, a failure for each crash, leak or hang it found.
run_fuzz() {
	local bin name line rc found
	for bin in build/fuzz/fuzz_*; do
		[ -x "$bin" ] || continue
		name=$(basename "$bin")
		if [ -n "${TESTS:-}" ] && [[ " $TESTS " != *" $name "* ]]; then
			continue
		fi
		echo "== fuzz: $name"
		line=$(tests/fuzz/run.sh "$name" "${FUZZ_SECS:-5}")
		rc=$?
		echo "$line"
		found=$(sed -n 's/.*crashes \([0-9]*\)$/\1/p' <<<"$line")
		if [ "$rc" = 0 ]; then
			passed=$((passed + 1))
		elif [ "$rc" = 1 ]; then
			failed=$((failed + ${found:-1}))
			failures+=("fuzz/$name (${found:-1} found, in build/fuzz/crashes/${name#fuzz_}/)")
		else
			failed=$((failed + 1))
			failures+=("fuzz/$name (did not run)")
		fi
	done
}

mkdir -p build/tests/logs
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:exitcode=86}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:exitcode=86}
if [ "$tier" = all ] || [ "$tier" = unit ]; then
	run_dir build/tests/unit unit
fi
if [ "$tier" = all ] || [ "$tier" = integ ]; then
	FLAMEBPF=build/flamebpf run_dir build/tests/integ integ
fi
if [ "$tier" = all ] && [ -x build/asan/flamebpf ]; then
	FLAMEBPF=build/asan/flamebpf run_dir build/tests/integ integ-asan
fi
if [ "$tier" = all ] || [ "$tier" = viewers ]; then
	run_viewers
fi
if [ "$tier" = all ] || [ "$tier" = valgrind ]; then
	run_valgrind
fi

if [ "$tier" = fuzz ] || { [ "$tier" = all ] && compgen -G 'build/fuzz/fuzz_*' >/dev/null; }; then
	run_fuzz
fi

for f in "${failures[@]}"; do
	echo "FAILED: $f"
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
