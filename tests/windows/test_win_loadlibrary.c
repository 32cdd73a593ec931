/*
 * test_win_loadlibrary - the proxy DLL loaded at run time, as PyTorch and
 * Orochi-style loaders do: LoadLibrary by the name AMD's install uses,
 * GetProcAddress of the API, a round trip through the worker, hiprtc from
 * its own DLL, then FreeLibrary while the connection's threads still run
 * (TF_WORKER_HEARTBEAT=100: the heartbeat thread runs every 100 ms). The
 * proxy must have kept itself loaded: the process then runs on and exits 0.
 */
#include <stdint.h>
#include <string.h>

#include <hip/hip_runtime_api.h>
#include <hip/hiprtc.h>
#include <windows.h>

#include "testutil.h"

typedef hipError_t (*count_fn)(int *);
typedef hipError_t (*malloc_fn)(void **, size_t);
typedef hipError_t (*memcpy_fn)(void *, const void *, size_t, hipMemcpyKind);
typedef hipError_t (*free_fn)(void *);
typedef hiprtcResult (*rtc_version_fn)(int *, int *);

/* HIP_CHECK would link hipGetErrorName: this program imports nothing from
 * the proxy. */
#define CHECK_OK(call) CHECK_EQ((call), hipSuccess)

/* GetProcAddress returns FARPROC; ISO C converts between function types. */
#define SYM(h, type, name) ((type)(void (*)(void))GetProcAddress(h, name))

int main(void)
{
    HMODULE hip = LoadLibraryA(HIPWIRE_HIP_DLL);
    CHECK(hip != NULL);
    count_fn count = SYM(hip, count_fn, "hipGetDeviceCount");
    malloc_fn dmalloc = SYM(hip, malloc_fn, "hipMalloc");
    memcpy_fn copy = SYM(hip, memcpy_fn, "hipMemcpy");
    free_fn dfree = SYM(hip, free_fn, "hipFree");
    CHECK(count && dmalloc && copy && dfree);
    CHECK(GetProcAddress(hip, "hipNoSuchFunction") == NULL);

    int n = 0;
    CHECK_OK(count(&n));
    CHECK_EQ(n, 1);
    char src[4096], back[4096];
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (char)(i * 7 + 3);
    void *d = NULL;
    CHECK_OK(dmalloc(&d, sizeof src));
    CHECK_OK(copy(d, src, sizeof src, hipMemcpyHostToDevice));
    memset(back, 0, sizeof back);
    CHECK_OK(copy(back, d, sizeof back, hipMemcpyDeviceToHost));
    CHECK(memcmp(src, back, sizeof src) == 0);
    CHECK_OK(dfree(d));

    HMODULE rtc = LoadLibraryA(HIPWIRE_HIPRTC_DLL);
    CHECK(rtc != NULL);
    rtc_version_fn version = SYM(rtc, rtc_version_fn, "hiprtcVersion");
    CHECK(version != NULL);
    int major = -1, minor = -1;
    CHECK(version(&major, &minor) == HIPRTC_SUCCESS);
    CHECK_EQ(major, HIP_VERSION_MAJOR);

    CHECK(FreeLibrary(rtc));
    CHECK(FreeLibrary(hip));
    Sleep(600); /* several heartbeats after the program let go */
    printf("windows LoadLibrary: %s and %s by name, FreeLibrary with threads running: ok\n",
           HIPWIRE_HIP_DLL, HIPWIRE_HIPRTC_DLL);
    return 0;
}
