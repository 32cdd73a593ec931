/* hw_log.h - one-line logs to stderr; TF_DEBUG=1 adds debug lines. */
#ifndef HW_LOG_H
#define HW_LOG_H

enum hw_log_level { HW_LOG_ERROR, HW_LOG_WARN, HW_LOG_INFO, HW_LOG_DEBUG };

/* Sets the prefix ("hip-worker", "hipwire") printed before each line. */
void hw_log_init(const char *component);
/* Starts each line with the UTC time ("2026-01-02T03:04:05.678Z"): on for
 * daemons (hip-worker), whose log outlives the terminal; off in the proxy,
 * whose lines land in an application's own stderr. */
void hw_log_timestamps(int on);
int hw_log_debug_enabled(void);
void hw_log(enum hw_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define hw_error(...) hw_log(HW_LOG_ERROR, __VA_ARGS__)
#define hw_warn(...)  hw_log(HW_LOG_WARN, __VA_ARGS__)
#define hw_info(...)  hw_log(HW_LOG_INFO, __VA_ARGS__)
#define hw_debug(...)                          \
    do {                                       \
        if (hw_log_debug_enabled())            \
            hw_log(HW_LOG_DEBUG, __VA_ARGS__); \
    } while (0)

#endif
