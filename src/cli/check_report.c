#include "check_report.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"

void report_init(check_report *r)
{
    memset(r, 0, sizeof(*r));
}

void report_free(check_report *r)
{
    free(r->items);
    memset(r, 0, sizeof(*r));
}

void report_add(check_report *r, check_status status, const char *name, const char *fix,
                const char *fmt, ...)
{
    if (r->count == r->cap) {
        size_t ncap = r->cap ? r->cap * 2 : 32;
        check_item *grown = hw_realloc(r->items, ncap * sizeof(*grown));
        if (!grown) {
            r->alloc_failed = 1;
            return;
        }
        r->items = grown;
        r->cap = ncap;
    }
    check_item *it = &r->items[r->count++];
    memset(it, 0, sizeof(*it));
    it->status = status;
    snprintf(it->name, sizeof(it->name), "%s", name);
    if (fix)
        snprintf(it->fix, sizeof(it->fix), "%s", fix);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(it->detail, sizeof(it->detail), fmt, ap);
    va_end(ap);
}

size_t report_count(const check_report *r, check_status status)
{
    size_t n = 0;
    for (size_t i = 0; i < r->count; i++)
        n += r->items[i].status == status;
    return n;
}

int report_ready(const check_report *r)
{
    return !r->alloc_failed && report_count(r, CHECK_FAIL) == 0;
}

const char *check_status_name(check_status s)
{
    switch (s) {
    case CHECK_OK: return "ok";
    case CHECK_INFO: return "info";
    case CHECK_WARN: return "warn";
    case CHECK_FAIL: return "fail";
    }
    return "?";
}

const char *report_next_step(const check_report *r)
{
    for (size_t i = 0; i < r->count; i++)
        if (r->items[i].status == CHECK_FAIL && r->items[i].fix[0])
            return r->items[i].fix;
    return NULL;
}

void report_print_text(const check_report *r, FILE *out)
{
    static const char *const tags[] = { "[ OK ]", "[INFO]", "[WARN]", "[FAIL]" };
    for (size_t i = 0; i < r->count; i++) {
        const check_item *it = &r->items[i];
        fprintf(out, "%s %-10s %s", tags[it->status], it->name, it->detail);
        if (it->fix[0] && it->status >= CHECK_WARN)
            fprintf(out, " -- fix: %s", it->fix);
        fputc('\n', out);
    }
    size_t fails = report_count(r, CHECK_FAIL), warns = report_count(r, CHECK_WARN);
    if (report_ready(r))
        fprintf(out, "node is ready (%zu warning%s)\n", warns, warns == 1 ? "" : "s");
    else
        fprintf(out, "node is NOT ready: %zu failure%s, %zu warning%s%s%s\n", fails,
                fails == 1 ? "" : "s", warns, warns == 1 ? "" : "s",
                report_next_step(r) ? " -- next step: " : "",
                report_next_step(r) ? report_next_step(r) : "");
}

void report_write_json(const check_report *r, json_writer *w)
{
    jw_key(w, "checks");
    jw_array_begin(w);
    for (size_t i = 0; i < r->count; i++) {
        const check_item *it = &r->items[i];
        jw_object_begin(w);
        jw_key(w, "name");
        jw_string(w, it->name);
        jw_key(w, "status");
        jw_string(w, check_status_name(it->status));
        jw_key(w, "detail");
        jw_string(w, it->detail);
        if (it->fix[0]) {
            jw_key(w, "fix");
            jw_string(w, it->fix);
        }
        jw_object_end(w);
    }
    jw_array_end(w);
    jw_key(w, "next_step");
    jw_string(w, report_next_step(r)); /* null when nothing failed */
}
