/* ROCm user space on the host: /opt/rocm* trees with their .info/version,
 * and where amd-smi / rocm-smi live. Tools are found, not run, so the check
 * also works on a host tree mounted elsewhere. */
#ifndef HIPWIRE_CLI_ROCM_DETECT_H
#define HIPWIRE_CLI_ROCM_DETECT_H

#include <stddef.h>

#define ROCM_MAX_INSTALLS 8

typedef struct rocm_install {
    char path[256];   /* host path without the root prefix, e.g. /opt/rocm-6.4.1 */
    char version[64]; /* from .info/version; "" when unreadable */
} rocm_install;

typedef struct rocm_userspace {
    rocm_install installs[ROCM_MAX_INSTALLS];
    size_t count;
    char amd_smi[256]; /* host path or "" */
    char rocm_smi[256];
} rocm_userspace;

void rocm_detect(rocm_userspace *out);

/* The version of /opt/rocm (the default install), or of the only one. */
const char *rocm_default_version(const rocm_userspace *r);

#endif
