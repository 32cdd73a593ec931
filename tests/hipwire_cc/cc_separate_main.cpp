// A file without kernels, compiled on its own (-c) and linked with the
// object of cc_lib.hip: only files with device code get a fat binary.
#include <hip/hip_runtime.h>

#include <cstdio>

extern "C" int cc_lib_square(int *host, int n);

int main()
{
    int v[300];
    for (int i = 0; i < 300; i++)
        v[i] = i - 150;
    int rc = cc_lib_square(v, 300), bad = 0;
    for (int i = 0; i < 300; i++)
        bad += v[i] != (i - 150) * (i - 150);
    std::printf("hipwire-cc separate compile: rc %d, %d wrong\n", rc, bad);
    if (rc == 0 && bad == 0)
        std::printf("hipwire-cc separate compile: ok\n");
    return rc != 0 || bad != 0;
}
