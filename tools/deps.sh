#!/bin/sh
# Installs the Debian packages flamebpf needs, only those that are missing.
#   tools/deps.sh          what the build needs
#   tools/deps.sh --test   plus what the tests need
#   tools/deps.sh --bench  plus the peers the benchmark compares with
#   tools/deps.sh --all    all of the above
set -eu

BUILD_PKGS="gcc make pkg-config clang llvm libbpf-dev bpftool libelf-dev libdw-dev zlib1g-dev libcapstone-dev libiberty-dev libjson-c-dev libprotobuf-c-dev protobuf-c-compiler liblzma-dev"
TEST_PKGS="libcmocka-dev nodejs util-linux libcap2-bin binutils xz-utils g++ bsdutils golang-go libxml2-utils"
BENCH_PKGS="linux-perf time"

case "${1:-}" in
"") want=$BUILD_PKGS ;;
--test) want="$BUILD_PKGS $TEST_PKGS" ;;
--bench) want="$BUILD_PKGS $BENCH_PKGS" ;;
--all) want="$BUILD_PKGS $TEST_PKGS $BENCH_PKGS" ;;
*) echo "usage: $0 [--test|--bench|--all]" >&2; exit 2 ;;
esac

missing=
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "flamebpf: installing missing packages:$missing" >&2
if [ "$(id -u)" != 0 ]; then
	echo "flamebpf: run as root (or install them yourself): apt-get install$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
