/*
 * fuzz_replay - the fuzz harness without libFuzzer, for every build.
 *
 *   fuzz_replay                      replay seeds + deterministic mutations
 *   fuzz_replay FILE_OR_DIR...       replay those inputs (e.g. a crash file)
 *   fuzz_replay --write-seeds DIR    write the seed corpus for libFuzzer
 *
 * The mutations are fixed by a constant seed, so a failure reproduces with
 * the same binary; the failing case's number is printed before it runs.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_session.h"
#include "hipr.h"

#define MUTATIONS 3000
#define MAX_CASE  (256u << 10)

static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

static int write_seeds(const char *dir)
{
    static uint8_t buf[MAX_CASE];
    char path[4096];
    if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
        perror(dir);
        return 1;
    }
    for (size_t i = 0; i < fuzz_seed_count(); i++) {
        size_t n = fuzz_seed_build(i, buf, sizeof buf);
        snprintf(path, sizeof path, "%s/seed-%02zu", dir, i);
        FILE *f = fopen(path, "wb");
        if (!n || !f || fwrite(buf, 1, n, f) != n || fclose(f) != 0) {
            fprintf(stderr, "fuzz_replay: cannot write %s\n", path);
            return 1;
        }
    }
    return 0;
}

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    static uint8_t buf[FUZZ_MAX_INPUT];
    if (!f) {
        perror(path);
        return 1;
    }
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    printf("replay %s (%zu bytes)\n", path, n);
    fflush(stdout);
    fuzz_session_run(buf, n);
    return 0;
}

static int replay_path(const char *path)
{
    struct stat st;
    char sub[4096];
    if (stat(path, &st) < 0) {
        perror(path);
        return 1;
    }
    if (!S_ISDIR(st.st_mode))
        return replay_file(path);
    DIR *d = opendir(path);
    struct dirent *e;
    int rc = 0;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        rc |= replay_path(sub);
    }
    if (d)
        closedir(d);
    return rc;
}

/* Values that sit on the boundaries the worker checks. */
static uint64_t interesting(void)
{
    static const uint64_t v[] = {
        0,
        1,
        2,
        7,
        8,
        255,
        256,
        4095,
        4096,
        4097,
        65535,
        65536,
        1u << 20,
        (1u << 20) + 1,
        UINT32_MAX,
        UINT64_C(1) << 32,
        UINT64_C(1) << 62,
        UINT64_C(1) << 63,
        UINT64_MAX,
        UINT64_MAX - 7,
        HIPR_FIRST_STREAM_ID,
        HIPR_CAP_COPY_CHUNK,
        HIPR_CAP_COPY_CHUNK + 1,
        FUZZ_PTR(0, 0),
        FUZZ_PTR(0, 4095),
        FUZZ_PTR(0, 4096),
        FUZZ_PTR(1, 0),
        FUZZ_PTR(0, 1u << 31),
    };
    return v[rnd() % (sizeof v / sizeof v[0])];
}

static size_t mutate(uint8_t *buf, size_t n, size_t cap)
{
    int rounds = 1 + (int)(rnd() % 8);
    for (int r = 0; r < rounds && n > 0; r++) {
        size_t at = (size_t)(rnd() % n);
        switch (rnd() % 7) {
        case 0: /* one random byte */ buf[at] = (uint8_t)rnd(); break;
        case 1: /* a boundary value over a u64 (any alignment) */
            if (at + 8 <= n)
                hipr_put_u64(buf + at, interesting());
            break;
        case 2: /* a boundary value over a u32 */
            if (at + 4 <= n)
                hipr_put_u32(buf + at, (uint32_t)interesting());
            break;
        case 3: /* truncate: a frame cut short */ n = at + 1; break;
        case 4: /* duplicate a chunk: repeated or misaligned frames */
        {
            size_t len = 1 + (size_t)(rnd() % 64);
            if (at + len <= n && n + len <= cap) {
                memmove(buf + at + len, buf + at, n - at);
                n += len;
            }
            break;
        }
        case 5: /* flip the auto-HELLO mode */ buf[0] ^= FUZZ_MODE_AUTO_HELLO; break;
        default: /* a bit flip */ buf[at] ^= (uint8_t)(1u << (rnd() % 8)); break;
        }
    }
    return n;
}

int main(int argc, char **argv)
{
    static uint8_t buf[MAX_CASE];
    if (argc == 3 && strcmp(argv[1], "--write-seeds") == 0)
        return write_seeds(argv[2]);
    if (argc > 1) {
        int rc = 0;
        for (int i = 1; i < argc; i++)
            rc |= replay_path(argv[i]);
        return rc;
    }
    size_t nseeds = fuzz_seed_count();
    for (size_t i = 0; i < nseeds; i++) {
        size_t n = fuzz_seed_build(i, buf, sizeof buf);
        if (!n) {
            fprintf(stderr, "fuzz_replay: seed %zu does not fit\n", i);
            return 1;
        }
        fuzz_session_run(buf, n);
    }
    printf("replayed %zu seeds\n", nseeds);
    for (int i = 0; i < MUTATIONS; i++) {
        size_t n;
        if (i % 10 == 9) { /* pure noise, sometimes behind a valid HELLO */
            n = 1 + (size_t)(rnd() % 512);
            for (size_t k = 0; k < n; k++)
                buf[k] = (uint8_t)rnd();
        } else {
            n = fuzz_seed_build((size_t)(rnd() % nseeds), buf, sizeof buf);
            n = mutate(buf, n, sizeof buf);
        }
        if (i % 500 == 0) {
            printf("case %d\n", i);
            fflush(stdout);
        }
        fuzz_session_run(buf, n);
    }
    printf("replayed %d deterministic mutations\n", MUTATIONS);
    return 0;
}
