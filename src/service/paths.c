/* paths.c - finding the programs the service runs: beside its own binary
 * (the build tree's bin/, an install's bin/), then the path configured at
 * build time, then PATH. */
#include "hw_alloc.h"
#include "service.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *paths_find(const char *name, const char *configured)
{
    char self[PATH_MAX], cand[PATH_MAX + 64];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        snprintf(cand, sizeof cand, "%s/%s", dirname(self), name);
        if (access(cand, X_OK) == 0)
            return hw_strdup(cand);
    }
    if (configured && configured[0] && access(configured, X_OK) == 0)
        return hw_strdup(configured);
    const char *path = getenv("PATH");
    if (path) {
        char *dup = hw_strdup(path), *save = NULL;
        for (char *d = strtok_r(dup, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
            snprintf(cand, sizeof cand, "%s/%s", d, name);
            if (access(cand, X_OK) == 0) {
                free(dup);
                return hw_strdup(cand);
            }
        }
        free(dup);
    }
    return NULL;
}
