/* api.c - the routes (docs/service.md): the seed's POST /api/amd/submit
 * answered as SSE, submissions, problems, GPU types, metrics, health and
 * the web page. Bad input gets a status and a JSON body saying why. */
#include "service.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <microhttpd.h>

static int error_json(struct MHD_Connection *c, int status, const char *msg, json_t *extra)
{
    json_t *o = extra ? extra : json_object();
    json_object_set_new(o, "error", json_string(msg));
    return http_json(c, status, o);
}

static void client_of(struct MHD_Connection *c, char *out, size_t n)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    snprintf(out, n, "anonymous");
    if (ci && ci->client_addr) {
        const struct sockaddr *sa = ci->client_addr;
        if (sa->sa_family == AF_INET)
            inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, out, (socklen_t)n);
        else if (sa->sa_family == AF_INET6)
            inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, out, (socklen_t)n);
    }
}

static const char *str_field(json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static int submit(struct MHD_Connection *c, const char *who, const char *body, size_t len,
                  int too_large)
{
    char msg[512];
    if (too_large) {
        snprintf(msg, sizeof msg, "request body over the limit of %zu bytes (--max-body)",
                 svc_cfg()->max_body);
        return error_json(c, MHD_HTTP_CONTENT_TOO_LARGE, msg, NULL);
    }
    if (!rate_allow(who) || sub_active_count(who) >= svc_cfg()->max_active) {
        json_t *o = json_object();
        json_object_set_new(o, "status", json_string("RATE_LIMIT_EXCEEDED"));
        metrics_count("rate_limited", "submit");
        return error_json(c, MHD_HTTP_TOO_MANY_REQUESTS,
                          "too many requests: over the rate or concurrency limit for this token",
                          o);
    }
    json_error_t jerr;
    json_t *req = json_loadb(body, len, 0, &jerr);
    if (!req || !json_is_object(req)) {
        snprintf(msg, sizeof msg, "malformed JSON: %s (line %d, column %d)",
                 req ? "not an object" : jerr.text, jerr.line, jerr.column);
        json_decref(req);
        return error_json(c, MHD_HTTP_BAD_REQUEST, msg, NULL);
    }
    static const char *required[] = { "solution_code", "problem", "gpu_type" };
    char missing[256] = "";
    for (unsigned i = 0; i < 3; i++)
        if (!json_is_string(json_object_get(req, required[i]))) {
            size_t n = strlen(missing);
            snprintf(missing + n, sizeof missing - n, "%s%s", n ? ", " : "", required[i]);
        }
    if (missing[0]) {
        json_t *o = json_object();
        json_object_set_new(o, "missing", json_string(missing));
        snprintf(msg, sizeof msg, "missing fields: %s", missing);
        json_decref(req);
        return error_json(c, MHD_HTTP_BAD_REQUEST, msg, o);
    }
    const char *endpoint = str_field(req, "endpoint") ? str_field(req, "endpoint") : "checker";
    const char *lang = str_field(req, "language") ? str_field(req, "language") : "hip";
    const char *dtype = str_field(req, "dtype") ? str_field(req, "dtype") : "float32";
    if (strcmp(endpoint, "checker") && strcmp(endpoint, "benchmark") &&
        strcmp(endpoint, "sample") && strcmp(endpoint, "sandbox")) {
        json_decref(req);
        return error_json(c, MHD_HTTP_BAD_REQUEST,
                          "endpoint must be checker, benchmark, sample or sandbox", NULL);
    }
    if (strcmp(lang, "hip") && strcmp(lang, "hip-kernel") && strcmp(lang, "cuda")) {
        json_decref(req);
        return error_json(c, MHD_HTTP_BAD_REQUEST, "language must be hip or hip-kernel", NULL);
    }
    if (strcmp(dtype, "float32") && strcmp(dtype, "float")) {
        json_decref(req);
        return error_json(c, MHD_HTTP_BAD_REQUEST, "dtype must be float32", NULL);
    }
    const struct problem *p = problems_find(str_field(req, "problem"));
    if (!p) {
        snprintf(msg, sizeof msg, "unknown problem '%s'", str_field(req, "problem"));
        json_t *o = json_object(), *pl = problems_list(), *slugs = json_array();
        size_t i;
        json_t *x;
        json_array_foreach(pl, i, x) json_array_append(slugs, json_object_get(x, "slug"));
        json_decref(pl);
        json_object_set_new(o, "problems", slugs);
        json_decref(req);
        return error_json(c, MHD_HTTP_NOT_FOUND, msg, o);
    }
    struct submission *s =
        sub_create(who, str_field(req, "solution_code"), p, str_field(req, "gpu_type"), endpoint,
                   !strcmp(lang, "cuda") ? "hip" : lang);
    json_decref(req);
    if (!s)
        return error_json(c, MHD_HTTP_SERVICE_UNAVAILABLE, "too many live submissions", NULL);
    metrics_count("submissions", s->endpoint);
    /* The stream's own reference, taken before anything can finish it. */
    pthread_mutex_lock(&s->mu);
    s->refs++;
    pthread_mutex_unlock(&s->mu);
    if (!strcmp(s->endpoint, "sandbox")) {
        json_t *e = json_object();
        json_object_set_new(e, "error",
                            json_string("the sandbox endpoint is not offered by this "
                                        "service; use checker, benchmark or sample"));
        sub_emit(s, "ERROR", e, 1);
    } else if (!pool_has_type(s->gpu_type) && !dstack_provisionable(s->gpu_type)) {
        char *types = pool_types_text();
        json_t *e = json_object();
        snprintf(msg, sizeof msg, "GPU type '%s' is not available; available: %s", s->gpu_type,
                 types);
        json_object_set_new(e, "error", json_string(msg));
        json_object_set_new(e, "details", json_string(types));
        json_object_set_new(e, "available_gpu_types", pool_types());
        free(types);
        sub_emit(s, "ERROR", e, 1);
    } else {
        sched_enqueue(s);
    }
    return sse_stream_live(c, s, -1, MHD_HTTP_OK);
}

static int submission_route(struct MHD_Connection *c, const char *method, const char *rest)
{
    char id[40];
    size_t n = strcspn(rest, "/");
    if (n == 0 || n >= sizeof id)
        return error_json(c, MHD_HTTP_NOT_FOUND, "no such submission", NULL);
    memcpy(id, rest, n);
    id[n] = '\0';
    const char *tail = rest + n;
    if (!strcmp(method, "GET") && !strcmp(tail, "/events")) {
        const char *lei = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Last-Event-ID");
        if (!lei)
            lei = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "after");
        long after = lei ? strtol(lei, NULL, 10) : -1;
        struct submission *s = sub_find(id);
        if (s)
            return sse_stream_live(c, s, after, MHD_HTTP_OK);
        json_t *rec = store_get(id);
        if (!rec)
            return error_json(c, MHD_HTTP_NOT_FOUND, "no such submission", NULL);
        json_decref(rec);
        return sse_stream_stored(c, store_events(id, after));
    }
    if (!strcmp(method, "GET") && !*tail) {
        json_t *rec = store_get(id);
        if (!rec)
            return error_json(c, MHD_HTTP_NOT_FOUND, "no such submission", NULL);
        return http_json(c, MHD_HTTP_OK, rec);
    }
    if (!strcmp(method, "DELETE") && !*tail) {
        struct submission *s = sub_find(id);
        if (s) {
            /* Its final event may be out while it is still registered. */
            pthread_mutex_lock(&s->mu);
            int done = s->done;
            pthread_mutex_unlock(&s->mu);
            if (done) {
                sub_put(s);
                s = NULL;
            }
        }
        if (!s) {
            json_t *rec = store_get(id);
            json_decref(rec);
            return error_json(c, rec ? MHD_HTTP_CONFLICT : MHD_HTTP_NOT_FOUND,
                              rec ? "already finished" : "no such submission", NULL);
        }
        if (sched_cancel(s)) {
            json_t *e = json_object();
            json_object_set_new(e, "error", json_string("cancelled"));
            sub_emit(s, "ERROR", e, 1);
        } else {
            pthread_mutex_lock(&s->mu);
            s->cancel = 1;
            pthread_mutex_unlock(&s->mu);
        }
        sub_put(s);
        json_t *o = json_object();
        json_object_set_new(o, "id", json_string(id));
        json_object_set_new(o, "cancelled", json_true());
        return http_json(c, MHD_HTTP_ACCEPTED, o);
    }
    return error_json(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed", NULL);
}

int api_route(struct MHD_Connection *c, const char *method, const char *url, const char *body,
              size_t len, int too_large)
{
    if (!strcmp(method, "GET") && !strcmp(url, "/")) {
        size_t n;
        const char *html = web_index_html(&n);
        struct MHD_Response *r =
            MHD_create_response_from_buffer(n, (void *)html, MHD_RESPMEM_PERSISTENT);
        MHD_add_response_header(r, "Content-Type", "text/html; charset=utf-8");
        int rc = MHD_queue_response(c, MHD_HTTP_OK, r);
        MHD_destroy_response(r);
        return rc;
    }
    if (!strcmp(url, "/healthz")) {
        json_t *o = json_object();
        json_object_set_new(o, "status", json_string("ok"));
        json_object_set_new(o, "gpus", json_integer(pool_gpu_count()));
        return http_json(c, MHD_HTTP_OK, o);
    }
    if (!strcmp(url, "/metrics")) {
        char *m = metrics_render();
        if (!m)
            return MHD_NO;
        struct MHD_Response *r =
            MHD_create_response_from_buffer(strlen(m), m, MHD_RESPMEM_MUST_FREE);
        MHD_add_response_header(r, "Content-Type", "text/plain; version=0.0.4");
        int rc = MHD_queue_response(c, MHD_HTTP_OK, r);
        MHD_destroy_response(r);
        return rc;
    }
    if (strncmp(url, "/api/", 5) != 0)
        return error_json(c, MHD_HTTP_NOT_FOUND, "not found", NULL);
    char client[64], who[80];
    client_of(c, client, sizeof client);
    int a = auth_check(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization"), client,
                       who, sizeof who);
    if (a == 401)
        return error_json(c, MHD_HTTP_UNAUTHORIZED,
                          "authentication required (Authorization: "
                          "Bearer TOKEN)",
                          NULL);
    if (a == 403)
        return error_json(c, MHD_HTTP_FORBIDDEN, "invalid token", NULL);
    if (!strcmp(method, "POST") && (!strcmp(url, "/api/amd/submit") || !strcmp(url, "/api/submit")))
        return submit(c, who, body, len, too_large);
    if (!strcmp(method, "GET") && !strcmp(url, "/api/problems"))
        return http_json(c, MHD_HTTP_OK, problems_list());
    if (!strcmp(method, "GET") && !strcmp(url, "/api/gpus"))
        return http_json(c, MHD_HTTP_OK, pool_types());
    if (!strcmp(method, "GET") && !strcmp(url, "/api/submissions"))
        return http_json(c, MHD_HTTP_OK, store_history(who, 50));
    if (!strncmp(url, "/api/submissions/", 17))
        return submission_route(c, method, url + 17);
    return error_json(c, MHD_HTTP_NOT_FOUND, "not found", NULL);
}
