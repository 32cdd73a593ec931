/*
 * bench_sessions.c - hipwire-bench --sessions: what many sessions cost and
 * how fast they start (docs/benchmarks.md, "Sessions").
 *
 *   hipwire-bench --sessions 1,8,32,64,256 --spawn-worker PATH [--backend cpu|cuda|hip]
 *                 [--isolation process,shared] [--worker-arg ARG]... [--hold-ms N]
 *                 [--timeout S] [--settle-ms N]
 *
 * For each count N, a fresh worker is started and N client processes (each
 * a HIP program linked against the proxy: one session per process) are
 * released at the same instant. Each makes its first call (hipMalloc: the
 * connect, the handshake, HELLO and any wait for a session or a device
 * start), checks a memset read back, holds its session --hold-ms, and
 * exits. Meanwhile the worker's processes are sampled every 50 ms (host
 * RSS, threads, processes; GPU memory through nvidia-smi when present), and
 * the peaks are printed with the first-call p50/p99 and the share of
 * clients served. With --isolation, each count runs once per mode (the
 * worker's --isolation), and where both ran, a line compares what a session
 * costs the host in each. The exit status is 0 only when every client of
 * every count was served.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_sessions.h"

#define MAX_COUNTS  16
#define MAX_CLIENTS 4096
#define MAX_WARGS   32
#define MAX_MODES   4

struct sess_opts {
    int counts[MAX_COUNTS];
    int ncounts;
    const char *worker;
    const char *backend;
    const char *wargs[MAX_WARGS];
    int nwargs;
    int hold_ms;
    int timeout_s;
    int settle_ms;                /* between the worker's start and the clients' */
    const char *modes[MAX_MODES]; /* --isolation values; none: the worker's default */
    int nmodes;
};

struct result {
    int index;
    int ok;
    double first_ms;
};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* ---- the worker ------------------------------------------------------------ */

static pid_t start_worker(const struct sess_opts *o, const char *mode)
{
    char port_file[] = "/tmp/hipwire-bench-sessions-XXXXXX";
    int pfd = mkstemp(port_file);
    if (pfd < 0)
        return -1;
    close(pfd);
    unlink(port_file);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        const char *argv[MAX_WARGS + 14];
        int n = 0;
        argv[n++] = o->worker;
        argv[n++] = "--backend";
        argv[n++] = o->backend;
        argv[n++] = "--port";
        argv[n++] = "0";
        argv[n++] = "--port-file";
        argv[n++] = port_file;
        if (mode) {
            argv[n++] = "--isolation";
            argv[n++] = mode;
        }
        for (int i = 0; i < o->nwargs; i++)
            argv[n++] = o->wargs[i];
        argv[n] = NULL;
        /* 256 sessions log a lot: to a file when asked, else nowhere. */
        const char *log = getenv("HIPWIRE_BENCH_WORKER_LOG");
        int fd = open(log ? log : "/dev/null", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        if (fd >= 0)
            dup2(fd, 2);
        execv(o->worker, (char *const *)argv);
        _exit(127);
    }
    char port[16] = "";
    for (int t = 0; t < 2400 && !port[0]; t++) { /* a GPU probe may take a while */
        FILE *f = fopen(port_file, "r");
        if (f) {
            if (!fgets(port, sizeof port, f))
                port[0] = '\0';
            fclose(f);
        }
        if (!port[0]) {
            if (waitpid(pid, NULL, WNOHANG) == pid) {
                fprintf(stderr, "hipwire-bench: %s exited before listening\n", o->worker);
                return -1;
            }
            sleep_ms(25);
        }
    }
    unlink(port_file);
    port[strcspn(port, "\n")] = '\0';
    if (!port[0]) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        fprintf(stderr, "hipwire-bench: %s did not listen within 60 s\n", o->worker);
        return -1;
    }
    setenv("TF_WORKER_HOST", "127.0.0.1", 1);
    setenv("TF_WORKER_PORT", port, 1);
    return pid;
}

static void stop_worker(pid_t pid)
{
    kill(pid, SIGTERM);
    for (int t = 0; t < 800; t++) {
        if (waitpid(pid, NULL, WNOHANG) == pid)
            return;
        sleep_ms(25);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

/* ---- sampling ---------------------------------------------------------------- */

struct sample {
    double rss_mib, pss_mib; /* PSS: only when asked for (it costs more to read) */
    int threads, procs;
    int conns; /* clients' connections the worker holds */
};

/* Established TCP connections whose local port is the worker's: the
 * clients it holds now (in a session, queued or starting), whatever its
 * processes are. */
static int worker_connections(void)
{
    const char *ps = getenv("TF_WORKER_PORT");
    unsigned port = ps ? (unsigned)atoi(ps) : 0, lport, st;
    int n = 0;
    const char *files[] = { "/proc/net/tcp", "/proc/net/tcp6" };
    for (int i = 0; i < 2 && port; i++) {
        char line[512];
        FILE *f = fopen(files[i], "r");
        while (f && fgets(line, sizeof line, f)) {
            /* "  sl  local_address rem_address   st ..."; addresses ADDR:PORT in hex */
            char local[64], remote[64];
            if (sscanf(line, " %*d: %63s %63s %x", local, remote, &st) != 3)
                continue;
            char *colon = strrchr(local, ':');
            if (colon && sscanf(colon + 1, "%x", &lport) == 1 && lport == port && st == 1)
                n++;
        }
        if (f)
            fclose(f);
    }
    return n;
}

static int parent_of(int pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    int ppid = -1;
    if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
        return -1;
    return ppid;
}

static void add_status(int pid, struct sample *s)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    s->procs++;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "VmRSS:", 6))
            s->rss_mib += strtod(line + 6, NULL) / 1024.0;
        else if (!strncmp(line, "Threads:", 8))
            s->threads += atoi(line + 8);
    }
    fclose(f);
}

/* The supervisor and every process it forked (sessions, queued, prewarmed). */
/* Proportional set size: shared pages split among their sharers, so the
 * sum is what the processes really cost together. */
static void add_pss(int pid, struct sample *s)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/smaps_rollup", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "Pss:", 4)) {
            s->pss_mib += strtod(line + 4, NULL) / 1024.0;
            break;
        }
    fclose(f);
}

static struct sample sample_worker(pid_t worker, int with_pss)
{
    struct sample s = { 0, 0, 0, 0, worker_connections() };
    add_status(worker, &s);
    if (with_pss)
        add_pss(worker, &s);
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        int pid = atoi(e->d_name);
        if (pid != worker && parent_of(pid) == worker) {
            add_status(pid, &s);
            if (with_pss)
                add_pss(pid, &s);
        }
    }
    if (d)
        closedir(d);
    return s;
}

/* GPU memory in use (MiB, all GPUs), or -1 without nvidia-smi. */
static double gpu_used_mib(void)
{
    FILE *p = popen("nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits "
                    "2>/dev/null",
                    "r");
    if (!p)
        return -1;
    double sum = 0;
    int any = 0;
    char line[128];
    while (fgets(line, sizeof line, p)) {
        sum += strtod(line, NULL);
        any = 1;
    }
    return pclose(p) == 0 && any ? sum : -1;
}

/* ---- the clients -------------------------------------------------------------- */

static void client(int index, int go_fd, int result_fd, int hold_ms)
{
    enum { N = 1 << 16 };
    struct result r = { .index = index };
    char c;
    /* Everyone starts at once: the parent closes the pipe. */
    if (read(go_fd, &c, 1) < 0)
        _exit(3);
    double t0 = now_ms();
    void *d = NULL;
    hipError_t e = hipMalloc(&d, N);
    r.first_ms = now_ms() - t0;
    if (e == hipSuccess) {
        unsigned char *h = malloc(N);
        r.ok = h && hipMemset(d, index & 0xff, N) == hipSuccess &&
               hipMemcpy(h, d, N, hipMemcpyDeviceToHost) == hipSuccess;
        for (int i = 0; r.ok && i < N; i++)
            r.ok = h[i] == (unsigned char)(index & 0xff);
        free(h);
        sleep_ms(hold_ms);
        r.ok = r.ok && hipFree(d) == hipSuccess;
    }
    if (write(result_fd, &r, sizeof r) != (ssize_t)sizeof r)
        _exit(4);
    exit(r.ok ? 0 : 1); /* exit, not _exit: the proxy says GOODBYE */
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double pct(const double *v, int n, double q)
{
    if (n == 0)
        return -1;
    int i = (int)(q * (n - 1) + 0.5);
    return v[i];
}

/* *rss_per_conn: the RSS/conn column's figure, MiB. */
static int run_count(const struct sess_opts *o, const char *mode, int n, double *rss_per_conn)
{
    pid_t worker = start_worker(o, mode);
    if (worker < 0)
        return -1;
    sleep_ms(o->settle_ms); /* a prewarmed pool must be ready to be measured */
    struct sample idle = sample_worker(worker, 1);
    double gpu0 = gpu_used_mib();
    int go[2], res[2];
    pid_t *pids = calloc((size_t)n, sizeof *pids);
    double *first = calloc((size_t)n, sizeof *first);
    if (!pids || !first || pipe(go) < 0 || pipe(res) < 0) {
        stop_worker(worker);
        free(pids);
        free(first);
        return -1;
    }
    fflush(stdout);
    int started = 0;
    for (int i = 0; i < n; i++) {
        pid_t p = fork();
        if (p == 0) {
            close(go[1]);
            close(res[0]);
            client(i, go[0], res[1], o->hold_ms);
        }
        if (p < 0) {
            fprintf(stderr, "hipwire-bench: fork: %s (%d clients started)\n", strerror(errno), i);
            break;
        }
        pids[started++] = p;
    }
    close(go[0]);
    close(res[1]);
    double t0 = now_ms();
    close(go[1]);                              /* go */
    struct sample peak = idle, busiest = idle; /* busiest: the sample with the most clients */
    double gpu_peak = gpu0, last_gpu = 0, last_pss = 0;
    int done = 0, served = 0, nfirst = 0;
    struct result r;
    while (done < started && now_ms() - t0 < o->timeout_s * 1000.0) {
        int with_pss = now_ms() - last_pss > 250;
        struct sample s = sample_worker(worker, with_pss);
        if (with_pss)
            last_pss = now_ms();
        if (s.rss_mib > peak.rss_mib)
            peak.rss_mib = s.rss_mib;
        if (s.pss_mib > peak.pss_mib)
            peak.pss_mib = s.pss_mib;
        if (s.threads > peak.threads)
            peak.threads = s.threads;
        if (s.procs > peak.procs)
            peak.procs = s.procs;
        if (s.conns > busiest.conns || (s.conns == busiest.conns && s.rss_mib > busiest.rss_mib))
            busiest = s;
        if (gpu0 >= 0 && now_ms() - last_gpu > 500) {
            double g = gpu_used_mib();
            gpu_peak = g > gpu_peak ? g : gpu_peak;
            last_gpu = now_ms();
        }
        int st;
        pid_t p;
        while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
            done++;
            served += WIFEXITED(st) && WEXITSTATUS(st) == 0;
        }
        sleep_ms(50);
    }
    double took = now_ms() - t0;
    for (int i = 0; i < started && done < started; i++)
        kill(pids[i], SIGKILL); /* past --timeout: not served */
    while (done < started && waitpid(-1, NULL, 0) > 0)
        done++;
    while (read(res[0], &r, sizeof r) == (ssize_t)sizeof r)
        if (r.ok && nfirst < n)
            first[nfirst++] = r.first_ms;
    close(res[0]);
    qsort(first, (size_t)nfirst, sizeof *first, cmp_double);
    char gpu[48] = "n/a";
    if (gpu0 >= 0)
        snprintf(gpu, sizeof gpu, "%.0f MiB", gpu_peak - gpu0);
    *rss_per_conn = busiest.conns ? (busiest.rss_mib - idle.rss_mib) / busiest.conns : 0;
    printf("%8d  %-9s %4d/%-4d %5.1f%%  %9.1f  %9.1f  %8.1f  %8.1f  %8.1f  %8.2f  %5d  %8.2f  "
           "%5d  %7d  %10s  %7.1f s\n",
           n, mode ? mode : "default", served, n, 100.0 * served / n, pct(first, nfirst, 0.5),
           pct(first, nfirst, 0.99), peak.rss_mib, peak.pss_mib, idle.pss_mib,
           n ? (peak.pss_mib - idle.pss_mib) / n : 0, busiest.conns, *rss_per_conn, peak.procs,
           peak.threads, gpu, took / 1e3);
    fflush(stdout);
    stop_worker(worker);
    free(pids);
    free(first);
    return served == n ? 0 : 1;
}

static int parse_counts(const char *s, struct sess_opts *o)
{
    char *end;
    while (*s) {
        long v = strtol(s, &end, 10);
        if (end == s || v < 1 || v > MAX_CLIENTS || o->ncounts >= MAX_COUNTS)
            return -1;
        o->counts[o->ncounts++] = (int)v;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return -1;
    }
    return o->ncounts ? 0 : -1;
}

int bench_sessions_main(int argc, char **argv)
{
    struct sess_opts o = { .backend = "cpu", .hold_ms = 500, .timeout_s = 300, .settle_ms = 300 };
    for (int i = 1; i < argc; i += 2) { /* every option takes a value */
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--sessions") && v) {
            if (parse_counts(v, &o) < 0) {
                fprintf(stderr, "hipwire-bench: --sessions wants counts like 1,8,32 (1..%d)\n",
                        MAX_CLIENTS);
                return 2;
            }
        } else if (!strcmp(a, "--spawn-worker") && v) {
            o.worker = v;
        } else if (!strcmp(a, "--backend") && v) {
            o.backend = v;
        } else if (!strcmp(a, "--worker-arg") && v && o.nwargs < MAX_WARGS) {
            o.wargs[o.nwargs++] = v;
        } else if (!strcmp(a, "--hold-ms") && v) {
            o.hold_ms = atoi(v);
        } else if (!strcmp(a, "--timeout") && v) {
            o.timeout_s = atoi(v);
        } else if (!strcmp(a, "--settle-ms") && v) {
            o.settle_ms = atoi(v);
        } else if (!strcmp(a, "--isolation") && v) {
            static char list[256];
            snprintf(list, sizeof list, "%s", v);
            for (char *m = strtok(list, ","); m; m = strtok(NULL, ","))
                if (o.nmodes < MAX_MODES)
                    o.modes[o.nmodes++] = m;
        } else {
            fprintf(stderr, "hipwire-bench: --sessions mode: unknown or incomplete %s\n", a);
            return 2;
        }
    }
    if (!o.worker) {
        fprintf(stderr, "hipwire-bench: --sessions needs --spawn-worker PATH (it measures the "
                        "worker's processes)\n");
        return 2;
    }
    printf("== Sessions: N clients at once, one fresh `hip-worker --backend %s", o.backend);
    for (int i = 0; i < o.nwargs; i++)
        printf(" %s", o.wargs[i]);
    printf("` each; every client: first call (hipMalloc), memset + read back, hold %d ms ==\n",
           o.hold_ms);
    printf("%8s  %-9s %-9s %6s  %9s  %9s  %8s  %8s  %8s  %8s  %5s  %8s  %5s  %7s  %10s  %9s\n",
           "sessions", "isolation", "served", "share", "p50 ms", "p99 ms", "RSS MiB", "PSS MiB",
           "idle PSS", "PSS/sess", "conns", "RSS/conn", "procs", "threads", "GPU mem", "wall");
    int bad = 0;
    for (int i = 0; i < o.ncounts; i++) {
        double per[MAX_MODES] = { 0 };
        int proc = -1, shared = -1;
        for (int m = 0; m < (o.nmodes ? o.nmodes : 1); m++) {
            const char *mode = o.nmodes ? o.modes[m] : NULL;
            int rc = run_count(&o, mode, o.counts[i], &per[m]);
            if (rc != 0)
                bad = 1;
            if (rc < 0)
                fprintf(stderr, "hipwire-bench: could not run %d sessions (isolation %s)\n",
                        o.counts[i], mode ? mode : "default");
            if (rc == 0 && mode && !strcmp(mode, "process"))
                proc = m;
            if (rc == 0 && mode && !strcmp(mode, "shared"))
                shared = m;
        }
        /* ratio: how many shared sessions cost the host what one process session does */
        if (proc >= 0 && shared >= 0)
            printf("%8d  host RSS per connection: process %.2f MiB, shared %.2f MiB (%s)\n",
                   o.counts[i], per[proc], per[shared],
                   per[shared] * 4 < per[proc] ? "shared at most a quarter"
                                               : "shared NOT below a quarter");
    }
    printf("(isolation: the worker's --isolation (default: not given). first call: from the "
           "release to hipMalloc's return. conns: the most client connections the worker held at "
           "once; RSS/conn: (RSS then - idle RSS) / conns. RSS, PSS: the supervisor "
           "and every process it forked, peaks of 50 ms (RSS) and 250 ms (PSS) samples; RSS "
           "counts shared pages in every process, PSS splits them. idle PSS: before the clients "
           "(a prewarmed pool included); PSS/sess: (peak - idle) / N. GPU mem: peak - before the "
           "clients, from nvidia-smi.)\n");
    return bad;
}
