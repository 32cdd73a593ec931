/* Device properties mapped from the driver, memory info, vector add and a
 * reduction on a real GPU, bit-exact. */
#include "gpu_test.h"

int main(void)
{
    gpu_require();
    hipDeviceProp_t p;
    HIP_CHECK(hipGetDeviceProperties(&p, 0));
    printf("device 0: %s, %s, %d SMs, warp %d, %zu MiB, clock %d kHz, pci %04x:%02x:%02x\n", p.name,
           p.gcnArchName, p.multiProcessorCount, p.warpSize, p.totalGlobalMem >> 20, p.clockRate,
           p.pciDomainID, p.pciBusID, p.pciDeviceID);
    CHECK(p.name[0] != '\0');
    CHECK_EQ(p.warpSize, 32);
    CHECK(p.multiProcessorCount > 0);
    CHECK(p.totalGlobalMem > (size_t)1 << 30);
    CHECK(p.maxThreadsPerBlock >= 1024);
    CHECK_EQ(strncmp(p.gcnArchName, "sm_", 3), 0);
    CHECK_EQ(p.major * 10 + p.minor, atoi(p.gcnArchName + 3));
    size_t fr = 0, tot = 0;
    HIP_CHECK(hipMemGetInfo(&fr, &tot));
    CHECK(tot > 0 && fr <= tot);

    hipModule_t mod = gpu_kernels();
    hipFunction_t vadd = gpu_fn(mod, "vadd"), block_sum = gpu_fn(mod, "block_sum");
    enum { N = 1 << 22 };
    float *ha = malloc(N * sizeof(float)), *hb = malloc(N * sizeof(float)),
          *hc = malloc(N * sizeof(float));
    CHECK(ha && hb && hc);
    for (int i = 0; i < N; i++) {
        ha[i] = (float)(i % 10007) * 0.5f;
        hb[i] = (float)(i % 331) * 0.25f;
    }
    float *a, *b, *c;
    HIP_CHECK(hipMalloc((void **)&a, N * sizeof(float)));
    HIP_CHECK(hipMalloc((void **)&b, N * sizeof(float)));
    HIP_CHECK(hipMalloc((void **)&c, N * sizeof(float)));
    HIP_CHECK(hipMemcpy(a, ha, N * sizeof(float), hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(b, hb, N * sizeof(float), hipMemcpyHostToDevice));
    int n = N;
    void *args[] = { &a, &b, &c, &n };
    HIP_CHECK(hipModuleLaunchKernel(vadd, N / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    HIP_CHECK(hipMemcpy(hc, c, N * sizeof(float), hipMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        if (hc[i] != ha[i] + hb[i]) {
            fprintf(stderr, "vadd: c[%d] = %a, expected %a\n", i, hc[i], ha[i] + hb[i]);
            return 1;
        }

    int *hin = malloc(N * sizeof(int)), *in;
    int blocks = N / 512;
    long long *hout = malloc(blocks * sizeof(long long)), *out, expect = 0, got = 0;
    CHECK(hin && hout);
    for (int i = 0; i < N; i++) {
        hin[i] = (int)((i * 7919u) % 2000001u) - 1000000;
        expect += hin[i];
    }
    HIP_CHECK(hipMalloc((void **)&in, N * sizeof(int)));
    HIP_CHECK(hipMalloc((void **)&out, blocks * sizeof(long long)));
    HIP_CHECK(hipMemcpy(in, hin, N * sizeof(int), hipMemcpyHostToDevice));
    void *rargs[] = { &in, &out, &n };
    HIP_CHECK(hipModuleLaunchKernel(block_sum, blocks, 1, 1, 512, 1, 1, 0, NULL, rargs, NULL));
    HIP_CHECK(hipMemcpy(hout, out, blocks * sizeof(long long), hipMemcpyDeviceToHost));
    for (int i = 0; i < blocks; i++)
        got += hout[i];
    CHECK_EQ(got, expect);

    /* A byte memset through the legacy default stream lands before the read. */
    HIP_CHECK(hipMemset(c, 0xab, N * sizeof(float)));
    HIP_CHECK(hipMemcpy(hc, c, N * sizeof(float), hipMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        CHECK_EQ(((unsigned char *)hc)[4 * i + 3], 0xab);

    HIP_CHECK(hipModuleUnload(mod));
    HIP_CHECK(hipFree(a));
    HIP_CHECK(hipFree(b));
    HIP_CHECK(hipFree(c));
    HIP_CHECK(hipFree(in));
    HIP_CHECK(hipFree(out));
    printf("gpu basic: properties, vadd (%d floats) and reduction (sum %lld) bit-exact: ok\n", N,
           got);
    return 0;
}
