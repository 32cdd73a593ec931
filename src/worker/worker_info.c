#include "worker_info.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "drain.h"
#include "hw_alloc.h"
#include "hw_time.h"
#include "session.h"

#ifndef HIPWIRE_VERSION
#define HIPWIRE_VERSION "unknown"
#endif

struct worker_info *worker_info_create(void)
{
    struct worker_info *wi =
        mmap(NULL, sizeof *wi, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (wi == MAP_FAILED)
        return NULL;
    wi->started_ns = hw_now_ns();
    return wi;
}

void worker_info_destroy(struct worker_info *wi)
{
    if (wi)
        munmap(wi, sizeof *wi);
}

int worker_info_send(struct session *s, const struct worker_info *info, uint32_t request_id)
{
    struct hipr_worker_info_rep r;
    memset(&r, 0, sizeof r);
    strncpy(r.version, HIPWIRE_VERSION, sizeof r.version - 1);
    r.proto_version = HIPR_VERSION;
    r.devinfo_size = HIPR_devinfo_SIZE;
    strncpy(r.backend, info && info->backend[0] ? info->backend : s->cfg->backend,
            sizeof r.backend - 1);
    if (info) {
        r.device_count =
            info->device_count < HIPR_CAP_DEVICES ? info->device_count : HIPR_CAP_DEVICES;
        r.uptime_ms = (hw_now_ns() - info->started_ns) / 1000000u;
    }
    if (s->table && drain_refuses_sessions(s->table))
        r.flags |= HIPR_WORKER_DRAINING;
    if (s->cfg->isolation == WORKER_ISOLATION_SHARED)
        r.flags |= HIPR_WORKER_SHARED;
    size_t tail_len = (size_t)r.device_count * HIPR_devinfo_SIZE;
    uint8_t *tail = hw_malloc(tail_len ? tail_len : 1);
    if (!tail)
        return -1;
    for (uint32_t i = 0; i < r.device_count; i++)
        hipr_devinfo_encode(tail + i * HIPR_devinfo_SIZE, &info->devs[i]);
    uint8_t out[HIPR_worker_info_rep_SIZE];
    hipr_worker_info_rep_encode(out, &r);
    int rc = slink_reply(&s->link, HIPR_OP_WORKER_INFO, request_id, HW_OK, out, sizeof out, tail,
                         tail_len);
    free(tail);
    return rc;
}
