/*
 * worker_info.h - what this worker is: version, backend, devices, uptime,
 * for WORKER_INFO (`hipwire status`).
 *
 * A MAP_SHARED block made before the start-up probe: the probe child, which
 * opens the backend once, writes the devices it found, so any session
 * process can answer WORKER_INFO while the supervisor itself still never
 * initialises a GPU runtime.
 */
#ifndef WORKER_INFO_H
#define WORKER_INFO_H

#include <stdint.h>

#include "hipr.h"

struct worker_info {
    uint64_t started_ns; /* CLOCK_MONOTONIC, shared by every process */
    uint32_t device_count;
    char backend[64];
    struct hipr_devinfo devs[HIPR_CAP_DEVICES];
};

struct worker_info *worker_info_create(void);
void worker_info_destroy(struct worker_info *wi);

struct session;
/* Answers WORKER_INFO on the session's connection (info may be NULL: then
 * no devices are listed). Returns 0 or -1. */
int worker_info_send(struct session *s, const struct worker_info *info, uint32_t request_id);

#endif
