/*
 * bench_transport.c - `hipwire-bench --transports`: the same-host
 * shared-memory transport against TCP loopback, raw TCP and a local memcpy
 * (docs/benchmarks.md, "Transports").
 *
 * The proxy holds one connection per process, so each transport runs in a
 * child process (this program again, with --transport-child and
 * TF_TRANSPORT set) that times hipDeviceSynchronize and hipMemcpy in both
 * directions, from pageable memory and from hipHostMalloc memory (which a
 * shared-memory session shares with the worker: no trip through the rings),
 * and prints one line per number; the parent times the
 * raw socket and memcpy itself. Children of both kinds alternate for a few
 * rounds and the best round of each counts, so a neighbour's load on a
 * shared machine is less likely to decide a ratio.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hip/hip_runtime_api.h>

#include "bench.h"

#define TR_SIZES     8
#define TR_SYNC_N    3000
#define TR_TARGET_US 5.0 /* same-host sync call p50 */
#define TR_MEMCPY    0.8 /* same-host copies >= 0.8 x a local memcpy (CPU device) */
#define TR_ITER_MAX  200
#define TR_TCP_RAW   0.9 /* TCP copies >= 0.9 x raw TCP from 256 KiB (item 2) */

static const size_t tr_sizes[TR_SIZES] = { 4u << 10, 64u << 10, 256u << 10, 1u << 20,
                                           4u << 20, 16u << 20, 64u << 20,  256u << 20 };

/* Each transport's child fills two columns: pageable memory, then pinned
 * (hipHostMalloc) memory. */
enum { T_SHM, T_SHM_PIN, T_TCP, T_TCP_PIN, T_RAW, T_MEMCPY, T_COUNT };
static const char *const t_names[T_COUNT] = { "shm",     "shm-pin", "tcp",
                                              "tcp-pin", "raw-tcp", "memcpy" };

struct tr_result {
    double sync_p50_us[T_COUNT];
    double gbps[T_COUNT][DIR_COUNT][TR_SIZES];
};

static size_t iterations_for(size_t size, int quick)
{
    size_t budget = (quick ? 64u : 256u) << 20; /* bytes per size and direction */
    size_t n = budget / size;
    if (n < 3)
        n = 3;
    if (n > TR_ITER_MAX)
        n = TR_ITER_MAX;
    return n;
}

static double median(double *v, size_t n)
{
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n ? v[n / 2] : 0;
}

/* ---- the child: one transport, through the proxy ---------------------------- */

static int child_main(int nsizes, int quick)
{
    size_t max = tr_sizes[nsizes - 1];
    void *dev = NULL;
    uint8_t *host = malloc(max), *pin = NULL;
    double *t = malloc(sizeof(double) * (TR_SYNC_N > TR_ITER_MAX ? TR_SYNC_N : TR_ITER_MAX));
    if (!host || !t || hipMalloc(&dev, max) != hipSuccess ||
        hipHostMalloc((void **)&pin, max, 0) != hipSuccess) {
        fprintf(stderr, "hipwire-bench: transport child: no memory or no worker\n");
        return 1;
    }
    memset(host, 1, max);
    memset(pin, 1, max);
    /* Both rings once through: their pages are taken on first use. */
    if (hipMemcpy(dev, host, max, hipMemcpyHostToDevice) != hipSuccess ||
        hipMemcpy(host, dev, max, hipMemcpyDeviceToHost) != hipSuccess)
        return 1;
    for (int i = 0; i < 200; i++) /* warm up both sides */
        hipDeviceSynchronize();
    for (int i = 0; i < TR_SYNC_N; i++) {
        uint64_t a = bench_now_ns();
        if (hipDeviceSynchronize() != hipSuccess)
            return 1;
        t[i] = (double)(bench_now_ns() - a);
    }
    printf("sync %.3f\n", median(t, TR_SYNC_N) / 1000.0);
    for (int k = 0; k < nsizes; k++) {
        size_t size = tr_sizes[k], n = iterations_for(size, quick);
        for (int pinned = 0; pinned <= 1; pinned++) {
            uint8_t *h = pinned ? pin : host;
            for (int dir = 0; dir < DIR_COUNT; dir++) {
                for (size_t i = 0; i < n; i++) {
                    uint64_t a = bench_now_ns();
                    hipError_t e = dir == DIR_H2D ? hipMemcpy(dev, h, size, hipMemcpyHostToDevice)
                                                  : hipMemcpy(h, dev, size, hipMemcpyDeviceToHost);
                    if (e != hipSuccess)
                        return 1;
                    t[i] = (double)(bench_now_ns() - a);
                }
                printf("%s%s %zu %.4f\n", dir == DIR_H2D ? "h2d" : "d2h", pinned ? "p" : "", size,
                       (double)size / median(t, n));
            }
        }
    }
    fflush(stdout);
    hipFree(dev);
    hipHostFree(pin);
    free(host);
    free(t);
    return 0;
}

/* Runs a child with TF_TRANSPORT=mode and keeps its numbers where they beat
 * the ones already there. 0, or -1 when it failed. */
static int run_child(const char *self, const char *mode, int nsizes, int quick, struct tr_result *r,
                     int col)
{
    int p[2];
    if (pipe(p) < 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        char ns[8];
        snprintf(ns, sizeof ns, "%d", nsizes);
        dup2(p[1], 1);
        close(p[0]);
        close(p[1]);
        setenv("TF_TRANSPORT", mode, 1);
        execl(self, self, "--transport-child", ns, quick ? "1" : "0", (char *)NULL);
        _exit(127);
    }
    close(p[1]);
    FILE *f = fdopen(p[0], "r");
    char line[128];
    int got = 0;
    while (f && fgets(line, sizeof line, f)) {
        double v;
        size_t size;
        char dir[8];
        if (sscanf(line, "sync %lf", &v) == 1) {
            if (!r->sync_p50_us[col] || v < r->sync_p50_us[col])
                r->sync_p50_us[col] = v;
            got++;
        } else if (sscanf(line, "%7s %zu %lf", dir, &size, &v) == 3) {
            int d = strncmp(dir, "h2d", 3) == 0 ? DIR_H2D : DIR_D2H;
            int c = dir[3] == 'p' ? col + 1 : col; /* pinned: the next column */
            for (int k = 0; k < nsizes; k++)
                if (tr_sizes[k] == size && v > r->gbps[c][d][k])
                    r->gbps[c][d][k] = v;
            got++;
        }
    }
    if (f)
        fclose(f);
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 && got ? 0 : -1;
}

/* ---- the parent's references ---------------------------------------------------- */

static void measure_raw(struct tr_result *r, int fd, int nsizes, int quick)
{
    double *t = malloc(sizeof(double) * TR_SYNC_N);
    uint8_t *buf = malloc(tr_sizes[nsizes - 1]);
    if (!t || !buf)
        goto out;
    memset(buf, 1, tr_sizes[nsizes - 1]);
    for (int i = 0; i < TR_SYNC_N; i++) {
        uint64_t a = bench_now_ns();
        if (raw_echo(fd) < 0)
            goto out;
        t[i] = (double)(bench_now_ns() - a);
    }
    double p50 = median(t, TR_SYNC_N) / 1000.0;
    if (!r->sync_p50_us[T_RAW] || p50 < r->sync_p50_us[T_RAW])
        r->sync_p50_us[T_RAW] = p50;
    for (int k = 0; k < nsizes; k++) {
        size_t size = tr_sizes[k], n = iterations_for(size, quick);
        for (int dir = 0; dir < DIR_COUNT; dir++) {
            for (size_t i = 0; i < n; i++) {
                uint64_t a = bench_now_ns();
                int e = dir == DIR_H2D ? raw_push(fd, buf, size) : raw_pull(fd, buf, size);
                if (e < 0)
                    goto out;
                t[i] = (double)(bench_now_ns() - a);
            }
            double g = (double)size / median(t, n);
            if (g > r->gbps[T_RAW][dir][k])
                r->gbps[T_RAW][dir][k] = g;
        }
    }
out:
    free(t);
    free(buf);
}

static void measure_memcpy(struct tr_result *r, int nsizes, int quick)
{
    size_t max = tr_sizes[nsizes - 1];
    uint8_t *a = malloc(max), *b = malloc(max);
    double *t = malloc(sizeof(double) * TR_ITER_MAX);
    if (!a || !b || !t)
        goto out;
    memset(a, 1, max);
    memset(b, 2, max);
    for (int k = 0; k < nsizes; k++) {
        size_t size = tr_sizes[k], n = iterations_for(size, quick);
        for (size_t i = 0; i < n; i++) {
            uint64_t s = bench_now_ns();
            memcpy(i & 1 ? a : b, i & 1 ? b : a, size);
            __asm__ __volatile__("" ::: "memory");
            t[i] = (double)(bench_now_ns() - s);
        }
        double g = (double)size / median(t, n);
        for (int dir = 0; dir < DIR_COUNT; dir++)
            if (g > r->gbps[T_MEMCPY][dir][k])
                r->gbps[T_MEMCPY][dir][k] = g;
    }
out:
    free(a);
    free(b);
    free(t);
}

static void print_size(size_t s)
{
    if (s >= (1u << 20))
        printf("%6zu MiB", s >> 20);
    else
        printf("%6zu KiB", s >> 10);
}

static void report(const struct tr_result *r, int nsizes, int rounds)
{
    printf("\n== Transports: same host (shared memory) vs TCP loopback, raw TCP and memcpy ==\n");
    printf("(best of %d alternating rounds; GB/s = 1e9 bytes/s; shm, tcp: pageable host "
           "memory; -pin: hipHostMalloc memory, which a shared-memory session shares with the "
           "worker; the worker's --backend)\n\n",
           rounds);
    printf("sync call p50 (hipDeviceSynchronize; raw: 24-byte echo):");
    for (int c = 0; c < T_MEMCPY; c++)
        if (c != T_SHM_PIN && c != T_TCP_PIN)
            printf("  %s %.2f us", t_names[c], r->sync_p50_us[c]);
    printf("\n\n");
    for (int dir = 0; dir < DIR_COUNT; dir++) {
        printf("%s        shm  shm-pin      tcp  tcp-pin  raw-tcp   memcpy   shm/memcpy  "
               "pin/memcpy  tcp/raw\n",
               dir == DIR_H2D ? "H2D " : "D2H ");
        for (int k = 0; k < nsizes; k++) {
            print_size(tr_sizes[k]);
            for (int c = 0; c < T_COUNT; c++)
                printf(" %8.2f", r->gbps[c][dir][k]);
            double m = r->gbps[T_MEMCPY][dir][k], raw = r->gbps[T_RAW][dir][k];
            printf("   %9.2fx  %9.2fx %7.2fx\n", m > 0 ? r->gbps[T_SHM][dir][k] / m : 0,
                   m > 0 ? r->gbps[T_SHM_PIN][dir][k] / m : 0,
                   raw > 0 ? r->gbps[T_TCP][dir][k] / raw : 0);
        }
        printf("\n");
    }
    printf("Targets\n");
    double sp = r->sync_p50_us[T_SHM];
    printf("  [%s] same-host sync call p50 <= %.0f us: %.2f us (TCP loopback %.2f us, raw TCP "
           "%.2f us)\n",
           sp > 0 && sp <= TR_TARGET_US ? "met" : "MISSED", TR_TARGET_US, sp, r->sync_p50_us[T_TCP],
           r->sync_p50_us[T_RAW]);
    for (int dir = 0; dir < DIR_COUNT; dir++) {
        double worst = 1e9, worst_tcp = 1e9, worst_pin = 1e9;
        size_t at = 0, at_tcp = 0, at_pin = 0;
        for (int k = 0; k < nsizes; k++) {
            double m = r->gbps[T_MEMCPY][dir][k], raw = r->gbps[T_RAW][dir][k];
            if (tr_sizes[k] >= (1u << 20) && m > 0 && r->gbps[T_SHM][dir][k] / m < worst) {
                worst = r->gbps[T_SHM][dir][k] / m;
                at = tr_sizes[k];
            }
            if (tr_sizes[k] >= (1u << 20) && m > 0 && r->gbps[T_SHM_PIN][dir][k] / m < worst_pin) {
                worst_pin = r->gbps[T_SHM_PIN][dir][k] / m;
                at_pin = tr_sizes[k];
            }
            if (tr_sizes[k] >= (256u << 10) && raw > 0 &&
                r->gbps[T_TCP][dir][k] / raw < worst_tcp) {
                worst_tcp = r->gbps[T_TCP][dir][k] / raw;
                at_tcp = tr_sizes[k];
            }
        }
        const char *d = dir == DIR_H2D ? "H2D" : "D2H";
        printf("  [%s] same-host %s pageable >= %.1fx local memcpy from 1 MiB: worst %.2fx at "
               "%zu KiB\n",
               worst >= TR_MEMCPY ? "met" : "MISSED", d, TR_MEMCPY, worst, at >> 10);
        printf("  [%s] same-host %s pinned (hipHostMalloc) >= %.1fx local memcpy from 1 MiB: "
               "worst %.2fx at %zu KiB\n",
               worst_pin >= TR_MEMCPY ? "met" : "MISSED", d, TR_MEMCPY, worst_pin, at_pin >> 10);
        printf("  [%s] TCP loopback %s >= %.1fx raw TCP from 256 KiB: worst %.2fx at %zu KiB\n",
               worst_tcp >= TR_TCP_RAW ? "met" : "MISSED", d, TR_TCP_RAW, worst_tcp, at_tcp >> 10);
    }
}

int bench_transport_main(int argc, char **argv, int fd)
{
    int quick = 0, rounds = 3;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = atoi(argv[++i]);
    }
    if (rounds < 1)
        rounds = 1;
    int nsizes = quick ? 6 : TR_SIZES;
    static struct tr_result r;
    int failures = 0;
    for (int round = 0; round < rounds; round++) {
        fprintf(stderr, "hipwire-bench: transports, round %d/%d...\n", round + 1, rounds);
        if (run_child("/proc/self/exe", "shm", nsizes, quick, &r, T_SHM) < 0) {
            fprintf(stderr, "hipwire-bench: the shared-memory run failed (TF_TRANSPORT=shm)\n");
            failures++;
        }
        if (run_child("/proc/self/exe", "tcp", nsizes, quick, &r, T_TCP) < 0) {
            fprintf(stderr, "hipwire-bench: the TCP run failed\n");
            failures++;
        }
        measure_raw(&r, fd, nsizes, quick);
        measure_memcpy(&r, nsizes, quick);
    }
    report(&r, nsizes, rounds);
    return failures ? 1 : 0;
}

int bench_transport_child(int argc, char **argv)
{
    int nsizes = argc > 2 ? atoi(argv[2]) : TR_SIZES;
    int quick = argc > 3 ? atoi(argv[3]) : 0;
    if (nsizes < 1 || nsizes > TR_SIZES)
        nsizes = TR_SIZES;
    return child_main(nsizes, quick);
}
