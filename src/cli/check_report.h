/* The result list of `hipwire node check`: one line per check with a
 * status, what was found, and the fix when it is not OK. */
#ifndef HIPWIRE_CLI_CHECK_REPORT_H
#define HIPWIRE_CLI_CHECK_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "json_writer.h"

typedef enum check_status { CHECK_OK, CHECK_INFO, CHECK_WARN, CHECK_FAIL } check_status;

typedef struct check_item {
    check_status status;
    char name[32];
    char detail[512];
    char fix[384];
} check_item;

typedef struct check_report {
    check_item *items;
    size_t count, cap;
    int alloc_failed;
} check_report;

void report_init(check_report *r);
void report_free(check_report *r);

/* Adds a check. fix may be NULL. An allocation failure is remembered and
 * turns the verdict into "not ready" rather than losing a failure. */
void report_add(check_report *r, check_status status, const char *name, const char *fix,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));

size_t report_count(const check_report *r, check_status status);
int report_ready(const check_report *r); /* no failures */
/* The one thing to do next: the fix of the first failure (checks run from
 * the driver up, so later failures are mostly its consequences); NULL when
 * nothing failed. */
const char *report_next_step(const check_report *r);

const char *check_status_name(check_status s); /* "ok", "info", "warn", "fail" */

void report_print_text(const check_report *r, FILE *out);
/* Writes the "checks" array into an open JSON object. */
void report_write_json(const check_report *r, json_writer *w);

#endif
