/*
 * sysfs.c - reading small kernel files under the host root.
 */
#include "sysfs.h"

#include "amdgpu.h"
#include "parse.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void sysfs_set_error(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (err == NULL || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

int amdgpu_host_path(char *out, size_t outlen, const char *abs_path)
{
    const char *root = getenv("HIPWIRE_HOST_ROOT");
    int n;

    if (out == NULL || abs_path == NULL)
        return -1;
    if (root == NULL)
        root = "";
    /* "/" as a root means the host itself; avoid "//sys" */
    size_t rl = strlen(root);
    while (rl > 0 && root[rl - 1] == '/')
        rl--;
    n = snprintf(out, outlen, "%.*s%s", (int)rl, root, abs_path);
    if (n < 0 || (size_t)n >= outlen)
        return -1;
    return 0;
}

long sysfs_read(const char *path, char *buf, size_t buflen)
{
    size_t used = 0;
    int fd;

    if (buflen == 0)
        return -1;
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    /* sysfs hands out a page per read(); loop for binary attributes */
    while (used < buflen - 1) {
        ssize_t n = read(fd, buf + used, buflen - 1 - used);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int saved = errno;
            close(fd);
            errno = saved;
            return -1;
        }
        if (n == 0)
            break;
        used += (size_t)n;
    }
    close(fd);
    buf[used] = '\0';
    return (long)used;
}

int sysfs_join(char *out, size_t outlen, const char *dir, const char *name)
{
    int n = snprintf(out, outlen, "%s/%s", dir, name);
    return (n < 0 || (size_t)n >= outlen) ? -1 : 0;
}

int sysfs_read_u64(const char *dir, const char *name, uint64_t *out)
{
    char path[AMDGPU_PATH_LEN + 64], buf[64];
    long n;

    if (sysfs_join(path, sizeof(path), dir, name) != 0)
        return -1;
    n = sysfs_read(path, buf, sizeof(buf));
    if (n <= 0)
        return -1;
    return parse_u64(buf, (size_t)n, out);
}

int sysfs_read_i64(const char *dir, const char *name, int64_t *out)
{
    char path[AMDGPU_PATH_LEN + 64], buf[64];
    long n;

    if (sysfs_join(path, sizeof(path), dir, name) != 0)
        return -1;
    n = sysfs_read(path, buf, sizeof(buf));
    if (n <= 0)
        return -1;
    return parse_i64(buf, (size_t)n, out);
}

int sysfs_read_line(const char *dir, const char *name, char *out, size_t outlen)
{
    char path[AMDGPU_PATH_LEN + 64], buf[512];
    long n;

    if (outlen == 0 || sysfs_join(path, sizeof(path), dir, name) != 0)
        return -1;
    n = sysfs_read(path, buf, sizeof(buf));
    if (n <= 0)
        return -1;
    char *b = buf, *e = strchr(buf, '\n');
    if (e == NULL)
        e = buf + n;
    while (b < e && (*b == ' ' || *b == '\t'))
        b++;
    while (e > b && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\0'))
        e--;
    if (e == b)
        return -1;
    size_t len = (size_t)(e - b);
    if (len >= outlen)
        len = outlen - 1;
    memcpy(out, b, len);
    out[len] = '\0';
    return 0;
}

int amdgpu_driver_version(char *out, size_t outlen)
{
    char dir[AMDGPU_PATH_LEN];

    if (out == NULL || outlen == 0)
        return -1;
    if (amdgpu_host_path(dir, sizeof(dir), "/sys/module/amdgpu") != 0)
        return -1;
    if (sysfs_read_line(dir, "version", out, outlen) != 0)
        out[0] = '\0';
    return 0;
}
