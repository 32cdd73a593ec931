/*
 * foreign_module.c - an AMD code object kept for its metadata and variables
 * on a device that cannot run it (foreign_module.h says why).
 */
#include "foreign_module.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"
#include "codeobj.h"
#include "hw_log.h"

struct foreign_global {
    struct foreign_global *next;
    char *name;
    uint64_t dptr, size;
};

struct foreign_module {
    uint8_t *co; /* owned copy: the variables' initial bytes */
    size_t len;
    int dev;
    hw_cob_metadata md;
    struct hw_param **params; /* per kernel, built on first lookup */
    struct foreign_global *globals;
};

int foreign_module_open(const void *co, size_t n, int dev, struct foreign_module **out)
{
    hw_cob_err err = { { 0 } };
    struct foreign_module *fm = hw_calloc(1, sizeof *fm);
    if (!fm)
        return HW_ENOMEM;
    fm->co = hw_malloc(n ? n : 1);
    if (!fm->co) {
        free(fm);
        return HW_ENOMEM;
    }
    memcpy(fm->co, co, n);
    fm->len = n;
    fm->dev = dev;
    int rc = hw_cob_elf_metadata(fm->co, n, &fm->md, &err);
    if (rc != HW_COB_OK) {
        hw_debug("foreign code object refused: %s", err.msg);
        free(fm->co);
        free(fm);
        return rc == HW_COB_ENOMEM ? HW_ENOMEM : HW_EIMAGE;
    }
    fm->params = hw_calloc(fm->md.nkernels ? fm->md.nkernels : 1, sizeof *fm->params);
    if (!fm->params) {
        hw_cob_metadata_free(&fm->md);
        free(fm->co);
        free(fm);
        return HW_ENOMEM;
    }
    *out = fm;
    return HW_OK;
}

void foreign_module_close(const struct hw_backend_ops *ops, struct hw_backend *be,
                          struct foreign_module *fm)
{
    while (fm->globals) {
        struct foreign_global *g = fm->globals;
        fm->globals = g->next;
        ops->mem_free(be, fm->dev, g->dptr, g->size);
        free(g->name);
        free(g);
    }
    for (uint32_t k = 0; k < fm->md.nkernels; k++)
        free(fm->params[k]);
    free(fm->params);
    hw_cob_metadata_free(&fm->md);
    free(fm->co);
    free(fm);
}

int foreign_module_function(struct foreign_module *fm, const char *name,
                            int32_t dynamic_shared_limit, struct hw_func_info *info)
{
    const hw_cob_kernel *k = hw_cob_find_kernel(&fm->md, name);
    if (!k)
        return HW_ENOTFOUND;
    /* The caller passes the visible arguments only; hidden ones are the
     * runtime's. The parser checked that each lies inside the segment. */
    if (k->nargs > HIPR_CAP_PARAMS || k->explicit_size > HIPR_CAP_KERNEL_ARGS)
        return HW_EIMAGE;
    size_t idx = (size_t)(k - fm->md.kernels);
    if (!fm->params[idx]) {
        struct hw_param *p = hw_calloc(k->nargs ? k->nargs : 1, sizeof *p);
        if (!p)
            return HW_ENOMEM;
        for (uint32_t i = 0; i < k->nargs; i++)
            p[i] = (struct hw_param){ k->args[i].offset, k->args[i].size };
        fm->params[idx] = p;
    }
    memset(info, 0, sizeof *info);
    info->param_count = k->nargs;
    info->args_size = k->explicit_size;
    info->params = fm->params[idx];
    info->max_threads_per_block =
        k->max_flat_workgroup_size ? (int32_t)k->max_flat_workgroup_size : 1024;
    info->num_regs = (int32_t)k->vgpr_count;
    info->shared_size_bytes = (int32_t)k->group_segment_fixed_size;
    info->local_size_bytes = (int32_t)k->private_segment_fixed_size;
    info->max_dynamic_shared = dynamic_shared_limit > info->shared_size_bytes
                                   ? dynamic_shared_limit - info->shared_size_bytes
                                   : 0;
    /* ROCm gives both versions as the ISA's major * 10 + minor (gfx90a: 90);
     * here the ISA is the one the code object was built for. */
    unsigned major, minor;
    if (hw_cob_isa_version(fm->md.target, &major, &minor)) {
        info->binary_version = (int32_t)(major * 10 + minor);
        info->ptx_version = info->binary_version;
    }
    return HW_OK;
}

/* Waits for one stream callback. */
struct copy_wait {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done, status;
};

static void copy_done(void *arg, int status)
{
    struct copy_wait *w = arg;
    pthread_mutex_lock(&w->lock);
    w->done = 1;
    w->status = status;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

/* Writes the variable's first contents. The memory is new and its address
 * not yet given out, so nothing else can touch it: host-addressable memory
 * is written directly, other memory through a private non-blocking stream
 * that does not wait behind the session's queued work. */
static int initialise(const struct hw_backend_ops *ops, struct hw_backend *be, int dev,
                      uint64_t dptr, const uint8_t *init, uint64_t size)
{
    if (HW_BACKEND_HAS(ops, host_ptr)) {
        void *p = ops->host_ptr(be, dptr);
        if (p) {
            if (init)
                memcpy(p, init, (size_t)size);
            else
                memset(p, 0, (size_t)size);
            return HW_OK;
        }
    }
    struct hw_bstream *bs;
    int rc = ops->stream_create(be, dev, 0x1 /* hipStreamNonBlocking */, 0, &bs);
    if (rc != HW_OK)
        return rc;
    struct copy_wait w = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, HW_OK };
    rc = init ? ops->memcpy_h2d(be, bs, dptr, init, size, NULL, NULL)
              : ops->memset(be, bs, dptr, 0, 1, size);
    if (rc == HW_OK)
        rc = ops->stream_callback(be, bs, copy_done, &w);
    if (rc == HW_OK) {
        pthread_mutex_lock(&w.lock);
        while (!w.done)
            pthread_cond_wait(&w.cond, &w.lock);
        pthread_mutex_unlock(&w.lock);
        rc = w.status;
    }
    ops->stream_destroy(be, bs);
    return rc;
}

int foreign_module_global(const struct hw_backend_ops *ops, struct hw_backend *be,
                          struct foreign_module *fm, const char *name, uint64_t max_bytes,
                          uint64_t *dptr, uint64_t *size)
{
    for (struct foreign_global *g = fm->globals; g; g = g->next)
        if (strcmp(g->name, name) == 0) {
            *dptr = g->dptr;
            *size = g->size;
            return HW_OK;
        }
    hw_cob_err err = { { 0 } };
    hw_cob_symbol sym;
    int rc = hw_cob_elf_find_object(fm->co, fm->len, name, &sym, &err);
    if (rc == HW_COB_ENOTFOUND)
        return HW_ENOTFOUND;
    if (rc != HW_COB_OK) {
        hw_debug("foreign code object: %s", err.msg);
        return HW_EIMAGE;
    }
    if (sym.size > max_bytes)
        return HW_ENOMEM;
    struct foreign_global *g = hw_calloc(1, sizeof *g);
    char *copy = hw_strdup(name);
    if (!g || !copy) {
        free(g);
        free(copy);
        return HW_ENOMEM;
    }
    rc = ops->mem_alloc(be, fm->dev, sym.size, &g->dptr);
    if (rc == HW_OK) {
        rc = initialise(ops, be, fm->dev, g->dptr, sym.init, sym.size);
        if (rc != HW_OK)
            ops->mem_free(be, fm->dev, g->dptr, sym.size);
    }
    if (rc != HW_OK) {
        free(g);
        free(copy);
        return rc;
    }
    g->name = copy;
    g->size = sym.size;
    g->next = fm->globals;
    fm->globals = g;
    *dptr = g->dptr;
    *size = g->size;
    return HW_OK;
}

uint32_t foreign_module_kernel_count(const struct foreign_module *fm)
{
    return fm->md.nkernels;
}

const char *foreign_module_target(const struct foreign_module *fm)
{
    const char *t = hw_cob_target_id(fm->md.target);
    return t ? t : "?";
}
