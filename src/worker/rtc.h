/*
 * rtc.h - RTC_COMPILE (hiprtc on the worker; docs/hiprtc.md).
 *
 * The handler checks the request (counts against their caps before anything
 * is read or allocated, every string against its rule), then hands it to a
 * compile thread that calls the backend's rtc_compile slot and sends the
 * reply, so a compile that takes seconds does not stop the session's other
 * streams. At most RTC_MAX_JOBS compiles of a session run at once.
 */
#ifndef HW_WORKER_RTC_H
#define HW_WORKER_RTC_H

#include <stddef.h>
#include <stdint.h>

#include "hipr.h"

struct session;

#define RTC_MAX_JOBS 2

/* The RTC_COMPILE handler (called from dispatch.c); dispatch.c's rules on
 * who replies apply. */
int rtc_handle_compile(struct session *s, const struct hipr_header *h, const uint8_t *fixed);

/* Cancels the session's running compiles and waits until their threads are
 * gone (before the backend is closed). */
void rtc_session_end(struct session *s);
/* Waits until the session's compiles have finished and replied (a planned
 * migration: their replies must be in the reply log it moves). */
void rtc_session_wait(struct session *s);

/* rtc_options.c: 0 when a client may pass `opt` to the compiler, else -1
 * with the reason in why. */
int rtc_option_check(const char *opt, char *why, size_t why_len);
/* 0 when `name` may name a header: a relative path of plain components. */
int rtc_include_name_check(const char *name);
/* 0 when `expr` may be a name expression (printable, one line). */
int rtc_name_expr_check(const char *expr);

/* Answers RTC_CACHE_STATS (before a session, for `hipwire status`). */
int rtc_send_cache_stats(struct session *s, uint32_t request_id);

#endif
