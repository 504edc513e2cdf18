#!/bin/bash
# Regenerates the seed inputs of tests/fuzz/corpus/ that are built, not
# written by hand: tiny ELF files (a few hundred bytes to 2 KB: no start
# files, no page alignment) of the shapes the parsers meet, and samples of
# this machine's /proc files. Run by hand; the results are committed.
#   tests/fuzz/mkseeds.sh
set -eu
cd "$(dirname "$0")/../.." || exit 1
out=tests/fuzz/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The separator of fuzz_debuginfo.c between a binary and its debug file.
SEP=$'\n--flamebpf-fuzz-debug-file--\n'

cat > "$tmp/tiny.c" <<'EOF'
__attribute__((noinline)) int leaf(int x) { return x * 3; }
__attribute__((noinline, weak)) int mid(int x) { return leaf(x) + 1; }
int mid_alias(int x) __attribute__((alias("mid")));
static __attribute__((noinline)) int local_fn(int x) { return mid(x) ^ 5; }
void _start(void) { volatile int r = local_fn(1); (void)r; for (;;); }
EOF
# Names -l prints apart: two versions of f, an IFUNC with two candidates
# (one a GOT load), a static function named as in tiny.c.
cat > "$tmp/ver.c" <<'EOF'
static __attribute__((noinline, used)) int impl_a(int x) { return x + 1; }
__attribute__((noinline)) int impl_b(int x) { return x + 2; }
int old_f(int x) { return x * 2; }
int new_f(int x) { return x * 3; }
__asm__(".symver old_f, f@V1");
__asm__(".symver new_f, f@@V2");
extern volatile int which;
volatile int which;
static void *pick_resolver(void) { return which ? (void *)impl_a : (void *)impl_b; }
int pick(int) __attribute__((ifunc("pick_resolver")));
static __attribute__((noinline, used)) int local_fn(int x) { return pick(x) + 1; }
EOF
cat > "$tmp/ver.map" <<'EOF'
V1 { global: *; local: old_f; new_f; };
V2 { global: f; } V1;
EOF
cat > "$tmp/eh.cpp" <<'EOF'
int may_throw(int x);
extern "C" int catcher(int x)
{
	try {
		return may_throw(x);
	} catch (...) {
		return -1;
	}
}
EOF
cat > "$tmp/inl.c" <<'EOF'
static inline __attribute__((always_inline)) int sq(int x) { return x * x; }
static inline __attribute__((always_inline)) int twice_sq(int x) { return 2 * sq(x); }
__attribute__((noinline)) int outer(int x) { return twice_sq(x) + 1; }
void _start(void) { volatile int r = outer(3); (void)r; for (;;); }
EOF

# shellcheck disable=SC2054 # the commas are the linker's
small=(-Os -nostdlib -fasynchronous-unwind-tables -Wl,-z,max-page-size=16 -Wl,-z,noseparate-code
	-Wl,-z,norelro -Wl,--hash-style=gnu "-ffile-prefix-map=$tmp=.")

build() { # NAME GCC-ARGS...
	local name=$1
	shift
	gcc "${small[@]}" "$@" -o "$tmp/$name"
}

build exec -static -Wl,--build-id -Wl,--eh-frame-hdr "$tmp/tiny.c"
build lib.so -shared -fPIC -Wl,--build-id "$tmp/tiny.c"
build exec32 -m32 -static -Wl,--build-id "$tmp/tiny.c"
build exec_noid -static -Wl,--build-id=none "$tmp/tiny.c"
build dbgframe.so -shared -fPIC -g -fno-asynchronous-unwind-tables -Wl,--build-id "$tmp/tiny.c"
g++ "${small[@]}" -shared -fPIC -Wl,--build-id "$tmp/eh.cpp" -o "$tmp/eh.so"
build ver.so -shared -fPIC -O2 -Wl,--build-id "-Wl,--version-script=$tmp/ver.map" "$tmp/ver.c" \
	"$tmp/tiny.c"
# A dynamic executable: PT_INTERP, DT_NEEDED and a DT_RUNPATH or DT_RPATH
# with ld.so's tokens (not the shell's).
# shellcheck disable=SC2016
gcc "${small[@]}" -nostartfiles -Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/../lib:${LIB}' \
	"$tmp/tiny.c" -Wl,--no-as-needed -lc -o "$tmp/dyn_runpath"
# shellcheck disable=SC2016
gcc "${small[@]}" -nostartfiles -Wl,--disable-new-dtags -Wl,-rpath,'$ORIGIN:$PLATFORM/x' \
	"$tmp/tiny.c" -Wl,--no-as-needed -lc -o "$tmp/dyn_rpath"
# DWARF with inlined calls (src/symbols/srcline.c): gcc's DWARF 5 and 4, clang's
# (no .debug_aranges), compressed sections.
build inl_dwarf5 -static -O2 -g "$tmp/inl.c"
build inl_dwarf4 -static -O2 -gdwarf-4 "$tmp/inl.c"
clang -O2 -g -nostdlib -static -Wl,-z,max-page-size=16 -Wl,-z,norelro "-ffile-prefix-map=$tmp=." \
	"$tmp/inl.c" -o "$tmp/inl_clang"
objcopy --compress-debug-sections=zlib "$tmp/inl_dwarf5" "$tmp/inl_dwarf5_z"

# Only the sections the parsers read: .debug_info and friends are large.
keep_frame() { # IN OUT
	objcopy -R .debug_info -R .debug_abbrev -R .debug_line -R .debug_str -R .debug_aranges \
		-R .debug_line_str -R .debug_rnglists -R .debug_loclists -R .comment "$1" "$2"
}
keep_frame "$tmp/dbgframe.so" "$tmp/dbgframe_small.so"
objcopy --compress-debug-sections=zlib "$tmp/dbgframe_small.so" "$tmp/dbgframe_z.so"

# No section headers: the unwinder goes through PT_GNU_EH_FRAME.
python3 - "$tmp/exec" "$tmp/exec_noshdr" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
struct.pack_into('<Q', b, 0x28, 0)        # e_shoff
struct.pack_into('<HHH', b, 0x3a, 0, 0, 0) # e_shentsize, e_shnum, e_shstrndx
open(sys.argv[2], 'wb').write(b)
EOF

# Stripped, the names elsewhere (src/symbols/debuginfo.c): by build-id, by a
# debuglink (a binary without build-id, so that the link is what finds it;
# the file is named "dbg", as the harness names it), in MiniDebugInfo (as the
# Makefile makes it: gdb's recipe).
mkdir "$tmp/link"
objcopy --only-keep-debug "$tmp/exec" "$tmp/dbg_id"
objcopy --strip-all "$tmp/exec" "$tmp/stripped_buildid"
objcopy --only-keep-debug "$tmp/exec_noid" "$tmp/link/dbg"
objcopy --strip-all --add-gnu-debuglink="$tmp/link/dbg" "$tmp/exec_noid" "$tmp/stripped_link"
objcopy -S --remove-section .comment --keep-symbol=local_fn --keep-symbol=leaf \
	"$tmp/link/dbg" "$tmp/mini"
xz -f "$tmp/mini"
objcopy --strip-all --remove-section .comment --add-section .gnu_debugdata="$tmp/mini.xz" \
	"$tmp/exec_noid" "$tmp/stripped_mini"

mkdir -p "$out"/{elf_symtab,debuginfo,unwind_build,unwind_parse,binaries,funcs}
for f in exec lib.so exec32 stripped_buildid stripped_mini eh.so dyn_runpath ver.so; do
	cp "$tmp/$f" "$out/elf_symtab/$f"
done
for f in exec lib.so eh.so ver.so; do
	cp "$tmp/$f" "$out/funcs/$f"
done
cp "$tmp/stripped_mini" "$out/debuginfo/mini"
cp "$tmp/mini.xz" "$out/debuginfo/mini.xz"
{ cat "$tmp/stripped_buildid"; printf '%s' "$SEP"; cat "$tmp/dbg_id"; } > "$out/debuginfo/build_id"
{ cat "$tmp/stripped_link"; printf '%s' "$SEP"; cat "$tmp/link/dbg"; } > "$out/debuginfo/debuglink"
for f in exec lib.so exec_noshdr dbgframe_small.so dbgframe_z.so eh.so; do
	cp "$tmp/$f" "$out/unwind_build/$f"
done
objcopy -O binary --only-section=.eh_frame "$tmp/exec" "$out/unwind_parse/eh_frame"
objcopy -O binary --only-section=.eh_frame "$tmp/eh.so" "$out/unwind_parse/eh_frame_zplr"
# its .plt's FDE holds the PLT's CFA expression
objcopy -O binary --only-section=.eh_frame "$tmp/lib.so" "$out/unwind_parse/eh_frame_plt"
objcopy -O binary --only-section=.debug_frame --set-section-flags .debug_frame=alloc \
	"$tmp/dbgframe_small.so" "$out/unwind_parse/debug_frame"
cp "$tmp/dyn_runpath" "$tmp/dyn_rpath" "$out/binaries/"
mkdir -p "$out/srcline"
for f in inl_dwarf5 inl_dwarf4 inl_clang inl_dwarf5_z; do
	objcopy -R .comment "$tmp/$f" "$out/srcline/$f"
done

# This machine's /proc: a process's maps, the head of kallsyms.
mkdir -p "$out"/{proc_maps,kallsyms}
cat /proc/self/maps > "$out/proc_maps/self"
if [ "$(id -u)" = 0 ]; then
	{ head -n 40 /proc/kallsyms; grep -m 20 '\[' /proc/kallsyms; } > "$out/kallsyms/proc"
fi
