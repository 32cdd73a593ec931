/*
 * hw_os.h - what the client side needs from the operating system beyond
 * ISO C and pthreads, so the same client sources build for Linux and, with
 * mingw-w64, for Windows (docs/windows.md). One implementation per system:
 * hw_os_posix.c and hw_os_win32.c; sockets are in hw_net.c / hw_net_win32.c.
 */
#ifndef HW_OS_H
#define HW_OS_H

#include <stddef.h>
#include <stdint.h>

#ifdef _WIN32
/* The writev() vector; hw_net_win32.c sends it with WSASend. */
struct iovec {
    void *iov_base;
    size_t iov_len;
};
/* Not in mingw's errno.h; hipwire only sets and compares it. */
#ifndef EHOSTDOWN
#define EHOSTDOWN 1112
#endif
/* A DLL's destructors run inside DllMain, under the loader lock, where no
 * lock may be taken and no network I/O done: on Windows the exit hook is
 * not a destructor (docs/windows.md, "Exit"). */
#define HW_OS_EXIT_HOOK __attribute__((unused))
/* pthread key destructors of threads pthreads did not create run from
 * winpthreads' thread-detach callback, under the loader lock: they must
 * not do network I/O. */
#define HW_OS_KEY_DTOR_LOCKED 1
#else
#define HW_OS_KEY_DTOR_LOCKED 0
#include <sys/uio.h>
#define HW_OS_EXIT_HOOK __attribute__((destructor))
#endif

/* strerror() that also names the socket errors (Windows' C runtime knows
 * only the classic errno values). */
const char *hw_os_strerror(int e);
/* Keeps the library holding this code loaded until the process ends: its
 * threads (heartbeat, resume) run its code, so unloading it (FreeLibrary)
 * would pull code from under them. A no-op where libraries stay loaded
 * anyway (the proxy is a dependency of the program on Linux). */
void hw_os_keep_loaded(void);
/* The process id, for log lines and the worker's session list. */
int hw_os_pid(void);
/* The page size in bytes. */
size_t hw_os_page_size(void);
/* Physical memory in bytes, 0 when unknown. */
uint64_t hw_os_phys_mem(void);
/* Writes the whole buffer to standard error in one call where possible. */
void hw_os_write_stderr(const void *buf, size_t len);
/* n cryptographically random bytes. 0, or -1 (errno set). */
int hw_os_random(void *buf, size_t n);
/* 1 when every page of [p, p+n) is mapped in this process, else 0. */
int hw_os_mapped(const void *p, size_t n);
/* Page-aligned memory (hipHostMalloc); freed only with hw_os_aligned_free. */
void *hw_os_aligned_alloc(size_t align, size_t n);
void hw_os_aligned_free(void *p);
/* Sleeps ms milliseconds. */
void hw_os_sleep_ms(int ms);
/* Whole regular file `path` into buf (at most cap bytes): its length, or -1
 * with a reason in why (not a regular file, unreadable). */
long hw_os_read_small_file(const char *path, void *buf, size_t cap, char *why, size_t why_len);

#endif
