/* Pretty-printed (2-space) JSON so golden files stay readable in diffs. */
#include "json_writer.h"

#include <string.h>

void jw_init(json_writer *w, FILE *out)
{
    memset(w, 0, sizeof(*w));
    w->out = out;
}

void jw_init_compact(json_writer *w, FILE *out)
{
    jw_init(w, out);
    w->compact = true;
}

static void indent(json_writer *w)
{
    for (int i = 0; i < w->depth; i++)
        fputs("  ", w->out);
}

/* Separator and indentation before any value or key. */
static void before_item(json_writer *w)
{
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (w->depth == 0)
        return;
    if (w->has_items[w->depth])
        fputc(',', w->out);
    w->has_items[w->depth] = true;
    if (w->compact)
        return;
    fputc('\n', w->out);
    indent(w);
}

static void open_container(json_writer *w, char c)
{
    before_item(w);
    fputc(c, w->out);
    if (w->depth + 1 < JSON_WRITER_MAX_DEPTH)
        w->depth++;
    w->has_items[w->depth] = false;
}

static void close_container(json_writer *w, char c)
{
    bool had = w->has_items[w->depth];
    if (w->depth > 0)
        w->depth--;
    if (had && !w->compact) {
        fputc('\n', w->out);
        indent(w);
    }
    fputc(c, w->out);
}

void jw_object_begin(json_writer *w)
{
    open_container(w, '{');
}
void jw_object_end(json_writer *w)
{
    close_container(w, '}');
}
void jw_array_begin(json_writer *w)
{
    open_container(w, '[');
}
void jw_array_end(json_writer *w)
{
    close_container(w, ']');
}

static void write_escaped(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (*p < 0x20)
                fprintf(out, "\\u%04x", *p);
            else
                fputc(*p, out);
        }
    }
    fputc('"', out);
}

void jw_key(json_writer *w, const char *key)
{
    before_item(w);
    write_escaped(w->out, key);
    fputs(w->compact ? ":" : ": ", w->out);
    w->after_key = true;
}

void jw_string(json_writer *w, const char *s)
{
    if (!s) {
        jw_null(w);
        return;
    }
    before_item(w);
    write_escaped(w->out, s);
}

void jw_int(json_writer *w, long long v)
{
    before_item(w);
    fprintf(w->out, "%lld", v);
}

void jw_uint(json_writer *w, unsigned long long v)
{
    before_item(w);
    fprintf(w->out, "%llu", v);
}

void jw_bool(json_writer *w, bool v)
{
    before_item(w);
    fputs(v ? "true" : "false", w->out);
}

void jw_null(json_writer *w)
{
    before_item(w);
    fputs("null", w->out);
}

void jw_finish(json_writer *w)
{
    fputc('\n', w->out);
}
