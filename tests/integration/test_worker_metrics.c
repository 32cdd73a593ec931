/*
 * worker_metrics: while this client makes calls, scrape the worker's
 * --metrics-listen endpoint with libcurl and check that the counters move
 * by what the calls did. argv[1]: the file the worker wrote its metrics
 * port to (--metrics-port-file).
 */
#include <curl/curl.h>
#include <hip/hip_runtime_api.h>
#include <hip/hiprtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

struct buf {
    char *p;
    size_t n;
};

static size_t on_data(char *d, size_t size, size_t nmemb, void *arg)
{
    struct buf *b = arg;
    size_t len = size * nmemb;
    char *p = realloc(b->p, b->n + len + 1);
    if (p == NULL)
        return 0;
    memcpy(p + b->n, d, len);
    b->n += len;
    p[b->n] = '\0';
    b->p = p;
    return len;
}

static char *scrape(int port, long *status)
{
    char url[64];
    struct buf b = { NULL, 0 };
    CURL *c = curl_easy_init();
    snprintf(url, sizeof url, "http://127.0.0.1:%d/metrics", port);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
    CHECK(curl_easy_perform(c) == CURLE_OK);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
    curl_easy_cleanup(c);
    return b.p ? b.p : strdup("");
}

/* The value of the sample whose name and labels are exactly `series`, or -1. */
static double sample(const char *text, const char *series)
{
    size_t n = strlen(series);
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (strncmp(l, series, n) == 0 && l[n] == ' ')
            return strtod(l + n + 1, NULL);
    return -1;
}

int main(int argc, char **argv)
{
    int port = 0;
    long status = 0;
    FILE *f = argc > 1 ? fopen(argv[1], "r") : NULL;
    CHECK(f != NULL);
    CHECK(fscanf(f, "%d", &port) == 1);
    fclose(f);
    curl_global_init(CURL_GLOBAL_DEFAULT);

    enum { N = 1 << 20 };
    char *host = calloc(1, N);
    void *d;
    HIP_CHECK(hipMalloc(&d, N));
    HIP_CHECK(hipMemcpy(d, host, N, hipMemcpyHostToDevice));
    HIP_CHECK(hipDeviceSynchronize());
    char *m1 = NULL;
    for (int i = 0; i < 200; i++) {
        free(m1);
        m1 = scrape(port, &status);
        if (sample(m1, "hipwire_worker_call_duration_seconds_count{op=\"MEMCPY_H2D\"}") >= 1)
            break;
        usleep(10000);
    }
    CHECK(status == 200);
    CHECK(sample(m1, "hipwire_worker_sessions") == 1);
    CHECK(sample(m1, "hipwire_worker_device_memory_bytes") >= N);
    double in1 = sample(m1, "hipwire_worker_received_bytes_total");
    double out1 = sample(m1, "hipwire_worker_sent_bytes_total");
    double malloc1 = sample(m1, "hipwire_worker_calls_total{op=\"MALLOC\"}");
    double h2d1 = sample(m1, "hipwire_worker_call_duration_seconds_count{op=\"MEMCPY_H2D\"}");
    CHECK(in1 >= N);
    CHECK(malloc1 >= 1);
    CHECK(h2d1 >= 1);
    CHECK(sample(m1, "hipwire_worker_call_duration_seconds_bucket{op=\"MALLOC\",le=\"+Inf\"}") ==
          malloc1);

    /* more work, and one refused call */
    for (int i = 0; i < 3; i++)
        HIP_CHECK(hipMemcpy(host, d, N, hipMemcpyDeviceToHost));
    void *big;
    CHECK(hipMalloc(&big, (size_t)1 << 60) != hipSuccess);
    /* A call is counted once its handler returns, just after its reply is
     * sent: give the last one a moment to land. */
    char *m2 = NULL;
    for (int i = 0; i < 200; i++) {
        free(m2);
        m2 = scrape(port, &status);
        if (sample(m2, "hipwire_worker_calls_total{op=\"MALLOC\"}") >= malloc1 + 1)
            break;
        usleep(10000);
    }
    CHECK(sample(m2, "hipwire_worker_sent_bytes_total") >= out1 + 3.0 * N);
    CHECK(sample(m2, "hipwire_worker_received_bytes_total") > in1);
    CHECK(sample(m2, "hipwire_worker_calls_total{op=\"MEMCPY_D2H\"}") >= 3);
    CHECK(sample(m2, "hipwire_worker_calls_total{op=\"MALLOC\"}") == malloc1 + 1);
    CHECK(sample(m2, "hipwire_worker_call_errors_total{op=\"MALLOC\"}") == 1);

    /* The same program compiled twice: the worker's compiled-kernel cache
     * (--rtc-cache-dir) misses, then hits, and /metrics says so. */
    char src[128]; /* new to the cache (a kept directory) in every run */
    snprintf(src, sizeof src, "extern \"C\" __global__ void k(int *p) { *p = %d; }", (int)getpid());
    for (int i = 0; i < 2; i++) {
        hiprtcProgram prog;
        CHECK(hiprtcCreateProgram(&prog, src, "k.hip", 0, NULL, NULL) == HIPRTC_SUCCESS);
        CHECK(hiprtcCompileProgram(prog, 0, NULL) == HIPRTC_SUCCESS);
        hiprtcDestroyProgram(&prog);
    }
    free(m2);
    m2 = scrape(port, &status);
    CHECK(sample(m2, "hipwire_worker_rtc_cache_misses_total") >= 1);
    CHECK(sample(m2, "hipwire_worker_rtc_cache_hits_total") >= 1);
    CHECK(sample(m2, "hipwire_worker_rtc_cache_entries") >= 1);
    CHECK(sample(m2, "hipwire_worker_admission_waiting") == 0);

    /* anything but /metrics is 404 */
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/", port);
    CURL *c = curl_easy_init();
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    CHECK(curl_easy_perform(c) == CURLE_OK);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    CHECK(status == 404);
    curl_easy_cleanup(c);

    HIP_CHECK(hipFree(d));
    free(m1);
    free(m2);
    free(host);
    curl_global_cleanup();
    printf("worker_metrics: ok\n");
    return 0;
}
