# flamebpf build. Everything generated goes under build/; V=1 shows commands.
.DELETE_ON_ERROR:
.SUFFIXES:

VERSION := 0.1.0
ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
BUILD := build
PREFIX ?= /usr/local

CC ?= gcc
CLANG ?= clang
CLANGXX ?= clang++
BPFTOOL ?= bpftool
PKGS := libbpf libelf libdw zlib json-c libprotobuf-c liblzma
# Opened at their first use (dlopen), not linked: their pages (3.2 MiB of
# capstone's tables, 5 MiB of libcurl's TLS and the rest) would be in the
# RSS of every run, and only the uprobe modes and --push use them.
DLOPEN_PKGS := capstone libcurl
# Recursive (=) on purpose: expanded only in recipes, after `deps` ran.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) $(DLOPEN_PKGS)) \
	-DCAPSTONE_SONAME='"$(call soname,capstone,libcapstone)"' \
	-DCURL_SONAME='"$(call soname,libcurl,libcurl)"'
PKG_LIBS = $(shell pkg-config --libs $(PKGS)) -ldl
# The soname of library $(2) of package $(1), as the linker would record it.
soname = $(or $(shell objdump -p $$(pkg-config --variable=libdir $(1))/$(2).so 2>/dev/null | \
	awk '$$1 == "SONAME" { print $$2 }'),$(2).so)
# libiberty (the demangler binutils and perf use) has no pkg-config file.
EXTRA_LIBS := -liberty -lm

WARN := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-missing-field-initializers
CFLAGS ?= -O2 -g
ALL_CFLAGS = $(CFLAGS) $(WARN) -std=gnu11 -D_GNU_SOURCE -DFLAMEBPF_VERSION='"$(VERSION)"' \
	-Isrc -Ibpf -I$(BUILD) $(PKG_CFLAGS) -MMD -MP
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Ivmlinux/$(ARCH) -Ibpf -Wall -Werror

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(BUILD)/%.bpf.o,$(BPF_SRCS))
SKELS := $(patsubst bpf/%.bpf.c,$(BUILD)/%.skel.h,$(BPF_SRCS))
.SECONDARY: $(BPF_OBJS) $(SKELS)
# User space, one folder per layer (src/*/): objects go to build/obj/FOLDER/.
SRCS := $(wildcard src/*/*.c)
LIB_SRCS := $(filter-out src/cli/main.c,$(SRCS))
OBJS := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(SRCS))
LIB_OBJS := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(LIB_SRCS))
ASAN_OBJS := $(patsubst src/%.c,$(BUILD)/asan/obj/%.o,$(SRCS))
ASAN_LIB_OBJS := $(patsubst src/%.c,$(BUILD)/asan/obj/%.o,$(LIB_SRCS))
ASAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
# C generated from proto/*.proto by protoc-c, linked like the sources.
PROTOC_C ?= protoc-c
PROTOS := $(wildcard proto/*.proto)
GEN_HDRS := $(patsubst proto/%.proto,$(BUILD)/gen/%.pb-c.h,$(PROTOS))
.SECONDARY: $(GEN_HDRS) $(GEN_HDRS:.h=.c)
GEN_OBJS := $(patsubst proto/%.proto,$(BUILD)/gen/%.pb-c.o,$(PROTOS))
ASAN_GEN_OBJS := $(patsubst proto/%.proto,$(BUILD)/asan/gen/%.pb-c.o,$(PROTOS))
OBJS += $(GEN_OBJS)
LIB_OBJS += $(GEN_OBJS)
ASAN_OBJS += $(ASAN_GEN_OBJS)
ASAN_LIB_OBJS += $(ASAN_GEN_OBJS)
# libFuzzer harnesses (tests/fuzz/): the library again, built by clang with
# the fuzzer's coverage, ASan and UBSan, as an archive so that each harness
# links only what it calls.
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRCS))
FUZZ_LIB_OBJS := $(patsubst src/%.c,$(BUILD)/fuzz/obj/%.o,$(LIB_SRCS)) \
	$(patsubst proto/%.proto,$(BUILD)/fuzz/gen/%.pb-c.o,$(PROTOS))
FUZZ_FLAGS := $(ASAN_FLAGS)
FUZZ_SECS ?= 60

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_SRCS))
UNIT_HELPERS := $(filter-out $(UNIT_SRCS),$(wildcard tests/unit/*.c))
INTEG_SRCS := $(wildcard tests/integ/test_*.c)
INTEG_BINS := $(patsubst tests/integ/%.c,$(BUILD)/tests/integ/%,$(INTEG_SRCS))
INTEG_HELPERS := $(filter-out $(INTEG_SRCS),$(wildcard tests/integ/*.c))
FIXTURE_SRCS := $(wildcard tests/fixtures/*.c)
FIXTURES := $(foreach f,$(patsubst tests/fixtures/%.c,%,$(FIXTURE_SRCS)),\
	$(BUILD)/tests/fixtures/$(f)_pie $(BUILD)/tests/fixtures/$(f)_nopie $(BUILD)/tests/fixtures/lib$(f).so)
FIXTURE_CXX_SRCS := $(wildcard tests/fixtures/*.cpp)
FIXTURES += $(patsubst tests/fixtures/%.cpp,$(BUILD)/tests/fixtures/%_cxx,$(FIXTURE_CXX_SRCS)) \
	$(BUILD)/tests/fixtures/symfix_runpath
FIXTURES += $(addprefix $(BUILD)/tests/fixtures/,symfix_buildid symfix_debuglink symfix_dotdebug \
	symfix_badcrc symfix_mini libsymfix_mini.so)
# Unwind-table fixtures: unwfix.c at -O2 with and without frame pointers, and
# as a library whose call-frame information is all in .debug_frame (no start
# files, which would bring .eh_frame), also compressed.
FIXTURES += $(addprefix $(BUILD)/tests/fixtures/,unwfix_omitfp unwfix_fp libunwfix_dbg.so \
	libunwfix_dbgz.so)
# pltfix with IBT stubs (endbr64, .plt.sec), which Debian 12 builds lack.
FIXTURES += $(BUILD)/tests/fixtures/libpltfix_ibt.so
# retfix with the section that marks a Go binary (stack_walkers).
FIXTURES += $(BUILD)/tests/fixtures/retfix_go
# Names -l must print apart (tests/fixtures/names/): two versions of one
# symbol, an IFUNC, static functions alike in two files, a C++ destructor's
# variants, a .cold part; and the same stripped to its .dynsym.
NAMEFIX_SRCS := $(wildcard tests/fixtures/names/*.cpp)
FIXTURES += $(addprefix $(BUILD)/tests/fixtures/,libnamefix.so libnamefix_stripped.so)
WORKLOAD_SRCS := $(wildcard tests/workloads/*.c)
WORKLOAD_CXX_SRCS := $(wildcard tests/workloads/*.cpp)
WORKLOADS := $(patsubst tests/workloads/%.c,$(BUILD)/workloads/%,$(WORKLOAD_SRCS)) \
	$(patsubst tests/workloads/%.cpp,$(BUILD)/workloads/%,$(WORKLOAD_CXX_SRCS))
# Workloads are built with clang: unlike gcc it keeps frame pointers in leaf
# functions, so frame-pointer stacks do not lose a leaf's caller.
WORKLOAD_CFLAGS := -O1 -g -fno-omit-frame-pointer -fno-inline -Wall -Werror -pthread
# pipeline with a slower checksum(): the "new" build of the diff tests, under
# the same file name so that its captures have the same root.
WORKLOADS += $(BUILD)/workloads/regressed/pipeline
# cpu_tree stripped, its symbols in a .gnu_debuglink file beside it.
WORKLOADS += $(BUILD)/workloads/stripped/cpu_tree
# Built as distributions build, for the unwinding tests: gcc -O2 without
# frame pointers (gcc's default), and gcc -O2 with them, which still leaves
# leaf functions that need no stack without a frame.
GCC_WORKLOAD_CFLAGS := -O2 -g -fno-inline -Wall -Werror -pthread
WORKLOADS += $(BUILD)/workloads/nofp/cpu_tree $(BUILD)/workloads/gccfp/leafy
# Static, without frame pointers: it runs alone in a chroot directory.
WORKLOADS += $(BUILD)/workloads/static/cpu_tree $(BUILD)/workloads/static/throw_timing
# nofp/cpu_tree stripped, without a debuglink: its symbols are in buildid/cpu_tree.dbg,
# which the names test installs under /usr/lib/debug/.build-id/ for the run.
WORKLOADS += $(BUILD)/workloads/buildid/cpu_tree
# Rust, when rustc is installed: as rustc mangles by default (legacy, with a
# hash) and with v0 mangling. -O2 without debug info or frame pointers; out
# of make's jobserver, which rustc would warn it cannot use.
RUSTC ?= $(shell command -v rustc 2>/dev/null)
RUST_WORKLOAD_FLAGS := -C opt-level=2 -C debuginfo=0
ifneq ($(RUSTC),)
WORKLOADS += $(BUILD)/workloads/rust_names $(BUILD)/workloads/rust_v0/rust_names
endif
# Programs that unwind, switch stacks or are Go, built as their toolchains
# build by default (tests/workloads/unwind/, test_trace_unwind): g++ -O2
# (with a library of its own to throw across), gcc -O2, rustc, Debian's go.
UNWIND_DIR := $(BUILD)/workloads/unwind
WORKLOADS += $(UNWIND_DIR)/cxx_unwind $(UNWIND_DIR)/libcxx_thrower.so $(UNWIND_DIR)/ctx_switch
ifneq ($(RUSTC),)
WORKLOADS += $(UNWIND_DIR)/rust_panics
endif
GO ?= $(shell command -v go 2>/dev/null)
ifneq ($(GO),)
# And stripped, as Debian ships Go programs: names only in Go's own table.
WORKLOADS += $(UNWIND_DIR)/go_stacks $(UNWIND_DIR)/stripped/go_stacks
WORKLOADS += $(UNWIND_DIR)/go_calls $(UNWIND_DIR)/go_clock $(UNWIND_DIR)/go_leaf
endif

DEPS_STAMP := $(BUILD)/.deps-ok

.PHONY: all deps demo test test-bins test-unit test-integ test-viewers fuzz asan bench soak install uninstall clean lint \
	check-layers
all: $(BUILD)/flamebpf

$(DEPS_STAMP):
	$(Q)tools/deps.sh
	$(Q)mkdir -p $(@D) && touch $@

deps:
	$(Q)tools/deps.sh --all

VMLINUX := vmlinux/$(ARCH)/vmlinux.h
$(VMLINUX):
	@echo "flamebpf: no $@ for this architecture: run tools/gen-vmlinux.sh here" >&2; exit 1

# The tracer claims a thread's pending calls with a compare-and-swap (v3).
$(BUILD)/trace.bpf.o: BPF_CFLAGS += -mcpu=v3

$(BUILD)/%.bpf.o: bpf/%.bpf.c $(VMLINUX) | $(DEPS_STAMP)
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -MMD -MP -c bpf/$*.bpf.c -o $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

$(BUILD)/obj/%.o: src/%.c | $(SKELS) $(GEN_HDRS) $(DEPS_STAMP)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/asan/obj/%.o: src/%.c | $(SKELS) $(GEN_HDRS) $(DEPS_STAMP)
	$(call msg,CC-ASAN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(ASAN_FLAGS) -c $< -o $@

# One protoc-c run writes both the .c and the .h (a grouped pattern rule).
$(BUILD)/gen/%.pb-c.c $(BUILD)/gen/%.pb-c.h: proto/%.proto | $(DEPS_STAMP)
	$(call msg,PROTOC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(PROTOC_C) --proto_path=proto --c_out=$(@D) $<

$(BUILD)/gen/%.pb-c.o: $(BUILD)/gen/%.pb-c.c
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/asan/gen/%.pb-c.o: $(BUILD)/gen/%.pb-c.c
	$(call msg,CC-ASAN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(ASAN_FLAGS) -c $< -o $@

$(BUILD)/fuzz/obj/%.o: src/%.c | $(SKELS) $(GEN_HDRS) $(DEPS_STAMP)
	$(call msg,CC-FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(ALL_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(BUILD)/fuzz/gen/%.pb-c.o: $(BUILD)/gen/%.pb-c.c
	$(call msg,CC-FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(ALL_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(BUILD)/fuzz/libflamebpf.a: $(FUZZ_LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(BUILD)/fuzz/libflamebpf.a | $(DEPS_STAMP)
	$(call msg,CC-FUZZ,$@)
	$(Q)$(CLANG) $(ALL_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer -Itests/fuzz $< \
		$(BUILD)/fuzz/libflamebpf.a $(PKG_LIBS) $(EXTRA_LIBS) -o $@

# The SVG writer's script, compiled in. It goes into a CDATA section, which
# "]]>" would end.
$(BUILD)/gen/svg_js.h: src/formats/svg/flamegraph.js tools/embed.sh
	$(call msg,EMBED,$@)
	$(Q)mkdir -p $(@D)
	$(Q)if grep -n ']]>' $<; then echo "flamebpf: $< must not contain ']]>'" >&2; exit 1; fi
	$(Q)tools/embed.sh svg_js < $< > $@
$(addsuffix /formats/out_svg.o,$(BUILD)/obj $(BUILD)/asan/obj $(BUILD)/fuzz/obj): $(BUILD)/gen/svg_js.h

# The system calls of this architecture, for -e tracepoint:syscalls:...
$(BUILD)/gen/syscalls.h: tools/gen_syscalls.sh
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)tools/gen_syscalls.sh $(CC) > $@
$(addsuffix /capture/syscalls.o,$(BUILD)/obj $(BUILD)/asan/obj $(BUILD)/fuzz/obj): $(BUILD)/gen/syscalls.h
# The HTML report's script and style (src/formats/html/), compiled in. Each
# goes into an element of the page that "</script" or "</style" would end.
$(BUILD)/gen/html_js.h: src/formats/html/report.js tools/embed.sh
	$(call msg,EMBED,$@)
	$(Q)mkdir -p $(@D)
	$(Q)if grep -in '</script' $<; then echo "flamebpf: $< must not contain '</script'" >&2; exit 1; fi
	$(Q)tools/embed.sh html_js < $< > $@
$(BUILD)/gen/html_css.h: src/formats/html/report.css tools/embed.sh
	$(call msg,EMBED,$@)
	$(Q)mkdir -p $(@D)
	$(Q)if grep -in '</style' $<; then echo "flamebpf: $< must not contain '</style'" >&2; exit 1; fi
	$(Q)tools/embed.sh html_css < $< > $@
$(addsuffix /formats/out_html.o,$(BUILD)/obj $(BUILD)/asan/obj $(BUILD)/fuzz/obj): \
	$(BUILD)/gen/html_js.h $(BUILD)/gen/html_css.h

$(BUILD)/flamebpf: $(OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(PKG_LIBS) $(EXTRA_LIBS) -o $@

$(BUILD)/asan/flamebpf: $(ASAN_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(ASAN_FLAGS) $^ $(PKG_LIBS) $(EXTRA_LIBS) -o $@

asan: $(BUILD)/asan/flamebpf

# Unit tests link the library objects with the ASan+UBSan build.
$(BUILD)/tests/unit/%: tests/unit/%.c $(UNIT_HELPERS) $(ASAN_LIB_OBJS) | $(DEPS_STAMP)
	$(call msg,CC-TEST,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(ASAN_FLAGS) -Itests -DFIXTURE_DIR='"$(abspath $(BUILD))/tests/fixtures"' \
		$< $(UNIT_HELPERS) $(ASAN_LIB_OBJS) $(PKG_LIBS) $(EXTRA_LIBS) -lcmocka -ldl -o $@

# test_py_layout checks the Python layout table against CPython's own
# headers, where they are installed (libpython3.11-dev).
$(BUILD)/tests/unit/test_py_layout: private ALL_CFLAGS += \
	$(if $(wildcard /usr/include/python3.11/Python.h),-I/usr/include/python3.11)

# test_py_layout310, 312 and 313 do the same with pyenv's 3.10, 3.12 and
# 3.13, where they are installed; 313 reads the offsets 3.13's libpython
# publishes.
PYENV_ROOT ?= $(HOME)/.pyenv
PY310_INC := $(firstword $(wildcard $(PYENV_ROOT)/versions/3.10.*/include/python3.10))
PY312_INC := $(firstword $(wildcard $(PYENV_ROOT)/versions/3.12.*/include/python3.12))
PY313_INC := $(firstword $(wildcard $(PYENV_ROOT)/versions/3.13.*/include/python3.13))
PY313_LIB := $(firstword $(wildcard $(PYENV_ROOT)/versions/3.13.*/lib/libpython3.13.so.1.0))
$(BUILD)/tests/unit/test_py_layout310: private ALL_CFLAGS += \
	$(if $(wildcard $(PY310_INC)/Python.h),-I$(PY310_INC))
$(BUILD)/tests/unit/test_py_layout312: private ALL_CFLAGS += \
	$(if $(wildcard $(PY312_INC)/Python.h),-I$(PY312_INC))
$(BUILD)/tests/unit/test_py_layout313: private ALL_CFLAGS += \
	$(if $(wildcard $(PY313_INC)/Python.h),-I$(PY313_INC)) \
	$(if $(PY313_LIB),-DPY313_LIB='"$(PY313_LIB)"')

# Symbolizer fixtures: the same code as a PIE, a non-PIE and a shared library.
$(BUILD)/tests/fixtures/%_pie: tests/fixtures/%.c
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O1 -g -fPIE -pie -Wl,--build-id $< -o $@
$(BUILD)/tests/fixtures/%_nopie: tests/fixtures/%.c
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O1 -g -fno-pie -no-pie -Wl,--build-id $< -o $@
$(BUILD)/tests/fixtures/lib%.so: tests/fixtures/%.c
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O1 -g -fPIC -shared -DFIXTURE_LIB -Wl,--build-id $< -o $@
$(BUILD)/tests/fixtures/unwfix_omitfp: tests/fixtures/unwfix.c
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -fomit-frame-pointer -fPIE -pie -Wl,--build-id $< -o $@
$(BUILD)/tests/fixtures/unwfix_fp: tests/fixtures/unwfix.c
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -fno-omit-frame-pointer -fPIE -pie -Wl,--build-id $< -o $@
$(BUILD)/tests/fixtures/libunwfix_dbg.so: tests/fixtures/unwfix.c
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -fno-asynchronous-unwind-tables -fno-unwind-tables -fPIC -shared \
		-nostartfiles -DFIXTURE_LIB -Wl,--build-id $< -o $@
$(BUILD)/tests/fixtures/libunwfix_dbgz.so: $(BUILD)/tests/fixtures/libunwfix_dbg.so
	$(Q)objcopy --compress-debug-sections=zlib $< $@
$(BUILD)/tests/fixtures/libpltfix_ibt.so: tests/fixtures/pltfix.c
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O1 -g -fPIC -shared -DFIXTURE_LIB -fcf-protection=full -Wl,-z,ibtplt \
		-Wl,--build-id $< -o $@
$(BUILD)/tests/fixtures/retfix_go: $(BUILD)/tests/fixtures/retfix_pie
	$(Q)printf 'go' > $@.sec
	$(Q)objcopy --add-section .gopclntab=$@.sec $< $@
	$(Q)rm -f $@.sec
# C++ fixtures, for mangled names.
$(BUILD)/tests/fixtures/%_cxx: tests/fixtures/%.cpp
	$(Q)mkdir -p $(@D)
	$(Q)$(CXX) -O1 -g -fPIE -pie -Wl,--build-id $< -o $@
$(BUILD)/tests/fixtures/libnamefix.so: $(NAMEFIX_SRCS) tests/fixtures/names/namefix.map
	$(Q)mkdir -p $(@D)
	$(Q)$(CXX) -O2 -g -fPIC -shared -Wl,--build-id \
		-Wl,--version-script=tests/fixtures/names/namefix.map $(NAMEFIX_SRCS) -o $@
$(BUILD)/tests/fixtures/libnamefix_stripped.so: $(BUILD)/tests/fixtures/libnamefix.so
	$(Q)objcopy --strip-all $< $@
# Needs libsymfix.so, found through DT_RUNPATH $ORIGIN (library search tests).
$(BUILD)/tests/fixtures/symfix_runpath: tests/fixtures/symfix.c $(BUILD)/tests/fixtures/libsymfix.so
	$(Q)$(CC) -O1 -g -fPIE -pie -Wl,--build-id $< -o $@ -L$(@D) -Wl,--no-as-needed -lsymfix \
		-Wl,--enable-new-dtags -Wl,-rpath,'$$ORIGIN'

# Stripped copies of symfix whose names are elsewhere (src/symbols/debuginfo.c): in a
# build-id tree under debugroot/, in a .gnu_debuglink file beside it or in
# .debug/, in one changed since it was linked (a CRC mismatch), in MiniDebugInfo.
$(BUILD)/tests/fixtures/symfix_buildid: $(BUILD)/tests/fixtures/symfix_pie
	$(Q)id=$$(readelf -n $< | sed -n 's/^ *Build ID: //p'); \
	d=$(@D)/debugroot/.build-id/$$(echo $$id | cut -c1-2); \
	mkdir -p $$d && objcopy --only-keep-debug $< $$d/$$(echo $$id | cut -c3-).debug
	$(Q)objcopy --strip-all $< $@
$(BUILD)/tests/fixtures/symfix_debuglink: $(BUILD)/tests/fixtures/symfix_pie
	$(Q)objcopy --only-keep-debug $< $@.debug
	$(Q)objcopy --strip-all --add-gnu-debuglink=$@.debug $< $@
$(BUILD)/tests/fixtures/symfix_dotdebug: $(BUILD)/tests/fixtures/symfix_pie
	$(Q)mkdir -p $(@D)/.debug
	$(Q)objcopy --only-keep-debug $< $(@D)/.debug/$(@F).debug
	$(Q)objcopy --strip-all --add-gnu-debuglink=$(@D)/.debug/$(@F).debug $< $@
$(BUILD)/tests/fixtures/symfix_badcrc: $(BUILD)/tests/fixtures/symfix_pie
	$(Q)objcopy --only-keep-debug $< $@.debug
	$(Q)objcopy --strip-all --add-gnu-debuglink=$@.debug $< $@
	$(Q)printf 'changed since' >> $@.debug
# MiniDebugInfo as gdb's manual makes it: the functions .dynsym lacks, in an
# xz-compressed ELF in .gnu_debugdata. $(call minidebug,IN,OUT)
define minidebug
	$(Q)nm -D --defined-only --format=posix $(1) | cut -d' ' -f1 | sort -u > $(2).dynsyms
	$(Q)nm --defined-only --format=posix $(1) | awk '$$2 ~ /^[TtiWw]$$/ {print $$1}' | \
		sort -u > $(2).funcs
	$(Q)comm -13 $(2).dynsyms $(2).funcs > $(2).keep
	$(Q)objcopy --only-keep-debug $(1) $(2).dbg
	$(Q)objcopy -S --remove-section .comment --keep-symbols=$(2).keep $(2).dbg $(2).mini
	$(Q)xz -f $(2).mini
	$(Q)objcopy --strip-all --remove-section .comment --add-section .gnu_debugdata=$(2).mini.xz \
		$(1) $(2)
	$(Q)rm -f $(2).dynsyms $(2).funcs $(2).keep $(2).dbg $(2).mini.xz
endef
$(BUILD)/tests/fixtures/symfix_mini: $(BUILD)/tests/fixtures/symfix_pie
	$(call minidebug,$<,$@)
$(BUILD)/tests/fixtures/libsymfix_mini.so: $(BUILD)/tests/fixtures/libsymfix.so
	$(call minidebug,$<,$@)

$(BUILD)/tests/integ/%: tests/integ/%.c $(INTEG_HELPERS) | $(DEPS_STAMP)
	$(call msg,CC-TEST,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -Itests/integ $< $(INTEG_HELPERS) -lcmocka $(shell pkg-config --libs json-c) -lm -o $@

# test_push decodes the OTLP uploads with the generated protobuf-c code.
$(BUILD)/tests/integ/test_push: tests/integ/test_push.c $(INTEG_HELPERS) \
		$(BUILD)/gen/otlp_profiles.pb-c.o | $(DEPS_STAMP)
	$(call msg,CC-TEST,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -Itests/integ $< $(INTEG_HELPERS) $(BUILD)/gen/otlp_profiles.pb-c.o \
		-lcmocka $(shell pkg-config --libs json-c libprotobuf-c) -lm -o $@

$(BUILD)/workloads/%: tests/workloads/%.c | $(DEPS_STAMP)
	$(call msg,CC-WORK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(WORKLOAD_CFLAGS) -MMD -MP $< -o $@

# Calls abs() through its PLT: not inlined as a builtin, lazy-binding stubs.
$(BUILD)/workloads/plt_calls: private WORKLOAD_CFLAGS += -fno-builtin -Wl,-z,lazy

$(BUILD)/workloads/regressed/pipeline: tests/workloads/pipeline.c | $(DEPS_STAMP)
	$(call msg,CC-WORK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(WORKLOAD_CFLAGS) -DREGRESSED -MMD -MP $< -o $@

$(BUILD)/workloads/nofp/%: tests/workloads/%.c | $(DEPS_STAMP)
	$(call msg,CC-WORK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(GCC_WORKLOAD_CFLAGS) -fomit-frame-pointer -MMD -MP $< -o $@

$(BUILD)/workloads/static/%: tests/workloads/%.c | $(DEPS_STAMP)
	$(call msg,CC-WORK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(GCC_WORKLOAD_CFLAGS) -fomit-frame-pointer -static -MMD -MP $< -o $@

$(BUILD)/workloads/gccfp/%: tests/workloads/%.c | $(DEPS_STAMP)
	$(call msg,CC-WORK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(GCC_WORKLOAD_CFLAGS) -fno-omit-frame-pointer -MMD -MP $< -o $@

$(BUILD)/workloads/stripped/%: $(BUILD)/workloads/%
	$(call msg,STRIP,$@)
	$(Q)mkdir -p $(@D)
	$(Q)objcopy --only-keep-debug $< $@.debug
	$(Q)objcopy --strip-all --add-gnu-debuglink=$@.debug $< $@

$(BUILD)/workloads/%: tests/workloads/%.cpp | $(DEPS_STAMP)
	$(call msg,CXX-WORK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANGXX) $(WORKLOAD_CFLAGS) $< -o $@

$(BUILD)/workloads/buildid/%: $(BUILD)/workloads/nofp/%
	$(call msg,STRIP,$@)
	$(Q)mkdir -p $(@D)
	$(Q)objcopy --only-keep-debug $< $@.dbg
	$(Q)objcopy --strip-all $< $@

$(BUILD)/workloads/rust_names: tests/workloads/rust_names.rs
	$(call msg,RUSTC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)MAKEFLAGS= $(RUSTC) $(RUST_WORKLOAD_FLAGS) $< -o $@

$(BUILD)/workloads/rust_v0/rust_names: tests/workloads/rust_names.rs
	$(call msg,RUSTC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)MAKEFLAGS= $(RUSTC) $(RUST_WORKLOAD_FLAGS) -C symbol-mangling-version=v0 $< -o $@

# g++ -O2, as Debian builds C++; and with libstdc++ linked in (its exception
# probes then in the program itself).
$(BUILD)/workloads/throw_timing: tests/workloads/throw_timing.cpp | $(DEPS_STAMP)
	$(call msg,CXX-WORK,$@)
	$(Q)$(CXX) -O2 -Wall -Werror $< -o $@

$(BUILD)/workloads/static/throw_timing: tests/workloads/throw_timing.cpp | $(DEPS_STAMP)
	$(call msg,CXX-WORK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CXX) -O2 -Wall -Werror -static-libstdc++ -static-libgcc $< -o $@

$(UNWIND_DIR)/libcxx_thrower.so: tests/workloads/unwind/cxx_thrower.cpp | $(DEPS_STAMP)
	$(call msg,CXX-WORK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CXX) -O2 -Wall -Werror -fPIC -shared $< -o $@

$(UNWIND_DIR)/cxx_unwind: tests/workloads/unwind/cxx_unwind.cpp $(UNWIND_DIR)/libcxx_thrower.so
	$(call msg,CXX-WORK,$@)
	$(Q)$(CXX) -O2 -Wall -Werror -Itests/workloads/unwind $< -L$(@D) -lcxx_thrower \
		-Wl,-rpath,'$$ORIGIN' -o $@

$(UNWIND_DIR)/ctx_switch: tests/workloads/unwind/ctx_switch.c | $(DEPS_STAMP)
	$(call msg,CC-WORK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -Wall -Werror $< -o $@

$(UNWIND_DIR)/rust_panics: tests/workloads/unwind/rust_panics.rs
	$(call msg,RUSTC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)MAKEFLAGS= $(RUSTC) -C opt-level=2 $< -o $@

# Offline: the standard library only, its cache under build/.
$(UNWIND_DIR)/go_stacks $(UNWIND_DIR)/go_calls $(UNWIND_DIR)/go_clock $(UNWIND_DIR)/go_leaf: $(UNWIND_DIR)/%: \
		tests/workloads/unwind/%.go \
		| $(DEPS_STAMP)
	$(call msg,GO,$@)
	$(Q)mkdir -p $(@D)
	$(Q)GOCACHE=$(abspath $(BUILD))/go-cache GOPATH=$(abspath $(BUILD))/go-path GOFLAGS= \
		GO111MODULE=off GOTOOLCHAIN=local $(GO) build -o $@ $<

$(UNWIND_DIR)/stripped/go_stacks: $(UNWIND_DIR)/go_stacks
	$(call msg,STRIP,$@)
	$(Q)mkdir -p $(@D)
	$(Q)strip -o $@ $<

TEST_BINS := $(BUILD)/flamebpf $(BUILD)/asan/flamebpf $(UNIT_BINS) $(INTEG_BINS) $(WORKLOADS) $(FIXTURES) \
	$(FUZZ_BINS)

# The binaries are named by a make that starts after deps.sh: this one
# read the Makefile before deps.sh installed go, so its TEST_BINS lacks the
# Go workloads on a fresh machine (their tests then skipped in CI).
test: check-layers | $(DEPS_STAMP)
	$(Q)tools/deps.sh --test
	$(Q)$(MAKE) --no-print-directory test-bins
	$(Q)tests/run.sh

test-bins: $(TEST_BINS)

test-unit: $(UNIT_BINS) $(FIXTURES)
	$(Q)tests/run.sh unit

test-integ: $(BUILD)/flamebpf $(INTEG_BINS) $(WORKLOADS)
	$(Q)tests/run.sh integ

# The outputs opened in real viewers (speedscope, the SVG) in headless Chromium.
test-viewers: $(BUILD)/flamebpf $(WORKLOADS) | $(DEPS_STAMP)
	$(Q)tools/deps.sh --test
	$(Q)tests/run.sh viewers

# Each fuzzer FUZZ_SECS seconds on its corpus (tests/fuzz/run.sh); fails on any finding.
fuzz: | $(DEPS_STAMP)
	$(Q)tools/deps.sh --test
	$(Q)$(MAKE) --no-print-directory $(FUZZ_BINS) $(FIXTURES)
	$(Q)FUZZ_SECS=$(FUZZ_SECS) tests/run.sh fuzz

demo: $(BUILD)/flamebpf $(BUILD)/workloads/demo
	$(Q)tools/demo.sh

bench: $(BUILD)/flamebpf $(WORKLOADS) $(BUILD)/bench/bench_symbolize $(BUILD)/bench/bench_floor
	$(Q)tools/deps.sh --bench
	$(Q)tools/bench.sh
	$(Q)tools/bench_trace.sh
	$(Q)tools/bench_offcpu.sh
	$(Q)tools/bench_events.sh
	$(Q)tools/bench_alloc.sh
	$(Q)tools/bench_usdt.sh
	$(Q)tools/bench_pytrace.sh
	$(Q)tools/bench_continuous.sh
	$(Q)tools/bench_python.sh
	$(Q)tools/bench_render.sh
	$(Q)tools/bench_unwind.sh
	$(Q)tools/deps.sh --test
	$(Q)tools/bench_html.sh
	$(Q)tools/bench_runtimes.sh

# tools/bench_unwind.sh's symbolizer and unwind-table timings: the library objects.
$(BUILD)/bench/bench_symbolize: tools/bench_symbolize.c $(LIB_OBJS) | $(DEPS_STAMP)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $< $(LIB_OBJS) $(PKG_LIBS) $(EXTRA_LIBS) -o $@

# tools/bench_trace.sh's floor: empty programs attached as flamebpf attaches its own.
$(BUILD)/bench/bench_floor.bpf.o: tools/bench_floor.bpf.c $(VMLINUX) | $(DEPS_STAMP)
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/bench/bench_floor: tools/bench_floor.c $(LIB_OBJS) $(BUILD)/bench/bench_floor.bpf.o | $(DEPS_STAMP)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $< $(LIB_OBJS) $(PKG_LIBS) $(EXTRA_LIBS) -o $@

# Not part of test: SOAK_SECS (default 600) of high event rates, RSS watched.
soak: $(BUILD)/flamebpf $(BUILD)/workloads/storm
	$(Q)tools/soak.sh

install: $(BUILD)/flamebpf
	install -D -m 0755 $(BUILD)/flamebpf $(DESTDIR)$(PREFIX)/bin/flamebpf
	install -D -m 0644 man/flamebpf.1 $(DESTDIR)$(PREFIX)/share/man/man1/flamebpf.1
	install -D -m 0644 include/flamebpf.h $(DESTDIR)$(PREFIX)/include/flamebpf.h

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/flamebpf $(DESTDIR)$(PREFIX)/share/man/man1/flamebpf.1 \
		$(DESTDIR)$(PREFIX)/include/flamebpf.h

# src/'s folders include only their own and those below (README, "Where things are").
check-layers:
	$(Q)tools/check_layers.sh

lint: check-layers
	$(Q)clang-format --dry-run --Werror $(SRCS) $(wildcard src/*/*.h bpf/*.h bpf/*.c)

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
