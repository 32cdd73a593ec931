/*
 * mounts.c - GetVendorMountLibs and the calls AMD cannot honour.
 */
#include "mounts.h"

#include "amdgpu.h"

#include <sys/stat.h>

static const struct {
    const char *host, *guest;
} rocm_dirs[] = {
    { "/opt/rocm/lib", "/usr/local/rocm/lib" },
    { "/opt/rocm/bin", "/usr/local/rocm/bin" },
};

size_t provider_mounts(Mount *out, size_t max)
{
    size_t n = 0;

    for (size_t i = 0; i < sizeof(rocm_dirs) / sizeof(*rocm_dirs) && n < max; i++) {
        char path[AMDGPU_PATH_LEN];
        struct stat st;
        /* checked under the host root, reported as the host sees it */
        if (amdgpu_host_path(path, sizeof(path), rocm_dirs[i].host) != 0 || stat(path, &st) != 0 ||
            !S_ISDIR(st.st_mode))
            continue;
        provider_copy(out[n].hostPath, sizeof(out[n].hostPath), rocm_dirs[i].host);
        provider_copy(out[n].guestPath, sizeof(out[n].guestPath), rocm_dirs[i].guest);
        n++;
    }
    return n;
}

PROVIDER_API Result GetVendorMountLibs(Mount *mounts, size_t maxCount, size_t *mountCount)
{
    if (mounts == NULL || maxCount == 0 || mountCount == NULL)
        return RESULT_ERROR_INVALID_PARAM;
    *mountCount = provider_mounts(mounts, maxCount);
    return RESULT_SUCCESS;
}

/* amdgpu has no per-process memory or CU caps; say so instead of
 * pretending. Arguments are still checked the way the hypervisor's own
 * tests expect. */
PROVIDER_API Result SetMemHardLimit(const char *workerId, const char *deviceUUID,
                                    uint64_t memoryLimitBytes)
{
    /* a limit of 0 would starve the worker: a caller bug, not a request */
    if (workerId == NULL || deviceUUID == NULL || memoryLimitBytes == 0)
        return RESULT_ERROR_INVALID_PARAM;
    return RESULT_ERROR_NOT_SUPPORTED;
}

PROVIDER_API Result SetComputeUnitHardLimit(const char *workerId, const char *deviceUUID,
                                            uint32_t computeUnitLimit)
{
    if (workerId == NULL || deviceUUID == NULL || computeUnitLimit == 0 || computeUnitLimit > 100)
        return RESULT_ERROR_INVALID_PARAM;
    return RESULT_ERROR_NOT_SUPPORTED;
}

PROVIDER_API Result Snapshot(ProcessArray *processes)
{
    if (processes == NULL)
        return RESULT_ERROR_INVALID_PARAM;
    return RESULT_ERROR_NOT_SUPPORTED;
}

PROVIDER_API Result Resume(ProcessArray *processes)
{
    if (processes == NULL)
        return RESULT_ERROR_INVALID_PARAM;
    return RESULT_ERROR_NOT_SUPPORTED;
}
