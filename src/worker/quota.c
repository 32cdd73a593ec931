#include "quota.h"

#include <stdarg.h>
#include <stdio.h>

#include "hw_log.h"

static const char *const option_of[] = {
    [QUOTA_MEMORY] = "--mem-limit",
    [QUOTA_HANDLES] = "--max-handles",
    [QUOTA_MODULE_SIZE] = "--max-module-size",
    [QUOTA_STREAMS] = "--max-streams",
    [QUOTA_STREAMS_TOTAL] = "--max-streams-total",
};

int quota_refuse(struct sess_limits *lm, enum quota_kind q, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    unsigned bit = 1u << q;
    if (!(lm->quota_logged & bit)) {
        lm->quota_logged |= bit;
        hw_warn("session %016llx: refused %s: over %s (the client gets hipErrorOutOfMemory)",
                (unsigned long long)lm->id, what, option_of[q]);
    } else {
        hw_debug("session %016llx: refused %s: over %s", (unsigned long long)lm->id, what,
                 option_of[q]);
    }
    return HW_ENOMEM;
}

int quota_handle(struct sess_limits *lm, const struct handle_map *map, const char *what)
{
    if (map->len < lm->cfg->max_handles)
        return HW_OK;
    return quota_refuse(lm, QUOTA_HANDLES, "one more of %zu %s", map->len, what);
}

int quota_stream(struct sess_limits *lm)
{
    if (lm->res->streams.len >= lm->cfg->max_streams)
        return quota_refuse(lm, QUOTA_STREAMS, "stream %zu", lm->res->streams.len + 1);
    uint32_t total = lm->table ? status_table_streams(lm->table) : 0;
    if (total >= lm->cfg->max_streams_total)
        return quota_refuse(lm, QUOTA_STREAMS_TOTAL, "a stream (%u in the worker)", total);
    return quota_handle(lm, &lm->res->streams, "streams");
}

void quota_streams_changed(struct sess_limits *lm)
{
    if (lm->slot)
        __atomic_store_n(&lm->slot->streams, (uint32_t)lm->res->streams.len, __ATOMIC_RELAXED);
}
