/* metrics.c - counters for /metrics in Prometheus' text format. */
#include "hw_alloc.h"
#include "service.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SERIES 256

static pthread_mutex_t metrics_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    char name[48];
    char label[48];
    unsigned long long n;
} series[MAX_SERIES];
static int nseries;

void metrics_count(const char *name, const char *label)
{
    pthread_mutex_lock(&metrics_lock);
    int i;
    for (i = 0; i < nseries; i++)
        if (!strcmp(series[i].name, name) && !strcmp(series[i].label, label))
            break;
    if (i == nseries && nseries < MAX_SERIES) {
        snprintf(series[i].name, sizeof series[i].name, "%s", name);
        snprintf(series[i].label, sizeof series[i].label, "%s", label);
        nseries++;
    }
    if (i < MAX_SERIES)
        series[i].n++;
    pthread_mutex_unlock(&metrics_lock);
}

char *metrics_render(void)
{
    size_t cap = 65536, len = 0;
    char *out = hw_malloc(cap);
    if (!out)
        return NULL;
    len += (size_t)snprintf(out + len, cap - len,
                            "# TYPE hipwire_service_queue_length gauge\n"
                            "hipwire_service_queue_length %d\n"
                            "# TYPE hipwire_service_running gauge\n"
                            "hipwire_service_running %d\n"
                            "# TYPE hipwire_service_gpus gauge\n"
                            "hipwire_service_gpus %d\n",
                            sched_queue_length(), launcher_running(), pool_gpu_count());
    pthread_mutex_lock(&metrics_lock);
    const char *last = "";
    for (int i = 0; i < nseries && len < cap - 256; i++) {
        if (strcmp(last, series[i].name) != 0)
            len += (size_t)snprintf(out + len, cap - len,
                                    "# TYPE hipwire_service_%s_total counter\n", series[i].name);
        last = series[i].name;
        len +=
            (size_t)snprintf(out + len, cap - len, "hipwire_service_%s_total{label=\"%s\"} %llu\n",
                             series[i].name, series[i].label, series[i].n);
    }
    pthread_mutex_unlock(&metrics_lock);
    return out;
}
