/*
 * hipwire-bench - what hipwire costs over the raw transport it runs on.
 *
 *   hipwire-bench [--worker HOST:PORT] [--spawn-worker PATH] [--kernels PATH]
 *                 [--quick] [--json FILE]
 *
 * Four sections, measured in one run against a raw-socket reference taken
 * at the same time (interleaved in rounds, so a neighbour's load on a shared
 * machine hits both sides alike) and, on a GPU machine, against the same
 * calls made natively in process:
 *   1. round trip of a synchronous call vs a 24-byte TCP echo;
 *   2. fire-and-forget launches per second, of an empty and a 5 us kernel;
 *   3. hipMemcpy bandwidth vs the same payloads through a plain socket;
 *   4. hipMalloc + hipFree pairs per second.
 * See docs/benchmarks.md. The exit status says whether every measurement
 * ran (0) or not (1); it never depends on the speeds measured.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "bench_sessions.h"

#ifndef HIPWIRE_BENCH_DEFAULT_KERNELS
#define HIPWIRE_BENCH_DEFAULT_KERNELS "kernels/test_kernels.so"
#endif
#ifndef HIPWIRE_BENCH_BUILD_TYPE
#define HIPWIRE_BENCH_BUILD_TYPE "unknown"
#endif

/* ---- the spawned worker --------------------------------------------------- */

static pid_t worker_pid;

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* Starts `PATH --backend cpu --port 0 --port-file F` and points the proxy at
 * it (the proxy reads TF_WORKER_* at its first call, which comes later). */
static int spawn_worker(const char *path)
{
    char port_file[] = "/tmp/hipwire-bench-port-XXXXXX";
    int pfd = mkstemp(port_file);
    if (pfd < 0)
        return -1;
    close(pfd);
    unlink(port_file); /* the worker creates it once it listens */

    worker_pid = fork();
    if (worker_pid < 0)
        return -1;
    if (worker_pid == 0) {
        char *argv[] = { (char *)path, "--backend",   "cpu",     "--port",
                         "0",          "--port-file", port_file, NULL };
        execv(path, argv);
        fprintf(stderr, "hipwire-bench: cannot run %s: %s\n", path, strerror(errno));
        _exit(127);
    }
    char port[16] = "";
    for (int tries = 0; tries < 400 && !port[0]; tries++) {
        FILE *f = fopen(port_file, "r");
        if (f) {
            if (!fgets(port, sizeof port, f))
                port[0] = '\0';
            fclose(f);
        }
        int status;
        if (!port[0] && waitpid(worker_pid, &status, WNOHANG) == worker_pid) {
            fprintf(stderr, "hipwire-bench: %s exited before listening\n", path);
            worker_pid = 0;
            return -1;
        }
        if (!port[0])
            sleep_ms(25);
    }
    unlink(port_file);
    port[strcspn(port, "\n")] = '\0';
    if (!port[0]) {
        fprintf(stderr, "hipwire-bench: %s did not start listening within 10 s\n", path);
        return -1;
    }
    setenv("TF_WORKER_HOST", "127.0.0.1", 1);
    setenv("TF_WORKER_PORT", port, 1);
    return 0;
}

static void stop_worker(void)
{
    if (worker_pid <= 0)
        return;
    /* The proxy's connection stays open until exit; SIGTERM ends the session
     * processes too, so the supervisor does not wait for us. */
    kill(worker_pid, SIGTERM);
    for (int waited = 0; waited < 400; waited++) {
        if (waitpid(worker_pid, NULL, WNOHANG) == worker_pid) {
            worker_pid = 0;
            return;
        }
        sleep_ms(25);
    }
    kill(worker_pid, SIGKILL);
    waitpid(worker_pid, NULL, 0);
    worker_pid = 0;
}

static int use_worker_address(const char *host_port)
{
    const char *colon = strrchr(host_port, ':');
    if (!colon || colon == host_port || !colon[1])
        return -1;
    char host[256];
    size_t n = (size_t)(colon - host_port);
    if (n >= sizeof host)
        return -1;
    memcpy(host, host_port, n);
    host[n] = '\0';
    setenv("TF_WORKER_HOST", host, 1);
    setenv("TF_WORKER_PORT", colon + 1, 1);
    return 0;
}

/* ---- interleaved timing ---------------------------------------------------- */

typedef int (*probe_fn)(void *ctx);

struct probe {
    const char *label;
    probe_fn fn;
    void *ctx;
    unsigned calls_per_sample; /* >1 for calls too quick to time one by one */
    struct sample_set samples;
    int error; /* first failure's code, 0 when none */
};

/*
 * Runs every probe `samples_each` times, in `rounds` interleaved slices, after
 * `warmup` untimed calls each. Interleaving matters on a shared 2-core VM:
 * a burst of someone else's work slows the raw reference and hipwire alike
 * instead of landing on one of them.
 */
static void run_interleaved(struct probe *probes, int nprobes, size_t samples_each, size_t rounds,
                            size_t warmup)
{
    size_t per_round = (samples_each + rounds - 1) / rounds;
    for (int p = 0; p < nprobes; p++) {
        struct probe *pr = &probes[p];
        if (samples_reserve(&pr->samples, samples_each) < 0) {
            pr->error = -ENOMEM;
            continue;
        }
        for (size_t i = 0; i < warmup && !pr->error; i++)
            pr->error = pr->fn(pr->ctx);
    }
    for (size_t r = 0; r < rounds; r++)
        for (int q = 0; q < nprobes; q++) {
            /* Each round starts one probe later: the first call after another
             * probe's traffic pays for waking threads and clocks, and this
             * spreads that cost evenly instead of charging one probe always. */
            struct probe *pr = &probes[(q + (int)(r % (size_t)nprobes)) % nprobes];
            for (size_t i = 0; i < per_round && !pr->error && pr->samples.n < samples_each; i++) {
                uint64_t t0 = bench_now_ns();
                for (unsigned c = 0; c < pr->calls_per_sample && !pr->error; c++)
                    pr->error = pr->fn(pr->ctx);
                uint64_t t1 = bench_now_ns();
                if (!pr->error)
                    samples_add(&pr->samples, (double)(t1 - t0) / pr->calls_per_sample);
            }
        }
}

static void report_probe_error(const struct probe *pr, const struct bench_ops *ops)
{
    const char *why = pr->error == -ENOMEM ? "out of memory"
                      : ops                ? ops->error_name(pr->error)
                                           : "socket error";
    fprintf(stderr, "hipwire-bench: %s failed: %s (%d)\n", pr->label, why, pr->error);
}

/* ---- 1. round trips ------------------------------------------------------ */

static int probe_raw_echo(void *ctx)
{
    return raw_echo(*(int *)ctx);
}

static int probe_local(void *ctx)
{
    return ((const struct bench_ops *)ctx)->local_query();
}

static int probe_stream_query(void *ctx)
{
    return ((const struct bench_ops *)ctx)->stream_query();
}

static int probe_mem_info(void *ctx)
{
    return ((const struct bench_ops *)ctx)->mem_get_info();
}

static int probe_device_sync(void *ctx)
{
    return ((const struct bench_ops *)ctx)->device_synchronize();
}

static void measure_round_trips(struct bench_results *r, int raw_fd)
{
    static const probe_fn fns[PROBE_COUNT] = { probe_local, probe_stream_query, probe_mem_info,
                                               probe_device_sync };
    struct probe probes[1 + BENCH_MAX_TARGETS * PROBE_COUNT];
    int np = 0;
    size_t samples = r->quick ? 2000 : 20000;

    memset(probes, 0, sizeof probes);
    probes[np++] = (struct probe){ "raw TCP echo", probe_raw_echo, &raw_fd, 1, { 0 }, 0 };
    for (int t = 0; t < r->ntargets; t++)
        for (int k = 0; k < PROBE_COUNT; k++)
            probes[np++] = (struct probe){ bench_probe_names[k],
                                           fns[k],
                                           (void *)r->targets[t],
                                           /* ~10 ns calls: time 100 at once */
                                           k == PROBE_LOCAL ? 100 : 1,
                                           { 0 },
                                           0 };
    run_interleaved(probes, np, samples, 20, 200);

    r->raw_rtt_ok = !probes[0].error;
    if (probes[0].error) {
        report_probe_error(&probes[0], NULL);
        r->failures++;
    }
    r->raw_rtt = samples_stats(&probes[0].samples);
    for (int t = 0; t < r->ntargets; t++)
        for (int k = 0; k < PROBE_COUNT; k++) {
            struct probe *pr = &probes[1 + t * PROBE_COUNT + k];
            r->probe_ok[t][k] = !pr->error;
            if (pr->error) {
                report_probe_error(pr, r->targets[t]);
                r->failures++;
            }
            r->probe[t][k] = samples_stats(&pr->samples);
        }
    for (int p = 0; p < np; p++)
        samples_free(&probes[p].samples);
}

/* ---- 2. launches ---------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One launch: of `empty` when ns is 0, else of spin_ns(ns). */
static int launch_one(const struct bench_ops *ops, unsigned long long ns)
{
    return ns ? ops->launch_spin(ns) : ops->launch_empty();
}

static void measure_launches(struct bench_results *r, int t, unsigned long long ns)
{
    const struct bench_ops *ops = r->targets[t];
    struct launch_result *lr = ns ? &r->spin[t] : &r->launch[t];
    enum { MAX_REPS = 5 };
    double enqueue[MAX_REPS], complete[MAX_REPS];
    int rc = 0;

    /* 5 us kernels: 20,000 take 0.1 s of device time per repetition. */
    lr->launches = ns ? (r->quick ? 2000 : 20000) : (r->quick ? 20000 : 200000);
    lr->repetitions = r->quick ? 1 : 3;
    lr->kernel_us = (double)ns / 1e3;
    /* Warm up the path (first launch, allocator, worker stream thread). */
    for (int i = 0; i < 1000 && !rc; i++)
        rc = launch_one(ops, ns);
    if (!rc)
        rc = ops->device_synchronize();
    for (int rep = 0; rep < lr->repetitions && !rc; rep++) {
        uint64_t t0 = bench_now_ns();
        for (size_t i = 0; i < lr->launches && !rc; i++)
            rc = launch_one(ops, ns);
        uint64_t t1 = bench_now_ns();
        if (!rc)
            rc = ops->device_synchronize();
        uint64_t t2 = bench_now_ns();
        enqueue[rep] = (double)lr->launches / ((double)(t1 - t0) / 1e9);
        complete[rep] = (double)lr->launches / ((double)(t2 - t0) / 1e9);
    }
    if (rc) {
        fprintf(stderr, "hipwire-bench: %s: %s kernel launches failed: %s (%d)\n", ops->name,
                ns ? "spin_ns" : "empty", ops->error_name(rc), rc);
        r->failures++;
        return;
    }
    qsort(enqueue, (size_t)lr->repetitions, sizeof *enqueue, cmp_double);
    qsort(complete, (size_t)lr->repetitions, sizeof *complete, cmp_double);
    lr->enqueue_per_s = enqueue[lr->repetitions / 2];
    lr->complete_per_s = complete[lr->repetitions / 2];
    lr->ok = 1;
}

/* ---- 3. bandwidth --------------------------------------------------------- */

struct copy_ctx {
    const struct bench_ops *ops;
    int fd;
    void *host;
    void *device;
    size_t size;
};

static int probe_raw_push(void *ctx)
{
    struct copy_ctx *c = ctx;
    return raw_push(c->fd, c->host, c->size);
}

static int probe_raw_pull(void *ctx)
{
    struct copy_ctx *c = ctx;
    return raw_pull(c->fd, c->host, c->size);
}

/* An H2D hipMemcpy returns once the bytes are on their way; the synchronize
 * makes each sample end when they have landed, like the raw push's ack. */
static int probe_h2d(void *ctx)
{
    struct copy_ctx *c = ctx;
    int rc = c->ops->copy_h2d(c->device, c->host, c->size);
    return rc ? rc : c->ops->device_synchronize();
}

static int probe_d2h(void *ctx)
{
    struct copy_ctx *c = ctx;
    return c->ops->copy_d2h(c->host, c->device, c->size);
}

static size_t clamp_size(size_t v, size_t lo, size_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static double median_gbps(struct sample_set *s, size_t size)
{
    if (s->n == 0)
        return -1;
    struct stats st = samples_stats(s);
    return (double)size / (st.p50_us * 1e3); /* bytes per ns = GB/s */
}

static void measure_bandwidth(struct bench_results *r, int raw_fd)
{
    size_t max_size = r->sizes[r->nsizes - 1];
    void *pageable = malloc(max_size);
    void *pinned[BENCH_MAX_TARGETS] = { 0 };
    void *device[BENCH_MAX_TARGETS] = { 0 };
    int target_ok[BENCH_MAX_TARGETS] = { 0 };

    for (int t = 0; t < BENCH_MAX_TARGETS; t++)
        for (int d = 0; d < DIR_COUNT; d++)
            for (int m = 0; m < MEM_COUNT; m++)
                for (size_t i = 0; i < BENCH_MAX_SIZES; i++)
                    r->gbps[t][d][m][i] = -1;
    for (int d = 0; d < DIR_COUNT; d++)
        for (size_t i = 0; i < BENCH_MAX_SIZES; i++)
            r->raw_gbps[d][i] = -1;
    if (!pageable) {
        fprintf(stderr, "hipwire-bench: cannot allocate %zu bytes of host memory\n", max_size);
        r->failures++;
        return;
    }
    memset(pageable, 0x33, max_size);
    for (int t = 0; t < r->ntargets; t++) {
        const struct bench_ops *ops = r->targets[t];
        int rc = ops->device_alloc(&device[t], max_size);
        if (!rc)
            rc = ops->pinned_alloc(&pinned[t], max_size);
        if (rc) {
            fprintf(stderr, "hipwire-bench: %s: cannot allocate %zu bytes: %s\n", ops->name,
                    max_size, ops->error_name(rc));
            r->failures++;
            continue;
        }
        memset(pinned[t], 0x44, max_size);
        target_ok[t] = 1;
    }

    /* Per size: the two raw directions, then each target's four copies. */
    /* About 1 GiB per probe and size (at least 6 transfers) in a full run:
     * fewer samples left single large transfers swinging by +-30 % on a
     * shared 2-core VM. */
    size_t budget = r->quick ? (size_t)32 << 20 : (size_t)1 << 30;
    for (size_t i = 0; i < r->nsizes; i++) {
        size_t size = r->sizes[i];
        size_t iters = clamp_size(budget / size, r->quick ? 3 : 6, r->quick ? 200 : 2000);
        struct copy_ctx ctx[2 + BENCH_MAX_TARGETS * 4];
        struct probe probes[2 + BENCH_MAX_TARGETS * 4];
        int where[2 + BENCH_MAX_TARGETS * 4][3]; /* target, dir, mem */
        int np = 0;

        memset(probes, 0, sizeof probes);
        ctx[np] = (struct copy_ctx){ NULL, raw_fd, pageable, NULL, size };
        probes[np] = (struct probe){ "raw push", probe_raw_push, &ctx[np], 1, { 0 }, 0 };
        where[np][0] = -1, where[np][1] = DIR_H2D, where[np][2] = 0, np++;
        ctx[np] = (struct copy_ctx){ NULL, raw_fd, pageable, NULL, size };
        probes[np] = (struct probe){ "raw pull", probe_raw_pull, &ctx[np], 1, { 0 }, 0 };
        where[np][0] = -1, where[np][1] = DIR_D2H, where[np][2] = 0, np++;
        for (int t = 0; t < r->ntargets; t++) {
            if (!target_ok[t])
                continue;
            for (int d = 0; d < DIR_COUNT; d++)
                for (int m = 0; m < MEM_COUNT; m++) {
                    ctx[np] = (struct copy_ctx){ r->targets[t], -1,
                                                 m == MEM_PINNED ? pinned[t] : pageable, device[t],
                                                 size };
                    probes[np] = (struct probe){ d == DIR_H2D ? "hipMemcpy H2D" : "hipMemcpy D2H",
                                                 d == DIR_H2D ? probe_h2d : probe_d2h,
                                                 &ctx[np],
                                                 1,
                                                 { 0 },
                                                 0 };
                    where[np][0] = t, where[np][1] = d, where[np][2] = m, np++;
                }
        }
        /* One untimed transfer each: first-touch page faults are not bandwidth. */
        /* One transfer of each probe per round: the finest interleaving. */
        run_interleaved(probes, np, iters, iters, 1);
        r->iterations[i] = iters;
        for (int p = 0; p < np; p++) {
            int t = where[p][0], d = where[p][1], m = where[p][2];
            if (probes[p].error) {
                report_probe_error(&probes[p], t < 0 ? NULL : r->targets[t]);
                r->failures++;
            } else if (t < 0) {
                r->raw_gbps[d][i] = median_gbps(&probes[p].samples, size);
            } else {
                r->gbps[t][d][m][i] = median_gbps(&probes[p].samples, size);
            }
            samples_free(&probes[p].samples);
        }
    }

    for (int t = 0; t < r->ntargets; t++) {
        if (device[t])
            r->targets[t]->device_free(device[t]);
        if (pinned[t])
            r->targets[t]->pinned_free(pinned[t]);
    }
    free(pageable);
}

/* ---- 4. allocation ------------------------------------------------------------ */

/* hipMalloc + hipFree pairs back to back: what a framework without a caching
 * allocator pays per tensor. */
static void measure_alloc(struct bench_results *r)
{
    r->alloc_pairs = r->quick ? 200 : 5000;
    for (int t = 0; t < r->ntargets; t++) {
        const struct bench_ops *ops = r->targets[t];
        int rc = 0;
        void *p = NULL;
        for (int i = 0; i < 20 && !rc; i++) {
            rc = ops->device_alloc(&p, ALLOC_PAIR_SIZE);
            if (!rc)
                ops->device_free(p);
        }
        uint64_t t0 = bench_now_ns();
        for (size_t i = 0; i < r->alloc_pairs && !rc; i++) {
            rc = ops->device_alloc(&p, ALLOC_PAIR_SIZE);
            if (!rc)
                ops->device_free(p);
        }
        if (!rc)
            rc = ops->device_synchronize(); /* a remote free may still be on its way */
        uint64_t t1 = bench_now_ns();
        if (rc) {
            fprintf(stderr, "hipwire-bench: %s: hipMalloc/hipFree failed: %s (%d)\n", ops->name,
                    ops->error_name(rc), rc);
            r->failures++;
            continue;
        }
        r->alloc_ok[t] = 1;
        r->alloc_per_s[t] = (double)r->alloc_pairs / ((double)(t1 - t0) / 1e9);
    }
}

/* ---- environment ------------------------------------------------------------- */

static void describe_machine(struct bench_results *r)
{
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(r->date, sizeof r->date, "%Y-%m-%d %H:%M:%S", &tm);
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(r->host, sizeof r->host, "%s %s %s", u.sysname, u.release, u.machine);
    r->cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(r->cpu, sizeof r->cpu, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[256];
    while (f && fgets(line, sizeof line, f)) {
        const char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon) {
            snprintf(r->cpu, sizeof r->cpu, "%s", colon + 2);
            r->cpu[strcspn(r->cpu, "\n")] = '\0';
            break;
        }
    }
    if (f)
        fclose(f);
    snprintf(r->build_type, sizeof r->build_type, "%s", HIPWIRE_BENCH_BUILD_TYPE);
    snprintf(r->loadavg, sizeof r->loadavg, "unknown");
    f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fgets(r->loadavg, sizeof r->loadavg, f))
            r->loadavg[strcspn(r->loadavg, "\n")] = '\0';
        fclose(f);
    }
}

/* ---- main ----------------------------------------------------------------- */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: hipwire-bench [--worker HOST:PORT] [--spawn-worker PATH] [--kernels PATH]\n"
            "                     [--quick] [--json FILE]\n"
            "  --worker HOST:PORT   use a running hip-worker (default: TF_WORKER_HOST/PORT)\n"
            "  --spawn-worker PATH  start PATH --backend cpu --port 0 for this run\n"
            "  --kernels PATH       code object with the `empty` and `spin_ns` kernels: a\n"
            "                       CPU .so, or PTX for a GPU worker and the native column\n"
            "                       (default $HIPWIRE_KERNELS, else %s)\n"
            "  --quick              fewer repetitions and sizes up to 16 MiB (~10 s)\n"
            "  --json FILE          also write the results as JSON\n"
            "  --section N          run only section 1, 2, 3 or 4 (for profiling)\n"
            "  --transports         instead: same-host shared memory vs TCP loopback vs raw\n"
            "                       TCP vs local memcpy (sync p50, copies) and their Targets;\n"
            "                       --rounds N alternating rounds, the best counts (default 3)\n"
            "\n"
            "       hipwire-bench --sessions N[,N...] --spawn-worker PATH [--backend NAME]\n"
            "                     [--isolation MODE[,MODE]] [--worker-arg ARG]...\n"
            "                     [--hold-ms MS] [--timeout S] [--settle-ms MS]\n"
            "  N clients at once per count against a fresh worker: first-call p50/p99,\n"
            "  share served, the worker's host RSS, processes, threads (and GPU memory\n"
            "  with nvidia-smi); exit 0 only when every client was served. --settle-ms:\n"
            "  wait after the worker starts (default 300; longer for a --prewarm pool).\n"
            "  --isolation process,shared: each count once per worker --isolation mode,\n"
            "  then host memory per session in each\n",
            HIPWIRE_BENCH_DEFAULT_KERNELS);
}

static int parse_args(int argc, char **argv, struct bench_options *opt)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **dst = !strcmp(a, "--worker")         ? &opt->worker
                           : !strcmp(a, "--spawn-worker") ? &opt->spawn_worker
                           : !strcmp(a, "--kernels")      ? &opt->kernels
                           : !strcmp(a, "--json")         ? &opt->json_path
                                                          : NULL;
        if (dst) {
            if (i + 1 >= argc) {
                fprintf(stderr, "hipwire-bench: %s needs a value\n", a);
                return -1;
            }
            *dst = argv[++i];
        } else if (!strcmp(a, "--section") && i + 1 < argc) {
            opt->only_section = atoi(argv[++i]);
            if (opt->only_section < 1 || opt->only_section > 4) {
                fprintf(stderr, "hipwire-bench: --section takes 1, 2, 3 or 4\n");
                return -1;
            }
        } else if (!strcmp(a, "--quick")) {
            opt->quick = 1;
        } else if (!strcmp(a, "--transports")) {
            opt->transports = 1;
        } else if (!strcmp(a, "--rounds") && i + 1 < argc) {
            i++; /* bench_transport.c reads it */
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--version")) {
            printf("hipwire-bench %s\n", HIPWIRE_VERSION);
            exit(0);
        } else {
            fprintf(stderr, "hipwire-bench: unknown argument %s\n", a);
            return -1;
        }
    }
    if (opt->worker && opt->spawn_worker) {
        fprintf(stderr, "hipwire-bench: --worker and --spawn-worker exclude each other\n");
        return -1;
    }
    if (!opt->kernels)
        opt->kernels = getenv("HIPWIRE_KERNELS");
    if (!opt->kernels)
        opt->kernels = HIPWIRE_BENCH_DEFAULT_KERNELS;
    return 0;
}

int main(int argc, char **argv)
{
    struct bench_options opt = { 0 };
    static struct bench_results r; /* large: keep it off the stack */
    struct raw_server raw = { 0 };

    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--sessions"))
            return bench_sessions_main(argc, argv);
    if (argc > 1 && !strcmp(argv[1], "--transport-child"))
        return bench_transport_child(argc, argv);
    if (parse_args(argc, argv, &opt) < 0) {
        usage(stderr);
        return 2;
    }
    if (opt.worker && use_worker_address(opt.worker) < 0) {
        fprintf(stderr, "hipwire-bench: --worker wants HOST:PORT, not %s\n", opt.worker);
        return 2;
    }
    /* Processes first, threads later: both servers are forked before the
     * first HIP call. */
    if (raw_server_start(&raw) < 0) {
        fprintf(stderr, "hipwire-bench: cannot start the raw TCP server: %s\n", strerror(errno));
        return 1;
    }
    if (opt.spawn_worker && spawn_worker(opt.spawn_worker) < 0) {
        raw_server_stop(&raw);
        return 1;
    }
    int raw_fd = raw_connect(raw.port);
    if (raw_fd < 0) {
        fprintf(stderr, "hipwire-bench: cannot connect to the raw TCP server: %s\n",
                strerror(errno));
        stop_worker();
        raw_server_stop(&raw);
        return 1;
    }
    if (opt.transports) {
        int rc = bench_transport_main(argc, argv, raw_fd);
        close(raw_fd);
        raw_server_stop(&raw);
        stop_worker();
        return rc;
    }

    describe_machine(&r);
    r.quick = opt.quick;
    const struct bench_ops *candidates[BENCH_MAX_TARGETS] = { bench_hip_ops(), bench_native_ops() };
    for (int i = 0; i < BENCH_MAX_TARGETS; i++) {
        char why[512];
        if (!candidates[i])
            continue;
        if (candidates[i]->init(&opt, why, sizeof why) < 0) {
            /* The native column is optional (no GPU here); the remote one is not. */
            fprintf(stderr, "hipwire-bench: %s: %s%s\n", candidates[i]->name, why,
                    i > 0 ? "; leaving that column out" : "");
            r.failures += i == 0;
            continue;
        }
        candidates[i]->describe(r.device[r.ntargets], sizeof r.device[r.ntargets]);
        r.targets[r.ntargets++] = candidates[i];
    }

    static const size_t full_sizes[] = { 4u << 10, 16u << 10, 64u << 10, 256u << 10, 1u << 20,
                                         4u << 20, 16u << 20, 64u << 20, 256u << 20, 1u << 30 };
    r.nsizes = opt.quick ? 7 : sizeof full_sizes / sizeof full_sizes[0];
    memcpy(r.sizes, full_sizes, r.nsizes * sizeof r.sizes[0]);

    r.only_section = opt.only_section;
    int run_all = opt.only_section == 0;
    if (r.ntargets > 0 && (run_all || opt.only_section == 1)) {
        fprintf(stderr, "hipwire-bench: 1/4 round trips...\n");
        measure_round_trips(&r, raw_fd);
    }
    if (r.ntargets > 0 && (run_all || opt.only_section == 2)) {
        fprintf(stderr, "hipwire-bench: 2/4 kernel launches...\n");
        for (int t = 0; t < r.ntargets; t++) {
            measure_launches(&r, t, 0);
            measure_launches(&r, t, SPIN_KERNEL_NS);
        }
    }
    if (r.ntargets > 0 && (run_all || opt.only_section == 3)) {
        fprintf(stderr, "hipwire-bench: 3/4 copy bandwidth...\n");
        measure_bandwidth(&r, raw_fd);
    }
    if (r.ntargets > 0 && (run_all || opt.only_section == 4)) {
        fprintf(stderr, "hipwire-bench: 4/4 hipMalloc/hipFree...\n");
        measure_alloc(&r);
    }

    report_print(&r);
    fflush(stdout);
    if (opt.json_path && report_write_json(&r, opt.json_path) < 0) {
        fprintf(stderr, "hipwire-bench: cannot write %s: %s\n", opt.json_path, strerror(errno));
        r.failures++;
    }

    for (int t = 0; t < r.ntargets; t++)
        r.targets[t]->fini();
    close(raw_fd);
    raw_server_stop(&raw);
    stop_worker();
    return r.failures || r.ntargets == 0 ? 1 : 0;
}
