/* args.c - one test case's arguments: sizes from the test, inputs from a
 * seeded generator, outputs poisoned (all-ones bytes: NaN) before the
 * solution runs so stale or skipped writes never pass. */
#include "runner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../expr.h"

int test_lookup(void *ctx, const char *name, double *v)
{
    json_t *e = json_object_get((json_t *)ctx, name);
    if (!e || !json_is_number(e))
        return -1;
    *v = json_number_value(e);
    return 0;
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int args_setup(struct rjob *job, json_t *test, struct rargs *a)
{
    memset(a, 0, sizeof *a);
    a->test = test;
    for (int i = 0; i < job->nparams; i++) {
        struct rparam *p = &job->params[i];
        double v = 0;
        if (p->kind == RK_FLOAT_PTR) {
            if (hw_expr_eval(p->count, test_lookup, test, &v) != 0 || v < 1 || v > 1e10)
                goto fail;
            a->count[i] = (size_t)v;
            if (hipMalloc(&a->dptr[i], a->count[i] * sizeof(float)) != hipSuccess)
                goto fail;
            a->argv[i] = &a->dptr[i];
            a->ref_argv[i] = &a->dptr[i];
            if (p->is_output) {
                if (hipMalloc(&a->ref_out[i], a->count[i] * sizeof(float)) != hipSuccess)
                    goto fail;
                a->ref_argv[i] = &a->ref_out[i];
            }
            continue;
        }
        if (test_lookup(test, p->name, &v) != 0)
            goto fail;
        if (p->kind == RK_SIZE_T) {
            a->sz[i] = (size_t)v;
            a->argv[i] = &a->sz[i];
        } else if (p->kind == RK_INT) {
            a->ival[i] = (int)v;
            a->argv[i] = &a->ival[i];
        } else {
            a->fval[i] = (float)v;
            a->argv[i] = &a->fval[i];
        }
        a->ref_argv[i] = a->argv[i];
    }
    return 0;
fail:
    args_free(job, a);
    return -1;
}

int args_fill_inputs(struct rjob *job, struct rargs *a, uint64_t seed)
{
    for (int i = 0; i < job->nparams; i++) {
        struct rparam *p = &job->params[i];
        if (p->kind != RK_FLOAT_PTR || p->is_output)
            continue;
        float *h = malloc(a->count[i] * sizeof(float));
        if (!h)
            return -1;
        uint64_t s = seed ^ (0x100000001b3ull * (uint64_t)(i + 1));
        for (size_t j = 0; j < a->count[i]; j++)
            h[j] = (float)(p->low + (p->high - p->low) * (double)(splitmix(&s) >> 11) * 0x1p-53);
        hipError_t e = hipMemcpyHtoD(a->dptr[i], h, a->count[i] * sizeof(float));
        free(h);
        if (e != hipSuccess)
            return -1;
    }
    return 0;
}

int args_poison_outputs(struct rjob *job, struct rargs *a)
{
    for (int i = 0; i < job->nparams; i++)
        if (job->params[i].is_output) {
            if (hipMemset(a->dptr[i], 0xff, a->count[i] * sizeof(float)) != hipSuccess ||
                hipMemset(a->ref_out[i], 0, a->count[i] * sizeof(float)) != hipSuccess)
                return -1;
        }
    return 0;
}

void args_free(struct rjob *job, struct rargs *a)
{
    for (int i = 0; i < job->nparams; i++) {
        if (a->dptr[i])
            hipFree(a->dptr[i]);
        if (a->ref_out[i])
            hipFree(a->ref_out[i]);
        a->dptr[i] = a->ref_out[i] = NULL;
    }
}

int args_compare(struct rjob *job, struct rargs *a, json_t **debug)
{
    for (int i = 0; i < job->nparams; i++) {
        if (!job->params[i].is_output)
            continue;
        size_t n = a->count[i];
        float *got = malloc(n * sizeof(float)), *want = malloc(n * sizeof(float));
        int rc = -1;
        if (!got || !want)
            goto next;
        if (hipMemcpyDtoH(got, a->dptr[i], n * sizeof(float)) != hipSuccess ||
            hipMemcpyDtoH(want, a->ref_out[i], n * sizeof(float)) != hipSuccess)
            goto next;
        double maxd = 0, sumd = 0;
        long long first = -1, bad = 0;
        for (size_t j = 0; j < n; j++) {
            double d = fabs((double)got[j] - (double)want[j]);
            int ok =
                job->exact ? got[j] == want[j] : d <= job->atol + job->rtol * fabs((double)want[j]);
            if (!isfinite(got[j]))
                ok = 0, d = INFINITY;
            if (!ok) {
                bad++;
                if (first < 0)
                    first = (long long)j;
            }
            if (isfinite(d)) {
                maxd = d > maxd ? d : maxd;
                sumd += d;
            } else {
                maxd = INFINITY;
            }
        }
        rc = 0;
        if (bad) {
            rc = 1;
            json_t *d = json_object();
            json_object_set_new(d, "output", json_string(job->params[i].name));
            json_object_set_new(d, "max_difference",
                                isfinite(maxd) ? json_real(maxd) : json_string("inf"));
            json_object_set_new(d, "mean_difference",
                                isfinite(maxd) ? json_real(sumd / (double)n) : json_string("inf"));
            json_object_set_new(d, "first_bad_index", json_integer(first));
            json_object_set_new(d, "bad_elements", json_integer(bad));
            json_object_set_new(d, "expected", json_real(want[first]));
            json_object_set_new(
                d, "actual", isfinite(got[first]) ? json_real(got[first]) : json_string("nan/inf"));
            *debug = d;
        }
    next:
        free(got);
        free(want);
        if (rc != 0)
            return rc;
    }
    return 0;
}
