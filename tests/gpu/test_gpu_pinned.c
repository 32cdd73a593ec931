/*
 * hipHostMalloc memory shared with a cuda worker on the same host
 * (docs/protocol.md, "Shared host memory"): the worker pins each region
 * (cuMemHostRegister) and copies by DMA straight from and into it. Checks
 * that the memory is shared (TF_TRANSPORT=shm), that the worker pinned it
 * (its log has no "not pinned"), bit-exact copies of 1 B .. 64 MiB both
 * ways at offsets into a block, async H2D, D2D, D2H on a stream, and prints
 * pinned against pageable bandwidth at 64 MiB.
 */
#include <stdint.h>

#include "gpu_test.h"

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

static int shared(const void *p)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int yes = 0;
    CHECK(f != NULL);
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (strstr(line, "hipwire-host") && sscanf(line, "%lx-%lx", &lo, &hi) == 2 &&
            (uintptr_t)p >= lo && (uintptr_t)p < hi)
            yes = 1;
    }
    fclose(f);
    return yes;
}

static int log_has(const char *needle)
{
    const char *path = getenv("HIPWIRE_WORKER_LOG");
    FILE *f = path ? fopen(path, "r") : NULL;
    char line[1024];
    int found = 0;
    while (f && fgets(line, sizeof line, f))
        found |= strstr(line, needle) != NULL;
    if (f)
        fclose(f);
    return found;
}

int main(void)
{
    gpu_require();
    static const size_t sizes[] = { 1, 4095, 65537, (1u << 20) + 13, (9u << 20) + 5, 64u << 20 };
    const size_t max = 64u << 20, pad = 4096 + 37;
    uint8_t *dev, *pin, *want = malloc(max), *page = malloc(max);
    CHECK(want && page);
    HIP_CHECK(hipMalloc((void **)&dev, max + 64));
    HIP_CHECK(hipHostMalloc((void **)&pin, max + 2 * pad, 0));
    CHECK(shared(pin));
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        for (size_t off = 0; off <= pad; off += pad) {
            fill(pin + off, n, (uint32_t)(k * 3 + off));
            memcpy(want, pin + off, n);
            HIP_CHECK(hipMemcpy(dev + 5, pin + off, n, hipMemcpyHostToDevice));
            HIP_CHECK(hipMemcpy(page, dev + 5, n, hipMemcpyDeviceToHost));
            CHECK(memcmp(want, page, n) == 0);
            memset(pin, 0x5a, max + 2 * pad);
            HIP_CHECK(hipMemcpy(pin + off, dev + 5, n, hipMemcpyDeviceToHost));
            CHECK(memcmp(want, pin + off, n) == 0);
            CHECK(pin[off + n] == 0x5a && (off == 0 || pin[off - 1] == 0x5a));
        }
    }
    printf("pinned H2D and D2H, 1 B .. 64 MiB, at offsets: ok\n");
    CHECK(!log_has("not pinned"));

    hipStream_t st;
    uint8_t *dev2, *pin2;
    HIP_CHECK(hipStreamCreate(&st));
    HIP_CHECK(hipMalloc((void **)&dev2, max));
    HIP_CHECK(hipHostMalloc((void **)&pin2, max, 0));
    for (int round = 0; round < 4; round++) {
        fill(pin, max, 50u + (uint32_t)round);
        memcpy(want, pin, max);
        HIP_CHECK(hipMemcpyAsync(dev, pin, max, hipMemcpyHostToDevice, st));
        HIP_CHECK(hipMemcpyAsync(dev2, dev, max, hipMemcpyDeviceToDevice, st));
        HIP_CHECK(hipMemcpyAsync(pin2, dev2, max, hipMemcpyDeviceToHost, st));
        HIP_CHECK(hipStreamSynchronize(st));
        CHECK(memcmp(want, pin2, max) == 0);
    }
    printf("async H2D, D2D, D2H on a stream: ok\n");

    /* Bandwidth at 64 MiB, for the log (the targets are hipwire-bench's). */
    for (int pinned = 0; pinned <= 1; pinned++) {
        uint8_t *h = pinned ? pin : page;
        double best[2] = { 0, 0 };
        for (int dir = 0; dir < 2; dir++)
            for (int i = 0; i < 5; i++) {
                double t0 = gpu_now_ms();
                if (dir == 0)
                    HIP_CHECK(hipMemcpy(dev, h, max, hipMemcpyHostToDevice));
                else
                    HIP_CHECK(hipMemcpy(h, dev, max, hipMemcpyDeviceToHost));
                double gbs = (double)max / ((gpu_now_ms() - t0) * 1e6);
                if (gbs > best[dir])
                    best[dir] = gbs;
            }
        printf("%s 64 MiB: H2D %.2f GB/s, D2H %.2f GB/s\n", pinned ? "pinned  " : "pageable",
               best[0], best[1]);
    }
    HIP_CHECK(hipStreamDestroy(st));
    HIP_CHECK(hipHostFree(pin2));
    HIP_CHECK(hipHostFree(pin));
    HIP_CHECK(hipFree(dev2));
    HIP_CHECK(hipFree(dev));
    free(want);
    free(page);
    printf("gpu pinned: ok\n");
    return 0;
}
