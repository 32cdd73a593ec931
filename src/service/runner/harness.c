/* harness.c - checker and benchmark.
 * Checker: per test, fresh inputs, poisoned outputs, the reference and one
 *   call, compare; the first failure ends it (WRONG_ANSWER).
 * Benchmark: every timed iteration gets fresh inputs and is verified, so
 *   outputs cached from an earlier call never score; the cache flush and
 *   the reference run outside the timed region (device events around the
 *   call alone); 5..100 iterations, until the 95% confidence interval of
 *   the median is narrower than +-1% (or the per-test budget is spent). */
#include "runner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../expr.h"

#define MIN_ITERS 5
#define MAX_ITERS 100

static json_t *tests_of(struct rjob *job)
{
    json_t *t = json_object_get(json_object_get(job->problem, "tests"), job->device_class);
    return t ? t : json_object_get(json_object_get(job->problem, "tests"), "gpu");
}

static const char *test_name(json_t *test)
{
    const char *n = json_string_value(json_object_get(test, "name"));
    return n ? n : "test";
}

static int runtime_error(const char *what, hipError_t e)
{
    json_t *p = json_object();
    json_object_set_new(p, "message", json_string(what));
    json_object_set_new(p, "details", json_string(hipGetErrorName(e)));
    report_event("RUNTIME_ERROR", p);
    return -1;
}

/* Fresh inputs, poisoned outputs and the reference's answer. */
static int prepare(struct rjob *job, struct rtc_kernel *ref, struct rargs *a, uint64_t seed)
{
    json_t *r = json_object_get(job->problem, "reference");
    hipError_t e;
    if (args_fill_inputs(job, ref, a, seed) != 0 || args_poison_outputs(job, a) != 0)
        return runtime_error("cannot prepare inputs", hipGetLastError());
    e = rtc_launch(ref, json_object_get(r, "grid"), json_object_get(r, "block"), a->test,
                   a->ref_argv);
    if (e == hipSuccess)
        e = hipDeviceSynchronize();
    if (e != hipSuccess)
        return runtime_error("the reference failed", e);
    return 0;
}

static int call_and_sync(struct rjob *job, struct solution *s, struct rargs *a)
{
    hipError_t e = solution_call(job, s, a);
    if (e == hipSuccess)
        e = hipDeviceSynchronize();
    if (e != hipSuccess)
        return runtime_error("the solution failed", e);
    return 0;
}

static void wrong_answer(json_t *debug, int passed, int total, json_t *results, const char *msg)
{
    json_t *p = json_object();
    json_object_set_new(p, "message", json_string(msg));
    json_object_set_new(p, "debug_info", debug);
    json_object_set_new(p, "passed_tests", json_integer(passed));
    json_object_set_new(p, "total_tests", json_integer(total));
    json_object_set(p, "test_results", results);
    report_event("WRONG_ANSWER", p);
}

int harness_check(struct rjob *job, struct solution *s, struct rtc_kernel *ref, int *passed)
{
    json_t *tests = tests_of(job);
    int total = (int)json_array_size(tests), rc = 0;
    json_t *results = json_array();
    json_t *p = json_object();
    json_object_set_new(p, "message", json_string("Running correctness checks"));
    json_object_set_new(p, "total_tests", json_integer(total));
    report_event("CHECKING", p);
    *passed = 0;
    for (int t = 0; t < total && rc == 0; t++) {
        struct rargs a;
        json_t *test = json_array_get(tests, (size_t)t);
        if (args_setup(job, test, &a) != 0) {
            rc = runtime_error("cannot allocate the test's buffers", hipGetLastError());
            break;
        }
        json_t *debug = NULL;
        if ((rc = prepare(job, ref, &a, job->seed + 0x9e37ull * (uint64_t)(t + 1))) == 0 &&
            (rc = call_and_sync(job, s, &a)) == 0)
            rc = args_compare(job, ref, &a, &debug);
        args_free(job, &a);
        if (rc < 0)
            break;
        json_t *r = json_object();
        json_object_set_new(r, "test_id", json_integer(t + 1));
        json_object_set_new(r, "name", json_string(test_name(test)));
        json_object_set_new(r, "status", json_string(rc ? "FAILED" : "PASSED"));
        json_array_append(results, r);
        if (rc == 1) {
            json_decref(r);
            char msg[256];
            snprintf(msg, sizeof msg, "Wrong answer on test %d (%s)", t + 1, test_name(test));
            wrong_answer(debug, *passed, total, results, msg);
            break;
        }
        (*passed)++;
        p = json_object();
        json_object_set_new(p, "result", r);
        json_object_set_new(p, "total_tests", json_integer(total));
        report_event("TEST_RESULT", p);
    }
    if (rc == 0) {
        p = json_object();
        json_object_set_new(p, "message", json_string("All tests passed"));
        json_object_set_new(p, "passed_tests", json_integer(*passed));
        json_object_set_new(p, "total_tests", json_integer(total));
        json_object_set(p, "test_results", results);
        report_event("CHECKED", p);
    }
    json_decref(results);
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Half-width of the distribution-free 95% confidence interval of the
 * median: the order statistics n/2 -+ 1.96 sqrt(n)/2. v is sorted. */
static double median_ci_half(const double *v, int n)
{
    double h = 1.96 * sqrt((double)n) / 2;
    int lo = (int)floor(n / 2.0 - h), hi = (int)ceil(n / 2.0 + h);
    lo = lo < 1 ? 1 : lo;
    hi = hi > n ? n : hi;
    return (v[hi - 1] - v[lo - 1]) / 2;
}

static double median_of(const double *v, int n)
{
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Times one test; 0 with its BENCHMARK_RESULT sent, 1 wrong, -1 error. */
static int bench_one(struct rjob *job, struct solution *s, struct rtc_kernel *ref, int t,
                     json_t *test, void *flush, hipEvent_t ev0, hipEvent_t ev1, json_t *results,
                     double *median_ms, double *gflops)
{
    struct rargs a;
    double times[MAX_ITERS], sorted[MAX_ITERS];
    int n = 0, rc;
    json_t *debug = NULL;
    uint64_t base = job->seed ^ ((uint64_t)(t + 1) << 40);
    if (args_setup(job, test, &a) != 0)
        return runtime_error("cannot allocate the test's buffers", hipGetLastError());
    /* Warm-up: first-launch costs (code load, clocks) stay out of the times. */
    if ((rc = prepare(job, ref, &a, base)) != 0 || (rc = call_and_sync(job, s, &a)) != 0)
        goto out;
    double start = now_s();
    for (int it = 0; it < MAX_ITERS; it++) {
        if ((rc = prepare(job, ref, &a, base + 0x51ull * (uint64_t)(it + 1))) != 0)
            goto out;
        hipError_t e = hipSuccess;
        if (flush)
            e = hipMemsetAsync(flush, it & 0xff, job->flush_bytes, NULL);
        if (e == hipSuccess)
            e = hipDeviceSynchronize();
        if (e == hipSuccess)
            e = hipEventRecord(ev0, NULL);
        if (e == hipSuccess)
            e = solution_call(job, s, &a);
        if (e == hipSuccess)
            e = hipEventRecord(ev1, NULL);
        if (e == hipSuccess)
            e = hipEventSynchronize(ev1);
        if (e == hipSuccess)
            e = hipDeviceSynchronize();
        float ms = 0;
        if (e == hipSuccess)
            e = hipEventElapsedTime(&ms, ev0, ev1);
        if (e != hipSuccess) {
            rc = runtime_error("the solution failed while timed", e);
            goto out;
        }
        if ((rc = args_compare(job, ref, &a, &debug)) != 0) {
            if (rc == 1) {
                char msg[256];
                snprintf(msg, sizeof msg, "Wrong answer in timed iteration %d of test %d (%s)",
                         it + 1, t + 1, test_name(test));
                wrong_answer(debug, t, (int)json_array_size(tests_of(job)), results, msg);
            }
            goto out;
        }
        times[n++] = ms;
        memcpy(sorted, times, sizeof(double) * (size_t)n);
        qsort(sorted, (size_t)n, sizeof(double), cmp_double);
        double med = median_of(sorted, n);
        if (n >= MIN_ITERS &&
            (median_ci_half(sorted, n) < 0.01 * med || now_s() - start > job->bench_budget_s))
            break;
    }
    qsort(sorted, (size_t)n, sizeof(double), cmp_double);
    double med = median_of(sorted, n), mean = 0, var = 0;
    for (int i = 0; i < n; i++)
        mean += times[i] / n;
    for (int i = 0; i < n; i++)
        var += (times[i] - mean) * (times[i] - mean) / (n > 1 ? n - 1 : 1);
    double flops = 0;
    json_t *fe = json_object_get(job->problem, "flops");
    json_t *r = json_object();
    json_object_set_new(r, "test_id", json_integer(t + 1));
    json_object_set_new(r, "name", json_string(test_name(test)));
    json_object_set_new(r, "runtime_ms", json_real(med));
    json_object_set_new(r, "min_runtime_ms", json_real(sorted[0]));
    json_object_set_new(r, "stddev_ms", json_real(sqrt(var)));
    json_object_set_new(r, "iterations", json_integer(n));
    json_object_set_new(r, "ci95_half_width_pct",
                        json_real(med > 0 ? 100 * median_ci_half(sorted, n) / med : 0));
    *median_ms = med;
    *gflops = 0;
    if (fe && hw_expr_eval(json_string_value(fe), test_lookup, test, &flops) == 0 && med > 0) {
        *gflops = flops / (med * 1e-3) / 1e9;
        json_object_set_new(r, "gflops", json_real(*gflops));
    }
    json_array_append(results, r);
    json_t *p = json_object();
    json_object_set_new(p, "result", r);
    json_object_set_new(p, "total_tests", json_integer((json_int_t)json_array_size(tests_of(job))));
    report_event("BENCHMARK_RESULT", p);
    rc = 0;
out:
    args_free(job, &a);
    return rc;
}

int harness_benchmark(struct rjob *job, struct solution *s, struct rtc_kernel *ref)
{
    json_t *tests = tests_of(job), *results = json_array();
    int total = (int)json_array_size(tests), rc = 0;
    void *flush = NULL;
    hipEvent_t ev0 = NULL, ev1 = NULL;
    double log_ms = 0, log_gf = 0;
    int have_gf = 1;
    json_t *p = json_object();
    json_object_set_new(p, "message", json_string("Running benchmarks"));
    json_object_set_new(p, "total_tests", json_integer(total));
    report_event("BENCHMARKING", p);
    if ((job->flush_bytes && hipMalloc(&flush, job->flush_bytes) != hipSuccess) ||
        hipEventCreate(&ev0) != hipSuccess || hipEventCreate(&ev1) != hipSuccess) {
        rc = runtime_error("cannot allocate the cache flush buffer or events", hipGetLastError());
        goto out;
    }
    for (int t = 0; t < total && rc == 0; t++) {
        double ms = 0, gf = 0;
        rc = bench_one(job, s, ref, t, json_array_get(tests, (size_t)t), flush, ev0, ev1, results,
                       &ms, &gf);
        log_ms += log(ms > 0 ? ms : 1e-9);
        if (gf > 0)
            log_gf += log(gf);
        else
            have_gf = 0;
    }
    if (rc == 0 && total > 0) {
        p = json_object();
        json_object_set_new(p, "message", json_string("Benchmark complete"));
        json_object_set_new(p, "avg_runtime_ms", json_real(exp(log_ms / total)));
        if (have_gf)
            json_object_set_new(p, "avg_gflops", json_real(exp(log_gf / total)));
        json_object_set_new(p, "aggregate", json_string("geometric mean"));
        json_object_set_new(p, "flush_bytes", json_integer((json_int_t)job->flush_bytes));
        json_object_set_new(p, "total_tests", json_integer(total));
        json_object_set(p, "test_results", results);
        report_event("BENCHMARKED", p);
    }
out:
    if (flush)
        hipFree(flush);
    if (ev0)
        hipEventDestroy(ev0);
    if (ev1)
        hipEventDestroy(ev1);
    json_decref(results);
    return rc;
}

static json_t *head_of(void *dptr, size_t count)
{
    size_t n = count < 64 ? count : 64;
    float h[64];
    json_t *arr = json_array();
    if (hipMemcpyDtoH(h, dptr, n * sizeof(float)) != hipSuccess)
        return arr;
    for (size_t i = 0; i < n; i++)
        json_array_append_new(arr, isfinite(h[i]) ? json_real(h[i]) : json_null());
    return arr;
}

int harness_sample(struct rjob *job, struct solution *s, struct rtc_kernel *ref)
{
    json_t *test = json_object_get(job->problem, "sample");
    struct rargs a;
    json_t *debug = NULL;
    int rc;
    if (!test || args_setup(job, test, &a) != 0)
        return runtime_error("the problem has no sample", hipErrorInvalidValue);
    if ((rc = prepare(job, ref, &a, job->seed)) == 0 && (rc = call_and_sync(job, s, &a)) == 0) {
        rc = args_compare(job, ref, &a, &debug);
        if (rc >= 0) {
            json_t *p = json_object(), *in = json_object(), *out = json_object(),
                   *exp_ = json_object();
            for (int i = 0; i < job->nparams; i++) {
                if (job->params[i].kind != RK_FLOAT_PTR)
                    continue;
                if (job->params[i].is_output) {
                    json_object_set_new(out, job->params[i].name, head_of(a.dptr[i], a.count[i]));
                    json_object_set_new(exp_, job->params[i].name,
                                        head_of(a.ref_out[i], a.count[i]));
                } else {
                    json_object_set_new(in, job->params[i].name, head_of(a.dptr[i], a.count[i]));
                }
            }
            json_object_set_new(p, "input", in);
            json_object_set_new(p, "output", out);
            json_object_set_new(p, "expected_output", exp_);
            json_object_set_new(p, "passed", json_boolean(rc == 0));
            if (debug)
                json_object_set_new(p, "debug_info", debug);
            report_event("SAMPLE_RESULT", p);
            rc = 0;
        }
    }
    args_free(job, &a);
    return rc;
}
