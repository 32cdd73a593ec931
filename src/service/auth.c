/* auth.c - bearer tokens (--token-file: one token per line, optionally
 * "name:token") and per-identity request rates (a one-minute window). */
#include "service.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#define MAX_TOKENS 256
#define MAX_RATES  1024

static struct {
    char name[64];
    char token[256];
} tokens[MAX_TOKENS];
static int ntokens = -1; /* -1: authentication off */

static pthread_mutex_t rate_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    char who[80];
    double window_start;
    int count;
} rates[MAX_RATES];

int auth_load(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[512];
    if (!f) {
        fprintf(stderr, "hipwire-service: cannot read --token-file %s\n", path);
        return -1;
    }
    ntokens = 0;
    while (fgets(line, sizeof line, f) && ntokens < MAX_TOKENS) {
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0] || line[0] == '#')
            continue;
        char *colon = strchr(line, ':');
        if (colon) {
            *colon = '\0';
            snprintf(tokens[ntokens].name, sizeof tokens[ntokens].name, "%.63s", line);
            snprintf(tokens[ntokens].token, sizeof tokens[ntokens].token, "%.255s", colon + 1);
        } else {
            snprintf(tokens[ntokens].name, sizeof tokens[ntokens].name, "token%d", ntokens + 1);
            snprintf(tokens[ntokens].token, sizeof tokens[ntokens].token, "%.255s", line);
        }
        ntokens++;
    }
    fclose(f);
    if (ntokens == 0) {
        fprintf(stderr, "hipwire-service: --token-file %s holds no token\n", path);
        return -1;
    }
    return 0;
}

int auth_check(const char *authorization, const char *client, char *who, size_t whosz)
{
    if (ntokens < 0) {
        snprintf(who, whosz, "%s", client);
        return 0;
    }
    if (!authorization || strncmp(authorization, "Bearer ", 7) != 0)
        return 401;
    const char *t = authorization + 7;
    size_t n = strlen(t);
    for (int i = 0; i < ntokens; i++)
        if (strlen(tokens[i].token) == n && CRYPTO_memcmp(tokens[i].token, t, n) == 0) {
            snprintf(who, whosz, "%s", tokens[i].name);
            return 0;
        }
    return 403;
}

int rate_allow(const char *who)
{
    int ok = 1, slot = -1, oldest = 0;
    double now = now_s();
    pthread_mutex_lock(&rate_lock);
    for (int i = 0; i < MAX_RATES; i++) {
        if (!strcmp(rates[i].who, who)) {
            slot = i;
            break;
        }
        if (rates[i].window_start < rates[oldest].window_start)
            oldest = i;
    }
    if (slot < 0) {
        slot = oldest;
        snprintf(rates[slot].who, sizeof rates[slot].who, "%s", who);
        rates[slot].window_start = now;
        rates[slot].count = 0;
    }
    if (now - rates[slot].window_start >= 60) {
        rates[slot].window_start = now;
        rates[slot].count = 0;
    }
    if (rates[slot].count >= svc_cfg()->rate_per_min)
        ok = 0;
    else
        rates[slot].count++;
    pthread_mutex_unlock(&rate_lock);
    return ok;
}
