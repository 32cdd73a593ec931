/* sha256_test - the in-tree SHA-256 and HMAC-SHA256 against published
 * vectors (FIPS 180-4 examples, RFC 4231), and the proof's properties. */
#include <stdio.h>
#include <string.h>

#include "hw_auth.h"
#include "hw_sha256.h"
#include "testutil.h"

static void hex(const uint8_t *p, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", p[i]);
}

static void check_sha(const void *msg, size_t n, size_t repeat, const char *want)
{
    struct hw_sha256 s;
    uint8_t d[32];
    char got[65];
    hw_sha256_init(&s);
    for (size_t i = 0; i < repeat; i++)
        hw_sha256_update(&s, msg, n);
    hw_sha256_final(&s, d);
    hex(d, 32, got);
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "sha256: got %s\n          want %s\n", got, want);
        CHECK(0);
    }
}

static void check_hmac(const void *key, size_t klen, const void *msg, size_t mlen, const char *want)
{
    struct hw_hmac m;
    uint8_t d[32];
    char got[65];
    hw_hmac_init(&m, key, klen);
    hw_hmac_update(&m, msg, mlen);
    hw_hmac_final(&m, d);
    hex(d, 32, got);
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "hmac: got %s\n        want %s\n", got, want);
        CHECK(0);
    }
}

int main(void)
{
    check_sha("abc", 3, 1, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    check_sha("", 0, 1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    check_sha("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, 1,
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    check_sha("a", 1, 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");

    uint8_t k20[20];
    memset(k20, 0x0b, sizeof k20);
    check_hmac(k20, 20, "Hi There", 8,
               "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    check_hmac("Jefe", 4, "what do ya want for nothing?", 28,
               "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    uint8_t k131[131];
    memset(k131, 0xaa, sizeof k131);
    const char *m6 = "Test Using Larger Than Block-Size Key - Hash Key First";
    check_hmac(k131, sizeof k131, m6, strlen(m6),
               "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");

    /* The proof changes with every input and differs by role. */
    struct hw_token t;
    char why[128];
    CHECK(hw_token_from_string("  0123456789abcdef-token\n", &t, why, sizeof why) == 0);
    CHECK_EQ(t.len, 22);
    CHECK(hw_token_from_string("short", &t, why, sizeof why) < 0);
    CHECK(hw_token_from_string("0123456789abcdef-token", &t, why, sizeof why) == 0);
    uint8_t cn[32] = { 1 }, wn[32] = { 2 }, bind[32] = { 0 }, a[32], b[32];
    hw_auth_proof(&t, HW_PROOF_CLIENT, cn, wn, 0, bind, a);
    hw_auth_proof(&t, HW_PROOF_WORKER, cn, wn, 0, bind, b);
    CHECK(memcmp(a, b, 32) != 0);
    hw_auth_proof(&t, HW_PROOF_CLIENT, cn, wn, 0, bind, b);
    CHECK(memcmp(a, b, 32) == 0 && hw_ct_equal(a, b, 32));
    wn[31] ^= 1;
    hw_auth_proof(&t, HW_PROOF_CLIENT, cn, wn, 0, bind, b);
    CHECK(memcmp(a, b, 32) != 0 && !hw_ct_equal(a, b, 32));
    wn[31] ^= 1;
    hw_auth_proof(&t, HW_PROOF_CLIENT, cn, wn, 1, bind, b);
    CHECK(memcmp(a, b, 32) != 0);
    bind[0] = 1;
    hw_auth_proof(&t, HW_PROOF_CLIENT, cn, wn, 0, bind, b);
    CHECK(memcmp(a, b, 32) != 0);
    printf("sha256/hmac vectors and proof properties: ok\n");
    return 0;
}
