/*
 * rtc_util.c - what both run-time compile paths (rtc_hipcc.c, rtc_host.c)
 * need: a growing text buffer, the private directory's files, the
 * compiler's command line, and words for how a compiler ended.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hw_alloc.h"
#include "rtc_compile.h"
#include "rtc_util.h"

void text_add(struct text *t, const char *s, size_t n)
{
    if (t->failed)
        return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *p = hw_realloc(t->p, cap);
        if (!p) {
            t->failed = 1;
            return;
        }
        t->p = p;
        t->cap = cap;
    }
    memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = '\0';
}

void text_str(struct text *t, const char *s)
{
    text_add(t, s, strlen(s));
}

void text_fmt(struct text *t, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0)
        text_add(t, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* ---- the private directory -------------------------------------------------- */

int rtc_write_file(const char *path, const char *data, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    size_t off = 0;
    while (off < n) {
        ssize_t w = write(fd, data + off, n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            close(fd);
            return -1;
        }
        off += (size_t)w;
    }
    return close(fd);
}

/* Creates the directories of a relative header path under root. */
int rtc_make_parents(const char *root, const char *rel)
{
    char path[PATH_MAX + 300];
    int n = snprintf(path, sizeof path, "%s/%s", root, rel);
    if (n < 0 || (size_t)n >= sizeof path)
        return -1;
    for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
        *p = '\0';
        if (mkdir(path, 0700) < 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return 0;
}

static uint64_t biggest_file;

static int rm_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)ftw;
    if (type == FTW_F && (uint64_t)st->st_size > biggest_file)
        biggest_file = (uint64_t)st->st_size;
    remove(path);
    return 0;
}

/* Removes dir and everything in it; returns the largest file's size. nftw
 * keeps no per-call context, so calls are serialised. */
uint64_t rtc_remove_tree(const char *dir)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&lock);
    biggest_file = 0;
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    uint64_t big = biggest_file;
    pthread_mutex_unlock(&lock);
    return big;
}

/* A program name fit for a #line directive. */
void rtc_line_name(const char *name, char *out, size_t cap)
{
    size_t k = 0;
    if (!name || !*name)
        name = "default_program";
    for (; *name && k + 1 < cap; name++)
        out[k++] =
            (strchr("\"\\", *name) || (unsigned char)*name < 0x20 || (unsigned char)*name > 0x7e)
                ? '_'
                : *name;
    out[k] = '\0';
}

/* A string made for the command; on allocation failure "" and c->failed. */
char *own(struct command *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = n >= 0 ? hw_malloc((size_t)n + 1) : NULL;
    if (!p) {
        c->failed = 1;
        return "";
    }
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    c->owned[c->nowned++] = p;
    return p;
}

void command_free(struct command *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->nowned; i++)
        free(c->owned[i]);
    free(c);
}

const char *rtc_signal_name(int sig)
{
    switch (sig) {
    case SIGKILL: return "SIGKILL";
    case SIGXFSZ: return "SIGXFSZ, a file over the size limit";
    case SIGXCPU: return "SIGXCPU, the CPU time limit";
    case SIGABRT: return "SIGABRT, often out of memory";
    case SIGSEGV: return "SIGSEGV";
    default: return "";
    }
}

int rtc_read_file(const char *dir, const char *name, uint64_t cap, uint8_t **code, uint64_t *size)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
        (uint64_t)st.st_size > cap) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    uint8_t *buf = hw_malloc((size_t)st.st_size);
    ssize_t n = buf ? pread(fd, buf, (size_t)st.st_size, 0) : -1;
    close(fd);
    if (n != st.st_size) {
        free(buf);
        return -1;
    }
    *code = buf;
    *size = (uint64_t)st.st_size;
    return 0;
}

int rtc_out_of_memory(const char *log)
{
    static const char *const signs[] = {
        "out of memory",          /* clang: LLVM ERROR: out of memory */
        "Allocation failed",      /* clang */
        "memory exhausted",       /* gcc: virtual memory exhausted */
        "Cannot allocate memory", /* ENOMEM from anything */
        "std::bad_alloc",
    };
    for (size_t i = 0; log && i < sizeof signs / sizeof signs[0]; i++)
        if (strstr(log, signs[i]))
            return 1;
    return 0;
}

int rtc_write_headers(const char *dir, const struct hw_rtc_input *in, struct text *log)
{
    char root[PATH_MAX], path[PATH_MAX + 300];
    snprintf(root, sizeof root, "%s/include", dir);
    for (uint32_t i = 0; i < in->header_count; i++) {
        snprintf(path, sizeof path, "%s/%s", root, in->header_names[i]);
        if (rtc_make_parents(root, in->header_names[i]) == 0 &&
            rtc_write_file(path, in->headers[i], strlen(in->headers[i])) == 0)
            continue;
        if (errno != EEXIST && errno != ENOTDIR && errno != EISDIR)
            return -1;
        text_fmt(log,
                 "hipwire: header '%s' is given twice or clashes with a directory of another "
                 "header\n",
                 in->header_names[i]);
        return 1;
    }
    return 0;
}

void rtc_source_head(const struct hw_rtc_input *in, struct text *src)
{
    char name[256];
    rtc_line_name(in->name, name, sizeof name);
    text_str(src, "#include <hip/hip_runtime.h>\n#line 1 \"");
    text_str(src, name);
    text_str(src, "\"\n");
}

int rtc_source_tail(const struct hw_rtc_input *in, const char *probe_decl, struct text *src)
{
    text_str(src, "\n");
    if (in->name_count)
        text_str(src, "#line 1 \"hipwire-name-expressions\"\n");
    for (uint32_t i = 0; i < in->name_count; i++) {
        const char *e = in->name_exprs[i];
        while (*e == ' ' || *e == '\t')
            e++;
        /* "&f<int>" is an address already; "f<int>" and "var" are not. */
        text_fmt(src, "%s void *%s%u = (void *)", probe_decl, RTC_NAME_PROBE, i);
        text_str(src, *e == '&' ? "(" : "&(");
        text_str(src, e);
        text_str(src, ");\n");
    }
    return src->failed ? -1 : 0;
}
