/* service.h - hipwire-service's modules and what they share
 * (docs/service.md). */
#ifndef HW_SERVICE_H
#define HW_SERVICE_H

#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>

#include <jansson.h>

struct svc_config {
    const char *listen_host;
    int listen_port;
    const char *token_file;
    const char *db_path;
    const char *problems_dir;
    const char *dstack_url;
    const char *dstack_token_file;
    const char *dstack_project;
    const char *dstack_gpus[16];
    int n_dstack_gpus;
    const char *dstack_image;
    const char *dstack_idle;
    int dstack_worker_port;
    const char *worker_token_file; /* the workers' --token-file secret */
    double dstack_poll_s;
    double time_limit_s;
    size_t max_body;
    int rate_per_min;
    int max_active;
    int check_slots;
    size_t flush_bytes_gpu;
    size_t flush_bytes_cpu;
    double bench_budget_s;
    const char *runner_path;
    const char *worker_path;
    const char *cc_path;
};

/* The configuration, filled once by main.c before any thread starts. */
const struct svc_config *svc_cfg(void);

/* problems.c */
struct problem {
    char *slug;
    char *title;
    json_t *def;            /* problem.json */
    char *reference_source; /* reference.hip */
};
int problems_load(const char *dir);
const struct problem *problems_find(const char *slug_or_alias);
json_t *problems_list(void);

/* submission.c */
struct sevent {
    long seq;
    char *name;
    char *data;
};

struct submission {
    char id[33];
    char who[80]; /* the token's name, or the client's address without auth */
    char *code;
    char *gpu_type;
    char *endpoint;
    char *language;
    const struct problem *prob;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct sevent *ev;
    int nev, cap;
    int done;
    int cancel;
    int attempts;
    int avoid_worker; /* -1, or the worker a retry must not use */
    char final_status[32];
    int refs;
    double created;
    struct submission *qnext;
};

struct submission *sub_create(const char *who, const char *code, const struct problem *p,
                              const char *gpu, const char *endpoint, const char *lang);
struct submission *sub_find(const char *id); /* a new reference or NULL */
void sub_put(struct submission *s);
/* Appends an event (payload stolen; submission_id added), stores it and
 * wakes streams. final: the submission ends with it. */
void sub_emit(struct submission *s, const char *name, json_t *payload, int final);
int sub_active_count(const char *who);
double now_s(void);

/* store.c */
int store_open(const char *path);
void store_close(void);
void store_submission(const struct submission *s);
void store_event(const char *id, long seq, const char *name, const char *data);
void store_finish(const char *id, const char *status, const char *result);
json_t *store_get(const char *id); /* NULL when unknown */
json_t *store_events(const char *id, long after);
json_t *store_history(const char *who, int limit);

/* pool.c */
struct lease {
    int gpu;
    int worker;
    int exclusive;
    char host[256];
    int port;
    int device;
    char device_class[8];
};
/* Probes host:port and adds its devices; type, when given, names them
 * (dstack machines), else their model name does. */
int pool_add_worker(const char *host, int port, const char *dstack_run, const char *type);
int pool_has_type(const char *type);
int pool_lease(const char *type, int exclusive, int avoid_worker, struct lease *l);
void pool_release(const struct lease *l);
void pool_mark_dead(int worker);
json_t *pool_types(void);
char *pool_types_text(void);
void pool_start_health(void);
int pool_gpu_count(void);

/* refcache.c: 0 with the compiled reference's path and SHA-256 (hex). */
int refcache_get(const struct problem *p, const struct lease *l, char *path, size_t psz,
                 char sha[65]);
void refcache_cleanup(void);

/* worker_local.c */
int worker_local_start(int *port);
void worker_local_stop(void);

/* scheduler.c */
void sched_start(void);
void sched_enqueue(struct submission *s);
int sched_cancel(struct submission *s); /* 1 when it was still queued */
void sched_kick(void);
void sched_fail_type(const char *type, const char *status, json_t *payload);
void sched_broadcast_type(const char *type, const char *name, json_t *payload);
int sched_queue_length(void);

/* launcher.c */
void launcher_start(struct submission *s, const struct lease *l);
int launcher_running(void);

/* dstack.c */
int dstack_enabled(void);
int dstack_provisionable(const char *type);
void dstack_request(const char *type); /* starts provisioning once per type */
void dstack_adopt_running(void);

/* auth.c */
int auth_load(const char *path);
/* 0 ok (who filled), 401 or 403. */
int auth_check(const char *authorization, const char *client, char *who, size_t whosz);
int rate_allow(const char *who); /* 1 allowed, 0 over the rate */

/* metrics.c */
void metrics_count(const char *name, const char *label);
char *metrics_render(void);

/* http.c, api.c, sse.c */
struct MHD_Connection;
int http_start(const char *host, int port);
void http_stop(void);
int api_route(struct MHD_Connection *c, const char *method, const char *url, const char *body,
              size_t body_len, int body_too_large);
int sse_stream_live(struct MHD_Connection *c, struct submission *s, long after, int status);
int sse_stream_stored(struct MHD_Connection *c, json_t *events);   /* steals events */
int http_json(struct MHD_Connection *c, int status, json_t *body); /* steals body */

/* web.c */
const char *web_index_html(size_t *len);

/* paths.c */
char *paths_find(const char *name, const char *configured);

#endif
