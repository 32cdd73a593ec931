/*
 * sysfs.h - reading small kernel files under the host root (internal).
 */
#ifndef HIPWIRE_AMDGPU_SYSFS_H
#define HIPWIRE_AMDGPU_SYSFS_H

#include <stddef.h>
#include <stdint.h>

/* Read at most buflen-1 bytes of path (already prefixed) and NUL-terminate.
 * Returns the byte count, or -1 (errno set) when the file cannot be read. */
long sysfs_read(const char *path, char *buf, size_t buflen);

/* dir + "/" + name into out; -1 when it does not fit. */
int sysfs_join(char *out, size_t outlen, const char *dir, const char *name);

/* Read dir/name as one decimal number. -1 when absent or not a number. */
int sysfs_read_u64(const char *dir, const char *name, uint64_t *out);
int sysfs_read_i64(const char *dir, const char *name, int64_t *out);

/* Read dir/name's first line, trimmed, into out. -1 when absent/empty. */
int sysfs_read_line(const char *dir, const char *name, char *out, size_t outlen);

/* errbuf helper: formats into err when err is not NULL. */
void sysfs_set_error(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif /* HIPWIRE_AMDGPU_SYSFS_H */
