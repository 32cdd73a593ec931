/*
 * api_module.c - code objects and launches: the module API, and the module
 * operations the fat-binary registry shares with it (hw_module_*, hw_launch).
 *
 * The worker reports each kernel's parameter layout when the function is
 * looked up, so a launch packs kernelParams into one argument buffer here
 * and sends it byte for byte: device pointers inside it are real device
 * addresses and are never rewritten.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"
#include "api_unsupported.h"
#include "client.h"
#include "ptr_map.h"
#include "graph.h"

/* Functions handed out, so a hipFunction_t can be told from any other
 * pointer in O(1) (frameworks query attributes per launch). */
static pthread_mutex_t fn_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ptr_map fns;

/* 0, or -1 out of memory: a function not remembered fails every check. */
static int remember_function(struct hw_function *f)
{
    pthread_mutex_lock(&fn_lock);
    int rc = ptr_map_put(&fns, f, f);
    pthread_mutex_unlock(&fn_lock);
    return rc;
}

int hw_function_known(const struct hw_function *f)
{
    pthread_mutex_lock(&fn_lock);
    int found = f && ptr_map_get(&fns, f) != NULL;
    pthread_mutex_unlock(&fn_lock);
    return found;
}

hipError_t hw_function_of(const void *func, const struct hw_function **out)
{
    if (hw_fatbin_is_kernel(func))
        return hw_fatbin_function(func, hw_current_device(), out);
    if (!hw_function_known(func))
        return hipErrorInvalidDeviceFunction;
    *out = func;
    return hipSuccess;
}

/* Functions of an unloaded module stay allocated as tombstones: a stale
 * hipFunction_t then fails cleanly instead of reading freed memory. */
static void forget_module_functions(const struct hw_module *m)
{
    pthread_mutex_lock(&fn_lock);
    for (size_t i = 0; i < fns.cap; i++) {
        struct hw_function *f = fns.slots[i].value;
        if (fns.slots[i].key && f->module == m)
            f->module = NULL;
    }
    pthread_mutex_unlock(&fn_lock);
}

static hipError_t load_image(hipModule_t *module, const void *image, size_t size)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!module || !image)
        return hw_ret(hipErrorInvalidValue);
    if (!c)
        return hw_ret(err);
    struct hw_module *m;
    err = hw_module_load(c, hw_current_device(), image, size, &m);
    if (err != hipSuccess)
        return hw_ret(err);
    if (hw_handle_add(HW_HANDLE_MODULE, m) != 0) {
        hw_module_release(c, m);
        return hw_ret(hipErrorOutOfMemory);
    }
    *module = (hipModule_t)m;
    return hipSuccess;
}

HW_EXPORT hipError_t hipModuleLoadData(hipModule_t *module, const void *image)
{
    return load_image(module, image, hw_image_size(image));
}

HW_EXPORT hipError_t hipModuleLoadDataEx(hipModule_t *module, const void *image,
                                         unsigned int numOptions, hipJitOption *options,
                                         void **optionValues)
{
    /* JIT options tune compilation; images here are already compiled. */
    (void)numOptions;
    (void)options;
    (void)optionValues;
    return hipModuleLoadData(module, image);
}

HW_EXPORT hipError_t hipModuleLoad(hipModule_t *module, const char *fname)
{
    if (!module || !fname || !fname[0])
        return hw_ret(hipErrorInvalidValue);
    FILE *f = fopen(fname, "rb");
    if (!f)
        return hw_ret(hipErrorFileNotFound);
    hipError_t err = hipErrorInvalidImage;
    long size = -1;
    void *image = NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (uint64_t)size <= HIPR_CAP_MODULE && (image = hw_malloc((size_t)size)) &&
        fread(image, 1, (size_t)size, f) == (size_t)size)
        err = load_image(module, image, (size_t)size);
    else
        err = hw_ret(image || size <= 0 ? hipErrorInvalidImage : hipErrorOutOfMemory);
    free(image);
    fclose(f);
    return err;
}

HW_EXPORT hipError_t hipModuleUnload(hipModule_t module)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!c)
        return hw_ret(err);
    if (!module)
        return hw_ret(hipErrorInvalidResourceHandle);
    /* Unloaded already, or never a module: AMD's code, and m is not read. */
    if (!hw_handle_remove(HW_HANDLE_MODULE, module))
        return hw_ret(hipErrorNotFound);
    struct hw_module *m = (struct hw_module *)module;
    forget_module_functions(m);
    return hw_ret(hw_module_release(c, m));
}

HW_EXPORT hipError_t hipModuleGetFunction(hipFunction_t *function, hipModule_t module,
                                          const char *name)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if (!function || !name || !name[0])
        return hw_ret(hipErrorInvalidValue);
    if (!c)
        return hw_ret(err);
    if (!module)
        return hw_ret(hipErrorInvalidResourceHandle);
    /* AMD finds no such function in a module it does not know. */
    if (!hw_handle_valid(HW_HANDLE_MODULE, module))
        return hw_ret(hipErrorNotFound);
    struct hw_function *f;
    err = hw_module_function(c, (struct hw_module *)module, name, &f);
    if (err != hipSuccess)
        return hw_ret(err);
    if (remember_function(f) < 0) {
        free(f); /* the module's unload finds only remembered functions */
        return hw_ret(hipErrorOutOfMemory);
    }
    *function = (hipFunction_t)f;
    return hipSuccess;
}

HW_EXPORT hipError_t hipModuleGetGlobal(hipDeviceptr_t *dptr, size_t *bytes, hipModule_t module,
                                        const char *name)
{
    hipError_t err;
    struct hw_conn *c = hw_conn_get(&err);
    if ((!dptr && !bytes) || !name || !name[0])
        return hw_ret(hipErrorInvalidValue);
    if (!c)
        return hw_ret(err);
    if (!module)
        return hw_ret(hipErrorInvalidResourceHandle);
    if (!hw_handle_valid(HW_HANDLE_MODULE, module))
        return hw_ret(hipErrorNotFound);
    uint64_t ptr, size;
    err = hw_module_global(c, (struct hw_module *)module, name, &ptr, &size);
    if (err != hipSuccess)
        return hw_ret(err);
    if (dptr)
        *dptr = (hipDeviceptr_t)(uintptr_t)ptr;
    if (bytes)
        *bytes = (size_t)size;
    return hipSuccess;
}

hipError_t hw_pack_kernel_args(const struct hw_function *f, void **kernelParams, void **extra,
                               uint8_t *out, size_t cap, size_t *len)
{
    if (kernelParams) {
        if (f->info.args_size > cap)
            return hipErrorInvalidValue;
        memset(out, 0, f->info.args_size);
        for (uint32_t i = 0; i < f->info.param_count; i++) {
            if (!kernelParams[i])
                return hipErrorInvalidValue;
            memcpy(out + f->params[i].offset, kernelParams[i], f->params[i].size);
        }
        *len = f->info.args_size;
        return hipSuccess;
    }
    if (extra) {
        void *buf = NULL;
        size_t size = 0;
        int have_size = 0;
        for (size_t i = 0; extra[i] != HIP_LAUNCH_PARAM_END; i += 2) {
            if (i > 64)
                return hipErrorInvalidValue;
            if (extra[i] == HIP_LAUNCH_PARAM_BUFFER_POINTER)
                buf = extra[i + 1];
            else if (extra[i] == HIP_LAUNCH_PARAM_BUFFER_SIZE && extra[i + 1]) {
                size = *(size_t *)extra[i + 1];
                have_size = 1;
            } else
                return hipErrorInvalidValue;
        }
        if (!have_size || (size && !buf) || size > cap || size < f->info.args_size)
            return hipErrorInvalidValue;
        memcpy(out, buf, size);
        *len = size;
        return hipSuccess;
    }
    if (f->info.args_size != 0)
        return hipErrorInvalidValue;
    *len = 0;
    return hipSuccess;
}

/* A launch names kernelParams or extra, never both (AMD's rule). */
static hipError_t marshal(const struct hw_function *f, void **kernelParams, void **extra,
                          uint8_t *out, size_t cap, size_t *len)
{
    if (kernelParams && extra)
        return hipErrorInvalidValue;
    return hw_pack_kernel_args(f, kernelParams, extra, out, cap, len);
}

hipError_t hw_launch(const struct hw_function *f, const uint32_t grid[3], const uint32_t block[3],
                     unsigned shared, hipStream_t stream, void **kernelParams, void **extra,
                     hipEvent_t start, hipEvent_t stop, uint32_t flags)
{
    uint64_t sid;
    int dev;
    hipError_t err = hw_stream_resolve(stream, &sid, &dev);
    if (err != hipSuccess)
        return hw_ret(err);
    return hw_launch_on(f, grid, block, shared, stream, sid, kernelParams, extra, start, stop,
                        flags);
}

hipError_t hw_launch_on(const struct hw_function *f, const uint32_t grid[3],
                        const uint32_t block[3], unsigned shared, hipStream_t stream, uint64_t sid,
                        void **kernelParams, void **extra, hipEvent_t start, hipEvent_t stop,
                        uint32_t flags)
{
    hipError_t err;
    uint64_t start_id = 0, stop_id = 0;
    struct hw_conn *c = hw_conn_get(&err);
    if (!c)
        return hw_ret(err);
    if ((start && hw_event_resolve(start, &start_id, NULL) != hipSuccess) ||
        (stop && hw_event_resolve(stop, &stop_id, NULL) != hipSuccess))
        return hw_ret(hipErrorInvalidHandle);
    if (!f)
        return hw_ret(hipErrorInvalidResourceHandle);
    if (!f->module)
        return hw_ret(hipErrorInvalidResourceHandle); /* its module was unloaded */
    if (!grid[0] || !grid[1] || !grid[2] || !block[0] || !block[1] || !block[2])
        return hw_ret(hipErrorInvalidConfiguration);
    /* HIP answers this from the launch call itself, not later: the worker
     * said at load time that nothing in the image runs on the device. */
    if (f->module->flags & HIPR_MODULE_NO_BINARY) {
        /* Said once per module and by default: the program can only be
         * fixed by rebuilding it, and a bare error code does not say so. */
        if (f->module->no_binary_note &&
            !__atomic_exchange_n(&f->module->note_said, 1, __ATOMIC_ACQ_REL))
            fprintf(stderr, "hipwire: kernel '%s' cannot run: %s\n", f->name,
                    f->module->no_binary_note);
        return hw_ret(hipErrorNoBinaryForGpu);
    }
    uint8_t args[HIPR_CAP_KERNEL_ARGS];
    size_t len = 0;
    if ((err = marshal(f, kernelParams, extra, args, sizeof args, &len)) != hipSuccess)
        return hw_ret(err);
    if (hw_capture_any()) {
        /* On a capturing stream the launch becomes a kernel node, its
         * arguments taken now, as HIP takes them. */
        struct hipGraphNode node = { .kind = HW_NODE_KERNEL };
        node.u.kernel.f = f;
        memcpy(node.u.kernel.grid, grid, sizeof node.u.kernel.grid);
        memcpy(node.u.kernel.block, block, sizeof node.u.kernel.block);
        node.u.kernel.shared = shared;
        node.u.kernel.flags = flags;
        node.u.kernel.start = start;
        node.u.kernel.stop = stop;
        node.u.kernel.args_len = len;
        node.u.kernel.args = args;
        int cap = hw_capture_record(stream, &node, &err);
        if (cap)
            return cap < 0 ? hw_ret(err) : hipSuccess;
    }
    struct hipr_launch m = {
        .function = f->id,
        .stream = sid,
        .start_event = start_id,
        .stop_event = stop_id,
        .grid_x = grid[0],
        .grid_y = grid[1],
        .grid_z = grid[2],
        .block_x = block[0],
        .block_y = block[1],
        .block_z = block[2],
        .shared_mem = shared,
        .flags = flags,
    };
    uint8_t buf[HIPR_launch_SIZE];
    hipr_launch_encode(buf, &m);
    return hw_ret(hw_post(c, HIPR_OP_LAUNCH, buf, sizeof buf, args, len));
}

/* The module launch APIs answer a zero dimension with hipErrorInvalidValue
 * (the <<<>>> path with hipErrorInvalidConfiguration), and a function
 * handle not handed out here is never read. */
static hipError_t module_launch_check(hipFunction_t f, const uint32_t grid[3],
                                      const uint32_t block[3])
{
    if (!hw_function_known((const struct hw_function *)f))
        return hipErrorInvalidResourceHandle;
    for (int i = 0; i < 3; i++)
        if (!grid[i] || !block[i])
            return hipErrorInvalidValue;
    return hipSuccess;
}

HW_EXPORT hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gridDimX,
                                           unsigned int gridDimY, unsigned int gridDimZ,
                                           unsigned int blockDimX, unsigned int blockDimY,
                                           unsigned int blockDimZ, unsigned int sharedMemBytes,
                                           hipStream_t stream, void **kernelParams, void **extra)
{
    uint32_t grid[3] = { gridDimX, gridDimY, gridDimZ };
    uint32_t block[3] = { blockDimX, blockDimY, blockDimZ };
    hipError_t err = module_launch_check(f, grid, block);
    if (err != hipSuccess)
        return hw_ret(err);
    return hw_launch((const struct hw_function *)f, grid, block, sharedMemBytes, stream,
                     kernelParams, extra, NULL, NULL, 0);
}

/* hip_ext.h declares this for C++ only; the generated table exports the
 * mangled name of the real library and forwards it here. */
hipError_t hipExtModuleLaunchKernel(hipFunction_t f, uint32_t globalWorkSizeX,
                                    uint32_t globalWorkSizeY, uint32_t globalWorkSizeZ,
                                    uint32_t localWorkSizeX, uint32_t localWorkSizeY,
                                    uint32_t localWorkSizeZ, size_t sharedMemBytes,
                                    hipStream_t hStream, void **kernelParams, void **extra,
                                    hipEvent_t startEvent, hipEvent_t stopEvent, uint32_t flags);

HW_EXPORT hipError_t hipExtModuleLaunchKernel(hipFunction_t f, uint32_t globalWorkSizeX,
                                              uint32_t globalWorkSizeY, uint32_t globalWorkSizeZ,
                                              uint32_t localWorkSizeX, uint32_t localWorkSizeY,
                                              uint32_t localWorkSizeZ, size_t sharedMemBytes,
                                              hipStream_t hStream, void **kernelParams,
                                              void **extra, hipEvent_t startEvent,
                                              hipEvent_t stopEvent, uint32_t flags)
{
    /* The grid is given in work items; a partial last block rounds up. */
    uint32_t block[3] = { localWorkSizeX, localWorkSizeY, localWorkSizeZ };
    uint32_t work[3] = { globalWorkSizeX, globalWorkSizeY, globalWorkSizeZ };
    hipError_t err = module_launch_check(f, work, block);
    if (err == hipSuccess && sharedMemBytes > UINT32_MAX)
        err = hipErrorInvalidValue;
    if (err != hipSuccess)
        return hw_ret(err);
    uint32_t grid[3] = { (uint32_t)(((uint64_t)work[0] + block[0] - 1) / block[0]),
                         (uint32_t)(((uint64_t)work[1] + block[1] - 1) / block[1]),
                         (uint32_t)(((uint64_t)work[2] + block[2] - 1) / block[2]) };
    /* Its flags (hipExtAnyOrderLaunch) are an ordering hint; launches run
     * in stream order anyway, and bit 0 of LAUNCH flags means cooperative. */
    (void)flags;
    return hw_launch((const struct hw_function *)f, grid, block, (unsigned)sharedMemBytes, hStream,
                     kernelParams, extra, startEvent, stopEvent, 0);
}

void hw_fill_attributes(const struct hw_function *f, struct hipFuncAttributes *a)
{
    memset(a, 0, sizeof *a);
    a->binaryVersion = f->info.binary_version;
    a->constSizeBytes = (size_t)f->info.const_size_bytes;
    a->localSizeBytes = (size_t)f->info.local_size_bytes;
    a->maxDynamicSharedSizeBytes = f->info.max_dynamic_shared;
    a->maxThreadsPerBlock = f->info.max_threads_per_block;
    a->numRegs = f->info.num_regs;
    a->ptxVersion = f->info.ptx_version;
    a->sharedSizeBytes = (size_t)f->info.shared_size_bytes;
}

HW_EXPORT hipError_t hipFuncGetAttribute(int *value, hipFunction_attribute attrib,
                                         hipFunction_t hfunc)
{
    if (!value)
        return hw_ret(hipErrorInvalidValue);
    const struct hw_function *f = (const struct hw_function *)hfunc;
    if (!f || !hw_function_known(f))
        return hw_ret(hipErrorInvalidResourceHandle);
    struct hipFuncAttributes a;
    hw_fill_attributes(f, &a);
    switch (attrib) {
    case HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = a.maxThreadsPerBlock; break;
    case HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *value = (int)a.sharedSizeBytes; break;
    case HIP_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *value = (int)a.constSizeBytes; break;
    case HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *value = (int)a.localSizeBytes; break;
    case HIP_FUNC_ATTRIBUTE_NUM_REGS: *value = a.numRegs; break;
    case HIP_FUNC_ATTRIBUTE_PTX_VERSION: *value = a.ptxVersion; break;
    case HIP_FUNC_ATTRIBUTE_BINARY_VERSION: *value = a.binaryVersion; break;
    case HIP_FUNC_ATTRIBUTE_CACHE_MODE_CA: *value = 0; break;
    case HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
        *value = a.maxDynamicSharedSizeBytes;
        break;
    case HIP_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *value = 0; break;
    default: return hw_ret(hipErrorInvalidValue);
    }
    return hipSuccess;
}

HW_EXPORT hipError_t hipFuncGetAttributes(struct hipFuncAttributes *attr, const void *func)
{
    if (!attr)
        return hw_ret(hipErrorInvalidValue);
    /* A host stub of a registered kernel (resolved on the current device),
     * or a module function. */
    const struct hw_function *f = NULL;
    hipError_t err = hw_function_of(func, &f);
    if (err != hipSuccess)
        return hw_ret(err);
    hw_fill_attributes(f, attr);
    return hipSuccess;
}

/*
 * hipwire extension, not HIP API: the parameter layout of a function, as the
 * worker reported it. A hip-worker whose hip backend has loaded this proxy
 * (a relay in front of another worker) asks for it here instead of reading
 * AMD code-object metadata. pairs receives count (offset, size) pairs, up to
 * cap. Returns 0, or -1 for an unknown function or too small a buffer.
 */
HW_EXPORT int hipwire_function_params(hipFunction_t function, uint32_t *count, uint32_t *args_size,
                                      uint32_t *pairs, uint32_t cap)
{
    const struct hw_function *f = (const struct hw_function *)function;
    if (!f || !count || !args_size || !pairs || !hw_function_known(f) || f->info.param_count > cap)
        return -1;
    for (uint32_t i = 0; i < f->info.param_count; i++) {
        pairs[2 * i] = f->params[i].offset;
        pairs[2 * i + 1] = f->params[i].size;
    }
    *count = f->info.param_count;
    *args_size = f->info.args_size;
    return 0;
}

/*
 * hipwire extension, not HIP API: hipModuleLaunchKernel with the worker's
 * LAUNCH flags (HIPR_LAUNCH_COOPERATIVE ...). A relaying hip backend passes
 * its client's launch through with it, flags included, so the next worker
 * decides what it can run. Grid in blocks; arguments as `extra`.
 */
HW_EXPORT hipError_t hipwire_module_launch_kernel(hipFunction_t f, uint32_t gridDimX,
                                                  uint32_t gridDimY, uint32_t gridDimZ,
                                                  uint32_t blockDimX, uint32_t blockDimY,
                                                  uint32_t blockDimZ, uint32_t sharedMemBytes,
                                                  hipStream_t stream, void **extra, uint32_t flags)
{
    uint32_t grid[3] = { gridDimX, gridDimY, gridDimZ };
    uint32_t block[3] = { blockDimX, blockDimY, blockDimZ };
    if (!hw_function_known((const struct hw_function *)f))
        return hw_ret(hipErrorInvalidResourceHandle);
    return hw_launch((const struct hw_function *)f, grid, block, sharedMemBytes, stream, NULL,
                     extra, NULL, NULL, flags);
}
