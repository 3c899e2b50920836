# ssl-sim - one hand-written Makefile (ARCHITECTURE.md §5).
#
#   make            build everything into build/
#   make check      the developers' fast loop: one build, the layer check, the
#                   unit and service tests (docs/design.md)
#   make test       install missing packages, build, run every test (the
#                   Python module's with /usr/bin/python3 too)
#   make test-browser  the viewer page in Debian's chromium (tests/browser)
#   make run        build the simulator and libsslsim, start the simulator with
#                   the default config (installs only what running needs)
#   make bench      build and run the benchmarks, results in bench/results/
#   make asan       the test suite under AddressSanitizer + UBSan (build-asan/)
#   make fuzz       every libFuzzer harness for FUZZ_SECONDS each (build-fuzz/,
#                   tests/fuzz/README.md); `make test` runs fuzz-check
#   make format     reformat the C sources in place with .clang-format
#   make format-check  list the C sources clang-format would change (part of test)
#   make install    PREFIX=/usr/local DESTDIR=: ssl-sim, its man page, completion,
#                   configs, units, libsslsim, sslsim.h (and sslsim_task.h, which it
#                   includes), sslsim.pc and the Python module (docs/embedding.md);
#                   `make uninstall` removes the same
#   make deb        a Debian package with debhelper, in build/deb/ (checked by lintian)
#   make clean
#
# Sources are found by wildcard, so a new .c file in a module directory or a
# new tests/*/test_*.c needs no edit here.

BUILD    ?= build
PREFIX   ?= /usr/local
CC       ?= cc
SHARED   ?= ../shared
RUN_ARGS ?=
.DEFAULT_GOAL := all
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
# V=1 shows every command
Q := $(if $(V),,@)
.SECONDARY:

PKGS     := libczmq libzmq libprotobuf-c inih zlib libcjson
# civetweb (HTTP and WebSocket for the viewer) ships no .pc file in Debian
EXTRA_LIBS := -lcivetweb
OPT      ?= -O2 -g
# engine/ steps worlds in hot loops (libsslsim's batches above all): -O3
# there, some 4 % fewer instructions a world-step (bench/results/embed.txt).
# The same IEEE operations in the same order: -ffp-contract=off holds and
# nothing allows reassociation (no -ffast-math), and the golden hashes of
# tests/unit (test_phys_determinism, test_vis_determinism) check the bits.
# HOT_OPT= builds engine/ with OPT alone (the asan and fuzz trees do).
HOT_OPT  ?= -O3
# Link-time optimization (docs/design.md, "Link-time optimization"): every
# object carries GCC's intermediate code beside its machine code (a fat
# object), and what users run -- ssl-sim, libsslsim.so and the benchmarks
# -- links with -flto, so GCC inlines across files (1-4 % more truth
# world-steps per CPU second, 0.5-7 % more with vision: bench/results/
# embed.txt). The test programs link the machine code, and the installed
# archive keeps nothing else, so a link without LTO (a user's, another
# compiler's) works as before. The same IEEE operations in the same order:
# test_sslsim's golden hash (machine code) is python/tests' (libsslsim.so),
# and test_embed_sync holds a library world to the LTO-linked ssl-sim byte
# for byte. LTO= builds without it (asan, fuzz, and clang, whose flags
# for it differ).
LTO      ?= $(if $(findstring clang,$(CC)),,-flto=auto)
LTO_OBJ   = $(if $(LTO),$(LTO) -ffat-lto-objects)
# at the link GCC runs its -Wmaybe-uninitialized again over code inlined
# across files, where the compile-time pragmas (vis_calib.c) are gone
LTO_LINK  = $(if $(LTO),$(LTO) $(OPT) -Wno-maybe-uninitialized)
# GCC links fat objects with LTO unless told not to
LTO_OFF   = $(if $(LTO),-fno-lto)
SAN      ?=
# TEST_OPT: flags added after OPT for the test programs' own sources
# (tests/*/test_*.c), not for the code they test. The asan tree builds them
# at -O0: their time is in the libraries and the simulators they start,
# and with ASan and UBSan at -O1 building the ~140 of them took 72-75 s on
# 2 cores (50-54 s at -O0). The plain tree keeps OPT for them (-O1 there
# saved only 2-3 s, its test programs' time being the link), so GCC's flow
# warnings, which -O0 does not run, still check the tests. Added in the
# recipe itself: as a target-specific variable it would reach the library
# objects a test program makes on its way.
TEST_OPT ?=
WARN     := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
            -Wmissing-prototypes -Werror
CFLAGS_BASE := -std=c11 -D_GNU_SOURCE -ffp-contract=off $(OPT) $(SAN) -MMD -MP
PKG_CFLAGS  = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS    = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CRIT_LIBS   = $(shell pkg-config --libs criterion 2>/dev/null || echo -lcriterion)
GEN      := $(BUILD)/gen
# every include names its path from the top (`common/base/sim_rng.h`,
# `engine/physics/phys_world.h`) unless it is in the including file's own
# folder, so what a file reaches into shows in its includes (docs/design.md,
# "map of the code"); scripts/check-layers.sh holds the rules
INCLUDES := -I. -I$(GEN) -I$(GEN)/bus
CFLAGS   = $(CFLAGS_BASE) $(WARN) $(INCLUDES) $(PKG_CFLAGS)
LDLIBS   = $(PKG_LIBS) $(EXTRA_LIBS) -lm -lpthread

VERSION  := $(shell cat VERSION 2>/dev/null || echo 0.0.0)

# ---- protobuf: league messages, google Any, and the internal bus ---------
WIRE_PROTOS := $(wildcard proto/*.proto)
BUS_PROTOS  := $(wildcard proto/bus/*.proto)
ANY_PROTO   := /usr/include/google/protobuf/any.proto
GEN_C := $(patsubst proto/%.proto,$(GEN)/%.pb-c.c,$(WIRE_PROTOS) $(BUS_PROTOS)) \
         $(GEN)/google/protobuf/any.pb-c.c
GEN_H := $(GEN_C:.c=.h)

$(GEN)/.stamp: $(WIRE_PROTOS) $(BUS_PROTOS) | deps
	@mkdir -p $(GEN)
	@$(if $(Q),echo "  PROTOC  proto/ -> $(GEN)")
	$(Q)protoc-c --c_out=$(GEN) -Iproto -I/usr/include $(notdir $(WIRE_PROTOS)) \
	    $(patsubst proto/%,%,$(BUS_PROTOS)) google/protobuf/any.proto
	@touch $@

$(GEN_C) $(GEN_H): $(GEN)/.stamp

# ---- modules ------------------------------------------------------------
# common/ by layer (base < config < bus < logs), engine/ (pure, shared by the
# services, libsslsim and the tools), then the service actors
BASE_SRC    := $(wildcard common/base/*.c)
CONFIG_SRC  := $(wildcard common/config/*.c)
BUS_SRC     := $(wildcard common/bus/*.c)
LOGS_SRC    := $(wildcard common/logs/*.c)
COMMON_SRC  := $(BASE_SRC) $(CONFIG_SRC) $(BUS_SRC) $(LOGS_SRC)
ENGINE_SRC  := $(wildcard engine/*/*.c)
SERVICE_SRC := $(wildcard services/*/*.c)
LAUNCH_SRC  := $(wildcard launcher/*.c)
EMBED_SRC   := $(wildcard embed/*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
GEN_OBJ := $(patsubst $(GEN)/%.c,$(BUILD)/obj/gen/%.o,$(GEN_C))

LIB_PROTO   := $(BUILD)/lib/libsimproto.a
LIB_COMMON  := $(BUILD)/lib/libsimcommon.a
LIB_ENGINE  := $(BUILD)/lib/libsimengine.a
LIB_SERV    := $(BUILD)/lib/libsimservices.a
LIB_EMBED   := $(BUILD)/lib/libsimembed.a
ALL_LIBS    := $(LIB_EMBED) $(LIB_SERV) $(LIB_ENGINE) $(LIB_COMMON) $(LIB_PROTO)

# libsslsim (embed/, docs/embedding.md): the world without the bus, built
# from embed/, engine/ and the base and config layers of common/. The
# installed archive and shared object hold nothing that talks to the bus or
# writes log files, so they need only protobuf-c and inih; the shared object
# exports the sslsim_ names alone (embed/sslsim.map).
SSLSIM_SOVER  := 1
SSLSIM_SRC    := $(EMBED_SRC) $(ENGINE_SRC) $(BASE_SRC) $(CONFIG_SRC)
SSLSIM_PKGS   := libprotobuf-c inih
SSLSIM_A      := $(BUILD)/lib/libsslsim.a
SSLSIM_SO     := $(BUILD)/lib/libsslsim.so.$(SSLSIM_SOVER)
pic = $(patsubst %.c,$(BUILD)/pic/%.o,$(1))
GEN_PIC := $(patsubst $(GEN)/%.c,$(BUILD)/pic/gen/%.o,$(GEN_C))

BIN := $(BUILD)/bin/ssl-sim

TEST_SRC  := $(wildcard tests/unit/test_*.c tests/service/test_*.c tests/system/test_*.c)
TEST_BIN  := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRC))
TEST_HELP := $(wildcard tests/support/*.c)
# the browser test's helpers (tests/browser/README.md): plain programs
BROWSER_SRC := $(wildcard tests/browser/*.c)
BROWSER_BIN := $(patsubst tests/%.c,$(BUILD)/tests/%,$(BROWSER_SRC))
BENCH_SRC := $(wildcard bench/*.c)
BENCH_BIN := $(patsubst bench/%.c,$(BUILD)/bench/%,$(BENCH_SRC))
# hand-written C only: generated code lives under $(BUILD)/gen
FORMAT_SRC = $(shell find common engine services launcher embed tests bench -name '*.[ch]' 2>/dev/null | sort)
CLANG_FORMAT ?= clang-format

# the manual page and the bash completion, written by the program from its
# flag table (common/config/config_man.c)
MAN1     := $(BUILD)/share/man/man1/ssl-sim.1
BASHCOMP := $(BUILD)/share/bash-completion/ssl-sim
DOC_GEN  := $(MAN1) $(BASHCOMP)

.PHONY: all test-bins deps check layers-check test test-browser run bench asan install uninstall install-files deb clean wire-check \
        format format-check FORCE
all: $(BIN) $(TEST_BIN) $(BROWSER_BIN) $(BENCH_BIN) $(DOC_GEN) $(SSLSIM_A) $(SSLSIM_SO) $(BUILD)/lib/libsslsim.so

# what scripts/run-tests.sh runs (`make asan` builds only these): the
# program, its manual page (test_launcher reads it), the test binaries and
# the benchmarks (test_bench_args runs each one's --help)
test-bins: $(BIN) $(TEST_BIN) $(DOC_GEN) $(BENCH_BIN)

# scripts/deps.sh installs the missing packages of one set, chosen from the
# goals: `make run` and `make install` only what building and running need
# (installing compiles no test), `make test` (and
# the other goals that run the test or packaging tools) everything, any
# other goal (`make`, `make check`, ...) the build set, which adds
# Criterion for the test binaries `make` compiles and clang-format.
# NO_DEPS=1: the packages are there already (a Debian package build has
# its Build-Depends and must not install anything)
DEPS_TEST_GOALS := test test-browser fuzz fuzz-build fuzz-bins fuzz-check deb wire-check bench-compare
DEPS_RUN_GOALS  := run install install-files uninstall
DEPS_SET := $(if $(filter $(DEPS_TEST_GOALS),$(MAKECMDGOALS)),test,$(if $(filter-out $(DEPS_RUN_GOALS),$(MAKECMDGOALS)),build,$(if $(MAKECMDGOALS),run,build)))
deps:
	@$(if $(NO_DEPS),true,scripts/deps.sh $(DEPS_SET))

# ---- the version: VERSION, and the commit when built from a git checkout --
# Rewritten only when its text changes, so only main.c is recompiled after
# a commit (or the first edit that makes the tree dirty).
$(GEN)/version.h: FORCE
	@mkdir -p $(dir $@)
	$(Q)scripts/version.sh > $@.tmp && { cmp -s $@.tmp $@ || mv $@.tmp $@; }; rm -f $@.tmp
$(call obj,launcher/main.c): $(GEN)/version.h

$(BUILD)/obj/gen/%.o: $(GEN)/%.c $(GEN)/.stamp
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_BASE) $(LTO_OBJ) -w -I$(GEN) $(PKG_CFLAGS) -c $< -o $@

$(call obj,$(ENGINE_SRC)) $(call pic,$(ENGINE_SRC)): CFLAGS += $(HOT_OPT)

$(BUILD)/obj/%.o: %.c $(GEN)/.stamp
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) $(LTO_OBJ) -DSSL_SIM_VERSION='"$(VERSION)"' -DSSL_SIM_BIN='"$(abspath $(BIN))"' \
	    -DSSL_SIM_WWW='"$(abspath services/viewer/www)"' -c $< -o $@

define make_lib
$(1): $(2)
	@mkdir -p $$(dir $$@)
	@rm -f $$@
	@$(if $(Q),echo "  AR      $$@")
	$(Q)ar rcs $$@ $$^
endef
$(eval $(call make_lib,$(LIB_PROTO),$(GEN_OBJ)))
$(eval $(call make_lib,$(LIB_COMMON),$(call obj,$(COMMON_SRC))))
$(eval $(call make_lib,$(LIB_ENGINE),$(call obj,$(ENGINE_SRC))))
$(eval $(call make_lib,$(LIB_SERV),$(call obj,$(SERVICE_SRC))))
$(eval $(call make_lib,$(LIB_EMBED),$(call obj,$(EMBED_SRC))))
# The installed archive keeps the machine code alone: with GCC's
# intermediate code in it, a user's link would run LTO with whatever GCC
# they have (Debian's dh_strip drops the same sections from a package).
$(SSLSIM_A): $(call obj,$(SSLSIM_SRC)) $(GEN_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@
	@$(if $(Q),echo "  AR      $@")
	$(Q)ar rcs $@ $^
	$(if $(LTO),$(Q)objcopy -R '.gnu.lto_*' -R '.gnu.debuglto_*' $@)

$(BUILD)/pic/gen/%.o: $(GEN)/%.c $(GEN)/.stamp
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC PIC  $<")
	$(Q)$(CC) $(CFLAGS_BASE) $(LTO_OBJ) -fPIC -w -I$(GEN) $(PKG_CFLAGS) -c $< -o $@

$(BUILD)/pic/%.o: %.c $(GEN)/.stamp
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC PIC  $<")
	$(Q)$(CC) $(CFLAGS) $(LTO_OBJ) -fPIC -DSSL_SIM_VERSION='"$(VERSION)"' -DSSL_SIM_BIN='"$(abspath $(BIN))"' -c $< -o $@

$(SSLSIM_SO): $(call pic,$(SSLSIM_SRC)) $(GEN_PIC) embed/sslsim.map
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(SAN) $(LTO_LINK) -shared -Wl,-soname,libsslsim.so.$(SSLSIM_SOVER) -Wl,--no-undefined \
	    -Wl,--version-script=embed/sslsim.map -o $@ $(call pic,$(SSLSIM_SRC)) $(GEN_PIC) \
	    $(shell pkg-config --libs $(SSLSIM_PKGS) 2>/dev/null) -lm -lpthread

$(BUILD)/lib/libsslsim.so: $(SSLSIM_SO)
	$(Q)ln -sf libsslsim.so.$(SSLSIM_SOVER) $@

$(BIN): $(call obj,$(LAUNCH_SRC)) $(ALL_LIBS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(SAN) $(LTO_LINK) $(LDFLAGS) -o $@ $(call obj,$(LAUNCH_SRC)) $(ALL_LIBS) $(LDLIBS)

$(MAN1): $(BIN)
	@mkdir -p $(dir $@)
	$(Q)$(BIN) --man > $@.tmp && mv $@.tmp $@

$(BASHCOMP): $(BIN)
	@mkdir -p $(dir $@)
	$(Q)$(BIN) --bash-completion > $@.tmp && mv $@.tmp $@

$(BUILD)/tests/%: tests/%.c $(call obj,$(TEST_HELP)) $(ALL_LIBS) $(GEN)/.stamp
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  TEST    $@")
	$(Q)$(CC) $(CFLAGS) $(TEST_OPT) $(LTO_OFF) -Itests/support -DSSL_SIM_SRC='"$(abspath .)"' \
	    -MF $(BUILD)/tests/$*.d -o $@ $< $(call obj,$(TEST_HELP)) \
	    $(ALL_LIBS) $(LDLIBS) $(CRIT_LIBS)

$(BUILD)/tests/browser/%: tests/browser/%.c $(call obj,$(TEST_HELP)) $(ALL_LIBS) $(GEN)/.stamp
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  TEST    $@")
	$(Q)$(CC) $(CFLAGS) $(LTO_OFF) -Itests/support -MF $(BUILD)/tests/browser/$*.d -o $@ $< $(call obj,$(TEST_HELP)) \
	    $(ALL_LIBS) $(LDLIBS)

# benchmarks start simulators with the system tests' helpers
$(BUILD)/bench/%: bench/%.c $(call obj,$(TEST_HELP)) $(ALL_LIBS) $(GEN)/.stamp
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  BENCH   $@")
	$(Q)$(CC) $(CFLAGS) $(LTO_LINK) -Itests/support -MF $(BUILD)/bench/$*.d -o $@ $< $(call obj,$(TEST_HELP)) \
	    $(ALL_LIBS) $(LDLIBS)

# ---- user commands -------------------------------------------------------
wire-check: | deps
	@if [ -x $(SHARED)/tools/check-wire ]; then \
	    $(SHARED)/tools/check-wire proto; \
	else echo "wire-check: $(SHARED)/tools/check-wire not found, skipped"; fi

# .clang-format is tuned for Debian's clang-format 14; another major version
# may lay some lines out differently
format: | deps
	$(Q)$(CLANG_FORMAT) -i --style=file $(FORMAT_SRC)

format-check: | deps
	@bad=$$(for f in $(FORMAT_SRC); do \
	    $(CLANG_FORMAT) --style=file "$$f" | cmp -s "$$f" - || echo "$$f"; done); \
	if [ -n "$$bad" ]; then \
	    echo "format-check: these files differ from .clang-format ($$($(CLANG_FORMAT) --version)):"; \
	    echo "$$bad" | sed 's/^/    /'; echo "format-check: run 'make format'"; exit 1; fi

# the fast loop: no system, browser, install or fuzz runs
check: deps all layers-check
	@scripts/run-tests.sh $(BUILD) unit service

layers-check:
	@scripts/check-layers.sh

test: deps all wire-check format-check layers-check fuzz-build
	@scripts/run-tests.sh $(BUILD)
	@tests/install/run.sh $(BUILD)
	@scripts/run-python-tests.sh $(BUILD)
	@tests/browser/run.sh $(BUILD)
	@tests/fuzz/run.sh check $(FUZZ_BUILD) $(FUZZ_CHECK_SECONDS)

# npm installs playwright-core into tests/browser/node_modules when missing
test-browser: deps $(BIN) $(BROWSER_BIN)
	@tests/browser/run.sh $(BUILD)

# libsslsim too: the Python module (python/sslsim) loads it from build/lib
run: deps $(BIN) $(SSLSIM_SO) $(BUILD)/lib/libsslsim.so
	$(BIN) run $(RUN_ARGS)

bench: deps all
	@scripts/bench.sh $(BUILD)

# the previous commit against this tree, or COMPARE="REV_A [REV_B]" (bench/compare)
.PHONY: bench-compare
bench-compare: deps
	@bench/compare $(COMPARE)

# at most two instrumented simulators at once here, as in one binary's two
# Criterion jobs: two system binaries, one test each at a time (four at once
# load two cores enough to stretch a real-time run's timing;
# scripts/run-tests.sh, docs/design.md)
asan: deps
	$(MAKE) BUILD=build-asan OPT='-O1 -g -fno-omit-frame-pointer' HOT_OPT= TEST_OPT=-O0 LTO= \
	    SAN='-fsanitize=address,undefined -fno-sanitize-recover=undefined' test-bins
	ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(abspath tests/lsan.supp) \
	    SIM_SYSTEM_BINARIES=2 SIM_SYSTEM_JOBS=1 scripts/run-tests.sh build-asan

# ---- fuzzing (tests/fuzz/README.md) ---------------------------------------
# The harnesses and every library they link are built with clang and
# -fsanitize=fuzzer-no-link,address,undefined into their own tree; only the
# harness's own link adds libFuzzer's main (-fsanitize=fuzzer).
FUZZ_BUILD   ?= build-fuzz
FUZZ_SECONDS ?= 60
# each harness's fuzzing in `make test`, two harnesses at a time
FUZZ_CHECK_SECONDS ?= 12
FUZZ_CC      ?= clang
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_HELP    := tests/fuzz/fuzz_support.c
FUZZ_SRC     := $(filter-out $(FUZZ_HELP),$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN      = $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRC))

.PHONY: fuzz fuzz-build fuzz-bins fuzz-check
fuzz-build: deps
	$(Q)$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) OPT='-O1 -g -fno-omit-frame-pointer' HOT_OPT= LTO= \
	    SAN='-fsanitize=fuzzer-no-link $(FUZZ_SAN) -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION' fuzz-bins

fuzz-bins: $(FUZZ_BIN)

$(BUILD)/fuzz/%: tests/fuzz/%.c $(call obj,$(FUZZ_HELP)) $(ALL_LIBS) $(GEN)/.stamp
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FUZZ    $@")
	$(Q)$(CC) $(CFLAGS) -fsanitize=fuzzer -Itests/fuzz -MF $(BUILD)/fuzz/$*.d -o $@ $< \
	    $(call obj,$(FUZZ_HELP)) $(ALL_LIBS) $(LDLIBS)

fuzz: fuzz-build
	@tests/fuzz/run.sh fuzz $(FUZZ_BUILD) $(FUZZ_SECONDS)

fuzz-check: fuzz-build
	@tests/fuzz/run.sh check $(FUZZ_BUILD) $(FUZZ_CHECK_SECONDS)

# ---- install --------------------------------------------------------------
# Every installed file belongs to one set: inst_SET_dir (below DESTDIR),
# inst_SET_mode and inst_SET_files, each installed under its own name.
# A new kind of file is one more name in INSTALL_SETS and its three
# variables; `make uninstall` removes exactly the files of the same sets,
# then the directories of OWN_DIRS that are left empty. A directory tree is
# one set per directory, as the viewer's page (www) shows.
BINDIR      ?= $(PREFIX)/bin
MAN1DIR     ?= $(PREFIX)/share/man/man1
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
DATADIR     ?= $(PREFIX)/share/ssl-sim
UNITDIR     ?= $(PREFIX)/lib/systemd/system
# the units read /etc/default/ssl-sim and the docs name /etc/ssl-sim, so
# these do not follow PREFIX
SYSCONFDIR  ?= /etc
CONFDIR     ?= $(SYSCONFDIR)/ssl-sim
DEFAULTDIR  ?= $(SYSCONFDIR)/default

UNITS_SRC   := $(wildcard scripts/systemd/*.service scripts/systemd/*.target)
UNITS       := $(patsubst scripts/systemd/%,$(BUILD)/share/systemd/%,$(UNITS_SRC))

# Debian's python3 reads /usr/lib/python3/dist-packages and
# /usr/local/lib/python3.X/dist-packages
PYVER       := $(shell /usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || echo 3)
PYTHON_SITE ?= $(if $(filter /usr,$(PREFIX)),$(PREFIX)/lib/python3/dist-packages,$(PREFIX)/lib/python$(PYVER)/dist-packages)
LIBDIR      ?= $(PREFIX)/lib
INCLUDEDIR  ?= $(PREFIX)/include

INSTALL_SETS := bin man1 bashcomp conf realism default units lib include python www
inst_bin_dir       = $(BINDIR)
inst_bin_mode     := 755
inst_bin_files     = $(BIN)
inst_man1_dir      = $(MAN1DIR)
inst_man1_mode    := 644
inst_man1_files    = $(MAN1)
inst_bashcomp_dir  = $(BASHCOMPDIR)
inst_bashcomp_mode:= 644
inst_bashcomp_files= $(BASHCOMP)
inst_conf_dir      = $(CONFDIR)
inst_conf_mode    := 644
inst_conf_files   := configs/ssl-sim.ini $(wildcard configs/lab/*.ini)
inst_realism_dir   = $(CONFDIR)/realism
inst_realism_mode := 644
inst_realism_files:= $(wildcard configs/realism/*.ini)
inst_default_dir   = $(DEFAULTDIR)
inst_default_mode := 644
inst_default_files:= scripts/default/ssl-sim
inst_units_dir     = $(UNITDIR)
inst_units_mode   := 644
inst_units_files   = $(UNITS)
inst_lib_dir       = $(LIBDIR)
inst_lib_mode     := 644
inst_lib_files     = $(SSLSIM_A) $(SSLSIM_SO)
inst_include_dir   = $(INCLUDEDIR)
inst_include_mode := 644
inst_include_files:= embed/sslsim.h embed/sslsim_task.h
inst_python_dir    = $(PYTHON_SITE)/sslsim
inst_python_mode  := 644
inst_python_files := $(wildcard python/sslsim/*.py)
# the viewer's page: found beside bin/ as PREFIX/share/ssl-sim/www
inst_www_dir       = $(DATADIR)/www
inst_www_mode     := 644
inst_www_files    := $(wildcard services/viewer/www/*.*)
# written at install time because they name the install paths
INSTALL_MADE = $(LIBDIR)/libsslsim.so $(LIBDIR)/pkgconfig/sslsim.pc $(PYTHON_SITE)/sslsim/_installed.py
# deepest first; each is removed only when empty
OWN_DIRS = $(CONFDIR)/realism $(CONFDIR) $(DATADIR)/www $(DATADIR) $(PYTHON_SITE)/sslsim

INSTALL_FILES = $(foreach s,$(INSTALL_SETS),$(inst_$(s)_files))

# the units start $(BINDIR)/ssl-sim; remade when BINDIR changes
$(BUILD)/share/systemd/.bindir: FORCE
	@mkdir -p $(dir $@)
	@echo '$(BINDIR)' | cmp -s - $@ || echo '$(BINDIR)' > $@
$(BUILD)/share/systemd/%: scripts/systemd/% $(BUILD)/share/systemd/.bindir
	$(Q)sed 's|/usr/local/bin/ssl-sim|$(BINDIR)/ssl-sim|' $< > $@

install-files: $(INSTALL_FILES)

install: install-files
	$(Q)set -e; $(foreach s,$(INSTALL_SETS),$(if $(inst_$(s)_files),\
	    install -d $(DESTDIR)$(inst_$(s)_dir); \
	    install -m $(inst_$(s)_mode) $(inst_$(s)_files) $(DESTDIR)$(inst_$(s)_dir)/;))
	$(Q)chmod 755 $(DESTDIR)$(LIBDIR)/$(notdir $(SSLSIM_SO))
	$(Q)ln -sf $(notdir $(SSLSIM_SO)) $(DESTDIR)$(LIBDIR)/libsslsim.so
	$(Q)install -d $(DESTDIR)$(LIBDIR)/pkgconfig
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))|; s|@VERSION@|$(VERSION)|; s|@REQUIRES@|$(SSLSIM_PKGS)|' \
	    embed/sslsim.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/sslsim.pc
	$(Q)printf 'LIBRARY = "%s"\n' '$(LIBDIR)/$(notdir $(SSLSIM_SO))' > $(DESTDIR)$(PYTHON_SITE)/sslsim/_installed.py
	$(Q)[ -n "$(DESTDIR)" ] || { $(LDCONFIG_NOW); }

# Installed into the system itself (no DESTDIR), the dynamic linker finds
# the new libsslsim.so.1 in PREFIX/lib only once ldconfig has cached it:
# without it a program linked with `pkg-config --libs sslsim` does not
# start. Say so when the library is still not in the cache (not root, or a
# LIBDIR that /etc/ld.so.conf does not list).
LDCONFIG_NOW = PATH="$$PATH:/sbin:/usr/sbin"; ldconfig 2>/dev/null; \
    ldconfig -p 2>/dev/null | grep -qF ' => $(LIBDIR)/$(notdir $(SSLSIM_SO))' \
    || echo "make install: $(LIBDIR)/$(notdir $(SSLSIM_SO)) is not in the dynamic linker's cache:" \
            "run ldconfig as root (with $(LIBDIR) in /etc/ld.so.conf.d/) or set LD_LIBRARY_PATH=$(LIBDIR)" \
            "to run a program linked with -lsslsim"

uninstall:
	$(Q)rm -f $(foreach s,$(INSTALL_SETS),\
	    $(addprefix $(DESTDIR)$(inst_$(s)_dir)/,$(notdir $(inst_$(s)_files)))) \
	    $(addprefix $(DESTDIR),$(INSTALL_MADE))
	$(Q)for d in $(OWN_DIRS); do [ ! -d "$(DESTDIR)$$d" ] || rmdir "$(DESTDIR)$$d" 2>/dev/null || true; done
	$(Q)[ -n "$(DESTDIR)" ] || { PATH="$$PATH:/sbin:/usr/sbin"; ldconfig 2>/dev/null || true; }

# ---- the Debian package (debian/, docs/operations.md) ---------------------
# Built from a copy of the tree (build/deb/src), so dpkg-buildpackage leaves
# the checkout and its build/ alone and its output lands in build/deb/.
deb:
	@scripts/deb.sh $(BUILD)/deb

clean:
	rm -rf build build-asan build-fuzz build-deb

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
