/*
 * test_heartbeat - the worker's half of dead-peer detection, on the wire:
 * it sends HEARTBEAT frames into a silence, ends (and frees) a session
 * whose client has gone quiet for 4 intervals, keeps one alive that
 * heartbeats, and keeps a session without heartbeats as before.
 */
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "hw_status.h"
#include "trust_client.h"

#define HB 200

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A session holding 1 MiB, heartbeats at hb ms (0: none). */
static void open_session(struct raw_conn *c, uint32_t hb)
{
    struct trust_begin b;
    uint64_t p;
    EXPECT(raw_connect(c) == 0, "connect");
    trust_begin(c, 0, hb, &b, NULL);
    EXPECT(b.status == 0 && b.heartbeat_ms == hb, "AUTH_BEGIN: status %d heartbeat %u", b.status,
           b.heartbeat_ms);
    EXPECT(trust_hello(c, NULL) == 0, "HELLO");
    EXPECT(raw_malloc(c, 1 << 20, &p) == 0, "MALLOC");
}

/* A whole frame if one starts arriving within wait_ms, else RAW_TIMEOUT. */
static int recv_ready(struct raw_conn *c, struct raw_reply *r, int wait_ms)
{
    struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
    if (poll(&pfd, 1, wait_ms) <= 0)
        return RAW_TIMEOUT;
    return raw_recv(c, r, RAW_TIMEOUT_MS);
}

static void send_heartbeat(struct raw_conn *c)
{
    struct hipr_heartbeat m = { .interval_ms = HB };
    uint8_t fixed[HIPR_heartbeat_SIZE];
    int err;
    hipr_heartbeat_encode(fixed, &m);
    raw_send(c, HIPR_OP_HEARTBEAT, HIPR_FLAG_NO_REPLY, fixed, sizeof fixed, NULL, 0, &err);
    EXPECT(err == 0, "send HEARTBEAT");
}

static uint32_t sessions(void)
{
    struct raw_worker_status st;
    EXPECT(trust_worker_status(NULL, &st) == 0, "WORKER_STATUS");
    return st.sessions;
}

static void check_worker_heartbeats(void)
{
    struct raw_conn c;
    raw_begin("the worker sends HEARTBEAT frames into a silence, carrying its request count");
    open_session(&c, HB);
    int beats = 0;
    uint64_t seq = 0;
    double end = now_s() + 5.5 * HB / 1000.0, next_beat = 0;
    while (now_s() < end) {
        struct raw_reply r;
        if (now_s() >= next_beat) { /* our side, or the worker drops us */
            send_heartbeat(&c);
            next_beat = now_s() + 0.75 * HB / 1000.0;
        }
        int rc = recv_ready(&c, &r, 50);
        if (rc == RAW_TIMEOUT)
            continue;
        EXPECT(rc == 0, "reading: %d", rc);
        struct hipr_heartbeat hb;
        EXPECT(r.h.opcode == HIPR_OP_HEARTBEAT && r.h.request_id == 0 &&
                   (r.h.flags & HIPR_FLAG_RESPONSE) && r.rh.status == 0 &&
                   hipr_heartbeat_decode(r.body, r.body_len, &hb) == 0,
               "unexpected frame: opcode 0x%04x id %u", r.h.opcode, r.h.request_id);
        seq = hb.seq;
        beats++;
        raw_reply_free(&r);
    }
    /* Our heartbeats do not count as the worker sending: it still beats. */
    EXPECT(beats >= 3 && beats <= 7, "%d heartbeats in %d intervals", beats, 5);
    EXPECT(seq == 1, "heartbeat seq %llu, expected 1 (the MALLOC after HELLO)",
           (unsigned long long)seq);
    printf("  %d heartbeats in 5.5 intervals\n", beats);
    raw_close(&c);
    raw_pass();
}

static void check_silent_client_dropped(void)
{
    struct raw_conn c;
    raw_begin("a client silent for 4 intervals: session ended and freed");
    open_session(&c, HB);
    double t0 = now_s();
    /* Neither send nor close: a client whose host vanished. */
    while (sessions() != 0 && now_s() - t0 < 10)
        raw_sleep_ms(20);
    double took = now_s() - t0;
    struct raw_worker_status st;
    EXPECT(trust_worker_status(NULL, &st) == 0 && st.sessions == 0 && st.bytes_in_use == 0,
           "after %.1f s: %u sessions, %llu bytes", took, st.sessions,
           (unsigned long long)st.bytes_in_use);
    EXPECT(took >= 3.5 * HB / 1000.0 && took < 4 * HB / 1000.0 + 3.0,
           "ended after %.2f s; the deadline is %.2f s", took, 4 * HB / 1000.0);
    EXPECT(raw_log_has("presumed gone", "heartbeat every 200 ms"), "no log line");
    EXPECT(raw_log_has("freed 1048576 bytes", "1 allocations"), "no freed line");
    printf("  session ended %.2f s after the client went quiet (deadline %.2f s)\n", took,
           4 * HB / 1000.0);
    raw_close(&c);
    raw_pass();
}

static void check_heartbeating_client_kept(void)
{
    struct raw_conn c;
    uint64_t p;
    raw_begin("a client that only heartbeats for 8 intervals keeps its session");
    open_session(&c, HB);
    for (int i = 0; i < 8 * 4; i++) {
        raw_sleep_ms(HB / 4);
        if (i % 3 == 0)
            send_heartbeat(&c);
        struct raw_reply r;
        while (recv_ready(&c, &r, 0) == 0) /* drop the worker's heartbeats */
            raw_reply_free(&r);
    }
    EXPECT(sessions() == 1, "the session was dropped");
    EXPECT(raw_malloc(&c, 4096, &p) == 0, "MALLOC after the quiet spell");
    raw_close(&c);
    raw_pass();
}

static void check_no_heartbeat_kept(void)
{
    struct raw_conn c;
    raw_begin("without heartbeats a quiet session stays, as before");
    open_session(&c, 0);
    raw_sleep_ms(6 * HB);
    EXPECT(sessions() == 1, "a session without heartbeats was dropped");
    uint64_t p;
    EXPECT(raw_malloc(&c, 4096, &p) == 0, "MALLOC after the quiet spell");
    raw_close(&c);
    raw_pass();
}

static void check_clamped(void)
{
    struct raw_conn c;
    struct trust_begin b;
    raw_begin("an interval below 100 ms is raised to 100 ms");
    EXPECT(raw_connect(&c) == 0, "connect");
    trust_begin(&c, 0, 1, &b, NULL);
    EXPECT(b.status == 0 && b.heartbeat_ms == 100, "heartbeat %u", b.heartbeat_ms);
    raw_close(&c);
    raw_pass();
}

int main(void)
{
    check_clamped();
    check_worker_heartbeats();
    check_silent_client_dropped();
    check_heartbeating_client_kept();
    check_no_heartbeat_kept();
    printf("test_heartbeat: all checks passed\n");
    return 0;
}
