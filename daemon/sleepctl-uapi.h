/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The /dev/sleepctl ABI of kernel-patches/0002 (include/uapi/linux/sleepctl.h in the patched
 * tree). Distribution kernel headers do not have it yet, so the values are repeated here; they
 * are ABI and never change. */
#pragma once
#if defined(__has_include) && __has_include(<linux/sleepctl.h>)
#include <linux/sleepctl.h>
#else
#include <linux/ioctl.h>
#define SLEEPCTL_DEFAULT_TIMEOUT_MS 500
#define SLEEPCTL_MAX_TIMEOUT_MS     86400000u
#define SLEEPCTL_IOC_MAGIC          0xB9
#define SLEEPCTL_STAY_AWAKE         _IO(SLEEPCTL_IOC_MAGIC, 0x01)
#define SLEEPCTL_RELAX              _IO(SLEEPCTL_IOC_MAGIC, 0x02)
#endif
