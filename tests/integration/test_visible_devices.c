/*
 * HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES in the
 * application's environment choose and order the worker's devices (here 4
 * CPU devices, told apart by their PCI device id and UUID, which are their
 * worker ordinals). Each case is a fresh client process that sets the
 * variables before its first HIP call, as hip-tests' *_exe programs do.
 */
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

/* The worker ordinal behind application device dev, from its description. */
static int worker_ordinal(int dev)
{
    int pci = -1;
    hipUUID u;
    HIP_CHECK(hipDeviceGetAttribute(&pci, hipDeviceAttributePciDeviceId, dev));
    HIP_CHECK(hipDeviceGetUuid(&u, dev));
    CHECK_EQ((unsigned char)u.bytes[15], pci);
    return pci;
}

/* Work on every visible device lands on that device: memory taken there
 * shows in that device's hipMemGetInfo and nowhere else, and streams,
 * events and the default stream of the device work with it. */
static void check_work(int n)
{
    enum { SIZE = 32 << 20 };
    for (int d = 0; d < n; d++) {
        size_t before[8], after[8], total;
        for (int e = 0; e < n; e++) {
            HIP_CHECK(hipSetDevice(e));
            HIP_CHECK(hipMemGetInfo(&before[e], &total));
        }
        HIP_CHECK(hipSetDevice(d));
        char *p;
        HIP_CHECK(hipMalloc((void **)&p, SIZE));
        hipStream_t s;
        hipEvent_t ev;
        HIP_CHECK(hipStreamCreate(&s));
        HIP_CHECK(hipEventCreate(&ev));
        HIP_CHECK(hipMemsetAsync(p, d + 1, SIZE, s));
        HIP_CHECK(hipEventRecord(ev, s));
        HIP_CHECK(hipStreamWaitEvent(NULL, ev, 0));
        char back[64];
        HIP_CHECK(hipMemcpyAsync(back, p + SIZE - 64, 64, hipMemcpyDeviceToHost, NULL));
        HIP_CHECK(hipDeviceSynchronize());
        for (int i = 0; i < 64; i++)
            CHECK_EQ(back[i], d + 1);
        for (int e = 0; e < n; e++) {
            HIP_CHECK(hipSetDevice(e));
            HIP_CHECK(hipMemGetInfo(&after[e], &total));
            if (e == d)
                CHECK(before[e] - after[e] >= SIZE);
            else
                CHECK_EQ(after[e], before[e]);
        }
        HIP_CHECK(hipSetDevice(d));
        HIP_CHECK(hipEventDestroy(ev));
        HIP_CHECK(hipStreamDestroy(s));
        HIP_CHECK(hipFree(p));
    }
}

/* Runs one case in a child: sets the variables ("-" leaves one unset),
 * then expects the worker ordinals in `want` (count < 0: hipErrorNoDevice). */
static void run_case(const char *hip, const char *rocr, const char *cuda, int count,
                     const int *want)
{
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        unsetenv("HIP_VISIBLE_DEVICES");
        unsetenv("ROCR_VISIBLE_DEVICES");
        unsetenv("CUDA_VISIBLE_DEVICES");
        if (strcmp(hip, "-") != 0)
            setenv("HIP_VISIBLE_DEVICES", hip, 1);
        if (strcmp(rocr, "-") != 0)
            setenv("ROCR_VISIBLE_DEVICES", rocr, 1);
        if (strcmp(cuda, "-") != 0)
            setenv("CUDA_VISIBLE_DEVICES", cuda, 1);
        int n = -1;
        if (count < 0) {
            HIP_EXPECT(hipGetDeviceCount(&n), hipErrorNoDevice);
            CHECK_EQ(n, 0);
            int v;
            HIP_EXPECT(hipSetDevice(0), hipErrorNoDevice);
            HIP_EXPECT(hipGetDevice(&n), hipErrorNoDevice);
            HIP_EXPECT(hipDeviceGetAttribute(&v, hipDeviceAttributePciBusId, 0),
                       hipErrorInvalidDevice);
            _exit(0);
        }
        HIP_CHECK(hipGetDeviceCount(&n));
        CHECK_EQ(n, count);
        for (int d = 0; d < n; d++)
            CHECK_EQ(worker_ordinal(d), want[d]);
        int v;
        HIP_EXPECT(hipSetDevice(n), hipErrorInvalidDevice);
        HIP_EXPECT(hipDeviceGetAttribute(&v, hipDeviceAttributePciBusId, n), hipErrorInvalidDevice);
        check_work(n);
        _exit(0);
    }
    int st = 0;
    CHECK(waitpid(pid, &st, 0) == pid);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "case HIP=%s ROCR=%s CUDA=%s failed\n", hip, rocr, cuda);
        exit(1);
    }
    printf("HIP=%s ROCR=%s CUDA=%s: ok\n", hip, rocr, cuda);
}

int main(void)
{
    static const int all[] = { 0, 1, 2, 3 };
    run_case("-", "-", "-", 4, all);
    run_case("", "", "", 4, all);                  /* set but empty: no filter */
    run_case("2,0", "-", "-", 2, (int[]){ 2, 0 }); /* chosen and reordered */
    run_case("3", "-", "-", 1, (int[]){ 3 });
    run_case("1,1,3", "-", "-", 2, (int[]){ 1, 3 }); /* a repeat counts once */
    run_case("0,-1,1", "-", "-", 1, (int[]){ 0 });   /* an invalid entry ends the list */
    run_case("0,1,-1", "-", "-", 2, (int[]){ 0, 1 });
    run_case("0,4,1", "-", "-", 1, (int[]){ 0 }); /* out of range */
    run_case("1,01", "-", "-", 1, (int[]){ 1 });  /* not exactly a number */
    run_case("-1,0", "-", "-", -1, NULL);         /* nothing valid: no device */
    run_case("7", "-", "-", -1, NULL);
    /* ROCR first, then HIP indexes what ROCR left. */
    run_case("1", "3,2", "-", 1, (int[]){ 2 });
    run_case("-", "3,1", "-", 2, (int[]){ 3, 1 });
    /* CUDA_VISIBLE_DEVICES only when HIP_VISIBLE_DEVICES is unset or empty. */
    run_case("-", "-", "2", 1, (int[]){ 2 });
    run_case("", "-", "3,0", 2, (int[]){ 3, 0 });
    run_case("1", "-", "3", 1, (int[]){ 1 });
    /* By UUID: the CPU device's is "hw" then zeros, its ordinal last. */
    run_case("GPU-68770000000000000000000000000002,0", "-", "-", 2, (int[]){ 2, 0 });
    run_case("GPU-687700", "-", "-", 1, (int[]){ 0 }); /* a prefix: the first match */
    run_case("GPU-ffff", "-", "-", -1, NULL);
    printf("visible devices: ok\n");
    return 0;
}
