/* stats.c - clock and sample statistics for hipwire-bench. */
#include <stdlib.h>
#include <time.h>

#include "bench.h"

uint64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int samples_reserve(struct sample_set *s, size_t cap)
{
    double *grown = realloc(s->ns, cap * sizeof *grown);
    if (!grown)
        return -1;
    s->ns = grown;
    s->cap = cap;
    return 0;
}

void samples_add(struct sample_set *s, double ns)
{
    /* Capacity is reserved up front so the timed loops never allocate;
     * a sample beyond it is dropped rather than grown into. */
    if (s->n < s->cap)
        s->ns[s->n++] = ns;
}

void samples_free(struct sample_set *s)
{
    free(s->ns);
    s->ns = NULL;
    s->n = s->cap = 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile: the smallest sample with at least q of all
 * samples at or below it. */
static double percentile(const double *sorted, size_t n, double q)
{
    size_t rank = (size_t)(q * (double)n + 0.999999);
    if (rank < 1)
        rank = 1;
    if (rank > n)
        rank = n;
    return sorted[rank - 1];
}

struct stats samples_stats(struct sample_set *s)
{
    struct stats st = { 0 };
    if (s->n == 0)
        return st;
    qsort(s->ns, s->n, sizeof *s->ns, cmp_double);
    double sum = 0;
    for (size_t i = 0; i < s->n; i++)
        sum += s->ns[i];
    st.n = s->n;
    st.min_us = s->ns[0] / 1e3;
    st.max_us = s->ns[s->n - 1] / 1e3;
    st.p50_us = percentile(s->ns, s->n, 0.50) / 1e3;
    st.p99_us = percentile(s->ns, s->n, 0.99) / 1e3;
    st.mean_us = sum / (double)s->n / 1e3;
    return st;
}
