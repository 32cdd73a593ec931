/* 1 GiB host-to-device and device-to-host copies, each checked bit-exact on
 * the side that did not write the data. */
#include <stdint.h>

#include "gpu_test.h"

#define BYTES ((size_t)1 << 30)
#define WORDS (BYTES / 4)

static unsigned int pattern(unsigned long long i, unsigned int seed)
{
    return (unsigned int)(i * 2654435761ull) ^ seed ^ (unsigned int)(i >> 32);
}

int main(void)
{
    gpu_require();
    hipModule_t mod = gpu_kernels();
    hipFunction_t fill = gpu_fn(mod, "fill_pattern"), check = gpu_fn(mod, "check_pattern");
    unsigned int *h = malloc(BYTES), *d;
    unsigned long long *bad, hbad = 1, n = WORDS;
    CHECK(h != NULL);
    HIP_CHECK(hipMalloc((void **)&d, BYTES));
    HIP_CHECK(hipMalloc((void **)&bad, sizeof *bad));

    /* H2D: the host writes the pattern, the GPU checks it. */
    unsigned int seed = 0x5eed1234u;
    for (size_t i = 0; i < WORDS; i++)
        h[i] = pattern(i, seed);
    HIP_CHECK(hipMemset(bad, 0, sizeof *bad));
    double t0 = gpu_now_ms();
    HIP_CHECK(hipMemcpy(d, h, BYTES, hipMemcpyHostToDevice));
    double h2d = gpu_now_ms() - t0;
    void *cargs[] = { &d, &n, &seed, &bad };
    HIP_CHECK(hipModuleLaunchKernel(check, 1024, 1, 1, 256, 1, 1, 0, NULL, cargs, NULL));
    HIP_CHECK(hipMemcpy(&hbad, bad, sizeof hbad, hipMemcpyDeviceToHost));
    CHECK_EQ(hbad, 0);

    /* D2H: the GPU writes another pattern, the host checks it. */
    seed = 0xc0ffee01u;
    void *fargs[] = { &d, &n, &seed };
    HIP_CHECK(hipModuleLaunchKernel(fill, 1024, 1, 1, 256, 1, 1, 0, NULL, fargs, NULL));
    memset(h, 0, BYTES);
    t0 = gpu_now_ms();
    HIP_CHECK(hipMemcpy(h, d, BYTES, hipMemcpyDeviceToHost));
    double d2h = gpu_now_ms() - t0;
    size_t wrong = 0;
    for (size_t i = 0; i < WORDS; i++)
        wrong += h[i] != pattern(i, seed);
    CHECK_EQ(wrong, 0);

    printf("copy 1 GiB: H2D %.1f ms (%.2f GB/s), D2H %.1f ms (%.2f GB/s), both bit-exact\n", h2d,
           BYTES / h2d / 1e6, d2h, BYTES / d2h / 1e6);
    HIP_CHECK(hipFree(d));
    HIP_CHECK(hipFree(bad));
    HIP_CHECK(hipModuleUnload(mod));
    free(h);
    printf("gpu copy1g: ok\n");
    return 0;
}
