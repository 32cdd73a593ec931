/* The worker's config file: long option names as keys (hw_config.h). */
#include "hw_config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"

/* Every string of the new argv is its own copy, so hw_config_free frees
 * them all whatever order getopt_long permuted them into. */
struct arg_list {
    char **v;
    int n, cap;
};

/* Takes ownership of s (freed here on failure). */
static int push(struct arg_list *l, char *s)
{
    if (!s)
        return -1;
    if (l->n + 2 > l->cap) {
        int cap = l->cap ? l->cap * 2 : 16;
        char **v = hw_realloc(l->v, (size_t)cap * sizeof(*v));
        if (!v) {
            free(s);
            return -1;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = s;
    l->v[l->n] = NULL;
    return 0;
}

static void list_free(struct arg_list *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

static const struct option *find_option(const struct option *opts, const char *name)
{
    for (; opts->name; opts++)
        if (strcmp(opts->name, name) == 0)
            return opts;
    return NULL;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

static int read_file(const char *path, const struct option *opts, struct arg_list *args, char *err,
                     size_t err_size)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, err_size, "--config %s: %s", path, strerror(errno));
        return -1;
    }
    char line[4096];
    int lineno = 0, rc = -1;
    while (fgets(line, sizeof(line), f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            snprintf(err, err_size, "%s:%d: line too long", path, lineno);
            goto out;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *key = trim(line);
        if (!*key)
            continue;
        char *value = key + strcspn(key, " \t=");
        if (*value) {
            *value++ = '\0';
            value = trim(value);
            if (*value == '=')
                value = trim(value + 1);
        }
        const struct option *o = find_option(opts, key);
        if (!o || strcmp(key, "config") == 0 || strcmp(key, "help") == 0 ||
            strcmp(key, "version") == 0) {
            snprintf(err, err_size, "%s:%d: unknown key '%s' (keys are the long option names)",
                     path, lineno, key);
            goto out;
        }
        if (o->has_arg == no_argument) {
            if (strcmp(value, "false") == 0)
                continue;
            if (*value && strcmp(value, "true") != 0) {
                snprintf(err, err_size, "%s:%d: '%s' takes no value (or true/false)", path, lineno,
                         key);
                goto out;
            }
            value = NULL;
        } else if (!*value && o->has_arg == required_argument) {
            snprintf(err, err_size, "%s:%d: '%s' needs a value", path, lineno, key);
            goto out;
        }
        size_t klen = strlen(key) + 3;
        char *flag = hw_malloc(klen + (value ? strlen(value) + 1 : 0));
        if (!flag) {
            snprintf(err, err_size, "out of memory");
            goto out;
        }
        /* `--name=value` keeps an optional argument attached, as getopt wants. */
        if (value)
            sprintf(flag, "--%s=%s", key, value);
        else
            sprintf(flag, "--%s", key);
        if (push(args, flag) < 0) {
            snprintf(err, err_size, "out of memory");
            goto out;
        }
    }
    if (ferror(f)) {
        snprintf(err, err_size, "--config %s: read error", path);
        goto out;
    }
    rc = 0;
out:
    fclose(f);
    return rc;
}

int hw_config_expand(int argc, char **argv, const struct option *opts, int *out_argc,
                     char ***out_argv, char *err, size_t err_size)
{
    const char *path = NULL;
    int at = -1, span = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        if (strcmp(argv[i], "--config") == 0) {
            if (i + 1 >= argc) {
                snprintf(err, err_size, "--config needs a file");
                return -1;
            }
            path = argv[i + 1];
            at = i;
            span = 2;
        } else if (strncmp(argv[i], "--config=", 9) == 0) {
            path = argv[i] + 9;
            at = i;
            span = 1;
        }
    }
    if (!path) {
        *out_argc = argc;
        *out_argv = argv;
        return 0;
    }
    struct arg_list args = { 0 };
    if (push(&args, hw_strdup(argv[0])) < 0)
        goto oom;
    if (read_file(path, opts, &args, err, err_size) < 0)
        goto fail;
    for (int i = 1; i < argc; i++) {
        if (i >= at && i < at + span)
            continue;
        if (push(&args, hw_strdup(argv[i])) < 0)
            goto oom;
    }
    *out_argc = args.n;
    *out_argv = args.v;
    return 0;
oom:
    snprintf(err, err_size, "out of memory");
fail:
    list_free(&args);
    return -1;
}

void hw_config_free(char **new_argv, char **orig_argv)
{
    if (!new_argv || new_argv == orig_argv)
        return;
    for (char **p = new_argv; *p; p++)
        free(*p);
    free(new_argv);
}
