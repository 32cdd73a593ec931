/* cc_bundle.c - writes the clang offload bundle clang embeds as the fat
 * binary (layout in docs/codeobj.md): an empty host entry, as hipcc's
 * bundles have, and the portable-source entry. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cc_source.h"
#include "hip_source.h"

#define HOST_TRIPLE "host-x86_64-unknown-linux-gnu"

static void put_u64(struct cc_buf *b, uint64_t v)
{
    uint8_t le[8];
    for (int i = 0; i < 8; i++)
        le[i] = (uint8_t)(v >> (8 * i));
    cc_buf_add(b, le, sizeof le);
}

int cc_bundle_write(const char *path, const struct cc_buf *entry)
{
    const char *ids[2] = { HOST_TRIPLE, HW_SRC_TRIPLE };
    uint64_t header = 24 + 8;
    for (int i = 0; i < 2; i++)
        header += 24 + strlen(ids[i]);
    uint64_t data_off = (header + 7) & ~(uint64_t)7;
    struct cc_buf b = { 0 };
    cc_buf_add(&b, "__CLANG_OFFLOAD_BUNDLE__", 24);
    put_u64(&b, 2);
    put_u64(&b, data_off); /* the host entry: empty, at the data */
    put_u64(&b, 0);
    put_u64(&b, strlen(ids[0]));
    cc_buf_str(&b, ids[0]);
    put_u64(&b, data_off);
    put_u64(&b, entry->len);
    put_u64(&b, strlen(ids[1]));
    cc_buf_str(&b, ids[1]);
    while (b.len < data_off)
        cc_buf_add(&b, "", 1);
    cc_buf_add(&b, entry->p, entry->len);
    FILE *f = b.failed ? NULL : fopen(path, "wb");
    int rc = f && fwrite(b.p, 1, b.len, f) == b.len ? 0 : -1;
    if (f && fclose(f) != 0)
        rc = -1;
    cc_buf_free(&b);
    if (rc < 0)
        fprintf(stderr, "hipwire-cc: cannot write %s\n", path);
    return rc;
}
