// Device variables and no kernel: the worker compiles device source that
// defines no kernel, and hipMemcpyTo/FromSymbol find the variable in it.
#include <hip/hip_runtime.h>

#include <cstdio>

__device__ float coef[4];

int main()
{
    float v[4] = { 1, 2, 3, 4 }, r[4] = { 0 };
    if (hipMemcpyToSymbol(HIP_SYMBOL(coef), v, sizeof v) != hipSuccess ||
        hipMemcpyFromSymbol(r, HIP_SYMBOL(coef), sizeof r) != hipSuccess)
        return 1;
    int bad = 0;
    for (int i = 0; i < 4; i++)
        bad += r[i] != v[i];
    std::printf("devvar: %s\n", bad ? "wrong" : "ok");
    return bad != 0;
}
