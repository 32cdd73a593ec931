/*
 * test_codeobj_unit - hipwire_codeobj on synthetic and hostile input: the
 * msgpack reader, the metadata decoder, ELF note lookup, ELF symbols,
 * offload bundles, CCOB headers, target matching and the fat-binary wrapper. Every malformed input must give
 * its specific error and a message, never a crash (run under ASan/UBSan).
 * Inputs are built here by small writers from the format definitions.
 */
#include "codeobj.h"
#include "msgpack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef HIPWIRE_HAVE_ZSTD
#include <zstd.h>
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

/* ---- a tiny msgpack writer ---- */
typedef struct buf {
    uint8_t d[1 << 16];
    size_t n;
} buf;
static void put(buf *b, const void *p, size_t n)
{
    if (b->n + n > sizeof b->d)
        abort();
    memcpy(b->d + b->n, p, n);
    b->n += n;
}
static void put_be(buf *b, uint64_t v, int n)
{
    for (int k = n - 1; k >= 0; k--) {
        uint8_t c = (uint8_t)(v >> (8 * k));
        put(b, &c, 1);
    }
}
static void w_u8(buf *b, uint8_t v)
{
    put(b, &v, 1);
}
static void w_uint(buf *b, uint64_t v)
{
    if (v < 128)
        w_u8(b, (uint8_t)v);
    else if (v <= 0xff) {
        w_u8(b, 0xcc);
        put_be(b, v, 1);
    } else if (v <= 0xffff) {
        w_u8(b, 0xcd);
        put_be(b, v, 2);
    } else if (v <= 0xffffffffu) {
        w_u8(b, 0xce);
        put_be(b, v, 4);
    } else {
        w_u8(b, 0xcf);
        put_be(b, v, 8);
    }
}
static void w_str(buf *b, const char *s)
{
    size_t n = strlen(s);
    if (n < 32)
        w_u8(b, (uint8_t)(0xa0 | n));
    else {
        w_u8(b, 0xd9);
        put_be(b, n, 1);
    }
    put(b, s, n);
}
static void w_map(buf *b, uint32_t n)
{
    if (n < 16)
        w_u8(b, (uint8_t)(0x80 | n));
    else {
        w_u8(b, 0xde);
        put_be(b, n, 2);
    }
}
static void w_arr(buf *b, uint32_t n)
{
    if (n < 16)
        w_u8(b, (uint8_t)(0x90 | n));
    else {
        w_u8(b, 0xdc);
        put_be(b, n, 2);
    }
}
static void w_arg(buf *b, unsigned off, unsigned size, const char *kind)
{
    w_map(b, 4);
    w_str(b, ".offset");
    w_uint(b, off);
    w_str(b, ".size");
    w_uint(b, size);
    w_str(b, ".value_kind");
    w_str(b, kind);
    w_str(b, ".name");
    w_str(b, "a");
}

/* A plausible v5 metadata map: one kernel with two explicit and two hidden
 * arguments, plus an unknown key holding nested data. */
static void w_metadata(buf *b)
{
    w_map(b, 4);
    w_str(b, "amdhsa.version");
    w_arr(b, 2);
    w_uint(b, 1);
    w_uint(b, 2);
    w_str(b, "amdhsa.target");
    w_str(b, "amdgcn-amd-amdhsa--gfx90a");
    w_str(b, "amdhsa.printf");
    w_arr(b, 1);
    w_arr(b, 2);
    w_str(b, "x");
    w_map(b, 0);
    w_str(b, "amdhsa.kernels");
    w_arr(b, 1);
    w_map(b, 12);
    w_str(b, ".name");
    w_str(b, "k");
    w_str(b, ".symbol");
    w_str(b, "k.kd");
    w_str(b, ".kernarg_segment_size");
    w_uint(b, 288);
    w_str(b, ".kernarg_segment_align");
    w_uint(b, 8);
    w_str(b, ".group_segment_fixed_size");
    w_uint(b, 1024);
    w_str(b, ".private_segment_fixed_size");
    w_uint(b, 16);
    w_str(b, ".sgpr_count");
    w_uint(b, 20);
    w_str(b, ".vgpr_count");
    w_uint(b, 300);
    w_str(b, ".max_flat_workgroup_size");
    w_uint(b, 256);
    w_str(b, ".wavefront_size");
    w_uint(b, 64);
    w_str(b, ".uses_dynamic_stack");
    w_u8(b, 0xc2);
    w_str(b, ".args");
    w_arr(b, 4);
    w_arg(b, 0, 8, "global_buffer");
    w_arg(b, 16, 4, "hidden_block_count_x");
    w_arg(b, 8, 4, "by_value");
    w_arg(b, 280, 8, "hidden_heap_v1");
}

static void test_msgpack(void)
{
    static const struct {
        uint8_t in[12];
        size_t n;
        hw_mp_type t;
        uint64_t u;
        int64_t i;
    } ok[] = {
        { { 0x05 }, 1, HW_MP_UINT, 5, 5 },
        { { 0xff }, 1, HW_MP_INT, 0, -1 },
        { { 0xcc, 0xfe }, 2, HW_MP_UINT, 254, 254 },
        { { 0xcd, 0x12, 0x34 }, 3, HW_MP_UINT, 0x1234, 0x1234 },
        { { 0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
          9,
          HW_MP_UINT,
          UINT64_MAX,
          INT64_MAX },
        { { 0xd0, 0x80 }, 2, HW_MP_INT, 0, -128 },
        { { 0xd1, 0xff, 0x00 }, 3, HW_MP_INT, 0, -256 },
        { { 0xd2, 0x00, 0x00, 0x00, 0x07 }, 5, HW_MP_UINT, 7, 7 },
        { { 0xd3, 0x80, 0, 0, 0, 0, 0, 0, 0 }, 9, HW_MP_INT, 0, INT64_MIN },
        { { 0xc0 }, 1, HW_MP_NIL, 0, 0 },
        { { 0xc3 }, 1, HW_MP_BOOL, 0, 0 },
    };
    for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++) {
        hw_mp_reader r;
        hw_mp_obj o;
        hw_mp_init(&r, ok[k].in, ok[k].n);
        int rc = hw_mp_read(&r, &o);
        CHECK(rc == 0 && o.type == ok[k].t && r.p == r.end, "case %zu rc %d type %d", k, rc,
              (int)o.type);
        if (ok[k].t == HW_MP_UINT)
            CHECK(o.u == ok[k].u, "case %zu u %llu", k, (unsigned long long)o.u);
        if (ok[k].t == HW_MP_INT || ok[k].t == HW_MP_UINT)
            CHECK(o.i == ok[k].i, "case %zu i %lld", k, (long long)o.i);
        /* Every proper prefix is truncated. */
        for (size_t cut = 0; cut < ok[k].n; cut++) {
            hw_mp_init(&r, ok[k].in, cut);
            CHECK(hw_mp_read(&r, &o) == HW_MP_ETRUNC, "case %zu cut %zu", k, cut);
        }
    }
    /* Floats, both widths. */
    {
        const uint8_t f32[] = { 0xca, 0x3f, 0xc0, 0x00, 0x00 }; /* 1.5f */
        const uint8_t f64[] = { 0xcb, 0x40, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18 };
        hw_mp_reader r;
        hw_mp_obj o;
        hw_mp_init(&r, f32, sizeof f32);
        CHECK(hw_mp_read(&r, &o) == 0 && o.type == HW_MP_FLOAT && o.f == 1.5, "f32");
        hw_mp_init(&r, f64, sizeof f64);
        CHECK(hw_mp_read(&r, &o) == 0 && o.f > 3.14159 && o.f < 3.1416, "f64");
    }
    /* Strings, bin, ext; lengths past the end. */
    {
        const uint8_t s16[] = { 0xda, 0x00, 0x03, 'a', 'b', 'c' };
        const uint8_t s32_huge[] = { 0xdb, 0xff, 0xff, 0xff, 0xff, 'a' };
        const uint8_t bin8[] = { 0xc4, 0x02, 1, 2 };
        const uint8_t fixext4[] = { 0xd6, 0x05, 1, 2, 3, 4 };
        const uint8_t ext8[] = { 0xc7, 0x01, 0xfe, 9 };
        hw_mp_reader r;
        hw_mp_obj o;
        hw_mp_init(&r, s16, sizeof s16);
        CHECK(hw_mp_read(&r, &o) == 0 && hw_mp_str_eq(&o, "abc"), "str16");
        hw_mp_init(&r, s32_huge, sizeof s32_huge);
        CHECK(hw_mp_read(&r, &o) == HW_MP_ETRUNC, "str32 with 4 GiB length");
        hw_mp_init(&r, bin8, sizeof bin8);
        CHECK(hw_mp_read(&r, &o) == 0 && o.type == HW_MP_BIN && o.len == 2, "bin8");
        hw_mp_init(&r, fixext4, sizeof fixext4);
        CHECK(hw_mp_read(&r, &o) == 0 && o.type == HW_MP_EXT && o.ext_type == 5 && o.len == 4 &&
                  o.data[3] == 4,
              "fixext4");
        hw_mp_init(&r, ext8, sizeof ext8);
        CHECK(hw_mp_read(&r, &o) == 0 && o.ext_type == -2 && o.len == 1 && o.data[0] == 9, "ext8");
    }
    /* Bad byte, huge counts, deep nesting. */
    {
        const uint8_t c1[] = { 0xc1 };
        const uint8_t arr32[] = { 0xdd, 0xff, 0xff, 0xff, 0xff, 0x01 };
        const uint8_t map16[] = { 0xde, 0x00, 0x02, 0x01, 0x02, 0x03 };
        hw_mp_reader r;
        hw_mp_obj o;
        hw_mp_init(&r, c1, 1);
        CHECK(hw_mp_read(&r, &o) == HW_MP_EBADBYTE, "0xc1");
        hw_mp_init(&r, arr32, sizeof arr32);
        CHECK(hw_mp_read(&r, &o) == HW_MP_ECOUNT, "array32 of 4G elements");
        hw_mp_init(&r, map16, sizeof map16);
        CHECK(hw_mp_read(&r, &o) == HW_MP_ECOUNT, "map16 of 2 pairs in 3 bytes");
        uint8_t deep[200];
        memset(deep, 0x91, sizeof deep); /* [[[[...]]]] */
        deep[sizeof deep - 1] = 0x00;
        hw_mp_init(&r, deep, sizeof deep);
        CHECK(hw_mp_skip(&r, HW_MP_MAX_DEPTH) == HW_MP_EDEPTH, "deep nesting");
        hw_mp_init(&r, deep + sizeof deep - 10, 10);
        CHECK(hw_mp_skip(&r, HW_MP_MAX_DEPTH) == 0 && r.p == r.end, "shallow nesting");
    }
}

static int decode(const buf *b, hw_cob_metadata *m, hw_cob_err *err)
{
    return hw_cob_metadata_decode(b->d, b->n, m, err);
}

static void expect_err(const buf *b, int want, const char *substr, const char *what)
{
    hw_cob_metadata m;
    memset(&m, 0xab, sizeof m);
    hw_cob_metadata before = m;
    hw_cob_err err = { { 0 } };
    int rc = decode(b, &m, &err);
    CHECK(rc == want, "%s: rc %d want %d (%s)", what, rc, want, err.msg);
    CHECK(err.msg[0] && (!substr || strstr(err.msg, substr)), "%s: message '%s' lacks '%s'", what,
          err.msg, substr ? substr : "");
    CHECK(memcmp(&m, &before, sizeof m) == 0, "%s: out-param touched", what);
    if (rc == 0)
        hw_cob_metadata_free(&m);
}

static void test_metadata(void)
{
    buf *b = calloc(1, sizeof *b);
    if (!b)
        abort();
    w_metadata(b);
    hw_cob_metadata m;
    hw_cob_err err = { { 0 } };
    int rc = decode(b, &m, &err);
    CHECK(rc == 0, "valid metadata: %s", err.msg);
    if (rc == 0) {
        CHECK(m.version_major == 1 && m.version_minor == 2, "version");
        CHECK(strcmp(m.target, "amdgcn-amd-amdhsa--gfx90a") == 0, "target");
        CHECK(m.nkernels == 1, "nkernels");
        const hw_cob_kernel *k = hw_cob_find_kernel(&m, "k");
        CHECK(k && k == hw_cob_find_kernel(&m, "k.kd"), "find");
        if (k) {
            CHECK(k->nargs == 2 && k->nhidden == 2, "partition %u/%u", k->nargs, k->nhidden);
            CHECK(k->args[0].offset == 0 && k->args[0].kind == HW_COB_ARG_GLOBAL_BUFFER &&
                      k->args[1].offset == 8 && k->args[1].kind == HW_COB_ARG_BY_VALUE,
                  "visible order");
            CHECK(k->hidden[0].offset == 16 && k->hidden[1].offset == 280 &&
                      k->hidden[1].kind == HW_COB_ARG_HIDDEN &&
                      strcmp(k->hidden[1].value_kind, "hidden_heap_v1") == 0,
                  "hidden order");
            CHECK(k->explicit_size == 12 && k->kernarg_segment_size == 288 &&
                      k->group_segment_fixed_size == 1024 && k->vgpr_count == 300 &&
                      k->max_flat_workgroup_size == 256 && k->wavefront_size == 64 &&
                      k->private_segment_fixed_size == 16 && k->sgpr_count == 20,
                  "kernel fields");
            CHECK(k->args[0].name && strcmp(k->args[0].name, "a") == 0 &&
                      k->args[0].type_name == NULL,
                  "arg strings");
        }
        hw_cob_metadata_free(&m);
    }
    /* Every truncation of the valid map fails cleanly. */
    size_t full = b->n;
    for (size_t cut = 0; cut < full; cut++) {
        b->n = cut;
        rc = decode(b, &m, &err);
        CHECK(rc != 0, "truncated at %zu accepted", cut);
        if (rc == 0)
            hw_cob_metadata_free(&m);
    }

    /* Wrong types. */
    b->n = 0;
    w_map(b, 2);
    w_str(b, "amdhsa.version");
    w_arr(b, 2);
    w_uint(b, 1);
    w_uint(b, 1);
    w_str(b, "amdhsa.kernels");
    w_arr(b, 1);
    w_map(b, 4);
    w_str(b, ".name");
    w_str(b, "k");
    w_str(b, ".symbol");
    w_str(b, "k.kd");
    w_str(b, ".kernarg_segment_size");
    w_uint(b, 8);
    w_str(b, ".args");
    w_arr(b, 1);
    w_map(b, 3);
    w_str(b, ".offset");
    w_str(b, "zero");
    w_str(b, ".size");
    w_uint(b, 8);
    w_str(b, ".value_kind");
    w_str(b, "by_value");
    expect_err(b, HW_COB_EFORMAT, "args[0].offset: expected unsigned integer, got string",
               "offset as string");

    b->n = 0;
    w_map(b, 1);
    w_str(b, "amdhsa.kernels");
    w_map(b, 0);
    expect_err(b, HW_COB_EFORMAT, "expected array, got map", "kernels as map");

    b->n = 0;
    w_arr(b, 0);
    expect_err(b, HW_COB_EFORMAT, "expected map", "root array");

    b->n = 0;
    w_map(b, 1);
    w_uint(b, 3);
    w_uint(b, 4);
    expect_err(b, HW_COB_EFORMAT, "root key", "integer key");

    /* Argument past the kernarg segment. */
    b->n = 0;
    w_map(b, 2);
    w_str(b, "amdhsa.version");
    w_arr(b, 2);
    w_uint(b, 1);
    w_uint(b, 1);
    w_str(b, "amdhsa.kernels");
    w_arr(b, 1);
    w_map(b, 4);
    w_str(b, ".name");
    w_str(b, "k");
    w_str(b, ".symbol");
    w_str(b, "k.kd");
    w_str(b, ".kernarg_segment_size");
    w_uint(b, 8);
    w_str(b, ".args");
    w_arr(b, 1);
    w_arg(b, 0xfffffff0u, 0x20, "by_value");
    expect_err(b, HW_COB_EFORMAT, "past kernarg_segment_size", "arg past segment");

    /* Missing required fields. */
    b->n = 0;
    w_map(b, 2);
    w_str(b, "amdhsa.version");
    w_arr(b, 2);
    w_uint(b, 1);
    w_uint(b, 1);
    w_str(b, "amdhsa.kernels");
    w_arr(b, 1);
    w_map(b, 1);
    w_str(b, ".symbol");
    w_str(b, "k.kd");
    expect_err(b, HW_COB_EFORMAT, "missing .name", "no name");

    b->n = 0;
    w_map(b, 0);
    expect_err(b, HW_COB_EFORMAT, "no amdhsa.version", "empty map");

    /* 32-bit fields that do not fit. */
    b->n = 0;
    w_map(b, 2);
    w_str(b, "amdhsa.version");
    w_arr(b, 2);
    w_uint(b, 1);
    w_uint(b, 1);
    w_str(b, "amdhsa.kernels");
    w_arr(b, 1);
    w_map(b, 1);
    w_str(b, ".vgpr_count");
    w_uint(b, 1ull << 40);
    expect_err(b, HW_COB_ELIMIT, "does not fit 32 bits", "40-bit count");

    /* Huge counts claimed by a short input. */
    b->n = 0;
    w_map(b, 1);
    w_str(b, "amdhsa.kernels");
    w_u8(b, 0xdd);
    put_be(b, 0xffffffffu, 4);
    expect_err(b, HW_COB_ELIMIT, "count exceeds", "4G kernels");

    b->n = 0;
    w_u8(b, 0xdf);
    put_be(b, 0x7fffffffu, 4);
    expect_err(b, HW_COB_ELIMIT, "count exceeds", "2G-pair root map");

    /* Deep nesting under an unknown key. */
    b->n = 0;
    w_map(b, 1);
    w_str(b, "amdhsa.x");
    for (int k = 0; k < 100; k++)
        w_arr(b, 1);
    w_uint(b, 0);
    expect_err(b, HW_COB_ELIMIT, "nesting too deep", "deep unknown value");

    /* Duplicate .args would leak or confuse: refused. */
    b->n = 0;
    w_map(b, 2);
    w_str(b, "amdhsa.version");
    w_arr(b, 2);
    w_uint(b, 1);
    w_uint(b, 1);
    w_str(b, "amdhsa.kernels");
    w_arr(b, 1);
    w_map(b, 5);
    w_str(b, ".name");
    w_str(b, "k");
    w_str(b, ".symbol");
    w_str(b, "k.kd");
    w_str(b, ".kernarg_segment_size");
    w_uint(b, 8);
    w_str(b, ".args");
    w_arr(b, 0);
    w_str(b, ".args");
    w_arr(b, 0);
    expect_err(b, HW_COB_EFORMAT, "given twice", "duplicate args");

    /* NUL inside a string. */
    b->n = 0;
    w_map(b, 2);
    w_str(b, "amdhsa.version");
    w_arr(b, 2);
    w_uint(b, 1);
    w_uint(b, 1);
    w_str(b, "amdhsa.target");
    w_u8(b, 0xa3);
    put(b, "a\0b", 3);
    expect_err(b, HW_COB_EFORMAT, "NUL", "NUL in string");
    free(b);
}

/* ---- ELF ---- */
static void put_le(uint8_t *p, uint64_t v, int n)
{
    for (int k = 0; k < n; k++)
        p[k] = (uint8_t)(v >> (8 * k));
}

/* A minimal code object: ELF header, one PT_NOTE header, one note area
 * holding a foreign note then the AMDGPU metadata note. Returns its size. */
static size_t make_elf(uint8_t *e, size_t cap, const buf *md)
{
    memset(e, 0, cap);
    memcpy(e,
           "\x7f"
           "ELF",
           4);
    e[4] = 2;
    e[5] = 1;
    e[6] = 1;
    e[7] = 64;
    e[8] = 3;               /* HSA, v5 */
    put_le(e + 16, 3, 2);   /* ET_DYN */
    put_le(e + 18, 224, 2); /* EM_AMDGPU */
    put_le(e + 20, 1, 4);
    put_le(e + 32, 64, 8);   /* e_phoff */
    put_le(e + 48, 0x30, 4); /* e_flags: gfx90a */
    put_le(e + 52, 64, 2);
    put_le(e + 54, 56, 2);
    put_le(e + 56, 1, 2); /* one phdr */
    put_le(e + 58, 64, 2);
    size_t notes = 64 + 56, pos = notes;
    /* A GNU note first, to be skipped. */
    put_le(e + pos, 4, 4);
    put_le(e + pos + 4, 4, 4);
    put_le(e + pos + 8, 3, 4);
    memcpy(e + pos + 12, "GNU", 4);
    pos += 12 + 4 + 4;
    put_le(e + pos, 7, 4);
    put_le(e + pos + 4, md->n, 4);
    put_le(e + pos + 8, 32, 4);
    memcpy(e + pos + 12, "AMDGPU", 7);
    memcpy(e + pos + 20, md->d, md->n);
    pos += 20 + ((md->n + 3) & ~(size_t)3);
    uint8_t *ph = e + 64;
    put_le(ph, 4, 4); /* PT_NOTE */
    put_le(ph + 8, notes, 8);
    put_le(ph + 32, pos - notes, 8);
    put_le(ph + 40, pos - notes, 8);
    put_le(ph + 48, 4, 8);
    return pos;
}

static void test_elf(void)
{
    buf *md = calloc(1, sizeof *md);
    uint8_t *e = malloc(1 << 17);
    if (!md || !e)
        abort();
    w_metadata(md);
    size_t n = make_elf(e, 1 << 17, md);
    hw_cob_metadata m;
    hw_cob_err err = { { 0 } };
    int rc = hw_cob_elf_metadata(e, n, &m, &err);
    CHECK(rc == 0, "synthetic ELF: %s", err.msg);
    if (!rc) {
        CHECK(m.code_object_version == 5 && m.e_flags == 0x30 && m.nkernels == 1, "ELF fields");
        hw_cob_metadata_free(&m);
    }
    uint64_t sz = 0;
    CHECK(hw_cob_image_size(e, n, &sz, &err) == 0 && sz == n, "ELF size %llu",
          (unsigned long long)sz);
    /* Every truncation. */
    for (size_t cut = 0; cut < n; cut++) {
        rc = hw_cob_elf_metadata(e, cut, &m, &err);
        CHECK(rc < 0 && err.msg[0], "ELF cut at %zu accepted", cut);
        if (rc == 0)
            hw_cob_metadata_free(&m);
    }
    /* Note sizes past the end. */
    size_t amd = 64 + 56 + 20;
    uint8_t save[12];
    memcpy(save, e + amd, 12);
    put_le(e + amd + 4, 0xfffffff0u, 4);
    CHECK(hw_cob_elf_metadata(e, n, &m, &err) == HW_COB_ETRUNC, "descsz huge: %s", err.msg);
    memcpy(e + amd, save, 12);
    put_le(e + amd, 0xffffffffu, 4);
    CHECK(hw_cob_elf_metadata(e, n, &m, &err) == HW_COB_ETRUNC, "namesz huge: %s", err.msg);
    memcpy(e + amd, save, 12);
    put_le(e + 64 + 32, 1ull << 40, 8); /* p_filesz */
    CHECK(hw_cob_elf_metadata(e, n, &m, &err) == HW_COB_ETRUNC, "segment past end: %s", err.msg);
    put_le(e + 64 + 32, n - 120, 8);
    put_le(e + 56, 0xffff, 2); /* e_phnum */
    CHECK(hw_cob_elf_metadata(e, n, &m, &err) == HW_COB_ETRUNC, "phnum: %s", err.msg);
    put_le(e + 56, 1, 2);
    put_le(e + amd + 8, 33, 4); /* not the metadata type */
    CHECK(hw_cob_elf_metadata(e, n, &m, &err) == HW_COB_ENOTFOUND, "no note: %s", err.msg);
    put_le(e + amd + 8, 32, 4);
    put_le(e + 18, 62, 2); /* x86-64 */
    CHECK(hw_cob_elf_metadata(e, n, &m, &err) == HW_COB_EFORMAT && strstr(err.msg, "EM_AMDGPU"),
          "machine: %s", err.msg);
    put_le(e + 18, 224, 2);
    e[4] = 1;
    CHECK(hw_cob_elf_metadata(e, n, &m, &err) == HW_COB_EFORMAT, "32-bit: %s", err.msg);
    e[4] = 2;
    CHECK(hw_cob_elf_metadata(e, n, &m, &err) == 0, "restored");
    hw_cob_metadata_free(&m);
    free(md);
    free(e);
}

/* ---- ELF symbols ---- */

/* A code object with sections: .data (16 bytes at 0x1000), .bss (32 bytes
 * at 0x2000), .symtab (5 entries), .strtab. Returns its size. */
#define SYM_DATA 64
#define SYM_TAB  80
#define SYM_STR  200
#define SYM_SHDR 224
static const char sym_strtab[] = "\0tab\0zeros\0fn\0undef";
static size_t make_sym_elf(uint8_t *e)
{
    memset(e, 0, 1024);
    memcpy(e,
           "\x7f"
           "ELF",
           4);
    e[4] = 2;
    e[5] = 1;
    e[6] = 1;
    e[7] = 64;
    e[8] = 2;
    put_le(e + 16, 3, 2);
    put_le(e + 18, 224, 2);
    put_le(e + 40, SYM_SHDR, 8); /* e_shoff */
    put_le(e + 52, 64, 2);
    put_le(e + 58, 64, 2);
    put_le(e + 60, 5, 2); /* e_shnum */
    for (int i = 0; i < 16; i++)
        e[SYM_DATA + i] = (uint8_t)(i + 1);
    /* name, info (bind << 4 | type), shndx, value, size */
    const struct {
        uint32_t name;
        uint8_t info;
        uint16_t shndx;
        uint64_t value, size;
    } syms[5] = {
        { 0, 0, 0, 0, 0 },          { 1, 0x11, 1, 0x1004, 8 }, /* tab: GLOBAL OBJECT in .data */
        { 5, 0x11, 2, 0x2000, 32 },                            /* zeros: GLOBAL OBJECT in .bss */
        { 11, 0x12, 1, 0x1000, 4 },                            /* fn: GLOBAL FUNC */
        { 14, 0x11, 0, 0, 8 },                                 /* undef: undefined */
    };
    for (int k = 0; k < 5; k++) {
        uint8_t *p = e + SYM_TAB + 24 * k;
        put_le(p, syms[k].name, 4);
        p[4] = syms[k].info;
        put_le(p + 6, syms[k].shndx, 2);
        put_le(p + 8, syms[k].value, 8);
        put_le(p + 16, syms[k].size, 8);
    }
    memcpy(e + SYM_STR, sym_strtab, sizeof sym_strtab);
    /* type, addr, offset, size, link, entsize */
    const struct {
        uint32_t type;
        uint64_t addr, off, size;
        uint32_t link;
        uint64_t entsize;
    } sh[5] = {
        { 0, 0, 0, 0, 0, 0 },
        { 1, 0x1000, SYM_DATA, 16, 0, 0 },          /* .data PROGBITS */
        { 8, 0x2000, 0, 32, 0, 0 },                 /* .bss NOBITS */
        { 2, 0, SYM_TAB, 5 * 24, 4, 24 },           /* .symtab */
        { 3, 0, SYM_STR, sizeof sym_strtab, 0, 0 }, /* .strtab */
    };
    for (int k = 0; k < 5; k++) {
        uint8_t *p = e + SYM_SHDR + 64 * k;
        put_le(p + 4, sh[k].type, 4);
        put_le(p + 16, sh[k].addr, 8);
        put_le(p + 24, sh[k].off, 8);
        put_le(p + 32, sh[k].size, 8);
        put_le(p + 40, sh[k].link, 4);
        put_le(p + 56, sh[k].entsize, 8);
    }
    return SYM_SHDR + 5 * 64;
}

static int count_symbol(void *arg, const hw_cob_symbol *sym)
{
    (void)sym;
    ++*(int *)arg;
    return 0;
}

static void test_symbols(void)
{
    uint8_t *e = malloc(1024), *orig = malloc(1024);
    if (!e || !orig)
        abort();
    size_t n = make_sym_elf(orig);
    memcpy(e, orig, n);
    hw_cob_err err = { { 0 } };
    hw_cob_symbol sym;
    CHECK(hw_cob_elf_find_object(e, n, "tab", &sym, &err) == 0, "tab: %s", err.msg);
    CHECK(sym.size == 8 && sym.value == 0x1004 && sym.init == e + SYM_DATA + 4 &&
              sym.type == HW_COB_STT_OBJECT && sym.bind == 1,
          "tab fields");
    CHECK(hw_cob_elf_find_object(e, n, "zeros", &sym, &err) == 0, "zeros: %s", err.msg);
    CHECK(sym.size == 32 && sym.init == NULL, ".bss object has no initial bytes");
    CHECK(hw_cob_elf_find_object(e, n, "fn", &sym, &err) == HW_COB_ENOTFOUND, "a function");
    CHECK(hw_cob_elf_find_object(e, n, "undef", &sym, &err) == HW_COB_ENOTFOUND, "undefined");
    CHECK(hw_cob_elf_find_object(e, n, "nothing", &sym, &err) == HW_COB_ENOTFOUND &&
              strstr(err.msg, "nothing"),
          "missing: %s", err.msg);
    int count = 0;
    CHECK(hw_cob_elf_symbols(e, n, count_symbol, &count, &err) == 0 && count == 3,
          "walk: %d defined symbols", count);
    for (size_t cut = 0; cut < n; cut++)
        CHECK(hw_cob_elf_find_object(e, cut, "tab", &sym, &err) < 0 && err.msg[0],
              "symbols: cut at %zu accepted", cut);

    /* One corruption at a time; each is refused with its reason. */
    const struct {
        size_t at;
        int width;
        uint64_t value;
        int want;
        const char *what;
    } bad[] = {
        { SYM_SHDR + 3 * 64 + 40, 4, 9, HW_COB_EFORMAT, "link out of range" },
        { SYM_SHDR + 3 * 64 + 40, 4, 1, HW_COB_EFORMAT, "link to a non-string table" },
        { SYM_SHDR + 3 * 64 + 56, 8, 8, HW_COB_EFORMAT, "entry size 8" },
        { SYM_SHDR + 3 * 64 + 32, 8, 1u << 20, HW_COB_ETRUNC, "table past the image" },
        { SYM_SHDR + 4 * 64 + 24, 8, 1u << 30, HW_COB_ETRUNC, "string table past the image" },
        { SYM_STR + sizeof sym_strtab - 1, 1, 'x', HW_COB_EFORMAT, "string table without NUL" },
        { SYM_TAB + 24 + 0, 4, 1000, HW_COB_EFORMAT, "name past the string table" },
        { SYM_TAB + 24 + 6, 2, 7, HW_COB_EFORMAT, "section index out of range" },
        { SYM_TAB + 24 + 16, 8, 13, HW_COB_EFORMAT, "object past its section" },
        { SYM_TAB + 24 + 8, 8, 0xfff, HW_COB_EFORMAT, "object before its section" },
        { SYM_TAB + 24 + 16, 8, UINT64_MAX, HW_COB_EFORMAT, "object size 2^64-1" },
        { SYM_SHDR + 1 * 64 + 24, 8, 1u << 30, HW_COB_ETRUNC, "section data past the image" },
        { SYM_SHDR + 3 * 64 + 4, 4, 1, HW_COB_ENOTFOUND, "no symbol table" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memcpy(e, orig, n);
        put_le(e + bad[i].at, bad[i].value, bad[i].width);
        memset(&err, 0, sizeof err);
        int rc = hw_cob_elf_find_object(e, n, "tab", &sym, &err);
        CHECK(rc == bad[i].want && err.msg[0], "%s: %d (%s), expected %d", bad[i].what, rc, err.msg,
              bad[i].want);
    }
    memcpy(e, orig, n);
    put_le(e + 18, 62, 2); /* x86-64 */
    CHECK(hw_cob_elf_symbols(e, n, count_symbol, &count, &err) == HW_COB_EFORMAT, "machine");
    CHECK(hw_cob_elf_symbols(NULL, n, count_symbol, &count, &err) == HW_COB_EINVAL, "NULL");
    free(e);
    free(orig);
}

/* ---- target IDs ---- */
static void test_targets(void)
{
    int a = 0, b = 0;
    CHECK(hw_cob_target_match("gfx90a", "gfx90a", &a), "same processor");
    CHECK(hw_cob_target_match("gfx90a", "gfx90a:sramecc+:xnack-", &a),
          "any mode on a pinned device");
    CHECK(hw_cob_target_match("gfx90a:xnack-", "gfx90a:sramecc+:xnack-", &b) && b > a,
          "an agreeing pin scores: %d vs %d", b, a);
    CHECK(!hw_cob_target_match("gfx90a:xnack+", "gfx90a:sramecc+:xnack-", NULL), "contradiction");
    CHECK(hw_cob_target_match("gfx90a:xnack+", "gfx90a", &a) && a < 0,
          "a pin the device leaves open costs: %d", a);
    CHECK(!hw_cob_target_match("gfx908", "gfx90a", NULL), "other processor");
    CHECK(!hw_cob_target_match("gfx90", "gfx90a", NULL), "processor prefix");
    CHECK(!hw_cob_target_match("gfx90a", "hipwire-cpu", NULL), "CPU device");
    CHECK(!hw_cob_target_match("gfx90a", "sm_90", NULL), "NVIDIA device");
    CHECK(!hw_cob_target_match("gfx90a", "", NULL) && !hw_cob_target_match(NULL, "gfx90a", NULL),
          "empty and NULL");
    const char *t = hw_cob_target_id("amdgcn-amd-amdhsa--gfx90a:xnack-");
    CHECK(t && strcmp(t, "gfx90a:xnack-") == 0, "metadata triple: %s", t ? t : "NULL");
    t = hw_cob_target_id("hipv4-amdgcn-amd-amdhsa--gfx908");
    CHECK(t && strcmp(t, "gfx908") == 0, "bundle id: %s", t ? t : "NULL");
    CHECK(hw_cob_target_id("host-x86_64-unknown-linux") == NULL, "host id");
    CHECK(hw_cob_target_id(NULL) == NULL, "NULL triple");

    /* ISA versions as ROCm reads them (hipFuncAttributes binaryVersion) */
    static const struct {
        const char *t;
        unsigned major, minor;
    } isa[] = {
        { "amdgcn-amd-amdhsa--gfx90a:xnack-", 9, 0 },
        { "gfx1030", 10, 3 },
        { "gfx942:sramecc+", 9, 4 },
        { "hipv4-amdgcn-amd-amdhsa--gfx1100", 11, 0 },
        { "gfx803", 8, 0 },
    };
    for (size_t i = 0; i < sizeof isa / sizeof isa[0]; i++) {
        unsigned ma = 99, mi = 99;
        CHECK(hw_cob_isa_version(isa[i].t, &ma, &mi) && ma == isa[i].major && mi == isa[i].minor,
              "isa of %s: %u.%u", isa[i].t, ma, mi);
    }
    unsigned ma = 7, mi = 7;
    CHECK(!hw_cob_isa_version(NULL, &ma, &mi) && !hw_cob_isa_version("sm_90", &ma, &mi) &&
              !hw_cob_isa_version("gfx9", &ma, &mi) && !hw_cob_isa_version("gfxa0a", &ma, &mi),
          "not an ISA accepted");
    CHECK(ma == 7 && mi == 7, "outputs written on failure");
}

/* ---- bundles ---- */
static size_t make_bundle(uint8_t *p, size_t cap, const char **ids, int n, const uint64_t *sizes)
{
    memset(p, 0, cap);
    memcpy(p, "__CLANG_OFFLOAD_BUNDLE__", 24);
    put_le(p + 24, (uint64_t)n, 8);
    size_t pos = 32, data = 4096;
    for (int k = 0; k < n; k++) {
        size_t l = strlen(ids[k]);
        put_le(p + pos, sizes[k] ? data : 4096, 8);
        put_le(p + pos + 8, sizes[k], 8);
        put_le(p + pos + 16, l, 8);
        memcpy(p + pos + 24, ids[k], l);
        pos += 24 + l;
        for (uint64_t j = 0; j < sizes[k]; j++)
            p[data + j] = (uint8_t)(k + 1);
        data += (sizes[k] + 4095) / 4096 * 4096;
    }
    return data;
}

static void test_bundle(void)
{
    const char *ids[] = { "host-x86_64-unknown-linux", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+",
                          "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-",
                          "hipv4-amdgcn-amd-amdhsa--gfx90a",
                          "hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-" };
    const uint64_t sizes[] = { 0, 100, 200, 300, 400 };
    size_t cap = 6 * 4096;
    uint8_t *p = malloc(cap);
    if (!p)
        abort();
    size_t n = make_bundle(p, cap, ids, 5, sizes);
    size_t end = 4 * 4096 + 400; /* last entry's end */
    hw_cob_bundle b;
    hw_cob_err err = { { 0 } };
    uint64_t sz = 0;
    CHECK(hw_cob_image_size(p, SIZE_MAX, &sz, &err) == 0 && sz == end, "bundle size %llu want %zu",
          (unsigned long long)sz, end);
    int rc = hw_cob_bundle_open(p, n, 0, &b, &err);
    CHECK(rc == 0, "bundle: %s", err.msg);
    if (!rc) {
        CHECK(b.nentries == 5 && b.entries[0].is_host && !b.entries[0].is_amdgcn, "entries");
        const hw_cob_entry *e;
        e = hw_cob_bundle_find(&b, "gfx90a");
        CHECK(e && e->size == 300, "plain gfx90a -> any-mode entry");
        e = hw_cob_bundle_find(&b, "gfx90a:xnack+");
        CHECK(e && e->size == 100, "xnack+");
        e = hw_cob_bundle_find(&b, "gfx90a:sramecc+:xnack-");
        CHECK(e && e->size == 200, "xnack-");
        e = hw_cob_bundle_find(&b, "gfx942:sramecc-");
        CHECK(e == NULL, "sramecc contradiction");
        e = hw_cob_bundle_find(&b, "gfx942");
        CHECK(e && e->size == 400 && strcmp(e->target_id, "gfx942:sramecc+:xnack-") == 0,
              "gfx942 pinned entry");
        CHECK(hw_cob_bundle_find(&b, "gfx90") == NULL, "prefix must not match");
        CHECK(hw_cob_entry_data(&b, e)[0] == 5, "entry data");
        hw_cob_bundle_close(&b);
    }
    for (size_t cut = 0; cut < end; cut += (cut < 400 ? 1 : 509)) {
        rc = hw_cob_bundle_open(p, cut, 0, &b, &err);
        CHECK(rc < 0 && err.msg[0], "bundle cut at %zu accepted", cut);
        if (!rc)
            hw_cob_bundle_close(&b);
    }
    /* Hostile headers. */
    uint8_t *q = malloc(cap);
    if (!q)
        abort();
    memcpy(q, p, cap);
    put_le(q + 24, 1ull << 40, 8);
    CHECK(hw_cob_bundle_open(q, n, 0, &b, &err) == HW_COB_ELIMIT, "count: %s", err.msg);
    put_le(q + 24, 0, 8);
    CHECK(hw_cob_bundle_open(q, n, 0, &b, &err) == HW_COB_EFORMAT, "zero count");
    memcpy(q, p, cap);
    put_le(q + 32 + 16, 1ull << 33, 8); /* id length */
    CHECK(hw_cob_bundle_open(q, n, 0, &b, &err) == HW_COB_ELIMIT, "id len: %s", err.msg);
    memcpy(q, p, cap);
    put_le(q + 32, UINT64_MAX - 4, 8); /* offset overflow */
    put_le(q + 40, 16, 8);
    CHECK(hw_cob_bundle_open(q, n, 0, &b, &err) == HW_COB_EFORMAT, "overflow: %s", err.msg);
    memcpy(q, p, cap);
    put_le(q + 32, 1ull << 20, 8);
    put_le(q + 40, 16, 8);
    CHECK(hw_cob_bundle_open(q, n, 0, &b, &err) == HW_COB_ETRUNC, "past end: %s", err.msg);
    CHECK(hw_cob_image_size(q, SIZE_MAX, &sz, &err) == 0 && sz == (1u << 20) + 16,
          "size from headers alone");
    memcpy(q, p, cap);
    q[32 + 24 + 3] = 0; /* NUL inside id */
    CHECK(hw_cob_bundle_open(q, n, 0, &b, &err) == HW_COB_EFORMAT, "NUL id");
    free(q);

    /* CCOB headers. */
    uint8_t c[64];
    memset(c, 0, sizeof c);
    memcpy(c, "CCOB", 4);
    hw_cob_ccob_header h;
    put_le(c + 4, 9, 2);
    CHECK(hw_cob_ccob_header_parse(c, sizeof c, &h, &err) == HW_COB_ENOTSUP &&
              strstr(err.msg, "version 9"),
          "ccob version: %s", err.msg);
    put_le(c + 4, 3, 2);
    put_le(c + 6, 7, 2);
    put_le(c + 8, 64, 8);
    CHECK(hw_cob_ccob_header_parse(c, sizeof c, &h, &err) == HW_COB_ENOTSUP &&
              strstr(err.msg, "method 7"),
          "ccob method: %s", err.msg);
    put_le(c + 6, HW_COB_CCOB_ZSTD, 2);
    put_le(c + 8, 8, 8);
    CHECK(hw_cob_ccob_header_parse(c, sizeof c, &h, &err) == HW_COB_EFORMAT, "total < header");
    put_le(c + 8, 64, 8);
    put_le(c + 16, 1ull << 50, 8);
    CHECK(hw_cob_bundle_open(c, sizeof c, 0, &b, &err) == HW_COB_ELIMIT, "huge: %s", err.msg);
    put_le(c + 16, 4096, 8);
    rc = hw_cob_bundle_open(c, sizeof c, 0, &b, &err);
    CHECK(rc == (hw_cob_ccob_method_supported(HW_COB_CCOB_ZSTD) ? HW_COB_EFORMAT : HW_COB_ENOTSUP),
          "garbage zstd: %d %s", rc, err.msg);
    put_le(c + 8, 65, 8);
    CHECK(hw_cob_bundle_open(c, sizeof c, 0, &b, &err) == HW_COB_ETRUNC, "total past len");
    CHECK(hw_cob_image_size(c, sizeof c, &sz, &err) == HW_COB_ETRUNC, "size past len");
    CHECK(hw_cob_ccob_header_parse(c, 20, &h, &err) == HW_COB_ETRUNC, "short v3 header");
    printf("zstd %s, zlib %s in this build\n",
           hw_cob_ccob_method_supported(HW_COB_CCOB_ZSTD) ? "yes" : "no",
           hw_cob_ccob_method_supported(HW_COB_CCOB_ZLIB) ? "yes" : "no");
    free(p);
}

static void test_wrapper(void)
{
    static const char image[] = "x";
    hw_hip_fatbin_wrapper w = { HW_HIP_FATBIN_MAGIC, 1, image, NULL };
    const void *bin = NULL;
    hw_cob_err err = { { 0 } };
    CHECK(hw_cob_wrapper_binary(&w, &bin, &err) == 0 && bin == image, "wrapper");
    w.magic = HW_HIP_FATBIN_MAGIC_ALT;
    CHECK(hw_cob_wrapper_binary(&w, &bin, &err) == 0, "alt magic");
    w.version = 2;
    bin = NULL;
    CHECK(hw_cob_wrapper_binary(&w, &bin, &err) == HW_COB_ENOTSUP && bin == NULL, "version 2: %s",
          err.msg);
    w.version = 1;
    w.magic = 0x466243b1; /* CUDA's fatbin wrapper magic */
    CHECK(hw_cob_wrapper_binary(&w, &bin, &err) == HW_COB_EFORMAT && strstr(err.msg, "HIPF"),
          "CUDA magic: %s", err.msg);
    w.magic = HW_HIP_FATBIN_MAGIC;
    w.binary = NULL;
    CHECK(hw_cob_wrapper_binary(&w, &bin, &err) == HW_COB_EFORMAT, "NULL binary");
    CHECK(hw_cob_image_size(image, sizeof image, &(uint64_t){ 0 }, &err) == HW_COB_EFORMAT,
          "unknown image kind");
}

int main(void)
{
    test_msgpack();
    test_metadata();
    test_elf();
    test_symbols();
    test_targets();
    test_bundle();
    test_wrapper();
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}
