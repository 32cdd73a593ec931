// fatbin_threads: the call configuration stack is per thread, and a fat
// binary first used by many threads at once is uploaded once.
//  - 8 threads push nested configurations, meet at a barrier, and pop them
//    back in order: each sees only its own;
//  - the same 8 threads then launch kernels of a fat binary nobody has used
//    yet, all at once, and read one of its variables: every launch fails
//    with exactly hipErrorNoBinaryForGpu and every read gives the initial
//    bytes (the worker log shows one upload: hipcc/CMakeLists.txt).
#include "fatbin_check.h"

#include <atomic>
#include <pthread.h>
#include <thread>
#include <vector>

__device__ int seeds[4] = { 41, 42, 43, 44 };

__global__ void bump(int *p, int by)
{
    p[threadIdx.x] += by + seeds[threadIdx.x % 4];
}

template <int N>
__global__ void stamp(int *p)
{
    p[blockIdx.x] = N;
}

static const int kThreads = 8;
static pthread_barrier_t barrier;
static std::atomic<int> failures{ 0 };

static void configs(int t)
{
    hipStream_t streams[3] = { reinterpret_cast<hipStream_t>(uintptr_t(0x1000 + t)),
                               reinterpret_cast<hipStream_t>(uintptr_t(0x2000 + t)),
                               reinterpret_cast<hipStream_t>(uintptr_t(0x3000 + t)) };
    for (int level = 0; level < 3; level++)
        if (__hipPushCallConfiguration(dim3(t + 1, level + 1, 1), dim3(32 * (level + 1), 1, 1),
                                       size_t(100 * t + level), streams[level]) != hipSuccess)
            failures++;
    pthread_barrier_wait(&barrier); // every thread has pushed before any pops
    for (int level = 2; level >= 0; level--) {
        dim3 g, b;
        size_t shm = 0;
        hipStream_t s = nullptr;
        if (__hipPopCallConfiguration(&g, &b, &shm, &s) != hipSuccess ||
            g.x != unsigned(t + 1) || g.y != unsigned(level + 1) || b.x != 32u * (level + 1) ||
            shm != size_t(100 * t + level) || s != streams[level]) {
            std::fprintf(stderr, "FAIL thread %d level %d: grid %u,%u block %u shm %zu\n", t,
                         level, g.x, g.y, b.x, shm);
            failures++;
        }
    }
    dim3 g, b;
    size_t shm;
    hipStream_t s;
    if (__hipPopCallConfiguration(&g, &b, &shm, &s) != hipErrorInvalidConfiguration) {
        std::fprintf(stderr, "FAIL thread %d: pop of an empty stack accepted\n", t);
        failures++;
    }
    (void)hipGetLastError();
}

static void first_use(int t, int *dev)
{
    pthread_barrier_wait(&barrier); // all threads hit the unused fat binary at once
    for (int i = 0; i < 20; i++) {
        bump<<<1, 32>>>(dev, t);
        hipError_t e1 = hipGetLastError();
        if (t % 2)
            stamp<1><<<4, 1>>>(dev);
        else
            stamp<2><<<4, 1>>>(dev);
        hipError_t e2 = hipGetLastError();
        int s[4] = { 0 };
        hipError_t e3 = hipMemcpyFromSymbol(s, HIP_SYMBOL(seeds), sizeof s);
        if (e1 != hipErrorNoBinaryForGpu || e2 != hipErrorNoBinaryForGpu || e3 != hipSuccess ||
            s[0] != 41 || s[3] != 44) {
            std::fprintf(stderr, "FAIL thread %d: launches %s %s, read %s (%d..%d)\n", t,
                         hipGetErrorName(e1), hipGetErrorName(e2), hipGetErrorName(e3), s[0],
                         s[3]);
            failures++;
        }
    }
}

int main()
{
    int *dev = nullptr;
    CHECK_OK(hipMalloc(&dev, 64 * sizeof(int)));
    pthread_barrier_init(&barrier, nullptr, kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; t++)
        threads.emplace_back([t, dev] {
            configs(t);
            first_use(t, dev);
        });
    for (auto &th : threads)
        th.join();
    CHECK_OK(hipDeviceSynchronize());
    CHECK(hipGetLastError() == hipSuccess, "an error left over at the end");
    CHECK_OK(hipFree(dev));
    g_failures += failures.load();
    if (g_failures) {
        std::fprintf(stderr, "fatbin threads: %d failure(s)\n", g_failures);
        return 1;
    }
    std::printf("fatbin threads: ok, %d threads\n", kThreads);
    return 0;
}
