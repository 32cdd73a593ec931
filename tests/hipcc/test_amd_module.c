/*
 * test_amd_module - AMD code objects built by hipcc, loaded through the
 * module API against a worker whose device cannot run them (the CPU
 * device), directly or through the relay (docs/backend-hip.md).
 *
 *   test_amd_module [--relay] CODE_OBJECT BUNDLE
 *
 * CODE_OBJECT is module_kernels.hip for gfx90a as a bare ELF (unbundled by
 * LLVM's clang-offload-bundler), BUNDLE the same for gfx908 and gfx90a as
 * an offload bundle; the bundle is also loaded recompressed as a CCOB v3
 * (zstd) when this build has libzstd. For each: every kernel resolves with
 * the argument layout the host compiler computes from the same types (the
 * AMDGPU kernarg rule: each argument at its natural alignment), variables
 * have their code object's sizes and initial bytes and take writes, an
 * unknown name is hipErrorNotFound, and a launch fails with exactly
 * hipErrorNoBinaryForGpu: at once directly; through the relay, the hip
 * backend accepts it and the CPU worker refuses it (reported at the next
 * synchronisation). Through the relay the layouts come from the hip
 * backend's reading of the code object's metadata.
 */
#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

#include "kernel_types.h"
#ifdef HIPWIRE_HAVE_ZSTD
#include <zstd.h>
#endif

/* The proxy's layout export (api_module.c). */
int hipwire_function_params(hipFunction_t function, uint32_t *count, uint32_t *args_size,
                            uint32_t *pairs, uint32_t cap);

static int failures;
static bool relay;

#define CHECK(cond, ...)                                         \
    do {                                                         \
        if (!(cond)) {                                           \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                        \
            fputc('\n', stderr);                                 \
            failures++;                                          \
        }                                                        \
    } while (0)

#define CHECK_OK(x)                                                 \
    do {                                                            \
        hipError_t e_ = (x);                                        \
        CHECK(e_ == hipSuccess, "%s: %s", #x, hipGetErrorName(e_)); \
    } while (0)

typedef struct xarg {
    size_t size, align;
} xarg;
#define A(T)                  \
    {                         \
        sizeof(T), alignof(T) \
    }

static const struct {
    const char *name;
    size_t nargs;
    xarg args[8];
} kernels[] = {
    { "mk_scalars",
      8,
      { A(char), A(short), A(int), A(long long), A(float), A(double), A(bool), A(int *) } },
    { "mk_struct",
      6,
      { A(struct hw_s1), A(int), A(struct hw_s2), A(char), A(struct hw_vec3), A(double *) } },
    { "mk_big", 4, { A(char), A(struct hw_big), A(double), A(int *) } },
    { "mk_none", 0, { { 0, 0 } } },
};

static void *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    void *buf = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n)) && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (f)
        fclose(f);
    if (!buf)
        fprintf(stderr, "cannot read %s\n", path);
    *len = (size_t)n;
    return buf;
}

static void check_layout(hipFunction_t f, size_t k)
{
    uint32_t count = 0, size = 0, pairs[16];
    CHECK(hipwire_function_params(f, &count, &size, pairs, 8) == 0, "%s: no layout",
          kernels[k].name);
    CHECK(count == kernels[k].nargs, "%s: %u arguments, expected %zu", kernels[k].name, count,
          kernels[k].nargs);
    size_t end = 0;
    for (size_t i = 0; i < kernels[k].nargs && i < count; i++) {
        size_t off = (end + kernels[k].args[i].align - 1) & ~(kernels[k].args[i].align - 1);
        CHECK(pairs[2 * i] == off && pairs[2 * i + 1] == kernels[k].args[i].size,
              "%s argument %zu at (%u, %u), expected (%zu, %zu)", kernels[k].name, i, pairs[2 * i],
              pairs[2 * i + 1], off, kernels[k].args[i].size);
        end = off + kernels[k].args[i].size;
    }
    CHECK(size == end, "%s: %u argument bytes, expected %zu", kernels[k].name, size, end);
}

static void expect_no_binary(hipError_t ret, const char *what)
{
    hipError_t sync = hipDeviceSynchronize();
    hipError_t last = hipGetLastError();
    bool ok =
        relay
            ? ret == hipSuccess && sync == hipErrorNoBinaryForGpu && last == hipErrorNoBinaryForGpu
            : ret == hipErrorNoBinaryForGpu && sync == hipSuccess && last == hipErrorNoBinaryForGpu;
    CHECK(ok && hipGetLastError() == hipSuccess, "%s: launch %s, synchronize %s, last %s", what,
          hipGetErrorName(ret), hipGetErrorName(sync), hipGetErrorName(last));
}

static void check_module(const void *image, const char *what)
{
    hipModule_t mod;
    hipError_t e = hipModuleLoadData(&mod, image);
    CHECK(e == hipSuccess, "%s: load: %s", what, hipGetErrorName(e));
    if (e != hipSuccess)
        return;
    hipFunction_t fns[sizeof kernels / sizeof kernels[0]];
    for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
        e = hipModuleGetFunction(&fns[k], mod, kernels[k].name);
        CHECK(e == hipSuccess, "%s: %s: %s", what, kernels[k].name, hipGetErrorName(e));
        if (e != hipSuccess)
            return;
        check_layout(fns[k], k);
        int v = 0;
        CHECK_OK(hipFuncGetAttribute(&v, HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fns[k]));
        CHECK(v == 1024, "%s: %s: max threads per block %d", what, kernels[k].name, v);
        /* ROCm: both versions are the ISA's major * 10 + minor; gfx908 and
         * gfx90a (the entries here) are 9.0 */
        v = 0;
        CHECK_OK(hipFuncGetAttribute(&v, HIP_FUNC_ATTRIBUTE_BINARY_VERSION, fns[k]));
        CHECK(v == 90, "%s: %s: binary version %d", what, kernels[k].name, v);
        v = 0;
        CHECK_OK(hipFuncGetAttribute(&v, HIP_FUNC_ATTRIBUTE_PTX_VERSION, fns[k]));
        CHECK(v == 90, "%s: %s: ptx version %d", what, kernels[k].name, v);
    }
    hipFunction_t none;
    CHECK(hipModuleGetFunction(&none, mod, "mk_missing") == hipErrorNotFound,
          "%s: an unknown kernel resolved", what);
    (void)hipGetLastError();

    /* Variables: sizes and initial bytes from the code object. */
    hipDeviceptr_t p;
    size_t size = 0;
    int table[16];
    CHECK_OK(hipModuleGetGlobal(&p, &size, mod, "mk_table"));
    CHECK(size == sizeof table, "%s: mk_table size %zu", what, size);
    CHECK_OK(hipMemcpyDtoH(table, p, sizeof table));
    for (int i = 0; i < 16; i++)
        CHECK(table[i] == i + 1, "%s: mk_table[%d] = %d", what, i, table[i]);
    table[3] = -4;
    CHECK_OK(hipMemcpyHtoD(p, table, sizeof table));
    int back[16];
    CHECK_OK(hipMemcpyDtoH(back, p, sizeof back));
    CHECK(memcmp(table, back, sizeof back) == 0, "%s: mk_table write", what);
    double scale = 0;
    CHECK_OK(hipModuleGetGlobal(&p, &size, mod, "mk_scale"));
    CHECK_OK(hipMemcpyDtoH(&scale, p, sizeof scale));
    CHECK(size == sizeof scale && scale == 2.5, "%s: mk_scale %zu bytes, %g", what, size, scale);
    char zero[100];
    memset(zero, 1, sizeof zero);
    CHECK_OK(hipModuleGetGlobal(&p, &size, mod, "mk_zero"));
    CHECK_OK(hipMemcpyDtoH(zero, p, sizeof zero));
    CHECK(size == 100 && zero[0] == 0 && zero[99] == 0, "%s: mk_zero", what);
    CHECK_OK(hipModuleGetGlobal(&p, &size, mod, "mk_huge"));
    CHECK(size == 4u << 20, "%s: mk_huge size %zu", what, size);
    char tail[64];
    memset(tail, 1, sizeof tail);
    CHECK_OK(hipMemcpyDtoH(tail, (char *)p + size - sizeof tail, sizeof tail));
    CHECK(tail[0] == 0 && tail[63] == 0, "%s: mk_huge is not zeroed", what);
    CHECK(hipModuleGetGlobal(&p, &size, mod, "mk_missing") == hipErrorNotFound,
          "%s: an unknown variable resolved", what);
    (void)hipGetLastError();

    /* Launches: the kernels exist, the device cannot run them. */
    int *out = NULL;
    CHECK_OK(hipMalloc((void **)&out, 64));
    char a = 1;
    short b = 2;
    int c = 3;
    long long d = 4;
    float ef = 5;
    double f = 6;
    bool g = true;
    void *params[] = { &a, &b, &c, &d, &ef, &f, &g, &out };
    expect_no_binary(hipModuleLaunchKernel(fns[0], 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL),
                     "hipModuleLaunchKernel(mk_scalars)");
    expect_no_binary(hipModuleLaunchKernel(fns[3], 2, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL),
                     "hipModuleLaunchKernel(mk_none)");
    CHECK_OK(hipFree(out));
    CHECK_OK(hipModuleUnload(mod));
}

#ifdef HIPWIRE_HAVE_ZSTD
static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* The bundle as a CCOB v3 (zstd): what clang's --offload-compress makes. */
static void *compress_bundle(const void *bundle, size_t len)
{
    size_t cap = ZSTD_compressBound(len);
    uint8_t *out = malloc(32 + cap);
    if (!out)
        return NULL;
    size_t n = ZSTD_compress(out + 32, cap, bundle, len, 3);
    if (ZSTD_isError(n)) {
        free(out);
        return NULL;
    }
    memcpy(out, "CCOB", 4);
    out[4] = 3;
    out[5] = 0;
    out[6] = 1; /* zstd */
    out[7] = 0;
    put64(out + 8, 32 + n);
    put64(out + 16, len);
    put64(out + 24, 0);
    return out;
}
#endif

int main(int argc, char **argv)
{
    int i = 1;
    if (i < argc && strcmp(argv[i], "--relay") == 0) {
        relay = true;
        i++;
    }
    if (argc - i != 2) {
        fprintf(stderr, "usage: test_amd_module [--relay] CODE_OBJECT BUNDLE\n");
        return 2;
    }
    size_t colen, blen;
    void *co = read_file(argv[i], &colen);
    void *bundle = read_file(argv[i + 1], &blen);
    if (!co || !bundle)
        return 1;
        /* Several rounds: an unloaded module's variables free their memory,
     * and the next module's may get the same addresses. */
#ifdef HIPWIRE_HAVE_ZSTD
    void *ccob = compress_bundle(bundle, blen);
    CHECK(ccob != NULL, "compressing the bundle");
#endif
    for (int round = 0; round < 3; round++) {
        check_module(co, "code object");
        check_module(bundle, "bundle");
#ifdef HIPWIRE_HAVE_ZSTD
        if (ccob)
            check_module(ccob, "compressed bundle");
#endif
    }
#ifdef HIPWIRE_HAVE_ZSTD
    free(ccob);
#endif
    free(co);
    free(bundle);
    CHECK(hipGetLastError() == hipSuccess, "an error left over at the end");
    if (failures) {
        fprintf(stderr, "amd module: %d failure(s)\n", failures);
        return 1;
    }
    printf("amd module: ok (%s)\n", relay ? "relay" : "direct");
    return 0;
}
