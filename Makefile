# SPDX-License-Identifier: MIT
#
# Every workflow of the i915 stall log project.  Kernel sources and build
# output live outside the git tree, in $(CACHE).
#
#   make demo           boot the guest, stall a client, print what we saw
#   make test           every check and suite; ends in "N passed, N failed",
#                       after a line per reason for the checks skipped
#
#   make setup          install the Debian packages the project needs
#   make base           extract linux-source-6.12 into $(KBASE), tag "base"
#   make tree           $(KBASE) branch "series" = base + patches/ (git am)
#   make export         patches/ and the readable copies from the tree
#   make check-sync     the readable copies equal what patches/ produces
#   make check-patches  checkpatch --strict on every patch
#   make check-build    every prefix of the series builds, W=1 C=1, on and off,
#                       and i915.ko through modpost (CHECK_BUILD_MOD=all|last)
#   make kunit          the KUnit suites in QEMU (TCG, 4 vCPUs), KASAN kernel
#   make kunit-kcsan    the same suites on a KCSAN kernel
#   make kunit-up       the user suite on a uniprocessor kernel (not in make test)
#   make e2e-module     the check-build modular kernel in the guest: i915.ko
#                       loaded by hand, a stall recorded, i915 unloaded
#   make selftests      Intel's mock selftests on the KUnit kernel, with the
#                       log on every mock device and without it
#   make userspace      build the reader; make userspace-check tests it
#   make bench          benchmarks into docs/performance.md
#   make bench-reader   the reader on repeated and on distinct stacks, host only

CACHE    ?= $(or $(I915_STALL_CACHE),$(HOME)/.cache/i915-stall)
KBASE    ?= $(CACHE)/linux
BUILD    ?= $(CACHE)/build
OUT      ?= $(CURDIR)/out
RESULTS  := $(OUT)/results
JOBS     ?= $(shell nproc)

export CACHE KBASE BUILD OUT RESULTS JOBS

.PHONY: all demo test setup base tree export check-sync check-patches \
	check-build kunit kunit-kcsan kunit-up selftests userspace userspace-check e2e e2e-module bench bench-reader clean

all: userspace

setup:
	bash scripts/setup.sh

base:
	bash scripts/kernel-base.sh

tree: base
	bash scripts/tree.sh apply

export:
	bash scripts/tree.sh export

check-sync:
	@mkdir -p $(RESULTS)
	bash scripts/tree.sh check-sync

check-patches:
	@mkdir -p $(RESULTS)
	bash scripts/check-patches.sh

check-build:
	@mkdir -p $(RESULTS)
	bash scripts/check-build.sh

kunit:
	@mkdir -p $(RESULTS)
	bash scripts/kunit.sh

kunit-kcsan:
	@mkdir -p $(RESULTS)
	bash scripts/kunit.sh kcsan

kunit-up:
	@mkdir -p $(RESULTS)
	bash scripts/kunit.sh up

selftests:
	@mkdir -p $(RESULTS)
	bash scripts/selftests.sh

userspace:
	$(MAKE) -C userspace

userspace-check:
	@mkdir -p $(RESULTS)
	$(MAKE) -C userspace check RESULTS=$(RESULTS)/userspace-check.results

e2e:
	@mkdir -p $(RESULTS)
	bash scripts/e2e.sh

e2e-module:
	@mkdir -p $(RESULTS)
	bash scripts/e2e-module.sh

demo:
	bash scripts/demo.sh

bench:
	bash scripts/bench.sh

bench-reader:
	bash scripts/bench-reader.sh

# Every suite runs even when an earlier one fails; the last line sums them.
test:
	bash scripts/test.sh

clean:
	rm -rf $(OUT)
	$(MAKE) -C userspace clean
