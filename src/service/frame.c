/* frame.c - authenticated result lines. The MAC is what makes the channel
 * trustworthy: anything the solution writes to a descriptor it can reach
 * (its stdout, its stderr, the result pipe itself) lacks the key, so the
 * service drops it; the sequence number stops replays of real lines. */
#include "frame.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "hw_alloc.h"

static void mac_of(const unsigned char key[HW_FRAME_KEY_LEN], const char *seqjson, size_t n,
                   char mac[65])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    HMAC(EVP_sha256(), key, HW_FRAME_KEY_LEN, (const unsigned char *)seqjson, n, md, &len);
    for (unsigned i = 0; i < 32; i++)
        sprintf(mac + 2 * i, "%02x", md[i]);
    mac[64] = '\0';
}

void hw_frame_mac(const unsigned char key[HW_FRAME_KEY_LEN], uint64_t seq, const char *json,
                  char mac[65])
{
    size_t n = strlen(json) + 32;
    char *buf = hw_malloc(n);
    if (!buf) {
        memset(mac, '0', 64);
        mac[64] = '\0';
        return;
    }
    int len = snprintf(buf, n, "%" PRIu64 " %s", seq, json);
    mac_of(key, buf, (size_t)len, mac);
    free(buf);
}

int hw_frame_verify(const unsigned char key[HW_FRAME_KEY_LEN], uint64_t expect_seq, char *line,
                    const char **json)
{
    char mac[65];
    if (strlen(line) < 66 || line[64] != ' ')
        return -1;
    const char *body = line + 65;
    char *end;
    uint64_t seq = strtoull(body, &end, 10);
    if (end == body || *end != ' ' || seq != expect_seq)
        return -1;
    mac_of(key, body, strlen(body), mac);
    if (CRYPTO_memcmp(mac, line, 64) != 0)
        return -1;
    *json = end + 1;
    return 0;
}
