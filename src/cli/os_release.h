/* The host's /etc/os-release (falling back to /usr/lib/os-release) and
 * kernel release, which decide the ROCm installation plan. */
#ifndef HIPWIRE_CLI_OS_RELEASE_H
#define HIPWIRE_CLI_OS_RELEASE_H

#include <stddef.h>

typedef struct os_release {
    char id[64]; /* ubuntu, debian, rhel, sles, ... */
    char id_like[128];
    char version_id[32]; /* 22.04, 12, 9.4, 15.6 */
    char version_codename[64];
    char pretty_name[128];
} os_release;

/* Returns 0, or -1 when no os-release file can be read. */
int os_release_read(os_release *out);

/* Parses os-release text (KEY=value lines, optional quotes). */
void os_release_parse(const char *text, os_release *out);

/* Kernel release: <root>/proc/sys/kernel/osrelease, else uname -r. */
int kernel_release(char *buf, size_t size);

#endif
