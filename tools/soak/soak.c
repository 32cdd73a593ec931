/*
 * hipwire-soak - a sustained mixed workload against one hip-worker, checking
 * that the worker's memory, fds, threads and session processes stay flat
 * (docs/soak.md).
 *
 * It starts a hip-worker on the CPU device (or attaches to a running one),
 * keeps N hipwire-soak-client processes running for --duration (each lives
 * --client-life seconds and is replaced), SIGKILLs one every --kill-every
 * seconds so its session must be reclaimed, and, given fault_relay, sends
 * half the clients through it and cuts every link every --cut-every seconds
 * so they resume. Each second it samples the worker's process tree; at the
 * end it fits a least-squares slope over the second half of the run for each
 * series and fails when one exceeds its bound beyond the fit's own noise.
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef HIPWIRE_VERSION
#define HIPWIRE_VERSION "unknown"
#endif

/* M_SUP_RSS: the supervisor's RSS alone (not PSS, which falls as more
 * forked sessions share its pages): the one long-lived process, where a
 * leak accumulates without the churn of session processes around it. */
enum { M_RSS, M_SUP_RSS, M_FDS, M_SUP_FDS, M_THREADS, M_SUP_THREADS, M_SESSIONS, M_COUNT };
static const char *const metric_name[M_COUNT] = { "rss_kib", "sup_kib",     "fds",     "sup_fds",
                                                  "threads", "sup_threads", "sessions" };

struct sample {
    double t;
    double v[M_COUNT];
};

struct opts {
    int clients, duration, client_life, kill_every, cut_every, attach_pid;
    const char *worker, *client, *kernels, *relay, *csv, *worker_log, *client_log;
    char *worker_args[32];
    int nworker_args;
    double bound[M_COUNT]; /* per minute */
    int verbose;
};

static volatile sig_atomic_t stop_flag;
static void on_signal(int s)
{
    (void)s;
    stop_flag = 1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

static void usage(FILE *f)
{
    fprintf(
        f, "usage: hipwire-soak [OPTIONS]\n"
           "Drives a mixed HIP workload from many client processes against one hip-worker\n"
           "and fails (exit 1) if the worker's RSS, fds, threads or session processes grow.\n"
           "\n"
           "  -n, --clients N        concurrent client processes (default 64)\n"
           "  -d, --duration S       seconds to run (default 120)\n"
           "      --client-life S    each client runs S seconds, then is replaced (default 10)\n"
           "      --kill-every S     SIGKILL one random client every S seconds (default 5; 0 off)\n"
           "      --relay PATH       fault_relay: half the clients go through it\n"
           "      --cut-every S      with --relay, cut every link every S seconds (default 20)\n"
           "      --worker PATH      hip-worker to start (default: next to this program)\n"
           "      --worker-arg A     extra hip-worker argument (repeatable)\n"
           "      --attach PID       use a running worker (TF_WORKER_HOST/TF_WORKER_PORT)\n"
           "      --client PATH      hipwire-soak-client (default: next to this program)\n"
           "      --kernels PATH     CPU-device test kernels (default $HIPWIRE_KERNELS)\n"
           "      --rss-bound KIB    allowed RSS slope, KiB per minute (default 1024)\n"
           "      --sup-bound KIB    allowed supervisor RSS slope, KiB per minute (default 256)\n"
           "      --fd-bound N       allowed fd slope per minute, all processes (default 6)\n"
           "      --sup-fd-bound N   the same, the supervisor alone (default 0.5)\n"
           "      --thread-bound N   allowed thread slope per minute, all processes (default 6)\n"
           "      --sup-thread-bound N  the same, the supervisor alone (default 0.5)\n"
           "      --session-bound N  allowed session-process slope per minute (default 1)\n"
           "      --csv FILE         write every sample to FILE\n"
           "      --worker-log FILE  the started worker's stderr (default /dev/null)\n"
           "      --client-log FILE  the clients' stderr (default: this program's)\n"
           "  -v, --verbose          print each sample\n"
           "  -h, --help             this text\n"
           "  -V, --version          the version\n"
           "\n"
           "A slope fails when slope - 2 x its standard error exceeds the bound, so a real\n"
           "trend fails and sampling noise does not (docs/soak.md).\n");
}

/* Path of a file next to this executable. */
static int sibling(const char *name, char *out, size_t cap)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return -1;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    if ((size_t)snprintf(out, cap, "%s/%s", self, name) >= cap)
        return -1;
    return access(out, X_OK);
}

/* ---- the worker's process tree ---------------------------------------- */

struct proc {
    int pid, ppid;
    char comm[32];
};

static int read_procs(struct proc **out, int *n_out)
{
    DIR *d = opendir("/proc");
    if (!d)
        return -1;
    int cap = 1024, n = 0;
    struct proc *v = malloc((size_t)cap * sizeof *v);
    struct dirent *e;
    while (v && (e = readdir(d))) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0)
            continue;
        char path[64], buf[512];
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t len = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[len] = '\0';
        char *lp = strchr(buf, '('), *rp = strrchr(buf, ')');
        if (!lp || !rp)
            continue;
        if (n == cap) {
            struct proc *nv = realloc(v, (size_t)(cap *= 2) * sizeof *v);
            if (!nv) {
                free(v);
                v = NULL;
                break;
            }
            v = nv;
        }
        v[n].pid = (int)pid;
        size_t cl = (size_t)(rp - lp - 1);
        if (cl >= sizeof v[n].comm)
            cl = sizeof v[n].comm - 1;
        memcpy(v[n].comm, lp + 1, cl);
        v[n].comm[cl] = '\0';
        char st;
        if (sscanf(rp + 2, "%c %d", &st, &v[n].ppid) != 2)
            continue;
        n++;
    }
    closedir(d);
    if (!v)
        return -1;
    *out = v;
    *n_out = n;
    return 0;
}

static double proc_rss_kib(int pid)
{
    char path[64];
    long size = 0, rss = 0;
    snprintf(path, sizeof path, "/proc/%d/statm", pid);
    FILE *f = fopen(path, "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &size, &rss) != 2)
            rss = 0;
        fclose(f);
    }
    return (double)rss * (double)sysconf(_SC_PAGESIZE) / 1024.0;
}

/* PSS less shared-memory pages where smaps_rollup is readable, else RSS;
 * KiB. A session's shared-memory rings (TRANSPORT_SHM, 2 x 8 MiB) fill as
 * traffic wraps them and count twice as much once their client is gone:
 * with sessions coming and going every few seconds they swing the sum by
 * tens of MiB without anything leaking. A leak is heap or stack, which
 * stays in. */
static double proc_mem_kib(int pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/smaps_rollup", pid);
    FILE *f = fopen(path, "r");
    if (f) {
        double pss = -1, shmem = 0, v;
        while (fgets(line, sizeof line, f)) {
            if (sscanf(line, "Pss: %lf", &v) == 1)
                pss = v;
            else if (sscanf(line, "Pss_Shmem: %lf", &v) == 1)
                shmem = v;
        }
        fclose(f);
        if (pss >= 0)
            return pss - shmem;
    }
    return proc_rss_kib(pid);
}

static int proc_fds(int pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd", pid);
    DIR *d = opendir(path);
    if (!d)
        return 0; /* not ours to read (another uid): counted as none */
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

static int proc_threads(int pid)
{
    char path[64], line[128];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen(path, "r");
    int n = 0;
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Threads: %d", &n) == 1)
            break;
    fclose(f);
    return n;
}

/* The supervisor and every descendant that is still hip-worker (session
 * processes; a compiler it runs has another name and comes and goes). */
static int sample_worker(int wpid, struct sample *s)
{
    struct proc *v;
    int n;
    if (read_procs(&v, &n) < 0)
        return -1;
    const char *comm = NULL;
    for (int i = 0; i < n; i++)
        if (v[i].pid == wpid)
            comm = v[i].comm;
    if (!comm) {
        free(v);
        return -1;
    }
    /* Mark the tree: repeat until no new descendant is found. */
    char *in = calloc((size_t)n, 1);
    if (!in) {
        free(v);
        return -1;
    }
    for (int i = 0; i < n; i++)
        in[i] = v[i].pid == wpid;
    for (int changed = 1; changed;) {
        changed = 0;
        for (int i = 0; i < n; i++) {
            if (in[i])
                continue;
            for (int j = 0; j < n; j++)
                if (in[j] && v[j].pid == v[i].ppid && !strcmp(v[i].comm, comm)) {
                    in[i] = changed = 1;
                    break;
                }
        }
    }
    memset(s->v, 0, sizeof s->v);
    for (int i = 0; i < n; i++) {
        if (!in[i])
            continue;
        s->v[M_RSS] += proc_mem_kib(v[i].pid);
        if (v[i].pid == wpid)
            s->v[M_SUP_RSS] = proc_rss_kib(wpid);
        int fds = proc_fds(v[i].pid), threads = proc_threads(v[i].pid);
        s->v[M_FDS] += fds;
        s->v[M_THREADS] += threads;
        if (v[i].pid == wpid) {
            s->v[M_SUP_FDS] = fds;
            s->v[M_SUP_THREADS] = threads;
        }
        if (v[i].pid != wpid)
            s->v[M_SESSIONS] += 1;
    }
    free(in);
    free(v);
    return 0;
}

/* ---- worker, relay, clients ------------------------------------------- */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Starts PATH with ARGS (NULL-terminated) and --port-file; waits for the port. */
static pid_t start_listener(char **argv, const char *log, const char *portfile, char *port,
                            size_t cap)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (log && !freopen(log, "w", stderr))
            _exit(127);
        execv(argv[0], argv);
        fprintf(stderr, "hipwire-soak: exec %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    if (pid < 0)
        return -1;
    port[0] = '\0';
    for (int t = 0; t < 400 && !port[0]; t++) {
        FILE *f = fopen(portfile, "r");
        if (f) {
            if (!fgets(port, (int)cap, f))
                port[0] = '\0';
            fclose(f);
        }
        int st;
        if (!port[0] && waitpid(pid, &st, WNOHANG) == pid)
            return -1;
        if (!port[0])
            sleep_ms(25);
    }
    unlink(portfile);
    port[strcspn(port, "\n")] = '\0';
    if (!port[0]) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        return -1;
    }
    return pid;
}

static int relay_cut(const char *control)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    char reply[128];
    int rc = -1;
    if (fd < 0)
        return -1;
    snprintf(a.sun_path, sizeof a.sun_path, "%s", control);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0 && write(fd, "cut\n", 4) == 4) {
        ssize_t n = read(fd, reply, sizeof reply - 1);
        rc = n >= 2 && !strncmp(reply, "ok", 2) ? 0 : -1;
    }
    close(fd);
    return rc;
}

struct slot {
    pid_t pid;
    int killed; /* by us: its end is expected */
    int via_relay;
    double started;
};

/* A link cut this close after a client started may hit its handshake,
 * before its session can resume: the proxy then fails (exit 3). */
#define SETUP_WINDOW_S 5.0

static pid_t spawn_client(const struct opts *o, const char *host, const char *port, int secs,
                          unsigned seed)
{
    pid_t pid = fork();
    if (pid == 0) {
        char life[16], sd[16];
        if (o->client_log && !freopen(o->client_log, "a", stderr))
            _exit(127);
        snprintf(life, sizeof life, "%d", secs);
        snprintf(sd, sizeof sd, "%u", seed);
        setenv("TF_WORKER_HOST", host, 1);
        setenv("TF_WORKER_PORT", port, 1);
        setenv("HIPWIRE_KERNELS", o->kernels, 1);
        setenv("TF_QUIET", "1", 0);
        execl(o->client, o->client, life, sd, (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* ---- the fit ----------------------------------------------------------- */

/* Least-squares slope of v[m] over samples [from, n), per minute, and its
 * standard error. */
static void fit(const struct sample *s, int from, int n, int m, double *slope, double *se)
{
    double k = n - from, st = 0, sv = 0, stt = 0, stv = 0;
    for (int i = from; i < n; i++) {
        st += s[i].t;
        sv += s[i].v[m];
    }
    double mt = st / k, mv = sv / k;
    for (int i = from; i < n; i++) {
        stt += (s[i].t - mt) * (s[i].t - mt);
        stv += (s[i].t - mt) * (s[i].v[m] - mv);
    }
    double b = stt > 0 ? stv / stt : 0, rss = 0, lag = 0, prev = 0;
    for (int i = from; i < n; i++) {
        double r = s[i].v[m] - (mv + b * (s[i].t - mt));
        rss += r * r;
        if (i > from)
            lag += r * prev;
        prev = r;
    }
    /* Sessions come and go in cycles, so neighbouring residuals are alike:
     * the error is widened by the lag-1 autocorrelation (fewer independent
     * samples than taken), or a swing would read as a trend. */
    double r1 = rss > 0 ? fmin(fmax(lag / rss, 0.0), 0.9) : 0;
    *slope = b * 60.0;
    *se = k > 2 && stt > 0 ? sqrt(rss / (k - 2) / stt * (1 + r1) / (1 - r1)) * 60.0 : 0;
}

int main(int argc, char **argv)
{
    struct opts o = { .clients = 64,
                      .duration = 120,
                      .client_life = 10,
                      .kill_every = 5,
                      .cut_every = 20,
                      .bound = { 1024, 256, 6, 0.5, 6, 0.5, 1 } };
    char worker_path[PATH_MAX], client_path[PATH_MAX];
    enum {
        O_LIFE = 256,
        O_KILL,
        O_RELAY,
        O_CUT,
        O_WORKER,
        O_WARG,
        O_ATTACH,
        O_CLIENT,
        O_KERNELS,
        O_RSSB,
        O_SUPB,
        O_FDB,
        O_SUPFDB,
        O_SUPTHB,
        O_THB,
        O_SEB,
        O_CSV,
        O_WLOG,
        O_CLOG
    };
    static const struct option lo[] = { { "clients", required_argument, NULL, 'n' },
                                        { "duration", required_argument, NULL, 'd' },
                                        { "client-life", required_argument, NULL, O_LIFE },
                                        { "kill-every", required_argument, NULL, O_KILL },
                                        { "relay", required_argument, NULL, O_RELAY },
                                        { "cut-every", required_argument, NULL, O_CUT },
                                        { "worker", required_argument, NULL, O_WORKER },
                                        { "worker-arg", required_argument, NULL, O_WARG },
                                        { "attach", required_argument, NULL, O_ATTACH },
                                        { "client", required_argument, NULL, O_CLIENT },
                                        { "kernels", required_argument, NULL, O_KERNELS },
                                        { "rss-bound", required_argument, NULL, O_RSSB },
                                        { "sup-bound", required_argument, NULL, O_SUPB },
                                        { "fd-bound", required_argument, NULL, O_FDB },
                                        { "sup-fd-bound", required_argument, NULL, O_SUPFDB },
                                        { "sup-thread-bound", required_argument, NULL, O_SUPTHB },
                                        { "worker-log", required_argument, NULL, O_WLOG },
                                        { "client-log", required_argument, NULL, O_CLOG },
                                        { "thread-bound", required_argument, NULL, O_THB },
                                        { "session-bound", required_argument, NULL, O_SEB },
                                        { "csv", required_argument, NULL, O_CSV },
                                        { "verbose", no_argument, NULL, 'v' },
                                        { "help", no_argument, NULL, 'h' },
                                        { "version", no_argument, NULL, 'V' },
                                        { NULL, 0, NULL, 0 } };
    int c;
    while ((c = getopt_long(argc, argv, "n:d:vhV", lo, NULL)) != -1) {
        switch (c) {
        case 'n': o.clients = atoi(optarg); break;
        case 'd': o.duration = atoi(optarg); break;
        case O_LIFE: o.client_life = atoi(optarg); break;
        case O_KILL: o.kill_every = atoi(optarg); break;
        case O_RELAY: o.relay = optarg; break;
        case O_CUT: o.cut_every = atoi(optarg); break;
        case O_WORKER: o.worker = optarg; break;
        case O_WARG:
            if (o.nworker_args >= 24) {
                fprintf(stderr, "hipwire-soak: too many --worker-arg\n");
                return 2;
            }
            o.worker_args[o.nworker_args++] = optarg;
            break;
        case O_ATTACH: o.attach_pid = atoi(optarg); break;
        case O_CLIENT: o.client = optarg; break;
        case O_KERNELS: o.kernels = optarg; break;
        case O_RSSB: o.bound[M_RSS] = atof(optarg); break;
        case O_SUPB: o.bound[M_SUP_RSS] = atof(optarg); break;
        case O_FDB: o.bound[M_FDS] = atof(optarg); break;
        case O_SUPFDB: o.bound[M_SUP_FDS] = atof(optarg); break;
        case O_SUPTHB: o.bound[M_SUP_THREADS] = atof(optarg); break;
        case O_WLOG: o.worker_log = optarg; break;
        case O_CLOG: o.client_log = optarg; break;
        case O_THB: o.bound[M_THREADS] = atof(optarg); break;
        case O_SEB: o.bound[M_SESSIONS] = atof(optarg); break;
        case O_CSV: o.csv = optarg; break;
        case 'v': o.verbose = 1; break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("hipwire-soak %s\n", HIPWIRE_VERSION); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc || o.clients < 1 || o.clients > 4096 || o.duration < 4 || o.client_life < 1 ||
        o.kill_every < 0 || o.cut_every < 1) {
        usage(stderr);
        return 2;
    }
    if (!o.kernels)
        o.kernels = getenv("HIPWIRE_KERNELS");
    if (!o.client && sibling("hipwire-soak-client", client_path, sizeof client_path) == 0)
        o.client = client_path;
    if (!o.attach_pid && !o.worker && sibling("hip-worker", worker_path, sizeof worker_path) == 0)
        o.worker = worker_path;
    if (!o.kernels || !o.client || (!o.attach_pid && !o.worker)) {
        fprintf(stderr, "hipwire-soak: need --kernels (or HIPWIRE_KERNELS), --client and "
                        "--worker or --attach\n");
        return 2;
    }

    int rc = 2, nsamples = 0, cap = o.duration + 16;
    pid_t wpid = -1, rpid = -1;
    char wport[16] = "", rport[16] = "", control[64] = "", cachedir[64] = "";
    const char *host = "127.0.0.1";
    struct sample *samples = calloc((size_t)cap, sizeof *samples);
    struct slot *slots = calloc((size_t)o.clients, sizeof *slots);
    FILE *csv = NULL;
    long started = 0, completed = 0, killed = 0, failed = 0, cuts = 0, setup_cut = 0;
    double last_cut = -1;
    if (!samples || !slots)
        goto cleanup;
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGPIPE, SIG_IGN);

    if (o.attach_pid) {
        const char *h = getenv("TF_WORKER_HOST"), *p = getenv("TF_WORKER_PORT");
        if (!h || !p) {
            fprintf(stderr, "hipwire-soak: --attach needs TF_WORKER_HOST and TF_WORKER_PORT\n");
            goto cleanup;
        }
        host = h;
        snprintf(wport, sizeof wport, "%s", p);
        wpid = o.attach_pid;
    } else {
        char pf[64], pfarg[80], maxs[32], cachearg[96];
        /* A compile cache, as a deployment would have: without one every
         * client's hiprtc call runs the compiler, one at a time by default. */
        snprintf(cachedir, sizeof cachedir, "/tmp/hipwire-soak-cache-XXXXXX");
        if (!mkdtemp(cachedir)) {
            cachedir[0] = '\0';
            fprintf(stderr, "hipwire-soak: mkdtemp: %s\n", strerror(errno));
            goto cleanup;
        }
        snprintf(cachearg, sizeof cachearg, "--rtc-cache-dir=%s", cachedir);
        snprintf(pf, sizeof pf, "/tmp/hipwire-soak-%d.port", (int)getpid());
        snprintf(pfarg, sizeof pfarg, "--port-file=%s", pf);
        /* Room for the killed clients' sessions while their grace runs. */
        snprintf(maxs, sizeof maxs, "--max-sessions=%d", 2 * o.clients + 16);
        char *wargv[40] = { (char *)o.worker,     "--backend=cpu", "--port=0", pfarg, maxs,
                            "--resume-grace=10s", cachearg };
        int k = 7;
        for (int i = 0; i < o.nworker_args; i++)
            wargv[k++] = o.worker_args[i];
        wargv[k] = NULL;
        wpid = start_listener(wargv, o.worker_log ? o.worker_log : "/dev/null", pf, wport,
                              sizeof wport);
        if (wpid < 0) {
            fprintf(stderr, "hipwire-soak: hip-worker did not start listening\n");
            goto cleanup;
        }
    }
    if (o.relay) {
        char pf[64], tgt[96];
        snprintf(pf, sizeof pf, "/tmp/hipwire-soak-%d.rport", (int)getpid());
        snprintf(control, sizeof control, "/tmp/hipwire-soak-%d.ctl", (int)getpid());
        snprintf(tgt, sizeof tgt, "%s:%s", host, wport);
        char *rargv[] = { (char *)o.relay, "--target", tgt, "--port-file", pf,
                          "--control",     control,    NULL };
        rpid = start_listener(rargv, NULL, pf, rport, sizeof rport);
        if (rpid < 0) {
            fprintf(stderr, "hipwire-soak: fault_relay did not start listening\n");
            goto cleanup;
        }
    }
    if (o.client_log) {
        FILE *f = fopen(o.client_log, "w"); /* this run's clients only */
        if (f)
            fclose(f);
    }
    if (o.csv && !(csv = fopen(o.csv, "w"))) {
        fprintf(stderr, "hipwire-soak: %s: %s\n", o.csv, strerror(errno));
        goto cleanup;
    }
    if (csv)
        fprintf(csv, "t,rss_kib,sup_kib,fds,sup_fds,threads,sup_threads,sessions\n");
    printf("hipwire-soak: %d clients for %d s against worker %d on %s:%s%s\n", o.clients,
           o.duration, (int)wpid, host, wport, o.relay ? " (half through fault_relay)" : "");
    fflush(stdout);

    unsigned seed = (unsigned)getpid();
    /* One client alone first: the worker's first hiprtc compile (a cache
     * miss, seconds of a compiler) is not the steady state being measured. */
    pid_t warm = spawn_client(&o, host, wport, 1, seed++);
    int wst = 0;
    if (warm < 0 || waitpid(warm, &wst, 0) != warm || !WIFEXITED(wst) || WEXITSTATUS(wst)) {
        fprintf(stderr, "hipwire-soak: the warm-up client failed (status 0x%x)\n", wst);
        rc = 1;
        goto cleanup;
    }
    double t0 = now_s(), next_sample = t0, next_kill = t0 + o.kill_every,
           next_cut = t0 + o.cut_every;
    while (!stop_flag) {
        double t = now_s();
        if (t - t0 >= o.duration)
            break;
        int st;
        pid_t p;
        while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
            if (p == wpid || p == rpid) {
                fprintf(stderr, "hipwire-soak: %s exited (status 0x%x)\n",
                        p == wpid ? "hip-worker" : "fault_relay", st);
                if (p == wpid)
                    wpid = -1;
                else
                    rpid = -1;
                goto cleanup;
            }
            for (int i = 0; i < o.clients; i++) {
                if (slots[i].pid != p)
                    continue;
                if (slots[i].killed)
                    killed++;
                else if (WIFEXITED(st) && WEXITSTATUS(st) == 3 && slots[i].via_relay &&
                         last_cut >= slots[i].started &&
                         last_cut - slots[i].started < SETUP_WINDOW_S)
                    setup_cut++;
                else if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
                    completed++;
                else {
                    failed++;
                    fprintf(stderr, "hipwire-soak: client %d failed (status 0x%x)%s%s\n", (int)p,
                            st, o.client_log ? "; see " : "", o.client_log ? o.client_log : "");
                }
                slots[i].pid = 0;
            }
        }
        for (int i = 0; i < o.clients; i++) {
            if (slots[i].pid)
                continue;
            int via_relay = o.relay && i % 2 == 0;
            /* Lives of 50..150 % of --client-life keep clients out of step. */
            int life = o.client_life / 2 + (int)(rand_r(&seed) % (unsigned)(o.client_life + 1));
            if (life < 1)
                life = 1;
            slots[i].pid = spawn_client(&o, via_relay ? "127.0.0.1" : host,
                                        via_relay ? rport : wport, life, seed++);
            slots[i].killed = 0;
            slots[i].via_relay = via_relay;
            slots[i].started = now_s();
            if (slots[i].pid > 0)
                started++;
            else
                slots[i].pid = 0;
        }
        if (o.kill_every && t >= next_kill) {
            int i = rand_r(&seed) % o.clients;
            if (slots[i].pid > 0 && kill(slots[i].pid, SIGKILL) == 0)
                slots[i].killed = 1;
            next_kill += o.kill_every;
        }
        if (o.relay && t >= next_cut) {
            if (relay_cut(control) == 0) {
                cuts++;
                last_cut = now_s();
            }
            next_cut += o.cut_every;
        }
        if (t >= next_sample && nsamples < cap) {
            struct sample *s = &samples[nsamples];
            s->t = t - t0;
            if (sample_worker(wpid, s) == 0) {
                if (o.verbose)
                    printf("%6.1f s  %.0f KiB (supervisor %.0f)  %.0f fds  %.0f threads  %.0f "
                           "sessions\n",
                           s->t, s->v[M_RSS], s->v[M_SUP_RSS], s->v[M_FDS], s->v[M_THREADS],
                           s->v[M_SESSIONS]);
                if (csv) {
                    fprintf(csv, "%.2f", s->t);
                    for (int m = 0; m < M_COUNT; m++)
                        fprintf(csv, ",%.0f", s->v[m]);
                    fprintf(csv, "\n");
                }
                nsamples++;
            }
            next_sample += 1.0;
        }
        sleep_ms(50);
    }

    /* Clients end; their sessions too (the fit is already taken). */
    for (int i = 0; i < o.clients; i++)
        if (slots[i].pid > 0) {
            kill(slots[i].pid, SIGKILL);
            waitpid(slots[i].pid, NULL, 0);
            slots[i].pid = 0;
        }
    int from = nsamples / 2;
    if (nsamples - from < 3) {
        fprintf(stderr, "hipwire-soak: too few samples (%d)\n", nsamples);
        goto cleanup;
    }
    printf("clients: %ld started, %ld completed, %ld killed by the soak, %ld failed; %ld "
           "link cuts, %ld of which hit a client before its session could resume\n",
           started, completed, killed, failed, cuts, setup_cut);
    printf("%-11s %10s %10s %10s %10s %12s %10s %10s  %s\n", "metric", "first", "last", "min",
           "max", "slope/min", "stderr", "bound", "verdict");
    int bad = 0;
    for (int m = 0; m < M_COUNT; m++) {
        double mn = samples[0].v[m], mx = mn, slope, se;
        for (int i = 0; i < nsamples; i++) {
            mn = fmin(mn, samples[i].v[m]);
            mx = fmax(mx, samples[i].v[m]);
        }
        fit(samples, from, nsamples, m, &slope, &se);
        int over = slope - 2.0 * se > o.bound[m];
        bad |= over;
        printf("%-11s %10.0f %10.0f %10.0f %10.0f %12.2f %10.2f %10.2f  %s\n", metric_name[m],
               samples[0].v[m], samples[nsamples - 1].v[m], mn, mx, slope, se, o.bound[m],
               over ? "GROWS" : "flat");
    }
    printf("(slopes over the last %.0f s of %d samples; rss is PSS less shared memory where "
           "readable)\n",
           samples[nsamples - 1].t - samples[from].t, nsamples);
    rc = bad || failed ? 1 : 0;
    if (failed)
        printf("hipwire-soak: FAIL: %ld clients failed\n", failed);
    printf("hipwire-soak: %s\n", rc ? "FAIL" : "ok");

cleanup:
    if (slots)
        for (int i = 0; i < o.clients; i++)
            if (slots[i].pid > 0) {
                kill(slots[i].pid, SIGKILL);
                waitpid(slots[i].pid, NULL, 0);
            }
    if (rpid > 0) {
        kill(rpid, SIGTERM);
        waitpid(rpid, NULL, 0);
    }
    if (!o.attach_pid && wpid > 0) {
        int st = 0, done = 0;
        kill(wpid, SIGTERM);
        for (int t = 0; t < 400 && !done; t++) {
            if (waitpid(wpid, &st, WNOHANG) == wpid)
                done = 1;
            else
                sleep_ms(25);
        }
        if (!done) {
            fprintf(stderr, "hipwire-soak: hip-worker ignored SIGTERM for 10 s\n");
            kill(wpid, SIGKILL);
            waitpid(wpid, NULL, 0);
            rc = 1;
        }
    }
    if (control[0])
        unlink(control);
    if (cachedir[0])
        nftw(cachedir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
    if (csv)
        fclose(csv);
    free(samples);
    free(slots);
    return rc;
}
