/*
 * heartbeat.c - the worker's half of dead-peer detection (docs/protocol.md,
 * "Heartbeat").
 *
 * Why not TCP keepalive alone: it is configured per host, not per
 * connection, middleboxes may answer it, and a peer whose kernel still ACKs
 * while its process is stopped or wedged looks alive to it. So both sides
 * send a HEARTBEAT frame after heartbeat_ms without sending anything, and a
 * side that hears nothing at all for HW_DEAD_AFTER intervals gives the peer
 * up. On the worker the frames come from this thread, not the dispatch
 * loop, so a loop blocked behind a long kernel (a FREE draining the device,
 * say) still shows the client that the worker lives. TCP_USER_TIMEOUT covers
 * the last case: a write blocked on a peer that stopped acknowledging.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <time.h>

#include "hw_log.h"
#include "hw_net.h"
#include "session.h"
#include "hw_time.h"

static void send_heartbeat(struct session *s)
{
    struct hipr_heartbeat hb = {
        .seq = __atomic_load_n(&s->requests_executed, __ATOMIC_RELAXED),
        .interval_ms = (uint32_t)s->heartbeat_ms,
    };
    uint8_t out[HIPR_heartbeat_SIZE];
    hipr_heartbeat_encode(out, &hb);
    session_send_unsolicited(s, HIPR_OP_HEARTBEAT, out, sizeof out);
}

static void *heartbeat_main(void *arg)
{
    struct session *s = arg;
    pthread_mutex_lock(&s->hb_lock);
    while (!s->hb_stop) {
        struct timespec until =
            hw_deadline_after_ns(CLOCK_MONOTONIC, (uint64_t)s->heartbeat_ms * 1000000u);
        int rc = 0;
        while (!s->hb_stop && rc != ETIMEDOUT)
            rc = pthread_cond_timedwait(&s->hb_cond, &s->hb_lock, &until);
        if (s->hb_stop)
            break;
        pthread_mutex_unlock(&s->hb_lock);
        uint64_t quiet = hw_now_ms() - __atomic_load_n(&s->last_send_ms, __ATOMIC_RELAXED);
        if (quiet + 10 >= (uint64_t)s->heartbeat_ms)
            send_heartbeat(s);
        pthread_mutex_lock(&s->hb_lock);
    }
    pthread_mutex_unlock(&s->hb_lock);
    return NULL;
}

void session_heartbeat_link(struct session *s)
{
    /* A client that stops reading is as gone as a silent one: with
     * heartbeats after the same dead time, else after --idle-timeout. */
    uint64_t idle_ms = s->cfg->idle_timeout_ms;
    int send_ms = s->heartbeat_ms     ? HW_DEAD_AFTER * s->heartbeat_ms
                  : idle_ms > INT_MAX ? INT_MAX
                                      : (int)idle_ms;
    hw_tx_set_send_timeout(&s->tx, send_ms);
    if (!s->heartbeat_ms)
        return;
    int dead_ms = HW_DEAD_AFTER * s->heartbeat_ms;
    hw_tx_set_recv_timeout(&s->tx, dead_ms);
    hw_tcp_user_timeout(s->tx.fd, dead_ms);
}

int session_heartbeat_start(struct session *s)
{
    session_heartbeat_link(s);
    if (!s->heartbeat_ms)
        return 0;
    int dead_ms = HW_DEAD_AFTER * s->heartbeat_ms;
    __atomic_store_n(&s->last_send_ms, hw_now_ms(), __ATOMIC_RELAXED);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&s->hb_lock, NULL);
    pthread_cond_init(&s->hb_cond, &ca);
    pthread_condattr_destroy(&ca);
    if (pthread_create(&s->hb_thread, NULL, heartbeat_main, s) != 0) {
        hw_error("session %016llx: cannot start the heartbeat thread", (unsigned long long)s->id);
        return -1;
    }
    s->hb_running = 1;
    hw_debug("session %016llx: heartbeat every %d ms, peer presumed gone after %d ms of silence",
             (unsigned long long)s->id, s->heartbeat_ms, dead_ms);
    return 0;
}

void session_heartbeat_stop(struct session *s)
{
    if (!s->hb_running)
        return;
    pthread_mutex_lock(&s->hb_lock);
    s->hb_stop = 1;
    pthread_cond_signal(&s->hb_cond);
    pthread_mutex_unlock(&s->hb_lock);
    pthread_join(s->hb_thread, NULL);
    s->hb_running = 0;
}
