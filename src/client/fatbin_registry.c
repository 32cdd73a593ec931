/*
 * fatbin_registry.c - what a hipcc-built program registers before main:
 * its fat binaries, the host stub of each kernel and the host shadow of each
 * __device__/__constant__ variable.
 *
 * Registration only records pointers (a framework registers ~100k kernels
 * and uses a few hundred): no parsing, no copying, no network. A fat binary
 * goes to the worker the first time one of its kernels or variables is used
 * on a device (MODULE_LOAD_EX, once per device for the connection's life);
 * each kernel and variable is resolved on its own first use, and all of it
 * is cached. Names point into the program's memory, which lives until the
 * program unregisters the fat binary (exit or dlclose).
 *
 * Locking: one registry lock, held only for table lookups and updates; the
 * upload of a fat binary holds that fat binary's own lock (threads needing
 * it wait for it anyway) and resolutions hold none: results are installed
 * with compare-and-swap, and a thread that loses a race frees its copy.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"
#include "api_unsupported.h"
#include "client.h"
#include "codeobj.h"
#include "hw_log.h"
#include "ptr_map.h"

/* The entry points hipcc's module constructors and destructors call. No
 * header declares them; the signatures are the real library's. */
void **__hipRegisterFatBinary(const void *data);
void __hipRegisterFunction(void **modules, const void *hostFunction, char *deviceFunction,
                           const char *deviceName, unsigned int threadLimit, void *tid, void *bid,
                           dim3 *blockDim, dim3 *gridDim, int *wSize);
void __hipRegisterVar(void **modules, void *var, char *hostVar, char *deviceVar, int ext,
                      size_t size, int constant, int global);
void __hipUnregisterFatBinary(void **modules);

#define FATBIN_MAGIC 0x68774642u /* "BFwh": a handle this file made */
#define CHUNK_FIRST  8
#define CHUNK_MAX    1024

/* A registered kernel or variable. per_dev is NULL until its first use,
 * then HIPR_CAP_DEVICES slots: kernels hold struct hw_function *, variables
 * struct fb_global *. */
struct fb_symbol {
    const void *host;
    struct hw_fatbin *fb;
    const char *name;
    void **per_dev;
};

struct fb_global {
    uint64_t ptr, size;
};

/* Symbols are allocated in chunks that never move: resolution reads them
 * without the registry lock. Chunks start small and double (most fat
 * binaries hold a handful of kernels; a few hold thousands). */
struct fb_chunk {
    struct fb_chunk *next;
    unsigned used, cap;
    struct fb_symbol v[];
};

struct hw_fatbin {
    uint32_t magic;
    const void *image;         /* NULL when the wrapper was refused */
    uint64_t image_size;       /* 0 until first sized */
    pthread_mutex_t load_lock; /* one upload at a time */
    struct hw_module **mods;   /* HIPR_CAP_DEVICES slots once used */
    struct fb_chunk *kernels, *vars;
};

/* Guards the two maps and the fat binaries' symbol lists. */
static pthread_rwlock_t reg_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct ptr_map kernel_map, var_map;

static void *load_ptr(void **slot)
{
    return __atomic_load_n(slot, __ATOMIC_ACQUIRE);
}

/* Installs v in an empty slot; returns what the slot holds afterwards. */
static void *install(void **slot, void *v)
{
    void *expected = NULL;
    if (__atomic_compare_exchange_n(slot, &expected, v, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return v;
    return expected;
}

/* The per-device slots of a symbol, allocated on first use. */
static void **slots_of(void ***field)
{
    void **s = load_ptr((void **)field);
    if (s)
        return s;
    void **fresh = hw_calloc(HIPR_CAP_DEVICES, sizeof *fresh);
    if (!fresh)
        return NULL;
    s = install((void **)field, fresh);
    if (s != fresh)
        free(fresh);
    return s;
}

HW_EXPORT void **__hipRegisterFatBinary(const void *data)
{
    struct hw_fatbin *fb = hw_calloc(1, sizeof *fb);
    if (!fb)
        return NULL;
    hw_cob_err err = { { 0 } };
    const void *image = NULL;
    if (hw_cob_wrapper_binary(data, &image, &err) != HW_COB_OK) {
        /* Kept, so its kernels fail with a clear error instead of
         * looking unregistered. */
        hw_debug("fat binary wrapper %p refused: %s", data, err.msg);
        image = NULL;
    }
    fb->magic = FATBIN_MAGIC;
    fb->image = image;
    pthread_mutex_init(&fb->load_lock, NULL);
    return (void **)fb;
}

static struct hw_fatbin *fatbin_of(void **modules)
{
    struct hw_fatbin *fb = (struct hw_fatbin *)modules;
    return fb && fb->magic == FATBIN_MAGIC ? fb : NULL;
}

/* Appends a symbol to a fat binary's list; called with reg_lock held. */
static struct fb_symbol *new_symbol(struct fb_chunk **list)
{
    struct fb_chunk *c = *list;
    if (!c || c->used == c->cap) {
        unsigned cap = !c ? CHUNK_FIRST : c->cap < CHUNK_MAX ? 2 * c->cap : CHUNK_MAX;
        c = hw_calloc(1, sizeof *c + cap * sizeof c->v[0]);
        if (!c)
            return NULL;
        c->cap = cap;
        c->next = *list;
        *list = c;
    }
    return &c->v[c->used++];
}

static void register_symbol(void **modules, const void *host, const char *name,
                            struct fb_chunk **(*list_of)(struct hw_fatbin *), struct ptr_map *map)
{
    struct hw_fatbin *fb = fatbin_of(modules);
    if (!fb || !host || !name)
        return;
    pthread_rwlock_wrlock(&reg_lock);
    /* The same host stub may be registered by several fat binaries (a
     * template kernel instantiated in several translation units): as in
     * HIP, the first registration is the one used. */
    if (!ptr_map_get(map, host)) {
        struct fb_symbol *sym = new_symbol(list_of(fb));
        if (sym) {
            sym->host = host;
            sym->fb = fb;
            sym->name = name;
            if (ptr_map_put(map, host, sym) < 0)
                sym->host = NULL; /* out of memory: the symbol stays unknown */
        }
    }
    pthread_rwlock_unlock(&reg_lock);
}

static struct fb_chunk **kernels_of(struct hw_fatbin *fb)
{
    return &fb->kernels;
}

static struct fb_chunk **vars_of(struct hw_fatbin *fb)
{
    return &fb->vars;
}

HW_EXPORT void __hipRegisterFunction(void **modules, const void *hostFunction, char *deviceFunction,
                                     const char *deviceName, unsigned int threadLimit, void *tid,
                                     void *bid, dim3 *blockDim, dim3 *gridDim, int *wSize)
{
    (void)deviceFunction;
    (void)threadLimit;
    (void)tid;
    (void)bid;
    (void)blockDim;
    (void)gridDim;
    (void)wSize;
    register_symbol(modules, hostFunction, deviceName, kernels_of, &kernel_map);
}

HW_EXPORT void __hipRegisterVar(void **modules, void *var, char *hostVar, char *deviceVar, int ext,
                                size_t size, int constant, int global)
{
    /* The size, constness and linkage are the device symbol's business: its
     * size comes back from the worker with its address. */
    (void)hostVar;
    (void)ext;
    (void)size;
    (void)constant;
    (void)global;
    register_symbol(modules, var, deviceVar, vars_of, &var_map);
}

static void drop_symbols(struct fb_chunk *list, struct ptr_map *map)
{
    while (list) {
        struct fb_chunk *c = list;
        list = c->next;
        for (unsigned i = 0; i < c->used; i++) {
            struct fb_symbol *sym = &c->v[i];
            if (sym->host)
                ptr_map_del(map, sym->host, sym);
            for (int d = 0; sym->per_dev && d < HIPR_CAP_DEVICES; d++)
                free(sym->per_dev[d]); /* hw_function or fb_global: plain memory */
            free(sym->per_dev);
        }
        free(c);
    }
}

HW_EXPORT void __hipUnregisterFatBinary(void **modules)
{
    struct hw_fatbin *fb = fatbin_of(modules);
    if (!fb)
        return;
    pthread_rwlock_wrlock(&reg_lock);
    drop_symbols(fb->kernels, &kernel_map);
    drop_symbols(fb->vars, &var_map);
    pthread_rwlock_unlock(&reg_lock);
    /* A library unloaded mid-run frees its modules on the worker too. */
    hipError_t err;
    struct hw_conn *c = fb->mods ? hw_conn_get(&err) : NULL;
    for (int d = 0; fb->mods && d < HIPR_CAP_DEVICES; d++)
        if (fb->mods[d])
            hw_module_release(c, fb->mods[d]);
    free(fb->mods);
    fb->magic = 0;
    pthread_mutex_destroy(&fb->load_lock);
    free(fb);
}

/* The fat binary's module on device dev, uploading it on first use. */
static hipError_t fatbin_module(struct hw_conn *c, struct hw_fatbin *fb, int dev,
                                struct hw_module **out)
{
    void **mods = load_ptr((void **)&fb->mods);
    struct hw_module *m = mods ? load_ptr(&mods[dev]) : NULL;
    if (m) {
        *out = m;
        return hipSuccess;
    }
    if (!fb->image)
        return hipErrorInvalidImage;
    hipError_t err = hipSuccess;
    pthread_mutex_lock(&fb->load_lock);
    mods = slots_of((void ***)&fb->mods);
    m = mods ? mods[dev] : NULL;
    if (!mods) {
        err = hipErrorOutOfMemory;
    } else if (!m) {
        hw_cob_err cerr = { { 0 } };
        if (!fb->image_size &&
            hw_cob_image_size(fb->image, SIZE_MAX, &fb->image_size, &cerr) != HW_COB_OK) {
            hw_debug("fat binary at %p cannot be sized: %s", fb->image, cerr.msg);
            err = hipErrorInvalidImage;
        }
        if (err == hipSuccess &&
            !hw_fatbin_source_load(c, dev, fb->image, (size_t)fb->image_size, &m, &err))
            err = hw_module_load(c, dev, fb->image, (size_t)fb->image_size, &m);
        if (err == hipSuccess && (m->flags & HIPR_MODULE_NO_BINARY))
            m->no_binary_note = hw_fatbin_arch_note(c, dev, fb->image, (size_t)fb->image_size);
        if (err == hipSuccess) {
            hw_debug("fat binary at %p: %llu bytes uploaded for device %d%s", fb->image,
                     (unsigned long long)fb->image_size, dev,
                     m->flags & HIPR_MODULE_NO_BINARY ? " (no code object for it)" : "");
            __atomic_store_n(&mods[dev], m, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(&fb->load_lock);
    if (err == hipSuccess)
        *out = m;
    return err;
}

/* Looks a host address up; the symbol stays valid while its fat binary is
 * registered. */
static struct fb_symbol *lookup(struct ptr_map *map, const void *host)
{
    pthread_rwlock_rdlock(&reg_lock);
    struct fb_symbol *sym = ptr_map_get(map, host);
    pthread_rwlock_unlock(&reg_lock);
    return sym;
}

/* The registered symbol behind key, a connection and its per-device slots
 * for dev: what resolving a kernel or a variable on a device starts from.
 * `unknown` is the error for a key that was never registered. */
static hipError_t symbol_on_device(struct ptr_map *map, const void *key, int dev,
                                   hipError_t unknown, struct fb_symbol **sym, struct hw_conn **c,
                                   void ***slots)
{
    hipError_t err;
    *sym = key ? lookup(map, key) : NULL;
    if (!*sym)
        return unknown;
    *c = hw_conn_get(&err);
    if (!*c)
        return err;
    if (dev < 0 || dev >= (*c)->device_count || dev >= HIPR_CAP_DEVICES)
        return hipErrorInvalidDevice;
    *slots = slots_of(&(*sym)->per_dev);
    return *slots ? hipSuccess : hipErrorOutOfMemory;
}

int hw_fatbin_is_kernel(const void *host_stub)
{
    return host_stub && lookup(&kernel_map, host_stub) != NULL;
}

const char *hw_fatbin_kernel_name(const void *host_stub)
{
    const struct fb_symbol *sym = host_stub ? lookup(&kernel_map, host_stub) : NULL;
    return sym ? sym->name : NULL;
}

hipError_t hw_fatbin_function(const void *host_stub, int dev, const struct hw_function **out)
{
    struct hw_conn *c;
    struct fb_symbol *sym = NULL;
    void **slots = NULL;
    hipError_t err = symbol_on_device(&kernel_map, host_stub, dev, hipErrorInvalidDeviceFunction,
                                      &sym, &c, &slots);
    if (err == hipErrorInvalidDeviceFunction && host_stub)
        hw_api_note_once("nokernel", "a kernel launch named a host address no registered fat "
                                     "binary holds a kernel for (hipErrorInvalidDeviceFunction): "
                                     "was the device code linked into the program?");
    if (err != hipSuccess)
        return err;
    struct hw_function *f = load_ptr(&slots[dev]);
    if (!f) {
        struct hw_module *m;
        if ((err = fatbin_module(c, sym->fb, dev, &m)) != hipSuccess)
            return err;
        if ((err = hw_module_function(c, m, sym->name, &f)) != hipSuccess)
            return err == hipErrorNotFound ? hipErrorInvalidDeviceFunction : err;
        struct hw_function *won = install(&slots[dev], f);
        if (won != f)
            free(f); /* another thread resolved it first; its worker handle
                        is freed with the module */
        f = won;
    }
    *out = f;
    return hipSuccess;
}

hipError_t hw_fatbin_global(const void *host_var, int dev, uint64_t *ptr, uint64_t *size)
{
    struct hw_conn *c;
    struct fb_symbol *sym = NULL;
    void **slots = NULL;
    hipError_t err =
        symbol_on_device(&var_map, host_var, dev, hipErrorInvalidSymbol, &sym, &c, &slots);
    if (err != hipSuccess)
        return err;
    struct fb_global *g = load_ptr(&slots[dev]);
    if (!g) {
        struct hw_module *m;
        struct fb_global *fresh = hw_calloc(1, sizeof *fresh);
        if (!fresh)
            return hipErrorOutOfMemory;
        err = fatbin_module(c, sym->fb, dev, &m);
        if (err == hipSuccess)
            err = hw_module_global(c, m, sym->name, &fresh->ptr, &fresh->size);
        if (err != hipSuccess) {
            free(fresh);
            return err == hipErrorNotFound ? hipErrorInvalidSymbol : err;
        }
        g = install(&slots[dev], fresh);
        if (g != fresh)
            free(fresh);
    }
    *ptr = g->ptr;
    *size = g->size;
    return hipSuccess;
}
