/* hw_os_win32.c - hw_os.h on Windows (mingw-w64). */
#include "hw_os.h"
#include "hw_alloc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <windows.h>
#include <bcrypt.h>
#include <io.h>
#include <malloc.h>

const char *hw_os_strerror(int e)
{
    switch (e) {
    case ECONNREFUSED: return "Connection refused";
    case ECONNRESET: return "Connection reset by peer";
    case ECONNABORTED: return "Software caused connection abort";
    case ETIMEDOUT: return "Connection timed out";
    case EHOSTUNREACH: return "No route to host";
    case ENETUNREACH: return "Network is unreachable";
    case ENETDOWN: return "Network is down";
    case ENOTCONN: return "Transport endpoint is not connected";
    case EPROTO: return "Protocol error";
    case EHOSTDOWN: return "Host is down";
    case ENOBUFS: return "No buffer space available";
    case EINPROGRESS: return "Operation now in progress";
    default: return strerror(e);
    }
}

void hw_os_keep_loaded(void)
{
    HMODULE self;
    GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_PIN,
                       (LPCWSTR)(uintptr_t)&hw_os_keep_loaded, &self);
}

int hw_os_pid(void)
{
    return (int)GetCurrentProcessId();
}

size_t hw_os_page_size(void)
{
    SYSTEM_INFO si;
    GetSystemInfo(&si);
    return si.dwPageSize ? si.dwPageSize : 4096;
}

uint64_t hw_os_phys_mem(void)
{
    MEMORYSTATUSEX ms = { .dwLength = sizeof ms };
    return GlobalMemoryStatusEx(&ms) ? ms.ullTotalPhys : 0;
}

void hw_os_write_stderr(const void *buf, size_t len)
{
    fwrite(buf, 1, len, stderr);
    fflush(stderr);
}

int hw_os_random(void *buf, size_t n)
{
    uint8_t *p = buf;
    while (n > 0) {
        ULONG chunk = n > 0x40000000u ? 0x40000000u : (ULONG)n;
        if (!BCRYPT_SUCCESS(BCryptGenRandom(NULL, p, chunk, BCRYPT_USE_SYSTEM_PREFERRED_RNG))) {
            errno = EIO;
            return -1;
        }
        p += chunk;
        n -= chunk;
    }
    return 0;
}

int hw_os_mapped(const void *p, size_t n)
{
    uintptr_t a = (uintptr_t)p, end = a + n;
    if (end < a)
        return 0;
    while (a < end) {
        MEMORY_BASIC_INFORMATION mbi;
        if (VirtualQuery((const void *)a, &mbi, sizeof mbi) == 0 || mbi.State != MEM_COMMIT)
            return 0;
        a = (uintptr_t)mbi.BaseAddress + mbi.RegionSize;
    }
    return 1;
}

void *hw_os_aligned_alloc(size_t align, size_t n)
{
    return hw_alloc_fault() ? NULL : _aligned_malloc(n, align);
}

void hw_os_aligned_free(void *p)
{
    _aligned_free(p);
}

void hw_os_sleep_ms(int ms)
{
    Sleep(ms > 0 ? (DWORD)ms : 0);
}

long hw_os_read_small_file(const char *path, void *buf, size_t cap, char *why, size_t why_len)
{
    DWORD attr = GetFileAttributesA(path);
    if (attr == INVALID_FILE_ATTRIBUTES) {
        snprintf(why, why_len, "cannot open %s: %s", path, strerror(ENOENT));
        return -1;
    }
    if (attr & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_DEVICE)) {
        snprintf(why, why_len, "%s is not a regular file", path);
        return -1;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(why, why_len, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    size_t n = fread(buf, 1, cap, f);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        snprintf(why, why_len, "cannot read %s", path);
        return -1;
    }
    return (long)n;
}
