// fatbin_libs: fat binaries of a shared library and of an unused unit.
//  - libfatbin_lib.so (argv[1]) is dlopen'ed, used, dlclose'd, and loaded
//    again: its kernels register with the proxy from its constructor, its
//    variable starts from the code object's bytes each time (the module of
//    the first load was dropped with __hipUnregisterFatBinary);
//  - fatbin_unused.hip's fat binary is registered and never used, so never
//    uploaded; this unit's is used and uploaded once. The worker's debug log
//    (checked by hipcc/CMakeLists.txt) shows exactly three uploads: this
//    unit's (one kernel) and the library's twice (three kernels).
#include "fatbin_check.h"

#include <dlfcn.h>

const void *unused_kernel();

__global__ void main_kernel(int *p) { p[0] = 1; }

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: fatbin_libs LIB.so\n");
        return 2;
    }
    CHECK(unused_kernel() != nullptr, "unused unit linked");
    for (int i = 0; i < 3; i++)
        EXPECT_NO_BINARY_LAUNCH((main_kernel<<<1, 1>>>(nullptr)), nullptr);
    for (int round = 1; round <= 2; round++) {
        void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
        CHECK(lib != nullptr, "dlopen %s: %s", argv[1], dlerror());
        if (!lib)
            break;
        auto run = reinterpret_cast<int (*)(int)>(dlsym(lib, "lib_run"));
        CHECK(run != nullptr, "lib_run");
        if (run)
            g_failures += run(round);
        CHECK(dlclose(lib) == 0, "dlclose");
    }
    CHECK_OK(hipDeviceSynchronize());
    CHECK(hipGetLastError() == hipSuccess, "an error left over at the end");
    if (g_failures) {
        std::fprintf(stderr, "fatbin libs: %d failure(s)\n", g_failures);
        return 1;
    }
    std::printf("fatbin libs: ok\n");
    return 0;
}
