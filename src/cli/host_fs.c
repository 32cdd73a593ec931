#include "host_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *host_root(void)
{
    static char root[4096];
    const char *env = getenv("HIPWIRE_HOST_ROOT");
    if (!env)
        env = "";
    size_t n = strlen(env);
    if (n >= sizeof(root))
        n = 0; /* absurdly long: fall back to the real root */
    memcpy(root, env, n);
    while (n > 0 && root[n - 1] == '/')
        n--;
    root[n] = '\0';
    return root;
}

bool host_root_is_real(void)
{
    return host_root()[0] == '\0';
}

int host_path(char *buf, size_t size, const char *fmt, ...)
{
    char rel[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(rel, sizeof(rel), fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof(rel))
        return -1;
    n = snprintf(buf, size, "%s%s", host_root(), rel);
    if (n < 0 || (size_t)n >= size)
        return -1;
    return 0;
}

int read_text_file(const char *path, char *buf, size_t size)
{
    char tmp[8192];
    if (size == 0) {
        errno = EINVAL;
        return -1;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t len = 0;
    size_t cap = size < sizeof(tmp) ? size : sizeof(tmp);
    while (len + 1 < cap) {
        ssize_t r = read(fd, tmp + len, cap - 1 - len);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            int saved = errno;
            close(fd);
            errno = saved;
            return -1;
        }
        if (r == 0)
            break;
        len += (size_t)r;
    }
    close(fd);
    while (len > 0 && (tmp[len - 1] == '\n' || tmp[len - 1] == ' ' || tmp[len - 1] == '\t' ||
                       tmp[len - 1] == '\r'))
        len--;
    memcpy(buf, tmp, len);
    buf[len] = '\0';
    return 0;
}

int read_ulong_file(const char *path, unsigned long *out)
{
    char text[64];
    if (read_text_file(path, text, sizeof(text)) < 0)
        return -1;
    char *end;
    errno = 0;
    unsigned long v = strtoul(text, &end, 0);
    if (errno || end == text || *end != '\0') {
        errno = EINVAL;
        return -1;
    }
    *out = v;
    return 0;
}

bool path_exists(const char *path)
{
    return access(path, F_OK) == 0;
}

bool path_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int mkdir_parents(const char *path)
{
    char tmp[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof(tmp)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(tmp, path, n + 1);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
        return -1;
    return 0;
}

int write_file_atomic(const char *path, const char *content, unsigned mode)
{
    char tmp[4200];
    int rc = -1, fd = -1;
    if (snprintf(tmp, sizeof(tmp), "%s.hipwire-tmp", path) >= (int)sizeof(tmp)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, (mode_t)mode);
    if (fd < 0)
        goto out;
    size_t len = strlen(content), off = 0;
    while (off < len) {
        ssize_t w = write(fd, content + off, len - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            goto out;
        }
        off += (size_t)w;
    }
    if (fchmod(fd, (mode_t)mode) < 0 || fsync(fd) < 0)
        goto out;
    if (close(fd) < 0) {
        fd = -1;
        goto out;
    }
    fd = -1;
    if (rename(tmp, path) < 0)
        goto out;
    rc = 0;
out:
    if (rc < 0) {
        int saved = errno;
        if (fd >= 0)
            close(fd);
        unlink(tmp);
        errno = saved;
    }
    return rc;
}

int write_attribute(const char *path, const char *value)
{
    /* O_TRUNC is a no-op on sysfs but keeps a regular-file copy exact. */
    int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t len = strlen(value);
    ssize_t w;
    do {
        w = write(fd, value, len);
    } while (w < 0 && errno == EINTR);
    int saved = errno;
    if (close(fd) < 0 && w >= 0)
        return -1;
    if (w < 0) {
        errno = saved;
        return -1;
    }
    if ((size_t)w != len) {
        errno = EIO;
        return -1;
    }
    return 0;
}
