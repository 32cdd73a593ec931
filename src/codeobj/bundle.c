/*
 * bundle.c - the HIP fat-binary wrapper and clang offload bundles.
 *
 * Offload bundle layout (all little-endian):
 *   "__CLANG_OFFLOAD_BUNDLE__"  24 bytes
 *   u64 entry count
 *   per entry: u64 offset, u64 size, u64 id length, id bytes (no NUL)
 * Offsets are from the bundle's first byte; HIP places code objects at
 * 4096-byte boundaries, with an empty "host-..." entry first.
 *
 * Compressed bundle ("CCOB"), then the compressed plain bundle:
 *   v1: u16 version, u16 method, u32 uncompressed size, u64 hash   (20 bytes)
 *   v2: u16 version, u16 method, u32 total size, u32 uncompressed size,
 *       u64 hash                                                   (24 bytes)
 *   v3: u16 version, u16 method, u64 total size, u64 uncompressed size,
 *       u64 hash                                                   (32 bytes)
 * method 0 = zlib (RFC 1950 stream), 1 = zstd (one frame). The total size
 * counts the header, which is what lets the proxy size a compressed image
 * from its address alone.
 */
#include "hw_alloc.h"
#include "cob_internal.h"

#include <ctype.h>
#include <stdlib.h>

#ifdef HIPWIRE_HAVE_ZSTD
#include <zstd.h>
#endif
#ifdef HIPWIRE_HAVE_ZLIB
#include <zlib.h>
#endif

static const char bundle_magic[] = "__CLANG_OFFLOAD_BUNDLE__";
#define BUNDLE_MAGIC_LEN 24
#define BUNDLE_HDR_LEN   (BUNDLE_MAGIC_LEN + 8)
#define ENTRY_FIXED_LEN  24

const char *hw_cob_strerror(int status)
{
    switch (status) {
    case HW_COB_OK: return "ok";
    case HW_COB_EINVAL: return "invalid argument";
    case HW_COB_EFORMAT: return "malformed input";
    case HW_COB_ETRUNC: return "truncated input";
    case HW_COB_ELIMIT: return "input over a parser limit";
    case HW_COB_ENOTSUP: return "not supported";
    case HW_COB_ENOMEM: return "out of memory";
    case HW_COB_ENOTFOUND: return "not found";
    }
    return "unknown error";
}

int hw_cob_wrapper_binary(const void *wrapper, const void **binary, hw_cob_err *err)
{
    if (!wrapper || !binary)
        return cob_fail(err, HW_COB_EINVAL, "fat binary wrapper: NULL argument");
    hw_hip_fatbin_wrapper w;
    memcpy(&w, wrapper, sizeof w);
    if (w.magic != HW_HIP_FATBIN_MAGIC && w.magic != HW_HIP_FATBIN_MAGIC_ALT)
        return cob_fail(err, HW_COB_EFORMAT,
                        "fat binary wrapper: magic 0x%08x is not HIPF (0x%08x)", (unsigned)w.magic,
                        HW_HIP_FATBIN_MAGIC);
    if (w.version != HW_HIP_FATBIN_VERSION)
        return cob_fail(err, HW_COB_ENOTSUP, "fat binary wrapper: version %u, only 1 is known",
                        (unsigned)w.version);
    if (!w.binary)
        return cob_fail(err, HW_COB_EFORMAT, "fat binary wrapper: NULL binary");
    *binary = w.binary;
    return HW_COB_OK;
}

hw_cob_kind hw_cob_detect(const void *data, size_t len)
{
    const uint8_t *p = data;
    if (!p)
        return HW_COB_KIND_UNKNOWN;
    /* Compare 4 bytes first so that a short image is never read past its
     * first differing word. */
    if (len >= 4 && memcmp(p, "CCOB", 4) == 0)
        return HW_COB_KIND_COMPRESSED;
    if (len >= 4 && memcmp(p,
                           "\x7f"
                           "ELF",
                           4) == 0)
        return HW_COB_KIND_ELF;
    if (len >= BUNDLE_MAGIC_LEN && memcmp(p, bundle_magic, 4) == 0 &&
        memcmp(p, bundle_magic, BUNDLE_MAGIC_LEN) == 0)
        return HW_COB_KIND_BUNDLE;
    return HW_COB_KIND_UNKNOWN;
}

int hw_cob_ccob_header_parse(const void *data, size_t len, hw_cob_ccob_header *out, hw_cob_err *err)
{
    const uint8_t *p = data;
    if (!p || !out)
        return cob_fail(err, HW_COB_EINVAL, "compressed bundle: NULL argument");
    if (len < 8 || memcmp(p, "CCOB", 4) != 0)
        return cob_fail(err, HW_COB_EFORMAT, "compressed bundle: no CCOB magic");
    hw_cob_ccob_header h;
    memset(&h, 0, sizeof h);
    h.version = le16(p + 4);
    h.method = le16(p + 6);
    switch (h.version) {
    case 1: h.header_size = 20; break;
    case 2: h.header_size = 24; break;
    case 3: h.header_size = 32; break;
    default:
        return cob_fail(err, HW_COB_ENOTSUP, "compressed bundle: version %u not supported (1-3)",
                        (unsigned)h.version);
    }
    if (len < h.header_size)
        return cob_fail(err, HW_COB_ETRUNC, "compressed bundle: %zu bytes, v%u header needs %u",
                        len, (unsigned)h.version, (unsigned)h.header_size);
    if (h.version == 1) {
        h.uncompressed_size = le32(p + 8);
        h.hash = le64(p + 12);
    } else if (h.version == 2) {
        h.total_size = le32(p + 8);
        h.uncompressed_size = le32(p + 12);
        h.hash = le64(p + 16);
    } else {
        h.total_size = le64(p + 8);
        h.uncompressed_size = le64(p + 16);
        h.hash = le64(p + 24);
    }
    if (h.version >= 2 && h.total_size < h.header_size)
        return cob_fail(err, HW_COB_EFORMAT,
                        "compressed bundle: total size %llu is below its header",
                        (unsigned long long)h.total_size);
    if (h.method != HW_COB_CCOB_ZLIB && h.method != HW_COB_CCOB_ZSTD)
        return cob_fail(err, HW_COB_ENOTSUP,
                        "compressed bundle: compression method %u unknown "
                        "(0 zlib, 1 zstd)",
                        (unsigned)h.method);
    *out = h;
    return HW_COB_OK;
}

bool hw_cob_ccob_method_supported(uint16_t method)
{
#ifdef HIPWIRE_HAVE_ZLIB
    if (method == HW_COB_CCOB_ZLIB)
        return true;
#endif
#ifdef HIPWIRE_HAVE_ZSTD
    if (method == HW_COB_CCOB_ZSTD)
        return true;
#endif
    (void)method;
    return false;
}

/* Walk the entry table. Checks every length against len; fills entries
 * when non-NULL (sized to the count), and the bundle's end. */
static int walk_bundle(const uint8_t *p, size_t len, uint64_t *count_out, hw_cob_entry *entries,
                       uint64_t *end_out, hw_cob_err *err)
{
    if (len < BUNDLE_HDR_LEN)
        return cob_fail(err, HW_COB_ETRUNC, "offload bundle: %zu bytes, header needs %d", len,
                        BUNDLE_HDR_LEN);
    if (memcmp(p, bundle_magic, BUNDLE_MAGIC_LEN) != 0)
        return cob_fail(err, HW_COB_EFORMAT, "offload bundle: no __CLANG_OFFLOAD_BUNDLE__ magic");
    uint64_t n = le64(p + BUNDLE_MAGIC_LEN);
    if (n == 0)
        return cob_fail(err, HW_COB_EFORMAT, "offload bundle: no entries");
    if (n > HW_COB_MAX_ENTRIES)
        return cob_fail(err, HW_COB_ELIMIT, "offload bundle: %llu entries (limit %d)",
                        (unsigned long long)n, HW_COB_MAX_ENTRIES);
    uint64_t pos = BUNDLE_HDR_LEN;
    uint64_t end = 0;
    for (uint64_t k = 0; k < n; k++) {
        if (len - pos < ENTRY_FIXED_LEN)
            return cob_fail(err, HW_COB_ETRUNC, "offload bundle: entry %llu header past the end",
                            (unsigned long long)k);
        uint64_t off = le64(p + pos), sz = le64(p + pos + 8);
        uint64_t idlen = le64(p + pos + 16);
        pos += ENTRY_FIXED_LEN;
        if (idlen == 0 || idlen > HW_COB_MAX_TRIPLE)
            return cob_fail(err, idlen ? HW_COB_ELIMIT : HW_COB_EFORMAT,
                            "offload bundle: entry %llu id length %llu "
                            "(1..%d)",
                            (unsigned long long)k, (unsigned long long)idlen, HW_COB_MAX_TRIPLE);
        if (idlen > len - pos)
            return cob_fail(err, HW_COB_ETRUNC, "offload bundle: entry %llu id past the end",
                            (unsigned long long)k);
        const uint8_t *id = p + pos;
        pos += idlen;
        if (memchr(id, 0, idlen))
            return cob_fail(err, HW_COB_EFORMAT, "offload bundle: entry %llu id holds a NUL byte",
                            (unsigned long long)k);
        if (off > UINT64_MAX - sz)
            return cob_fail(err, HW_COB_EFORMAT, "offload bundle: entry %llu offset+size overflows",
                            (unsigned long long)k);
        if (entries) {
            hw_cob_entry *e = &entries[k];
            memset(e, 0, sizeof *e);
            e->offset = off;
            e->size = sz;
            memcpy(e->triple, id, idlen);
            e->triple[idlen] = '\0';
        }
        /* An empty entry (the host one) does not extend the image. */
        if (sz && off + sz > end)
            end = off + sz;
    }
    if (pos > end)
        end = pos;
    *count_out = n;
    *end_out = end;
    return HW_COB_OK;
}

int hw_cob_image_size(const void *data, size_t max, uint64_t *size, hw_cob_err *err)
{
    const uint8_t *p = data;
    if (!p || !size)
        return cob_fail(err, HW_COB_EINVAL, "image size: NULL argument");
    uint64_t n, end;
    int rc;
    switch (hw_cob_detect(p, max)) {
    case HW_COB_KIND_BUNDLE:
        rc = walk_bundle(p, max, &n, NULL, &end, err);
        if (rc)
            return rc;
        *size = end;
        return HW_COB_OK;
    case HW_COB_KIND_COMPRESSED: {
        hw_cob_ccob_header h;
        rc = hw_cob_ccob_header_parse(p, max, &h, err);
        if (rc)
            return rc;
        if (h.version < 2)
            return cob_fail(err, HW_COB_ENOTSUP, "compressed bundle v1 records no total size");
        if (h.total_size > max)
            return cob_fail(err, HW_COB_ETRUNC, "compressed bundle: total size %llu past %zu bytes",
                            (unsigned long long)h.total_size, max);
        *size = h.total_size;
        return HW_COB_OK;
    }
    case HW_COB_KIND_ELF: return cob_elf_image_size(p, max, size, err);
    case HW_COB_KIND_UNKNOWN: break;
    }
    return cob_fail(err, HW_COB_EFORMAT, "image is neither an offload bundle, a CCOB nor an ELF");
}

static void classify(hw_cob_entry *e)
{
    /* Entry ids are "<kind>-<triple>", where triple may end with
     * "-<target id>"; HIP's amdgcn entries read
     * hip[v4|v5|v6]-amdgcn-amd-amdhsa--gfx90a[:feature±]... */
    static const char amd[] = "-amdgcn-amd-amdhsa-";
    e->is_host = strncmp(e->triple, "host-", 5) == 0;
    e->target_id = e->triple + strlen(e->triple);
    const char *a = strstr(e->triple, amd);
    if (strncmp(e->triple, "hip", 3) == 0 && a) {
        const char *t = a + sizeof amd - 1;
        /* the environment field between the two '-' is empty in HIP ids */
        const char *dash = strchr(t, '-');
        t = dash ? dash + 1 : t;
        e->is_amdgcn = true;
        e->target_id = t;
    }
}

static int decompress(const hw_cob_ccob_header *h, const uint8_t *src, uint64_t srclen,
                      uint8_t *dst, hw_cob_err *err)
{
    /* Unused when the build has neither codec. */
    (void)src;
    (void)srclen;
    (void)dst;
    switch (h->method) {
    case HW_COB_CCOB_ZSTD:
#ifdef HIPWIRE_HAVE_ZSTD
    {
        size_t r = ZSTD_decompress(dst, (size_t)h->uncompressed_size, src, (size_t)srclen);
        if (ZSTD_isError(r))
            return cob_fail(err, HW_COB_EFORMAT, "compressed bundle: zstd: %s",
                            ZSTD_getErrorName(r));
        if (r != h->uncompressed_size)
            return cob_fail(err, HW_COB_EFORMAT,
                            "compressed bundle: zstd gave %zu bytes, header "
                            "says %llu",
                            r, (unsigned long long)h->uncompressed_size);
        return HW_COB_OK;
    }
#else
        break;
#endif
    case HW_COB_CCOB_ZLIB:
#ifdef HIPWIRE_HAVE_ZLIB
    {
        if (srclen > (uLong)-1 || h->uncompressed_size > (uLongf)-1)
            return cob_fail(err, HW_COB_ELIMIT, "compressed bundle: too large for zlib");
        uLongf dl = (uLongf)h->uncompressed_size;
        int zr = uncompress(dst, &dl, src, (uLong)srclen);
        if (zr != Z_OK)
            return cob_fail(err, HW_COB_EFORMAT, "compressed bundle: zlib error %d", zr);
        if (dl != h->uncompressed_size)
            return cob_fail(err, HW_COB_EFORMAT,
                            "compressed bundle: zlib gave %lu bytes, header "
                            "says %llu",
                            (unsigned long)dl, (unsigned long long)h->uncompressed_size);
        return HW_COB_OK;
    }
#else
        break;
#endif
    default: break;
    }
    return cob_fail(err, HW_COB_ENOTSUP,
                    "compressed bundle: %s decompression not supported by this "
                    "build (built without lib%s)",
                    h->method == HW_COB_CCOB_ZSTD ? "zstd" : "zlib",
                    h->method == HW_COB_CCOB_ZSTD ? "zstd" : "z");
}

int hw_cob_bundle_open(const void *data, size_t len, uint64_t max_uncompressed, hw_cob_bundle *out,
                       hw_cob_err *err)
{
    const uint8_t *p = data;
    if (!p || !out)
        return cob_fail(err, HW_COB_EINVAL, "offload bundle: NULL argument");
    if (max_uncompressed == 0)
        max_uncompressed = HW_COB_DEFAULT_MAX_UNCOMPRESSED;

    hw_cob_bundle b;
    memset(&b, 0, sizeof b);
    int rc = HW_COB_OK;
    const uint8_t *plain = p;
    uint64_t plain_len = len;
    b.image_size = 0;

    if (hw_cob_detect(p, len) == HW_COB_KIND_COMPRESSED) {
        rc = hw_cob_ccob_header_parse(p, len, &b.ccob, err);
        if (rc)
            goto fail;
        uint64_t total = b.ccob.version >= 2 ? b.ccob.total_size : len;
        if (total > len) {
            rc = cob_fail(err, HW_COB_ETRUNC, "compressed bundle: total size %llu past %zu bytes",
                          (unsigned long long)total, len);
            goto fail;
        }
        if (b.ccob.uncompressed_size > max_uncompressed || b.ccob.uncompressed_size > SIZE_MAX) {
            rc = cob_fail(err, HW_COB_ELIMIT,
                          "compressed bundle: uncompressed size %llu over "
                          "the limit %llu",
                          (unsigned long long)b.ccob.uncompressed_size,
                          (unsigned long long)max_uncompressed);
            goto fail;
        }
        if (b.ccob.uncompressed_size < BUNDLE_HDR_LEN) {
            rc = cob_fail(err, HW_COB_EFORMAT,
                          "compressed bundle: uncompressed size %llu cannot "
                          "hold a bundle",
                          (unsigned long long)b.ccob.uncompressed_size);
            goto fail;
        }
        if (!hw_cob_ccob_method_supported(b.ccob.method)) {
            rc = decompress(&b.ccob, NULL, 0, NULL, err); /* the message */
            goto fail;
        }
        b.owned = hw_malloc((size_t)b.ccob.uncompressed_size);
        if (!b.owned) {
            rc = cob_fail(err, HW_COB_ENOMEM, "compressed bundle: cannot allocate %llu bytes",
                          (unsigned long long)b.ccob.uncompressed_size);
            goto fail;
        }
        rc = decompress(&b.ccob, p + b.ccob.header_size, total - b.ccob.header_size, b.owned, err);
        if (rc)
            goto fail;
        b.compressed = true;
        b.image_size = total;
        plain = b.owned;
        plain_len = b.ccob.uncompressed_size;
    }

    uint64_t n = 0, end = 0;
    rc = walk_bundle(plain, (size_t)plain_len, &n, NULL, &end, err);
    if (rc)
        goto fail;
    if (end > plain_len) {
        rc = cob_fail(err, HW_COB_ETRUNC, "offload bundle: entries end at %llu, past %llu bytes",
                      (unsigned long long)end, (unsigned long long)plain_len);
        goto fail;
    }
    b.entries = hw_calloc((size_t)n, sizeof *b.entries);
    if (!b.entries) {
        rc = cob_fail(err, HW_COB_ENOMEM, "offload bundle: out of memory");
        goto fail;
    }
    rc = walk_bundle(plain, (size_t)plain_len, &n, b.entries, &end, err);
    if (rc)
        goto fail;
    for (uint64_t k = 0; k < n; k++)
        classify(&b.entries[k]);
    b.nentries = (uint32_t)n;
    b.data = plain;
    b.size = end;
    if (!b.compressed)
        b.image_size = end;
    *out = b;
    return HW_COB_OK;

fail:
    free(b.entries);
    free(b.owned);
    return rc;
}

void hw_cob_bundle_close(hw_cob_bundle *b)
{
    if (!b)
        return;
    free(b->entries);
    free(b->owned);
    memset(b, 0, sizeof *b);
}

const uint8_t *hw_cob_entry_data(const hw_cob_bundle *b, const hw_cob_entry *e)
{
    /* An empty entry may name any offset; never form a pointer past the
     * bundle for it. */
    if (!b || !e || !b->data || e->offset > b->size || e->size > b->size - e->offset)
        return NULL;
    return b->data + e->offset;
}

/* Split "gfx90a:sramecc+:xnack-" into the processor length and a lookup
 * for one feature's setting: '+', '-', or 0 when not named. */
static size_t proc_len(const char *id)
{
    const char *c = strchr(id, ':');
    return c ? (size_t)(c - id) : strlen(id);
}

static char feature_setting(const char *id, const char *feat, size_t flen)
{
    const char *c = strchr(id, ':');
    while (c) {
        const char *f = c + 1;
        const char *next = strchr(f, ':');
        size_t l = next ? (size_t)(next - f) : strlen(f);
        if (l == flen + 1 && strncmp(f, feat, flen) == 0 && (f[flen] == '+' || f[flen] == '-'))
            return f[flen];
        c = next;
    }
    return 0;
}

bool hw_cob_target_match(const char *code_object_target, const char *device_target, int *score)
{
    if (!code_object_target || !device_target || !*device_target)
        return false;
    size_t qp = proc_len(device_target);
    const char *id = code_object_target;
    if (proc_len(id) != qp || strncmp(id, device_target, qp) != 0)
        return false;
    /* Each feature the code object pins must not contradict the device. A
     * pin the device agrees with scores; one the device leaves open costs,
     * so a plain "gfx90a" prefers the code object built for any mode. */
    int points = 0;
    const char *c = strchr(id, ':');
    while (c) {
        const char *f = c + 1;
        const char *next = strchr(f, ':');
        size_t l = next ? (size_t)(next - f) : strlen(f);
        if (l >= 2) {
            char want = f[l - 1];
            char have = feature_setting(device_target, f, l - 1);
            if (have && have != want)
                return false;
            points += have == want ? 2 : -1;
        }
        c = next;
    }
    if (score)
        *score = points;
    return true;
}

const char *hw_cob_target_id(const char *triple)
{
    static const char amd[] = "amdgcn-amd-amdhsa-";
    if (!triple)
        return NULL;
    const char *a = strstr(triple, amd);
    if (!a)
        return NULL;
    const char *t = a + sizeof amd - 1;
    /* the environment field between the two '-' is empty in AMD ids */
    const char *dash = strchr(t, '-');
    return dash ? dash + 1 : t;
}

bool hw_cob_isa_version(const char *target, unsigned *major, unsigned *minor)
{
    const char *t = target ? hw_cob_target_id(target) : NULL;
    if (!t)
        t = target;
    if (!t || strncmp(t, "gfx", 3) != 0)
        return false;
    t += 3;
    size_t n = 0;
    while (isxdigit((unsigned char)t[n]))
        n++;
    /* the last two digits are minor and stepping (hex); the rest is major */
    if (n < 3 || n > 4)
        return false;
    unsigned maj = 0;
    for (size_t i = 0; i + 2 < n; i++) {
        if (!isdigit((unsigned char)t[i]))
            return false;
        maj = maj * 10 + (unsigned)(t[i] - '0');
    }
    char m = (char)tolower((unsigned char)t[n - 2]);
    *major = maj;
    *minor = (unsigned)(isdigit((unsigned char)m) ? m - '0' : m - 'a' + 10);
    return true;
}

const hw_cob_entry *hw_cob_bundle_find(const hw_cob_bundle *b, const char *target_id)
{
    if (!b || !target_id || !*target_id)
        return NULL;
    const hw_cob_entry *best = NULL;
    int best_score = -1000000;
    for (uint32_t k = 0; k < b->nentries; k++) {
        const hw_cob_entry *e = &b->entries[k];
        int score = 0;
        if (!e->is_amdgcn || e->size == 0 || !hw_cob_target_match(e->target_id, target_id, &score))
            continue;
        if (score > best_score) {
            best = e;
            best_score = score;
        }
    }
    return best;
}
