/*
 * test_msvc_link.c - a program linked the way MSVC links one: by lld-link
 * (link.exe's command line and rules) against the MSVC-format import
 * libraries amdhip64.lib and hiprtc.lib, with no C runtime at all, so no
 * mingw library takes part. It calls the proxy through a dllimport pointer
 * (__imp_hipGetDeviceCount), through an import thunk (hipRuntimeGetVersion,
 * declared without dllimport) and calls the hiprtc DLL, then says so.
 * Built by tests/windows/CMakeLists.txt with clang --target=*-windows-msvc.
 */
typedef int hipError_t;
typedef int hiprtcResult;

__declspec(dllimport) hipError_t hipGetDeviceCount(int *count);
hipError_t hipRuntimeGetVersion(int *version); /* through the thunk */
__declspec(dllimport) hiprtcResult hiprtcVersion(int *major, int *minor);

__declspec(dllimport) void *__stdcall GetStdHandle(unsigned long which);
__declspec(dllimport) int __stdcall WriteFile(void *h, const void *buf, unsigned long n,
                                              unsigned long *done, void *overlapped);
__declspec(dllimport) void __stdcall ExitProcess(unsigned code);

#define STD_OUTPUT_HANDLE ((unsigned long)-11)

static char line[256];
static unsigned long len;

static void put(const char *s)
{
    while (*s && len < sizeof line - 1)
        line[len++] = *s++;
}

static void put_int(int v)
{
    char d[16];
    int n = 0;
    if (v < 0) {
        put("-");
        v = -v;
    }
    do
        d[n++] = (char)('0' + v % 10);
    while ((v /= 10) > 0 && n < 15);
    while (n > 0) {
        char c[2] = { d[--n], 0 };
        put(c);
    }
}

void __stdcall start(void)
{
    int count = -1, version = -1, major = -1, minor = -1;
    hipError_t e1 = hipGetDeviceCount(&count);
    hipError_t e2 = hipRuntimeGetVersion(&version);
    hiprtcResult e3 = hiprtcVersion(&major, &minor);
    int ok = e1 == 0 && count > 0 && e2 == 0 && version > 0 && e3 == 0 && major > 0;
    put("msvc link: ");
    put_int(count);
    put(" devices, runtime ");
    put_int(version);
    put(", hiprtc ");
    put_int(major);
    put(".");
    put_int(minor);
    put(ok ? ": ok\n" : ": FAILED\n");
    unsigned long done = 0;
    WriteFile(GetStdHandle(STD_OUTPUT_HANDLE), line, len, &done, 0);
    ExitProcess(ok ? 0 : 1);
}
