/*
 * Copies of every size class, bit-exact, through whatever path the worker
 * takes: zero copy into CPU device memory, the staged paths (a GPU, or the
 * CPU device with HIPWIRE_CPU_NO_HOST_PTR=1), chunked messages above 64 MiB,
 * an idle device and one still running a kernel, the default stream and a
 * created one. Every size is checked at an unaligned offset too.
 */
#include <hip/hip_runtime_api.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = (uint8_t)x;
    }
}

static void check_same(const uint8_t *want, const uint8_t *got, size_t n, const char *what)
{
    if (memcmp(want, got, n) == 0)
        return;
    size_t i = 0;
    while (want[i] == got[i])
        i++;
    fprintf(stderr, "%s: %zu bytes differ first at byte %zu (0x%02x, expected 0x%02x)\n", what, n,
            i, got[i], want[i]);
    exit(1);
}

int main(void)
{
    const char *kernels = getenv("HIPWIRE_KERNELS");
    CHECK(kernels != NULL);
    /* Around the worker's thresholds: 64 KiB (small copies), 1 MiB stages,
     * 4 MiB CPU stages, 64 MiB messages. */
    static const size_t sizes[] = {
        1, 4095, 65536, 65537, 1u << 20, (1u << 20) + 13, (4u << 20) + 1, (9u << 20) + 5, 70u << 20
    };
    const size_t max = 70u << 20;
    uint8_t *src = malloc(max + 3), *back = malloc(max + 3);
    uint8_t *dev;
    CHECK(src && back);
    HIP_CHECK(hipMalloc((void **)&dev, max + 3));

    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        for (int off = 0; off <= 3; off += 3) {
            fill(src, n, (uint32_t)(k * 7 + (size_t)off));
            memset(back, 0xee, n);
            HIP_CHECK(hipMemcpy(dev + off, src, n, hipMemcpyHostToDevice));
            HIP_CHECK(hipMemcpy(back, dev + off, n, hipMemcpyDeviceToHost));
            char what[64];
            snprintf(what, sizeof what, "round trip of %zu bytes at +%d", n, off);
            check_same(src, back, n, what);
        }
    }
    printf("sizes 1 B .. 70 MiB: ok\n");

    /* A busy device: the copies queue behind a kernel, and the D2H reply
     * waits for it (the CPU device takes tens of ms for this vadd). */
    enum { N = 4 << 20 };
    float *ha = malloc(N * sizeof(float)), *hb = malloc(N * sizeof(float)),
          *hc = malloc(N * sizeof(float));
    CHECK(ha && hb && hc);
    for (int i = 0; i < N; i++) {
        ha[i] = (float)(i % 1000);
        hb[i] = (float)(i % 777) * 2;
    }
    float *a, *b, *c;
    HIP_CHECK(hipMalloc((void **)&a, N * sizeof(float)));
    HIP_CHECK(hipMalloc((void **)&b, N * sizeof(float)));
    HIP_CHECK(hipMalloc((void **)&c, N * sizeof(float)));
    HIP_CHECK(hipMemcpy(a, ha, N * sizeof(float), hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(b, hb, N * sizeof(float), hipMemcpyHostToDevice));
    HIP_CHECK(hipMemset(c, 0, N * sizeof(float)));
    hipModule_t mod;
    hipFunction_t vadd;
    HIP_CHECK(hipModuleLoad(&mod, kernels));
    HIP_CHECK(hipModuleGetFunction(&vadd, mod, "vadd"));
    int n = N;
    void *args[] = { &a, &b, &c, &n };
    for (int round = 0; round < 3; round++) {
        HIP_CHECK(hipModuleLaunchKernel(vadd, N / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
        /* An H2D queued behind the kernel, then the kernel's result. */
        fill(src, N * sizeof(float), 1000u + (uint32_t)round);
        HIP_CHECK(hipMemcpy(dev, src, N * sizeof(float), hipMemcpyHostToDevice));
        memset(hc, 0, N * sizeof(float));
        HIP_CHECK(hipMemcpy(hc, c, N * sizeof(float), hipMemcpyDeviceToHost));
        for (int i = 0; i < N; i++)
            if (hc[i] != ha[i] + hb[i]) {
                fprintf(stderr, "busy device, round %d: c[%d] = %g, expected %g\n", round, i, hc[i],
                        ha[i] + hb[i]);
                return 1;
            }
        HIP_CHECK(hipMemcpy(back, dev, N * sizeof(float), hipMemcpyDeviceToHost));
        check_same(src, back, N * sizeof(float), "H2D queued behind a kernel");
    }
    printf("copies behind a running kernel: ok\n");

    /* A created stream: async copies in stream order. */
    hipStream_t s;
    HIP_CHECK(hipStreamCreate(&s));
    size_t half = (size_t)(6u << 20) + 7;
    fill(src, 2 * half, 4242);
    HIP_CHECK(hipMemcpyAsync(dev, src, half, hipMemcpyHostToDevice, s));
    HIP_CHECK(hipMemcpyAsync(dev + half, src + half, half, hipMemcpyHostToDevice, s));
    memset(back, 0, 2 * half);
    HIP_CHECK(hipMemcpyAsync(back, dev, 2 * half, hipMemcpyDeviceToHost, s));
    HIP_CHECK(hipStreamSynchronize(s));
    check_same(src, back, 2 * half, "async copies on a stream");
    HIP_CHECK(hipStreamDestroy(s));
    printf("stream copies: ok\n");

    /* Bad input loses nothing: a copy past the allocation fails, the next works. */
    HIP_EXPECT(hipMemcpy(dev + max, src, 4, hipMemcpyHostToDevice), hipErrorInvalidValue);
    HIP_EXPECT(hipMemcpy(back, dev + max, 4, hipMemcpyDeviceToHost), hipErrorInvalidValue);
    HIP_CHECK(hipMemcpy(back, dev, 64, hipMemcpyDeviceToHost));
    check_same(src, back, 64, "after a refused copy");

    HIP_CHECK(hipModuleUnload(mod));
    HIP_CHECK(hipFree(a));
    HIP_CHECK(hipFree(b));
    HIP_CHECK(hipFree(c));
    HIP_CHECK(hipFree(dev));
    free(src);
    free(back);
    free(ha);
    free(hb);
    free(hc);
    printf("copies: ok\n");
    return 0;
}
