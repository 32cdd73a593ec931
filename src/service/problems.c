/* problems.c - problem definitions as data: DIR/<slug>/problem.json (slug,
 * aliases, signature, generators, sizes per device class, tolerance,
 * flops, reference launch) and DIR/<slug>/reference.hip. Loaded once at
 * start; read-only afterwards, so no lock. */
#include "hw_alloc.h"
#include "service.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PROBLEMS 64

static struct problem problems[MAX_PROBLEMS];
static int nproblems;

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = hw_calloc(1, (size_t)n + 1)) && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

static int load_one(const char *dir, const char *name)
{
    char path[4096];
    json_error_t err;
    snprintf(path, sizeof path, "%s/%s/problem.json", dir, name);
    json_t *def = json_load_file(path, 0, &err);
    if (!def) {
        fprintf(stderr, "hipwire-service: %s:%d: %s\n", path, err.line, err.text);
        return -1;
    }
    const char *slug = json_string_value(json_object_get(def, "slug"));
    if (!slug || !json_is_array(json_object_get(def, "parameters")) ||
        !json_is_object(json_object_get(def, "tests")) ||
        !json_is_object(json_object_get(def, "reference"))) {
        fprintf(stderr, "hipwire-service: %s: needs slug, parameters, tests, reference\n", path);
        json_decref(def);
        return -1;
    }
    snprintf(path, sizeof path, "%s/%s/reference.hip", dir, name);
    char *ref = slurp(path);
    if (!ref) {
        fprintf(stderr, "hipwire-service: cannot read %s\n", path);
        json_decref(def);
        return -1;
    }
    struct problem *p = &problems[nproblems++];
    p->slug = hw_strdup(slug);
    const char *title = json_string_value(json_object_get(def, "title"));
    p->title = hw_strdup(title ? title : slug);
    p->def = def;
    p->reference_source = ref;
    return 0;
}

int problems_load(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int rc = 0;
    if (!d) {
        fprintf(stderr, "hipwire-service: cannot open problems directory %s\n", dir);
        return -1;
    }
    while ((e = readdir(d)) && nproblems < MAX_PROBLEMS) {
        if (e->d_name[0] == '.')
            continue;
        if (load_one(dir, e->d_name) != 0)
            rc = -1;
    }
    closedir(d);
    return nproblems > 0 ? rc : -1;
}

const struct problem *problems_find(const char *name)
{
    for (int i = 0; i < nproblems; i++) {
        if (!strcmp(problems[i].slug, name))
            return &problems[i];
        size_t k;
        json_t *a;
        json_array_foreach(json_object_get(problems[i].def, "aliases"), k, a)
        {
            if (json_is_string(a) && !strcmp(json_string_value(a), name))
                return &problems[i];
        }
    }
    return NULL;
}

json_t *problems_list(void)
{
    json_t *arr = json_array();
    for (int i = 0; i < nproblems; i++) {
        json_t *d = problems[i].def, *o = json_object();
        json_object_set_new(o, "slug", json_string(problems[i].slug));
        json_object_set_new(o, "title", json_string(problems[i].title));
        const char *keys[] = { "aliases", "description", "signature", "parameters",
                               "tests",   "tolerance",   "exact",     "flops" };
        for (unsigned k = 0; k < sizeof keys / sizeof keys[0]; k++)
            if (json_object_get(d, keys[k]))
                json_object_set(o, keys[k], json_object_get(d, keys[k]));
        json_object_set_new(o, "starter_code",
                            json_string(json_string_value(json_object_get(d, "starter_code"))));
        json_array_append_new(arr, o);
    }
    return arr;
}
