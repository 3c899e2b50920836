# ssl-sim - one hand-written Makefile (ARCHITECTURE.md §5).
#
#   make            build everything into build/
#   make test       install missing packages, build, run every test
#   make test-browser  the viewer page in Debian's chromium (tests/browser)
#   make run        build and start the simulator with the default config
#   make bench      build and run the benchmarks, results in bench/results/
#   make asan       the test suite under AddressSanitizer + UBSan (build-asan/)
#   make fuzz       every libFuzzer harness for FUZZ_SECONDS each (build-fuzz/,
#                   tests/fuzz/README.md); `make test` runs fuzz-check
#   make format     reformat the C sources in place with .clang-format
#   make format-check  list the C sources clang-format would change (part of test)
#   make install    PREFIX=/usr/local
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

PKGS     := libczmq libzmq libprotobuf-c inih libcjson
# civetweb (HTTP and WebSocket for the viewer) ships no .pc file in Debian
EXTRA_LIBS := -lcivetweb
OPT      ?= -O2 -g
SAN      ?=
WARN     := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
            -Wmissing-prototypes -Werror
CFLAGS_BASE := -std=c11 -D_GNU_SOURCE -ffp-contract=off $(OPT) $(SAN) -MMD -MP
PKG_CFLAGS  = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS    = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CRIT_LIBS   = $(shell pkg-config --libs criterion 2>/dev/null || echo -lcriterion)
GEN      := $(BUILD)/gen
INCLUDES := -Icommon -Iservices -Ilauncher -I$(GEN) -I$(GEN)/bus
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
COMMON_SRC  := $(wildcard common/*.c)
PHYSCORE_SRC:= $(wildcard services/physics/core/*.c)
VISMODEL_SRC:= $(wildcard services/vision/model/*.c)
SERVICE_SRC := $(wildcard services/physics/*.c services/vision/*.c \
                          services/gateway/*.c services/legacy-grsim/*.c \
                          services/viewer/*.c)
LAUNCH_SRC  := $(wildcard launcher/*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
GEN_OBJ := $(patsubst $(GEN)/%.c,$(BUILD)/obj/gen/%.o,$(GEN_C))

LIB_PROTO   := $(BUILD)/lib/libsimproto.a
LIB_COMMON  := $(BUILD)/lib/libsimcommon.a
LIB_PHYS    := $(BUILD)/lib/libphyscore.a
LIB_VIS     := $(BUILD)/lib/libvismodel.a
LIB_SERV    := $(BUILD)/lib/libsimservices.a
ALL_LIBS    := $(LIB_SERV) $(LIB_PHYS) $(LIB_VIS) $(LIB_COMMON) $(LIB_PROTO)

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
FORMAT_SRC = $(shell find common services launcher tests bench -name '*.[ch]' 2>/dev/null | sort)
CLANG_FORMAT ?= clang-format

.PHONY: all deps test test-browser run bench asan install clean wire-check format format-check
all: $(BIN) $(TEST_BIN) $(BROWSER_BIN) $(BENCH_BIN)

deps:
	@scripts/deps.sh

$(BUILD)/obj/gen/%.o: $(GEN)/%.c $(GEN)/.stamp
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_BASE) -w -I$(GEN) $(PKG_CFLAGS) -c $< -o $@

$(BUILD)/obj/%.o: %.c $(GEN)/.stamp
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -DSSL_SIM_VERSION='"$(VERSION)"' -DSSL_SIM_BIN='"$(abspath $(BIN))"' \
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
$(eval $(call make_lib,$(LIB_PHYS),$(call obj,$(PHYSCORE_SRC))))
$(eval $(call make_lib,$(LIB_VIS),$(call obj,$(VISMODEL_SRC))))
$(eval $(call make_lib,$(LIB_SERV),$(call obj,$(SERVICE_SRC))))

$(BIN): $(call obj,$(LAUNCH_SRC)) $(ALL_LIBS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(SAN) -o $@ $(call obj,$(LAUNCH_SRC)) $(ALL_LIBS) $(LDLIBS)

$(BUILD)/tests/%: tests/%.c $(call obj,$(TEST_HELP)) $(ALL_LIBS) $(GEN)/.stamp
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  TEST    $@")
	$(Q)$(CC) $(CFLAGS) -Itests/support \
	    -MF $(BUILD)/tests/$*.d -o $@ $< $(call obj,$(TEST_HELP)) \
	    $(ALL_LIBS) $(LDLIBS) $(CRIT_LIBS)

$(BUILD)/tests/browser/%: tests/browser/%.c $(call obj,$(TEST_HELP)) $(ALL_LIBS) $(GEN)/.stamp
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  TEST    $@")
	$(Q)$(CC) $(CFLAGS) -Itests/support -MF $(BUILD)/tests/browser/$*.d -o $@ $< $(call obj,$(TEST_HELP)) \
	    $(ALL_LIBS) $(LDLIBS)

# benchmarks start simulators with the system tests' helpers
$(BUILD)/bench/%: bench/%.c $(call obj,$(TEST_HELP)) $(ALL_LIBS) $(GEN)/.stamp
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  BENCH   $@")
	$(Q)$(CC) $(CFLAGS) -Itests/support -MF $(BUILD)/bench/$*.d -o $@ $< $(call obj,$(TEST_HELP)) \
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

test: deps all wire-check format-check fuzz-build
	@scripts/run-tests.sh $(BUILD)
	@tests/browser/run.sh $(BUILD)
	@tests/fuzz/run.sh check $(FUZZ_BUILD) $(FUZZ_CHECK_SECONDS)

# npm installs playwright-core into tests/browser/node_modules when missing
test-browser: deps $(BIN) $(BROWSER_BIN)
	@tests/browser/run.sh $(BUILD)

run: deps $(BIN)
	$(BIN) run $(RUN_ARGS)

bench: deps all
	@scripts/bench.sh $(BUILD)

# the previous commit against this tree, or COMPARE="REV_A [REV_B]" (bench/compare)
.PHONY: bench-compare
bench-compare: deps
	@bench/compare $(COMPARE)

asan: deps
	$(MAKE) BUILD=build-asan OPT='-O1 -g -fno-omit-frame-pointer' \
	    SAN='-fsanitize=address,undefined -fno-sanitize-recover=undefined' all
	ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(abspath tests/lsan.supp) \
	    scripts/run-tests.sh build-asan

# ---- fuzzing (tests/fuzz/README.md) ---------------------------------------
# The harnesses and every library they link are built with clang and
# -fsanitize=fuzzer-no-link,address,undefined into their own tree; only the
# harness's own link adds libFuzzer's main (-fsanitize=fuzzer).
FUZZ_BUILD   ?= build-fuzz
FUZZ_SECONDS ?= 60
# each harness's fuzzing in `make test`, two harnesses at a time
FUZZ_CHECK_SECONDS ?= 15
FUZZ_CC      ?= clang
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_HELP    := tests/fuzz/fuzz_support.c
FUZZ_SRC     := $(filter-out $(FUZZ_HELP),$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN      = $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRC))

.PHONY: fuzz fuzz-build fuzz-bins fuzz-check
fuzz-build: deps
	$(Q)$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) OPT='-O1 -g -fno-omit-frame-pointer' \
	    SAN='-fsanitize=fuzzer-no-link $(FUZZ_SAN)' fuzz-bins

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

install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/ssl-sim/configs
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/ssl-sim
	cp -r configs/. $(DESTDIR)$(PREFIX)/share/ssl-sim/configs/
	install -d $(DESTDIR)$(PREFIX)/share/ssl-sim/www
	cp -r services/viewer/www/. $(DESTDIR)$(PREFIX)/share/ssl-sim/www/
	if [ -d scripts/systemd ]; then \
	    install -d $(DESTDIR)$(PREFIX)/lib/systemd/system; \
	    for u in scripts/systemd/*; do \
	        sed 's|/usr/local/bin/ssl-sim|$(PREFIX)/bin/ssl-sim|' $$u > $(DESTDIR)$(PREFIX)/lib/systemd/system/$$(basename $$u); \
	        chmod 644 $(DESTDIR)$(PREFIX)/lib/systemd/system/$$(basename $$u); done; fi

clean:
	rm -rf build build-asan build-fuzz

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
