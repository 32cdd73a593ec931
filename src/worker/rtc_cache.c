/*
 * rtc_cache.c - the compiled-kernel cache shared by a worker's sessions
 * (contract in rtc_cache.h).
 *
 * Entry file <hex key>.rtc:
 *   "HWRTCC1\0", u32 result, u32 name_count, u64 code_size, u64 log_size,
 *   u64 names_size, code, log, names (name_count NUL-terminated strings,
 *   "" for a name the compiler did not have), then the SHA-256 of all of
 *   the above. Little-endian (the host's: the directory is the worker's).
 */
#include "rtc_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hw_alloc.h"
#include "cuda_rtc.h"
#include "hw_log.h"
#include "hw_sha256.h"
#include "hipr.h"
#include "rtc_prelude.h"

#define MAGIC     "HWRTCC1"
#define HEAD_SIZE (8 + 4 + 4 + 8 + 8 + 8)
#define SUFFIX    ".rtc"
#define MAX_ENTRY (HIPR_CAP_RTC_CODE + HIPR_CAP_RTC_LOG + HIPR_CAP_RTC_NAMES * HIPR_CAP_NAME + 4096)

struct rtc_cache {
    char dir[PATH_MAX];
    uint64_t max_bytes;
    uint8_t salt[HW_SHA256_LEN]; /* the worker's version and preludes */
    struct rtc_cache_stats *st;  /* MAP_SHARED */
};

static void add_field(struct hw_sha256 *h, const void *p, size_t n)
{
    uint64_t len = n;
    hw_sha256_update(h, &len, sizeof len);
    hw_sha256_update(h, p, n);
}

static void add_str(struct hw_sha256 *h, const char *s)
{
    add_field(h, s ? s : "", s ? strlen(s) : 0);
}

/* Whatever makes this build compile differently from another: a new
 * prelude gives new keys, so stale entries are never used (they age out). */
static void make_salt(uint8_t out[HW_SHA256_LEN])
{
    struct hw_sha256 h;
    hw_sha256_init(&h);
    add_str(&h, "hipwire rtc cache 1");
    add_str(&h, HIPWIRE_VERSION);
    for (size_t i = 0; i < rtc_prelude_count; i++) {
        add_str(&h, rtc_prelude_files[i].path);
        add_field(&h, rtc_prelude_files[i].data, rtc_prelude_files[i].size);
    }
    for (int i = 0; i < hw_cuda_rtc_prelude_count; i++) {
        add_str(&h, hw_cuda_rtc_prelude_names[i]);
        add_str(&h, hw_cuda_rtc_prelude_texts[i]);
    }
    hw_sha256_final(&h, out);
}

static int mkdirs(const char *path)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0700) < 0 && errno != EEXIST)
            return -1;
        *s = '/';
    }
    return mkdir(p, 0700) < 0 && errno != EEXIST ? -1 : 0;
}

static void evict(struct rtc_cache *c);

struct rtc_cache *rtc_cache_create(const char *dir, uint64_t max_bytes)
{
    if (strlen(dir) >= PATH_MAX - 80 || mkdirs(dir) < 0) {
        hw_error("--rtc-cache-dir %s: %s", dir, strerror(errno ? errno : ENAMETOOLONG));
        return NULL;
    }
    struct rtc_cache *c = hw_calloc(1, sizeof *c);
    void *page =
        mmap(NULL, sizeof *c->st, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (!c || page == MAP_FAILED) {
        free(c);
        if (page != MAP_FAILED)
            munmap(page, sizeof *c->st);
        hw_error("out of memory");
        return NULL;
    }
    snprintf(c->dir, sizeof c->dir, "%s", dir);
    c->max_bytes = max_bytes;
    c->st = page;
    c->st->max_bytes = max_bytes;
    make_salt(c->salt);
    evict(c); /* counts what an earlier worker left, within the bound */
    return c;
}

void rtc_cache_destroy(struct rtc_cache *c)
{
    if (!c)
        return;
    munmap(c->st, sizeof *c->st);
    free(c);
}

void rtc_cache_key(const struct hw_rtc_input *in, const char *device,
                   uint8_t key[RTC_CACHE_KEY_LEN])
{
    struct hw_sha256 h;
    hw_sha256_init(&h);
    add_str(&h, device);
    add_str(&h, in->name);
    add_str(&h, in->source);
    uint64_t n = in->header_count;
    hw_sha256_update(&h, &n, sizeof n);
    for (uint32_t i = 0; i < in->header_count; i++) {
        add_str(&h, in->header_names[i]);
        add_str(&h, in->headers[i]);
    }
    n = in->option_count;
    hw_sha256_update(&h, &n, sizeof n);
    for (uint32_t i = 0; i < in->option_count; i++)
        add_str(&h, in->options[i]);
    n = in->name_count;
    hw_sha256_update(&h, &n, sizeof n);
    for (uint32_t i = 0; i < in->name_count; i++)
        add_str(&h, in->name_exprs[i]);
    hw_sha256_final(&h, key);
}

/* <dir>/<hex of key salted>.rtc */
static void entry_path(const struct rtc_cache *c, const uint8_t key[RTC_CACHE_KEY_LEN], char *out,
                       size_t cap)
{
    uint8_t full[HW_SHA256_LEN];
    struct hw_sha256 h;
    hw_sha256_init(&h);
    hw_sha256_update(&h, c->salt, sizeof c->salt);
    hw_sha256_update(&h, key, RTC_CACHE_KEY_LEN);
    hw_sha256_final(&h, full);
    /* dir is at most PATH_MAX - 80 bytes (rtc_cache_create), the rest 69 */
    size_t n = strlen(c->dir);
    if (n + 2 + 2 * HW_SHA256_LEN + sizeof SUFFIX > cap) {
        out[0] = '\0';
        return;
    }
    memcpy(out, c->dir, n);
    out[n++] = '/';
    for (int i = 0; i < HW_SHA256_LEN; i++) {
        out[n++] = "0123456789abcdef"[full[i] >> 4];
        out[n++] = "0123456789abcdef"[full[i] & 15];
    }
    memcpy(out + n, SUFFIX, sizeof SUFFIX);
}

static uint32_t get_u32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static uint64_t get_u64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* Reads a whole entry of at most MAX_ENTRY bytes; NULL if absent or
 * larger. Touches its times: recently used. */
static uint8_t *read_entry(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return NULL;
    struct stat st;
    uint8_t *buf = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size <= MAX_ENTRY &&
        (buf = hw_malloc(st.st_size ? (size_t)st.st_size : 1))) {
        size_t got = 0;
        while (got < (size_t)st.st_size) {
            ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
            if (r <= 0)
                break;
            got += (size_t)r;
        }
        if (got != (size_t)st.st_size) {
            free(buf);
            buf = NULL;
        } else {
            *len = got;
            futimens(fd, NULL);
        }
    }
    close(fd);
    return buf;
}

/* 0 when buf is a whole, undamaged entry for name_count names. */
static int check_entry(const uint8_t *buf, size_t len, uint32_t name_count)
{
    if (len < HEAD_SIZE + HW_SHA256_LEN || memcmp(buf, MAGIC, 8) != 0 ||
        get_u32(buf + 12) != name_count)
        return -1;
    uint64_t code = get_u64(buf + 16), log = get_u64(buf + 24), names = get_u64(buf + 32);
    if (code > MAX_ENTRY || log > MAX_ENTRY || names > MAX_ENTRY ||
        HEAD_SIZE + code + log + names + HW_SHA256_LEN != len)
        return -1;
    uint8_t sum[HW_SHA256_LEN];
    struct hw_sha256 h;
    hw_sha256_init(&h);
    hw_sha256_update(&h, buf, len - HW_SHA256_LEN);
    hw_sha256_final(&h, sum);
    if (memcmp(sum, buf + len - HW_SHA256_LEN, HW_SHA256_LEN) != 0)
        return -1;
    /* exactly name_count strings */
    const uint8_t *p = buf + HEAD_SIZE + code + log, *end = p + names;
    for (uint32_t i = 0; i < name_count; i++) {
        const uint8_t *nul = memchr(p, '\0', (size_t)(end - p));
        if (!nul)
            return -1;
        p = nul + 1;
    }
    return p == end ? 0 : -1;
}

int rtc_cache_get(struct rtc_cache *c, const uint8_t key[RTC_CACHE_KEY_LEN], uint32_t name_count,
                  struct hw_rtc_output *out)
{
    char path[PATH_MAX];
    entry_path(c, key, path, sizeof path);
    size_t len = 0;
    uint8_t *buf = read_entry(path, &len);
    if (buf && check_entry(buf, len, name_count) < 0) {
        hw_warn("rtc cache: %s is damaged; removed, the program is compiled again", path);
        unlink(path);
        __atomic_add_fetch(&c->st->damaged, 1, __ATOMIC_RELAXED);
        free(buf);
        buf = NULL;
    }
    if (!buf) {
        __atomic_add_fetch(&c->st->misses, 1, __ATOMIC_RELAXED);
        return 0;
    }
    uint64_t code = get_u64(buf + 16), log = get_u64(buf + 24);
    struct hw_rtc_output r;
    memset(&r, 0, sizeof r);
    r.result = (int)get_u32(buf + 8);
    r.code_size = code;
    r.log_size = log;
    r.code = hw_malloc(code ? code : 1);
    r.log = hw_malloc(log + 1);
    r.lowered = name_count ? hw_calloc(name_count, sizeof *r.lowered) : NULL;
    int ok = r.code && r.log && (!name_count || r.lowered);
    const char *names = (const char *)buf + HEAD_SIZE + code + log;
    for (uint32_t i = 0; ok && i < name_count; i++) {
        if (*names && !(r.lowered[i] = hw_strdup(names)))
            ok = 0;
        names += strlen(names) + 1;
    }
    if (ok) {
        memcpy(r.code, buf + HEAD_SIZE, code);
        memcpy(r.log, buf + HEAD_SIZE + code, log);
        r.log[log] = '\0';
        *out = r;
        __atomic_add_fetch(&c->st->hits, 1, __ATOMIC_RELAXED);
    } else {
        for (uint32_t i = 0; r.lowered && i < name_count; i++)
            free(r.lowered[i]);
        free(r.lowered);
        free(r.code);
        free(r.log);
        __atomic_add_fetch(&c->st->misses, 1, __ATOMIC_RELAXED);
    }
    free(buf);
    return ok;
}

static void put_u32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, sizeof v);
}

static void put_u64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, sizeof v);
}

void rtc_cache_put(struct rtc_cache *c, const uint8_t key[RTC_CACHE_KEY_LEN], uint32_t name_count,
                   const struct hw_rtc_output *out)
{
    if (out->result != 0 || out->code_size > HIPR_CAP_RTC_CODE || out->log_size > HIPR_CAP_RTC_LOG)
        return;
    uint64_t names = 0;
    for (uint32_t i = 0; i < name_count; i++)
        names += (out->lowered && out->lowered[i] ? strlen(out->lowered[i]) : 0) + 1;
    size_t len = HEAD_SIZE + out->code_size + out->log_size + names + HW_SHA256_LEN;
    if (len > c->max_bytes)
        return; /* would evict everything, itself included */
    uint8_t *buf = hw_malloc(len);
    if (!buf)
        return;
    memcpy(buf, MAGIC, 8);
    put_u32(buf + 8, (uint32_t)out->result);
    put_u32(buf + 12, name_count);
    put_u64(buf + 16, out->code_size);
    put_u64(buf + 24, out->log_size);
    put_u64(buf + 32, names);
    uint8_t *p = buf + HEAD_SIZE;
    memcpy(p, out->code, out->code_size);
    p += out->code_size;
    if (out->log_size)
        memcpy(p, out->log, out->log_size);
    p += out->log_size;
    for (uint32_t i = 0; i < name_count; i++) {
        const char *s = out->lowered && out->lowered[i] ? out->lowered[i] : "";
        size_t n = strlen(s) + 1;
        memcpy(p, s, n);
        p += n;
    }
    struct hw_sha256 h;
    hw_sha256_init(&h);
    hw_sha256_update(&h, buf, len - HW_SHA256_LEN);
    hw_sha256_final(&h, p);

    char path[PATH_MAX], tmp[PATH_MAX + 64];
    entry_path(c, key, path, sizeof path);
    static unsigned seq;
    snprintf(tmp, sizeof tmp, "%s/.tmp.%ld.%u", c->dir, (long)getpid(),
             __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED));
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    size_t done = 0;
    while (fd >= 0 && done < len) {
        ssize_t w = write(fd, buf + done, len - done);
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    free(buf);
    if (fd < 0 || close(fd) < 0 || done != len || rename(tmp, path) < 0) {
        hw_warn("rtc cache: cannot store an entry in %s: %s", c->dir, strerror(errno));
        unlink(tmp);
        return;
    }
    __atomic_add_fetch(&c->st->stores, 1, __ATOMIC_RELAXED);
    evict(c);
}

struct file_age {
    char name[80];
    struct timespec used;
    uint64_t size;
};

static int older_first(const void *a, const void *b)
{
    const struct file_age *x = a, *y = b;
    if (x->used.tv_sec != y->used.tv_sec)
        return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
    if (x->used.tv_nsec != y->used.tv_nsec)
        return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
    return 0;
}

/* Removes the least recently used entries until the directory is within
 * its bound; records what is left. Races with other sessions only cost an
 * entry that was about to go anyway. */
static void evict(struct rtc_cache *c)
{
    DIR *d = opendir(c->dir);
    if (!d)
        return;
    size_t n = 0, cap = 0;
    struct file_age *v = NULL;
    uint64_t total = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t nl = strlen(e->d_name);
        struct stat st;
        if (nl <= strlen(SUFFIX) || nl >= sizeof v->name ||
            strcmp(e->d_name + nl - strlen(SUFFIX), SUFFIX) != 0 ||
            fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            struct file_age *nv = hw_realloc(v, cap * sizeof *v);
            if (!nv)
                break;
            v = nv;
        }
        memcpy(v[n].name, e->d_name, nl + 1); /* nl < sizeof name, checked above */
        v[n].used = st.st_mtim;
        v[n].size = (uint64_t)st.st_size;
        total += v[n].size;
        n++;
    }
    if (total > c->max_bytes && n) {
        qsort(v, n, sizeof *v, older_first);
        for (size_t i = 0; i < n && total > c->max_bytes; i++) {
            if (unlinkat(dirfd(d), v[i].name, 0) == 0) {
                __atomic_add_fetch(&c->st->evictions, 1, __ATOMIC_RELAXED);
                hw_debug("rtc cache: evicted %s (%llu bytes)", v[i].name,
                         (unsigned long long)v[i].size);
            }
            total -= v[i].size;
            v[i].size = UINT64_MAX; /* gone */
        }
    }
    uint64_t entries = 0;
    for (size_t i = 0; i < n; i++)
        entries += v[i].size != UINT64_MAX;
    __atomic_store_n(&c->st->bytes, total, __ATOMIC_RELAXED);
    __atomic_store_n(&c->st->entries, entries, __ATOMIC_RELAXED);
    free(v);
    closedir(d);
}

void rtc_cache_stats(const struct rtc_cache *c, struct rtc_cache_stats *out)
{
    struct rtc_cache_stats s;
    s.hits = __atomic_load_n(&c->st->hits, __ATOMIC_RELAXED);
    s.misses = __atomic_load_n(&c->st->misses, __ATOMIC_RELAXED);
    s.stores = __atomic_load_n(&c->st->stores, __ATOMIC_RELAXED);
    s.evictions = __atomic_load_n(&c->st->evictions, __ATOMIC_RELAXED);
    s.damaged = __atomic_load_n(&c->st->damaged, __ATOMIC_RELAXED);
    s.bytes = __atomic_load_n(&c->st->bytes, __ATOMIC_RELAXED);
    s.entries = __atomic_load_n(&c->st->entries, __ATOMIC_RELAXED);
    s.max_bytes = c->max_bytes;
    *out = s;
}
