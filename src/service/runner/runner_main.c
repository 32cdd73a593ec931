/* hipwire-runner - runs one submission for hipwire-service. It is a hipwire
 * client (the proxy libamdhip64 talks to TF_WORKER_HOST:TF_WORKER_PORT),
 * sandboxed (sandbox.c), and reports only on the authenticated result fd
 * (report.c): its stdout and stderr belong to the solution and are never
 * read for results.
 *
 * Exit status: 0 done (the events said how), 75 the worker could not be
 * reached (the service retries elsewhere), 2 bad usage or job. */
#include "hw_alloc.h"
#include "runner.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/sha.h>

#include "../frame.h"

#define EXIT_UNREACHABLE 75

static void usage(FILE *f)
{
    fprintf(f, "usage: hipwire-runner --job FILE --result-fd N\n"
               "       hipwire-runner --probe\n"
               "       hipwire-runner --precompile OUT --reference FILE [--device N]\n"
               "Runs one hipwire-service submission against the worker named by\n"
               "TF_WORKER_HOST/TF_WORKER_PORT; --probe prints the worker's devices as JSON.\n");
}

static int probe(void)
{
    int n = 0;
    if (hipGetDeviceCount(&n) != hipSuccess)
        return EXIT_UNREACHABLE;
    json_t *devs = json_array();
    for (int i = 0; i < n; i++) {
        hipDeviceProp_t p;
        if (hipGetDeviceProperties(&p, i) != hipSuccess)
            continue;
        json_t *d = json_object();
        json_object_set_new(d, "index", json_integer(i));
        json_object_set_new(d, "name", json_string(p.name));
        json_object_set_new(d, "arch", json_string(p.gcnArchName));
        json_object_set_new(d, "memory", json_integer((json_int_t)p.totalGlobalMem));
        json_array_append_new(devs, d);
    }
    json_t *o = json_object();
    json_object_set_new(o, "devices", devs);
    char *s = json_dumps(o, JSON_COMPACT);
    printf("%s\n", s);
    free(s);
    json_decref(o);
    return 0;
}

static int parse_params(struct rjob *job)
{
    json_t *ps = json_object_get(job->problem, "parameters");
    size_t i;
    json_t *p;
    if (!json_is_array(ps) || json_array_size(ps) > RUNNER_MAX_PARAMS)
        return -1;
    json_array_foreach(ps, i, p)
    {
        struct rparam *rp = &job->params[i];
        const char *type = json_string_value(json_object_get(p, "type"));
        rp->name = json_string_value(json_object_get(p, "name"));
        if (!type || !rp->name)
            return -1;
        if (json_is_true(json_object_get(p, "pointer"))) {
            if (strcmp(type, "float") != 0)
                return -1;
            rp->kind = RK_FLOAT_PTR;
            rp->is_output = !json_is_true(json_object_get(p, "const"));
            rp->count = json_string_value(json_object_get(p, "count"));
            json_t *g = json_object_get(p, "gen");
            rp->low = g ? json_number_value(json_object_get(g, "low")) : -1;
            rp->high = g ? json_number_value(json_object_get(g, "high")) : 1;
        } else if (!strcmp(type, "size_t")) {
            rp->kind = RK_SIZE_T;
        } else if (!strcmp(type, "int")) {
            rp->kind = RK_INT;
        } else if (!strcmp(type, "float")) {
            rp->kind = RK_FLOAT;
        } else {
            return -1;
        }
    }
    job->nparams = (int)json_array_size(ps);
    json_t *tol = json_object_get(job->problem, "tolerance");
    job->exact = json_is_true(json_object_get(job->problem, "exact"));
    job->rtol = json_number_value(json_object_get(tol, "rtol"));
    job->atol = json_number_value(json_object_get(tol, "atol"));
    return 0;
}

static int load_job(const char *path, struct rjob *job, unsigned char *key)
{
    json_error_t err;
    memset(job, 0, sizeof *job);
    job->root = json_load_file(path, 0, &err);
    /* The key is in this file: gone before any solution code runs. */
    unlink(path);
    if (!job->root)
        return -1;
    const char *hex = json_string_value(json_object_get(job->root, "key"));
    if (!hex || strlen(hex) != 2 * HW_FRAME_KEY_LEN)
        return -1;
    for (int i = 0; i < HW_FRAME_KEY_LEN; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1)
            return -1;
        key[i] = (unsigned char)v;
    }
    json_object_del(job->root, "key");
    job->problem = json_object_get(job->root, "problem");
    job->endpoint = json_string_value(json_object_get(job->root, "endpoint"));
    job->language = json_string_value(json_object_get(job->root, "language"));
    job->solution_path = json_string_value(json_object_get(job->root, "solution_path"));
    job->reference_source = json_string_value(json_object_get(job->root, "reference_source"));
    job->compiler = json_string_value(json_object_get(job->root, "compiler"));
    job->workdir = json_string_value(json_object_get(job->root, "workdir"));
    job->device_class = json_string_value(json_object_get(job->root, "device_class"));
    job->device = (int)json_integer_value(json_object_get(job->root, "device"));
    job->seed = (uint64_t)json_integer_value(json_object_get(job->root, "seed"));
    job->flush_bytes = (size_t)json_integer_value(json_object_get(job->root, "flush_bytes"));
    job->bench_budget_s = json_number_value(json_object_get(job->root, "bench_budget_s"));
    if (!job->problem || !job->endpoint || !job->language || !job->solution_path ||
        !job->reference_source || !job->workdir || !job->device_class)
        return -1;
    if (!job->compiler)
        job->compiler = "hipwire-cc";
    if (job->bench_budget_s <= 0)
        job->bench_budget_s = 10;
    return parse_params(job);
}

/* The reference's source with the harness's kernels appended. */
static char *with_tools(const char *ref)
{
    size_t rlen = strlen(ref), tlen = strlen(runner_device_tools_src) + 1;
    char *src = hw_malloc(rlen + tlen);
    if (src) {
        memcpy(src, ref, rlen);
        memcpy(src + rlen, runner_device_tools_src, tlen);
    }
    return src;
}

/* Reads path; 0 when its SHA-256 is sha_hex. */
static int read_verified(const char *path, const char *sha_hex, char **out, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;
    unsigned char md[32];
    char hex[65];
    int rc = -1;
    if (!f)
        return -1;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) != 0 ||
        !(buf = hw_malloc((size_t)n)) || fread(buf, 1, (size_t)n, f) != (size_t)n)
        goto out;
    SHA256((const unsigned char *)buf, (size_t)n, md);
    for (int i = 0; i < 32; i++)
        sprintf(hex + 2 * i, "%02x", md[i]);
    if (strcmp(hex, sha_hex) != 0)
        goto out;
    *out = buf;
    *len = (size_t)n;
    buf = NULL;
    rc = 0;
out:
    free(buf);
    fclose(f);
    return rc;
}

/* --precompile: compiles a problem's reference (trusted input only: no
 * solution is involved) for device dev and writes the code object to out. */
static int precompile(const char *refpath, const char *out, int dev)
{
    FILE *f = fopen(refpath, "rb");
    char *ref = hw_calloc(1, 1 << 20), *code = NULL, *log = NULL;
    size_t n = 0;
    int rc = 1;
    if (!f || !ref)
        goto done;
    if (fread(ref, 1, (1 << 20) - 1, f) == 0)
        goto done;
    if (hipSetDevice(dev) != hipSuccess) {
        rc = EXIT_UNREACHABLE;
        goto done;
    }
    char *src = with_tools(ref);
    if (src && rtc_compile(src, &code, &n, &log) == 0) {
        FILE *o = fopen(out, "wb");
        if (o && fwrite(code, 1, n, o) == n && fclose(o) == 0)
            rc = 0;
        else if (o)
            fclose(o);
    } else if (log) {
        fprintf(stderr, "%s\n", log);
    }
    free(src);
done:
    if (f)
        fclose(f);
    free(ref);
    free(code);
    free(log);
    return rc;
}

static void error_event(const char *name, const char *msg, const char *details)
{
    json_t *p = json_object();
    json_object_set_new(p, "message", json_string(msg));
    if (details)
        json_object_set_new(p, "details", json_string(details));
    report_event(name, p);
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        { "job", required_argument, NULL, 'j' },
        { "result-fd", required_argument, NULL, 'r' },
        { "probe", no_argument, NULL, 'p' },
        { "precompile", required_argument, NULL, 'P' },
        { "reference", required_argument, NULL, 'R' },
        { "device", required_argument, NULL, 'D' },
        { "time-limit", required_argument, NULL, 't' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 },
    };
    const char *jobpath = NULL;
    int rfd = -1, do_probe = 0, c, pre_dev = 0;
    const char *pre_out = NULL, *pre_ref = NULL;
    double limit = 100;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'j': jobpath = optarg; break;
        case 'r': rfd = atoi(optarg); break;
        case 'p': do_probe = 1; break;
        case 'P': pre_out = optarg; break;
        case 'R': pre_ref = optarg; break;
        case 'D': pre_dev = atoi(optarg); break;
        case 't': limit = atof(optarg); break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("hipwire-runner %s\n", HIPWIRE_VERSION); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (do_probe)
        return probe();
    if (pre_out)
        return pre_ref ? precompile(pre_ref, pre_out, pre_dev) : 2;
    struct rjob job;
    unsigned char key[HW_FRAME_KEY_LEN];
    if (!jobpath || rfd < 0) {
        usage(stderr);
        return 2;
    }
    if (load_job(jobpath, &job, key) != 0) {
        fprintf(stderr, "hipwire-runner: unreadable job %s\n", jobpath);
        return 2;
    }
    report_init(rfd, key);
    memset(key, 0, sizeof key);
    sandbox_limits(limit);
    /* The compiler starts before the runner confines itself (it needs /tmp);
     * the runner then takes the stricter domain, connects to its worker, and
     * shuts the network before any solution code is loaded. */
    pid_t cc = solution_compile_start(&job);
    const char *landlock = sandbox_landlock(job.workdir);
    if (hipSetDevice(job.device) != hipSuccess) {
        if (cc > 0)
            waitpid(cc, NULL, 0);
        /* _exit: this status is the message; no exit handler may change it. */
        fflush(NULL);
        _exit(EXIT_UNREACHABLE);
    }
    const char *seccomp = sandbox_seccomp();
    json_t *p = json_object();
    json_object_set_new(p, "message", json_string("Compiling"));
    json_object_set_new(p, "landlock", json_string(landlock ? landlock : "on"));
    json_object_set_new(p, "seccomp", json_string(seccomp ? seccomp : "on"));
    report_event("COMPILING", p);

    struct rtc_kernel ref;
    char *log = NULL;
    const char *kname =
        json_string_value(json_object_get(json_object_get(job.problem, "reference"), "kernel"));
    int built = -1;
    const char *cached = json_string_value(json_object_get(job.root, "reference_code"));
    const char *sha = json_string_value(json_object_get(job.root, "reference_sha256"));
    char *code = NULL;
    size_t clen = 0;
    /* A reference the service compiled earlier, if its bytes are the ones
     * the service hashed (nothing a solution could have written). */
    if (cached && sha && read_verified(cached, sha, &code, &clen) == 0) {
        built = rtc_load(code, kname ? kname : "reference", &ref);
        free(code);
    }
    if (built != 0) {
        char *refsrc = with_tools(job.reference_source);
        built = refsrc ? rtc_build(refsrc, kname ? kname : "reference", &ref, &log) : -1;
        free(refsrc);
    }
    if (built != 0 || !ref.fill || !ref.compare) {
        if (cc > 0)
            waitpid(cc, NULL, 0);
        error_event("ERROR", "the problem's reference did not compile", log);
        return 0;
    }
    free(log);
    log = NULL;
    if (solution_compile_wait(&job, cc, &log) != 0) {
        error_event("COMPILE_ERROR", "Compilation failed", log);
        free(log);
        return 0;
    }
    int compile_failed = 0;
    struct solution *s = solution_load(&job, &log, &compile_failed);
    if (!s) {
        error_event(compile_failed ? "COMPILE_ERROR" : "ERROR",
                    compile_failed ? "Compilation failed" : "cannot load the solution", log);
        free(log);
        return 0;
    }
    free(log);
    int passed = 0;
    if (!strcmp(job.endpoint, "sample"))
        harness_sample(&job, s, &ref);
    else if (harness_check(&job, s, &ref, &passed) == 0 && !strcmp(job.endpoint, "benchmark"))
        harness_benchmark(&job, s, &ref);
    fflush(NULL);
    solution_free(s);
    hipModuleUnload(ref.mod);
    json_decref(job.root);
    return 0;
}
