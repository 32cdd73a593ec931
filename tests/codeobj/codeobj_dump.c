/*
 * codeobj_dump - print what hipwire_codeobj reads from a file: a host object
 * or executable (its .hip_fatbin section), an offload bundle (plain or
 * compressed), or a bare AMDGPU code object. One "key=value" record per
 * line, so scripts can compare it with other tools (check_readelf.py).
 *
 *   codeobj_dump FILE [--extract DIR]   (DIR receives <target>.co files)
 */
#include "codeobj.h"
#include "test_files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void dump_metadata(const hw_cob_metadata *m)
{
    printf("metadata version=%u.%u target=%s co_version=%u kernels=%u\n", m->version_major,
           m->version_minor, m->target ? m->target : "", m->code_object_version, m->nkernels);
    for (uint32_t k = 0; k < m->nkernels; k++) {
        const hw_cob_kernel *kn = &m->kernels[k];
        printf("kernel name=%s symbol=%s kernarg_segment_size=%u "
               "kernarg_segment_align=%u group_segment_fixed_size=%u "
               "private_segment_fixed_size=%u sgpr_count=%u vgpr_count=%u "
               "max_flat_workgroup_size=%u wavefront_size=%u nargs=%u "
               "nhidden=%u explicit_size=%u\n",
               kn->name, kn->symbol, kn->kernarg_segment_size, kn->kernarg_segment_align,
               kn->group_segment_fixed_size, kn->private_segment_fixed_size, kn->sgpr_count,
               kn->vgpr_count, kn->max_flat_workgroup_size, kn->wavefront_size, kn->nargs,
               kn->nhidden, kn->explicit_size);
        for (uint32_t a = 0; a < kn->nargs + kn->nhidden; a++) {
            const hw_cob_arg *ar = &kn->args[a];
            printf("  %s offset=%u size=%u value_kind=%s name=%s type_name=%s "
                   "address_space=%s\n",
                   a < kn->nargs ? "arg" : "hidden", ar->offset, ar->size, ar->value_kind,
                   ar->name ? ar->name : "-", ar->type_name ? ar->type_name : "-",
                   ar->address_space ? ar->address_space : "-");
        }
    }
}

int main(int argc, char **argv)
{
    if (argc != 2 && !(argc == 4 && strcmp(argv[2], "--extract") == 0)) {
        fprintf(stderr, "usage: %s FILE [--extract DIR]\n", argv[0]);
        return 2;
    }
    size_t len;
    uint8_t *buf = tf_read(argv[1], &len);
    if (!buf)
        return 1;
    int rc = 1;
    hw_cob_err err = { { 0 } };
    const uint8_t *img = buf;
    size_t img_len = len;
    hw_cob_bundle b;
    memset(&b, 0, sizeof b);

    /* A host ELF carries the bundle in .hip_fatbin. */
    if (hw_cob_detect(buf, len) == HW_COB_KIND_ELF && tf_host_fatbin(buf, len, &img, &img_len) == 0)
        printf("host .hip_fatbin bytes=%zu\n", img_len);
    hw_cob_kind kind = hw_cob_detect(img, img_len);
    if (kind == HW_COB_KIND_ELF) {
        hw_cob_metadata m;
        if (hw_cob_elf_metadata(img, img_len, &m, &err)) {
            fprintf(stderr, "%s: %s\n", argv[1], err.msg);
            goto out;
        }
        dump_metadata(&m);
        hw_cob_metadata_free(&m);
        rc = 0;
        goto out;
    }
    uint64_t isz = 0;
    if (hw_cob_image_size(img, img_len, &isz, &err)) {
        fprintf(stderr, "%s: %s\n", argv[1], err.msg);
        goto out;
    }
    if (hw_cob_bundle_open(img, img_len, 0, &b, &err)) {
        fprintf(stderr, "%s: %s\n", argv[1], err.msg);
        goto out;
    }
    printf("bundle entries=%u size=%llu image_size=%llu header_image_size=%llu "
           "compressed=%d\n",
           b.nentries, (unsigned long long)b.size, (unsigned long long)b.image_size,
           (unsigned long long)isz, b.compressed);
    rc = 0;
    for (uint32_t k = 0; k < b.nentries; k++) {
        const hw_cob_entry *e = &b.entries[k];
        printf("entry triple=%s target_id=%s offset=%llu size=%llu\n", e->triple, e->target_id,
               (unsigned long long)e->offset, (unsigned long long)e->size);
        if (!e->is_amdgcn || !e->size)
            continue;
        const uint8_t *co = hw_cob_entry_data(&b, e);
        if (argc == 4) {
            char path[1024];
            snprintf(path, sizeof path, "%s/%s.co", argv[3], e->target_id);
            if (tf_write(path, co, (size_t)e->size))
                rc = 1;
        }
        hw_cob_metadata m;
        if (hw_cob_elf_metadata(co, (size_t)e->size, &m, &err)) {
            fprintf(stderr, "%s [%s]: %s\n", argv[1], e->triple, err.msg);
            rc = 1;
            continue;
        }
        dump_metadata(&m);
        hw_cob_metadata_free(&m);
    }
out:
    hw_cob_bundle_close(&b);
    free(buf);
    return rc;
}
