/* SPDX-License-Identifier: GPL-2.0-or-later */
/* account.h — the account an alarm's job runs as, read when it runs (account.c). */
#ifndef SUSPENDD_ACCOUNT_H
#define SUSPENDD_ACCOUNT_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "job.h"

/* The credentials of uid's account now: 0 and *out; or, with a sentence in why (len > 0):
 *   -ENOENT  uid has no passwd entry;
 *   -ESTALE  uid's name is no longer expected_user (a reused uid; NULL or "" skips this);
 *   -EACCES  the account is locked or expired (at now), or the PAM account stack of the
 *            "suspendd" service refuses it (SUSPENDD_PAM_CONFDIR: another PAM directory, tests). */
int account_resolve(uid_t uid, const char *expected_user, time_t now, JobCreds *out, char *why, size_t len);

/* uid's user name now, for storing with an alarm; -ENOENT (and "") without a passwd entry. */
int account_name_of(uid_t uid, char *name, size_t len);

#endif
