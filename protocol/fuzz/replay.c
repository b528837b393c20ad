/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Replay driver: runs LLVMFuzzerTestOneInput over files, so `make check` exercises the fuzz
 * corpus with the normal compiler (and the sanitizers when configured). Prints TAP. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
        static uint8_t buf[1 << 16];
        FILE *f = fopen(path, "rb");
        size_t n;
        if (!f)
                return -1;
        n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, n);
        return 0;
}

int main(int argc, char **argv)
{
        unsigned count = 0;
        for (int i = 1; i < argc; i++) {
                DIR *d = opendir(argv[i]);
                struct dirent *e;
                if (!d) {
                        if (replay_file(argv[i]) < 0) {
                                printf("not ok 1 - cannot read %s\n1..1\n", argv[i]);
                                return 1;
                        }
                        count++;
                        continue;
                }
                while ((e = readdir(d))) {
                        char path[4096];
                        if (e->d_name[0] == '.')
                                continue;
                        snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
                        if (replay_file(path) == 0)
                                count++;
                }
                closedir(d);
        }
        /* a crash or sanitizer report aborts before this line */
        printf("ok 1 - replayed %u corpus inputs without a crash\n1..1\n", count);
        return count ? 0 : 1;
}
