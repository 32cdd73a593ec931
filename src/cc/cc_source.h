/* cc_source.h - the portable device source of one HIP file: the file and
 * the program headers it includes, host code blanked, as the bundle entry
 * hip_source.h describes. */
#ifndef CC_SOURCE_H
#define CC_SOURCE_H

#include <stddef.h>

struct cc_buf {
    char *p;
    size_t len, cap;
    int failed;
};

void cc_buf_add(struct cc_buf *b, const void *p, size_t n);
void cc_buf_str(struct cc_buf *b, const char *s);
void cc_buf_free(struct cc_buf *b);

/* Builds the entry for path: includes resolved against its directory and
 * the include dirs (a user header is shipped, a system one left to the
 * worker's compiler), options recorded, `extra` (explicit instantiations)
 * appended to the source. 0, or -1 with a message on stderr. */
int cc_source_entry(const char *path, const char *const *include_dirs, unsigned n_include,
                    const char *const *options, unsigned n_options, const char *extra,
                    struct cc_buf *out);

/* A clang offload bundle of an empty host entry, the amdgcn entries of the
 * bundle amd (amd_len bytes: clang's --cuda-device-only output; NULL for
 * none) and the entry above. */
int cc_bundle_write(const char *path, const struct cc_buf *entry, const void *amd, size_t amd_len);

#endif
