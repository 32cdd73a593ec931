/*
 * The smaller HIP calls of src/client/api_misc.c and api_launch_legacy.c
 * against a real worker with two CPU devices: the legacy launch API
 * (hipConfigureCall / hipSetupArgument / hipLaunchByPtr), the multi-device
 * launches, hipExtMallocWithFlags, hipMemAllocHost,
 * hipDrvPointerGetAttributes, the name lookups and the profiler switches.
 *
 * Registered kernels: the test registers the CPU test kernels' shared object
 * as a fat binary, as a hipcc-built program's constructor would, with the
 * address of a local object standing in for each kernel's host stub.
 */
#include <hip/hip_runtime_api.h>
#include <hip/amd_detail/hip_prof_str.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* hipMemAllocHost and the profiler switches are deprecated, but programs
 * still call them. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

void **__hipRegisterFatBinary(const void *data);
void __hipRegisterFunction(void **modules, const void *hostFunction, char *deviceFunction,
                           const char *deviceName, unsigned int threadLimit, void *tid, void *bid,
                           dim3 *blockDim, dim3 *gridDim, int *wSize);
const char *hipGetCmdName(uint32_t id);

#define N 64

struct fatbin_wrapper {
    uint32_t magic, version;
    const void *binary;
    const void *unused;
};

/* Stand-ins for host stubs: only their addresses matter. */
static const char vadd_stub, unregistered_stub;

static void register_kernels(const char *path)
{
    FILE *f = fopen(path, "rb");
    CHECK(f);
    CHECK(fseek(f, 0, SEEK_END) == 0);
    long len = ftell(f);
    CHECK(len > 0);
    rewind(f);
    void *image = malloc((size_t)len); /* the program's image: lives until exit */
    CHECK(image && fread(image, 1, (size_t)len, f) == (size_t)len);
    fclose(f);
    static struct fatbin_wrapper w;
    w = (struct fatbin_wrapper){ 0x48495046u, 1, image, NULL };
    void **mods = __hipRegisterFatBinary(&w);
    CHECK(mods);
    __hipRegisterFunction(mods, &vadd_stub, (char *)"vadd", "vadd", (unsigned)-1, NULL, NULL, NULL,
                          NULL, NULL);
}

struct vadd_bufs {
    float *a, *b, *c;
};

static void vadd_alloc(struct vadd_bufs *v, float base)
{
    float h[N];
    HIP_CHECK(hipMalloc((void **)&v->a, sizeof h));
    HIP_CHECK(hipMalloc((void **)&v->b, sizeof h));
    HIP_CHECK(hipMalloc((void **)&v->c, sizeof h));
    for (int i = 0; i < N; i++)
        h[i] = base + (float)i;
    HIP_CHECK(hipMemcpy(v->a, h, sizeof h, hipMemcpyHostToDevice));
    for (int i = 0; i < N; i++)
        h[i] = 1000.0f * base;
    HIP_CHECK(hipMemcpy(v->b, h, sizeof h, hipMemcpyHostToDevice));
    HIP_CHECK(hipMemset(v->c, 0, sizeof h));
}

static void vadd_check(const struct vadd_bufs *v, float base)
{
    float h[N];
    HIP_CHECK(hipMemcpy(h, v->c, sizeof h, hipMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        CHECK(h[i] == base + (float)i + 1000.0f * base);
}

static void vadd_free(struct vadd_bufs *v)
{
    HIP_CHECK(hipFree(v->a));
    HIP_CHECK(hipFree(v->b));
    HIP_CHECK(hipFree(v->c));
}

/* Arguments at vadd_args' offsets: three pointers, then n. */
static void setup_vadd_args(const struct vadd_bufs *v)
{
    int n = N;
    HIP_CHECK(hipSetupArgument(&v->a, sizeof v->a, 0));
    HIP_CHECK(hipSetupArgument(&v->b, sizeof v->b, 8));
    HIP_CHECK(hipSetupArgument(&v->c, sizeof v->c, 16));
    HIP_CHECK(hipSetupArgument(&n, sizeof n, 24));
}

static void legacy_launch(void)
{
    struct vadd_bufs v1, v2;
    vadd_alloc(&v1, 1.0f);
    vadd_alloc(&v2, 2.0f);
    hipStream_t s;
    HIP_CHECK(hipStreamCreate(&s));

    /* Nothing configured. */
    HIP_EXPECT(hipLaunchByPtr(&vadd_stub), hipErrorInvalidConfiguration);
    HIP_EXPECT(hipSetupArgument(&v1.a, sizeof v1.a, 0), hipErrorInvalidConfiguration);

    /* Two configurations nest: the inner one launches first. */
    HIP_CHECK(hipConfigureCall((dim3){ 1, 1, 1 }, (dim3){ N, 1, 1 }, 0, s));
    setup_vadd_args(&v1);
    HIP_CHECK(hipConfigureCall((dim3){ 2, 1, 1 }, (dim3){ N / 2, 1, 1 }, 0, NULL));
    setup_vadd_args(&v2);
    HIP_CHECK(hipLaunchByPtr(&vadd_stub));
    HIP_CHECK(hipDeviceSynchronize());
    vadd_check(&v2, 2.0f);
    float h[N];
    HIP_CHECK(hipMemcpy(h, v1.c, sizeof h, hipMemcpyDeviceToHost));
    CHECK(h[5] == 0.0f); /* the outer configuration has not launched */
    HIP_CHECK(hipLaunchByPtr(&vadd_stub));
    HIP_CHECK(hipStreamSynchronize(s));
    vadd_check(&v1, 1.0f);

    /* A host function nobody registered: the configuration is used up. */
    HIP_CHECK(hipConfigureCall((dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, 0, NULL));
    HIP_EXPECT(hipLaunchByPtr(&unregistered_stub), hipErrorInvalidDeviceFunction);
    HIP_EXPECT(hipLaunchByPtr(&vadd_stub), hipErrorInvalidConfiguration);
    /* An argument past the launch argument cap. */
    HIP_CHECK(hipConfigureCall((dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, 0, NULL));
    int x = 0;
    HIP_EXPECT(hipSetupArgument(&x, sizeof x, SIZE_MAX - 1), hipErrorInvalidValue);
    HIP_EXPECT(hipSetupArgument(NULL, sizeof x, 0), hipErrorInvalidValue);
    HIP_EXPECT(hipLaunchByPtr(&unregistered_stub), hipErrorInvalidDeviceFunction);
    (void)hipGetLastError();

    HIP_CHECK(hipStreamDestroy(s));
    vadd_free(&v1);
    vadd_free(&v2);
}

static void multi_device(void)
{
    int count = 0;
    HIP_CHECK(hipGetDeviceCount(&count));
    CHECK_EQ(count, 2);
    struct vadd_bufs v[2];
    hipLaunchParams p[2];
    void *args[2][4];
    int n = N;
    for (int d = 0; d < 2; d++) {
        HIP_CHECK(hipSetDevice(d));
        vadd_alloc(&v[d], (float)(d + 3));
        args[d][0] = &v[d].a;
        args[d][1] = &v[d].b;
        args[d][2] = &v[d].c;
        args[d][3] = &n;
        p[d].func = (void *)&vadd_stub;
        p[d].gridDim = (dim3){ 1, 1, 1 };
        p[d].blockDim = (dim3){ N, 1, 1 };
        p[d].args = args[d];
        p[d].sharedMem = 0;
        HIP_CHECK(hipStreamCreate(&p[d].stream));
    }
    HIP_CHECK(hipSetDevice(0));

    /* The checks both forms share, with AMD's runtime's codes. */
    typedef hipError_t (*multi_fn)(hipLaunchParams *, int, unsigned);
    multi_fn fns[2] = { hipExtLaunchMultiKernelMultiDevice, hipLaunchCooperativeKernelMultiDevice };
    for (int i = 0; i < 2; i++) {
        HIP_EXPECT(fns[i](NULL, 2, 0), hipErrorInvalidValue);
        HIP_EXPECT(fns[i](p, 0, 0), hipErrorInvalidValue);
        HIP_EXPECT(fns[i](p, 3, 0), hipErrorInvalidValue);
        HIP_EXPECT(fns[i](p, 2, 999), hipErrorInvalidValue);
        hipStream_t keep = p[1].stream;
        p[1].stream = p[0].stream; /* two entries on one device */
        HIP_EXPECT(fns[i](p, 2, 0), hipErrorInvalidDevice);
        p[1].stream = NULL;
        HIP_EXPECT(fns[i](p, 2, 0), hipErrorInvalidResourceHandle);
        p[1].stream = keep;
        p[1].blockDim.x = 0;
        HIP_EXPECT(fns[i](p, 2, 0), hipErrorInvalidConfiguration);
        p[1].blockDim.x = N;
        p[1].func = (void *)&unregistered_stub;
        HIP_EXPECT(fns[i](p, 2, 0), hipErrorInvalidDeviceFunction);
        p[1].func = (void *)&vadd_stub;
    }

    /* Each entry runs on its own stream's device, each with its own shape. */
    p[1].gridDim = (dim3){ 2, 1, 1 };
    p[1].blockDim = (dim3){ N / 2, 1, 1 };
    HIP_CHECK(hipExtLaunchMultiKernelMultiDevice(p, 2, hipCooperativeLaunchMultiDeviceNoPreSync));
    for (int d = 0; d < 2; d++)
        HIP_CHECK(hipStreamSynchronize(p[d].stream));
    for (int d = 0; d < 2; d++) {
        HIP_CHECK(hipSetDevice(d));
        vadd_check(&v[d], (float)(d + 3));
    }
    HIP_CHECK(hipSetDevice(0));

    /* The cooperative form needs devices that keep every block resident;
     * nothing is queued when one cannot. */
    int coop = -1;
    HIP_CHECK(hipDeviceGetAttribute(&coop, hipDeviceAttributeCooperativeLaunch, 0));
    HIP_EXPECT(hipLaunchCooperativeKernelMultiDevice(p, 2, 0),
               coop ? hipSuccess : hipErrorNotSupported);
    HIP_CHECK(hipDeviceSynchronize());
    (void)hipGetLastError();

    for (int d = 0; d < 2; d++) {
        HIP_CHECK(hipSetDevice(d));
        HIP_CHECK(hipStreamDestroy(p[d].stream));
        vadd_free(&v[d]);
    }
    HIP_CHECK(hipSetDevice(0));
}

static void ext_malloc(void)
{
    void *p = (void *)1;
    HIP_EXPECT(hipExtMallocWithFlags(NULL, 4096, hipDeviceMallocDefault), hipErrorInvalidValue);
    HIP_EXPECT(hipExtMallocWithFlags(&p, 4096, 0x40), hipErrorInvalidValue);
    HIP_EXPECT(hipExtMallocWithFlags(&p, 4096, hipDeviceMallocDefault | hipMallocSignalMemory),
               hipErrorInvalidValue);
    HIP_EXPECT(hipExtMallocWithFlags(&p, 0, hipMallocSignalMemory), hipErrorInvalidValue);
    HIP_EXPECT(hipExtMallocWithFlags(&p, 16, hipMallocSignalMemory), hipErrorInvalidValue);
    CHECK(p == (void *)1); /* untouched on failure */
    HIP_EXPECT(hipExtMallocWithFlags(&p, SIZE_MAX, hipDeviceMallocFinegrained),
               hipErrorOutOfMemory);
    HIP_CHECK(hipExtMallocWithFlags(&p, 0, hipDeviceMallocDefault));
    CHECK(p == NULL);
    (void)hipGetLastError();

    /* Signal memory must be host-visible: refused, said once on stderr. */
    p = NULL;
    HIP_EXPECT(hipExtMallocWithFlags(&p, 8, hipMallocSignalMemory), hipErrorNotSupported);
    CHECK(p == NULL);
    const unsigned flags[] = { hipDeviceMallocDefault, hipDeviceMallocFinegrained };
    for (int i = 0; i < 2; i++) {
        size_t size = 4096;
        HIP_CHECK(hipExtMallocWithFlags(&p, size, flags[i]));
        CHECK(p != NULL);
        uint64_t in = 0x0123456789abcdefull + (uint64_t)i, out = 0;
        HIP_CHECK(hipMemcpy(p, &in, 8, hipMemcpyHostToDevice));
        HIP_CHECK(hipMemcpy(&out, p, 8, hipMemcpyDeviceToHost));
        CHECK(out == in);
        hipPointer_attribute a[3] = { HIP_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                      HIP_POINTER_ATTRIBUTE_ACCESS_FLAGS,
                                      HIP_POINTER_ATTRIBUTE_RANGE_SIZE };
        uint32_t type = 0, got_flags = 99, range = 0;
        void *data[3] = { &type, &got_flags, &range };
        HIP_CHECK(hipDrvPointerGetAttributes(3, a, data, p));
        CHECK_EQ(type, hipMemoryTypeDevice);
        CHECK_EQ(got_flags, flags[i]);
        CHECK_EQ(range, size);
        HIP_CHECK(hipFree(p));
    }
}

static void mem_alloc_host_and_attributes(void)
{
    void *h = NULL;
    HIP_EXPECT(hipMemAllocHost(NULL, 64), hipErrorInvalidValue);
    HIP_CHECK(hipMemAllocHost(&h, 64));
    CHECK(h != NULL);
    memset(h, 7, 64); /* host memory, usable in place */
    hipPointer_attribute a[2] = { HIP_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                  HIP_POINTER_ATTRIBUTE_HOST_POINTER };
    uint32_t type = 0;
    void *host = NULL;
    void *data[2] = { &type, &host };
    HIP_CHECK(hipDrvPointerGetAttributes(2, a, data, h));
    CHECK_EQ(type, hipMemoryTypeHost);
    CHECK(host == h);
    HIP_CHECK(hipHostFree(h));

    char *d = NULL;
    HIP_CHECK(hipMalloc((void **)&d, 1000));
    hipPointer_attribute all[5] = { HIP_POINTER_ATTRIBUTE_DEVICE_POINTER,
                                    HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                    HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                    HIP_POINTER_ATTRIBUTE_HOST_POINTER,
                                    HIP_POINTER_ATTRIBUTE_CONTEXT };
    void *dptr = NULL, *start = NULL, *hptr = (void *)1;
    int ordinal = -1;
    void *out[5] = { &dptr, &ordinal, &start, &hptr, &(uint64_t){ 0 } };
    HIP_CHECK(hipDrvPointerGetAttributes(5, all, out, d + 100));
    CHECK(dptr == d + 100);
    CHECK_EQ(ordinal, 0);
    CHECK(start == d);
    CHECK(hptr == NULL); /* device memory has no host pointer */

    /* Memory hipwire never handed out: AMD's defaults, and success. */
    int local = 0;
    type = 77;
    ordinal = 77;
    void *unknown[2] = { &type, &ordinal };
    hipPointer_attribute ua[2] = { HIP_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                   HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL };
    HIP_CHECK(hipDrvPointerGetAttributes(2, ua, unknown, &local));
    CHECK_EQ(type, 0);
    CHECK_EQ(ordinal, -2);

    HIP_EXPECT(hipDrvPointerGetAttributes(0, ua, unknown, d), hipErrorInvalidValue);
    HIP_EXPECT(hipDrvPointerGetAttributes(2, NULL, unknown, d), hipErrorInvalidValue);
    HIP_EXPECT(hipDrvPointerGetAttributes(2, ua, NULL, d), hipErrorInvalidValue);
    HIP_EXPECT(hipDrvPointerGetAttributes(2, ua, unknown, NULL), hipErrorInvalidValue);
    HIP_CHECK(hipFree(d));
    (void)hipGetLastError();
}

static void names(const char *kernels)
{
    CHECK(strcmp(hipApiName(0), "unknown") == 0);
    CHECK(strcmp(hipApiName(UINT32_MAX), "unknown") == 0);
    CHECK(strcmp(hipApiName(HIP_API_ID_hipMalloc), "hipMalloc") == 0);
    CHECK(strcmp(hipApiName(HIP_API_ID_hipStreamWaitValue32), "hipStreamWaitValue32") == 0);

    CHECK(strcmp(hipGetCmdName(0x11F0), "KernelExecution") == 0);
    CHECK(strcmp(hipGetCmdName(0x4501), "StreamWait") == 0);
    CHECK(strcmp(hipGetCmdName(0x7777), "Unknown command kind") == 0);

    CHECK(hipKernelNameRef(NULL) == NULL);
    hipModule_t m;
    hipFunction_t f;
    HIP_CHECK(hipModuleLoad(&m, kernels));
    HIP_CHECK(hipModuleGetFunction(&f, m, "block_sum"));
    const char *name = hipKernelNameRef(f);
    CHECK(name && strcmp(name, "block_sum") == 0);
    int not_a_function = 0;
    CHECK(hipKernelNameRef((hipFunction_t)&not_a_function) == NULL);
    HIP_CHECK(hipModuleUnload(m));

    CHECK(hipKernelNameRefByPtr(NULL, NULL) == NULL);
    CHECK(hipKernelNameRefByPtr(&unregistered_stub, NULL) == NULL);
    name = hipKernelNameRefByPtr(&vadd_stub, NULL);
    CHECK(name && strcmp(name, "vadd") == 0);
}

static void profiler(void)
{
    (void)hipGetLastError();
    HIP_EXPECT(hipProfilerStart(), hipErrorNotSupported);
    HIP_EXPECT(hipGetLastError(), hipErrorNotSupported);
    HIP_EXPECT(hipProfilerStop(), hipErrorNotSupported);
    HIP_EXPECT(hipGetLastError(), hipErrorNotSupported);
    HIP_EXPECT(hipGetLastError(), hipSuccess);
}

/* amd_hip_runtime.h declares these for C++ only. */
const char *amd_dbgapi_get_build_name(void);
const char *amd_dbgapi_get_git_hash(void);
size_t amd_dbgapi_get_build_id(void);

/* The debugger's build queries describe the library installed: hipwire's
 * proxy, its version, the HIP it stands in for, its commit. */
static void build_info(void)
{
    char want[64];
    snprintf(want, sizeof want, "for HIP %d.%d.%d)", HIP_VERSION_MAJOR, HIP_VERSION_MINOR,
             HIP_VERSION_PATCH);
    const char *name = amd_dbgapi_get_build_name();
    CHECK(name && strncmp(name, "hipwire ", 8) == 0 && strstr(name, want) != NULL);
    const char *hash = amd_dbgapi_get_git_hash();
    CHECK(hash && hash[0] != '\0' && strstr(hash, "not supported") == NULL);
    CHECK_EQ(amd_dbgapi_get_build_id(), (size_t)HIP_VERSION_BUILD_ID);
}

int main(void)
{
    build_info();
    const char *kernels = getenv("HIPWIRE_KERNELS");
    CHECK(kernels);
    register_kernels(kernels);
    names(kernels);
    legacy_launch();
    multi_device();
    ext_malloc();
    mem_alloc_host_and_attributes();
    profiler();
    HIP_CHECK(hipDeviceSynchronize());
    puts("misc api: ok");
    return 0;
}
