/* hw_os_posix.c - hw_os.h on Linux. */
#include "hw_os.h"
#include "hw_alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *hw_os_strerror(int e)
{
    return strerror(e);
}

/* The proxy is linked with -z nodelete (src/client/CMakeLists.txt). */
void hw_os_keep_loaded(void) {}

int hw_os_pid(void)
{
    return (int)getpid();
}

size_t hw_os_page_size(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    return pg > 0 ? (size_t)pg : 4096;
}

uint64_t hw_os_phys_mem(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), pg = sysconf(_SC_PAGESIZE);
    return pages > 0 && pg > 0 ? (uint64_t)pages * (uint64_t)pg : 0;
}

void hw_os_write_stderr(const void *buf, size_t len)
{
    ssize_t w = write(STDERR_FILENO, buf, len);
    (void)w;
}

int hw_os_random(void *buf, size_t n)
{
    uint8_t *p = buf;
    while (n > 0) {
        ssize_t r = getrandom(p, n, 0);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

int hw_os_mapped(const void *p, size_t n)
{
    size_t pg = hw_os_page_size();
    uintptr_t a = (uintptr_t)p & ~((uintptr_t)pg - 1), end = (uintptr_t)p + n;
    if (end < (uintptr_t)p)
        return 0;
    unsigned char vec[64];
    while (a < end) {
        size_t len = end - a < 64 * pg ? end - a : 64 * pg;
        if (mincore((void *)a, len, vec) != 0)
            return 0;
        a += (len + pg - 1) & ~(pg - 1);
    }
    return 1;
}

void *hw_os_aligned_alloc(size_t align, size_t n)
{
    void *p = NULL;
    if (hw_alloc_fault())
        return NULL;
    return posix_memalign(&p, align, n) == 0 ? p : NULL;
}

void hw_os_aligned_free(void *p)
{
    free(p);
}

void hw_os_sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

long hw_os_read_small_file(const char *path, void *buf, size_t cap, char *why, size_t why_len)
{
    struct stat st;
    size_t n = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, why_len, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, why_len, "%s is not a regular file", path);
        close(fd);
        return -1;
    }
    for (;;) {
        ssize_t r = read(fd, (char *)buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            snprintf(why, why_len, "cannot read %s: %s", path, strerror(errno));
            close(fd);
            return -1;
        }
        if (r == 0 || n + (size_t)r == cap) {
            n += (size_t)r;
            break;
        }
        n += (size_t)r;
    }
    close(fd);
    return (long)n;
}
