/*
 * test_codeobj_hipcc - hipwire_codeobj on what Debian's hipcc produced from
 * kernels.hip, checked against an independent view of the layout.
 *
 * The expected layout is computed here, by the host compiler, from the same
 * struct definitions (kernel_types.h): each explicit argument's size is
 * sizeof, its offset the previous end rounded up to _Alignof (the AMDGPU
 * kernarg rule: every argument at its natural alignment). Nothing here is a
 * copy of the parser's output.
 *
 *   test_codeobj_hipcc host FILE CO_VERSION ARCH...   host object: .hip_fatbin
 *   test_codeobj_hipcc co FILE CO_VERSION ARCH        bare code object
 */
#include "codeobj.h"
#include "kernel_types.h"
#include "test_files.h"

#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>
#ifdef HIPWIRE_HAVE_ZSTD
#include <zstd.h>
#endif
#ifdef HIPWIRE_HAVE_ZLIB
#include <zlib.h>
#endif

static int failures;
#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                   \
            fputc('\n', stderr);                                            \
            failures++;                                                     \
        }                                                                   \
    } while (0)

typedef struct xarg {
    size_t size, align;
    bool pointer;
} xarg;
#define V(T)                         \
    {                                \
        sizeof(T), alignof(T), false \
    }
#define P(T)                        \
    {                               \
        sizeof(T), alignof(T), true \
    }

typedef struct xkernel {
    const char *name;
    size_t nargs;
    xarg args[16];
    bool may_have_hidden_v4; /* printf needs a buffer even in v4 */
} xkernel;

/* The signatures of kernels.hip, argument by argument. */
static const xkernel expected[] = {
    { "k_scalars",
      15,
      { V(char), V(short), V(char), V(int), V(char), V(long long), V(char), V(float), V(double),
        V(bool), V(unsigned char), V(unsigned short), V(unsigned int), V(unsigned long long),
        P(long long *) },
      false },
    { "k_pointers",
      5,
      { P(float *), P(const int *), P(double *), P(void *), P(struct hw_s1 *) },
      false },
    { "k_struct",
      6,
      { V(struct hw_s1), V(int), V(struct hw_s2), V(char), V(struct hw_vec3), P(double *) },
      false },
    { "k_big", 2, { V(struct hw_big), P(int *) }, false },
    { "k_big_mixed", 4, { V(char), V(struct hw_big), V(double), P(int *) }, false },
    { "k_none", 0, { { 0, 0, false } }, false },
    { "k_dims", 2, { P(float *), V(int) }, false },
    { "k_printf", 1, { V(int) }, true },
    { "_Z6k_tmplIcEvPT_S0_i", 3, { P(char *), V(char), V(int) }, false },
    { "_Z6k_tmplIdEvPT_S0_i", 3, { P(double *), V(double), V(int) }, false },
    { "_Z6k_tmplI5hw_s2EvPT_S1_i", 3, { P(struct hw_s2 *), V(struct hw_s2), V(int) }, false },
};
#define NEXPECTED (sizeof expected / sizeof expected[0])

static void check_codeobj(const uint8_t *co, size_t len, const char *arch, unsigned co_version)
{
    hw_cob_err err = { { 0 } };
    hw_cob_metadata m;
    /* The variables of kernels.hip, as ELF data objects of their declared
     * sizes (what a worker that cannot run the code allocates). */
    hw_cob_symbol var;
    CHECK(hw_cob_elf_find_object(co, len, "hw_const_table", &var, &err) == 0 &&
              var.size == 16 * sizeof(int),
          "[%s] hw_const_table: %s", arch, err.msg);
    CHECK(hw_cob_elf_find_object(co, len, "hw_dev_var", &var, &err) == 0 &&
              var.size == sizeof(float),
          "[%s] hw_dev_var: %s", arch, err.msg);
    CHECK(hw_cob_elf_find_object(co, len, "k_none", &var, &err) == HW_COB_ENOTFOUND,
          "[%s] a kernel is not a variable", arch);
    int rc = hw_cob_elf_metadata(co, len, &m, &err);
    CHECK(rc == 0, "[%s] metadata: %s", arch, err.msg);
    if (rc)
        return;
    char want_target[64];
    snprintf(want_target, sizeof want_target, "amdgcn-amd-amdhsa--%s", arch);
    CHECK(m.target && strncmp(m.target, want_target, strlen(want_target)) == 0,
          "[%s] amdhsa.target %s", arch, m.target ? m.target : "(none)");
    CHECK(m.code_object_version == co_version, "[%s] code object v%u, built v%u", arch,
          m.code_object_version, co_version);
    /* amdhsa.version 1.1 is code object v4, 1.2 is v5 (AMDGPUUsage). */
    CHECK(m.version_major == 1 && m.version_minor == co_version - 3, "[%s] amdhsa.version %u.%u",
          arch, m.version_major, m.version_minor);
    CHECK(m.nkernels == NEXPECTED, "[%s] %u kernels, expected %zu", arch, m.nkernels, NEXPECTED);

    for (size_t k = 0; k < NEXPECTED; k++) {
        const xkernel *x = &expected[k];
        const hw_cob_kernel *kn = hw_cob_find_kernel(&m, x->name);
        CHECK(kn != NULL, "[%s] kernel %s missing", arch, x->name);
        if (!kn)
            continue;
        char sym[128];
        snprintf(sym, sizeof sym, "%s.kd", x->name);
        CHECK(strcmp(kn->symbol, sym) == 0, "[%s] %s symbol %s", arch, x->name, kn->symbol);
        CHECK(kn->nargs == x->nargs, "[%s] %s: %u args, expected %zu", arch, x->name, kn->nargs,
              x->nargs);
        size_t end = 0, maxalign = 1;
        for (size_t a = 0; a < x->nargs && a < kn->nargs; a++) {
            size_t off = (end + x->args[a].align - 1) / x->args[a].align * x->args[a].align;
            const hw_cob_arg *ar = &kn->args[a];
            CHECK(ar->offset == off && ar->size == x->args[a].size,
                  "[%s] %s arg %zu: (%u, %u), expected (%zu, %zu)", arch, x->name, a, ar->offset,
                  ar->size, off, x->args[a].size);
            CHECK(ar->kind == (x->args[a].pointer ? HW_COB_ARG_GLOBAL_BUFFER : HW_COB_ARG_BY_VALUE),
                  "[%s] %s arg %zu: kind %s", arch, x->name, a, ar->value_kind);
            if (x->args[a].pointer)
                CHECK(ar->address_space && strcmp(ar->address_space, "global") == 0,
                      "[%s] %s arg %zu: address space %s", arch, x->name, a,
                      ar->address_space ? ar->address_space : "(none)");
            end = off + x->args[a].size;
            if (x->args[a].align > maxalign)
                maxalign = x->args[a].align;
        }
        CHECK(kn->explicit_size == end, "[%s] %s explicit size %u, expected %zu", arch, x->name,
              kn->explicit_size, end);
        CHECK(kn->kernarg_segment_size >= end, "[%s] %s kernarg size %u < %zu", arch, x->name,
              kn->kernarg_segment_size, end);
        CHECK(kn->kernarg_segment_align >= maxalign &&
                  (kn->kernarg_segment_align & (kn->kernarg_segment_align - 1)) == 0,
              "[%s] %s kernarg align %u", arch, x->name, kn->kernarg_segment_align);
        for (uint32_t h = 0; h < kn->nhidden; h++) {
            CHECK(kn->hidden[h].offset >= end,
                  "[%s] %s hidden %s at %u inside "
                  "explicit args",
                  arch, x->name, kn->hidden[h].value_kind, kn->hidden[h].offset);
            CHECK(strncmp(kn->hidden[h].value_kind, "hidden_", 7) == 0, "[%s] %s hidden kind %s",
                  arch, x->name, kn->hidden[h].value_kind);
        }
        /* Code object v4 kernels that use nothing hidden still reserve the
         * 56-byte hidden block (global offsets, printf/hostcall...) only when
         * they use it; clang 15 drops it otherwise. printf always needs one. */
        if (x->may_have_hidden_v4)
            CHECK(kn->nhidden > 0, "[%s] %s: printf kernel without hidden args", arch, x->name);
        /* gfx9 runs wave64; HIP's default launch bound is 1024 threads. */
        CHECK(kn->wavefront_size == 64, "[%s] %s wavefront %u", arch, x->name, kn->wavefront_size);
        CHECK(kn->max_flat_workgroup_size == 1024, "[%s] %s max wg %u", arch, x->name,
              kn->max_flat_workgroup_size);
        CHECK(kn->private_segment_fixed_size < (1u << 20) && kn->sgpr_count <= 112 &&
                  kn->vgpr_count <= 512,
              "[%s] %s resources out of range", arch, x->name);
    }
    if (co_version >= 5) {
        /* v5 reads blockDim/gridDim from hidden arguments. */
        const hw_cob_kernel *kd = hw_cob_find_kernel(&m, "k_dims");
        bool block_count = false, group_size = false;
        for (uint32_t h = 0; kd && h < kd->nhidden; h++) {
            block_count |= strcmp(kd->hidden[h].value_kind, "hidden_block_count_x") == 0;
            group_size |= strcmp(kd->hidden[h].value_kind, "hidden_group_size_y") == 0;
        }
        CHECK(block_count && group_size,
              "[%s] v5 k_dims lacks hidden_block_count_x/hidden_group_size_y", arch);
    }
    hw_cob_metadata_free(&m);
}

/* Compress the real bundle ourselves (Debian's clang 15 cannot: no
 * --offload-compress) and check the CCOB path gives back the same entries. */
static void check_ccob(const uint8_t *bundle, size_t len, unsigned version, uint16_t method)
{
    if (!hw_cob_ccob_method_supported(method)) {
        printf("skip CCOB v%u method %u: decompressor not built\n", version, method);
        return;
    }
    size_t hdr = version == 1 ? 20 : version == 2 ? 24 : 32;
    size_t cap = len + len / 8 + 1024;
    uint8_t *c = malloc(hdr + cap);
    size_t clen = 0;
    if (!c) {
        CHECK(0, "out of memory");
        return;
    }
#ifdef HIPWIRE_HAVE_ZSTD
    if (method == HW_COB_CCOB_ZSTD) {
        size_t r = ZSTD_compress(c + hdr, cap, bundle, len, 3);
        CHECK(!ZSTD_isError(r), "ZSTD_compress");
        clen = r;
    }
#endif
#ifdef HIPWIRE_HAVE_ZLIB
    if (method == HW_COB_CCOB_ZLIB) {
        uLongf dl = (uLongf)cap;
        CHECK(compress2(c + hdr, &dl, bundle, (uLong)len, 6) == Z_OK, "compress2");
        clen = dl;
    }
#endif
    uint64_t total = hdr + clen;
    memcpy(c, "CCOB", 4);
    c[4] = (uint8_t)version;
    c[5] = 0;
    c[6] = (uint8_t)method;
    c[7] = 0;
    uint64_t hash = 0x0123456789abcdefull;
    for (int k = 0; k < 8; k++) {
        if (version == 1) {
            if (k < 4)
                c[8 + k] = (uint8_t)(len >> (8 * k));
            c[12 + k] = (uint8_t)(hash >> (8 * k));
        } else if (version == 2) {
            if (k < 4) {
                c[8 + k] = (uint8_t)(total >> (8 * k));
                c[12 + k] = (uint8_t)((uint64_t)len >> (8 * k));
            }
            c[16 + k] = (uint8_t)(hash >> (8 * k));
        } else {
            c[8 + k] = (uint8_t)(total >> (8 * k));
            c[16 + k] = (uint8_t)((uint64_t)len >> (8 * k));
            c[24 + k] = (uint8_t)(hash >> (8 * k));
        }
    }
    hw_cob_err err = { { 0 } };
    hw_cob_bundle plain, comp;
    int rc1 = hw_cob_bundle_open(bundle, len, 0, &plain, &err);
    CHECK(rc1 == 0, "plain open: %s", err.msg);
    /* Extra trailing bytes: the total size, not the buffer, bounds it. */
    int rc2 = hw_cob_bundle_open(c, (size_t)total, 0, &comp, &err);
    CHECK(rc2 == 0, "CCOB v%u method %u open: %s", version, method, err.msg);
    if (!rc1 && !rc2) {
        CHECK(comp.compressed && comp.ccob.hash == hash && comp.ccob.uncompressed_size == len,
              "CCOB header fields");
        CHECK(comp.image_size == total, "CCOB image size %llu != %llu",
              (unsigned long long)comp.image_size, (unsigned long long)total);
        CHECK(comp.nentries == plain.nentries, "CCOB entry count");
        for (uint32_t k = 0; k < comp.nentries && k < plain.nentries; k++) {
            CHECK(strcmp(comp.entries[k].triple, plain.entries[k].triple) == 0 &&
                      comp.entries[k].size == plain.entries[k].size &&
                      (comp.entries[k].size == 0 ||
                       memcmp(hw_cob_entry_data(&comp, &comp.entries[k]),
                              hw_cob_entry_data(&plain, &plain.entries[k]),
                              (size_t)comp.entries[k].size) == 0),
                  "CCOB entry %u differs", k);
        }
        uint64_t isz = 0;
        int rc3 = hw_cob_image_size(c, SIZE_MAX, &isz, &err);
        if (version == 1)
            CHECK(rc3 == HW_COB_ENOTSUP, "CCOB v1 sizing should be unsupported");
        else
            CHECK(rc3 == 0 && isz == total, "CCOB v%u sized %llu, wrote %llu", version,
                  (unsigned long long)isz, (unsigned long long)total);
        /* One byte short of the recorded total size must be refused. */
        if (version >= 2) {
            hw_cob_bundle t;
            CHECK(hw_cob_bundle_open(c, (size_t)total - 1, 0, &t, &err) == HW_COB_ETRUNC,
                  "short CCOB accepted");
        }
        printf("CCOB v%u %s: %zu -> %llu bytes, %u entries ok\n", version,
               method == HW_COB_CCOB_ZSTD ? "zstd" : "zlib", len, (unsigned long long)total,
               comp.nentries);
    }
    if (!rc1)
        hw_cob_bundle_close(&plain);
    if (!rc2)
        hw_cob_bundle_close(&comp);
    free(c);
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: %s host|co FILE CO_VERSION ARCH...\n", argv[0]);
        return 2;
    }
    unsigned cov = (unsigned)atoi(argv[3]);
    size_t len;
    uint8_t *buf = tf_read(argv[2], &len);
    if (!buf)
        return 1;
    hw_cob_err err = { { 0 } };

    if (strcmp(argv[1], "co") == 0) {
        uint64_t isz = 0;
        CHECK(hw_cob_image_size(buf, len, &isz, &err) == 0 && isz == len,
              "ELF image size %llu, file %zu (%s)", (unsigned long long)isz, len, err.msg);
        check_codeobj(buf, len, argv[4], cov);
    } else {
        const uint8_t *fb = NULL;
        size_t fblen = 0;
        CHECK(tf_host_fatbin(buf, len, &fb, &fblen) == 0, "no .hip_fatbin in %s", argv[2]);
        if (failures)
            goto out;
        /* The proxy sees only the address: the headers must give the size,
         * which can be below the section (padding) but never above it. */
        uint64_t isz = 0;
        CHECK(hw_cob_image_size(fb, SIZE_MAX, &isz, &err) == 0, "%s", err.msg);
        CHECK(isz <= fblen && fblen - isz < 4096, "image size %llu vs section %zu",
              (unsigned long long)isz, fblen);
        hw_cob_bundle b;
        CHECK(hw_cob_bundle_open(fb, (size_t)isz, 0, &b, &err) == 0, "%s", err.msg);
        if (failures)
            goto out;
        CHECK(b.nentries == (uint32_t)(argc - 4) + 1, "%u entries for %d targets", b.nentries,
              argc - 4);
        CHECK(b.entries[0].is_host && b.entries[0].size == 0, "host entry first");
        for (int a = 4; a < argc; a++) {
            const hw_cob_entry *e = hw_cob_bundle_find(&b, argv[a]);
            CHECK(e != NULL, "no entry for %s", argv[a]);
            if (!e)
                continue;
            char q[64];
            /* A device that pins features still finds the any-mode entry. */
            snprintf(q, sizeof q, "%s:sramecc+:xnack-", argv[a]);
            CHECK(hw_cob_bundle_find(&b, q) == e, "feature query %s", q);
            CHECK(e->offset % 4096 == 0, "%s entry at %llu, not 4096-aligned", argv[a],
                  (unsigned long long)e->offset);
            check_codeobj(hw_cob_entry_data(&b, e), (size_t)e->size, argv[a], cov);
            printf("%s: %s, %llu bytes, layout ok\n", argv[2], e->triple,
                   (unsigned long long)e->size);
        }
        CHECK(hw_cob_bundle_find(&b, "gfx1030") == NULL, "gfx1030 found");
        check_ccob(fb, (size_t)isz, 1, HW_COB_CCOB_ZSTD);
        check_ccob(fb, (size_t)isz, 2, HW_COB_CCOB_ZSTD);
        check_ccob(fb, (size_t)isz, 3, HW_COB_CCOB_ZSTD);
        check_ccob(fb, (size_t)isz, 2, HW_COB_CCOB_ZLIB);
        check_ccob(fb, (size_t)isz, 3, HW_COB_CCOB_ZLIB);
        hw_cob_bundle_close(&b);
    }
out:
    free(buf);
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}
