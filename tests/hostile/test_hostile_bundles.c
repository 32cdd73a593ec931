/*
 * test_hostile_bundles - forged offload bundles, compressed bundles and AMD
 * code objects against a real CPU-device worker, in raw HIPR.
 *
 *   test_hostile_bundles BUNDLE CODE_OBJECT
 *
 * BUNDLE and CODE_OBJECT are hipcc's output for module_kernels.hip (a
 * gfx908+gfx90a offload bundle, and its gfx90a entry). The real ones load
 * as foreign modules (the CPU device runs no AMD code); every mutilated one
 * gets an error status, and the session carries on (PING answers, the real
 * module still works). A worker that read past an image would crash the
 * session (EOF here) or trip ASan in the sanitizer build. The worker runs
 * with --mem-limit=2M: a variable larger than that is refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostile_ops.h"
#include "hw_status.h"

static struct raw_conn conn;

static void alive(const char *what)
{
    int32_t async = 0;
    EXPECT(op_ping(&conn, &async) == 0, "%s: the session did not survive", what);
}

static void expect_refused(const void *img, size_t n, const char *what)
{
    uint64_t mod = 0;
    uint32_t flags = 0;
    int st = op_module_load_ex(&conn, img, n, 0, &mod, &flags);
    EXPECT(st > 0, "%s: status %d, expected an error%s", what, st,
           st == RAW_EOF ? " (session died)"
           : st == 0     ? " (it loaded)"
                         : "");
    alive(what);
}

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Offsets of entry k's header fields (offset, size, id length). */
static size_t entry_field(const uint8_t *b, unsigned k)
{
    size_t pos = 32;
    for (unsigned i = 0; i < k; i++)
        pos += 24 + get64(b + pos + 16);
    return pos;
}

static uint8_t *copy_of(const void *p, size_t n)
{
    uint8_t *c = malloc(n);
    EXPECT(c != NULL, "out of memory");
    memcpy(c, p, n);
    return c;
}

static void real_images(const uint8_t *bundle, size_t blen, const uint8_t *co, size_t colen)
{
    raw_begin("real bundle and code object: foreign modules that resolve and refuse launches");
    const void *images[2] = { bundle, co };
    size_t lens[2] = { blen, colen };
    for (int i = 0; i < 2; i++) {
        uint64_t mod = 0, fn = 0;
        uint32_t flags = 0, args_size = 0;
        EXPECT(op_module_load_ex(&conn, images[i], lens[i], 0, &mod, &flags) == 0, "load %d", i);
        EXPECT(flags == HIPR_MODULE_NO_BINARY, "image %d: flags %u", i, flags);
        EXPECT(op_get_function(&conn, mod, "mk_scalars", &fn, &args_size) == 0, "function");
        EXPECT(args_size == 48, "mk_scalars: %u argument bytes, expected 48", args_size);
        EXPECT(op_get_global(&conn, mod, "mk_table") == 0, "variable");
        EXPECT(op_get_global(&conn, mod, "mk_nothing") == HW_ENOTFOUND, "unknown variable");
        /* 4 MiB of .bss, over the worker's --mem-limit=2M. */
        int st_huge = op_get_global(&conn, mod, "mk_huge");
        EXPECT(st_huge == HW_ENOMEM, "mk_huge over the memory limit: status %d", st_huge);
        uint8_t args[48] = { 0 };
        int st = op_launch(&conn, fn, DEFAULT_STREAM, 0, 0, 1, 1, args, sizeof args);
        EXPECT(st == HW_ENOBINARY, "launch: status %d, expected %d", st, HW_ENOBINARY);
        EXPECT(op_handle(&conn, HIPR_OP_MODULE_UNLOAD, mod) == 0, "unload");
    }
    uint64_t mod;
    EXPECT(op_module_load(&conn, bundle, blen, &mod) == 0, "MODULE_LOAD takes bundles too");
    uint32_t flags;
    EXPECT(op_module_load_ex(&conn, bundle, blen, 1, &mod, &flags) == HW_EINVAL,
           "undefined request flags accepted");
    alive("request flags");
    raw_pass();
}

static void bundles(const uint8_t *bundle, size_t blen)
{
    raw_begin("truncated bundles");
    const size_t cuts[] = { 8, 24, 31, 32, 40, 55, 80, blen / 4, blen / 2, blen - 1 };
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "bundle cut at %zu of %zu", cuts[i], blen);
        expect_refused(bundle, cuts[i], what);
    }
    raw_pass();

    raw_begin("bundles with bogus entry offsets, sizes, counts and id lengths");
    uint64_t count = get64(bundle + 24);
    EXPECT(count == 3, "the bundle has %llu entries, expected 3", (unsigned long long)count);
    const struct {
        const char *what;
        unsigned entry;
        size_t field;
        uint64_t value;
    } bad[] = {
        { "entry 1 offset 2^63", 1, 0, UINT64_C(1) << 63 },
        { "entry 2 offset past the end", 2, 0, blen },
        { "entry 2 offset wraps with its size", 2, 0, UINT64_MAX - 16 },
        { "entry 1 size 2^62", 1, 8, UINT64_C(1) << 62 },
        { "entry 2 size one past the end", 2, 8, 0 /* set below */ },
        { "entry 0 id length 2^40", 0, 16, UINT64_C(1) << 40 },
        { "entry 1 id length past the header", 1, 16, blen },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint8_t *b = copy_of(bundle, blen);
        size_t pos = entry_field(bundle, bad[i].entry) + bad[i].field;
        uint64_t v = bad[i].value;
        if (v == 0) /* entry 2 one byte longer than the image allows */
            v = blen - get64(bundle + entry_field(bundle, 2)) + 1;
        put64(b + pos, v);
        expect_refused(b, blen, bad[i].what);
        free(b);
    }
    uint8_t *b = copy_of(bundle, blen);
    put64(b + 24, UINT64_C(1) << 40);
    expect_refused(b, blen, "entry count 2^40");
    put64(b + 24, 0);
    expect_refused(b, blen, "no entries");
    free(b);

    /* The AMD entries' bytes are not code objects. */
    b = copy_of(bundle, blen);
    for (unsigned k = 1; k <= 2; k++) {
        size_t pos = entry_field(bundle, k);
        memset(b + get64(bundle + pos), 0x5a, get64(bundle + pos + 8));
    }
    expect_refused(b, blen, "entries of garbage");
    free(b);
    raw_pass();
}

static void compressed(const uint8_t *bundle, size_t blen)
{
    raw_begin("compressed bundles: sizes that lie, payloads that are not zstd");
    uint8_t img[4096];
    memset(img, 0x33, sizeof img);
    memcpy(img, "CCOB", 4);
    img[4] = 3, img[5] = 0, img[6] = 1, img[7] = 0; /* v3, zstd */
    put64(img + 8, sizeof img);
    put64(img + 16, UINT64_C(1) << 62);
    put64(img + 24, 0);
    expect_refused(img, sizeof img, "uncompressed size 2^62");
    put64(img + 16, blen);
    expect_refused(img, sizeof img, "a payload that is not a zstd frame");
    put64(img + 8, UINT64_C(1) << 40);
    expect_refused(img, sizeof img, "total size past the image");
    img[6] = 7;
    put64(img + 8, sizeof img);
    expect_refused(img, sizeof img, "unknown compression method");
    expect_refused(img, 20, "header cut short");
    raw_pass();
}

/* The section header of the first section of type t; its offset, or 0. */
static size_t section_of_type(const uint8_t *e, size_t len, uint32_t t)
{
    uint64_t shoff = get64(e + 40);
    unsigned shentsize = e[58] | e[59] << 8, shnum = e[60] | e[61] << 8;
    for (unsigned k = 0; k < shnum; k++) {
        size_t sh = shoff + (size_t)k * shentsize;
        if (sh + 64 <= len && get32(e + sh + 4) == t)
            return sh;
    }
    return 0;
}

static void code_objects(const uint8_t *co, size_t colen)
{
    raw_begin("code objects with broken symbol tables: they load, their variables are refused");
    size_t symtab = section_of_type(co, colen, 2 /* SHT_SYMTAB */);
    EXPECT(symtab != 0, "no .symtab in the code object");
    for (int variant = 0; variant < 3; variant++) {
        uint8_t *e = copy_of(co, colen);
        const char *what;
        if (variant == 0) {
            what = "symbol table linked to no string table";
            e[symtab + 40] = 0xff, e[symtab + 41] = 0xff;
        } else if (variant == 1) {
            what = "symbol table past the image";
            put64(e + symtab + 24, colen - 8);
        } else {
            /* Every symbol claims more bytes than its section has. */
            what = "symbols larger than their sections";
            uint64_t off = get64(co + symtab + 24), size = get64(co + symtab + 32);
            for (uint64_t s = 24; s + 24 <= size; s += 24)
                put64(e + off + s + 16, UINT64_C(1) << 40);
        }
        uint64_t mod = 0, fn = 0;
        uint32_t flags = 0, args_size = 0;
        EXPECT(op_module_load_ex(&conn, e, colen, 0, &mod, &flags) == 0, "%s: load", what);
        EXPECT(op_get_function(&conn, mod, "mk_none", &fn, &args_size) == 0, "%s: function", what);
        int st = op_get_global(&conn, mod, "mk_table");
        EXPECT(st > 0 && st != HW_ENOTFOUND, "%s: variable: status %d, expected an error", what,
               st);
        alive(what);
        EXPECT(op_handle(&conn, HIPR_OP_MODULE_UNLOAD, mod) == 0, "%s: unload", what);
        free(e);
    }
    raw_pass();

    raw_begin("truncated code objects");
    const size_t cuts[] = { 16, 64, colen / 8, colen / 2, colen - 1 };
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "code object cut at %zu of %zu", cuts[i], colen);
        uint64_t mod = 0;
        uint32_t flags = 0;
        int st = op_module_load_ex(&conn, co, cuts[i], 0, &mod, &flags);
        /* A cut that leaves the metadata whole may load; then its
         * variables must still be refused or read in bounds. */
        if (st == 0)
            (void)op_get_global(&conn, mod, "mk_table");
        else
            EXPECT(st > 0, "%s: status %d", what, st);
        alive(what);
    }
    raw_pass();
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_hostile_bundles BUNDLE CODE_OBJECT\n");
        return 2;
    }
    size_t blen = 0, colen = 0;
    uint8_t *bundle = read_file(argv[1], &blen);
    uint8_t *co = read_file(argv[2], &colen);
    if (!bundle || !co || blen < 128 || colen < 128) {
        fprintf(stderr, "cannot read %s and %s\n", argv[1], argv[2]);
        return 1;
    }
    raw_begin("connect");
    EXPECT(raw_connect(&conn) == 0 && raw_hello(&conn) == 0, "cannot start a session");
    raw_pass();
    real_images(bundle, blen, co, colen);
    bundles(bundle, blen);
    compressed(bundle, blen);
    code_objects(co, colen);
    real_images(bundle, blen, co, colen); /* the session still works after all of it */
    raw_close(&conn);
    free(bundle);
    free(co);
    printf("hostile bundles: ok\n");
    return 0;
}
