/*
 * Pins the HIPR wire: every message is encoded with a distinct value in
 * each field and every opcode's number, messages, caps and kind are listed;
 * the text must equal the committed tests/unit/wire_pin.golden. Any change
 * to the bytes on the wire (a field moved, widened, renamed or added; an
 * opcode renumbered; a cap or kind changed) fails here with the lines that
 * differ. After a deliberate change (with its protocol version bump and
 * docs/protocol.md), rewrite the golden file:
 *     wire_pin_test --write tests/unit/wire_pin.golden
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hipr.h"

/* (unused: the spec may not use every type.) Field k of a message gets a value that shows its width, order and byte
 * order: no two fields of a message encode alike. */
static inline __attribute__((unused)) void fill_u8(hipr_u8_t *p, const char *n, unsigned k)
{
    (void)n;
    *p = (uint8_t)k;
}
static inline __attribute__((unused)) void fill_u16(hipr_u16_t *p, const char *n, unsigned k)
{
    (void)n;
    *p = (uint16_t)(0x1100u + k);
}
static void fill_u32(hipr_u32_t *p, const char *n, unsigned k)
{
    (void)n;
    *p = 0x33221100u + k;
}
static void fill_i32(hipr_i32_t *p, const char *n, unsigned k)
{
    (void)n;
    *p = -(int32_t)(0x01020300 + k);
}
static void fill_u64(hipr_u64_t *p, const char *n, unsigned k)
{
    (void)n;
    *p = 0x7766554433221100ull + k;
}
static inline __attribute__((unused)) void fill_i64(hipr_i64_t *p, const char *n, unsigned k)
{
    (void)n;
    *p = -(int64_t)(0x0102030405060700ll + k);
}
static void fill_f32(hipr_f32_t *p, const char *n, unsigned k)
{
    (void)n;
    *p = (float)k + 0.25f;
}
static void fill_c256(hipr_c256_t *p, const char *n, unsigned k)
{
    memset(*p, 0, sizeof *p);
    snprintf(*p, sizeof *p, "%s#%u", n, k);
}
static void fill_b16(hipr_b16_t *p, const char *n, unsigned k)
{
    (void)n;
    for (unsigned i = 0; i < sizeof *p; i++)
        (*p)[i] = (uint8_t)(k * 16 + i);
}
static void fill_b32(hipr_b32_t *p, const char *n, unsigned k)
{
    (void)n;
    for (unsigned i = 0; i < sizeof *p; i++)
        (*p)[i] = (uint8_t)(k * 32 + i);
}

/* Hex, with runs of 8 or more zero bytes written as 0*N (c256 padding). */
static void put_hex(FILE *f, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t z = i;
        while (z < n && b[z] == 0)
            z++;
        if (z - i >= 8) {
            fprintf(f, " 0*%zu ", z - i);
            i = z;
            continue;
        }
        fprintf(f, "%02x", b[i]);
        i++;
    }
}

static void describe(FILE *f)
{
    static uint8_t buf[8192];
#define FILL_FIELD_(t, n) fill_##t(&m.n, #n, ++k);
#define FIELD_NAME_(t, n) fprintf(f, " %s:%s", #t, #n);
#define MSG_(name, FIELDS)                                \
    do {                                                  \
        struct hipr_##name m;                             \
        unsigned k = 0;                                   \
        memset(&m, 0, sizeof m);                          \
        FIELDS(FILL_FIELD_)                               \
        size_t len = hipr_##name##_encode(buf, &m);       \
        fprintf(f, "msg %s size=%zu fields", #name, len); \
        FIELDS(FIELD_NAME_)                               \
        fprintf(f, "\nbytes %s ", #name);                 \
        put_hex(f, buf, len);                             \
        fprintf(f, "\n");                                 \
    } while (0);
    HIPR_MESSAGES(MSG_)
#undef MSG_
#undef FIELD_NAME_
#undef FILL_FIELD_
#define OP_(NAME, num, req, rep, rcap, pcap, kind)                          \
    fprintf(f,                                                              \
            "op 0x%04x %s request=%s reply=%s request_tail_cap=%llu "       \
            "reply_tail_cap=%llu %s\n",                                     \
            (unsigned)(num), #NAME, #req, #rep, (unsigned long long)(rcap), \
            (unsigned long long)(pcap), #kind);
    HIPR_OPS(OP_)
#undef OP_
    fprintf(f, "header magic=0x%08x version=%u size=%u flags response=%u error=%u no_reply=%u\n",
            HIPR_MAGIC, HIPR_VERSION, HIPR_HEADER_SIZE, HIPR_FLAG_RESPONSE, HIPR_FLAG_ERROR,
            HIPR_FLAG_NO_REPLY);
}

static char *slurp(FILE *f, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    size_t got;
    while ((got = fread(s + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *t = realloc(s, cap *= 2);
            if (!t) {
                free(s);
                return NULL;
            }
            s = t;
        }
    }
    *len = n;
    return s;
}

/* Prints the first lines that differ, each side in full. */
static int compare(const char *want, size_t wlen, const char *got, size_t glen)
{
    int bad = 0, line = 1;
    const char *w = want, *g = got, *wend = want + wlen, *gend = got + glen;
    while ((w < wend || g < gend) && bad < 8) {
        const char *wn = memchr(w, '\n', (size_t)(wend - w)),
                   *gn = memchr(g, '\n', (size_t)(gend - g));
        size_t wl = wn ? (size_t)(wn - w) : (size_t)(wend - w),
               gl = gn ? (size_t)(gn - g) : (size_t)(gend - g);
        if (wl != gl || memcmp(w, g, wl) != 0) {
            fprintf(stderr, "wire_pin: line %d differs\n  golden: %.*s\n  now:    %.*s\n", line,
                    (int)wl, w, (int)gl, g);
            bad++;
        }
        w += wl + (wn != NULL);
        g += gl + (gn != NULL);
        line++;
    }
    return bad;
}

int main(int argc, char **argv)
{
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: wire_pin_test --check GOLDEN | --write GOLDEN\n");
        return 0;
    }
    if (argc != 3 || (strcmp(argv[1], "--check") && strcmp(argv[1], "--write"))) {
        fprintf(stderr, "usage: wire_pin_test --check GOLDEN | --write GOLDEN\n");
        return 2;
    }
    if (!strcmp(argv[1], "--write")) {
        FILE *f = fopen(argv[2], "w");
        if (!f) {
            perror(argv[2]);
            return 1;
        }
        describe(f);
        return fclose(f) == 0 ? 0 : 1;
    }
    FILE *gf = fopen(argv[2], "r");
    if (!gf) {
        perror(argv[2]);
        return 1;
    }
    size_t wlen = 0, glen = 0;
    char *want = slurp(gf, &wlen);
    fclose(gf);
    char *got = NULL;
    FILE *mem = open_memstream(&got, &glen);
    if (!want || !mem) {
        fprintf(stderr, "wire_pin: out of memory\n");
        return 1;
    }
    describe(mem);
    fclose(mem);
    int bad = compare(want, wlen, got, glen);
    free(want);
    free(got);
    if (bad) {
        fprintf(stderr,
                "wire_pin: the wire changed. If deliberate (protocol version bump, "
                "docs/protocol.md), run: wire_pin_test --write %s\n",
                argv[2]);
        return 1;
    }
    printf("wire_pin: %zu opcodes and every message pinned: ok\n", hipr_op_count());
    return 0;
}
