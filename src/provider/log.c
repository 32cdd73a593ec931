/*
 * log.c - the registered log callback.
 */
#include "provider.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>

/* Separate from the main lock so logging works while it is held. */
static _Atomic(LogCallbackFunc) log_callback;

void provider_set_log_callback(LogCallbackFunc cb)
{
    atomic_store(&log_callback, cb);
}

void provider_log(const char *level, const char *fmt, ...)
{
    LogCallbackFunc cb = atomic_load(&log_callback);
    char msg[1024];
    va_list ap;

    if (cb == NULL)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    cb(level, msg);
}

void provider_copy(char *dst, size_t dstlen, const char *src)
{
    if (dstlen == 0)
        return;
    snprintf(dst, dstlen, "%s", src ? src : "");
}

PROVIDER_API Result RegisterLogCallback(LogCallbackFunc callback)
{
    provider_set_log_callback(callback);
    return RESULT_SUCCESS;
}
