/*
 * cc_source.c - gathers the device source of a HIP file for the worker.
 *
 * The worker compiles with its own HIP prelude, so <hip/hip_runtime.h> and
 * <hip/hip_fp16.h> stay as they are (they resolve to the prelude) and the
 * other <hip/...> headers, which are ROCm's host API, are dropped. A header
 * found in the file's directory or an -I directory is the program's: it is
 * shipped (host code blanked too) under a generated name, so paths with ".."
 * or absolute paths need nothing on the worker. Other system headers are
 * kept behind __has_include: a device compiler without a C++ library (NVRTC)
 * skips them.
 */
#include "cc_source.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"
#include "cc_slice.h"
#include "hip_source.h"

#define MAX_FILES 256

void cc_buf_add(struct cc_buf *b, const void *p, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *np = hw_realloc(b->p, cap);
        if (!np) {
            b->failed = 1;
            return;
        }
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void cc_buf_str(struct cc_buf *b, const char *s)
{
    cc_buf_add(b, s, strlen(s));
}

void cc_buf_free(struct cc_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

struct gather {
    const char *const *dirs;
    unsigned ndirs;
    unsigned count;
    char *real[MAX_FILES]; /* realpath of each file */
    struct cc_buf text[MAX_FILES];
};

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    struct cc_buf b = { 0 };
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        cc_buf_add(&b, chunk, n);
    int bad = ferror(f) || b.failed;
    fclose(f);
    if (bad || !b.p) {
        cc_buf_free(&b);
        if (!bad)
            return *len = 0, hw_strdup("");
        return NULL;
    }
    *len = b.len;
    return b.p;
}

static int file_exists(const char *p)
{
    FILE *f = fopen(p, "rb");
    if (f)
        fclose(f);
    return f != NULL;
}

/* The program header `name` resolves to, or 0 (system or missing). */
static int resolve(const struct gather *g, const char *includer_dir, const char *name, int quoted,
                   char *out, size_t cap)
{
    if (name[0] == '/') {
        snprintf(out, cap, "%s", name);
        return file_exists(out);
    }
    if (quoted) {
        snprintf(out, cap, "%s/%s", includer_dir, name);
        if (file_exists(out))
            return 1;
    }
    for (unsigned i = 0; i < g->ndirs; i++) {
        snprintf(out, cap, "%s/%s", g->dirs[i], name);
        if (file_exists(out))
            return 1;
    }
    return 0;
}

static int gather_file(struct gather *g, const char *path, unsigned *index);

/* Rewrites the #include lines of text (line by line) into out. */
static int rewrite_includes(struct gather *g, const char *path, const char *line_name, char *text,
                            struct cc_buf *out)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    unsigned lineno = 1;
    for (char *line = text; *line;) {
        char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) + 1 : strlen(line);
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        int handled = 0;
        if (*p == '#') {
            p++;
            while (*p == ' ' || *p == '\t')
                p++;
            if (strncmp(p, "include", 7) == 0) {
                p += 7;
                while (*p == ' ' || *p == '\t')
                    p++;
                char open = *p, close = open == '<' ? '>' : '"';
                char *end = (open == '<' || open == '"') ? strchr(p + 1, close) : NULL;
                if (end && end < line + n) {
                    char name[PATH_MAX], found[PATH_MAX * 2];
                    snprintf(name, sizeof name, "%.*s", (int)(end - p - 1), p + 1);
                    unsigned idx;
                    handled = 1;
                    if (resolve(g, dir, name, open == '"', found, sizeof found)) {
                        if (gather_file(g, found, &idx) < 0)
                            return -1;
                        char inc[64];
                        snprintf(inc, sizeof inc, "#include \"hipwire-cc/%u.h\"\n", idx);
                        cc_buf_str(out, inc);
                    } else if (strcmp(name, "hip/hip_runtime.h") == 0 ||
                               strcmp(name, "hip/hip_fp16.h") == 0) {
                        cc_buf_add(out, line, n);
                        if (!nl)
                            cc_buf_str(out, "\n");
                    } else if (strncmp(name, "hip/", 4) == 0) {
                        cc_buf_str(out, "\n"); /* ROCm's host API: not for the device */
                    } else {
                        /* the directive, its name as written, and back to the
                         * user's numbering */
                        char num[32];
                        snprintf(num, sizeof num, "%u", lineno + 1);
                        const char *parts[] = { "#if __has_include(",
                                                NULL,
                                                ")\n#include ",
                                                NULL,
                                                "\n#endif\n#line ",
                                                num,
                                                " \"",
                                                line_name,
                                                "\"\n" };
                        for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
                            if (parts[k]) {
                                cc_buf_str(out, parts[k]);
                            } else {
                                cc_buf_add(out, &open, 1);
                                cc_buf_str(out, name);
                                cc_buf_add(out, &close, 1);
                            }
                        }
                    }
                }
            }
        }
        if (!handled)
            cc_buf_add(out, line, n);
        if (!nl)
            break;
        line = nl + 1;
        lineno++;
    }
    return out->failed ? -1 : 0;
}

/* Adds path (once) to the program; *index is its header number. */
static int gather_file(struct gather *g, const char *path, unsigned *index)
{
    char real[PATH_MAX];
    if (!realpath(path, real)) {
        fprintf(stderr, "hipwire-cc: %s: %s\n", path, strerror(errno));
        return -1;
    }
    for (unsigned i = 0; i < g->count; i++)
        if (strcmp(g->real[i], real) == 0) {
            *index = i;
            return 0;
        }
    if (g->count == MAX_FILES) {
        fprintf(stderr, "hipwire-cc: more than %d program headers\n", MAX_FILES - 1);
        return -1;
    }
    unsigned me = g->count++;
    g->real[me] = hw_strdup(real);
    size_t len;
    char *text = read_file(path, &len);
    if (!text || !g->real[me]) {
        fprintf(stderr, "hipwire-cc: cannot read %s\n", path);
        free(text);
        return -1;
    }
    cc_slice_host_code(text, len);
    char line_name[PATH_MAX];
    const char *base = strrchr(path, '/');
    /* the main file is named as hiprtc names the program: its base name */
    snprintf(line_name, sizeof line_name, "%s", me == 0 && base ? base + 1 : path);
    for (char *c = line_name; *c; c++)
        if (*c == '"' || *c == '\\')
            *c = '_';
    if (me > 0) {
        cc_buf_str(&g->text[me], "#line 1 \"");
        cc_buf_str(&g->text[me], line_name);
        cc_buf_str(&g->text[me], "\"\n");
    }
    int rc = rewrite_includes(g, path, line_name, text, &g->text[me]);
    free(text);
    *index = me;
    return rc;
}

static void put(struct cc_buf *b, char tag, const char *s)
{
    cc_buf_add(b, &tag, 1);
    cc_buf_add(b, s, strlen(s) + 1);
}

int cc_source_entry(const char *path, const char *const *include_dirs, unsigned n_include,
                    const char *const *options, unsigned n_options, const char *extra,
                    struct cc_buf *out)
{
    struct gather *g = hw_calloc(1, sizeof *g);
    if (!g)
        return -1;
    g->dirs = include_dirs;
    g->ndirs = n_include;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    unsigned idx;
    int rc = -1;
    if (gather_file(g, path, &idx) < 0)
        goto cleanup;
    cc_buf_add(out, HW_SRC_MAGIC, HW_SRC_MAGIC_LEN);
    put(out, 'N', base);
    if (extra)
        cc_buf_str(&g->text[0], extra);
    put(out, 'S', g->text[0].p ? g->text[0].p : "");
    for (unsigned i = 0; i < n_options; i++)
        put(out, 'O', options[i]);
    for (unsigned i = 1; i < g->count; i++) {
        char name[64];
        snprintf(name, sizeof name, "hipwire-cc/%u.h", i);
        put(out, 'H', name);
        put(out, 'C', g->text[i].p ? g->text[i].p : "");
    }
    rc = out->failed ? -1 : 0;
cleanup:
    for (unsigned i = 0; i < g->count; i++) {
        free(g->real[i]);
        cc_buf_free(&g->text[i]);
    }
    free(g);
    return rc;
}
