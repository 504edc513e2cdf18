#!/bin/sh
# Installs the Debian packages flamebpf needs, only those that are missing.
#   tools/deps.sh          what the build needs
#   tools/deps.sh --test   plus what the tests need, and the viewer tests'
#                          node modules (npm ci into build/viewers)
#   tools/deps.sh --bench  plus the peers the benchmark compares with
#   tools/deps.sh --all    all of the above
set -eu

BUILD_PKGS="gcc make pkg-config clang llvm libbpf-dev bpftool libelf-dev libdw-dev zlib1g-dev libcapstone-dev libiberty-dev libjson-c-dev libprotobuf-c-dev protobuf-c-compiler liblzma-dev libcurl4-openssl-dev"
# libclang-rt-14-dev: libFuzzer (tests/fuzz/), which clang only recommends.
# rustc, golang-go, qpdf: programs that unwind, for the uprobe tests.
# python3.11: Debian's own CPython, whose frames test_python names; its
# headers (libpython3.11-dev) check the layout table (test_py_layout).
TEST_PKGS="python3.11 libpython3.11-dev libcmocka-dev systemtap-sdt-dev nodejs util-linux libcap2-bin binutils xz-utils g++ bsdutils golang-go rustc qpdf libxml2-utils chromium libclang-rt-14-dev valgrind"
# python3.11: the interpreter tools/bench_python.sh samples (py-spy is not packaged).
BENCH_PKGS="linux-perf time bpfcc-tools heaptrack python3.11"
# The runtimes whose JIT frames test_runtimes names: Erlang (OTP 25, its
# JIT; erlang-base has erl and erlc), Elixir, OpenJDK 17 (java, javac,
# jcmd). Optional: without them those tests skip, saying why.
RUNTIME_PKGS="erlang-base elixir openjdk-17-jdk-headless"

# The viewer tests' node modules, pinned by tests/viewers/package-lock.json,
# into build/viewers, once per version of the lock file. Without npm or the
# registry it says why and goes on: those tests then skip, saying so too.
viewer_modules() (
	cd "$(dirname "$0")/.." || exit 0
	lock=tests/viewers/package-lock.json dir=build/viewers
	[ -d "$dir/node_modules" ] && cmp -s "$lock" "$dir/.installed" && exit 0
	if ! command -v npm >/dev/null; then
		echo "flamebpf: npm is not installed: the viewer tests will be skipped" >&2
		exit 0
	fi
	if ! timeout 20 npm ping --fetch-retries=0 --fetch-timeout=10000 >/dev/null 2>&1; then
		echo "flamebpf: the npm registry is unreachable: the viewer tests will be skipped" >&2
		exit 0
	fi
	mkdir -p "$dir" && cp tests/viewers/package.json "$lock" "$dir/" &&
		npm ci --prefix "$dir" --no-audit --no-fund >"$dir/npm.log" 2>&1 &&
		cp "$lock" "$dir/.installed" && exit 0
	echo "flamebpf: npm ci failed (see $dir/npm.log): the viewer tests will be skipped" >&2
)

# Installs what RUNTIME_PKGS lacks, quietly; when it cannot, says why and
# goes on.
runtime_pkgs() {
	rmissing=
	for p in $RUNTIME_PKGS; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			rmissing="$rmissing $p"
	done
	[ -n "$rmissing" ] || return 0
	if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
		echo "flamebpf: cannot install$rmissing (needs root and apt-get): the Erlang," \
			"Elixir and Java tests will be skipped" >&2
		return 0
	fi
	echo "flamebpf: installing the runtimes the tests name:$rmissing" >&2
	# shellcheck disable=SC2086
	if ! { DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			$rmissing; } >/dev/null 2>&1; then
		echo "flamebpf: apt-get could not install$rmissing: the Erlang, Elixir and" \
			"Java tests will be skipped" >&2
	fi
}

npm= rt=
case "${1:-}" in
"") want=$BUILD_PKGS ;;
--test) want="$BUILD_PKGS $TEST_PKGS" npm=1 rt=1 ;;
--bench) want="$BUILD_PKGS $BENCH_PKGS" ;;
--all) want="$BUILD_PKGS $TEST_PKGS $BENCH_PKGS" npm=1 rt=1 ;;
*) echo "usage: $0 [--test|--bench|--all]" >&2; exit 2 ;;
esac

missing=
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
if [ -z "$missing" ]; then
	[ -z "$rt" ] || runtime_pkgs
	[ -z "$npm" ] || viewer_modules
	exit 0
fi

echo "flamebpf: installing missing packages:$missing" >&2
if [ "$(id -u)" != 0 ]; then
	echo "flamebpf: run as root (or install them yourself): apt-get install$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
[ -z "$rt" ] || runtime_pkgs
[ -z "$npm" ] || viewer_modules
