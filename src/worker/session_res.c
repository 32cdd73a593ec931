/*
 * session_res.c - see session_res.h.
 */
#include "session_res.h"

void sess_res_init(struct sess_res *r)
{
    alloc_table_init(&r->allocs);
    handle_map_init(&r->streams);
    handle_map_init(&r->events);
    handle_map_init(&r->modules);
    handle_map_init(&r->functions);
    r->next_handle = 0;
    stage_buf_init(&r->bufs);
}

uint64_t sess_res_new_handle(struct sess_res *r)
{
    return ++r->next_handle;
}
