/* scheduler.c - the queue. Fair across tokens: among queued submissions
 * that a free GPU can take, the one whose token was served least recently
 * goes first (FIFO within a token). A type the pool lacks but dstack can
 * provision waits here while dstack.c provisions it. */
#include "service.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WHO 256

static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t q_cv = PTHREAD_COND_INITIALIZER;
static struct submission *q_head;
static int q_len;
static struct {
    char who[80];
    double last;
} served[MAX_WHO];
static int nserved;

static double last_served(const char *who)
{
    for (int i = 0; i < nserved; i++)
        if (!strcmp(served[i].who, who))
            return served[i].last;
    return 0;
}

static void mark_served(const char *who)
{
    for (int i = 0; i < nserved; i++)
        if (!strcmp(served[i].who, who)) {
            served[i].last = now_s();
            return;
        }
    int i = nserved < MAX_WHO ? nserved++ : 0;
    snprintf(served[i].who, sizeof served[i].who, "%s", who);
    served[i].last = now_s();
}

int sched_queue_length(void)
{
    pthread_mutex_lock(&q_lock);
    int n = q_len;
    pthread_mutex_unlock(&q_lock);
    return n;
}

void sched_enqueue(struct submission *s)
{
    pthread_mutex_lock(&s->mu);
    s->refs++; /* the queue's, moved to the launcher on dispatch */
    pthread_mutex_unlock(&s->mu);
    pthread_mutex_lock(&q_lock);
    struct submission **pp = &q_head;
    while (*pp)
        pp = &(*pp)->qnext;
    s->qnext = NULL;
    *pp = s;
    int pos = ++q_len;
    pthread_mutex_unlock(&q_lock);
    json_t *p = json_object();
    json_object_set_new(p, "message", json_string("Submission queued"));
    json_object_set_new(p, "position", json_integer(pos));
    sub_emit(s, "IN_QUEUE", p, 0);
    if (!pool_has_type(s->gpu_type) && dstack_provisionable(s->gpu_type))
        dstack_request(s->gpu_type);
    sched_kick();
}

int sched_cancel(struct submission *s)
{
    int found = 0;
    pthread_mutex_lock(&q_lock);
    for (struct submission **pp = &q_head; *pp; pp = &(*pp)->qnext)
        if (*pp == s) {
            *pp = s->qnext;
            q_len--;
            found = 1;
            break;
        }
    pthread_mutex_unlock(&q_lock);
    if (found)
        sub_put(s);
    return found;
}

void sched_kick(void)
{
    pthread_mutex_lock(&q_lock);
    pthread_cond_signal(&q_cv);
    pthread_mutex_unlock(&q_lock);
}

/* Takes out every queued submission of a type (with a reference each). */
static int take_type(const char *type, struct submission **out, int max)
{
    int n = 0;
    pthread_mutex_lock(&q_lock);
    struct submission **pp = &q_head;
    while (*pp) {
        if (!strcmp((*pp)->gpu_type, type) && n < max) {
            out[n++] = *pp;
            *pp = (*pp)->qnext;
            q_len--;
        } else {
            pp = &(*pp)->qnext;
        }
    }
    pthread_mutex_unlock(&q_lock);
    return n;
}

void sched_fail_type(const char *type, const char *status, json_t *payload)
{
    struct submission *subs[256];
    int n = take_type(type, subs, 256);
    for (int i = 0; i < n; i++) {
        sub_emit(subs[i], status, json_deep_copy(payload), 1);
        sub_put(subs[i]);
    }
    json_decref(payload);
}

void sched_broadcast_type(const char *type, const char *name, json_t *payload)
{
    pthread_mutex_lock(&q_lock);
    for (struct submission *s = q_head; s; s = s->qnext)
        if (!strcmp(s->gpu_type, type))
            sub_emit(s, name, json_deep_copy(payload), 0);
    pthread_mutex_unlock(&q_lock);
    json_decref(payload);
}

/* One dispatch: the fairest queued submission a GPU can take now. Called
 * with q_lock held; drops it while the launcher starts. */
static int dispatch_one(void)
{
    struct submission *cand[1024];
    double ls[1024];
    int n = 0;
    for (struct submission *s = q_head; s && n < 1024; s = s->qnext) {
        /* Stable insertion by last service time: FIFO within a token. */
        double v = last_served(s->who);
        int j = n++;
        while (j > 0 && ls[j - 1] > v) {
            cand[j] = cand[j - 1];
            ls[j] = ls[j - 1];
            j--;
        }
        cand[j] = s;
        ls[j] = v;
    }
    for (int i = 0; i < n; i++) {
        struct submission *s = cand[i];
        struct lease l;
        if (pool_lease(s->gpu_type, !strcmp(s->endpoint, "benchmark"), s->avoid_worker, &l) != 0)
            continue;
        for (struct submission **pp = &q_head; *pp; pp = &(*pp)->qnext)
            if (*pp == s) {
                *pp = s->qnext;
                break;
            }
        q_len--;
        mark_served(s->who);
        pthread_mutex_unlock(&q_lock);
        launcher_start(s, &l); /* takes the queue's reference */
        pthread_mutex_lock(&q_lock);
        return 1;
    }
    /* Nothing can ever take a submission whose type has no live GPU and
     * cannot be provisioned (its workers died while it waited): end it. */
    for (int i = 0; i < n; i++) {
        struct submission *s = cand[i];
        if (pool_has_type(s->gpu_type) || dstack_provisionable(s->gpu_type))
            continue;
        for (struct submission **pp = &q_head; *pp; pp = &(*pp)->qnext)
            if (*pp == s) {
                *pp = s->qnext;
                break;
            }
        q_len--;
        pthread_mutex_unlock(&q_lock);
        char *types = pool_types_text();
        char msg[1200];
        snprintf(msg, sizeof msg, "no live worker has GPU type '%s' any more; available: %s",
                 s->gpu_type, types);
        free(types);
        json_t *e = json_object();
        json_object_set_new(e, "error", json_string(msg));
        sub_emit(s, "ERROR", e, 1);
        sub_put(s);
        pthread_mutex_lock(&q_lock);
        return 1;
    }
    return 0;
}

static void *sched_loop(void *arg)
{
    pthread_mutex_lock(&q_lock);
    for (;;) {
        while (dispatch_one())
            ;
        pthread_cond_wait(&q_cv, &q_lock);
    }
    pthread_mutex_unlock(&q_lock);
    return arg;
}

void sched_start(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, sched_loop, NULL) == 0)
        pthread_detach(t);
}
