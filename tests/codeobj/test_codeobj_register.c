/*
 * test_codeobj_register - the run-time path of the proxy, without the
 * proxy: dlopen a hipcc-built shared library whose module constructor calls
 * __hipRegisterFatBinary/__hipRegisterFunction/__hipRegisterVar, defined
 * here (this executable exports them). Given only the wrapper's address,
 * find and size the image, open its bundle, and check that every kernel the
 * program registered is described by each target's metadata.
 *
 *   test_codeobj_register LIB.so ARCH...
 */
#include "codeobj.h"
#include "test_files.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>

#define MAX_REG 64
static const void *g_wrapper;
static int g_fatbins, g_unregistered;
static const char *g_funcs[MAX_REG];
static int g_nfuncs;
static const char *g_vars[MAX_REG];
static size_t g_var_sizes[MAX_REG];
static int g_nvars;
static void *g_handle_token[1];

/* The HIP runtime entry points a hipcc module constructor calls. The
 * signatures are those of HIP's hip_runtime_api ABI, with pointers whose
 * types this test does not need kept as void *. */
void **__hipRegisterFatBinary(const void *data);
void **__hipRegisterFatBinary(const void *data)
{
    g_wrapper = data;
    g_fatbins++;
    return g_handle_token;
}

void __hipRegisterFunction(void **modules, const void *host_function, char *device_function,
                           const char *device_name, unsigned int thread_limit, void *tid, void *bid,
                           void *block_dim, void *grid_dim, int *wsize);
void __hipRegisterFunction(void **modules, const void *host_function, char *device_function,
                           const char *device_name, unsigned int thread_limit, void *tid, void *bid,
                           void *block_dim, void *grid_dim, int *wsize)
{
    if (modules == g_handle_token && g_nfuncs < MAX_REG)
        g_funcs[g_nfuncs++] = device_name;
}

void __hipRegisterVar(void **modules, void *var, char *host_var, char *device_var, int ext,
                      size_t size, int constant, int global);
void __hipRegisterVar(void **modules, void *var, char *host_var, char *device_var, int ext,
                      size_t size, int constant, int global)
{
    if (modules == g_handle_token && g_nvars < MAX_REG) {
        g_var_sizes[g_nvars] = size;
        g_vars[g_nvars++] = device_var;
    }
}

void __hipUnregisterFatBinary(void **modules);
void __hipUnregisterFatBinary(void **modules)
{
    g_unregistered++;
}

/* Referenced by the kernel stubs; never called here. */
int hipLaunchKernel(const void *f, ...);
int hipLaunchKernel(const void *f, ...)
{
    return 1;
}
int __hipPopCallConfiguration(void *a, void *b, void *c, void *d);
int __hipPopCallConfiguration(void *a, void *b, void *c, void *d)
{
    return 1;
}

static int failures;
#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                   \
            fputc('\n', stderr);                                            \
            failures++;                                                     \
        }                                                                   \
    } while (0)

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s LIB.so ARCH...\n", argv[0]);
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    CHECK(g_fatbins == 1 && g_wrapper, "%d fat binaries registered", g_fatbins);
    if (failures)
        return 1;
    CHECK(g_nfuncs == 11, "%d kernels registered, kernels.hip has 11", g_nfuncs);
    CHECK(g_nvars == 2, "%d variables registered", g_nvars);

    hw_cob_err err = { { 0 } };
    const void *bin = NULL;
    CHECK(hw_cob_wrapper_binary(g_wrapper, &bin, &err) == 0, "%s", err.msg);
    uint64_t isz = 0;
    CHECK(bin && hw_cob_image_size(bin, SIZE_MAX, &isz, &err) == 0, "%s", err.msg);

    /* The same bytes as the library file's .hip_fatbin section. */
    size_t flen;
    uint8_t *file = tf_read(argv[1], &flen);
    const uint8_t *sec = NULL;
    size_t seclen = 0;
    CHECK(file && tf_host_fatbin(file, flen, &sec, &seclen) == 0, "no section");
    if (failures)
        goto out;
    CHECK(isz <= seclen && memcmp(bin, sec, (size_t)isz) == 0,
          "image at the wrapper's pointer (%llu bytes) differs from the file's "
          ".hip_fatbin (%zu bytes)",
          (unsigned long long)isz, seclen);

    hw_cob_bundle b;
    CHECK(hw_cob_bundle_open(bin, (size_t)isz, 0, &b, &err) == 0, "%s", err.msg);
    if (failures)
        goto out;
    for (int a = 2; a < argc; a++) {
        const hw_cob_entry *e = hw_cob_bundle_find(&b, argv[a]);
        CHECK(e, "no %s entry", argv[a]);
        if (!e)
            continue;
        hw_cob_metadata m;
        if (hw_cob_elf_metadata(hw_cob_entry_data(&b, e), (size_t)e->size, &m, &err)) {
            CHECK(0, "[%s] %s", argv[a], err.msg);
            continue;
        }
        CHECK(m.nkernels == (uint32_t)g_nfuncs,
              "[%s] %u kernels in metadata, "
              "%d registered",
              argv[a], m.nkernels, g_nfuncs);
        for (int f = 0; f < g_nfuncs; f++) {
            const hw_cob_kernel *kn = hw_cob_find_kernel(&m, g_funcs[f]);
            CHECK(kn && strcmp(kn->name, g_funcs[f]) == 0,
                  "[%s] registered kernel %s not in metadata", argv[a], g_funcs[f]);
        }
        printf("%s: %d registered kernels all described (%u bytes of "
               "code object)\n",
               argv[a], g_nfuncs, (unsigned)e->size);
        hw_cob_metadata_free(&m);
    }
    hw_cob_bundle_close(&b);
    for (int v = 0; v < g_nvars; v++)
        printf("registered variable %s (%zu bytes)\n", g_vars[v], g_var_sizes[v]);
out:
    free(file);
    dlclose(lib);
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}
