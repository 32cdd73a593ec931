// Loads a hipwire-cc-built shared library and calls its entry point; plain
// C, no HIP: the library brings the proxy in.
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    void *lib = dlopen(argv[1], RTLD_NOW);
    if (!lib) {
        fprintf(stderr, "FAIL dlopen: %s\n", dlerror());
        return 1;
    }
    int (*square)(int *, int) = (int (*)(int *, int))dlsym(lib, "cc_lib_square");
    if (!square)
        return 1;
    int v[1000];
    for (int i = 0; i < 1000; i++)
        v[i] = i - 500;
    int rc = square(v, 1000);
    int bad = 0;
    for (int i = 0; i < 1000; i++)
        bad += v[i] != (i - 500) * (i - 500);
    dlclose(lib);
    printf("hipwire-cc shared library: rc %d, %d wrong\n", rc, bad);
    if (rc == 0 && bad == 0)
        printf("hipwire-cc shared library: ok\n");
    return rc != 0 || bad != 0;
}
