# SPDX-License-Identifier: GPL-2.0
#
# Out-of-tree build of the AF_SMC modules (net/smc/smc.ko, smc_diag.ko) and
# their user-space tools and selftests.
#
#   make                 build modules + tools for KDIR (see below)
#   make install         install modules into /lib/modules/$KVER/updates
#   make deb [O=DIR]     Debian packages smc-dkms and smc-tools into DIR
#                        (default .cache/deb), see tools/packaging/mkdeb
#   make check           full test run: static checks, host tests, VM tests
#   make nl-gen          regenerate net/smc/*_gen.[ch] from the netlink
#                        specs with the kernel's ynl-gen-c.py
#   make series [O=DIR]  the tree as a patch series against Debian's
#                        linux-source-6.12 (default .cache/series)
#   make check-full      make check with the whole batch on deb12 too
#   make check-debug     the selftests and the interop pair on a debug
#                        kernel (KASAN, lockdep, kmemleak, fault injection)
#   make fuzz            FUZZ_MINUTES of fuzzing on the debug kernel:
#                        system calls, trinity, mutated CLC/CDC/LLC
#   make demo            boot a VM with our modules and run the demo
#   make vm-shell CMD=.. run a command in a VM with our modules loaded
#
# KDIR selection: KDIR=... wins; else the running kernel's build tree when
# it is a real one and KERNEL was not given; else the Debian kernel fetched
# into the cache for KERNEL=deb13 (default, 6.12) or KERNEL=deb12 (6.1).

VM      := $(CURDIR)/tools/testing/vm
CACHE   := $(abspath $(or $(SMC_CACHE),$(CURDIR)/.cache))
KERNEL  ?= deb13
MODSRC  := $(CURDIR)/net/smc
TOOLS   := tools/net/smc
SELFTESTS := tools/testing/selftests/net/smc
BENCHTOOLS := tools/testing/bench
# Built modules are staged per clone, even when SMC_CACHE is shared.
STAGE   := $(CURDIR)/.cache/modules

export SMC_CACHE := $(CACHE)
export KERNEL

ifeq ($(KDIR),)
  RUNNING_BUILD := $(realpath /lib/modules/$(shell uname -r)/build)
  # A running-kernel tree that points into our cache is our own symlink.
  ifneq ($(RUNNING_BUILD),)
    ifeq ($(filter $(CACHE)/%,$(RUNNING_BUILD)),)
      ifeq ($(filter command line environment,$(origin KERNEL)),)
        KDIR := $(RUNNING_BUILD)
      endif
    endif
  endif
endif
# Fetch lazily (recursive variable): 'make clean' must not hit the network.
ifeq ($(KDIR),)
  KDIR = $(eval KDIR := $(shell $(VM)/kernel-dir $(KERNEL)))$(KDIR)
endif
# Release the modules were built for, from their vermagic.
KVER = $(shell modinfo -F vermagic $(MODSRC)/smc.ko | cut -d' ' -f1)

.PHONY: all modules tools install clean static check check-full demo bench \
	vm-shell setup kernel host-tests host-build check-debug fuzz deb nl-gen \
	series

all: modules tools

# What make needs on the host: installed on first use when root, else
# one line naming the command (see tools/testing/vm/packages.txt).
host-build:
	@$(VM)/setup-host --quiet build

# Kbuild builds in the source dir: if the target kernel changed since the
# last build, clean first so objects of two kernels never mix.  The built
# modules are also staged per kernel release for the VM harness (.cache/modules/$KVER).
# SMC_GCOV=1 instruments them for line coverage (a kernel with
# CONFIG_GCOV_KERNEL: the debug kernel), and counts as another target.
modules: | host-build
	@kdir='$(KDIR)'; [ -n "$$kdir" ] || exit 1; \
	want="$$kdir$(if $(filter 1,$(SMC_GCOV)), gcov)"; \
	if [ "$$(cat $(MODSRC)/.smc-kdir 2>/dev/null)" != "$$want" ]; then \
		$(VM)/kbuild "$$kdir" M=$(MODSRC) clean >/dev/null; \
		echo "$$want" > $(MODSRC)/.smc-kdir; fi; \
	$(VM)/kbuild "$$kdir" M=$(MODSRC) -j$$(nproc) modules && \
	kver=$$(modinfo -F vermagic $$(ls $(MODSRC)/*.ko | head -n1) | cut -d' ' -f1) && \
	mkdir -p $(STAGE)/$$kver && rm -f $(STAGE)/$$kver/*.ko && \
	cp $(MODSRC)/*.ko $(STAGE)/$$kver/

tools: | host-build
	@for d in $(TOOLS) $(SELFTESTS) $(BENCHTOOLS); do $(MAKE) -C $$d || exit 1; done

install: modules
	install -d $(DESTDIR)/lib/modules/$(KVER)/updates
	install -m 0644 $(MODSRC)/smc.ko $(MODSRC)/smc_diag.ko \
		$(DESTDIR)/lib/modules/$(KVER)/updates/
	[ -n "$(DESTDIR)" ] || depmod -a $(KVER)
	@if [ -f $(TOOLS)/Makefile ]; then $(MAKE) -C $(TOOLS) install; fi

# The packages a user installs: module sources for dkms, and the tools.
deb:
	@$(VM)/setup-host --quiet build package
	tools/packaging/mkdeb $(if $(O),-o $(abspath $(O)))

clean:
	@if [ -f $(MODSRC)/Makefile ] || [ -f $(MODSRC)/Kbuild ]; then \
		kdir=$$(cut -d' ' -f1 $(MODSRC)/.smc-kdir 2>/dev/null); \
		if [ -d "$$kdir" ]; then $(VM)/kbuild $$kdir M=$(MODSRC) clean; fi; \
		rm -f $(MODSRC)/*.o $(MODSRC)/*.ko $(MODSRC)/*.mod $(MODSRC)/*.mod.c \
		      $(MODSRC)/.*.cmd $(MODSRC)/Module.symvers $(MODSRC)/modules.order \
		      $(MODSRC)/*.gcno $(MODSRC)/.smc-kdir; fi
	@for d in $(TOOLS) $(SELFTESTS) $(BENCHTOOLS); do \
		[ ! -f $$d/Makefile ] || $(MAKE) -C $$d clean; done

# Host packages + virtme-ng venv (idempotent).
setup:
	$(VM)/setup-host

kernel:
	$(VM)/fetch-kernel $(KERNEL)

static:
	$(VM)/static-check $(KERNEL)

# The netlink policies and operation tables in net/smc, made of
# Documentation/netlink/specs by the linux-source's ynl-gen-c.py (make
# check fails when they differ: tools/testing/vm/nl-gen --check)
nl-gen:
	$(VM)/nl-gen

series:
	tools/testing/series/mkseries $(if $(O),--out $(O))

check:
	$(VM)/check

# make check with the whole batch on the second kernel too (slower)
check-full:
	$(VM)/check --full

# The debug kernel's lane (slower; never part of check)
check-debug:
	$(VM)/check --debug

# FUZZ_MINUTES (30), FUZZ_SEED (random), FUZZ_FIRST: see tools/testing/vm/fuzz
fuzz:
	$(VM)/fuzz

demo:
	$(VM)/vm-run --kernel $(KERNEL) --demo

# Benchmarks (never part of check): bench-results/latest/table.md
bench:
	tools/testing/bench/run --kernel $(KERNEL) $(BENCH_ARGS)

vm-shell:
	$(if $(CMD),,$(error usage: make vm-shell CMD='command to run in the guest'))
	$(VM)/vm-run --kernel $(KERNEL) --exec '$(CMD)'
