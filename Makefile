# isotier - build, test, bench, lint.
#   make          build everything under $(BUILD)/
#   make run      the main job: deps, build, `isotier verify --all` (local backends, ./isotier.db)
#   make test     deps, build, Check unit suites under ASan+UBSan, integration tests on real sandboxes,
#                 a short run of every fuzz harness, every bench once (quick mode)
#   make bench    figures (binary size, wall times) printed by hyperfine and the tools' own timers
#   make lint     cppcheck over the tree; make format applies .clang-format (make test checks it)
#   make fuzz     every libFuzzer harness in tests/fuzz/ for FUZZ_SECONDS each (default 60)
#   make deb      the Debian packages (debian/, dpkg-buildpackage) into OUT (default $(BUILD))
#   make package-test  lintian, a Debian 12 root with the packages, systemd as PID 1, piuparts
#                 (root and a Debian mirror; minutes: not part of make test)
BUILD ?= build
CC ?= gcc
# What libisotier links (isotier.pc says the same): libcurl, cJSON, SQLite (the embedded history),
# libpq (a fleet's PostgreSQL history) and libcrypto (hashes, attestation signatures). The CLI adds
# libxml2 (page text for `sources check`) and libgit2 (`churn`, the catalogue's commit), its alone:
# their headers at build time, the libraries dlopen()ed on first use (verify/sources/dl_xml.c,
# verify/churn/dl_git.c), not linked, so that no other command pays for loading them and their
# dependencies (ICU, libstdc++, mbedTLS...) at every start. The unit suites and fuzz harnesses
# still link them (PKG_LIBS); packaging/deb.sh adds them to the package's Depends.
LIB_PKGS := libcurl libcjson sqlite3 libpq libcrypto zlib
PKGS := $(LIB_PKGS) libxml-2.0 libgit2
WARN := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-nonliteral
CSTD := -std=gnu11
DEFS := -D_GNU_SOURCE
# The checkout's path is for the unit suites and fuzz harnesses (their fixtures) only: what is
# installed finds its files from where it runs (reference/core/paths.c), never from the build tree.
TEST_DEFS := -DISOTIER_SOURCE_DIR='"$(CURDIR)"'
$(BUILD)/san/% $(BUILD)/tests/% $(BUILD)/fuzz/% $(BUILD)/bench/%: DEFS += $(TEST_DEFS)
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
LIB_PKG_LIBS = $(shell pkg-config --libs $(LIB_PKGS) 2>/dev/null)
# CFLAGS, CPPFLAGS and LDFLAGS are the builder's (debian/rules passes dpkg-buildflags' hardening:
# FORTIFY_SOURCE, stack protector, RELRO and BIND_NOW): added after the project's own, which they
# never replace (the warnings stay errors, the library's visibility hidden).
CFLAGS ?= -O2 -g
CPPFLAGS ?=
LDFLAGS ?=
ALL_CFLAGS = $(CSTD) $(WARN) $(DEFS) -Iinclude -Ibase -Ireference $(PKG_CFLAGS) -fPIC $(CPPFLAGS) $(CFLAGS)
SAN := -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer -fno-sanitize-recover=undefined,float-cast-overflow
# The sanitizer objects serve the unit suites and the fuzz harnesses alike: built by clang, they
# carry libFuzzer's coverage hooks too (fuzzer-no-link; in a unit suite ASan's runtime answers
# them), so the tree is compiled twice (release, sanitizer), not three times. Without clang (no
# fuzzing then) the sanitizer build is $(CC)'s.
FUZZ_CC ?= clang
SAN_CC := $(shell command -v $(FUZZ_CC) >/dev/null 2>&1 && echo $(FUZZ_CC) || echo $(CC))
SAN += $(if $(findstring clang,$(notdir $(SAN_CC))),-fsanitize=fuzzer-no-link -Wno-string-plus-int)
# Each object's header dependencies, written by the compiler beside it (X.d for X.o) and included
# at the end: a header edit rebuilds the objects that include it, not the tree. An object without
# its .d (built before this rule, or the .d deleted) is rebuilt once: the .d is a prerequisite
# whose empty rule makes a missing one count as new. Each .d is then dated as its object (clang
# writes it after the object: newer, it would rebuild the object every time).
DEPFLAGS = -MMD -MP

# The probe: libc only, static; musl keeps it small.
PROBE_CC := $(shell command -v musl-gcc 2>/dev/null || echo $(CC))
PROBE_CFLAGS := $(CSTD) $(WARN) -D_GNU_SOURCE -Os -ffunction-sections -fdata-sections
PROBE_LDFLAGS := -static -Wl,--gc-sections -s
PROBE_SRCS := $(sort $(wildcard probes/*.c))
PROBE_LIB_SRCS := $(filter-out probes/main.c,$(PROBE_SRCS))

# reference/ by concern (HACKING.md's layers): core/, evidence/, history/, backends/, attestation/,
# observation/, api/; examples/ and guest/ are programs of their own, not the library.
REF_SRCS := $(filter-out reference/examples/% reference/guest/%,$(wildcard reference/*.c reference/*/*.c reference/*/*/*.c))
LIB_SRCS := $(sort $(wildcard base/*.c catalogue/*.c) $(REF_SRCS))
# verify/ by concern: cmd/ (the commands and their options), run/ (a verification), report/,
# history/, churn/, sources/ (pages, baselines and the catalogue commit).
CLI_SRCS := $(sort $(wildcard verify/*/*.c))
CLI_LIB_SRCS := $(filter-out verify/cmd/main.c,$(CLI_SRCS))
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
TEST_SUPPORT_SRCS := $(sort $(wildcard tests/unit/support_*.c))

LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/obj/%.o)
SAN_OBJS := $(patsubst %.c,$(BUILD)/san/%.o,$(LIB_SRCS) $(CLI_LIB_SRCS) $(PROBE_LIB_SRCS) $(TEST_SUPPORT_SRCS))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
# Misbehaving stand-ins for the probe (verify fault tests): one static binary per mode.
FAULT_PROBES := $(addprefix $(BUILD)/tests/fault-probe-,hang garbage huge none evil dupkeys badutf8)

# What `make test` and `make run` build, they build with a job per core (after deps, which must
# come first): unless the command line gave -j, whose jobserver the sub-make then shares.
BUILD_JOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc 2>/dev/null || echo 2))

.PHONY: all deps run test unit check integration integration-fast bench lint format format-check clean fuzz
# Kept between builds: the unit suites link them (from $(SAN_LIB)).
.SECONDARY: $(SAN_OBJS)
all: $(BUILD)/isotier-probe $(BUILD)/libisotier.a $(BUILD)/libisotier-tool.a $(BUILD)/libisotier.so $(BUILD)/isotier $(BUILD)/isotier.pc $(FAULT_PROBES)

deps:
	@scripts/deps.sh

# The binaries tests and running verifications exec are linked beside and renamed into place:
# the linker writes its output in place, not yet executable until it is done, so an exec racing
# a rebuild (a `make` while tests run) met "Permission denied" or a truncated file.
$(BUILD)/isotier-probe: $(PROBE_SRCS) $(wildcard probes/*.h)
	@mkdir -p $(@D)
	$(PROBE_CC) $(PROBE_CFLAGS) -o $@.tmp $(PROBE_SRCS) $(PROBE_LDFLAGS) && mv -f $@.tmp $@

$(BUILD)/tests/fault-probe-%: tests/tools/fault-probe.c
	@mkdir -p $(@D)
	$(PROBE_CC) $(PROBE_CFLAGS) -DFAULT_MODE='"$*"' -o $@ $< $(PROBE_LDFLAGS)

$(BUILD)/obj/%.o: %.c $(BUILD)/obj/%.d
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c -o $@ $<
	@touch -c -r $@ $(@:.o=.d)
# The library exports what include/isotier.h marks ISOTIER_PUBLIC, nothing else.
$(LIB_OBJS): ALL_CFLAGS += -fvisibility=hidden

$(BUILD)/san/probes/%.o: probes/%.c $(BUILD)/san/probes/%.d
	@mkdir -p $(@D)
	$(SAN_CC) $(PROBE_CFLAGS) -O1 -g $(SAN) $(DEPFLAGS) -c -o $@ $<
	@touch -c -r $@ $(@:.o=.d)

$(BUILD)/san/%.o: %.c $(BUILD)/san/%.d
	@mkdir -p $(@D)
	$(SAN_CC) $(ALL_CFLAGS) -O1 $(SAN) -Iprobes $(DEPFLAGS) -c -o $@ $<
	@touch -c -r $@ $(@:.o=.d)

# libisotier.a as installed: one object, the library's objects linked together (-r) so that every
# call between them is bound inside it, then every hidden symbol made local (--localize-hidden):
# the archive defines the public isotier_* names only, and a program with its own judge() or
# probe_result_parse() (or isotier__judge()) links statically against it
# (tests/integration/api_static_link.sh).
$(BUILD)/libisotier.a: $(LIB_OBJS)
	@rm -f $@
	$(CC) -r -nostdlib -o $(BUILD)/obj/libisotier-public.o $^
	objcopy --localize-hidden $(BUILD)/obj/libisotier-public.o
	ar rcs $@ $(BUILD)/obj/libisotier-public.o

# The same objects with their internal names still global, for what this tree builds on the
# library's internals (reference/api/isotier_tool.h): the CLI, backend-run, the tests' fixture
# programs. Not installed; no ABI.
$(BUILD)/libisotier-tool.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

# Every library it needs named (--no-undefined), and its exports under one version node
# (reference/api/libisotier.map): the ABI is .so.0's ISOTIER_0.
$(BUILD)/libisotier.so: $(LIB_OBJS) reference/api/libisotier.map
	$(CC) -shared -Wl,-soname,libisotier.so.0 -Wl,--no-undefined -Wl,--version-script=reference/api/libisotier.map \
	  $(LDFLAGS) -o $@.0 $(LIB_OBJS) $(LIB_PKG_LIBS) -lpthread -lm
	ln -sf libisotier.so.0 $@

$(BUILD)/isotier: $(CLI_OBJS) $(BUILD)/libisotier-tool.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@.tmp $(CLI_OBJS) $(BUILD)/libisotier-tool.a $(LIB_PKG_LIBS) -lpthread -lm \
	  && mv -f $@.tmp $@

VERSION := $(shell sed -n 's/^\#define ISOTIER_VERSION[[:space:]]*"\(.*\)"/\1/p' include/isotier.h)
# For the build tree: the header from include/, the library from $(BUILD)/.
$(BUILD)/isotier.pc: isotier.pc.in
	@mkdir -p $(@D)
	sed -e 's#@PREFIX@#$(CURDIR)#; s#@INCLUDEDIR@#$(CURDIR)/include#; s#@LIBDIR@#$(CURDIR)/$(BUILD)#; s#@VERSION@#$(VERSION)#; s#@RPATH@#-Wl,-rpath,$${libdir}#' $< > $@

# make install [PREFIX=/usr/local] [LIBDIR=PREFIX/lib] [DESTDIR=]: a self-contained isotier under
# PREFIX (reference/core/paths.c finds every default from PREFIX/bin): the CLI and the probe in bin/; the
# guest init, the scheduled job (isotier-reverify) and the guest-kernel fetchers in libexec/isotier/;
# the aarch64 probe and guest init (when cross-built) in lib/isotier/ (a foreign architecture's
# binaries are no programs of this host's); the library (with its soname) and isotier.pc in LIBDIR
# (debian/rules: the multiarch directory), the header; man pages (1, 3 and 8: scripts/manpages.sh);
# the catalogue in share/isotier/catalogue/providers (provider files only); the JSON schemas in
# share/isotier/schemas; the runbook with the job's systemd units, cron file and settings file
# (their paths rewritten to PREFIX) in share/isotier/runbook. Nothing refers to the build tree.
PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
DESTDIR ?=
# A program built against a LIBDIR outside the loader's search path runs without LD_LIBRARY_PATH
# (isotier.pc's run path); the system's directories need none (and Debian forbids one there).
PC_RPATH = $(if $(filter /usr/lib /usr/lib/%-linux-gnu /usr/lib64 /lib,$(LIBDIR)),,-Wl$(,)-rpath$(,)$${libdir})
, := ,
# The scheduled job's systemd units (runbook/jobs/), installed with PREFIX in their paths.
JOB_UNITS := isotier-reverify.service isotier-reverify.timer
.PHONY: install
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(PREFIX)/include \
	  $(DESTDIR)$(PREFIX)/libexec/isotier $(DESTDIR)$(PREFIX)/share/isotier/catalogue/providers \
	  $(DESTDIR)$(PREFIX)/share/isotier/schemas $(DESTDIR)$(PREFIX)/share/isotier/runbook/jobs \
	  $(DESTDIR)$(PREFIX)/share/isotier/runbook/remote $(DESTDIR)$(PREFIX)/share/isotier/runbook/ci
	install -m 0755 $(BUILD)/isotier $(BUILD)/isotier-probe $(DESTDIR)$(PREFIX)/bin/
	install -m 0755 $(BUILD)/isotier-guest-init $(DESTDIR)$(PREFIX)/libexec/isotier/
	# aarch64 (when cross-built): where qemu-aarch64 looks for them in an installed isotier.
	if [ -x $(BUILD)/isotier-probe-aarch64 ]; then \
	  install -d $(DESTDIR)$(PREFIX)/lib/isotier && \
	  install -m 0755 $(BUILD)/isotier-probe-aarch64 $(BUILD)/isotier-guest-init-aarch64 \
	    $(DESTDIR)$(PREFIX)/lib/isotier/; fi
	install -m 0755 runbook/jobs/isotier-reverify.sh $(DESTDIR)$(PREFIX)/libexec/isotier/isotier-reverify
	install -m 0755 runbook/jobs/isotier-metrics.py $(DESTDIR)$(PREFIX)/libexec/isotier/isotier-metrics
	install -m 0755 scripts/guest-kernel.sh scripts/guest-kernel-arm64.sh $(DESTDIR)$(PREFIX)/libexec/isotier/
	install -m 0644 $(BUILD)/libisotier.so.0 $(DESTDIR)$(LIBDIR)/
	ln -sf libisotier.so.0 $(DESTDIR)$(LIBDIR)/libisotier.so
	install -m 0644 $(BUILD)/libisotier.a $(DESTDIR)$(LIBDIR)/
	install -m 0644 include/isotier.h $(DESTDIR)$(PREFIX)/include/
	# Provider files only: a schema among them would be read as a provider.
	install -m 0644 catalogue/providers/*.json $(DESTDIR)$(PREFIX)/share/isotier/catalogue/providers/
	install -m 0644 catalogue/FORMAT.md $(DESTDIR)$(PREFIX)/share/isotier/catalogue/
	# The pinned vendor roots of hardware attestation (ADR-0020), with their source.
	install -d $(DESTDIR)$(PREFIX)/share/isotier/catalogue/roots
	install -m 0644 catalogue/roots/*.pem catalogue/roots/SOURCE.md $(DESTDIR)$(PREFIX)/share/isotier/catalogue/roots/
	install -m 0644 catalogue/provider.schema.json runbook/report.schema.json $(DESTDIR)$(PREFIX)/share/isotier/schemas/
	install -m 0644 runbook/*.md $(DESTDIR)$(PREFIX)/share/isotier/runbook/
	install -m 0644 runbook/remote/*.md $(DESTDIR)$(PREFIX)/share/isotier/runbook/remote/
	install -m 0644 runbook/ci/*.yml $(DESTDIR)$(PREFIX)/share/isotier/runbook/ci/
	install -m 0644 runbook/jobs/reverify-workflow.yml $(DESTDIR)$(PREFIX)/share/isotier/runbook/jobs/
	# The units, the cron file and the settings name /usr (the package's prefix): rewritten to PREFIX.
	for f in $(JOB_UNITS) isotier.cron isotier.default; do \
	  sed -e 's#/usr/libexec/isotier#$(PREFIX)/libexec/isotier#g; s#/usr/share/isotier#$(PREFIX)/share/isotier#g' \
	    runbook/jobs/$$f > $(DESTDIR)$(PREFIX)/share/isotier/runbook/jobs/$$f; done
	sed -e 's#@PREFIX@#$(PREFIX)#; s#@INCLUDEDIR@#$(PREFIX)/include#; s#@LIBDIR@#$(LIBDIR)#; s#@VERSION@#$(VERSION)#; s#@RPATH@#$(PC_RPATH)#' \
	  isotier.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/isotier.pc
	# The pages quote --help, whose defaults are the installed ones, not this build tree's.
	ISOTIER_CATALOGUE=$(PREFIX)/share/isotier/catalogue/providers \
	  scripts/manpages.sh $(BUILD)/isotier $(VERSION) $(DESTDIR)$(PREFIX)/share/man include/isotier.h

# make python: the Python package (python/isotier: pure Python over libisotier.so.0, no build step)
# installed into $(DESTDIR)$(PYTHONDIR), the dist-packages directory Debian's python3 reads
# (/usr/lib/python3/dist-packages with PREFIX=/usr, what a python3-isotier package ships). It
# loads the system's libisotier.so.0 and runs the `isotier` CLI from PATH (python/isotier/_lib.py).
PYTHONDIR ?= $(PREFIX)/lib/python3/dist-packages
PY_FILES := $(sort $(wildcard python/isotier/*.py)) python/isotier/py.typed python/isotier/framework-levels.json
.PHONY: python
python:
	install -d $(DESTDIR)$(PYTHONDIR)/isotier
	install -m 0644 $(PY_FILES) $(DESTDIR)$(PYTHONDIR)/isotier/

# make deb: the Debian packages of this tree (debian/: debhelper), built with dpkg-buildpackage
# -us -uc -b into OUT (default $(BUILD)): isotier, libisotier0, libisotier-dev, python3-isotier
# (`make python`'s files) and, where the aarch64 cross compiler is, isotier-guest-aarch64. The packages' objects are built in
# $(BUILD)/deb-obj with dpkg-buildflags' hardening; this build's own objects are left alone.
OUT ?= $(BUILD)
.PHONY: deb package-test
deb:
	scripts/deb.sh "$(BUILD)" "$(OUT)" "$(VERSION)"

# make debs: the packages the tests install (deb_package.sh, deb_install.sh, make package-test)
# into $(BUILD)/debs, built once and again only when a file they are made of changed (the stamp
# is older than one), so the suite builds them once, outside the quiet test that installs them.
# As `make deb`, without the debug symbol packages (no test reads them) and a make job per core.
TEST_DEBS := $(BUILD)/debs
DEB_INPUTS := $(shell find base catalogue reference verify probes include python runbook scripts debian \
  -type f ! -name '*.pyc' 2>/dev/null) Makefile isotier.pc.in README.md
.PHONY: debs
debs: $(TEST_DEBS)/.built
$(TEST_DEBS)/.built: $(DEB_INPUTS)
	@rm -f $@
	DEB_BUILD_OPTIONS="$(strip $(filter-out parallel=%,$(DEB_BUILD_OPTIONS)) noautodbgsym parallel=$(shell nproc 2>/dev/null || echo 2))" \
	  scripts/deb.sh "$(BUILD)" "$(TEST_DEBS)" "$(VERSION)" >/dev/null
	@touch $@

# make package-test: the packages as Debian's tools and an operator meet them (lintian, a root
# with only the packages, piuparts, systemd as PID 1): tests/package_test.sh, see its header.
package-test:
	BUILD=$(BUILD) tests/package_test.sh

# The sanitizer objects as one thin archive (it keeps their paths: base/util.o is not probes/util.o):
# a unit suite links only the members it needs, and the link records which (ld --trace, in
# SUITE.link.d), so an edit relinks only the suites that hold the edited file. The archive is an
# order-only prerequisite: brought up to date first, never a reason to relink by itself. The
# .link.d is dated as the suite's source: written after the suite, it would relink it every time.
SAN_LIB := $(BUILD)/san/libisotier-san.a
$(SAN_LIB): $(SAN_OBJS)
	@rm -f $@
	ar rcsT $@ $^

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/tests/%.link.d | $(SAN_LIB)
	@mkdir -p $(@D)
	$(SAN_CC) $(ALL_CFLAGS) -O1 $(SAN) -Iprobes $(DEPFLAGS) -MF $@.d -MT $@ -o $@ $< $(SAN_LIB) \
	  $(PKG_LIBS) $(shell pkg-config --libs check) -lpthread -lm -Wl,--trace >$@.trace
	@{ printf '%s:' '$@'; sed -n 's#^\($(BUILD)/san/.*\.o\)$$# \1#p' $@.trace | tr -d '\n'; echo; \
	   sed -n 's#^\($(BUILD)/san/.*\.o\)$$#\1:#p' $@.trace; } >$@.link.d && rm -f $@.trace
	@touch -r $< $@.link.d

$(BUILD)/bench/%: bench/%.c $(BUILD)/libisotier.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/libisotier.a $(PKG_LIBS) -lpthread -lm

run: deps
	@$(MAKE) --no-print-directory $(BUILD_JOBS) all
	@scripts/main-job.sh

# make unit: every suite; make unit T=judge (or T=test_judge): that one suite, built and run.
UNIT_RUN := $(if $(T),$(BUILD)/tests/test_$(patsubst test_%,%,$(T)),$(UNIT_BINS))
unit: $(UNIT_RUN)
	@tests/run-unit.sh $(UNIT_RUN)

# make check: the unit suites, each only when it changed since it last passed (tests/run-unit.sh's
# ISOTIER_UNIT_CHANGED stamps; the sanitizer archive relinks only the suites that hold an edited
# file): under a minute once built, a few seconds after a small edit (HACKING.md).
# make integration-fast: the integration tests tagged `fast` (tests/run-integration.sh), about two
# minutes of CPU; `make check integration-fast` is the tier to run before a commit.
check: all $(UNIT_BINS)
	@ISOTIER_UNIT_CHANGED=1 tests/run-unit.sh $(UNIT_BINS)

integration-fast: all
	@BUILD=$(BUILD) ISOTIER_TESTS_SPEED=fast tests/run-integration.sh

integration: all
	@tests/run-integration.sh

# The tree is clang-format clean (.clang-format) first: CI fails on a file `make format` would change.
test: deps
	@$(MAKE) --no-print-directory format-check
	@s=$$(date +%s); $(MAKE) --no-print-directory $(BUILD_JOBS) all $(UNIT_BINS) fuzz-build && \
	  echo "time: build $$(($$(date +%s) - s)) s"
	@tests/run-all.sh $(BUILD)

# Every pair measured against its floor (bench/pair.c) adds a line to the verdicts printed last.
# One step after another (deps, then the build, then scripts/bench.sh running each bench in the
# foreground): under -j nothing of the bench runs beside the build, and make waits for one child.
bench:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory all
	@BUILD=$(BUILD) scripts/bench.sh

lint:
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability,performance \
	  --inline-suppr --suppress=missingIncludeSystem -D_GNU_SOURCE -D__GNUC__ \
	  -Iinclude -Ibase -Ireference probes base reference catalogue verify tests/unit

FORMAT_SRCS = $(wildcard probes/*.[ch] base/*.[ch] reference/*.[ch] reference/*/*.[ch] reference/*/*/*.[ch] catalogue/*.[ch] verify/*/*.[ch] include/*.h tests/unit/*.[ch] tests/tools/*.c tests/fuzz/*.[ch] bench/*.c)
format:
	clang-format -i $(FORMAT_SRCS)

# What CI runs: fails on any file `make format` would change.
format-check:
	clang-format --dry-run -Werror $(FORMAT_SRCS)

clean:
	rm -rf $(BUILD)

# Backend test driver (tests/integration/backend_*.sh, bench/backends.sh).
all: $(BUILD)/tests/backend-run
$(BUILD)/tests/backend-run: tests/tools/backend-run.c $(BUILD)/obj/verify/run/cancel.o $(BUILD)/libisotier-tool.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/obj/verify/run/cancel.o $(BUILD)/libisotier-tool.a $(LIB_PKG_LIBS) -lpthread -lm

# The challenge's error rates on this host (bench/challenge_rates.sh).
all: $(BUILD)/tests/challenge-trials
$(BUILD)/tests/challenge-trials: tests/tools/challenge-trials.c $(BUILD)/libisotier-tool.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/libisotier-tool.a $(LIB_PKG_LIBS) -lpthread -lm

# qemu-microvm guest init (static, musl) and where backend_qemu.c finds it. It compresses its
# capture with Debian's static zlib (zlib1g-dev): the library calls only memcpy, memset and the
# allocator, so it links with musl too; its two headers are copied apart because musl-gcc must
# not see glibc's /usr/include. Without libz.a the init sends its capture uncompressed.
GUEST_ZLIB_A := $(wildcard /usr/lib/$(shell $(CC) -print-multiarch 2>/dev/null)/libz.a)
ifneq ($(GUEST_ZLIB_A),)
GUEST_ZLIB_FLAGS := -DISOTIER_GUEST_ZLIB -I$(BUILD)/guest-zlib
GUEST_ZLIB_HEADERS := $(BUILD)/guest-zlib/zlib.h
endif
$(BUILD)/guest-zlib/zlib.h: /usr/include/zlib.h /usr/include/zconf.h
	@mkdir -p $(@D)
	cp /usr/include/zlib.h /usr/include/zconf.h $(@D)/
all: $(BUILD)/isotier-guest-init
$(BUILD)/isotier-guest-init: reference/guest/init.c $(GUEST_ZLIB_HEADERS)
	@mkdir -p $(@D)
	$(PROBE_CC) $(PROBE_CFLAGS) $(GUEST_ZLIB_FLAGS) -o $@ $< $(PROBE_LDFLAGS) $(GUEST_ZLIB_A)

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

# A seccomp user-notification supervisor that answers the probe's sysinfo and statfs calls
# (tests/integration/lies_local.sh): a lie from inside the sandbox.
all: $(BUILD)/tests/notif-supervisor
$(BUILD)/tests/notif-supervisor: tests/tools/notif-supervisor.c
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) -D_GNU_SOURCE $(CFLAGS) -o $@ $<

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
# The harnesses link the sanitizer objects (SAN_LIB: clang's, with coverage hooks; see SAN above),
# only the members each needs.
FUZZ_SECONDS ?= 60
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/fuzz/%)
.PHONY: fuzz-build

$(BUILD)/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz.h $(SAN_LIB)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(ALL_CFLAGS) -O1 $(SAN) -fsanitize=fuzzer -Iprobes -o $@ $< $(SAN_LIB) $(PKG_LIBS) -lpthread -lm

fuzz-build: $(FUZZ_BINS) $(BUILD)/isotier-probe

fuzz: deps fuzz-build
	@tests/fuzz/run.sh $(BUILD) $(FUZZ_SECONDS)

# ---- automatic dependencies (DEPFLAGS above) ---------------------------------
# Every object's .d and every unit suite's .link.d: an empty rule each, so a missing one counts as
# new (its target is rebuilt and writes it); the existing ones are included.
DEP_FILES := $(patsubst %.o,%.d,$(LIB_OBJS) $(CLI_OBJS) $(SAN_OBJS)) $(UNIT_BINS:%=%.link.d)
$(DEP_FILES):
-include $(wildcard $(DEP_FILES) $(UNIT_BINS:%=%.d))
