/* Reading and writing host files under HIPWIRE_HOST_ROOT.
 *
 * Every host path the CLI touches goes through host_path(), so a test (or a
 * container with the host mounted at /host) can point the whole tool at
 * another tree. */
#ifndef HIPWIRE_CLI_HOST_FS_H
#define HIPWIRE_CLI_HOST_FS_H

#include <stdbool.h>
#include <stddef.h>

/* The root prefix without a trailing slash; "" for the real root. */
const char *host_root(void);
bool host_root_is_real(void);

/* Writes root + absolute path into buf. Returns 0, or -1 when it does not fit. */
int host_path(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Reads a small text file (already root-prefixed) and strips trailing
 * whitespace. Returns 0, or -1 with errno set; buf untouched on failure. */
int read_text_file(const char *path, char *buf, size_t size);

/* Parses a file holding one number (decimal or 0x-hex). */
int read_ulong_file(const char *path, unsigned long *out);

bool path_exists(const char *path);
bool path_is_dir(const char *path);

/* Creates a directory and its parents (mode 0755). */
int mkdir_parents(const char *path);

/* Replaces a config file atomically (temp file + rename). */
int write_file_atomic(const char *path, const char *content, unsigned mode);

/* Writes a value into an existing attribute file (sysfs or a fixture copy). */
int write_attribute(const char *path, const char *value);

#endif
