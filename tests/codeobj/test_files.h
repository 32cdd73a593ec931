/* test_files.h - file helpers shared by the codeobj tests (header-only). */
#ifndef HIPWIRE_TEST_CODEOBJ_FILES_H
#define HIPWIRE_TEST_CODEOBJ_FILES_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whole file into memory; NULL (with a message) on failure. */
static inline uint8_t *tf_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    long n;
    if (!f) {
        perror(path);
        return NULL;
    }
    if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
        goto fail;
    buf = malloc(n ? (size_t)n : 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
        goto fail;
    fclose(f);
    *len = (size_t)n;
    return buf;
fail:
    fprintf(stderr, "%s: read failed\n", path);
    free(buf);
    fclose(f);
    return NULL;
}

static inline int tf_write(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n) {
        perror(path);
        if (f)
            fclose(f);
        return -1;
    }
    return fclose(f) ? -1 : 0;
}

/* The .hip_fatbin section of a host (x86-64) ELF object or executable, the
 * way a tool without a loader finds it. Host files here come from the
 * build, but the bounds are checked anyway. */
static inline uint64_t tf_le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int k = n - 1; k >= 0; k--)
        v = (v << 8) | p[k];
    return v;
}

static inline int tf_host_section(const uint8_t *p, size_t len, const char *want,
                                  const uint8_t **sec, size_t *sec_len)
{
    if (len < 64 ||
        memcmp(p,
               "\x7f"
               "ELF",
               4) ||
        p[4] != 2 || p[5] != 1)
        return -1;
    uint64_t shoff = tf_le(p + 40, 8), shentsize = tf_le(p + 58, 2);
    uint64_t shnum = tf_le(p + 60, 2), shstrndx = tf_le(p + 62, 2);
    if (shentsize < 64 || shoff > len || shnum * shentsize > len - shoff || shstrndx >= shnum)
        return -1;
    const uint8_t *strh = p + shoff + shstrndx * shentsize;
    uint64_t stroff = tf_le(strh + 24, 8), strsz = tf_le(strh + 32, 8);
    if (stroff > len || strsz > len - stroff)
        return -1;
    for (uint64_t k = 0; k < shnum; k++) {
        const uint8_t *sh = p + shoff + k * shentsize;
        uint64_t name = tf_le(sh, 4), off = tf_le(sh + 24, 8), sz = tf_le(sh + 32, 8);
        size_t wl = strlen(want);
        if (name >= strsz || strsz - name < wl + 1 || memcmp(p + stroff + name, want, wl + 1) != 0)
            continue;
        if (off > len || sz > len - off)
            return -1;
        *sec = p + off;
        *sec_len = (size_t)sz;
        return 0;
    }
    return -1;
}

static inline int tf_host_fatbin(const uint8_t *p, size_t len, const uint8_t **sec, size_t *sec_len)
{
    /* Only host objects: an AMDGPU code object is the parser's own input. */
    if (len >= 20 && tf_le(p + 18, 2) == 224)
        return -1;
    return tf_host_section(p, len, ".hip_fatbin", sec, sec_len);
}

#endif
