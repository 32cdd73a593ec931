/*
 * hipHostMalloc memory shared with the worker (docs/client.md, "Pinned host
 * memory"; docs/protocol.md, "Shared host memory").
 *
 * usage: test_host_region shm|tcp
 *   shm: the session runs on shared memory, so hipHostMalloc memory must be
 *        a shared mapping (/proc/self/maps names the worker's memfd) and
 *        copies from and to it go straight between it and device memory;
 *   tcp: it must stay private memory, and the same copies work the old way.
 * Either way: bit-exact copies of 1 B .. 64 MiB in both directions, at
 * offsets into the middle of a block with the bytes around left alone;
 * async copies on a created stream behind a running kernel, in stream
 * order; hipHostFree unmaps (the mapping count goes back); registered and
 * pageable memory still copy.
 */
#include <hip/hip_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
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

static void check_byte(const uint8_t *p, size_t n, uint8_t v, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v) {
            fprintf(stderr, "%s: byte %zu is 0x%02x, expected 0x%02x\n", what, i, p[i], v);
            exit(1);
        }
}

/* Mappings of the worker's host regions in this process, and whether p
 * lies in one. */
static int region_maps(const void *p, int *holds)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int n = 0;
    CHECK(f != NULL);
    if (holds)
        *holds = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (!strstr(line, "hipwire-host") || sscanf(line, "%lx-%lx", &lo, &hi) != 2)
            continue;
        n++;
        if (holds && (uintptr_t)p >= lo && (uintptr_t)p < hi)
            *holds = 1;
    }
    fclose(f);
    return n;
}

int main(int argc, char **argv)
{
    CHECK(argc == 2);
    int shm = strcmp(argv[1], "shm") == 0;
    const char *kernels = getenv("HIPWIRE_KERNELS");
    CHECK(kernels != NULL);
    static const size_t sizes[] = {
        1, 7, 4095, 4096, 65537, 1u << 20, (1u << 20) + 13, (9u << 20) + 5, 64u << 20
    };
    const size_t max = 64u << 20, pad = 4096 + 37;
    uint8_t *dev, *pin, *want = malloc(max), *page = malloc(max);
    CHECK(want && page);
    HIP_CHECK(hipMalloc((void **)&dev, max + 64));
    int before = region_maps(NULL, NULL);
    HIP_CHECK(hipHostMalloc((void **)&pin, max + 2 * pad, 0));
    int holds;
    int after = region_maps(pin, &holds);
    if (shm) {
        CHECK(holds);
        CHECK_EQ(after, before + 1);
    } else {
        CHECK(!holds);
        CHECK_EQ(after, before);
    }
    printf("hipHostMalloc memory %s\n", holds ? "is shared with the worker" : "is private");

    /* Both directions, every size, at the start and in the middle of the
     * block; the bytes around the range must not change. */
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        for (size_t off = 0; off <= pad; off += pad) {
            uint8_t *h = pin + off;
            fill(want, n, (uint32_t)(k * 11 + off));
            memset(pin, 0xa5, max + 2 * pad);
            memcpy(h, want, n);
            HIP_CHECK(hipMemcpy(dev + 3, h, n, hipMemcpyHostToDevice));
            /* The device holds it: read through pageable memory (the ring). */
            memset(page, 0, n);
            HIP_CHECK(hipMemcpy(page, dev + 3, n, hipMemcpyDeviceToHost));
            check_same(want, page, n, "H2D from pinned memory");
            /* And back into pinned memory, after the device changed. */
            fill(want, n, (uint32_t)(k * 13 + off + 1));
            HIP_CHECK(hipMemcpy(dev + 3, want, n, hipMemcpyHostToDevice));
            memset(pin, 0x5a, max + 2 * pad);
            HIP_CHECK(hipMemcpy(h, dev + 3, n, hipMemcpyDeviceToHost));
            check_same(want, h, n, "D2H into pinned memory");
            check_byte(pin, off, 0x5a, "bytes before the D2H range");
            check_byte(h + n, max + 2 * pad - off - n, 0x5a, "bytes after the D2H range");
        }
    }
    printf("H2D and D2H, 1 B .. 64 MiB, at offsets into the block: ok\n");

    /* Async copies on a stream, queued behind a kernel that takes a while:
     * H2D from one pinned block, a device-to-device copy, D2H into another.
     * Each must see the one before it. */
    hipModule_t mod;
    hipFunction_t spin;
    hipStream_t st;
    HIP_CHECK(hipModuleLoad(&mod, kernels));
    HIP_CHECK(hipModuleGetFunction(&spin, mod, "spin"));
    HIP_CHECK(hipStreamCreate(&st));
    uint8_t *pin2, *dev2;
    const size_t an = (8u << 20) + 3;
    HIP_CHECK(hipHostMalloc((void **)&pin2, an + 100, 0));
    HIP_CHECK(hipMalloc((void **)&dev2, an));
    for (int round = 0; round < 4; round++) {
        unsigned us = 20000; /* the copies queue behind 20 ms of kernel */
        void *args[] = { &us };
        fill(pin + 100, an, (uint32_t)round + 100);
        memcpy(want, pin + 100, an);
        memset(pin2, 0, an + 100);
        HIP_CHECK(hipModuleLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, st, args, NULL));
        HIP_CHECK(hipMemcpyAsync(dev, pin + 100, an, hipMemcpyHostToDevice, st));
        HIP_CHECK(hipMemcpyAsync(dev2, dev, an, hipMemcpyDeviceToDevice, st));
        HIP_CHECK(hipMemcpyAsync(pin2 + 50, dev2, an, hipMemcpyDeviceToHost, st));
        HIP_CHECK(hipStreamSynchronize(st));
        check_same(want, pin2 + 50, an, "async H2D, D2D, D2H on a stream");
        check_byte(pin2, 50, 0, "bytes before the async D2H");
        /* And the null stream after it. */
        HIP_CHECK(hipMemsetAsync(dev, 0x11, an, st));
        HIP_CHECK(hipMemcpy(pin2, dev, an, hipMemcpyDeviceToHost));
        check_byte(pin2, an, 0x11, "synchronous D2H after an async memset");
    }
    HIP_CHECK(hipStreamDestroy(st));
    HIP_CHECK(hipFree(dev2));
    printf("async copies on a stream behind a kernel: ok\n");

    /* hipHostFree unmaps; many blocks come and go. */
    HIP_CHECK(hipHostFree(pin2));
    for (int i = 0; i < 64; i++) {
        uint8_t *p;
        HIP_CHECK(hipHostMalloc((void **)&p, 4096u * (size_t)(i + 1), 0));
        p[0] = (uint8_t)i;
        HIP_CHECK(hipMemcpy(dev, p, 1, hipMemcpyHostToDevice));
        HIP_CHECK(hipHostFree(p));
    }
    HIP_CHECK(hipHostFree(pin));
    CHECK_EQ(region_maps(NULL, NULL), before);
    printf("hipHostFree unmaps: ok\n");

    /* Registered and pageable memory keep the ordinary path. */
    uint8_t *reg = malloc(1u << 20);
    CHECK(reg);
    HIP_CHECK(hipHostRegister(reg, 1u << 20, 0));
    fill(want, 1u << 20, 77);
    memcpy(reg, want, 1u << 20);
    HIP_CHECK(hipMemcpy(dev, reg, 1u << 20, hipMemcpyHostToDevice));
    memset(reg, 0, 1u << 20);
    HIP_CHECK(hipMemcpy(reg, dev, 1u << 20, hipMemcpyDeviceToHost));
    check_same(want, reg, 1u << 20, "registered memory");
    HIP_CHECK(hipHostUnregister(reg));
    free(reg);
    printf("registered memory: ok\n");

    HIP_CHECK(hipModuleUnload(mod));
    HIP_CHECK(hipFree(dev));
    free(want);
    free(page);
    printf("host regions (%s): ok\n", argv[1]);
    return 0;
}
