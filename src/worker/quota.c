#include "quota.h"

#include <stdarg.h>
#include <stdio.h>

#include "hw_log.h"

static const char *const option_of[] = {
    [QUOTA_MEMORY] = "--mem-limit",
    [QUOTA_HANDLES] = "--max-handles",
    [QUOTA_MODULE_SIZE] = "--max-module-size",
};

int quota_refuse(struct session *s, enum quota_kind q, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    unsigned bit = 1u << q;
    if (!(s->quota_logged & bit)) {
        s->quota_logged |= bit;
        hw_warn("session %016llx: refused %s: over %s (the client gets hipErrorOutOfMemory)",
                (unsigned long long)s->id, what, option_of[q]);
    } else {
        hw_debug("session %016llx: refused %s: over %s", (unsigned long long)s->id, what,
                 option_of[q]);
    }
    return HW_ENOMEM;
}

int quota_handle(struct session *s, const struct handle_map *map, const char *what)
{
    if (map->len < s->cfg->max_handles)
        return HW_OK;
    return quota_refuse(s, QUOTA_HANDLES, "one more of %zu %s", map->len, what);
}
