/* Streaming JSON writer: enough for reports, with correct string escaping. */
#ifndef HIPWIRE_CLI_JSON_WRITER_H
#define HIPWIRE_CLI_JSON_WRITER_H

#include <stdbool.h>
#include <stdio.h>

#define JSON_WRITER_MAX_DEPTH 32

typedef struct json_writer {
    FILE *out;
    int depth;
    bool after_key;                        /* next value follows "key": */
    bool compact;                          /* one line: for NDJSON streams */
    bool has_items[JSON_WRITER_MAX_DEPTH]; /* container at depth needs a comma */
} json_writer;

void jw_init(json_writer *w, FILE *out);
/* One document per line, no indentation (`--watch --json` is NDJSON). */
void jw_init_compact(json_writer *w, FILE *out);
void jw_object_begin(json_writer *w);
void jw_object_end(json_writer *w);
void jw_array_begin(json_writer *w);
void jw_array_end(json_writer *w);
void jw_key(json_writer *w, const char *key);
void jw_string(json_writer *w, const char *s); /* NULL writes null */
void jw_int(json_writer *w, long long v);
void jw_uint(json_writer *w, unsigned long long v);
void jw_bool(json_writer *w, bool v);
void jw_null(json_writer *w);
/* Finishes the document with a newline. */
void jw_finish(json_writer *w);

#endif
