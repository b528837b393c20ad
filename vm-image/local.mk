# vm-image/: the VM tier. `make check-vm` builds/reuses the guest kernels and rootfs (cached
# outside the tree), boots a Debian guest in QEMU per kernel and reports each guest test here.
# Tests on the baseline (unpatched) kernel prove the harness; the patched kernel runs the
# kernel series' tests and the daemon-on-a-real-kernel tests.
VM_BASELINE_TESTS = \
	tests/vm/power-files.vmtest \
	tests/vm/stale-wakeup-count.vmtest \
	tests/vm/pm-test.vmtest \
	tests/vm/s3-wakeup.vmtest \
	tests/vm/s2idle-rtc.vmtest
# Not a guest test: vm-image/check-vm boots a guest that panics (tests/vm/panic.guest) and checks
# that the harness reports it as a failure with the console kept.
VM_HARNESS_TESTS = tests/vm/harness-panic.vmtest
# The daemon's guest tests run against the installed Debian packages: the first installs them,
# the last takes them through upgrade, remove and purge.
VM_PACKAGE_FIRST = tests/guest/package-install.test
VM_PACKAGE_LAST = tests/guest/package-lifecycle.test
VM_PATCHED_TESTS = $(KERNEL_TESTS) $(VM_PACKAGE_FIRST) $(GUEST_TESTS) $(VM_PACKAGE_LAST)
VM_TESTS = $(VM_BASELINE_TESTS) $(VM_HARNESS_TESTS) $(VM_PATCHED_TESTS)

EXTRA_DIST += vm-image/build-kernel vm-image/build-rootfs vm-image/run-guest vm-image/check-vm vm-image/quick-kernel \
	vm-image/replay-result vm-image/config-fragment vm-image/config-fragment-debug \
	vm-image/guest/run-tests vm-image/guest/host-request vm-image/guest/suspendd-tests.service \
	vm-image/README.md tests/vm/lib.sh $(VM_BASELINE_TESTS) tests/vm/panic.guest \
	$(VM_HARNESS_TESTS) $(VM_PACKAGE_FIRST) $(VM_PACKAGE_LAST) tests/debs

# The patched kernels: the series of each version (kernel-patches/VERSION/) runs the same kernel
# and daemon tests; 6.1 also runs the baseline tests and the harness's self-test. The results of
# a version other than 6.1 are reported as vm-VERSION/TEST (its own logs and vm-VERSION-suite.log),
# so a failure names its kernel.
VM_KERNELS = 6.1 6.12
VM_RESULTS = $(abs_top_builddir)/vm-results
# replay VERSION TESTS SUITE-LOG RESULTS: report one version's results through automake
vm_replay = \
	if test "$(1)" = 6.1; then tests="$(2)"; else \
	  tests=; for t in $(2); do mkdir -p vm-$(1)/$$(dirname $$t); : > vm-$(1)/$$t; tests="$$tests vm-$(1)/$$t"; done; fi; \
	$(MAKE) $(AM_MAKEFLAGS) check-TESTS TESTS="$$tests" TEST_SUITE_LOG=$(3) \
		VMTEST_LOG_COMPILER="env VM_RESULTS=$(4) $(top_srcdir)/vm-image/replay-result" \
		TEST_LOG_COMPILER="env VM_RESULTS=$(4) $(top_srcdir)/vm-image/replay-result" || rc=1
check-vm: all
	$(top_srcdir)/vm-image/check-vm --builddir $(abs_top_builddir) --results $(VM_RESULTS) \
		--baseline "$(VM_BASELINE_TESTS)" --patched "$(VM_PATCHED_TESTS)" --kernels "$(VM_KERNELS)"
	@rc=0; for v in $(VM_KERNELS); do \
	  if test $$v = 6.1; then \
	    $(call vm_replay,6.1,$(VM_TESTS),vm-suite.log,$(VM_RESULTS)); \
	  else \
	    $(call vm_replay,$$v,$(VM_PATCHED_TESTS),vm-$$v-suite.log,$(VM_RESULTS)/$$v); \
	  fi; \
	done; exit $$rc

# The kernel series' tests once more on the debug kernels (lockdep, KASAN: their own build tree
# per version and a cold build several times the plain one, so CI does not run it). Each test
# fails on a kernel splat.
VM_DEBUG_RESULTS = $(abs_top_builddir)/vm-results-debug
check-vm-debug: all
	$(top_srcdir)/vm-image/check-vm --builddir $(abs_top_builddir) --results $(VM_DEBUG_RESULTS) \
		--debug "$(KERNEL_TESTS)" --kernels "$(VM_KERNELS)"
	@rc=0; for v in $(VM_KERNELS); do \
	  if test $$v = 6.1; then \
	    $(call vm_replay,6.1,$(KERNEL_TESTS),vm-debug-suite.log,$(VM_DEBUG_RESULTS)); \
	  else \
	    $(call vm_replay,$$v,$(KERNEL_TESTS),vm-debug-$$v-suite.log,$(VM_DEBUG_RESULTS)/$$v); \
	  fi; \
	done; exit $$rc
.PHONY: check-vm check-vm-debug

# The Debian packaging (debian/, built by tests/debs; the VM tier installs its packages).
EXTRA_DIST += debian/changelog debian/control debian/copyright debian/rules debian/source/format \
	debian/suspendd.install debian/suspendd.postinst debian/suspendd.postrm debian/suspendd.prerm \
	debian/libsuspendctl0.install debian/libsuspendctl0.symbols debian/libsuspendctl-dev.install \
	debian/not-installed
