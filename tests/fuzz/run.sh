#!/bin/bash
# Runs one libFuzzer harness for a while and says how it went on one line,
# followed by the sanitizer's report and how to replay each input it found:
#   tests/fuzz/run.sh fuzz_NAME [SECONDS]     (default: $FUZZ_SECS, else 60)
# The committed seeds (tests/fuzz/corpus/NAME/) are copied to build/fuzz/
# corpus/NAME/, which the fuzzer grows, so the repository is never written;
# crashes, leaks and hangs go to build/fuzz/crashes/NAME/. Exits 0 when the
# run was clean, 1 when it found something, 2 when it could not run.
# FUZZ_ARGS adds libFuzzer options (e.g. -use_value_profile=1).
set -u
cd "$(dirname "$0")/../.." || exit 2

name=${1:?usage: tests/fuzz/run.sh fuzz_NAME [SECONDS]}
secs=${2:-${FUZZ_SECS:-60}}
bin=build/fuzz/$name
base=${name#fuzz_}
corpus=build/fuzz/corpus/$base
crashes=build/fuzz/crashes/$base
log=build/fuzz/logs/$base.log

# Longest input each gets: ELF seeds are up to a few KB, a fixture ~100 KB;
# text parsers find their bugs in short inputs.
case $base in
elf_symtab | debuginfo | unwind_build | srcline | funcs) max_len=131072 dict=elf ;;
binaries) max_len=16384 dict=binaries ;;
unwind_parse) max_len=4096 dict=eh_frame ;;
in_perf | reader) max_len=16384 dict=perf ;;
in_chrome | in_html) max_len=16384 dict=json ;;
proc_maps | perfmap | kallsyms) max_len=8192 dict=maps ;;
options) max_len=1024 dict=options ;;
demangle) max_len=512 dict=demangle ;;
*) max_len=8192 dict= ;;
esac

if [ ! -x "$bin" ]; then
	echo "$name: not built (make $bin)" >&2
	exit 2
fi
mkdir -p "$corpus" "$crashes" "$(dirname "$log")"
[ -d "tests/fuzz/corpus/$base" ] && cp -n "tests/fuzz/corpus/$base"/* "$corpus"/ 2>/dev/null
# The ELF parsers also start from the test fixtures, when they are built.
case $base in
elf_symtab | debuginfo | unwind_build | srcline | funcs)
	for f in build/tests/fixtures/*; do
		[ -f "$f" ] && [ "$(head -c 4 "$f")" = $'\x7fELF' ] && cp -n "$f" "$corpus/fixture-${f##*/}"
	done
	;;
esac

stamp=$(mktemp)
args=(-max_total_time="$secs" -max_len="$max_len" -timeout=25 -rss_limit_mb=2048
	-print_final_stats=1 -artifact_prefix="$crashes/")
[ -n "$dict" ] && args+=(-dict="tests/fuzz/$dict.dict")
# shellcheck disable=SC2206
args+=(${FUZZ_ARGS:-})
# Others share the machine: the fuzzer yields to them.
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} nice -n 10 "$bin" "${args[@]}" "$corpus" >"$log" 2>&1
rc=$?

mapfile -t new < <(find "$crashes" -type f -newer "$stamp")
rm -f "$stamp"
found=${#new[@]}
[ "$rc" != 0 ] && [ "$found" = 0 ] && found=1
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -n 1)
cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
ft=$(grep -o 'ft: [0-9]*' "$log" | tail -n 1)
corp=$(grep -o 'corp: [0-9]*' "$log" | tail -n 1)
printf '%-18s runs %-9s %3s s  %-10s %-10s %-11s crashes %s\n' "$name" "${runs:-?}" \
	"${took:-?}" "${cov:-cov: ?}" "${ft:-ft: ?}" "${corp:-corp: ?}" "$found"
if [ "$found" != 0 ]; then
	# The sanitizer's report, and how to replay what it found.
	grep -m 1 -A 30 -E '^==[0-9]+==|runtime error|check failed|^ALARM|deadly signal' "$log"
	for f in "${new[@]}"; do
		echo "  reproduce: $bin $f"
	done
	exit 1
fi
exit 0
