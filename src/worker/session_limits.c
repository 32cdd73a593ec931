/*
 * session_limits.c - see session_limits.h.
 */
#include "session_limits.h"

#include <string.h>

void limits_init(struct sess_limits *lm, const struct worker_config *cfg, struct sess_link *link,
                 struct sess_res *res, struct status_table *table)
{
    memset(lm, 0, sizeof *lm);
    lm->cfg = cfg;
    lm->link = link;
    lm->res = res;
    lm->table = table;
    pthread_mutex_init(&lm->stage_lock, NULL);
    pthread_cond_init(&lm->stage_cond, NULL);
}

void limits_attach_backend(struct sess_limits *lm, const struct hw_backend_ops *ops,
                           struct hw_backend *be, int device_count)
{
    lm->ops = ops;
    lm->be = be;
    lm->device_count = device_count;
}
