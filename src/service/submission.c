/* submission.c - a submission while it lives in memory: its events (kept
 * for the streams that follow it), a condition streams wait on, and a
 * registry from id to object. Finished submissions leave the registry (the
 * store has them), so memory follows the number of live ones. */
#include "hw_alloc.h"
#include "service.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/rand.h>

#define MAX_LIVE 4096

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct submission *registry[MAX_LIVE];

double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct submission *sub_create(const char *who, const char *code, const struct problem *p,
                              const char *gpu, const char *endpoint, const char *lang)
{
    struct submission *s = hw_calloc(1, sizeof *s);
    unsigned char rnd[16];
    if (!s || RAND_bytes(rnd, sizeof rnd) != 1) {
        free(s);
        return NULL;
    }
    for (int i = 0; i < 16; i++)
        sprintf(s->id + 2 * i, "%02x", rnd[i]);
    snprintf(s->who, sizeof s->who, "%s", who);
    s->code = hw_strdup(code);
    s->gpu_type = hw_strdup(gpu);
    s->endpoint = hw_strdup(endpoint);
    s->language = hw_strdup(lang);
    s->prob = p;
    s->created = now_s();
    s->refs = 1; /* the registry's */
    s->avoid_worker = -1;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    pthread_mutex_lock(&registry_lock);
    int slot = -1;
    for (int i = 0; i < MAX_LIVE && slot < 0; i++)
        if (!registry[i])
            slot = i;
    if (slot >= 0)
        registry[slot] = s;
    pthread_mutex_unlock(&registry_lock);
    if (slot < 0) {
        free(s->code), free(s->gpu_type), free(s->endpoint), free(s->language), free(s);
        return NULL;
    }
    store_submission(s);
    return s;
}

struct submission *sub_find(const char *id)
{
    struct submission *found = NULL;
    pthread_mutex_lock(&registry_lock);
    for (int i = 0; i < MAX_LIVE && !found; i++)
        if (registry[i] && !strcmp(registry[i]->id, id)) {
            found = registry[i];
            pthread_mutex_lock(&found->mu);
            found->refs++;
            pthread_mutex_unlock(&found->mu);
        }
    pthread_mutex_unlock(&registry_lock);
    return found;
}

int sub_active_count(const char *who)
{
    int n = 0;
    pthread_mutex_lock(&registry_lock);
    for (int i = 0; i < MAX_LIVE; i++)
        if (registry[i] && !strcmp(registry[i]->who, who))
            n++;
    pthread_mutex_unlock(&registry_lock);
    return n;
}

void sub_put(struct submission *s)
{
    pthread_mutex_lock(&s->mu);
    int last = --s->refs == 0;
    pthread_mutex_unlock(&s->mu);
    if (!last)
        return;
    for (int i = 0; i < s->nev; i++)
        free(s->ev[i].name), free(s->ev[i].data);
    free(s->ev);
    free(s->code), free(s->gpu_type), free(s->endpoint), free(s->language);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    free(s);
}

static void unregister(struct submission *s)
{
    int found = 0;
    pthread_mutex_lock(&registry_lock);
    for (int i = 0; i < MAX_LIVE; i++)
        if (registry[i] == s) {
            registry[i] = NULL;
            found = 1;
        }
    pthread_mutex_unlock(&registry_lock);
    if (found)
        sub_put(s);
}

void sub_emit(struct submission *s, const char *name, json_t *payload, int final)
{
    if (!payload)
        payload = json_object();
    json_object_set_new(payload, "status", json_string(name));
    json_object_set_new(payload, "submission_id", json_string(s->id));
    char *data = json_dumps(payload, JSON_COMPACT);
    json_decref(payload);
    if (!data)
        return;
    pthread_mutex_lock(&s->mu);
    if (s->done) {
        pthread_mutex_unlock(&s->mu);
        free(data);
        return;
    }
    if (s->nev == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        struct sevent *ev = hw_realloc(s->ev, (size_t)cap * sizeof *ev);
        if (!ev) {
            pthread_mutex_unlock(&s->mu);
            free(data);
            return;
        }
        s->ev = ev;
        s->cap = cap;
    }
    long seq = s->nev;
    s->ev[s->nev].seq = seq;
    s->ev[s->nev].name = hw_strdup(name);
    s->ev[s->nev].data = data;
    s->nev++;
    /* Stored before the stream sees it: a client that reads an event can
     * always find it again with GET. */
    store_event(s->id, seq, name, data);
    if (final) {
        snprintf(s->final_status, sizeof s->final_status, "%s", name);
        store_finish(s->id, name, data);
        s->done = 1;
    }
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    metrics_count("events", name);
    if (final) {
        metrics_count("submissions_finished", name);
        unregister(s);
    }
}
