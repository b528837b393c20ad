/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-tap.h — the one way our Check suites run: a single TCase, TAP on stdout (automake's
 * tap-driver), exit status from the failure count. */
#pragma once
#include <check.h>
#include <stdlib.h>

static inline int run_tap(Suite *s, TCase *tc)
{
        SRunner *sr;
        int failed;

        suite_add_tcase(s, tc);
        sr = srunner_create(s);
        srunner_set_tap(sr, "-");
        srunner_run_all(sr, CK_SILENT);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
