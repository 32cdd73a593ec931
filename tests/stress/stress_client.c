/*
 * stress_client - one of the 64 clients of tests/stress/test_stress.c, a HIP
 * program linked against the proxy like any application.
 *
 *   stress_client ROLE INDEX GO1_FD READY_FD GO2_FD
 *
 * It connects when GO1_FD reads end-of-file (all clients at once), reports
 * on READY_FD that its session is open, waits for GO2_FD to close, then
 * does its ROLE's work and exits 0 only if every result is bit-exact:
 *   normal - streams, events, H2D/D2H/D2D copies, memsets and kernels;
 *   flood  - 60000 fire-and-forget launches (a 20 us kernel and a counter
 *            kernel, alternating), then checks the counter saw each once;
 *   quota  - asks for more than --mem-limit, gets hipErrorOutOfMemory, and
 *            then does the normal work within its quota.
 */
#include <hip/hip_runtime_api.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

enum { N = 64 * 1024, ROUNDS = 2, COUNT_LAUNCHES = 500, FLOOD_PAIRS = 30000 };

static hipFunction_t f_vadd, f_block_sum, f_count, f_spin;

static void wait_eof(int fd)
{
    char c;
    while (read(fd, &c, 1) > 0)
        ;
}

static uint32_t next_rand(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

/* One round of mixed work; every result is compared bit for bit. */
static void normal_round(int index, int round)
{
    uint32_t seed = 0x9e3779b9u ^ (uint32_t)(index * 7919 + round * 104729 + 1);
    float *ha = malloc(N * sizeof(float)), *hb = malloc(N * sizeof(float)),
          *hc = malloc(N * sizeof(float));
    int *hi = malloc(N * sizeof(int));
    CHECK(ha && hb && hc && hi);
    long long expect_sum = 0;
    for (int i = 0; i < N; i++) {
        ha[i] = (float)(next_rand(&seed) % 100000) / 8.0f; /* exact in binary */
        hb[i] = (float)(next_rand(&seed) % 100000) / 4.0f;
        hi[i] = (int)(next_rand(&seed) % 2001) - 1000;
        expect_sum += hi[i];
    }

    hipStream_t s1, s2;
    hipEvent_t e1, e2;
    HIP_CHECK(hipStreamCreate(&s1));
    HIP_CHECK(hipStreamCreateWithFlags(&s2, hipStreamNonBlocking));
    HIP_CHECK(hipEventCreate(&e1));
    HIP_CHECK(hipEventCreate(&e2));
    float *a, *b, *c, *d;
    int *in;
    long long *part;
    unsigned long long *counter;
    int blocks = (N + 255) / 256;
    HIP_CHECK(hipMalloc((void **)&a, N * sizeof(float)));
    HIP_CHECK(hipMalloc((void **)&b, N * sizeof(float)));
    HIP_CHECK(hipMalloc((void **)&c, N * sizeof(float)));
    HIP_CHECK(hipMalloc((void **)&d, N * sizeof(float)));
    HIP_CHECK(hipMalloc((void **)&in, N * sizeof(int)));
    HIP_CHECK(hipMalloc((void **)&part, blocks * sizeof(long long)));
    HIP_CHECK(hipMalloc((void **)&counter, sizeof *counter));

    /* s1 uploads; s2 waits for it through an event, adds, and copies. */
    HIP_CHECK(hipMemcpyAsync(a, ha, N * sizeof(float), hipMemcpyHostToDevice, s1));
    HIP_CHECK(hipMemcpyAsync(b, hb, N * sizeof(float), hipMemcpyHostToDevice, s1));
    HIP_CHECK(hipMemcpyAsync(in, hi, N * sizeof(int), hipMemcpyHostToDevice, s1));
    HIP_CHECK(hipEventRecord(e1, s1));
    HIP_CHECK(hipStreamWaitEvent(s2, e1, 0));
    int n = N;
    void *vargs[] = { &a, &b, &c, &n };
    HIP_CHECK(hipModuleLaunchKernel(f_vadd, blocks, 1, 1, 256, 1, 1, 0, s2, vargs, NULL));
    HIP_CHECK(hipMemcpyAsync(d, c, N * sizeof(float), hipMemcpyDeviceToDevice, s2));
    void *rargs[] = { &in, &part, &n };
    HIP_CHECK(hipModuleLaunchKernel(f_block_sum, blocks, 1, 1, 256, 1, 1, 0, s2, rargs, NULL));
    HIP_CHECK(hipEventRecord(e2, s2));
    /* The counter: memset on s1, then one increment per launch. */
    HIP_CHECK(hipMemsetAsync(counter, 0, sizeof *counter, s1));
    void *cargs[] = { &counter };
    for (int i = 0; i < COUNT_LAUNCHES; i++)
        HIP_CHECK(hipModuleLaunchKernel(f_count, 1, 1, 1, 1, 1, 1, 0, s1, cargs, NULL));

    HIP_CHECK(hipEventSynchronize(e2));
    float ms = -1;
    HIP_CHECK(hipEventElapsedTime(&ms, e1, e2));
    CHECK(ms >= 0);
    HIP_CHECK(hipMemcpy(hc, d, N * sizeof(float), hipMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        CHECK(hc[i] == ha[i] + hb[i]);
    long long *hpart = malloc(blocks * sizeof(long long));
    CHECK(hpart);
    HIP_CHECK(hipMemcpyAsync(hpart, part, blocks * sizeof(long long), hipMemcpyDeviceToHost, s2));
    HIP_CHECK(hipStreamSynchronize(s2));
    long long got = 0;
    for (int i = 0; i < blocks; i++)
        got += hpart[i];
    CHECK_EQ(got, expect_sum);
    unsigned long long count = 0;
    HIP_CHECK(hipStreamSynchronize(s1));
    HIP_CHECK(hipMemcpy(&count, counter, sizeof count, hipMemcpyDeviceToHost));
    CHECK_EQ(count, COUNT_LAUNCHES);
    /* A memset pattern read back through the default stream. */
    HIP_CHECK(hipMemsetD32(in, 0xA5A5A5A5u ^ (unsigned)index, N));
    HIP_CHECK(hipMemcpy(hi, in, N * sizeof(int), hipMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        CHECK_EQ((unsigned)hi[i], 0xA5A5A5A5u ^ (unsigned)index);

    HIP_CHECK(hipFree(a));
    HIP_CHECK(hipFree(b));
    HIP_CHECK(hipFree(c));
    HIP_CHECK(hipFree(d));
    HIP_CHECK(hipFree(in));
    HIP_CHECK(hipFree(part));
    HIP_CHECK(hipFree(counter));
    HIP_CHECK(hipEventDestroy(e1));
    HIP_CHECK(hipEventDestroy(e2));
    HIP_CHECK(hipStreamDestroy(s1));
    HIP_CHECK(hipStreamDestroy(s2));
    HIP_CHECK(hipDeviceSynchronize());
    free(ha);
    free(hb);
    free(hc);
    free(hi);
    free(hpart);
}

static void flood(void)
{
    unsigned long long *counter, count = 0;
    HIP_CHECK(hipMalloc((void **)&counter, sizeof *counter));
    HIP_CHECK(hipMemset(counter, 0, sizeof *counter));
    unsigned us = 20;
    void *sargs[] = { &us };
    void *cargs[] = { &counter };
    for (int i = 0; i < FLOOD_PAIRS; i++) {
        HIP_CHECK(hipModuleLaunchKernel(f_spin, 1, 1, 1, 1, 1, 1, 0, NULL, sargs, NULL));
        HIP_CHECK(hipModuleLaunchKernel(f_count, 1, 1, 1, 1, 1, 1, 0, NULL, cargs, NULL));
    }
    HIP_CHECK(hipMemcpy(&count, counter, sizeof count, hipMemcpyDeviceToHost));
    CHECK_EQ(count, FLOOD_PAIRS);
    HIP_CHECK(hipFree(counter));
}

static void over_quota(void)
{
    void *big = NULL, *more = NULL;
    size_t free_b = 0, total = 0;
    HIP_CHECK(hipMemGetInfo(&free_b, &total));
    CHECK_EQ(total, 64ull << 20); /* the session sees --mem-limit as its device */
    HIP_CHECK(hipMalloc(&big, 48u << 20));
    HIP_EXPECT(hipMalloc(&more, 32u << 20), hipErrorOutOfMemory);
    CHECK(more == NULL);
    CHECK_EQ(hipGetLastError(), hipErrorOutOfMemory);
    CHECK_EQ(hipGetLastError(), hipSuccess);
    HIP_CHECK(hipFree(big));
}

int main(int argc, char **argv)
{
    CHECK(argc == 6);
    const char *role = argv[1];
    int index = atoi(argv[2]);
    int go1 = atoi(argv[3]), ready = atoi(argv[4]), go2 = atoi(argv[5]);
    const char *kernels = getenv("HIPWIRE_KERNELS");
    CHECK(kernels);

    wait_eof(go1);
    int ndev = 0;
    HIP_CHECK(hipGetDeviceCount(&ndev)); /* connects: the session opens here */
    CHECK(ndev >= 1);
    CHECK(write(ready, "r", 1) == 1);
    close(ready);
    wait_eof(go2);

    hipModule_t mod;
    HIP_CHECK(hipModuleLoad(&mod, kernels));
    HIP_CHECK(hipModuleGetFunction(&f_vadd, mod, "vadd"));
    HIP_CHECK(hipModuleGetFunction(&f_block_sum, mod, "block_sum"));
    HIP_CHECK(hipModuleGetFunction(&f_count, mod, "count_once"));
    HIP_CHECK(hipModuleGetFunction(&f_spin, mod, "spin"));
    if (!strcmp(role, "flood")) {
        flood();
    } else if (!strcmp(role, "quota")) {
        over_quota();
        normal_round(index, 0);
    } else {
        CHECK(!strcmp(role, "normal"));
        for (int r = 0; r < ROUNDS; r++)
            normal_round(index, r);
    }
    HIP_CHECK(hipModuleUnload(mod));
    HIP_CHECK(hipDeviceSynchronize());
    return 0;
}
