/*
 * ops_module.c - modules, their functions and globals, and launches.
 */
#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"
#include "hw_log.h"
#include "ops.h"
#include "module.h"

static int read_name(struct session *s, char *name)
{
    uint64_t n = s->link.tail_left;
    if (n == 0 || n >= HIPR_CAP_NAME)
        return HW_EINVAL;
    if (slink_read_tail(&s->link, name, n) < 0)
        return -1;
    name[n] = '\0';
    if (strlen(name) != n)
        return HW_EINVAL; /* embedded NUL */
    return HW_OK;
}

/* Reads the image and loads it; both MODULE_LOAD and MODULE_LOAD_EX. */
static int load_module(struct session *s, const struct hipr_module_load_req *req, uint64_t *id_out,
                       struct s_module **mod_out)
{
    struct hipr_module_load_req m = *req;
    if (m.device < 0 || m.device >= s->device_count)
        return HW_EDEVICE;
    uint64_t n = s->link.tail_left;
    if (n == 0)
        return HW_EIMAGE;
    /* Refused before anything is allocated; the image is read and dropped. */
    if (n > s->cfg->max_module_size)
        return quota_refuse(&s->lim, QUOTA_MODULE_SIZE, "a module image of %llu bytes (limit %llu)",
                            (unsigned long long)n, (unsigned long long)s->cfg->max_module_size);
    int rc = quota_handle(&s->lim, &s->res.modules, "modules");
    if (rc != HW_OK)
        return rc;
    void *image = hw_malloc(n);
    if (!image)
        return HW_ENOMEM;
    if (slink_read_tail(&s->link, image, n) < 0) {
        free(image);
        return -1;
    }
    struct s_module *mod = NULL;
    rc = module_load(s, m.device, image, n, &mod);
    if (rc != HW_OK) {
        free(image);
        return rc;
    }
    /* Kept: a planned migration loads it again on the other worker. */
    mod->image = image;
    mod->image_size = n;
    uint64_t id = sess_res_new_handle(&s->res);
    if (handle_map_put(&s->res.modules, id, mod) < 0) {
        module_unload(s, mod);
        return HW_ENOMEM;
    }
    *id_out = id;
    *mod_out = mod;
    return HW_OK;
}

HANDLER(MODULE_LOAD)
{
    struct hipr_module_load_req m;
    struct s_module *mod;
    struct hipr_module r;
    hipr_module_load_req_decode(fixed, HIPR_module_load_req_SIZE, &m);
    int rc = load_module(s, &m, &r.module, &mod);
    if (rc != HW_OK)
        return rc;
    uint8_t out[HIPR_module_SIZE];
    hipr_module_encode(out, &r);
    slink_reply(&s->link, h->opcode, h->request_id, HW_OK, out, sizeof out, NULL, 0);
    return HW_OK;
}

HANDLER(MODULE_LOAD_EX)
{
    struct hipr_module_load_req m;
    struct s_module *mod = NULL; /* set when load_module succeeds; gcc 13 cannot tell */
    struct hipr_module_load_rep r = { 0 };
    hipr_module_load_req_decode(fixed, HIPR_module_load_req_SIZE, &m);
    if (m.flags != 0)
        return HW_EINVAL; /* no request flags are defined yet */
    int rc = load_module(s, &m, &r.module, &mod);
    if (rc != HW_OK)
        return rc;
    r.flags = module_runnable(mod) == HW_OK ? 0 : HIPR_MODULE_NO_BINARY;
    uint8_t out[HIPR_module_load_rep_SIZE];
    hipr_module_load_rep_encode(out, &r);
    slink_reply(&s->link, h->opcode, h->request_id, HW_OK, out, sizeof out, NULL, 0);
    return HW_OK;
}

/* The handle already given out for this module's function `name`, or 0. */
static uint64_t find_function(struct session *s, uint64_t module, const char *name)
{
    size_t pos = 0;
    uint64_t key;
    void *v;
    while (handle_map_next(&s->res.functions, &pos, &key, &v)) {
        const struct s_function *fn = v;
        if (fn->module == module && strcmp(fn->name, name) == 0)
            return key;
    }
    return 0;
}

HANDLER(MODULE_GET_FUNCTION)
{
    struct hipr_module m;
    char name[HIPR_CAP_NAME];
    hipr_module_decode(fixed, HIPR_module_SIZE, &m);
    int rc = read_name(s, name);
    if (rc != HW_OK)
        return rc;
    struct s_module *mod = handle_map_get(&s->res.modules, m.module);
    if (!mod)
        return HW_EHANDLE;
    /* A name looked up again gets the same handle, so a program that looks
     * its kernels up in a loop does not grow the session. */
    uint64_t id = find_function(s, m.module, name);
    struct s_function *fn = id ? handle_map_get(&s->res.functions, id) : NULL;
    if (!fn) {
        if ((rc = quota_handle(&s->lim, &s->res.functions, "functions")) != HW_OK)
            return rc;
        fn = hw_calloc(1, sizeof *fn);
        if (!fn || !(fn->name = hw_strdup(name))) {
            free(fn);
            return HW_ENOMEM;
        }
        rc = module_function(s, mod, name, fn);
        if (rc != HW_OK) {
            free(fn->name);
            free(fn);
            return rc;
        }
        fn->module = m.module;
        id = sess_res_new_handle(&s->res);
        if (handle_map_put(&s->res.functions, id, fn) < 0) {
            free(fn->name);
            free(fn);
            return HW_ENOMEM;
        }
    }
    struct hipr_function_rep r = {
        .function = id,
        .param_count = fn->info.param_count,
        .args_size = fn->info.args_size,
        .max_threads_per_block = fn->info.max_threads_per_block,
        .num_regs = fn->info.num_regs,
        .shared_size_bytes = fn->info.shared_size_bytes,
        .const_size_bytes = fn->info.const_size_bytes,
        .local_size_bytes = fn->info.local_size_bytes,
        .max_dynamic_shared = fn->info.max_dynamic_shared,
        .ptx_version = fn->info.ptx_version,
        .binary_version = fn->info.binary_version,
    };
    uint8_t out[HIPR_function_rep_SIZE];
    size_t tail_len = (size_t)r.param_count * 8;
    uint8_t *tail = hw_malloc(tail_len ? tail_len : 1);
    if (!tail)
        return HW_ENOMEM;
    for (uint32_t i = 0; i < r.param_count; i++) {
        hipr_put_u32(tail + 8 * i, fn->info.params[i].offset);
        hipr_put_u32(tail + 8 * i + 4, fn->info.params[i].size);
    }
    hipr_function_rep_encode(out, &r);
    slink_reply(&s->link, h->opcode, h->request_id, HW_OK, out, sizeof out, tail, tail_len);
    free(tail);
    return HW_OK;
}

HANDLER(MODULE_GET_GLOBAL)
{
    struct hipr_module m;
    struct hipr_global_rep r;
    char name[HIPR_CAP_NAME];
    hipr_module_decode(fixed, HIPR_module_SIZE, &m);
    int rc = read_name(s, name);
    if (rc != HW_OK)
        return rc;
    struct s_module *mod = handle_map_get(&s->res.modules, m.module);
    if (!mod)
        return HW_EHANDLE;
    rc = module_global(s, mod, name, &r.ptr, &r.size);
    if (rc != HW_OK)
        return rc;
    /* Copies to and from the global are checked like any allocation. */
    if (!alloc_table_find(&s->res.allocs, r.ptr, r.size)) {
        struct alloc_range ar = { r.ptr, r.size, mod->device, ALLOC_GLOBAL, m.module };
        if (alloc_table_insert(&s->res.allocs, &ar) < 0)
            return HW_EINVAL;
    }
    uint8_t out[HIPR_global_rep_SIZE];
    hipr_global_rep_encode(out, &r);
    slink_reply(&s->link, h->opcode, h->request_id, HW_OK, out, sizeof out, NULL, 0);
    return HW_OK;
}

void ops_unload_module(struct session *s, uint64_t id, struct s_module *mod)
{
    size_t pos = 0;
    uint64_t key;
    void *v;
    while (handle_map_next(&s->res.functions, &pos, &key, &v)) {
        struct s_function *fn = v;
        if (fn->module == id) {
            handle_map_del(&s->res.functions, key);
            free(fn->name);
            free(fn);
        }
    }
    for (size_t i = s->res.allocs.len; i-- > 0;) {
        struct alloc_range r = s->res.allocs.v[i];
        if (r.kind == ALLOC_GLOBAL && r.owner == id)
            alloc_table_remove(&s->res.allocs, r.base, &r);
    }
    module_unload(s, mod);
}

HANDLER(MODULE_UNLOAD)
{
    struct hipr_module m;
    (void)h;
    hipr_module_decode(fixed, HIPR_module_SIZE, &m);
    struct s_module *mod = handle_map_del(&s->res.modules, m.module);
    if (!mod)
        return HW_EHANDLE;
    session_drain(s, -1); /* queued work may still run its code or touch its globals */
    ops_unload_module(s, m.module, mod);
    hw_debug("session %016llx: module %llu unloaded", (unsigned long long)s->id,
             (unsigned long long)m.module);
    return HW_OK;
}

HANDLER(LAUNCH)
{
    struct hipr_launch m;
    struct hw_bstream *bs;
    int dev, rc;
    uint8_t args[HIPR_CAP_KERNEL_ARGS];
    (void)h;
    hipr_launch_decode(fixed, HIPR_launch_SIZE, &m);
    uint64_t n = s->link.tail_left;
    if (slink_read_tail(&s->link, args, n) < 0)
        return -1;
    struct s_function *fn = handle_map_get(&s->res.functions, m.function);
    if (!fn)
        return HW_EHANDLE;
    if ((rc = ops_resolve_stream(s, m.stream, &bs, &dev)) != HW_OK)
        return rc;
    struct s_module *mod = handle_map_get(&s->res.modules, fn->module);
    if (!mod || mod->device != dev)
        return HW_EHANDLE; /* a function runs only on its module's device */
    if ((rc = module_runnable(mod)) != HW_OK)
        return rc;
    if (n < fn->info.args_size)
        return HW_EINVAL;
    uint32_t grid[3] = { m.grid_x, m.grid_y, m.grid_z };
    uint32_t block[3] = { m.block_x, m.block_y, m.block_z };
    if (!grid[0] || !grid[1] || !grid[2] || !block[0] || !block[1] || !block[2])
        return HW_ECONFIG;
    if ((uint64_t)block[0] * block[1] * block[2] > (uint64_t)fn->info.max_threads_per_block)
        return HW_ECONFIG;
    struct s_event *start = m.start_event ? handle_map_get(&s->res.events, m.start_event) : NULL;
    struct s_event *stop = m.stop_event ? handle_map_get(&s->res.events, m.stop_event) : NULL;
    if ((m.start_event && !start) || (m.stop_event && !stop))
        return HW_EHANDLE;
    if (start && (rc = s->ops->event_record(s->be, start->be, bs)) != HW_OK)
        return rc;
    uint64_t queued = start ? INFLIGHT_OP_COST : 0;
    rc = module_launch(s, fn, bs, grid, block, m.shared_mem, args, (uint32_t)n, m.flags);
    if (rc == HW_OK) {
        queued += INFLIGHT_OP_COST + n; /* the backend keeps a copy of the arguments */
        if (stop && (rc = s->ops->event_record(s->be, stop->be, bs)) == HW_OK)
            queued += INFLIGHT_OP_COST;
    }
    if (queued)
        inflight_queued(&s->lim, m.stream, bs, queued);
    return rc;
}
