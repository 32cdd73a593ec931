/*
 * hip-worker - runs HIP work for remote clients.
 *
 *   hip-worker [--bind ADDR] [--port N] [--backend cpu|cuda|hip|auto]
 *              [--max-sessions N] [--mem-limit SIZE] [--cpu-devices N]
 *              [--max-handles N] [--max-module-size SIZE] [--max-inflight SIZE]
 *              [--idle-timeout TIME] [--resume-grace TIME] [--resume-buffer SIZE]
 *              [--token-file PATH] [--insecure] [--tls-cert PEM --tls-key PEM]
 *              [--require-tls]
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend.h"
#include "hipr.h"
#include "hw_auth.h"
#include "hw_config.h"
#include "hw_log.h"
#include "hw_net.h"
#include "hw_shm.h"
#include "hw_transport.h"
#include "hw_worker_list.h"
#include "rtc_cache.h"
#include "metrics_http.h"
#include "rtc_slots.h"
#include "worker_metrics.h"
#include "supervisor.h"
#include "worker.h"
#include "worker_info.h"

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: hip-worker [options]\n"
        "  --bind ADDR           address to listen on (default 127.0.0.1)\n"
        "  --port N              TCP port (default %d; 0 picks a free one)\n"
        "  --port-file PATH      write the port actually bound to PATH\n"
        "  --backend NAME        cpu, cuda, hip or auto (default auto)\n"
        "  --max-sessions N      concurrent client sessions (default 64)\n"
        "  --admission-queue N   clients past --max-sessions that wait for a session, in\n"
        "                        order (default 256; beyond it: busy, retry later)\n"
        "  --prewarm N           session processes kept with their device started, so a\n"
        "                        new client's first call waits for no device start (default 0)\n"
        "  --isolation MODE      process (default): each session its own process and\n"
        "                        device context; shared: the sessions are threads of one\n"
        "                        device process sharing its contexts (cheap, but a kernel\n"
        "                        can reach another session's memory: one tenant only)\n"
        "  --mem-limit SIZE      device memory per session, e.g. 512M, 8G (default: none)\n"
        "  --cpu-devices N       devices the cpu backend exposes (default 1)\n"
        "  --handshake-timeout MS  time a new connection has to authenticate and say\n"
        "                        HELLO (default 5000)\n"
        "  --token-file PATH     shared secret clients must prove they hold (required\n"
        "                        to listen on a non-loopback address)\n"
        "  --insecure            listen on a non-loopback address without a token\n"
        "  --tls-cert PEM        certificate chain; enables TLS (with --tls-key)\n"
        "  --tls-key PEM         private key of --tls-cert\n"
        "  --require-tls         refuse plain-text connections\n"
        "  --max-handles N       streams, events, modules, functions per session, each\n"
        "                        (default %u)\n"
        "  --max-streams N       streams per session (default %u)\n"
        "  --max-streams-total N streams of all sessions together (default %u)\n"
        "  --max-module-size SIZE  largest code object a session may load (default 256M)\n"
        "  --max-inflight SIZE   queued work per session not yet finished (default 256M);\n"
        "                        beyond it the session stops reading (backpressure)\n"
        "  --idle-timeout TIME   end a session with no request for TIME (e.g. 600, 10m,\n"
        "                        1h, 500ms; bare numbers are seconds; default: never)\n"
        "  --resume-grace TIME   keep a session whose connection broke this long for its\n"
        "                        client to resume it (default 60s; 0: end it at once)\n"
        "  --resume-buffer SIZE  unacknowledged replies a session may keep for resume\n"
        "                        (default 256M; beyond it the session stops being resumable)\n"
        "  --migrate-to HOST:PORT  at SIGTERM, move every live session to that worker\n"
        "                        first (same device addresses; the clients follow)\n"
        "  --migrate-wait TIME   how long the moves may take before the sessions left\n"
        "                        are ended (default 60s)\n"
        "  --rtc-timeout S       wall time of one run-time compile (default 60)\n"
        "  --rtc-max-output SIZE largest file a run-time compile may write (default 64M)\n"
        "  --rtc-dir PATH        where compiles get private directories (default $TMPDIR or /tmp)\n"
        "  --hipcc PATH          the compiler for run-time compiles (default: hipcc in PATH)\n"
        "  --rtc-max-concurrent N  run-time compiles running at once across all sessions\n"
        "                        (default: half the CPUs, at least 1)\n"
        "  --rtc-queue-timeout S how long a compile waits for one of those before it is\n"
        "                        refused (default 30; 0: refuse at once)\n"
        "  --rtc-max-memory SIZE address space of one compiler process (default 4G)\n"
        "  --rtc-cache-dir PATH  keep compile results here, shared by sessions and kept\n"
        "                        after them (default: no cache)\n"
        "  --rtc-cache-max SIZE  bytes the cache may hold; least recently used entries\n"
        "                        go first (default 1G)\n"
        "  --metrics-listen HOST:PORT  serve Prometheus metrics at http://HOST:PORT/metrics\n"
        "                        (off by default; PORT 0 picks one)\n"
        "  --metrics-port-file PATH  write the metrics port there\n"
        "  --no-shm              never offer the same-host shared-memory transport\n"
        "  --shm-dir PATH        where same-host clients pick their shared memory up (a\n"
        "                        directory both see; default /dev/shm)\n"
        "  --shm-ring SIZE       bytes of each shared-memory ring (default 8M)\n"
        "  --config FILE         read options from FILE: one `name = value` (or a bare\n"
        "                        `name` for a flag) per line, names as above without\n"
        "                        the dashes; flags on the command line override it\n"
        "  --help, --version\n"
        "Environment: TF_DEBUG=1 for debug logs.\n",
        HIPR_DEFAULT_PORT, WORKER_DEFAULT_MAX_HANDLES, WORKER_DEFAULT_MAX_STREAMS,
        WORKER_DEFAULT_MAX_STREAMS_TOTAL);
}

/* "512M" -> bytes; -1 on garbage or overflow. */
static int parse_size(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || s[0] == '-')
        return -1;
    unsigned shift = 0;
    switch (*end) {
    case 'k':
    case 'K':
        shift = 10;
        end++;
        break;
    case 'm':
    case 'M':
        shift = 20;
        end++;
        break;
    case 'g':
    case 'G':
        shift = 30;
        end++;
        break;
    case 't':
    case 'T':
        shift = 40;
        end++;
        break;
    default: break;
    }
    if (*end == 'i' || *end == 'B')
        end++;
    if (*end == 'B')
        end++;
    if (*end != '\0' || (shift && v > (UINT64_MAX >> shift)))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

/* "90", "90s", "500ms", "10m", "2h" -> milliseconds; -1 on garbage. */
static int parse_duration_ms(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || s[0] == '-')
        return -1;
    uint64_t scale;
    if (!strcmp(end, "") || !strcmp(end, "s"))
        scale = 1000;
    else if (!strcmp(end, "ms"))
        scale = 1;
    else if (!strcmp(end, "m"))
        scale = 60 * 1000;
    else if (!strcmp(end, "h"))
        scale = 3600 * 1000;
    else
        return -1;
    if (v > UINT64_MAX / 1000000u / scale) /* kept in ns later */
        return -1;
    *out = (uint64_t)v * scale;
    return 0;
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

/*
 * Opens the backend once in a throwaway child, so a worker that can serve
 * nothing says so at start instead of at the first client, while the
 * supervisor itself never initialises a GPU runtime.
 */
static int probe_backend(const struct worker_config *cfg, struct worker_info *info)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        static const char *const order[] = { "hip", "cuda", "cpu" };
        struct hw_backend_config bc = { .cpu_devices = cfg->cpu_devices,
                                        .mem_limit = cfg->mem_limit };
        for (size_t i = 0; i < 3; i++) {
            const char *name = strcmp(cfg->backend, "auto") == 0 ? order[i] : cfg->backend;
            const struct hw_backend_ops *ops = hw_backend_find(name);
            struct hw_backend *be = NULL;
            int n = 0;
            if (!ops) {
                if (strcmp(cfg->backend, "auto") != 0) {
                    hw_error("backend '%s' is not built into this worker", name);
                    _exit(2);
                }
                continue;
            }
            int rc = ops->open(&bc, &be);
            if (rc == HW_OK && ops->device_count(be, &n) == HW_OK && n > 0) {
                for (int d = 0; d < n; d++) {
                    struct hipr_devinfo di;
                    if (ops->device_info(be, d, &di) != HW_OK)
                        memset(&di, 0, sizeof di);
                    hw_info("device %d: %s (%s), %.3f GiB", d, di.name, di.arch_name,
                            (double)di.total_global_mem / (double)(1ull << 30));
                    if (d < HIPR_CAP_DEVICES) /* what WORKER_INFO reports */
                        info->devs[d] = di;
                }
                info->device_count = (uint32_t)(n < HIPR_CAP_DEVICES ? n : HIPR_CAP_DEVICES);
                strncpy(info->backend, ops->name, sizeof info->backend - 1);
                ops->close(be);
                _exit(0);
            }
            if (rc == HW_OK)
                ops->close(be);
            if (strcmp(cfg->backend, "auto") != 0) {
                hw_error("backend %s: %s", name,
                         rc == HW_OK || rc == HW_ENODEV
                             ? "no device found (no GPU, driver or runtime)"
                             : "failed to initialise");
                _exit(3);
            }
            hw_debug("backend %s: no usable device (status %d)", name,
                     rc == HW_OK ? HW_ENODEV : rc);
        }
        _exit(3);
    }
    int status;
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status) == 0 ? 0 : -1;
}

/*
 * Token, TLS and the bind address. A worker reachable from other hosts runs
 * code for whoever connects, so it does not listen beyond loopback without a
 * token unless told to with --insecure. Returns 0 or the exit status.
 */
static int setup_security(struct worker_config *cfg, struct hw_token *token, const char *token_file,
                          int insecure, const char *tls_cert, const char *tls_key)
{
    char why[512];
    if (token_file) {
        struct stat st;
        if (hw_token_from_file(token_file, token, why, sizeof why) < 0) {
            hw_error("--token-file: %s", why);
            return 2;
        }
        /* systemd's credentials are group-readable, but only by the unit. */
        const char *creds = getenv("CREDENTIALS_DIRECTORY");
        bool from_creds = creds && *creds && strncmp(token_file, creds, strlen(creds)) == 0;
        if (!from_creds && stat(token_file, &st) == 0 && (st.st_mode & 077))
            hw_warn("--token-file %s is readable by other users (chmod 600 it)", token_file);
        cfg->token = token;
    }
    if (!tls_cert != !tls_key) {
        hw_error("--tls-cert and --tls-key go together");
        return 2;
    }
    if (tls_cert) {
        cfg->tls = hw_tls_server_ctx(tls_cert, tls_key, why, sizeof why);
        if (!cfg->tls) {
            hw_error("TLS: %s", why);
            return 2;
        }
    }
    if (cfg->require_tls && !cfg->tls) {
        hw_error("--require-tls needs --tls-cert and --tls-key");
        return 2;
    }
    int lo = hw_addr_is_loopback(cfg->bind);
    if (lo < 0) {
        hw_error("--bind %s: cannot resolve the address", cfg->bind);
        return 2;
    }
    if (!lo && !cfg->token && !insecure) {
        hw_error("refusing to listen on %s without --token-file: anyone who can reach it could "
                 "run code on this machine's devices and read their memory (pass --insecure to "
                 "do it anyway)",
                 cfg->bind);
        return 2;
    }
    if (!lo && !cfg->token)
        hw_warn("--insecure: listening on %s with no authentication", cfg->bind);
    if (!lo && cfg->token && !cfg->tls)
        hw_warn("listening on %s without TLS: clients are authenticated, but their data "
                "crosses the network in the clear",
                cfg->bind);
    return 0;
}

int main(int argc, char **argv)
{
    struct worker_config cfg = {
        .bind = "127.0.0.1",
        .port = HIPR_DEFAULT_PORT,
        .backend = "auto",
        .max_sessions = 64,
        .admission_queue = 256,
        .cpu_devices = 1,
        .handshake_timeout_ms = 5000,
        .max_handles = WORKER_DEFAULT_MAX_HANDLES,
        .max_streams = WORKER_DEFAULT_MAX_STREAMS,
        .max_streams_total = WORKER_DEFAULT_MAX_STREAMS_TOTAL,
        .max_module_size = HIPR_CAP_MODULE,
        .max_inflight = WORKER_DEFAULT_MAX_INFLIGHT,
        .resume_grace_ms = WORKER_DEFAULT_RESUME_GRACE_MS,
        .migrate_wait_ms = 60000,
        .resume_buffer = WORKER_DEFAULT_RESUME_BUFFER,
        .rtc_max_memory = 4ull << 30,
        .rtc_queue_timeout_ms = 30000,
        .shm_dir = "/dev/shm",
        .shm_ring = HW_SHM_RING_DEFAULT,
    };
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int rtc_max_concurrent = ncpu >= 2 ? (int)(ncpu / 2) : 1;
    struct rtc_slots *rtc_slots = NULL;
    enum {
        O_BIND = 1,
        O_PORT,
        O_PORT_FILE,
        O_BACKEND,
        O_MAX,
        O_MEM,
        O_CPUDEV,
        O_HS,
        O_HANDLES,
        O_STREAMS,
        O_STREAMS_TOTAL,
        O_MODSIZE,
        O_INFLIGHT,
        O_IDLE,
        O_HELP,
        O_VERSION,
        O_TOKEN,
        O_INSECURE,
        O_TLS_CERT,
        O_TLS_KEY,
        O_REQUIRE_TLS,
        O_GRACE,
        O_RBUF,
        O_RTC_TIMEOUT,
        O_RTC_OUTPUT,
        O_RTC_DIR,
        O_HIPCC,
        O_RTC_CONC,
        O_RTC_QUEUE,
        O_RTC_MEM,
        O_RTC_CACHE_DIR,
        O_RTC_CACHE_MAX,
        O_METRICS,
        O_METRICS_PORT_FILE,
        O_CONFIG,
        O_ADMISSION,
        O_PREWARM,
        O_NO_SHM,
        O_SHM_DIR,
        O_SHM_RING,
        O_MIGRATE_TO,
        O_MIGRATE_WAIT,
        O_ISOLATION
    };
    const char *rtc_cache_dir = NULL;
    uint64_t rtc_cache_max = 1ull << 30;
    struct rtc_cache *rtc_cache = NULL;
    const char *token_file = NULL, *tls_cert = NULL, *tls_key = NULL;
    int insecure = 0;
    static const struct option opts[] = {
        { "bind", required_argument, NULL, O_BIND },
        { "port", required_argument, NULL, O_PORT },
        { "port-file", required_argument, NULL, O_PORT_FILE },
        { "backend", required_argument, NULL, O_BACKEND },
        { "max-sessions", required_argument, NULL, O_MAX },
        { "mem-limit", required_argument, NULL, O_MEM },
        { "cpu-devices", required_argument, NULL, O_CPUDEV },
        { "handshake-timeout", required_argument, NULL, O_HS },
        { "max-handles", required_argument, NULL, O_HANDLES },
        { "max-streams", required_argument, NULL, O_STREAMS },
        { "max-streams-total", required_argument, NULL, O_STREAMS_TOTAL },
        { "max-module-size", required_argument, NULL, O_MODSIZE },
        { "max-inflight", required_argument, NULL, O_INFLIGHT },
        { "idle-timeout", required_argument, NULL, O_IDLE },
        { "help", no_argument, NULL, O_HELP },
        { "version", no_argument, NULL, O_VERSION },
        { "token-file", required_argument, NULL, O_TOKEN },
        { "insecure", no_argument, NULL, O_INSECURE },
        { "tls-cert", required_argument, NULL, O_TLS_CERT },
        { "tls-key", required_argument, NULL, O_TLS_KEY },
        { "require-tls", no_argument, NULL, O_REQUIRE_TLS },
        { "resume-grace", required_argument, NULL, O_GRACE },
        { "resume-buffer", required_argument, NULL, O_RBUF },
        { "rtc-timeout", required_argument, NULL, O_RTC_TIMEOUT },
        { "rtc-max-output", required_argument, NULL, O_RTC_OUTPUT },
        { "rtc-dir", required_argument, NULL, O_RTC_DIR },
        { "hipcc", required_argument, NULL, O_HIPCC },
        { "rtc-max-concurrent", required_argument, NULL, O_RTC_CONC },
        { "rtc-queue-timeout", required_argument, NULL, O_RTC_QUEUE },
        { "rtc-max-memory", required_argument, NULL, O_RTC_MEM },
        { "rtc-cache-dir", required_argument, NULL, O_RTC_CACHE_DIR },
        { "rtc-cache-max", required_argument, NULL, O_RTC_CACHE_MAX },
        { "metrics-listen", required_argument, NULL, O_METRICS },
        { "metrics-port-file", required_argument, NULL, O_METRICS_PORT_FILE },
        { "config", required_argument, NULL, O_CONFIG },
        { "admission-queue", required_argument, NULL, O_ADMISSION },
        { "prewarm", required_argument, NULL, O_PREWARM },
        { "no-shm", no_argument, NULL, O_NO_SHM },
        { "shm-dir", required_argument, NULL, O_SHM_DIR },
        { "shm-ring", required_argument, NULL, O_SHM_RING },
        { "migrate-to", required_argument, NULL, O_MIGRATE_TO },
        { "migrate-wait", required_argument, NULL, O_MIGRATE_WAIT },
        { "isolation", required_argument, NULL, O_ISOLATION },
        { NULL, 0, NULL, 0 },
    };
    hw_log_init("hip-worker");
    hw_log_timestamps(1);
    /* The config file's options go before the command line's (hw_config.h);
     * the expanded argv lives as long as the process (optarg points into it). */
    static char **cfg_argv; /* static: reachable until exit, so no leak is reported */
    char cfg_err[512];
    if (hw_config_expand(argc, argv, opts, &argc, &cfg_argv, cfg_err, sizeof(cfg_err)) < 0) {
        fprintf(stderr, "hip-worker: %s\n", cfg_err);
        return 2;
    }
    argv = cfg_argv;
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case O_BIND: cfg.bind = optarg; break;
        case O_PORT:
            if (parse_int(optarg, 0, 65535, &cfg.port) < 0)
                goto bad;
            break;
        case O_PORT_FILE: cfg.port_file = optarg; break;
        case O_BACKEND:
            if (strcmp(optarg, "cpu") && strcmp(optarg, "cuda") && strcmp(optarg, "hip") &&
                strcmp(optarg, "auto"))
                goto bad;
            cfg.backend = optarg;
            break;
        case O_MAX:
            if (parse_int(optarg, 1, 4096, &cfg.max_sessions) < 0)
                goto bad;
            break;
        case O_MEM:
            if (parse_size(optarg, &cfg.mem_limit) < 0)
                goto bad;
            break;
        case O_CPUDEV:
            if (parse_int(optarg, 1, HIPR_CAP_DEVICES, &cfg.cpu_devices) < 0)
                goto bad;
            break;
        case O_HS:
            if (parse_int(optarg, 100, 600000, &cfg.handshake_timeout_ms) < 0)
                goto bad;
            break;
        case O_TOKEN: token_file = optarg; break;
        case O_INSECURE: insecure = 1; break;
        case O_TLS_CERT: tls_cert = optarg; break;
        case O_TLS_KEY: tls_key = optarg; break;
        case O_REQUIRE_TLS: cfg.require_tls = 1; break;
        case O_HANDLES: {
            int n;
            if (parse_int(optarg, 1, 1 << 24, &n) < 0)
                goto bad;
            cfg.max_handles = (uint32_t)n;
            break;
        }
        case O_STREAMS:
        case O_STREAMS_TOTAL: {
            int n;
            if (parse_int(optarg, 1, 1 << 20, &n) < 0)
                goto bad;
            *(c == O_STREAMS ? &cfg.max_streams : &cfg.max_streams_total) = (uint32_t)n;
            break;
        }
        case O_MODSIZE:
            /* Above the protocol's cap a frame is refused before any limit. */
            if (parse_size(optarg, &cfg.max_module_size) < 0 || cfg.max_module_size == 0)
                goto bad;
            if (cfg.max_module_size > HIPR_CAP_MODULE) {
                fprintf(stderr, "hip-worker: --max-module-size is at most 256M (the protocol's "
                                "cap on one image)\n");
                return 2;
            }
            break;
        case O_INFLIGHT:
            if (parse_size(optarg, &cfg.max_inflight) < 0)
                goto bad;
            if (cfg.max_inflight < HIPR_MiB) {
                fprintf(stderr, "hip-worker: --max-inflight is at least 1M\n");
                return 2;
            }
            break;
        case O_IDLE:
            if (parse_duration_ms(optarg, &cfg.idle_timeout_ms) < 0)
                goto bad;
            break;
        case O_GRACE:
            if (parse_duration_ms(optarg, &cfg.resume_grace_ms) < 0 ||
                cfg.resume_grace_ms > UINT32_MAX)
                goto bad;
            break;
        case O_RBUF:
            if (parse_size(optarg, &cfg.resume_buffer) < 0)
                goto bad;
            if (cfg.resume_buffer < HIPR_CAP_COPY_CHUNK) {
                fprintf(stderr, "hip-worker: --resume-buffer is at least 64M (one copy chunk)\n");
                return 2;
            }
            break;
        case O_RTC_TIMEOUT: {
            int sec;
            if (parse_int(optarg, 1, 3600, &sec) < 0)
                goto bad;
            cfg.rtc_timeout_ms = sec * 1000;
            break;
        }
        case O_RTC_OUTPUT:
            if (parse_size(optarg, &cfg.rtc_max_output) < 0 || cfg.rtc_max_output < 4096)
                goto bad;
            break;
        case O_RTC_DIR: cfg.rtc_dir = optarg; break;
        case O_HIPCC: cfg.hipcc = optarg; break;
        case O_RTC_CONC:
            if (parse_int(optarg, 1, 4096, &rtc_max_concurrent) < 0)
                goto bad;
            break;
        case O_RTC_QUEUE: {
            int sec;
            if (parse_int(optarg, 0, 3600, &sec) < 0)
                goto bad;
            cfg.rtc_queue_timeout_ms = sec * 1000;
            break;
        }
        case O_RTC_MEM:
            /* Below this not even the compiler's driver starts. */
            if (parse_size(optarg, &cfg.rtc_max_memory) < 0 || cfg.rtc_max_memory < (64u << 20))
                goto bad;
            break;
        case O_RTC_CACHE_DIR: rtc_cache_dir = optarg; break;
        case O_RTC_CACHE_MAX:
            if (parse_size(optarg, &rtc_cache_max) < 0 || rtc_cache_max < 4096)
                goto bad;
            break;
        case O_METRICS: {
            char host[256];
            int mport;
            if (metrics_parse_hostport(optarg, host, sizeof host, &mport) < 0)
                goto bad;
            cfg.metrics_listen = optarg;
            break;
        }
        case O_METRICS_PORT_FILE: cfg.metrics_port_file = optarg; break;
        case O_CONFIG: break; /* read by hw_config_expand */
        case O_ADMISSION: {
            int n;
            if (parse_int(optarg, 0, 65536, &n) < 0)
                goto bad;
            cfg.admission_queue = (uint32_t)n;
            break;
        }
        case O_PREWARM:
            if (parse_int(optarg, 0, 4096, &cfg.prewarm) < 0)
                goto bad;
            break;
        case O_ISOLATION:
            if (strcmp(optarg, "process") == 0)
                cfg.isolation = WORKER_ISOLATION_PROCESS;
            else if (strcmp(optarg, "shared") == 0)
                cfg.isolation = WORKER_ISOLATION_SHARED;
            else if (strcmp(optarg, "mps") == 0) {
                fprintf(stderr, "hip-worker: --isolation mps is designed but not built "
                                "(docs/worker.md, \"Isolation modes\"); use process or shared\n");
                return 2;
            } else
                goto bad;
            break;
        case O_NO_SHM: cfg.no_shm = 1; break;
        case O_MIGRATE_TO: {
            struct hw_worker_addr a;
            char why[128];
            if (hw_worker_list_parse(optarg, HIPR_DEFAULT_PORT, &a, 1, why, sizeof why) != 1)
                goto bad;
            cfg.migrate_to = optarg;
            break;
        }
        case O_MIGRATE_WAIT:
            if (parse_duration_ms(optarg, &cfg.migrate_wait_ms) < 0)
                goto bad;
            break;
        case O_SHM_DIR: cfg.shm_dir = optarg; break;
        case O_SHM_RING:
            if (parse_size(optarg, &cfg.shm_ring) < 0 || !hw_shm_region_size(cfg.shm_ring))
                goto bad;
            break;
        case O_HELP:
        case 'h': usage(stdout); return 0;
        case O_VERSION: printf("hip-worker %s\n", HIPWIRE_VERSION); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc) {
        fprintf(stderr, "hip-worker: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    /* Migration signals a session process and moves its whole state; the
     * sessions of a shared device process are threads, which it cannot
     * single out yet (docs/worker.md, "Migration"). */
    if (cfg.migrate_to && cfg.isolation == WORKER_ISOLATION_SHARED) {
        fprintf(stderr, "hip-worker: --migrate-to needs --isolation process: sessions of a "
                        "shared device process cannot be moved yet\n");
        return 2;
    }
    static struct hw_token token;
    int rc = setup_security(&cfg, &token, token_file, insecure, tls_cert, tls_key);
    if (rc != 0)
        return rc;
    struct worker_info *info = worker_info_create();
    if (!info) {
        hw_error("out of memory");
        rc = 1;
        goto out;
    }
    cfg.info = info;
    if (probe_backend(&cfg, info) < 0) {
        hw_error("no usable device for --backend %s; not starting", cfg.backend);
        rc = 1;
        goto out;
    }
    hw_info("per session: --mem-limit %.3f GiB (0: the device's size), --max-handles %u, "
            "--max-streams %u (worker-wide %u), --max-module-size %llu, --max-inflight %llu, "
            "--idle-timeout %llu ms (0: none), --resume-grace %llu ms (0: no resume)",
            (double)cfg.mem_limit / (double)(1ull << 30), cfg.max_handles, cfg.max_streams,
            cfg.max_streams_total, (unsigned long long)cfg.max_module_size,
            (unsigned long long)cfg.max_inflight, (unsigned long long)cfg.idle_timeout_ms,
            (unsigned long long)cfg.resume_grace_ms);
    /* Mapped before any session is forked, so every session shares it. */
    rtc_slots = rtc_slots_create((uint32_t)rtc_max_concurrent);
    if (!rtc_slots) {
        hw_error("out of memory");
        rc = 1;
        goto out;
    }
    cfg.rtc_slots = rtc_slots;
    if (rtc_cache_dir) {
        /* Also before any fork: the counters are one shared page. */
        rtc_cache = rtc_cache_create(rtc_cache_dir, rtc_cache_max);
        if (!rtc_cache) {
            rc = 1;
            goto out;
        }
        cfg.rtc_cache = rtc_cache;
        hw_info("compiled-kernel cache: %s, at most %llu bytes", rtc_cache_dir,
                (unsigned long long)rtc_cache_max);
    }
    if (cfg.metrics_listen) {
        cfg.metrics = worker_metrics_create((uint32_t)cfg.max_sessions);
        if (!cfg.metrics) {
            hw_error("out of memory");
            rc = 1;
            goto out;
        }
    }
    hw_info("run-time compiles: --rtc-max-concurrent %d (worker-wide), --rtc-queue-timeout "
            "%d s, --rtc-max-memory %llu",
            rtc_max_concurrent, cfg.rtc_queue_timeout_ms / 1000,
            (unsigned long long)cfg.rtc_max_memory);
    rc = supervisor_run(&cfg);
out:
    rtc_cache_destroy(rtc_cache);
    rtc_slots_destroy(rtc_slots);
    worker_metrics_destroy(cfg.metrics);
    worker_info_destroy(info);
    hw_tls_ctx_free(cfg.tls);
    hw_token_clear(&token);
    return rc;
bad:
    fprintf(stderr, "hip-worker: bad value '%s' for --%s\n", optarg, opts[c - 1].name);
    return 2;
}
