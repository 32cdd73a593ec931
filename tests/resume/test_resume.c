/*
 * test_resume - session resume across network cuts, through
 * tests/harness/fault_relay (docs/testing.md). One scenario per run:
 *
 *   burst   the link is cut in the middle of 20000 fire-and-forget launches
 *   h2d     ... in the middle of a 256 MiB host-to-device copy
 *   d2h     ... in the middle of a 128 MiB device-to-host copy (its reply)
 *   sync    ... while hipDeviceSynchronize waits for a running kernel
 *   grace   the link is down longer than the worker's --resume-grace
 *   timing  how long from the link coming back to work resumed (prints it)
 *   region  (shared memory) a cut while copies from and to hipHostMalloc
 *           memory shared with the worker wait behind a kernel; after the
 *           resume (on TCP) the regions keep working, new hipHostMalloc
 *           memory is private, and hipHostFree unmaps both kinds
 *
 * count_once kernels increment a device counter: after the resume the
 * counter equals the launches made, so none ran twice and none was lost;
 * copies are compared byte for byte. Every scenario also checks that the
 * cut happened (the relay counts it) and that the worker resumed the
 * session (its log says so), so a cut that missed cannot pass.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hip/hip_runtime_api.h>

#include "raw_client.h"
#include "relay_ctl.h"
#include "testutil.h"

static hipFunction_t count_once, sleep_ms;
static unsigned long long *counter;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void relay(const char *cmd)
{
    char reply[256];
    if (relay_cmd(NULL, reply, sizeof reply, "%s", cmd) < 0) {
        fprintf(stderr, "relay command '%s' failed: %s\n", cmd, reply);
        exit(1);
    }
}

static uint64_t relay_cuts(void)
{
    uint64_t v = 0;
    CHECK(relay_stat(NULL, "cuts", &v) == 0);
    return v;
}

static void setup(void)
{
    hipModule_t m;
    HIP_CHECK(hipModuleLoad(&m, getenv("HIPWIRE_KERNELS")));
    HIP_CHECK(hipModuleGetFunction(&count_once, m, "count_once"));
    HIP_CHECK(hipModuleGetFunction(&sleep_ms, m, "sleep_ms"));
    HIP_CHECK(hipMalloc((void **)&counter, sizeof *counter));
    HIP_CHECK(hipMemset(counter, 0, sizeof *counter));
    HIP_CHECK(hipDeviceSynchronize());
}

static void launch_count(void)
{
    void *args[] = { &counter };
    HIP_CHECK(hipModuleLaunchKernel(count_once, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
}

static unsigned long long read_counter(void)
{
    unsigned long long v = 0;
    HIP_CHECK(hipMemcpy(&v, counter, sizeof v, hipMemcpyDeviceToHost));
    return v;
}

/* The cut happened and the worker took the session back. */
static void expect_resumed(uint64_t cuts_before)
{
    CHECK(relay_cuts() > cuts_before);
    CHECK(raw_log_has("resumed by", NULL));
}

static void fill(uint8_t *p, size_t n, uint64_t seed)
{
    uint64_t s = seed;
    for (size_t i = 0; i + 8 <= n; i += 8) {
        uint64_t v = raw_rand(&s);
        memcpy(p + i, &v, 8);
    }
}

static void burst(void)
{
    enum { LAUNCHES = 20000 };
    uint64_t cuts = relay_cuts();
    relay("cut c2w 600000"); /* about a third of the way through */
    for (int i = 0; i < LAUNCHES; i++)
        launch_count();
    HIP_CHECK(hipDeviceSynchronize());
    CHECK_EQ(read_counter(), LAUNCHES);
    expect_resumed(cuts);
    printf("burst: %d launches across a cut, each ran once: ok\n", LAUNCHES);
}

static void h2d(void)
{
    const size_t n = 256u << 20;
    uint8_t *src = malloc(n), *back = malloc(n), *d;
    CHECK(src && back);
    fill(src, n, 42);
    HIP_CHECK(hipMalloc((void **)&d, n));
    uint64_t cuts = relay_cuts();
    launch_count();
    relay("cut c2w 100000000"); /* inside the second 64 MiB chunk */
    HIP_CHECK(hipMemcpy(d, src, n, hipMemcpyHostToDevice));
    launch_count();
    memset(back, 0, n);
    HIP_CHECK(hipMemcpy(back, d, n, hipMemcpyDeviceToHost));
    CHECK(memcmp(src, back, n) == 0);
    CHECK_EQ(read_counter(), 2);
    expect_resumed(cuts);
    HIP_CHECK(hipFree(d));
    free(src);
    free(back);
    printf("h2d: 256 MiB across a cut, bit-exact: ok\n");
}

static void d2h(void)
{
    const size_t n = 128u << 20;
    uint8_t *src = malloc(n), *back = malloc(n), *d;
    CHECK(src && back);
    fill(src, n, 7);
    HIP_CHECK(hipMalloc((void **)&d, n));
    HIP_CHECK(hipMemcpy(d, src, n, hipMemcpyHostToDevice));
    HIP_CHECK(hipDeviceSynchronize());
    uint64_t cuts = relay_cuts();
    launch_count();
    relay("cut w2c 30000000"); /* inside the first 64 MiB reply */
    memset(back, 0, n);
    HIP_CHECK(hipMemcpy(back, d, n, hipMemcpyDeviceToHost));
    CHECK(memcmp(src, back, n) == 0);
    /* Later requests change the source: what came is what was asked for. */
    HIP_CHECK(hipMemset(d, 0xA5, n));
    launch_count();
    CHECK_EQ(read_counter(), 2);
    expect_resumed(cuts);
    HIP_CHECK(hipFree(d));
    free(src);
    free(back);
    printf("d2h: 128 MiB reply across a cut, bit-exact: ok\n");
}

static void *cut_later(void *arg)
{
    usleep((useconds_t)(uintptr_t)arg * 1000);
    relay("cut");
    return NULL;
}

static void sync_cut(void)
{
    uint64_t cuts = relay_cuts();
    int ms = 600;
    void *args[] = { &ms };
    HIP_CHECK(hipModuleLaunchKernel(sleep_ms, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    launch_count();
    pthread_t t;
    pthread_create(&t, NULL, cut_later, (void *)(uintptr_t)200);
    double t0 = now_ms();
    HIP_CHECK(hipDeviceSynchronize()); /* cut while it waits */
    double took = now_ms() - t0;
    pthread_join(t, NULL);
    CHECK(took >= 500);
    CHECK_EQ(read_counter(), 1);
    expect_resumed(cuts);
    printf("sync: cut during hipDeviceSynchronize, answered after %.0f ms: ok\n", took);
}

static void *up_later(void *arg)
{
    usleep((useconds_t)(uintptr_t)arg * 1000);
    relay("up");
    return NULL;
}

/* Down for 2.5 s against --resume-grace=1s: the session is gone. */
static void grace(void)
{
    void *p;
    HIP_CHECK(hipMalloc(&p, 1 << 20));
    launch_count();
    HIP_CHECK(hipDeviceSynchronize());
    relay("down");
    pthread_t t;
    pthread_create(&t, NULL, up_later, (void *)(uintptr_t)2500);
    double t0 = now_ms();
    hipError_t e = hipDeviceSynchronize();
    double took = now_ms() - t0;
    pthread_join(t, NULL);
    printf("grace: hipDeviceSynchronize after %.0f ms: %s\n", took, hipGetErrorName(e));
    CHECK(e == hipErrorLaunchFailure);
    CHECK(took >= 2000 && took < 10000);
    /* Every later call fails the same way; nothing hangs. */
    HIP_EXPECT(hipMalloc(&p, 16), hipErrorLaunchFailure);
    HIP_EXPECT(hipMemcpy(&e, counter, 1, hipMemcpyDeviceToHost), hipErrorLaunchFailure);
    /* The worker freed the session: nothing left on its status page. */
    struct raw_worker_status st;
    CHECK(raw_wait_worker_idle(0, 0, 5000, &st) == 0);
    CHECK(raw_log_has("not resumed within --resume-grace", NULL));
    printf("grace: worker shows %u sessions, %llu bytes: ok\n", st.sessions,
           (unsigned long long)st.bytes_in_use);
}

struct timed_call {
    double done_ms;
    hipError_t err;
};

static void *read_counter_thread(void *arg)
{
    struct timed_call *t = arg;
    unsigned long long v;
    t->err = hipMemcpy(&v, counter, sizeof v, hipMemcpyDeviceToHost);
    t->done_ms = now_ms();
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Link down while a call waits; then up: how long until the call has its
 * answer. And a plain cut (no outage): how long the resume takes. */
static void timing(void)
{
    enum { ROUNDS = 7 };
    double after_up[ROUNDS], after_cut[ROUNDS];
    for (int i = 0; i < ROUNDS; i++) {
        launch_count();
        HIP_CHECK(hipDeviceSynchronize());
        relay("down");
        struct timed_call tc = { 0 };
        pthread_t t;
        pthread_create(&t, NULL, read_counter_thread, &tc);
        /* Outages of different lengths, so the link comes back at different
         * points of the proxy's reconnection backoff. */
        usleep((useconds_t)(250 + 170 * i) * 1000);
        double up = now_ms();
        relay("up");
        pthread_join(t, NULL);
        HIP_CHECK(tc.err);
        after_up[i] = tc.done_ms - up;

        launch_count();
        HIP_CHECK(hipDeviceSynchronize());
        double cut = now_ms();
        relay("cut");
        HIP_CHECK(hipDeviceSynchronize());
        after_cut[i] = now_ms() - cut;
    }
    CHECK_EQ(read_counter(), 2 * ROUNDS);
    qsort(after_up, ROUNDS, sizeof after_up[0], cmp_double);
    qsort(after_cut, ROUNDS, sizeof after_cut[0], cmp_double);
    printf("bench resume: link restored -> work resumed: median %.1f ms, min %.1f, max %.1f "
           "(%d outages of 250..1270 ms; reconnect backoff 20 ms doubling to 250 ms)\n",
           after_up[ROUNDS / 2], after_up[0], after_up[ROUNDS - 1], ROUNDS);
    printf("bench resume: cut (link stays up) -> work resumed: median %.1f ms, min %.1f, "
           "max %.1f (%d cuts)\n",
           after_cut[ROUNDS / 2], after_cut[0], after_cut[ROUNDS - 1], ROUNDS);
}

/* Mappings of the worker's host regions here, and whether p is in one. */
static int region_maps(const void *p, int *holds)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int n = 0;
    CHECK(f != NULL);
    *holds = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (!strstr(line, "hipwire-host") || sscanf(line, "%lx-%lx", &lo, &hi) != 2)
            continue;
        n++;
        if ((uintptr_t)p >= lo && (uintptr_t)p < hi)
            *holds = 1;
    }
    fclose(f);
    return n;
}

static void region_cut(void)
{
    const size_t n = (16u << 20) + 5;
    uint64_t cuts = relay_cuts();
    uint8_t *a, *b, *d, *want = malloc(n);
    int holds;
    CHECK(want != NULL);
    HIP_CHECK(hipMalloc((void **)&d, n));
    HIP_CHECK(hipHostMalloc((void **)&a, n, 0));
    HIP_CHECK(hipHostMalloc((void **)&b, n, 0));
    CHECK_EQ(region_maps(a, &holds), 2);
    CHECK(holds);
    /* Queued behind a kernel; the link is cut while they wait. */
    fill(a, n, 31);
    memcpy(want, a, n);
    int ms = 600;
    void *args[] = { &ms };
    HIP_CHECK(hipModuleLaunchKernel(sleep_ms, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    pthread_t t;
    pthread_create(&t, NULL, cut_later, (void *)(uintptr_t)200);
    HIP_CHECK(hipMemcpyAsync(d, a, n, hipMemcpyHostToDevice, NULL));
    HIP_CHECK(hipMemcpy(b, d, n, hipMemcpyDeviceToHost));
    pthread_join(t, NULL);
    CHECK(memcmp(want, b, n) == 0);
    expect_resumed(cuts);
    /* On TCP now: the regions still work both ways. */
    for (int round = 0; round < 3; round++) {
        fill(a, n, 40 + (uint64_t)round);
        memcpy(want, a, n);
        memset(b, 0, n);
        HIP_CHECK(hipMemcpy(d, a, n, hipMemcpyHostToDevice));
        HIP_CHECK(hipMemcpy(b, d, n, hipMemcpyDeviceToHost));
        CHECK(memcmp(want, b, n) == 0);
    }
    /* New pinned memory is private, and copies with it work too. */
    uint8_t *c;
    HIP_CHECK(hipHostMalloc((void **)&c, n, 0));
    CHECK_EQ(region_maps(c, &holds), 2);
    CHECK(!holds);
    HIP_CHECK(hipMemcpy(c, d, n, hipMemcpyDeviceToHost));
    CHECK(memcmp(want, c, n) == 0);
    HIP_CHECK(hipHostFree(c));
    HIP_CHECK(hipHostFree(a));
    HIP_CHECK(hipHostFree(b));
    CHECK_EQ(region_maps(NULL, &holds), 0);
    HIP_CHECK(hipFree(d));
    free(want);
    printf("region: copies with shared host memory across a cut, then on TCP: ok\n");
}

int main(int argc, char **argv)
{
    CHECK(argc == 2);
    setup();
    if (!strcmp(argv[1], "burst"))
        burst();
    else if (!strcmp(argv[1], "h2d"))
        h2d();
    else if (!strcmp(argv[1], "d2h"))
        d2h();
    else if (!strcmp(argv[1], "sync"))
        sync_cut();
    else if (!strcmp(argv[1], "grace"))
        grace();
    else if (!strcmp(argv[1], "timing"))
        timing();
    else if (!strcmp(argv[1], "region"))
        region_cut();
    else
        CHECK(!"unknown scenario");
    printf("resume %s: ok\n", argv[1]);
    return 0;
}
