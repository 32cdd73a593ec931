/* runner.h - hipwire-runner: runs one submission against one device, as a
 * hipwire client of its worker, and reports on an authenticated fd. */
#ifndef HW_RUNNER_H
#define HW_RUNNER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <jansson.h>

#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime_api.h>

#define RUNNER_MAX_PARAMS 16

enum rkind {
    RK_FLOAT_PTR,
    RK_SIZE_T,
    RK_INT,
    RK_FLOAT,
};

struct rparam {
    const char *name;
    enum rkind kind;
    int is_output;     /* a non-const pointer */
    const char *count; /* elements, an expression over the test's sizes */
    double low, high;  /* generator range */
};

struct rjob {
    json_t *root;
    json_t *problem;
    const char *endpoint; /* checker | benchmark | sample */
    const char *language; /* hip | hip-kernel */
    const char *solution_path;
    const char *reference_source;
    const char *compiler; /* hipwire-cc */
    const char *workdir;
    const char *device_class;
    int device;
    uint64_t seed;
    size_t flush_bytes;
    double bench_budget_s;
    struct rparam params[RUNNER_MAX_PARAMS];
    int nparams;
    double rtol, atol;
    int exact;
};

/* One test case's arguments: values for scalars, device buffers for
 * pointers; argv[i] points at parameter i's value, as both
 * hipModuleLaunchKernel and libffi want it. */
struct rargs {
    json_t *test;
    size_t count[RUNNER_MAX_PARAMS];
    void *dptr[RUNNER_MAX_PARAMS];
    void *ref_out[RUNNER_MAX_PARAMS]; /* the reference's outputs */
    size_t sz[RUNNER_MAX_PARAMS];
    int ival[RUNNER_MAX_PARAMS];
    float fval[RUNNER_MAX_PARAMS];
    void *argv[RUNNER_MAX_PARAMS];
    void *ref_argv[RUNNER_MAX_PARAMS];
};

/* report.c: the result channel. */
int report_init(int fd, const unsigned char *key);
void report_event(const char *name, json_t *payload); /* steals payload */

/* sandbox.c */
void sandbox_limits(double cpu_seconds);
const char *sandbox_landlock(const char *workdir);
const char *sandbox_landlock_paths(const char *workdir, const char *also);
const char *sandbox_seccomp(void);

/* kernel_rtc.c: HIP source compiled by hiprtc on the worker's device. */
struct rtc_kernel {
    hipModule_t mod;
    hipFunction_t fn;
    hipFunction_t fill; /* device_tools.c, present in the reference's module */
    hipFunction_t compare;
};
int rtc_compile(const char *src, char **code, size_t *size, char **log);
int rtc_load(const char *code, const char *kernel, struct rtc_kernel *k);
int rtc_build(const char *src, const char *kernel, struct rtc_kernel *k, char **log);
hipError_t rtc_launch(struct rtc_kernel *k, json_t *grid, json_t *block, json_t *test, void **argv);

/* device_tools.c */
extern const char runner_device_tools_src[];
struct compare_result {
    unsigned long long bad, first;
    double max_diff, mean_diff;
};
hipError_t tools_fill(struct rtc_kernel *k, float *p, size_t n, uint64_t seed, float lo, float hi);
hipError_t tools_compare(struct rtc_kernel *k, const float *got, const float *want, size_t n,
                         float rtol, float atol, int exact, struct compare_result *out);

/* args.c: test cases' buffers and comparison. */
int args_setup(struct rjob *job, json_t *test, struct rargs *a);
int args_fill_inputs(struct rjob *job, struct rtc_kernel *tools, struct rargs *a, uint64_t seed);
int args_poison_outputs(struct rjob *job, struct rargs *a);
void args_free(struct rjob *job, struct rargs *a);
int test_lookup(void *ctx, const char *name, double *v);
/* Compares solution outputs with the reference's; 0 equal, 1 different
 * (*debug set), -1 a HIP error. */
int args_compare(struct rjob *job, struct rtc_kernel *tools, struct rargs *a, json_t **debug);

/* solution.c */
struct solution;
#include <sys/types.h>
pid_t solution_compile_start(struct rjob *job);
int solution_compile_wait(struct rjob *job, pid_t pid, char **log);
struct solution *solution_load(struct rjob *job, char **log, int *compile_failed);
void solution_free(struct solution *s);
hipError_t solution_call(struct rjob *job, struct solution *s, struct rargs *a);

/* harness.c */
int harness_check(struct rjob *job, struct solution *s, struct rtc_kernel *ref, int *passed);
int harness_benchmark(struct rjob *job, struct solution *s, struct rtc_kernel *ref);
int harness_sample(struct rjob *job, struct solution *s, struct rtc_kernel *ref);

#endif
