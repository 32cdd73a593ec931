/* hw_auth.c - see hw_auth.h. */
#include "hw_auth.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "hw_os.h"
#include "hw_sha256.h"

static int token_set(const uint8_t *p, size_t n, struct hw_token *t, char *why, size_t why_len)
{
    while (n > 0 && isspace(p[0])) {
        p++;
        n--;
    }
    while (n > 0 && isspace(p[n - 1]))
        n--;
    if (n < HW_AUTH_TOKEN_MIN || n > HW_AUTH_TOKEN_MAX) {
        snprintf(why, why_len, "a token must be %d to %d bytes (got %zu)", HW_AUTH_TOKEN_MIN,
                 HW_AUTH_TOKEN_MAX, n);
        return -1;
    }
    memcpy(t->key, p, n);
    t->len = n;
    return 0;
}

int hw_token_from_string(const char *s, struct hw_token *t, char *why, size_t why_len)
{
    return token_set((const uint8_t *)s, strlen(s), t, why, why_len);
}

int hw_token_from_file(const char *path, struct hw_token *t, char *why, size_t why_len)
{
    uint8_t buf[HW_AUTH_TOKEN_MAX + 64];
    long n = hw_os_read_small_file(path, buf, sizeof buf, why, why_len);
    if (n < 0)
        return -1;
    int rc = token_set(buf, (size_t)n, t, why, why_len);
    memset(buf, 0, sizeof buf);
    return rc;
}

void hw_token_clear(struct hw_token *t)
{
    volatile uint8_t *p = t->key;
    for (size_t i = 0; i < sizeof t->key; i++)
        p[i] = 0;
    t->len = 0;
}

int hw_random_bytes(void *buf, size_t n)
{
    return hw_os_random(buf, n);
}

void hw_auth_proof(const struct hw_token *t, enum hw_proof_role role,
                   const uint8_t cnonce[HW_AUTH_NONCE_LEN], const uint8_t wnonce[HW_AUTH_NONCE_LEN],
                   uint64_t session, const uint8_t binding[32], uint8_t out[HW_AUTH_PROOF_LEN])
{
    /* Distinct labels: no proof passes as another role's. */
    static const char *const labels[] = {
        [HW_PROOF_CLIENT] = "hipwire-auth-v1 client",
        [HW_PROOF_WORKER] = "hipwire-auth-v1 worker",
        [HW_PROOF_RESUME_CLIENT] = "hipwire-resume-v1 client",
        [HW_PROOF_RESUME_WORKER] = "hipwire-resume-v1 worker",
    };
    const char *label = labels[role];
    uint8_t s[8];
    for (int i = 0; i < 8; i++)
        s[i] = (uint8_t)(session >> (8 * i));
    struct hw_hmac m;
    hw_hmac_init(&m, t->key, t->len);
    hw_hmac_update(&m, label, strlen(label));
    hw_hmac_update(&m, cnonce, HW_AUTH_NONCE_LEN);
    hw_hmac_update(&m, wnonce, HW_AUTH_NONCE_LEN);
    hw_hmac_update(&m, s, sizeof s);
    hw_hmac_update(&m, binding, 32);
    hw_hmac_final(&m, out);
}

void hw_resume_proof(uint64_t resume_token, enum hw_proof_role role,
                     const uint8_t cnonce[HW_AUTH_NONCE_LEN],
                     const uint8_t wnonce[HW_AUTH_NONCE_LEN], uint64_t session,
                     const uint8_t binding[32], uint8_t out[HW_AUTH_PROOF_LEN])
{
    struct hw_token key;
    key.len = 8;
    for (int i = 0; i < 8; i++)
        key.key[i] = (uint8_t)(resume_token >> (8 * i));
    hw_auth_proof(&key, role, cnonce, wnonce, session, binding, out);
    hw_token_clear(&key);
}
