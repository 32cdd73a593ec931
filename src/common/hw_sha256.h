/*
 * hw_sha256.h - SHA-256 and HMAC-SHA256 (FIPS 180-4, RFC 2104), in tree so
 * authentication works in a build without OpenSSL. Checked against the
 * NIST and RFC 4231 vectors by tests/unit/sha256_test.c.
 */
#ifndef HW_SHA256_H
#define HW_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define HW_SHA256_LEN 32

struct hw_sha256 {
    uint32_t h[8];
    uint64_t bytes;
    uint8_t block[64];
    size_t fill;
};

void hw_sha256_init(struct hw_sha256 *s);
void hw_sha256_update(struct hw_sha256 *s, const void *data, size_t n);
void hw_sha256_final(struct hw_sha256 *s, uint8_t out[HW_SHA256_LEN]);

struct hw_hmac {
    struct hw_sha256 inner, outer;
};

void hw_hmac_init(struct hw_hmac *m, const void *key, size_t key_len);
void hw_hmac_update(struct hw_hmac *m, const void *data, size_t n);
void hw_hmac_final(struct hw_hmac *m, uint8_t out[HW_SHA256_LEN]);

/* Compares in time independent of where the inputs differ. 1 when equal. */
int hw_ct_equal(const void *a, const void *b, size_t n);

#endif
