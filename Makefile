# isotier - build, test, bench, lint.
#   make          build everything under $(BUILD)/
#   make run      the main job: deps, build, `isotier verify --all` (local backends, ./isotier.db)
#   make test     deps, build, Check unit suites under ASan+UBSan, integration tests on real sandboxes,
#                 a short run of every fuzz harness, every bench once (quick mode)
#   make bench    figures (binary size, wall times) printed by hyperfine and the tools' own timers
#   make lint     cppcheck over the tree; make format applies .clang-format
#   make fuzz     every libFuzzer harness in tests/fuzz/ for FUZZ_SECONDS each (default 60)
BUILD ?= build
CC ?= gcc
# What libisotier links (isotier.pc says the same): libcurl, cJSON, SQLite (the embedded history),
# libpq (a fleet's PostgreSQL history) and libcrypto (hashes, attestation signatures). The CLI adds
# libxml2 (page text for `sources check`) and libgit2 (the catalogue's commit), its alone.
LIB_PKGS := libcurl libcjson sqlite3 libpq libcrypto
PKGS := $(LIB_PKGS) libxml-2.0 libgit2
WARN := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-nonliteral
CSTD := -std=gnu11
DEFS := -D_GNU_SOURCE
# The checkout's path is for the unit suites and fuzz harnesses (their fixtures) only: what is
# installed finds its files from where it runs (reference/paths.c), never from the build tree.
TEST_DEFS := -DISOTIER_SOURCE_DIR='"$(CURDIR)"'
$(BUILD)/san/% $(BUILD)/tests/% $(BUILD)/fuzz/% $(BUILD)/bench/%: DEFS += $(TEST_DEFS)
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
LIB_PKG_LIBS = $(shell pkg-config --libs $(LIB_PKGS) 2>/dev/null)
CFLAGS ?= -O2 -g
ALL_CFLAGS = $(CSTD) $(WARN) $(DEFS) -Iinclude -Ibase -Ireference $(PKG_CFLAGS) -fPIC $(CFLAGS)
SAN := -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer -fno-sanitize-recover=undefined,float-cast-overflow

# The probe: libc only, static; musl keeps it small.
PROBE_CC := $(shell command -v musl-gcc 2>/dev/null || echo $(CC))
PROBE_CFLAGS := $(CSTD) $(WARN) -D_GNU_SOURCE -Os -ffunction-sections -fdata-sections
PROBE_LDFLAGS := -static -Wl,--gc-sections -s
PROBE_SRCS := $(sort $(wildcard probes/*.c))
PROBE_LIB_SRCS := $(filter-out probes/main.c,$(PROBE_SRCS))

LIB_SRCS := $(sort $(wildcard base/*.c catalogue/*.c reference/*.c))
CLI_SRCS := $(sort $(wildcard verify/*.c))
CLI_LIB_SRCS := $(filter-out verify/main.c,$(CLI_SRCS))
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
TEST_SUPPORT_SRCS := $(sort $(wildcard tests/unit/support_*.c))

LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/obj/%.o)
SAN_OBJS := $(patsubst %.c,$(BUILD)/san/%.o,$(LIB_SRCS) $(CLI_LIB_SRCS) $(PROBE_LIB_SRCS) $(TEST_SUPPORT_SRCS))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
# Misbehaving stand-ins for the probe (verify fault tests): one static binary per mode.
FAULT_PROBES := $(addprefix $(BUILD)/tests/fault-probe-,hang garbage huge none evil dupkeys badutf8)

.PHONY: all deps run test unit integration bench lint format clean fuzz
# Kept between builds: every unit suite links them all.
.SECONDARY: $(SAN_OBJS)
all: $(BUILD)/isotier-probe $(BUILD)/libisotier.a $(BUILD)/libisotier.so $(BUILD)/isotier $(BUILD)/isotier.pc $(FAULT_PROBES)

deps:
	@scripts/deps.sh

$(BUILD)/isotier-probe: $(PROBE_SRCS) $(wildcard probes/*.h)
	@mkdir -p $(@D)
	$(PROBE_CC) $(PROBE_CFLAGS) -o $@ $(PROBE_SRCS) $(PROBE_LDFLAGS)

$(BUILD)/tests/fault-probe-%: tests/tools/fault-probe.c
	@mkdir -p $(@D)
	$(PROBE_CC) $(PROBE_CFLAGS) -DFAULT_MODE='"$*"' -o $@ $< $(PROBE_LDFLAGS)

$(BUILD)/obj/%.o: %.c $(wildcard include/*.h base/*.h reference/*.h catalogue/*.h verify/*.h)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<
# The library exports what include/isotier.h marks ISOTIER_PUBLIC, nothing else.
$(LIB_OBJS): ALL_CFLAGS += -fvisibility=hidden

$(BUILD)/san/probes/%.o: probes/%.c $(wildcard probes/*.h)
	@mkdir -p $(@D)
	$(CC) $(PROBE_CFLAGS) -O1 -g $(SAN) -c -o $@ $<

$(BUILD)/san/%.o: %.c $(wildcard include/*.h base/*.h reference/*.h catalogue/*.h verify/*.h probes/*.h tests/unit/*.h)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -O1 $(SAN) -Iprobes -c -o $@ $<

$(BUILD)/libisotier.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libisotier.so: $(LIB_OBJS)
	$(CC) -shared -Wl,-soname,libisotier.so.0 -o $@.0 $^ $(LIB_PKG_LIBS) -lpthread
	ln -sf libisotier.so.0 $@

$(BUILD)/isotier: $(CLI_OBJS) $(BUILD)/libisotier.a
	$(CC) -o $@ $(CLI_OBJS) $(BUILD)/libisotier.a $(PKG_LIBS) -lpthread -lm

VERSION := $(shell sed -n 's/^\#define ISOTIER_VERSION "\(.*\)"/\1/p' include/isotier.h)
# For the build tree: the header from include/, the library from $(BUILD)/.
$(BUILD)/isotier.pc: isotier.pc.in
	@mkdir -p $(@D)
	sed -e 's#@PREFIX@#$(CURDIR)#; s#@INCLUDEDIR@#$(CURDIR)/include#; s#@LIBDIR@#$(CURDIR)/$(BUILD)#; s#@VERSION@#$(VERSION)#' $< > $@

# make install [PREFIX=/usr/local] [DESTDIR=]: a self-contained isotier under PREFIX (reference/paths.c
# finds every default from PREFIX/bin): the CLI and the probe (and their aarch64 builds) in bin/; the
# guest init, the scheduled job (isotier-reverify) and the guest-kernel fetchers in libexec/isotier/;
# the library (with its soname), the header and isotier.pc; man pages (1 and 3); the catalogue in
# share/isotier/catalogue/providers (provider files only); the JSON schemas in share/isotier/schemas;
# the runbook with the job's systemd units and cron file (their paths rewritten to PREFIX) in
# share/isotier/runbook. Nothing refers to the build tree.
PREFIX ?= /usr/local
DESTDIR ?=
# The scheduled job's systemd units (runbook/jobs/), installed with PREFIX in their paths.
JOB_UNITS := isotier-reverify.service isotier-reverify.timer
.PHONY: install
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include \
	  $(DESTDIR)$(PREFIX)/libexec/isotier $(DESTDIR)$(PREFIX)/share/isotier/catalogue/providers \
	  $(DESTDIR)$(PREFIX)/share/isotier/schemas $(DESTDIR)$(PREFIX)/share/isotier/runbook/jobs \
	  $(DESTDIR)$(PREFIX)/share/isotier/runbook/remote $(DESTDIR)$(PREFIX)/share/isotier/runbook/ci
	install -m 0755 $(BUILD)/isotier $(BUILD)/isotier-probe $(DESTDIR)$(PREFIX)/bin/
	install -m 0755 $(BUILD)/isotier-guest-init $(DESTDIR)$(PREFIX)/libexec/isotier/
	# aarch64 (when cross-built): the probe beside the x86 one (qemu-aarch64 looks for
	# PROBE-aarch64), the guest init beside the x86 one.
	if [ -x $(BUILD)/isotier-probe-aarch64 ]; then \
	  install -m 0755 $(BUILD)/isotier-probe-aarch64 $(DESTDIR)$(PREFIX)/bin/ && \
	  install -m 0755 $(BUILD)/isotier-guest-init-aarch64 $(DESTDIR)$(PREFIX)/libexec/isotier/; fi
	install -m 0755 runbook/jobs/isotier-reverify.sh $(DESTDIR)$(PREFIX)/libexec/isotier/isotier-reverify
	install -m 0755 scripts/guest-kernel.sh scripts/guest-kernel-arm64.sh $(DESTDIR)$(PREFIX)/libexec/isotier/
	install -m 0755 $(BUILD)/libisotier.so.0 $(DESTDIR)$(PREFIX)/lib/
	ln -sf libisotier.so.0 $(DESTDIR)$(PREFIX)/lib/libisotier.so
	install -m 0644 $(BUILD)/libisotier.a $(DESTDIR)$(PREFIX)/lib/
	install -m 0644 include/isotier.h $(DESTDIR)$(PREFIX)/include/
	# Provider files only: a schema among them would be read as a provider.
	install -m 0644 catalogue/providers/*.json $(DESTDIR)$(PREFIX)/share/isotier/catalogue/providers/
	install -m 0644 catalogue/FORMAT.md $(DESTDIR)$(PREFIX)/share/isotier/catalogue/
	install -m 0644 catalogue/provider.schema.json runbook/report.schema.json $(DESTDIR)$(PREFIX)/share/isotier/schemas/
	install -m 0644 runbook/*.md $(DESTDIR)$(PREFIX)/share/isotier/runbook/
	install -m 0644 runbook/remote/*.md $(DESTDIR)$(PREFIX)/share/isotier/runbook/remote/
	install -m 0644 runbook/ci/*.yml $(DESTDIR)$(PREFIX)/share/isotier/runbook/ci/
	install -m 0644 runbook/jobs/reverify-workflow.yml $(DESTDIR)$(PREFIX)/share/isotier/runbook/jobs/
	# The units and the cron file name /usr (the package's prefix): rewritten to PREFIX.
	for f in $(JOB_UNITS) isotier.cron; do \
	  sed -e 's#/usr/libexec/isotier#$(PREFIX)/libexec/isotier#g; s#/usr/share/isotier#$(PREFIX)/share/isotier#g' \
	    runbook/jobs/$$f > $(DESTDIR)$(PREFIX)/share/isotier/runbook/jobs/$$f; done
	sed -e 's#@PREFIX@#$(PREFIX)#; s#@INCLUDEDIR@#$(PREFIX)/include#; s#@LIBDIR@#$(PREFIX)/lib#; s#@VERSION@#$(VERSION)#' \
	  isotier.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/isotier.pc
	# The pages quote --help, whose defaults are the installed ones, not this build tree's.
	ISOTIER_CATALOGUE=$(PREFIX)/share/isotier/catalogue/providers \
	  scripts/manpages.sh $(BUILD)/isotier $(VERSION) $(DESTDIR)$(PREFIX)/share/man include/isotier.h

# make deb: a Debian package of the same tree (PREFIX=/usr) built with dpkg-deb; see packaging/deb.sh.
.PHONY: deb
deb: all
	BUILD=$(BUILD) VERSION=$(VERSION) packaging/deb.sh

$(BUILD)/tests/%: tests/unit/%.c $(SAN_OBJS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -O1 $(SAN) -Iprobes -o $@ $< $(SAN_OBJS) $(PKG_LIBS) $(shell pkg-config --libs check) -lpthread -lm

$(BUILD)/bench/%: bench/%.c $(BUILD)/libisotier.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/libisotier.a $(PKG_LIBS) -lpthread -lm

run: deps all
	@scripts/main-job.sh

unit: $(UNIT_BINS)
	@tests/run-unit.sh $(UNIT_BINS)

integration: all
	@tests/run-integration.sh

test: deps
	@$(MAKE) --no-print-directory all $(UNIT_BINS) fuzz-build
	@tests/run-all.sh $(BUILD)

bench: deps all
	@for b in $(sort $(wildcard bench/*.sh)); do echo "== $$b"; BUILD=$(BUILD) $$b || exit 1; done

lint:
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability,performance \
	  --inline-suppr --suppress=missingIncludeSystem -D_GNU_SOURCE -D__GNUC__ \
	  -Iinclude -Ibase -Ireference probes base reference catalogue verify tests/unit

format:
	clang-format -i $(wildcard probes/*.[ch] base/*.[ch] reference/*.[ch] catalogue/*.[ch] verify/*.[ch] include/*.h tests/unit/*.[ch])

clean:
	rm -rf $(BUILD)

# Backend test driver (tests/integration/backend_*.sh, bench/backends.sh).
all: $(BUILD)/tests/backend-run
$(BUILD)/tests/backend-run: tests/tools/backend-run.c $(BUILD)/obj/verify/cancel.o $(BUILD)/libisotier.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/obj/verify/cancel.o $(BUILD)/libisotier.a $(LIB_PKG_LIBS) -lpthread -lm

# qemu-microvm guest init (static, musl) and where backend_qemu.c finds it.
all: $(BUILD)/isotier-guest-init
$(BUILD)/isotier-guest-init: reference/guest/init.c
	@mkdir -p $(@D)
	$(PROBE_CC) $(PROBE_CFLAGS) -o $@ $< $(PROBE_LDFLAGS)

# The probe and the guest init for aarch64 (qemu-aarch64 backend; arm64 sandboxes): static,
# cross-built with Debian's aarch64 toolchain, linked with musl for arm64 (musl-dev:arm64) when it
# is installed, else with glibc. Built when a cross compiler is there (scripts/deps.sh installs one).
AARCH64_CC := $(shell command -v aarch64-linux-musl-gcc 2>/dev/null || command -v aarch64-linux-gnu-gcc 2>/dev/null)
ifneq ($(AARCH64_CC),)
all: $(BUILD)/isotier-probe-aarch64 $(BUILD)/isotier-guest-init-aarch64 $(BUILD)/tests/fault-probe-hang-aarch64
endif
$(BUILD)/isotier-probe-aarch64: $(PROBE_SRCS) $(wildcard probes/*.h)
	@mkdir -p $(@D)
	$(AARCH64_CC) $(PROBE_CFLAGS) -o $@ $(PROBE_SRCS) $(PROBE_LDFLAGS)
$(BUILD)/tests/fault-probe-hang-aarch64: tests/tools/fault-probe.c
	@mkdir -p $(@D)
	$(AARCH64_CC) $(PROBE_CFLAGS) -DFAULT_MODE='"hang"' -o $@ $< $(PROBE_LDFLAGS)
$(BUILD)/isotier-guest-init-aarch64: reference/guest/init.c
	@mkdir -p $(@D)
	$(AARCH64_CC) $(PROBE_CFLAGS) -o $@ $< $(PROBE_LDFLAGS)

# A program that gives libisotier a log handler (tests/integration/api_log.sh).
all: $(BUILD)/tests/log-handler
$(BUILD)/tests/log-handler: tests/tools/log-handler.c $(BUILD)/libisotier.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/libisotier.a $(LIB_PKG_LIBS) -lpthread -lm

# An application of the public API with its own SIGTERM handler (tests/integration/cancel_exec.sh):
# only include/ on its include path.
all: $(BUILD)/tests/cancel-exec
$(BUILD)/tests/cancel-exec: tests/tools/cancel-exec.c include/isotier.h $(BUILD)/libisotier.a
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) -D_GNU_SOURCE -Iinclude $(CFLAGS) -o $@ $< $(BUILD)/libisotier.a $(LIB_PKG_LIBS) -lpthread -lm

# A command's output through the public API's on_output callback, and a version 1
# exec options struct still accepted (tests/integration/api_exec_output.sh): only include/.
all: $(BUILD)/tests/exec-output
$(BUILD)/tests/exec-output: tests/tools/exec-output.c include/isotier.h $(BUILD)/libisotier.a
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) -D_GNU_SOURCE -Iinclude $(CFLAGS) -o $@ $< $(BUILD)/libisotier.a $(LIB_PKG_LIBS) -lpthread -lm

# ---- fuzzing: libFuzzer harnesses (clang, ASan+UBSan) in tests/fuzz/ --------
#   make fuzz [FUZZ_SECONDS=60]   each harness for that long over its corpus
# The library, CLI and probe objects are rebuilt with clang and coverage
# instrumentation under $(BUILD)/fuzz/obj.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_FLAGS := -O1 -g -fno-omit-frame-pointer -Wno-string-plus-int -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/fuzz/%)
FUZZ_OBJS := $(patsubst %.c,$(BUILD)/fuzz/obj/%.o,$(LIB_SRCS) $(CLI_LIB_SRCS) $(PROBE_LIB_SRCS))
.SECONDARY: $(FUZZ_OBJS)
.PHONY: fuzz-build

$(BUILD)/fuzz/obj/probes/%.o: probes/%.c $(wildcard probes/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(PROBE_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(BUILD)/fuzz/obj/%.o: %.c $(wildcard include/*.h base/*.h reference/*.h catalogue/*.h verify/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(ALL_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(BUILD)/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz.h $(FUZZ_OBJS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(ALL_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer -Iprobes -o $@ $< $(FUZZ_OBJS) $(PKG_LIBS) -lpthread -lm

fuzz-build: $(FUZZ_BINS) $(BUILD)/isotier-probe

fuzz: deps fuzz-build
	@tests/fuzz/run.sh $(BUILD) $(FUZZ_SECONDS)
