/*
 * --idle-timeout=1s against a real worker, four sessions side by side:
 *   quiet   - says HELLO, allocates, then nothing: ended after 1-2.5 s and
 *             its memory freed;
 *   pinger  - sends only PINGs: heartbeats are not use, ended all the same;
 *   worker  - sends a real request every 300 ms for 3 s: kept, then ended
 *             once it stops;
 *   busy    - queues a 3 s kernel and a synchronize: the running kernel is
 *             activity, the reply arrives, then the session is ended.
 * Then a deaf client: it asks for 8 MiB copies back and never reads them. The
 * worker's write blocks on the full connection; the session still ends
 * after about the idle timeout (a send timeout), not never.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hostile_ops.h"

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Whether the worker closed the connection; a closed one reads EOF at once. */
static int closed_now(struct raw_conn *c)
{
    return raw_wait_closed(c, 1);
}

int main(void)
{
    const char *kernels = getenv("HIPWIRE_KERNELS");
    size_t image_len = 0;
    void *image = kernels ? read_file(kernels, &image_len) : NULL;
    EXPECT(image != NULL, "HIPWIRE_KERNELS must name the CPU test kernels");

    struct raw_conn quiet, pinger, worker, busy;
    uint64_t ptr, mod, fn;
    uint32_t args;
    raw_begin("four sessions under --idle-timeout=1s");
    EXPECT(raw_connect(&quiet) == 0 && raw_hello(&quiet) == 0, "quiet");
    EXPECT(raw_connect(&pinger) == 0 && raw_hello(&pinger) == 0, "pinger");
    EXPECT(raw_connect(&worker) == 0 && raw_hello(&worker) == 0, "worker");
    EXPECT(raw_connect(&busy) == 0 && raw_hello(&busy) == 0, "busy");
    EXPECT(raw_malloc(&quiet, 1 << 20, &ptr) == 0, "quiet holds 1 MiB");
    EXPECT(op_module_load(&busy, image, image_len, &mod) == 0, "module");
    EXPECT(op_get_function(&busy, mod, "spin", &fn, &args) == 0, "spin");

    long long t0 = now_ms();
    /* busy: a 3 s kernel, then a synchronize whose reply comes at its end. */
    struct hipr_launch l = { .function = fn,
                             .stream = DEFAULT_STREAM,
                             .grid_x = 1,
                             .grid_y = 1,
                             .grid_z = 1,
                             .block_x = 1,
                             .block_y = 1,
                             .block_z = 1 };
    uint8_t lfixed[HIPR_launch_SIZE], largs[4], sfixed[HIPR_stream_SIZE];
    hipr_launch_encode(lfixed, &l);
    hipr_put_u32(largs, 3000000);
    hipr_put_u64(sfixed, DEFAULT_STREAM);
    int err;
    raw_send(&busy, HIPR_OP_LAUNCH, HIPR_FLAG_NO_REPLY, lfixed, sizeof lfixed, largs, sizeof largs,
             &err);
    EXPECT(err == 0, "launch sent");
    uint32_t sync_id =
        raw_send(&busy, HIPR_OP_STREAM_SYNCHRONIZE, 0, sfixed, sizeof sfixed, NULL, 0, &err);
    EXPECT(err == 0, "synchronize sent");

    long long quiet_end = 0, pinger_end = 0, worker_last = 0, worker_end = 0;
    long long busy_reply = 0, busy_end = 0;
    while (now_ms() - t0 < 8000 && !(quiet_end && pinger_end && worker_end && busy_end)) {
        long long t = now_ms() - t0;
        if (!quiet_end && closed_now(&quiet))
            quiet_end = t;
        if (!pinger_end) {
            int rc = op_ping(&pinger, NULL);
            if (rc < 0)
                pinger_end = t;
        }
        if (!worker_end) {
            if (t < 3000) {
                uint8_t dfixed[HIPR_device_SIZE];
                hipr_put_u32(dfixed, 0);
                EXPECT(raw_status(&worker, HIPR_OP_MEM_GET_INFO, dfixed, sizeof dfixed, NULL, 0) ==
                           0,
                       "a working session is kept (t=%lld ms)", t);
                worker_last = t;
            } else if (closed_now(&worker)) {
                worker_end = t;
            }
        }
        if (!busy_reply) {
            struct raw_reply r;
            int rc = raw_recv(&busy, &r, 1);
            if (rc == 0) {
                EXPECT(r.h.request_id == sync_id && r.rh.status == 0, "synchronize answered");
                raw_reply_free(&r);
                busy_reply = t;
            } else {
                EXPECT(rc == RAW_TIMEOUT, "busy closed before its kernel finished (t=%lld)", t);
            }
        } else if (!busy_end && closed_now(&busy)) {
            busy_end = t;
        }
        raw_sleep_ms(300);
    }
    printf("quiet ended at %lld ms, pinger at %lld, worker at %lld (last request %lld), "
           "busy answered at %lld and ended at %lld\n",
           quiet_end, pinger_end, worker_end, worker_last, busy_reply, busy_end);
    EXPECT(quiet_end >= 900 && quiet_end <= 2800, "quiet: %lld", quiet_end);
    EXPECT(pinger_end >= 900 && pinger_end <= 2800, "pings are not activity: %lld", pinger_end);
    EXPECT(worker_end - worker_last >= 700 && worker_end - worker_last <= 2800,
           "worker: ended %lld ms after its last request", worker_end - worker_last);
    EXPECT(busy_reply >= 2800, "the kernel ran 3 s: %lld", busy_reply);
    EXPECT(busy_end > busy_reply && busy_end - busy_reply <= 2800, "busy: %lld after the reply",
           busy_end - busy_reply);
    EXPECT(raw_log_has("(--idle-timeout)", "no request and no work running"), "the log says why");
    struct raw_worker_status st;
    EXPECT(raw_wait_worker_idle(0, 0, 5000, &st) == 0, "all freed: %u sessions, %llu bytes",
           st.sessions, (unsigned long long)st.bytes_in_use);
    raw_close(&quiet);
    raw_close(&pinger);
    raw_close(&worker);
    raw_close(&busy);
    free(image);
    raw_pass();

    raw_begin("a client that stops reading");
    struct raw_conn deaf;
    EXPECT(raw_connect(&deaf) == 0 && raw_hello(&deaf) == 0, "deaf");
    EXPECT(raw_malloc(&deaf, 8 << 20, &ptr) == 0, "deaf holds 8 MiB");
    struct hipr_memcpy_d2h m = { .src = ptr, .size = 8 << 20, .stream = DEFAULT_STREAM };
    uint8_t mfixed[HIPR_memcpy_d2h_SIZE];
    hipr_memcpy_d2h_encode(mfixed, &m);
    long long t1 = now_ms();
    for (int i = 0; i < 16; i++) {
        raw_send(&deaf, HIPR_OP_MEMCPY_D2H, 0, mfixed, sizeof mfixed, NULL, 0, &err);
        EXPECT(err == 0, "D2H request %d sent", i);
    }
    /* Far more than the socket buffers hold is now waiting to be sent. */
    long long said = 0;
    while (now_ms() - t1 < 10000 && !(said = raw_log_has("the client read nothing for", "")))
        raw_sleep_ms(100);
    printf("the worker gave up on the deaf client after %lld ms\n", now_ms() - t1);
    EXPECT(said, "the worker still waits on a client that stopped reading");
    EXPECT(raw_wait_worker_idle(0, 0, 5000, &st) == 0,
           "the deaf session was ended and freed: %u sessions, %llu bytes", st.sessions,
           (unsigned long long)st.bytes_in_use);
    raw_close(&deaf);
    raw_pass();
    printf("idle timeout: ok\n");
    return 0;
}
