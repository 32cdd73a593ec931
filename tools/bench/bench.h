/*
 * bench.h - hipwire-bench: what is measured, against what, and the results.
 *
 * Every measurement of the HIP side goes through a `struct bench_ops`, so the
 * same code times the proxy (remote HIP over hipwire) and, on a GPU machine,
 * the local runtime (a NATIVE column). The raw-socket reference is not an
 * ops table: it is the transport hipwire itself runs on, measured in the same
 * run so that every ratio compares like with like.
 */
#ifndef HIPWIRE_BENCH_H
#define HIPWIRE_BENCH_H

#include <stddef.h>
#include <stdint.h>

/* ---- options ------------------------------------------------------------ */

struct bench_options {
    const char *worker;       /* HOST:PORT given with --worker, or NULL */
    const char *spawn_worker; /* hip-worker binary to start, or NULL */
    const char *kernels;      /* code object holding `empty` and `spin_ns` */
    const char *json_path;    /* --json FILE, or NULL */
    int quick;                /* --quick: fewer repetitions, smaller sizes */
    int only_section;         /* --section N: run one section (profiling); 0 = all */
    int transports;           /* --transports: shm vs TCP vs raw vs memcpy only */
};

/* bench_transport.c: `--transports` (the parent, given the connection to
 * the raw server) and the child it runs per transport (`--transport-child`). */
int bench_transport_main(int argc, char **argv, int raw_fd);
int bench_transport_child(int argc, char **argv);

/* ---- the calls being timed ---------------------------------------------- */

/*
 * One implementation of the HIP-side calls. Every function returns 0 on
 * success or the runtime's error code, which error_name() turns into text.
 * A native CUDA (or native HIP) implementation fills the same table and is
 * returned by bench_native_ops() (ops_native.c).
 */
struct bench_ops {
    const char *name; /* column label: "hipwire", "native" */
    int (*init)(const struct bench_options *opt, char *why, size_t why_len);
    void (*fini)(void);
    const char *(*error_name)(int code);

    /* Round-trip probes: each makes exactly one call. */
    int (*local_query)(void);  /* answered in process: hipGetDevice */
    int (*stream_query)(void); /* hipStreamQuery(NULL) */
    int (*mem_get_info)(void); /* hipMemGetInfo */

    /* Launches of a kernel that does nothing, on the default stream. */
    int (*launch_empty)(void);
    /* Launches of spin_ns(ns, NULL): busy for ns of device time (the GPU's
     * global timer), on the default stream. */
    int (*launch_spin)(unsigned long long ns);
    int (*device_synchronize)(void);

    /* Memory and copies. Pinned means hipHostMalloc (cudaMallocHost). */
    int (*device_alloc)(void **ptr, size_t size);
    void (*device_free)(void *ptr);
    int (*pinned_alloc)(void **ptr, size_t size);
    void (*pinned_free)(void *ptr);
    int (*copy_h2d)(void *dst, const void *src, size_t size); /* hipMemcpy, blocking */
    int (*copy_d2h)(void *dst, const void *src, size_t size);

    /* A line describing the device, for the report header. */
    void (*describe)(char *out, size_t out_len);
};

const struct bench_ops *bench_hip_ops(void);
/* NULL until a native implementation is built in (see ops_native.c). */
const struct bench_ops *bench_native_ops(void);

/* ---- raw TCP reference (raw_tcp.c) --------------------------------------- */

/* A forked loopback server: 24-byte echo, push (read N, ack 24 B) and pull
 * (send N). Started before any HIP call so that no thread is forked. */
struct raw_server {
    int pid;
    int port;
};

int raw_server_start(struct raw_server *srv);
void raw_server_stop(struct raw_server *srv);
int raw_connect(int port);                          /* fd, or -1 */
int raw_echo(int fd);                               /* 0 when the 24 bytes came back */
int raw_push(int fd, const void *buf, size_t size); /* size bytes out, ack back */
int raw_pull(int fd, void *buf, size_t size);       /* request out, size bytes back */
/* Applies the socket options hipwire uses (TCP_NODELAY, 4 MiB buffers). */
void raw_tune(int fd);

/* ---- samples and statistics (stats.c) ------------------------------------- */

uint64_t bench_now_ns(void);

struct sample_set {
    double *ns; /* one duration per sample */
    size_t n, cap;
};

int samples_reserve(struct sample_set *s, size_t cap);
void samples_add(struct sample_set *s, double ns);
void samples_free(struct sample_set *s);

struct stats {
    size_t n;
    double min_us, p50_us, p99_us, mean_us, max_us;
};

/* Sorts the samples in place. */
struct stats samples_stats(struct sample_set *s);

/* ---- results ------------------------------------------------------------- */

#define BENCH_MAX_TARGETS 2 /* hipwire, native */
#define BENCH_MAX_SIZES   16

enum latency_probe {
    PROBE_LOCAL,
    PROBE_STREAM_QUERY,
    PROBE_MEM_INFO,
    PROBE_DEVICE_SYNC, /* idle device: the floor under every H2D sample of section 3 */
    PROBE_COUNT
};
enum copy_dir { DIR_H2D, DIR_D2H, DIR_COUNT };
enum host_mem { MEM_PAGEABLE, MEM_PINNED, MEM_COUNT };

struct launch_result {
    int ok;
    double kernel_us; /* device time each launch asks for; 0 = empty */
    size_t launches;  /* per repetition */
    int repetitions;
    double enqueue_per_s; /* median over repetitions */
    double complete_per_s;
};

struct bench_results {
    /* Environment, for the header. */
    char date[32];
    char host[256];
    char cpu[128];
    int cpus;
    char build_type[32];
    char loadavg[64]; /* at the start: other work on the machine skews everything */
    char device[BENCH_MAX_TARGETS][320];
    int quick;
    int only_section;

    int ntargets;
    const struct bench_ops *targets[BENCH_MAX_TARGETS];

    /* 1. round trips */
    int raw_rtt_ok;
    struct stats raw_rtt;
    int probe_ok[BENCH_MAX_TARGETS][PROBE_COUNT];
    struct stats probe[BENCH_MAX_TARGETS][PROBE_COUNT];

    /* 2. launches: empty kernels, and kernels of SPIN_KERNEL_NS */
    struct launch_result launch[BENCH_MAX_TARGETS];
    struct launch_result spin[BENCH_MAX_TARGETS];

    /* 3. bandwidth, GB/s (1e9 bytes), < 0 when not measured */
    size_t nsizes;
    size_t sizes[BENCH_MAX_SIZES];
    size_t iterations[BENCH_MAX_SIZES];
    double raw_gbps[DIR_COUNT][BENCH_MAX_SIZES];
    double gbps[BENCH_MAX_TARGETS][DIR_COUNT][MEM_COUNT][BENCH_MAX_SIZES];

    /* 4. hipMalloc + hipFree pairs of ALLOC_PAIR_SIZE bytes */
    int alloc_ok[BENCH_MAX_TARGETS];
    size_t alloc_pairs;
    double alloc_per_s[BENCH_MAX_TARGETS];

    int failures; /* measurements that could not run */
};

#define SPIN_KERNEL_NS  5000ull /* the "5 us kernel" */
#define ALLOC_PAIR_SIZE (1u << 20)

/* Targets, as in the task that asked for this benchmark. */
#define TARGET_SYNC_RTT_RATIO 1.3 /* sync call p50 <= 1.3 x raw p50 */
#define TARGET_ENQUEUE_PER_S  500000.0
#define TARGET_BW_RATIO       0.8        /* >= 80 % of raw ... */
#define TARGET_BW_FROM_SIZE   (1u << 20) /* ... from 1 MiB up */

/* Against a native column (a GPU machine; issue #4's targets). */
#define TARGET_NATIVE_SPIN_RATIO  0.95 /* 5 us kernels: >= 95 % of native's rate */
#define TARGET_NATIVE_EMPTY_RATIO 0.80 /* empty kernels: >= 80 % */
#define TARGET_NATIVE_SYNC_US     10.0 /* sync round trip <= raw RTT + 10 us */
#define TARGET_NATIVE_BW_RATIO    0.85 /* copies from 1 MiB: >= 85 % of raw TCP */

extern const char *const bench_probe_names[PROBE_COUNT];

void report_print(const struct bench_results *r);
int report_write_json(const struct bench_results *r, const char *path);

#endif
