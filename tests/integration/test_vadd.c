/* Vector add and a reduction on the CPU device through the module API. */
#include <hip/hip_runtime_api.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

int main(void)
{
    const char *kernels = getenv("HIPWIRE_KERNELS");
    CHECK(kernels != NULL);
    enum { N = 100000 };
    float *ha = malloc(N * sizeof(float)), *hb = malloc(N * sizeof(float)),
          *hc = malloc(N * sizeof(float));
    for (int i = 0; i < N; i++) {
        ha[i] = (float)i;
        hb[i] = (float)(3 * i + 1);
    }
    float *a, *b, *c;
    HIP_CHECK(hipMalloc((void **)&a, N * sizeof(float)));
    HIP_CHECK(hipMalloc((void **)&b, N * sizeof(float)));
    HIP_CHECK(hipMalloc((void **)&c, N * sizeof(float)));
    HIP_CHECK(hipMemcpy(a, ha, N * sizeof(float), hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(b, hb, N * sizeof(float), hipMemcpyHostToDevice));

    hipModule_t mod;
    hipFunction_t vadd, block_sum;
    HIP_CHECK(hipModuleLoad(&mod, kernels));
    HIP_CHECK(hipModuleGetFunction(&vadd, mod, "vadd"));
    HIP_CHECK(hipModuleGetFunction(&block_sum, mod, "block_sum"));
    HIP_EXPECT(hipModuleGetFunction(&vadd, mod, "no_such_kernel"), hipErrorNotFound);
    int n = N;
    void *args[] = { &a, &b, &c, &n };
    HIP_CHECK(hipModuleLaunchKernel(vadd, (N + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    HIP_CHECK(hipMemcpy(hc, c, N * sizeof(float), hipMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        CHECK(hc[i] == ha[i] + hb[i]);

    /* The same launch through the `extra` buffer form. */
    HIP_CHECK(hipMemset(c, 0, N * sizeof(float)));
    struct {
        const float *a, *b;
        float *c;
        int n;
    } packed = { a, b, c, N };
    size_t size = sizeof packed;
    void *extra[] = { HIP_LAUNCH_PARAM_BUFFER_POINTER, &packed, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size,
                      HIP_LAUNCH_PARAM_END };
    HIP_CHECK(hipModuleLaunchKernel(vadd, (N + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, NULL, extra));
    memset(hc, 0, N * sizeof(float));
    HIP_CHECK(hipMemcpy(hc, c, N * sizeof(float), hipMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        CHECK(hc[i] == ha[i] + hb[i]);

    /* Reduction: per-block sums, then a sum of those on the host. */
    int *in, *hin = malloc(N * sizeof(int));
    long long *out, hout[(N + 511) / 512];
    long long expect = 0;
    for (int i = 0; i < N; i++) {
        hin[i] = (i * 7919) % 1000 - 500;
        expect += hin[i];
    }
    int blocks = (N + 511) / 512;
    HIP_CHECK(hipMalloc((void **)&in, N * sizeof(int)));
    HIP_CHECK(hipMalloc((void **)&out, blocks * sizeof(long long)));
    HIP_CHECK(hipMemcpy(in, hin, N * sizeof(int), hipMemcpyHostToDevice));
    void *rargs[] = { &in, &out, &n };
    HIP_CHECK(hipModuleLaunchKernel(block_sum, blocks, 1, 1, 512, 1, 1, 0, NULL, rargs, NULL));
    HIP_CHECK(hipMemcpy(hout, out, blocks * sizeof(long long), hipMemcpyDeviceToHost));
    long long got = 0;
    for (int i = 0; i < blocks; i++)
        got += hout[i];
    CHECK_EQ(got, expect);

    /* hipExtModuleLaunchKernel takes the grid in work items. */
    HIP_CHECK(hipMemset(c, 0, N * sizeof(float)));
    extern hipError_t hipExtModuleLaunchKernel(hipFunction_t, uint32_t, uint32_t, uint32_t,
                                               uint32_t, uint32_t, uint32_t, size_t, hipStream_t,
                                               void **, void **, hipEvent_t, hipEvent_t, uint32_t);
    HIP_CHECK(
        hipExtModuleLaunchKernel(vadd, N, 1, 1, 256, 1, 1, 0, NULL, args, NULL, NULL, NULL, 0));
    HIP_CHECK(hipMemcpy(hc, c, N * sizeof(float), hipMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        CHECK(hc[i] == ha[i] + hb[i]);

    /* Parameters of mixed widths land at the offsets the worker reported. */
    hipFunction_t mixed;
    long long *mout, mres = 0;
    HIP_CHECK(hipModuleGetFunction(&mixed, mod, "mixed"));
    HIP_CHECK(hipMalloc((void **)&mout, sizeof(long long)));
    char ch = 7;
    double d = 2.5;
    short sh = -3;
    void *margs[] = { &ch, &d, &sh, &mout };
    HIP_CHECK(hipModuleLaunchKernel(mixed, 1, 1, 1, 1, 1, 1, 0, NULL, margs, NULL));
    HIP_CHECK(hipMemcpy(&mres, mout, sizeof mres, hipMemcpyDeviceToHost));
    CHECK_EQ(mres, 7 * 1000000LL + 2500 - 3);

    /* Function attributes come from the worker's description. */
    int maxt = 0;
    HIP_CHECK(hipFuncGetAttribute(&maxt, HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, vadd));
    CHECK(maxt >= 256);
    struct hipFuncAttributes fa;
    HIP_CHECK(hipFuncGetAttributes(&fa, (const void *)vadd));
    CHECK_EQ(fa.maxThreadsPerBlock, maxt);
    HIP_EXPECT(hipFuncGetAttributes(&fa, (const void *)&maxt), hipErrorInvalidDeviceFunction);

    /* A __device__ global: address, size, and copies through it. */
    hipDeviceptr_t g;
    size_t gsize = 0;
    HIP_CHECK(hipModuleGetGlobal(&g, &gsize, mod, "hw_global_table"));
    CHECK_EQ(gsize, 64 * sizeof(int));
    int gv[64];
    HIP_CHECK(hipMemcpy(gv, g, sizeof gv, hipMemcpyDeviceToHost));
    CHECK_EQ(gv[0], 7);
    gv[5] = 55;
    HIP_CHECK(hipMemcpy(g, gv, sizeof gv, hipMemcpyHostToDevice));
    memset(gv, 0, sizeof gv);
    HIP_CHECK(hipMemcpy(gv, g, sizeof gv, hipMemcpyDeviceToHost));
    CHECK_EQ(gv[5], 55);

    HIP_CHECK(hipModuleUnload(mod));
    HIP_CHECK(hipFree(a));
    HIP_CHECK(hipFree(b));
    HIP_CHECK(hipFree(c));
    HIP_CHECK(hipFree(in));
    HIP_CHECK(hipFree(out));
    HIP_CHECK(hipFree(mout));
    HIP_CHECK(hipDeviceSynchronize());
    free(ha);
    free(hb);
    free(hc);
    free(hin);
    printf("vadd, reduction, extra-buffer, ext launch, mixed params, globals: ok\n");
    return 0;
}
