#include "hw_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hw_os.h"

static const char *log_component = "hipwire";
static int log_debug = -1; /* -1: TF_DEBUG not read yet */
static int log_stamps;

void hw_log_timestamps(int on)
{
    log_stamps = on;
}

void hw_log_init(const char *component)
{
    log_component = component;
}

int hw_log_debug_enabled(void)
{
    int d = __atomic_load_n(&log_debug, __ATOMIC_RELAXED);
    if (d < 0) {
        const char *v = getenv("TF_DEBUG");
        d = v && *v && strcmp(v, "0") != 0;
        __atomic_store_n(&log_debug, d, __ATOMIC_RELAXED);
    }
    return d;
}

void hw_log(enum hw_log_level level, const char *fmt, ...)
{
    static const char *names[] = { "error", "warning", "info", "debug" };
    char line[1024], stamp[40] = "";
    if (log_stamps) {
        struct timespec ts;
        struct tm tm;
        clock_gettime(CLOCK_REALTIME, &ts);
#ifdef _WIN32
        gmtime_s(&tm, &ts.tv_sec);
#else
        gmtime_r(&ts.tv_sec, &tm);
#endif
        size_t k = strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(stamp + k, sizeof stamp - k, ".%03ldZ ", ts.tv_nsec / 1000000L);
    }
    int n = snprintf(line, sizeof line, "%s%s[%d]: %s: ", stamp, log_component, hw_os_pid(),
                     names[level]);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof line)
        vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    /* One write per line, so lines from several processes never interleave. */
    size_t len = strnlen(line, sizeof line - 2);
    line[len++] = '\n';
    hw_os_write_stderr(line, len);
}
