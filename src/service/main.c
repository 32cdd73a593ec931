/* hipwire-service - submit a HIP kernel, get it checked and benchmarked on
 * a pool of hip-workers, live (docs/service.md). */
#include "hw_alloc.h"
#include "service.h"

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#ifndef HIPWIRE_SERVICE_WORKER
#define HIPWIRE_SERVICE_WORKER "/usr/bin/hip-worker"
#endif
#ifndef HIPWIRE_SERVICE_RUNNER
#define HIPWIRE_SERVICE_RUNNER "/usr/bin/hipwire-runner"
#endif
#ifndef HIPWIRE_SERVICE_CC
#define HIPWIRE_SERVICE_CC "/usr/bin/hipwire-cc"
#endif
#ifndef HIPWIRE_SERVICE_PROBLEMS
#define HIPWIRE_SERVICE_PROBLEMS "/usr/share/hipwire/problems"
#endif

static struct svc_config cfg = {
    .listen_host = "127.0.0.1",
    .listen_port = 8080,
    .db_path = "hipwire-service.db",
    .problems_dir = HIPWIRE_SERVICE_PROBLEMS,
    .dstack_project = "main",
    .dstack_image = "rocm/dev-ubuntu-22.04",
    .dstack_idle = "10m",
    .dstack_worker_port = 18515,
    .dstack_poll_s = 2,
    .time_limit_s = 100,
    .max_body = 1 << 20,
    .rate_per_min = 60,
    .max_active = 8,
    .check_slots = 4,
    .flush_bytes_gpu = (size_t)1 << 30,
    .flush_bytes_cpu = (size_t)32 << 20,
    .bench_budget_s = 10,
};

const struct svc_config *svc_cfg(void)
{
    return &cfg;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: hipwire-service --listen HOST:PORT [--token-file F] [--worker HOST:PORT]...\n"
            "         [--db PATH] [--problems DIR] [--dstack-url URL --dstack-token-file F\n"
            "         --dstack-project P [--dstack-gpu TYPE]...] [--time-limit S]\n"
            "         [--max-body BYTES] [--rate N] [--max-active N] [--check-slots N]\n"
            "         [--bench-budget S] [--flush-bytes-cpu BYTES] [--flush-bytes-gpu BYTES]\n"
            "         [--worker-token-file F]\n"
            "Checks and benchmarks HIP solutions on a pool of hip-workers and streams the\n"
            "progress as Server-Sent Events. Without --worker it starts a private\n"
            "hip-worker on the CPU device (GPU type \"cpu\"). See docs/service.md.\n");
}

static int split_hostport(const char *s, char *host, size_t hsz, int *port)
{
    const char *colon = strrchr(s, ':');
    if (!colon || colon == s || (size_t)(colon - s) >= hsz)
        return -1;
    memcpy(host, s, (size_t)(colon - s));
    host[colon - s] = '\0';
    if (host[0] == '[') {
        memmove(host, host + 1, strlen(host));
        host[strcspn(host, "]")] = '\0';
    }
    *port = atoi(colon + 1);
    return *port > 0 && *port < 65536 ? 0 : -1;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    stop = sig;
}

int main(int argc, char **argv)
{
    enum {
        O_LISTEN = 256,
        O_TOKEN,
        O_WORKER,
        O_DB,
        O_PROBLEMS,
        O_DURL,
        O_DTOKEN,
        O_DPROJ,
        O_DGPU,
        O_DPOLL,
        O_TL,
        O_BODY,
        O_RATE,
        O_ACTIVE,
        O_SLOTS,
        O_BUDGET,
        O_FCPU,
        O_FGPU,
        O_WTOKEN,
    };
    static const struct option opts[] = {
        { "listen", required_argument, NULL, O_LISTEN },
        { "token-file", required_argument, NULL, O_TOKEN },
        { "worker", required_argument, NULL, O_WORKER },
        { "db", required_argument, NULL, O_DB },
        { "problems", required_argument, NULL, O_PROBLEMS },
        { "dstack-url", required_argument, NULL, O_DURL },
        { "dstack-token-file", required_argument, NULL, O_DTOKEN },
        { "dstack-project", required_argument, NULL, O_DPROJ },
        { "dstack-gpu", required_argument, NULL, O_DGPU },
        { "dstack-poll", required_argument, NULL, O_DPOLL },
        { "time-limit", required_argument, NULL, O_TL },
        { "max-body", required_argument, NULL, O_BODY },
        { "rate", required_argument, NULL, O_RATE },
        { "max-active", required_argument, NULL, O_ACTIVE },
        { "check-slots", required_argument, NULL, O_SLOTS },
        { "bench-budget", required_argument, NULL, O_BUDGET },
        { "flush-bytes-cpu", required_argument, NULL, O_FCPU },
        { "flush-bytes-gpu", required_argument, NULL, O_FGPU },
        { "worker-token-file", required_argument, NULL, O_WTOKEN },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 },
    };
    const char *workers[64];
    int nworkers = 0, c;
    char host[256];
    while ((c = getopt_long(argc, argv, "hV", opts, NULL)) != -1) {
        switch (c) {
        case O_LISTEN:
            if (split_hostport(optarg, host, sizeof host, &cfg.listen_port) != 0) {
                fprintf(stderr, "hipwire-service: --listen wants HOST:PORT\n");
                return 2;
            }
            cfg.listen_host = hw_strdup(host);
            break;
        case O_TOKEN: cfg.token_file = optarg; break;
        case O_WORKER:
            if (nworkers < 64)
                workers[nworkers++] = optarg;
            break;
        case O_DB: cfg.db_path = optarg; break;
        case O_PROBLEMS: cfg.problems_dir = optarg; break;
        case O_DURL: cfg.dstack_url = optarg; break;
        case O_DTOKEN: cfg.dstack_token_file = optarg; break;
        case O_DPROJ: cfg.dstack_project = optarg; break;
        case O_DGPU:
            if (cfg.n_dstack_gpus < 16)
                cfg.dstack_gpus[cfg.n_dstack_gpus++] = optarg;
            break;
        case O_DPOLL: cfg.dstack_poll_s = atof(optarg); break;
        case O_TL: cfg.time_limit_s = atof(optarg); break;
        case O_BODY: cfg.max_body = (size_t)strtoull(optarg, NULL, 10); break;
        case O_RATE: cfg.rate_per_min = atoi(optarg); break;
        case O_ACTIVE: cfg.max_active = atoi(optarg); break;
        case O_SLOTS: cfg.check_slots = atoi(optarg); break;
        case O_BUDGET: cfg.bench_budget_s = atof(optarg); break;
        case O_FCPU: cfg.flush_bytes_cpu = (size_t)strtoull(optarg, NULL, 10); break;
        case O_FGPU: cfg.flush_bytes_gpu = (size_t)strtoull(optarg, NULL, 10); break;
        case O_WTOKEN: cfg.worker_token_file = optarg; break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("hipwire-service %s\n", HIPWIRE_VERSION); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (cfg.dstack_url && cfg.n_dstack_gpus == 0)
        cfg.dstack_gpus[cfg.n_dstack_gpus++] = "MI300X";
    if (cfg.time_limit_s <= 0 || cfg.check_slots < 1 || cfg.max_active < 1 ||
        cfg.rate_per_min < 1 || cfg.max_body < 1) {
        fprintf(stderr, "hipwire-service: limits must be positive\n");
        return 2;
    }
    cfg.runner_path = paths_find("hipwire-runner", HIPWIRE_SERVICE_RUNNER);
    cfg.worker_path = paths_find("hip-worker", HIPWIRE_SERVICE_WORKER);
    cfg.cc_path = paths_find("hipwire-cc", HIPWIRE_SERVICE_CC);
    if (!cfg.runner_path) {
        fprintf(stderr,
                "hipwire-service: hipwire-runner not found (beside this binary, %s, "
                "or in PATH)\n",
                HIPWIRE_SERVICE_RUNNER);
        return 1;
    }
    if (!cfg.cc_path)
        fprintf(stderr, "hipwire-service: hipwire-cc not found: language \"hip\" submissions "
                        "will end in COMPILE_ERROR; \"hip-kernel\" ones work\n");
    signal(SIGPIPE, SIG_IGN);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    if (cfg.token_file && auth_load(cfg.token_file) != 0)
        return 1;
    if (problems_load(cfg.problems_dir) != 0)
        return 1;
    if (store_open(cfg.db_path) != 0)
        return 1;
    int private_port = 0;
    if (nworkers == 0) {
        if (!cfg.worker_path || worker_local_start(&private_port) != 0) {
            fprintf(stderr, "hipwire-service: cannot start a private hip-worker (%s)\n",
                    cfg.worker_path ? cfg.worker_path : "hip-worker not found");
            return 1;
        }
        if (pool_add_worker("127.0.0.1", private_port, NULL, NULL) != 0) {
            worker_local_stop();
            return 1;
        }
    }
    for (int i = 0; i < nworkers; i++) {
        int port;
        if (split_hostport(workers[i], host, sizeof host, &port) != 0) {
            fprintf(stderr, "hipwire-service: --worker wants HOST:PORT, not %s\n", workers[i]);
            return 2;
        }
        if (pool_add_worker(host, port, NULL, NULL) != 0)
            fprintf(stderr, "hipwire-service: worker %s left out for now\n", workers[i]);
    }
    dstack_adopt_running();
    pool_start_health();
    sched_start();
    if (http_start(cfg.listen_host, cfg.listen_port) != 0) {
        worker_local_stop();
        return 1;
    }
    fprintf(stderr, "hipwire-service: listening on http://%s:%d/\n", cfg.listen_host,
            cfg.listen_port);
    while (!stop)
        pause();
    fprintf(stderr, "hipwire-service: stopping (signal %d)\n", (int)stop);
    http_stop();
    worker_local_stop();
    refcache_cleanup();
    store_close();
    return 0;
}
