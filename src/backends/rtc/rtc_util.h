/* rtc_util.h - shared pieces of the run-time compile paths (rtc_util.c). */
#ifndef HW_RTC_UTIL_H
#define HW_RTC_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "hipr_spec.h"

#define MAX_ARGS (HIPR_CAP_RTC_OPTIONS + 16)

/* A growing text buffer; on allocation failure it stops growing and says so. */
struct text {
    char *p;
    size_t len, cap;
    int failed;
};

void text_add(struct text *t, const char *s, size_t n);
void text_str(struct text *t, const char *s);
void text_fmt(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A new file (never an existing one, never through a link); 0 or -1. */
int rtc_write_file(const char *path, const char *data, size_t n);
/* Creates the directories of a relative path under root. */
int rtc_make_parents(const char *root, const char *rel);
/* Removes dir and everything in it; returns the largest file's size. */
uint64_t rtc_remove_tree(const char *dir);
/* dir/name into a malloc'ed buffer when it is a regular file of 1..cap bytes. */
int rtc_read_file(const char *dir, const char *name, uint64_t cap, uint8_t **code, uint64_t *size);
/* A program name fit for a #line directive. */
void rtc_line_name(const char *name, char *out, size_t cap);
const char *rtc_signal_name(int sig);
/* Whether a failed compiler's output says it could not get memory (how
 * clang and gcc report hitting RLIMIT_AS). */
int rtc_out_of_memory(const char *log);
/* The compiler's address-space limit: the worker's, else def. */
static inline uint64_t rtc_memory_limit(uint64_t configured, uint64_t def)
{
    return configured ? configured : def;
}

struct hw_rtc_input;
/* The program's headers as files under dir/include (which exists). 0; 1
 * when two names clash (said in log: the caller answers
 * HW_RTC_INVALID_INPUT); -1 on an I/O error (errno set). */
int rtc_write_headers(const char *dir, const struct hw_rtc_input *in, struct text *log);
/* The program file around the user's source: what precedes it (the HIP
 * runtime header, a #line directive that keeps the user's line numbers)... */
void rtc_source_head(const struct hw_rtc_input *in, struct text *src);
/* ...and what follows it: one probe variable per name expression, declared
 * with probe_decl ("__device__", or a host attribute), whose relocation
 * gives the lowered name. 0, or -1 when src ran out of memory. */
int rtc_source_tail(const struct hw_rtc_input *in, const char *probe_decl, struct text *src);

/* A compiler's command line and environment. */
struct command {
    char *argv[MAX_ARGS + 1];
    char *envp[24];
    char *owned[MAX_ARGS + 24]; /* strings built here, freed with the command */
    int nargv, nenv, nowned;
    int failed; /* a string could not be built */
};

/* A string made for the command; on allocation failure "" and c->failed. */
char *own(struct command *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void command_free(struct command *c);

#endif
