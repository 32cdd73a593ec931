/*
 * module.c - images to modules: offload bundles, AMD code objects the device
 * cannot run, and everything the backend loads itself (module.h).
 */
#include "module.h"

#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"
#include "codeobj.h"
#include "foreign_module.h"
#include "hw_log.h"

#define EM_AMDGPU 224

static int is_amdgpu_elf(const void *image, size_t n)
{
    const uint8_t *p = image;
    return hw_cob_detect(image, n) == HW_COB_KIND_ELF && n >= 20 &&
           (p[18] | (p[19] << 8)) == EM_AMDGPU;
}

/* The code object's target ID, from its metadata; 0 when found. */
static int elf_target(const void *co, size_t n, char *out, size_t cap)
{
    hw_cob_metadata md;
    if (hw_cob_elf_metadata(co, n, &md, NULL) != HW_COB_OK)
        return -1;
    const char *t = hw_cob_target_id(md.target);
    int rc = t && strlen(t) < cap ? 0 : -1;
    if (rc == 0)
        strcpy(out, t);
    hw_cob_metadata_free(&md);
    return rc;
}

static int load_native(struct session *s, int dev, const void *image, size_t n, struct s_module *m)
{
    return s->ops->module_load(s->be, dev, image, n, &m->bm);
}

/*
 * An AMD code object (co) for device dev. When its target matches the
 * device, the backend's answer is final. Otherwise the backend may still
 * accept it (a relay); if it does not, the code object becomes foreign.
 */
static int load_code_object(struct session *s, int dev, const char *device_target, const void *co,
                            size_t n, int target_matches, struct s_module *m)
{
    int rc = load_native(s, dev, co, n, m);
    if (rc == HW_OK || target_matches)
        return rc;
    int frc = foreign_module_open(co, n, dev, &m->fm);
    if (frc != HW_OK)
        return rc == HW_ENOTSUP || rc == HW_ENOBINARY ? frc : rc;
    hw_debug("session %016llx: code object for %s on device %d (%s) loaded as foreign: "
             "%u kernels, launches fail with hipErrorNoBinaryForGpu",
             (unsigned long long)s->id, foreign_module_target(m->fm), dev, device_target,
             foreign_module_kernel_count(m->fm));
    return HW_OK;
}

static int load_bundle(struct session *s, int dev, const char *device_target, const void *image,
                       size_t n, struct s_module *m)
{
    hw_cob_bundle b;
    hw_cob_err err = { { 0 } };
    /* Decompression is bounded by the default limit (1 GiB); a hostile CCOB
     * claiming more is refused before anything is allocated. */
    int rc = hw_cob_bundle_open(image, n, 0, &b, &err);
    if (rc != HW_COB_OK) {
        hw_debug("session %016llx: bundle refused: %s", (unsigned long long)s->id, err.msg);
        return rc == HW_COB_ENOMEM ? HW_ENOMEM : HW_EIMAGE;
    }
    const hw_cob_entry *e = hw_cob_bundle_find(&b, device_target);
    int matches = e != NULL;
    for (uint32_t k = 0; !e && k < b.nentries; k++)
        if (b.entries[k].is_amdgcn && b.entries[k].size)
            e = &b.entries[k];
    if (!e) {
        hw_debug("session %016llx: bundle of %u entries has no AMD code object",
                 (unsigned long long)s->id, b.nentries);
        hw_cob_bundle_close(&b);
        return HW_ENOBINARY;
    }
    const uint8_t *co = hw_cob_entry_data(&b, e);
    hw_debug("session %016llx: %s bundle of %llu bytes, %u entries: %s entry %s for "
             "device %d (%s)",
             (unsigned long long)s->id, b.compressed ? "compressed" : "plain",
             (unsigned long long)b.image_size, b.nentries, matches ? "matching" : "no matching",
             e->triple, dev, device_target);
    rc = co ? load_code_object(s, dev, device_target, co, (size_t)e->size, matches, m) : HW_EIMAGE;
    hw_cob_bundle_close(&b);
    return rc;
}

int module_load(struct session *s, int dev, const void *image, size_t n, struct s_module **out)
{
    struct hipr_devinfo di;
    struct s_module *m = hw_calloc(1, sizeof *m);
    if (!m)
        return HW_ENOMEM;
    int rc = s->ops->device_info(s->be, dev, &di);
    if (rc != HW_OK)
        goto fail;
    di.arch_name[sizeof di.arch_name - 1] = '\0';
    hw_cob_kind kind = hw_cob_detect(image, n);
    if (kind == HW_COB_KIND_BUNDLE || kind == HW_COB_KIND_COMPRESSED) {
        rc = load_bundle(s, dev, di.arch_name, image, n, m);
    } else if (is_amdgpu_elf(image, n)) {
        char target[HW_COB_MAX_TRIPLE + 1];
        int matches = elf_target(image, n, target, sizeof target) == 0 &&
                      hw_cob_target_match(target, di.arch_name, NULL);
        rc = load_code_object(s, dev, di.arch_name, image, n, matches, m);
    } else {
        rc = load_native(s, dev, image, n, m);
    }
    if (rc != HW_OK)
        goto fail;
    m->device = dev;
    *out = m;
    return HW_OK;
fail:
    free(m);
    return rc;
}

void module_unload(struct session *s, struct s_module *m)
{
    if (m->fm)
        foreign_module_close(s->ops, s->be, m->fm);
    else
        s->ops->module_unload(s->be, m->bm);
    for (size_t i = 0; i < m->nglobals; i++)
        free(m->globals[i].name);
    free(m->globals);
    free(m->image);
    free(m);
}

/* Remembers a global the client was told of, at the address it was told. */
static int remember_global(struct s_module *m, const char *name, uint64_t ptr, uint64_t size)
{
    struct s_global *v = hw_realloc(m->globals, (m->nglobals + 1) * sizeof *v);
    if (!v)
        return HW_ENOMEM;
    m->globals = v;
    char *copy = hw_strdup(name);
    if (!copy)
        return HW_ENOMEM;
    v[m->nglobals++] = (struct s_global){ copy, ptr, size };
    return HW_OK;
}

static int lookup_global(struct session *s, struct s_module *m, const char *name, uint64_t *dptr,
                         uint64_t *size)
{
    if (!m->fm)
        return s->ops->module_global(s->be, m->bm, name, dptr, size);
    /* The variable is the session's device memory: it must fit in what
     * --mem-limit leaves (it is not counted afterwards, like a native
     * module's variables). */
    uint64_t left = UINT64_MAX;
    if (s->cfg->mem_limit)
        left = s->cfg->mem_limit > s->res.allocs.malloc_bytes
                   ? s->cfg->mem_limit - s->res.allocs.malloc_bytes
                   : 0;
    return foreign_module_global(s->ops, s->be, m->fm, name, left, dptr, size);
}

int module_global_at(struct session *s, struct s_module *m, const char *name, uint64_t want,
                     uint64_t want_size)
{
    uint64_t ptr, size;
    int rc = lookup_global(s, m, name, &ptr, &size);
    if (rc != HW_OK)
        return rc;
    if (size != want_size)
        return HW_EIMAGE; /* not the image the client knows */
    if (ptr != want) {
        if (!HW_BACKEND_HAS(s->ops, mem_alias))
            return HW_ENOTSUP;
        rc = s->ops->mem_alias(s->be, m->device, ptr, want, size);
        if (rc != HW_OK)
            return rc;
        hw_debug("session %016llx: global %s is at 0x%llx here; the client's 0x%llx is now the "
                 "same memory",
                 (unsigned long long)s->id, name, (unsigned long long)ptr,
                 (unsigned long long)want);
    }
    return remember_global(m, name, want, size);
}

int module_function(struct session *s, struct s_module *m, const char *name, struct s_function *fn)
{
    if (!m->fm)
        return s->ops->module_function(s->be, m->bm, name, &fn->bf, &fn->info);
    struct hipr_devinfo di;
    int rc = s->ops->device_info(s->be, m->device, &di);
    if (rc != HW_OK)
        return rc;
    int32_t limit =
        di.shared_mem_per_block > INT32_MAX ? INT32_MAX : (int32_t)di.shared_mem_per_block;
    fn->bf = NULL;
    return foreign_module_function(m->fm, name, limit, &fn->info);
}

int module_global(struct session *s, struct s_module *m, const char *name, uint64_t *dptr,
                  uint64_t *size)
{
    /* Asked before: the address the client was given (after a migration
     * the device's own may differ; both are the same memory). */
    for (size_t i = 0; i < m->nglobals; i++)
        if (strcmp(m->globals[i].name, name) == 0) {
            *dptr = m->globals[i].ptr;
            *size = m->globals[i].size;
            return HW_OK;
        }
    uint64_t ptr, sz;
    int rc = lookup_global(s, m, name, &ptr, &sz);
    if (rc == HW_OK)
        rc = remember_global(m, name, ptr, sz);
    if (rc != HW_OK)
        return rc;
    *dptr = ptr;
    *size = sz;
    return HW_OK;
}

int module_runnable(const struct s_module *m)
{
    return m->fm ? HW_ENOBINARY : HW_OK;
}

int module_launch(struct session *s, struct s_function *fn, struct hw_bstream *bs,
                  const uint32_t grid[3], const uint32_t block[3], uint32_t shared_mem,
                  const void *args, uint32_t args_size, uint32_t flags)
{
    if (!fn->bf)
        return HW_ENOBINARY;
    return s->ops->launch(s->be, bs, fn->bf, grid, block, shared_mem, args, args_size, flags);
}
