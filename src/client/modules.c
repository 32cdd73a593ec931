/*
 * modules.c - code objects on the worker: loading (MODULE_LOAD_EX),
 * unloading, and looking up a module's functions and variables, with the
 * variables' ranges kept in the client's memory table. Below api_module.c
 * and the fat binary registry (fatbin_registry.c, fatbin_source.c), which
 * load modules through it; neither calls the other's entry points
 * (docs/architecture.md, "Layers").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"
#include "client.h"

hipError_t hw_module_load(struct hw_conn *c, int device, const void *image, size_t size,
                          struct hw_module **out)
{
    if (size == 0 || size > HIPR_CAP_MODULE)
        return hipErrorInvalidImage;
    struct hw_module *m = hw_calloc(1, sizeof *m);
    if (!m)
        return hipErrorOutOfMemory;
    m->device = device;
    struct hipr_module_load_req req = { .device = hw_wire_device(device) };
    uint8_t buf[HIPR_module_load_req_SIZE], body[HIPR_module_load_rep_SIZE];
    hipr_module_load_req_encode(buf, &req);
    /* The image goes out straight from the caller's memory (it is large);
     * the reply says whether the device can run what it holds. */
    hipError_t err = hw_call(c, HIPR_OP_MODULE_LOAD_EX, buf, sizeof buf, image, size, body,
                             sizeof body, NULL, 0, NULL);
    if (err != hipSuccess) {
        free(m);
        return err;
    }
    struct hipr_module_load_rep r;
    hipr_module_load_rep_decode(body, sizeof body, &r);
    m->id = r.module;
    m->flags = r.flags;
    *out = m;
    return hipSuccess;
}

/* Guards the modules' lists of variable ranges. */
static pthread_mutex_t globals_lock = PTHREAD_MUTEX_INITIALIZER;

hipError_t hw_module_release(struct hw_conn *c, struct hw_module *m)
{
    hipError_t err = hipSuccess;
    if (c) {
        struct hipr_module req = { m->id };
        uint8_t buf[HIPR_module_SIZE];
        hipr_module_encode(buf, &req);
        err = hw_post(c, HIPR_OP_MODULE_UNLOAD, buf, sizeof buf, NULL, 0);
    }
    struct hw_mem_range r;
    for (size_t i = 0; i < m->nglobals; i++)
        hw_mem_remove(m->globals[i], &r);
    free(m->globals);
    free(m->no_binary_note);
    free(m);
    return err;
}

/* Puts a variable's range in the allocation table (once) and remembers it
 * for the module's unload. hipErrorOutOfMemory when it cannot: copies
 * through the variable would then be refused as to unknown memory. */
static hipError_t add_global_range(struct hw_module *m, uint64_t ptr, uint64_t size)
{
    struct hw_mem_range mr;
    hipError_t err = hipSuccess;
    pthread_mutex_lock(&globals_lock);
    if (hw_mem_find(ptr, &mr) < 0) {
        uint64_t *v = hw_realloc(m->globals, (m->nglobals + 1) * sizeof *v);
        struct hw_mem_range nr = { ptr, size, m->device, HW_MEM_DEVICE, 0, 0 };
        if (v)
            m->globals = v;
        if (v && hw_mem_add(&nr) == 0)
            m->globals[m->nglobals++] = ptr;
        else
            err = hipErrorOutOfMemory;
    }
    pthread_mutex_unlock(&globals_lock);
    return err;
}

hipError_t hw_module_function(struct hw_conn *c, struct hw_module *m, const char *name,
                              struct hw_function **out)
{
    size_t nlen = strlen(name);
    if (nlen == 0 || nlen >= HIPR_CAP_NAME)
        return hipErrorInvalidValue;
    struct hipr_module req = { m->id };
    uint8_t buf[HIPR_module_SIZE], body[HIPR_function_rep_SIZE];
    uint8_t *params = hw_malloc(HIPR_CAP_PARAMS * 8);
    uint64_t plen = 0;
    if (!params)
        return hipErrorOutOfMemory;
    hipr_module_encode(buf, &req);
    hipError_t err = hw_call(c, HIPR_OP_MODULE_GET_FUNCTION, buf, sizeof buf, name, nlen, body,
                             sizeof body, params, HIPR_CAP_PARAMS * 8, &plen);
    if (err != hipSuccess) {
        free(params);
        return err;
    }
    struct hipr_function_rep r;
    hipr_function_rep_decode(body, sizeof body, &r);
    if (r.param_count > HIPR_CAP_PARAMS || plen != (uint64_t)r.param_count * 8) {
        free(params);
        return hipErrorInvalidImage;
    }
    struct hw_function *f = hw_calloc(1, sizeof *f + r.param_count * sizeof f->params[0]);
    if (!f) {
        free(params);
        return hipErrorOutOfMemory;
    }
    f->id = r.function;
    f->module = m;
    f->info = r;
    snprintf(f->name, sizeof f->name, "%s", name);
    for (uint32_t i = 0; i < r.param_count; i++) {
        f->params[i].offset = hipr_get_u32(params + 8 * i);
        f->params[i].size = hipr_get_u32(params + 8 * i + 4);
        if (f->params[i].offset > r.args_size ||
            f->params[i].size > r.args_size - f->params[i].offset) {
            free(f);
            free(params);
            return hipErrorInvalidImage;
        }
    }
    free(params);
    *out = f;
    return hipSuccess;
}

hipError_t hw_module_global(struct hw_conn *c, struct hw_module *m, const char *name, uint64_t *ptr,
                            uint64_t *size)
{
    size_t nlen = strlen(name);
    if (nlen == 0 || nlen >= HIPR_CAP_NAME)
        return hipErrorInvalidValue;
    struct hipr_module req = { m->id };
    uint8_t buf[HIPR_module_SIZE], body[HIPR_global_rep_SIZE];
    hipr_module_encode(buf, &req);
    hipError_t err = hw_call(c, HIPR_OP_MODULE_GET_GLOBAL, buf, sizeof buf, name, nlen, body,
                             sizeof body, NULL, 0, NULL);
    if (err != hipSuccess)
        return err;
    struct hipr_global_rep r;
    hipr_global_rep_decode(body, sizeof body, &r);
    /* Copies to the global are checked against the client table too. */
    if ((err = add_global_range(m, r.ptr, r.size)) != hipSuccess)
        return err;
    *ptr = r.ptr;
    *size = r.size;
    return hipSuccess;
}
