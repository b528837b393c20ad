# kernel-patches/: the series (README). Its guest tests (tests/kernel/) are built here and run in
# the QEMU guest on the patched kernels (6.1/ and 6.12/, VM_KERNELS in vm-image/local.mk) by
# `make check-vm`; on the host they are never run.
KERNEL_TESTS += tests/kernel/sleep-mode.test tests/kernel/sleepctl.test tests/kernel/interleave.test
# the series' own kselftest (0003, tools/testing/selftests/sleepctl), built with the kernel by
# vm-image/build-kernel and run in the guest through the kernel's run_kselftest.sh
KERNEL_TESTS += tests/kernel/kselftest.test
noinst_PROGRAMS += tests/kernel/sleep-mode.test tests/kernel/sleepctl.test tests/kernel/interleave.test
tests_kernel_sleep_mode_test_SOURCES = tests/kernel/sleep-mode.c tests/kernel/guest-tap.h
tests_kernel_sleepctl_test_SOURCES = tests/kernel/sleepctl.c tests/kernel/guest-tap.h tests/kernel/console-owner.h \
	tests/kernel/transition.h daemon/sleepctl-uapi.h
# interleave.test (issue 30): transitions run at once, each guarded by its own count
tests_kernel_interleave_test_SOURCES = tests/kernel/interleave.c tests/kernel/guest-tap.h \
	tests/kernel/console-owner.h tests/kernel/transition.h daemon/sleepctl-uapi.h
EXTRA_DIST += kernel-patches/README tests/kernel/kselftest.test \
	kernel-patches/6.1/0001-PM-sleep-add-sys-power-sleep_mode-to-disable-system-.patch \
	kernel-patches/6.1/0002-PM-sleep-add-the-cooperative-sleep-mode-and-dev-slee.patch \
	kernel-patches/6.1/0003-selftests-PM-add-tests-of-sleep_mode-and-dev-sleepct.patch \
	kernel-patches/6.12/0000-cover-letter.patch \
	kernel-patches/6.12/0001-PM-sleep-add-sys-power-sleep_mode-to-disable-system-.patch \
	kernel-patches/6.12/0002-PM-sleep-add-the-cooperative-sleep-mode-and-dev-slee.patch \
	kernel-patches/6.12/0003-selftests-PM-add-tests-of-sleep_mode-and-dev-sleepct.patch
