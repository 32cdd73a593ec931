// A HIP file without kernels or device variables (host code and a
// __device__ helper nobody launches): hipwire-cc builds it as hipcc does,
// with no device source to ship, and the program runs.
#include <hip/hip_runtime.h>

#include <cstdio>

__device__ inline int unused_helper(int x)
{
    return x + 1;
}

static int host_square(int x)
{
    return x * x;
}

int main()
{
    std::printf("%s\n", host_square(7) == 49 ? "nokernel: ok" : "nokernel: wrong");
    return 0;
}
