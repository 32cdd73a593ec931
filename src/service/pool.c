/* pool.c - the GPUs the service can lease: each worker's devices, under
 * their model name (the one source of GET /api/gpus and of scheduling).
 * A benchmark leases a GPU alone; checks share one, up to --check-slots.
 * A health thread connects to each worker every few seconds. */
#include "hw_alloc.h"
#include "service.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_WORKERS 64
#define MAX_GPUS    256

struct worker {
    char host[256];
    int port;
    int alive;
    char dstack_run[128];
};

struct gpu {
    int worker;
    int device;
    char type[64];
    char device_class[8];
    int bench;
    int checks;
};

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct worker workers[MAX_WORKERS];
static int nworkers;
static struct gpu gpus[MAX_GPUS];
static int ngpus;

/* The GPU type a device name stands for: the model names users ask for
 * (MI300X, H100, ...); the CPU device is "cpu". */
static void type_of(const char *name, char *type, size_t n)
{
    static const char *models[] = { "MI355X", "MI325X", "MI300X", "MI300A", "MI250X", "MI250",
                                    "MI210",  "MI100",  "H200",   "H100",   "B200",   "A100",
                                    "L40S",   "L4",     "A10G",   "T4" };
    if (strstr(name, "hipwire CPU")) {
        snprintf(type, n, "cpu");
        return;
    }
    for (unsigned i = 0; i < sizeof models / sizeof models[0]; i++)
        if (strstr(name, models[i])) {
            snprintf(type, n, "%s", models[i]);
            return;
        }
    snprintf(type, n, "%s", name);
}

/* Runs hipwire-runner --probe against host:port; the device list or NULL. */
static json_t *probe(const char *host, int port)
{
    int fds[2];
    char portstr[16], buf[65536];
    size_t got = 0;
    if (pipe(fds) != 0)
        return NULL;
    snprintf(portstr, sizeof portstr, "%d", port);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        setenv("TF_WORKER_HOST", host, 1);
        setenv("TF_WORKER_PORT", portstr, 1);
        setenv("TF_WORKER_RESUME_TIMEOUT_MS", "0", 1);
        if (svc_cfg()->worker_token_file)
            setenv("TF_WORKER_TOKEN_FILE", svc_cfg()->worker_token_file, 1);
        alarm(30);
        execl(svc_cfg()->runner_path, "hipwire-runner", "--probe", (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        return NULL;
    }
    for (;;) {
        ssize_t r = read(fds[0], buf + got, sizeof buf - 1 - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    buf[got] = '\0';
    close(fds[0]);
    int st;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return NULL;
    json_t *o = json_loads(buf, 0, NULL);
    json_t *devs = json_incref(json_object_get(o, "devices"));
    json_decref(o);
    return devs;
}

int pool_add_worker(const char *host, int port, const char *dstack_run, const char *type)
{
    json_t *devs = probe(host, port);
    if (!devs || json_array_size(devs) == 0) {
        fprintf(stderr, "hipwire-service: worker %s:%d: no devices (unreachable?)\n", host, port);
        json_decref(devs);
        return -1;
    }
    pthread_mutex_lock(&pool_lock);
    int w = -1;
    for (int i = 0; i < nworkers; i++)
        if (!strcmp(workers[i].host, host) && workers[i].port == port)
            w = i;
    if (w >= 0) {
        workers[w].alive = 1;
        pthread_mutex_unlock(&pool_lock);
        json_decref(devs);
        return 0;
    }
    if (nworkers == MAX_WORKERS) {
        pthread_mutex_unlock(&pool_lock);
        json_decref(devs);
        return -1;
    }
    w = nworkers++;
    snprintf(workers[w].host, sizeof workers[w].host, "%s", host);
    workers[w].port = port;
    workers[w].alive = 1;
    snprintf(workers[w].dstack_run, sizeof workers[w].dstack_run, "%s",
             dstack_run ? dstack_run : "");
    size_t i;
    json_t *d;
    json_array_foreach(devs, i, d)
    {
        if (ngpus == MAX_GPUS)
            break;
        struct gpu *g = &gpus[ngpus++];
        memset(g, 0, sizeof *g);
        g->worker = w;
        g->device = (int)json_integer_value(json_object_get(d, "index"));
        const char *name = json_string_value(json_object_get(d, "name"));
        /* A dstack machine was asked for by type; dstack's resources
         * guarantee it, whatever the device calls itself. */
        char model[64];
        type_of(name ? name : "unknown", model, sizeof model);
        snprintf(g->type, sizeof g->type, "%s", type ? type : model);
        /* Test sizes follow the device itself, not the label. */
        snprintf(g->device_class, sizeof g->device_class, "%s",
                 !strcmp(model, "cpu") ? "cpu" : "gpu");
        fprintf(stderr, "hipwire-service: worker %s:%d device %d: %s (type %s)\n", host, port,
                g->device, name ? name : "?", g->type);
    }
    pthread_mutex_unlock(&pool_lock);
    json_decref(devs);
    return 0;
}

int pool_has_type(const char *type)
{
    int found = 0;
    pthread_mutex_lock(&pool_lock);
    for (int i = 0; i < ngpus && !found; i++)
        found = !strcmp(gpus[i].type, type) && workers[gpus[i].worker].alive;
    pthread_mutex_unlock(&pool_lock);
    return found;
}

int pool_gpu_count(void)
{
    pthread_mutex_lock(&pool_lock);
    int n = ngpus;
    pthread_mutex_unlock(&pool_lock);
    return n;
}

int pool_lease(const char *type, int exclusive, int avoid_worker, struct lease *l)
{
    int best = -1;
    pthread_mutex_lock(&pool_lock);
    for (int i = 0; i < ngpus; i++) {
        struct gpu *g = &gpus[i];
        if (strcmp(g->type, type) != 0 || !workers[g->worker].alive || g->bench ||
            (avoid_worker >= 0 && g->worker == avoid_worker && nworkers > 1))
            continue;
        if (exclusive ? g->checks > 0 : g->checks >= svc_cfg()->check_slots)
            continue;
        if (best < 0 || g->checks < gpus[best].checks)
            best = i;
    }
    if (best >= 0) {
        struct gpu *g = &gpus[best];
        if (exclusive)
            g->bench = 1;
        else
            g->checks++;
        l->gpu = best;
        l->worker = g->worker;
        l->exclusive = exclusive;
        snprintf(l->host, sizeof l->host, "%s", workers[g->worker].host);
        l->port = workers[g->worker].port;
        l->device = g->device;
        snprintf(l->device_class, sizeof l->device_class, "%s", g->device_class);
    }
    pthread_mutex_unlock(&pool_lock);
    return best >= 0 ? 0 : -1;
}

void pool_release(const struct lease *l)
{
    pthread_mutex_lock(&pool_lock);
    if (l->exclusive)
        gpus[l->gpu].bench = 0;
    else if (gpus[l->gpu].checks > 0)
        gpus[l->gpu].checks--;
    pthread_mutex_unlock(&pool_lock);
    sched_kick();
}

void pool_mark_dead(int worker)
{
    pthread_mutex_lock(&pool_lock);
    if (worker >= 0 && worker < nworkers && workers[worker].alive) {
        workers[worker].alive = 0;
        fprintf(stderr, "hipwire-service: worker %s:%d is down\n", workers[worker].host,
                workers[worker].port);
    }
    pthread_mutex_unlock(&pool_lock);
}

json_t *pool_types(void)
{
    json_t *arr = json_array();
    pthread_mutex_lock(&pool_lock);
    for (int i = 0; i < ngpus; i++) {
        json_t *e = NULL;
        size_t k;
        json_t *x;
        json_array_foreach(arr, k, x)
        {
            if (!strcmp(json_string_value(json_object_get(x, "type")), gpus[i].type))
                e = x;
        }
        if (!e) {
            e = json_object();
            json_object_set_new(e, "type", json_string(gpus[i].type));
            json_object_set_new(e, "gpus", json_integer(0));
            json_object_set_new(e, "available", json_integer(0));
            json_object_set_new(e, "benchmarking", json_integer(0));
            json_object_set_new(e, "provisionable", json_false());
            json_array_append_new(arr, e);
        }
        int alive = workers[gpus[i].worker].alive;
        json_object_set_new(e, "gpus",
                            json_integer(json_integer_value(json_object_get(e, "gpus")) + 1));
        json_object_set_new(
            e, "available",
            json_integer(json_integer_value(json_object_get(e, "available")) + alive));
        json_object_set_new(
            e, "benchmarking",
            json_integer(json_integer_value(json_object_get(e, "benchmarking")) + gpus[i].bench));
    }
    pthread_mutex_unlock(&pool_lock);
    for (int i = 0; i < svc_cfg()->n_dstack_gpus; i++) {
        const char *t = svc_cfg()->dstack_gpus[i];
        int present = 0;
        size_t k;
        json_t *x;
        json_array_foreach(arr, k, x)
        {
            if (!strcmp(json_string_value(json_object_get(x, "type")), t)) {
                json_object_set_new(x, "provisionable", json_true());
                present = 1;
            }
        }
        if (!present && dstack_enabled()) {
            json_t *e = json_object();
            json_object_set_new(e, "type", json_string(t));
            json_object_set_new(e, "gpus", json_integer(0));
            json_object_set_new(e, "available", json_integer(0));
            json_object_set_new(e, "benchmarking", json_integer(0));
            json_object_set_new(e, "provisionable", json_true());
            json_array_append_new(arr, e);
        }
    }
    return arr;
}

char *pool_types_text(void)
{
    json_t *arr = pool_types();
    char buf[1024] = "";
    size_t k;
    json_t *x;
    json_array_foreach(arr, k, x)
    {
        size_t n = strlen(buf);
        const char *note = "";
        if (!json_integer_value(json_object_get(x, "available")))
            note = json_is_true(json_object_get(x, "provisionable")) ? " (provisionable)"
                                                                     : " (all down)";
        snprintf(buf + n, sizeof buf - n, "%s%s%s", n ? ", " : "",
                 json_string_value(json_object_get(x, "type")), note);
    }
    json_decref(arr);
    return hw_strdup(buf[0] ? buf : "none");
}

static int reachable(const char *host, int port)
{
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL;
    char ps[16];
    int ok = 0;
    snprintf(ps, sizeof ps, "%d", port);
    if (getaddrinfo(host, ps, &hints, &res) != 0)
        return 0;
    int fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd >= 0) {
        if (connect(fd, res->ai_addr, res->ai_addrlen) == 0) {
            ok = 1;
        } else if (errno == EINPROGRESS) {
            struct pollfd p = { fd, POLLOUT, 0 };
            int err = 0;
            socklen_t len = sizeof err;
            if (poll(&p, 1, 2000) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 &&
                err == 0)
                ok = 1;
        }
        close(fd);
    }
    freeaddrinfo(res);
    return ok;
}

static void *health_loop(void *arg)
{
    for (;;) {
        sleep(3);
        pthread_mutex_lock(&pool_lock);
        int n = nworkers;
        pthread_mutex_unlock(&pool_lock);
        for (int i = 0; i < n; i++) {
            char host[sizeof workers[0].host];
            int port;
            pthread_mutex_lock(&pool_lock);
            memcpy(host, workers[i].host, sizeof host); /* NUL-terminated there */
            port = workers[i].port;
            pthread_mutex_unlock(&pool_lock);
            int ok = reachable(host, port);
            pthread_mutex_lock(&pool_lock);
            int was = workers[i].alive;
            workers[i].alive = ok;
            pthread_mutex_unlock(&pool_lock);
            if (was != ok) {
                fprintf(stderr, "hipwire-service: worker %s:%d is %s\n", host, port,
                        ok ? "back" : "down");
                sched_kick(); /* back: work for it; down: its queue may be stranded */
            }
        }
    }
    return arg;
}

void pool_start_health(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, health_loop, NULL) == 0)
        pthread_detach(t);
}
