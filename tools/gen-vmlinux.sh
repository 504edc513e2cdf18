#!/bin/sh
# Regenerates vmlinux/ARCH/vmlinux.h from the running kernel's BTF. Run it on
# a machine of each architecture (x86_64 -> x86, aarch64 -> arm64).
set -eu
case "$(uname -m)" in
x86_64) arch=x86 ;;
aarch64) arch=arm64 ;;
*) echo "gen-vmlinux: unsupported architecture $(uname -m)" >&2; exit 1 ;;
esac
btf=${1:-/sys/kernel/btf/vmlinux}
[ -r "$btf" ] || { echo "gen-vmlinux: cannot read '$btf' (kernel without BTF?)" >&2; exit 1; }
cd "$(dirname "$0")/.."
mkdir -p "vmlinux/$arch"
bpftool btf dump file "$btf" format c > "vmlinux/$arch/vmlinux.h.tmp"
mv "vmlinux/$arch/vmlinux.h.tmp" "vmlinux/$arch/vmlinux.h"
echo "wrote vmlinux/$arch/vmlinux.h"
