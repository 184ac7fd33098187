# make            build bin/harness
# make test       build, then run every test (ends with "N passed, N failed, N skipped")
# make run        the main job: both LBM variants on every device present
# make test-sanitize  the unit tests and the harness built with ASan and UBSan, run once (part of make test)
# make test-fuzz  the parsers' fuzz targets, FUZZ_RUNS executions each (part of make test)
# make fuzz       the fuzz targets for longer: FUZZ_SECONDS each (fuzz/README.md)
# make deps       install the Debian packages the build and tests need (root)
CC ?= cc
CUDA_HOME ?= /usr/local/cuda
OPT ?= -O2 -g
# -D_GNU_SOURCE: the GNU interfaces (pipe2, strcasestr, vasprintf, memmem, ...)
# for every file (and the sanitizer build's SAN_BASE), defined here once rather
# than at the top of each.
CFLAGS_BASE = -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE $(OPT)
# harness/ is one folder per concern (harness/README.md: the layers, and
# what may include what). Only harness/ is on the include path, so every
# include names its folder ("store/store.h") and a crossing shows in the line.
HARNESS_DIRS := base cli core backend store stats track report tune
CPPFLAGS += -Iharness
LDLIBS = -lsqlite3 -lz -ldl -lm -lpthread

# Backends compile against headers only and load their drivers with dlopen at
# run time, so a missing driver means "no devices", never a failed build.
HAVE_CL := $(shell printf '\043include <CL/cl.h>\n' | $(CC) $(CPPFLAGS) -E -x c - >/dev/null 2>&1 && echo 1)
HAVE_CUDA := $(shell test -f $(CUDA_HOME)/include/cuda.h && test -f $(CUDA_HOME)/include/nvrtc.h && echo 1)
ifeq ($(HAVE_CL),1)
CPPFLAGS += -DHAVE_OPENCL_HEADERS -DCL_TARGET_OPENCL_VERSION=120
endif
ifeq ($(HAVE_CUDA),1)
CPPFLAGS += -DHAVE_CUDA_HEADERS -isystem $(CUDA_HOME)/include
endif

GIT_COMMIT ?= $(shell git rev-parse --verify -q HEAD 2>/dev/null || echo unknown)
GIT_DIRTY ?= $(shell test -z "$$(git status --porcelain --untracked-files=no 2>/dev/null)" && git rev-parse HEAD >/dev/null 2>&1 && echo 0 || echo 1)
CFLAGS = $(CFLAGS_BASE) -DGIT_COMMIT='"$(GIT_COMMIT)"' -DGIT_DIRTY=$(GIT_DIRTY) -DBUILD_FLAGS='"$(CFLAGS_BASE)"'

# Apps are folders under kernels/ with an app.c; their host code is every .c
# there except the kernel sources the backends compile at run time with the
# knobs as -D flags: each backend's source_suffix that names a C file
# (_omp.c, _acc.c, _omptgt.c), read from its ops, so a new backend needs no
# line here.
APPS := $(patsubst kernels/%/app.c,%,$(wildcard kernels/*/app.c))
HARNESS_SRC := harness/main.c $(foreach d,$(HARNESS_DIRS),$(wildcard harness/$(d)/*.c))
KERNEL_SUFFIXES := $(sort $(shell sed -n 's/.*\.source_suffix = "\([^"]*\.c\)".*/\1/p' harness/backend/*.c))
APP_SRC := $(filter-out $(addprefix %,$(KERNEL_SUFFIXES)),$(wildcard $(foreach a,$(APPS),kernels/$(a)/*.c)))
GEN_SRC := build/gen/apps.c build/gen/schema_sql.c
OBJ := $(patsubst %.c,build/obj/%.o,$(HARNESS_SRC) $(APP_SRC)) build/obj/gen/apps.o build/obj/gen/schema_sql.o
MAIN_OBJ := build/obj/harness/main.o

.PHONY: all test test-sanitize test-fuzz fuzz sanitized san-build fuzz-build run report report-quick deps clean FORCE
all: bin/harness

bin/harness: $(OBJ)
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ $(OBJ) $(LDLIBS)

# The build follows its configuration: the compiler, the probed features
# (OpenCL and CUDA headers found or not) and the flags are written to a
# stamp rewritten only when its text differs, and every object depends on
# it. Before, installing the OpenCL headers after a first build relinked
# objects built without them, and the harness kept saying "built without
# OpenCL headers" until build/ was removed.
build/flags.stamp: FORCE
	@mkdir -p build
	@echo '$(CC) $(CPPFLAGS) $(CFLAGS_BASE)' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

build/obj/%.o: %.c $(wildcard harness/*/*.h) $(wildcard kernels/*/*.h) build/flags.stamp | build/gen/apps.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

build/obj/gen/%.o: build/gen/%.c build/flags.stamp
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# The app table, generated from the folders under kernels/. Regenerated on
# every make (an app folder removed must leave the table too), but rewritten
# only when its text changes, so nothing rebuilds needlessly.
build/gen/apps.c: FORCE
	@mkdir -p build/gen
	@{ echo '#include "core/app.h"'; \
	  for a in $(APPS); do echo "extern const struct app app_$$a;"; done; \
	  printf 'const struct app *const apps[] = {'; \
	  for a in $(APPS); do printf '&app_%s, ' $$a; done; echo 'NULL};'; } > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
FORCE:

# The build's identity (buildinfo.c: the commit and whether the tree was
# dirty) is stored with every run, so its object is rebuilt whenever they
# change: a stamp rewritten only when its text differs. Without it a commit
# that touched no .c left the old commit in every stored run.
build/gen/commit.stamp: FORCE
	@mkdir -p build/gen
	@echo '$(GIT_COMMIT) $(GIT_DIRTY)' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
build/obj/harness/base/buildinfo.o build/san/obj/harness/base/buildinfo.o: \
	build/gen/commit.stamp

# The LBM reference caches its results on disk; its key carries a hash of its
# own source (reference.c and lbm.h), so an edited reference never reuses a
# stale result. tests/unit/test_lbm_reference.c checks the hash is current.
LBM_REFERENCE_SOURCE = $(shell cat kernels/lbm/reference.c kernels/lbm/lbm.h | cksum | cut -d' ' -f1)
build/obj/kernels/lbm/reference.o build/san/obj/kernels/lbm/reference.o: \
	CPPFLAGS += -DLBM_REFERENCE_SOURCE='"$(LBM_REFERENCE_SOURCE)"'

# The sandpile reference caches its results on disk the same way.
SANDPILE_REFERENCE_SOURCE = $(shell cat kernels/sandpile/reference.c kernels/sandpile/sandpile_rule.h | cksum | cut -d' ' -f1)
build/obj/kernels/sandpile/reference.o build/san/obj/kernels/sandpile/reference.o: \
	CPPFLAGS += -DSANDPILE_REFERENCE_SOURCE='"$(SANDPILE_REFERENCE_SOURCE)"'

# Its serial run of 512x512 (69190 steps, once a cache) is 4x faster at -O3,
# which vectorises the step (-O2 does not): 36 s to 9 s of test_sandpile.
# Integer arithmetic: the same grid and count either way.
build/obj/kernels/sandpile/reference.o: CFLAGS += -O3

# The schema lives in one file, harness/store/schema.sql, embedded as a C string.
build/gen/schema_sql.c: harness/store/schema.sql
	@mkdir -p build/gen
	@{ echo 'const char schema_sql[] = {'; od -An -v -tx1 $< | sed 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g'; echo '0};'; } > $@

# Unit tests: each tests/unit/test_*.c is a program linked with everything but
# main. The other tests/unit/*.c are the tests' own helpers (nightly_gen.c, the
# synthetic nights), archived in build/tests/libtest.a: a program gets one only
# when it calls it, and bin/harness never does.
LIB_OBJ := $(filter-out $(MAIN_OBJ),$(OBJ))
UNIT_BIN := $(patsubst tests/unit/%.c,build/tests/%,$(wildcard tests/unit/test_*.c))
TEST_LIB_OBJ := $(patsubst %.c,build/obj/%.o,$(filter-out tests/unit/test_%.c,$(wildcard tests/unit/*.c)))
build/libharness.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $(LIB_OBJ)
$(TEST_LIB_OBJ): $(wildcard tests/unit/*.h)
build/tests/libtest.a: $(TEST_LIB_OBJ)
	@mkdir -p build/tests
	@rm -f $@
	ar rcs $@ $(TEST_LIB_OBJ)
build/tests/%: tests/unit/%.c build/tests/libtest.a build/libharness.a build/flags.stamp $(wildcard tests/unit/*.h)
	@mkdir -p build/tests
	$(CC) $(CPPFLAGS) -Ikernels/lbm -Itests/unit $(CFLAGS) -o $@ $< build/tests/libtest.a build/libharness.a $(LDLIBS)

# Tools the scripts run (scripts/*.c: kernel_code.sh's lbm_options), linked as the unit tests are.
build/tools/%: scripts/%.c build/libharness.a
	@mkdir -p build/tools
	$(CC) $(CPPFLAGS) -Ikernels/lbm $(CFLAGS) -o $@ $< build/libharness.a $(LDLIBS)

# ---- Sanitizers and fuzzing (fuzz/README.md) ----------------------------------
# The library again, with ASan and UBSan (build/san/), for the unit tests,
# the harness (tests/sanitize.sh) and the fuzz targets. Any sanitizer report
# is an error that stops the program (-fno-sanitize-recover=all). -O1 keeps
# reports readable and the build short; -Werror stays with the plain build
# (another compiler's new warning is no sanitizer finding).
# One sanitized library serves both: where $(FUZZ_CC) links libFuzzer
# (scripts/can_sanitize.sh fuzz) it compiles the library with the fuzzer's
# coverage as well (SAN_COV), the fuzz targets link it with libFuzzer, and
# the unit tests and the harness link it with the sanitizers alone (their
# runtime has the coverage's hooks). Two libraries (gcc's ASan build and
# clang's fuzzing build) cost some 80 s of CPU more in every `make test`.
# Elsewhere $(SAN_CC) builds it without coverage and there are no fuzz
# targets; where neither compiler links the sanitizers nothing is built and
# the tests say "skip".
SAN_CC ?= $(CC)
FUZZ_CC ?= clang
SAN_COV ?=
SAN_BASE = -std=c11 -Wall -Wextra -D_GNU_SOURCE -O1 -g -fno-omit-frame-pointer
SAN_FLAGS = -fsanitize=address,undefined -fno-sanitize-recover=all
SAN_CFLAGS = $(SAN_BASE) $(SAN_FLAGS) $(SAN_COV) -DGIT_COMMIT='"$(GIT_COMMIT)"' -DGIT_DIRTY=$(GIT_DIRTY) \
	-DBUILD_FLAGS='"$(SAN_BASE) $(SAN_FLAGS)"'
SAN_OBJ := $(patsubst build/obj/%,build/san/obj/%,$(LIB_OBJ))
SAN_UNIT_BIN := $(patsubst tests/unit/%.c,build/san/tests/%,$(wildcard tests/unit/test_*.c))
SAN_TEST_LIB_OBJ := $(patsubst build/obj/%,build/san/obj/%,$(TEST_LIB_OBJ))
FUZZ_BIN := $(patsubst fuzz/%.c,build/fuzz/%,$(wildcard fuzz/fuzz_*.c))
FUZZ_RUNS ?= 10000
FUZZ_SECONDS ?= 60

# The objects are rebuilt when the compiler or the coverage changes (a
# stamp rewritten only when its text differs): a library half gcc's, half
# clang's would link, or would not, by accident.
build/san/flags.stamp: FORCE
	@mkdir -p build/san
	@echo '$(SAN_CC) $(SAN_COV) $(CPPFLAGS)' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
build/san/obj/%.o: %.c $(wildcard harness/*/*.h) $(wildcard kernels/*/*.h) build/san/flags.stamp | build/gen/apps.c
	@mkdir -p $(dir $@)
	$(SAN_CC) $(CPPFLAGS) $(SAN_CFLAGS) -c -o $@ $<
build/san/obj/gen/%.o: build/gen/%.c build/san/flags.stamp
	@mkdir -p $(dir $@)
	$(SAN_CC) $(CPPFLAGS) $(SAN_CFLAGS) -c -o $@ $<
build/san/libharness.a: $(SAN_OBJ)
	@rm -f $@
	ar rcs $@ $(SAN_OBJ)
build/san/harness: build/san/obj/harness/main.o build/san/libharness.a
	$(SAN_CC) $(SAN_CFLAGS) -o $@ build/san/obj/harness/main.o build/san/libharness.a $(LDLIBS)
$(SAN_TEST_LIB_OBJ): $(wildcard tests/unit/*.h)
build/san/tests/libtest.a: $(SAN_TEST_LIB_OBJ)
	@mkdir -p build/san/tests
	@rm -f $@
	ar rcs $@ $(SAN_TEST_LIB_OBJ)
build/san/tests/%: tests/unit/%.c build/san/tests/libtest.a build/san/libharness.a $(wildcard tests/unit/*.h)
	@mkdir -p build/san/tests
	$(SAN_CC) $(CPPFLAGS) -Ikernels/lbm -Itests/unit $(SAN_CFLAGS) -o $@ $< build/san/tests/libtest.a \
		build/san/libharness.a $(LDLIBS)
# A fuzz target wants the library with the fuzzer's coverage whatever it was
# built for last, also when named alone (`make build/fuzz/fuzz_sweep`): its
# prerequisites see these values too.
$(FUZZ_BIN): SAN_CC = $(FUZZ_CC)
$(FUZZ_BIN): SAN_COV = -fsanitize=fuzzer-no-link
build/fuzz/fuzz_%: fuzz/fuzz_%.c fuzz/fuzz.h tests/unit/root_from_exe.h build/san/libharness.a
	@mkdir -p build/fuzz
	$(SAN_CC) $(CPPFLAGS) -Ikernels/lbm -Ikernels/stencil -Ikernels/matvec $(SAN_CFLAGS) -fsanitize=fuzzer -o $@ $< \
		build/san/libharness.a $(LDLIBS)

# Build what this machine can; the test scripts skip the rest. One recipe
# for both names, so `make san-build fuzz-build` builds the library once.
sanitized:
	@if bash scripts/can_sanitize.sh fuzz >/dev/null; then \
		$(MAKE) --no-print-directory SAN_CC=$(FUZZ_CC) SAN_COV=-fsanitize=fuzzer-no-link \
			build/san/harness $(SAN_UNIT_BIN) $(FUZZ_BIN); \
	elif bash scripts/can_sanitize.sh asan >/dev/null; then \
		$(MAKE) --no-print-directory build/san/harness $(SAN_UNIT_BIN); \
	fi
san-build fuzz-build: sanitized
test-sanitize: san-build
	@bash tests/sanitize.sh
test-fuzz: fuzz-build
	@FUZZ_RUNS=$(FUZZ_RUNS) bash tests/fuzz.sh
fuzz: fuzz-build
	@FUZZ_SECONDS=$(FUZZ_SECONDS) bash fuzz/run.sh

# The build runs on every core (the suite must stay under CI's 10 minutes).
NPROC := $(shell nproc 2>/dev/null || echo 2)
# deps.sh runs first, in its own make, so a missing header is installed (or
# named) before anything tries to compile against it. tests/run_all.sh runs
# test-sanitize's and test-fuzz's scripts too.
test:
	@bash scripts/deps.sh test
	@$(MAKE) --no-print-directory -j$(NPROC) bin/harness $(UNIT_BIN) sanitized
	@FUZZ_RUNS=$(FUZZ_RUNS) bash tests/run_all.sh

run:
	@bash scripts/deps.sh run
	@$(MAKE) --no-print-directory bin/harness
	@bash scripts/main_job.sh

# The report's tables and figures on the devices present (README: "The
# report's tables on your devices"); report-quick is the 2-minute version.
report report-quick:
	@bash scripts/deps.sh run
	@$(MAKE) --no-print-directory bin/harness
	@bin/harness report lbm $(if $(filter report-quick,$@),--quick)

deps:
	@bash scripts/deps.sh install

clean:
	rm -rf build bin
