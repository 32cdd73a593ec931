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

int args_fill_inputs(struct rjob *job, struct rtc_kernel *tools, struct rargs *a, uint64_t seed)
{
    for (int i = 0; i < job->nparams; i++) {
        struct rparam *p = &job->params[i];
        if (p->kind != RK_FLOAT_PTR || p->is_output)
            continue;
        uint64_t s = seed ^ (0x100000001b3ull * (uint64_t)(i + 1));
        if (tools_fill(tools, a->dptr[i], a->count[i], s, (float)p->low, (float)p->high) !=
            hipSuccess)
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

int args_compare(struct rjob *job, struct rtc_kernel *tools, struct rargs *a, json_t **debug)
{
    for (int i = 0; i < job->nparams; i++) {
        if (!job->params[i].is_output)
            continue;
        struct compare_result r;
        float got = 0, want = 0;
        if (tools_compare(tools, a->dptr[i], a->ref_out[i], a->count[i], (float)job->rtol,
                          (float)job->atol, job->exact, &r) != hipSuccess)
            return -1;
        if (r.bad == 0)
            continue;
        if (hipMemcpyDtoH(&got, (float *)a->dptr[i] + r.first, sizeof got) != hipSuccess ||
            hipMemcpyDtoH(&want, (float *)a->ref_out[i] + r.first, sizeof want) != hipSuccess)
            return -1;
        json_t *d = json_object();
        int fin = isfinite(r.max_diff);
        json_object_set_new(d, "output", json_string(job->params[i].name));
        json_object_set_new(d, "max_difference", fin ? json_real(r.max_diff) : json_string("inf"));
        json_object_set_new(d, "mean_difference",
                            fin ? json_real(r.mean_diff) : json_string("inf"));
        json_object_set_new(d, "first_bad_index", json_integer((json_int_t)r.first));
        json_object_set_new(d, "bad_elements", json_integer((json_int_t)r.bad));
        json_object_set_new(d, "expected", json_real(want));
        json_object_set_new(d, "actual", isfinite(got) ? json_real(got) : json_string("nan/inf"));
        *debug = d;
        return 1;
    }
    return 0;
}
