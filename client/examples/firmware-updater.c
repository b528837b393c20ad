/* SPDX-License-Identifier: GPL-2.0-or-later */
/* firmware-updater — takes the big hammer: no suspend or hibernate at all while "flashing"
 * ($FLASH_MS milliseconds), then lets go. If it crashes, its disable ends with its connection. */
#include <stdio.h>
#include <stdlib.h>

#include <suspendctl.h>

int main(void)
{
        GError *error = NULL;
        const char *ms = g_getenv("FLASH_MS");
        SuspendctlClient *c = suspendctl_client_new(NULL, "firmware-updater", &error);

        if (!c || !suspendctl_client_disable(c, "flashing firmware", &error)) {
                fprintf(stderr, "firmware-updater: %s\n", error->message);
                return 1;
        }
        printf("firmware-updater: suspend disabled, flashing\n");
        fflush(stdout);
        g_usleep((ms ? g_ascii_strtoull(ms, NULL, 10) : 1000) * 1000);
        if (!suspendctl_client_enable(c, &error)) {
                fprintf(stderr, "firmware-updater: %s\n", error->message);
                return 1;
        }
        printf("firmware-updater: done, suspend allowed again\n");
        suspendctl_client_free(c);
        return 0;
}
