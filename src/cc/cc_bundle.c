/* cc_bundle.c - writes the clang offload bundle clang embeds as the fat
 * binary (layout in docs/codeobj.md): an empty host entry, as hipcc's
 * bundles have, the AMD code objects when --offload-arch named gfx targets,
 * and the portable-source entry. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cc_source.h"
#include "codeobj.h"
#include "hip_source.h"

#define HOST_TRIPLE "host-x86_64-unknown-linux-gnu"

static void put_u64(struct cc_buf *b, uint64_t v)
{
    uint8_t le[8];
    for (int i = 0; i < 8; i++)
        le[i] = (uint8_t)(v >> (8 * i));
    cc_buf_add(b, le, sizeof le);
}

int cc_bundle_write(const char *path, const struct cc_buf *entry, const void *amd, size_t amd_len)
{
    enum { MAX_ENTRIES = 64 };
    const char *ids[MAX_ENTRIES];
    const void *data[MAX_ENTRIES];
    uint64_t sizes[MAX_ENTRIES], aligns[MAX_ENTRIES], offs[MAX_ENTRIES];
    unsigned n = 0;
    int rc = -1;
    struct cc_buf b = { 0 };
    hw_cob_bundle dev = { 0 };
    hw_cob_err err;
    ids[n] = HOST_TRIPLE, data[n] = "", sizes[n] = 0, aligns[n++] = 8;
    if (amd) {
        /* The code objects clang built for the --offload-arch targets:
         * page-aligned, as clang's own bundles place them. */
        if (hw_cob_bundle_open(amd, amd_len, 0, &dev, &err) != 0) {
            fprintf(stderr, "hipwire-cc: the AMD device compile's output is not a bundle\n");
            return -1;
        }
        for (uint32_t i = 0; i < dev.nentries && n < MAX_ENTRIES - 1; i++)
            if (dev.entries[i].is_amdgcn) {
                ids[n] = dev.entries[i].triple;
                data[n] = dev.data + dev.entries[i].offset;
                sizes[n] = dev.entries[i].size;
                aligns[n++] = 4096;
            }
    }
    ids[n] = HW_SRC_TRIPLE, data[n] = entry->p, sizes[n] = entry->len, aligns[n++] = 8;
    uint64_t off = 24 + 8;
    for (unsigned i = 0; i < n; i++)
        off += 24 + strlen(ids[i]);
    for (unsigned i = 0; i < n; i++) {
        off = (off + aligns[i] - 1) & ~(aligns[i] - 1);
        offs[i] = off;
        off += sizes[i];
    }
    cc_buf_add(&b, "__CLANG_OFFLOAD_BUNDLE__", 24);
    put_u64(&b, n);
    for (unsigned i = 0; i < n; i++) {
        put_u64(&b, offs[i]);
        put_u64(&b, sizes[i]);
        put_u64(&b, strlen(ids[i]));
        cc_buf_str(&b, ids[i]);
    }
    for (unsigned i = 0; i < n; i++) {
        while (b.len < offs[i] && !b.failed)
            cc_buf_add(&b, "", 1);
        cc_buf_add(&b, data[i], sizes[i]);
    }
    FILE *f = b.failed ? NULL : fopen(path, "wb");
    rc = f && fwrite(b.p, 1, b.len, f) == b.len ? 0 : -1;
    if (f && fclose(f) != 0)
        rc = -1;
    cc_buf_free(&b);
    hw_cob_bundle_close(&dev);
    if (rc < 0)
        fprintf(stderr, "hipwire-cc: cannot write %s\n", path);
    return rc;
}
