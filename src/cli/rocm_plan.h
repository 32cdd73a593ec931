/* The ROCm installation plan for a host OS: kernel headers, the
 * amdgpu-install package for the chosen release, then
 * `amdgpu-install --usecase=rocm,dkms --yes`. Package names and repository
 * layout follow AMD's install docs (repo.radeon.com/amdgpu-install/<ver>/
 * <distro>/<release>/...). */
#ifndef HIPWIRE_CLI_ROCM_PLAN_H
#define HIPWIRE_CLI_ROCM_PLAN_H

#include <stddef.h>

#include "os_release.h"

#define ROCM_PLAN_MAX_STEPS 8
#define ROCM_PLAN_MAX_ARGS  16

#define ROCM_DEFAULT_BASE_URL "https://repo.radeon.com/amdgpu-install"
#define ROCM_DEFAULT_VERSION  "6.4.1"

typedef struct rocm_plan {
    size_t count;
    char *argv[ROCM_PLAN_MAX_STEPS][ROCM_PLAN_MAX_ARGS + 1]; /* NULL-terminated */
} rocm_plan;

/* Builds the plan. On failure returns -1 and writes the reason to err;
 * plan is left empty. */
int rocm_plan_build(rocm_plan *plan, const os_release *os, const char *kernel, const char *base_url,
                    const char *version, char *err, size_t err_size);
void rocm_plan_free(rocm_plan *plan);

/* "6.4.1" -> "6.4.60401": the version string inside package file names. */
int rocm_package_version(const char *version, char *out, size_t size);

#endif
