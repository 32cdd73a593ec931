/* store.c - SQLite in WAL mode: submissions, their events and results. One
 * connection behind one lock (writes are small; WAL keeps readers of other
 * processes, e.g. sqlite3 on the command line, unblocked). On open, any
 * submission a previous run left unfinished is ended with ERROR saying so. */
#include "service.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

static pthread_mutex_t store_lock = PTHREAD_MUTEX_INITIALIZER;
static sqlite3 *db;

static const char schema[] =
    "PRAGMA journal_mode=WAL;"
    "PRAGMA synchronous=NORMAL;"
    "CREATE TABLE IF NOT EXISTS submissions(id TEXT PRIMARY KEY, who TEXT, problem TEXT,"
    " gpu_type TEXT, endpoint TEXT, language TEXT, code TEXT, status TEXT, created REAL,"
    " finished REAL, result TEXT);"
    "CREATE TABLE IF NOT EXISTS events(submission_id TEXT, seq INTEGER, name TEXT, data TEXT,"
    " PRIMARY KEY(submission_id, seq));";

static void recover(void)
{
    sqlite3_stmt *st;
    const char *q = "SELECT id, (SELECT COALESCE(MAX(seq)+1,0) FROM events WHERE submission_id=id)"
                    " FROM submissions WHERE finished IS NULL";
    if (sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK)
        return;
    char ids[256][33];
    long seqs[256];
    int n = 0;
    while (n < 256 && sqlite3_step(st) == SQLITE_ROW) {
        snprintf(ids[n], sizeof ids[n], "%s", (const char *)sqlite3_column_text(st, 0));
        seqs[n++] = sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    for (int i = 0; i < n; i++) {
        json_t *p = json_object();
        json_object_set_new(p, "status", json_string("ERROR"));
        json_object_set_new(p, "error",
                            json_string("interrupted: the service restarted while "
                                        "this submission was queued or running"));
        json_object_set_new(p, "submission_id", json_string(ids[i]));
        char *data = json_dumps(p, JSON_COMPACT);
        json_decref(p);
        store_event(ids[i], seqs[i], "ERROR", data);
        store_finish(ids[i], "ERROR", data);
        free(data);
    }
    if (n)
        fprintf(stderr, "hipwire-service: %d interrupted submission(s) marked ERROR\n", n);
}

int store_open(const char *path)
{
    char *err = NULL;
    if (sqlite3_open(path, &db) != SQLITE_OK) {
        fprintf(stderr, "hipwire-service: cannot open %s: %s\n", path, sqlite3_errmsg(db));
        return -1;
    }
    sqlite3_busy_timeout(db, 5000);
    if (sqlite3_exec(db, schema, NULL, NULL, &err) != SQLITE_OK) {
        fprintf(stderr, "hipwire-service: %s: %s\n", path, err);
        sqlite3_free(err);
        return -1;
    }
    recover();
    return 0;
}

void store_close(void)
{
    pthread_mutex_lock(&store_lock);
    sqlite3_close(db);
    db = NULL;
    pthread_mutex_unlock(&store_lock);
}

static void exec_bound(const char *sql, int n, const char **texts, const double *reals,
                       const char *types)
{
    sqlite3_stmt *st;
    pthread_mutex_lock(&store_lock);
    if (db && sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
        for (int i = 0; i < n; i++) {
            if (types[i] == 't')
                sqlite3_bind_text(st, i + 1, texts[i], -1, SQLITE_STATIC);
            else
                sqlite3_bind_double(st, i + 1, reals[i]);
        }
        if (sqlite3_step(st) != SQLITE_DONE)
            fprintf(stderr, "hipwire-service: store: %s\n", sqlite3_errmsg(db));
        sqlite3_finalize(st);
    }
    pthread_mutex_unlock(&store_lock);
}

void store_submission(const struct submission *s)
{
    const char *t[] = { s->id,       s->who,  s->prob->slug, s->gpu_type, s->endpoint,
                        s->language, s->code, "IN_QUEUE",    NULL };
    double r[9] = { 0 };
    r[8] = s->created;
    exec_bound("INSERT INTO submissions(id,who,problem,gpu_type,endpoint,language,code,status,"
               "created) VALUES(?,?,?,?,?,?,?,?,?)",
               9, t, r, "ttttttttr");
}

void store_event(const char *id, long seq, const char *name, const char *data)
{
    const char *t[] = { id, NULL, name, data };
    double r[4] = { 0, (double)seq, 0, 0 };
    exec_bound("INSERT OR REPLACE INTO events(submission_id,seq,name,data) VALUES(?,?,?,?)", 4, t,
               r, "trtt");
}

void store_finish(const char *id, const char *status, const char *result)
{
    const char *t[] = { status, NULL, result, id };
    double r[4] = { 0, now_s(), 0, 0 };
    exec_bound("UPDATE submissions SET status=?, finished=?, result=? WHERE id=?", 4, t, r, "trtt");
}

static json_t *parse_or_null(const unsigned char *s)
{
    return s ? json_loads((const char *)s, 0, NULL) : NULL;
}

json_t *store_events(const char *id, long after)
{
    sqlite3_stmt *st;
    json_t *arr = json_array();
    pthread_mutex_lock(&store_lock);
    if (db && sqlite3_prepare_v2(db,
                                 "SELECT seq,name,data FROM events WHERE submission_id=? AND "
                                 "seq>? ORDER BY seq",
                                 -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, after);
        while (sqlite3_step(st) == SQLITE_ROW) {
            json_t *e = json_object();
            json_object_set_new(e, "id", json_integer(sqlite3_column_int64(st, 0)));
            json_object_set_new(e, "event", json_string((const char *)sqlite3_column_text(st, 1)));
            json_t *d = parse_or_null(sqlite3_column_text(st, 2));
            json_object_set_new(e, "data", d ? d : json_null());
            json_array_append_new(arr, e);
        }
        sqlite3_finalize(st);
    }
    pthread_mutex_unlock(&store_lock);
    return arr;
}

json_t *store_get(const char *id)
{
    sqlite3_stmt *st;
    json_t *o = NULL;
    pthread_mutex_lock(&store_lock);
    if (db && sqlite3_prepare_v2(db,
                                 "SELECT id,problem,gpu_type,endpoint,language,status,created,"
                                 "finished,result,code FROM submissions WHERE id=?",
                                 -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW) {
            static const char *keys[] = { "id",       "problem",  "gpu_type",
                                          "endpoint", "language", "status" };
            o = json_object();
            for (int i = 0; i < 6; i++)
                json_object_set_new(o, keys[i],
                                    json_string((const char *)sqlite3_column_text(st, i)));
            json_object_set_new(o, "created", json_real(sqlite3_column_double(st, 6)));
            if (sqlite3_column_type(st, 7) != SQLITE_NULL)
                json_object_set_new(o, "finished", json_real(sqlite3_column_double(st, 7)));
            json_t *r = parse_or_null(sqlite3_column_text(st, 8));
            json_object_set_new(o, "result", r ? r : json_null());
            json_object_set_new(o, "solution_code",
                                json_string((const char *)sqlite3_column_text(st, 9)));
        }
        sqlite3_finalize(st);
    }
    pthread_mutex_unlock(&store_lock);
    if (o)
        json_object_set_new(o, "events", store_events(id, -1));
    return o;
}

json_t *store_history(const char *who, int limit)
{
    sqlite3_stmt *st;
    json_t *arr = json_array();
    pthread_mutex_lock(&store_lock);
    if (db && sqlite3_prepare_v2(db,
                                 "SELECT id,problem,gpu_type,endpoint,status,created FROM "
                                 "submissions WHERE who=? ORDER BY created DESC LIMIT ?",
                                 -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, who, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 2, limit);
        while (sqlite3_step(st) == SQLITE_ROW) {
            static const char *keys[] = { "id", "problem", "gpu_type", "endpoint", "status" };
            json_t *o = json_object();
            for (int i = 0; i < 5; i++)
                json_object_set_new(o, keys[i],
                                    json_string((const char *)sqlite3_column_text(st, i)));
            json_object_set_new(o, "created", json_real(sqlite3_column_double(st, 5)));
            json_array_append_new(arr, o);
        }
        sqlite3_finalize(st);
    }
    pthread_mutex_unlock(&store_lock);
    return arr;
}
