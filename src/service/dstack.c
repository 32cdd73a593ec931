/* dstack.c - provisioning through dstack's HTTP API (never its CLI): a run
 * whose task is hip-worker, with an idle duration so the machine stays warm
 * for later submissions. Its statuses are passed on as PROVISIONING events;
 * a terminal one (failed, terminated, no capacity, ...) ends the waiting
 * submissions at once with ERROR. One provisioning per GPU type at a time.
 * The worker's address is the job's hostname and the host port dstack
 * mapped to the worker's port (job_runtime_data.ports). */
#include "hw_alloc.h"
#include "service.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>
#include <openssl/rand.h>

static pthread_mutex_t dstack_lock = PTHREAD_MUTEX_INITIALIZER;
static char inflight[16][64];
static char token[512];

struct buf {
    char *p;
    size_t n;
};

static size_t on_data(char *d, size_t sz, size_t nm, void *u)
{
    struct buf *b = u;
    size_t n = sz * nm;
    char *p = hw_realloc(b->p, b->n + n + 1);
    if (!p)
        return 0;
    memcpy(p + b->n, d, n);
    b->n += n;
    p[b->n] = '\0';
    b->p = p;
    return n;
}

int dstack_enabled(void)
{
    return svc_cfg()->dstack_url != NULL;
}

int dstack_provisionable(const char *type)
{
    if (!dstack_enabled())
        return 0;
    for (int i = 0; i < svc_cfg()->n_dstack_gpus; i++)
        if (!strcmp(svc_cfg()->dstack_gpus[i], type))
            return 1;
    return 0;
}

/* POSTs body to path (relative to --dstack-url); the parsed reply or NULL
 * with why in err. */
static json_t *post(const char *path, json_t *body, char *err, size_t errsz)
{
    CURL *c = curl_easy_init();
    struct buf b = { NULL, 0 };
    char url[1024], auth[600];
    json_t *out = NULL;
    if (!c) {
        snprintf(err, errsz, "curl_easy_init failed");
        json_decref(body);
        return NULL;
    }
    snprintf(url, sizeof url, "%s%s", svc_cfg()->dstack_url, path);
    char *js = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
    if (token[0]) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
        h = curl_slist_append(h, auth);
    }
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, js ? js : "{}");
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    CURLcode rc = curl_easy_perform(c);
    long code = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    if (rc != CURLE_OK)
        snprintf(err, errsz, "dstack %s: %s", path, curl_easy_strerror(rc));
    else if (code != 200)
        snprintf(err, errsz, "dstack %s: HTTP %ld: %.200s", path, code, b.p ? b.p : "");
    else if (!(out = json_loads(b.p ? b.p : "", 0, NULL)))
        snprintf(err, errsz, "dstack %s: unparsable reply", path);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    free(js);
    free(b.p);
    return out;
}

/* The worker's token travels in the run's environment and the task writes
 * it to a file for --token-file; without one the worker runs --insecure
 * (for a private network only). */
static json_t *run_spec(const char *type, const char *name)
{
    const struct svc_config *cfg = svc_cfg();
    char cmd[512], secret[1100] = "";
    FILE *f = cfg->worker_token_file ? fopen(cfg->worker_token_file, "r") : NULL;
    if (f) {
        if (!fgets(secret, sizeof secret, f))
            secret[0] = '\0';
        secret[strcspn(secret, "\r\n")] = '\0';
        fclose(f);
    }
    if (secret[0])
        snprintf(cmd, sizeof cmd,
                 "printf %%s \"$HIPWIRE_WORKER_TOKEN\" > /tmp/hipwire-token && chmod 600 "
                 "/tmp/hipwire-token && hip-worker --bind 0.0.0.0 --port %d --backend auto "
                 "--token-file /tmp/hipwire-token",
                 cfg->dstack_worker_port);
    else
        snprintf(cmd, sizeof cmd, "hip-worker --bind 0.0.0.0 --insecure --port %d --backend auto",
                 cfg->dstack_worker_port);
    json_t *conf =
        json_pack("{s:s, s:s, s:[s], s:[i], s:{s:{s:s, s:i}}, s:s}", "type", "task", "image",
                  cfg->dstack_image, "commands", cmd, "ports", cfg->dstack_worker_port, "resources",
                  "gpu", "name", type, "count", 1, "idle_duration", cfg->dstack_idle);
    if (secret[0])
        json_object_set_new(conf, "env", json_pack("{s:s}", "HIPWIRE_WORKER_TOKEN", secret));
    return json_pack("{s:s, s:o}", "run_name", name, "configuration", conf);
}

static json_t *latest_submission(json_t *run)
{
    json_t *ls = json_object_get(run, "latest_job_submission");
    if (ls)
        return ls;
    json_t *jobs = json_object_get(run, "jobs");
    json_t *subs = json_object_get(json_array_get(jobs, 0), "job_submissions");
    return json_array_get(subs, json_array_size(subs) ? json_array_size(subs) - 1 : 0);
}

static int terminal(const char *status, const char *msg)
{
    static const char *bad[] = { "failed", "terminated", "terminating", "done", "aborted" };
    static const char *bad_msg[] = { "no capacity", "no fleets", "error",
                                     "interrupted", "stopped",   "aborted" };
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (status && !strcmp(status, bad[i]))
            return 1;
    for (unsigned i = 0; i < sizeof bad_msg / sizeof bad_msg[0]; i++)
        if (msg && !strcmp(msg, bad_msg[i]))
            return 1;
    return 0;
}

/* The worker's address once the run is running: 0 and host/port set. */
static int worker_address(json_t *run, char *host, size_t hsz, int *port)
{
    json_t *sub = latest_submission(run);
    const char *h = json_string_value(
        json_object_get(json_object_get(sub, "job_provisioning_data"), "hostname"));
    json_t *ports = json_object_get(json_object_get(sub, "job_runtime_data"), "ports");
    char key[16];
    snprintf(key, sizeof key, "%d", svc_cfg()->dstack_worker_port);
    json_t *p = json_object_get(ports, key);
    if (!h)
        return -1;
    snprintf(host, hsz, "%s", h);
    *port = p ? (int)json_integer_value(p) : svc_cfg()->dstack_worker_port;
    return 0;
}

static void fail(const char *type, const char *msg, const char *details)
{
    json_t *e = json_object();
    json_object_set_new(e, "error", json_string(msg));
    if (details)
        json_object_set_new(e, "details", json_string(details));
    sched_fail_type(type, "ERROR", e);
}

static void provisioning(const char *type, const char *status, const char *msg)
{
    json_t *p = json_object();
    char text[256];
    snprintf(text, sizeof text, "dstack: %s%s%s", status, msg && msg[0] ? " - " : "",
             msg ? msg : "");
    json_object_set_new(p, "message", json_string(text));
    json_object_set_new(p, "dstack_status", json_string(status));
    if (msg)
        json_object_set_new(p, "dstack_status_message", json_string(msg));
    sched_broadcast_type(type, "PROVISIONING", p);
}

static void *provision_thread(void *arg)
{
    char *type = arg, err[512], name[96], host[256];
    const char *proj = svc_cfg()->dstack_project;
    char path[512];
    unsigned char rnd[4];
    RAND_bytes(rnd, sizeof rnd);
    snprintf(name, sizeof name, "hipwire-worker-%02x%02x%02x%02x", rnd[0], rnd[1], rnd[2], rnd[3]);
    provisioning(type, "submitting", NULL);
    snprintf(path, sizeof path, "/api/project/%s/runs/apply", proj);
    json_t *r = post(
        path, json_pack("{s:{s:o}, s:b}", "plan", "run_spec", run_spec(type, name), "force", 0),
        err, sizeof err);
    if (!r) {
        fail(type, "dstack could not start a worker", err);
        goto out;
    }
    json_decref(r);
    char last[128] = "";
    snprintf(path, sizeof path, "/api/project/%s/runs/get", proj);
    for (int polls = 0; polls < 600; polls++) {
        r = post(path, json_pack("{s:s}", "run_name", name), err, sizeof err);
        if (!r) {
            fail(type, "dstack: cannot read the run's status", err);
            goto out;
        }
        json_t *sub = latest_submission(r);
        const char *st = json_string_value(json_object_get(r, "status"));
        const char *msg = json_string_value(json_object_get(r, "status_message"));
        if (!msg)
            msg = json_string_value(json_object_get(sub, "status_message"));
        const char *jst = json_string_value(json_object_get(sub, "status"));
        char now[128];
        snprintf(now, sizeof now, "%s/%s/%s", st ? st : "?", jst ? jst : "", msg ? msg : "");
        if (strcmp(now, last) != 0) {
            provisioning(type, jst ? jst : st ? st : "unknown", msg);
            snprintf(last, sizeof last, "%s", now);
        }
        if (terminal(st, msg)) {
            char m[256];
            const char *reason = json_string_value(json_object_get(sub, "termination_reason"));
            snprintf(m, sizeof m, "dstack could not provision a %s: %s", type, msg ? msg : st);
            fail(type, m, reason);
            json_decref(r);
            goto out;
        }
        int port = 0;
        if (st && !strcmp(st, "running") && worker_address(r, host, sizeof host, &port) == 0) {
            json_decref(r);
            /* The worker may need a moment after the run turns running. */
            for (int i = 0; i < 20; i++) {
                if (pool_add_worker(host, port, name, type) == 0)
                    break;
                sleep(1);
            }
            if (!pool_has_type(type))
                fail(type, "dstack started a worker that the service cannot reach", host);
            sched_kick();
            goto out;
        }
        json_decref(r);
        usleep((useconds_t)(svc_cfg()->dstack_poll_s * 1e6));
    }
    fail(type, "dstack: provisioning timed out", NULL);
out:
    pthread_mutex_lock(&dstack_lock);
    for (int i = 0; i < 16; i++)
        if (!strcmp(inflight[i], type))
            inflight[i][0] = '\0';
    pthread_mutex_unlock(&dstack_lock);
    free(type);
    return NULL;
}

void dstack_request(const char *type)
{
    int slot = -1;
    pthread_mutex_lock(&dstack_lock);
    for (int i = 0; i < 16; i++) {
        if (!strcmp(inflight[i], type)) {
            pthread_mutex_unlock(&dstack_lock);
            return;
        }
        if (!inflight[i][0] && slot < 0)
            slot = i;
    }
    if (slot >= 0)
        snprintf(inflight[slot], sizeof inflight[slot], "%s", type);
    pthread_mutex_unlock(&dstack_lock);
    if (slot < 0)
        return;
    if (!token[0] && svc_cfg()->dstack_token_file) {
        FILE *f = fopen(svc_cfg()->dstack_token_file, "r");
        if (f) {
            if (fgets(token, sizeof token, f))
                token[strcspn(token, "\r\n")] = '\0';
            fclose(f);
        }
    }
    pthread_t t;
    char *arg = hw_strdup(type);
    if (arg && pthread_create(&t, NULL, provision_thread, arg) == 0)
        pthread_detach(t);
    else
        free(arg);
}

void dstack_adopt_running(void)
{
    char err[512], host[256];
    if (!dstack_enabled())
        return;
    if (!token[0] && svc_cfg()->dstack_token_file) {
        FILE *f = fopen(svc_cfg()->dstack_token_file, "r");
        if (f) {
            if (fgets(token, sizeof token, f))
                token[strcspn(token, "\r\n")] = '\0';
            fclose(f);
        }
    }
    json_t *r =
        post("/api/runs/list",
             json_pack("{s:s, s:b}", "project_name", svc_cfg()->dstack_project, "only_active", 1),
             err, sizeof err);
    size_t i;
    json_t *run;
    json_array_foreach(r, i, run)
    {
        const char *name =
            json_string_value(json_object_get(json_object_get(run, "run_spec"), "run_name"));
        if (!name)
            name = json_string_value(json_object_get(run, "run_name"));
        int port;
        if (name && !strncmp(name, "hipwire-worker-", 15) &&
            json_is_string(json_object_get(run, "status")) &&
            !strcmp(json_string_value(json_object_get(run, "status")), "running") &&
            worker_address(run, host, sizeof host, &port) == 0)
            pool_add_worker(
                host, port, name,
                json_string_value(json_object_get(
                    json_object_get(
                        json_object_get(
                            json_object_get(json_object_get(run, "run_spec"), "configuration"),
                            "resources"),
                        "gpu"),
                    "name")));
    }
    json_decref(r);
}
