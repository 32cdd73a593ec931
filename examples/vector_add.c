/*
 * vector_add - the demo: an ordinary HIP program (nothing hipwire-specific
 * in it) that finds a device, copies two vectors over, adds them with a
 * kernel loaded through the module API, and checks the result.
 *
 *   vector_add KERNEL_IMAGE [N]
 *
 * Linked against hipwire's libamdhip64, every call below runs on the
 * hip-worker named by TF_WORKER_HOST/TF_WORKER_PORT.
 */
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                \
    do {                                                                           \
        hipError_t e_ = (call);                                                    \
        if (e_ != hipSuccess) {                                                    \
            fprintf(stderr, "vector_add: %s: %s\n", #call, hipGetErrorString(e_)); \
            return 1;                                                              \
        }                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: vector_add KERNEL_IMAGE [N]\n");
        return 2;
    }
    int n = argc > 2 ? atoi(argv[2]) : 1 << 20;
    if (n <= 0)
        return 2;
    size_t bytes = (size_t)n * sizeof(float);
    int count = 0;
    hipDeviceProp_t prop;
    CHECK(hipGetDeviceCount(&count));
    CHECK(hipGetDeviceProperties(&prop, 0));
    printf("%d device(s); using device 0: %s (%s), %zu MiB\n", count, prop.name, prop.gcnArchName,
           prop.totalGlobalMem >> 20);

    float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
    if (!a || !b || !c)
        return 1;
    for (int i = 0; i < n; i++) {
        a[i] = (float)i;
        b[i] = 2.0f * (float)i;
    }
    float *da, *db, *dc;
    CHECK(hipMalloc((void **)&da, bytes));
    CHECK(hipMalloc((void **)&db, bytes));
    CHECK(hipMalloc((void **)&dc, bytes));
    hipEvent_t start, stop;
    CHECK(hipEventCreate(&start));
    CHECK(hipEventCreate(&stop));
    CHECK(hipMemcpy(da, a, bytes, hipMemcpyHostToDevice));
    CHECK(hipMemcpy(db, b, bytes, hipMemcpyHostToDevice));

    hipModule_t mod;
    hipFunction_t vadd;
    CHECK(hipModuleLoad(&mod, argv[1]));
    CHECK(hipModuleGetFunction(&vadd, mod, "vadd"));
    void *args[] = { &da, &db, &dc, &n };
    CHECK(hipEventRecord(start, NULL));
    CHECK(hipModuleLaunchKernel(vadd, (unsigned)(n + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, args,
                                NULL));
    CHECK(hipEventRecord(stop, NULL));
    CHECK(hipMemcpy(c, dc, bytes, hipMemcpyDeviceToHost));
    float ms = 0;
    CHECK(hipEventElapsedTime(&ms, start, stop));

    int bad = 0;
    for (int i = 0; i < n; i++)
        bad += c[i] != a[i] + b[i];
    printf("vector_add: %d elements, kernel %.3f ms on the device, %s\n", n, ms,
           bad ? "WRONG RESULTS" : "all results correct");
    CHECK(hipEventDestroy(start));
    CHECK(hipEventDestroy(stop));
    CHECK(hipModuleUnload(mod));
    CHECK(hipFree(da));
    CHECK(hipFree(db));
    CHECK(hipFree(dc));
    free(a);
    free(b);
    free(c);
    return bad != 0;
}
