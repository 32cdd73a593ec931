/*
 * test_fault_relay - checks the fault-injecting relay itself, between two
 * plain TCP endpoints of this test: bytes pass through exactly both ways at
 * once, a cut lands on the exact byte in either direction and only once, a
 * stall holds data without closing, "down"/"up" refuse and restore
 * connections, latency and rate limits slow the link at least as asked, a
 * timed cut fires, and a dead target resets the client.
 *
 *   test_fault_relay PATH_TO_fault_relay
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hw_net.h"
#include "hw_time.h"
#include "relay_ctl.h"
#include "testutil.h"

/* One end of a connection: what it still has to send, what it received. */
struct end {
    int fd;
    const uint8_t *out;
    size_t out_len, out_off;
    int shut_when_sent;
    int shut;
    uint8_t *in;
    size_t in_cap, in_len;
    int eof;   /* the peer closed (FIN) */
    int reset; /* the connection failed (RST) */
};

static void end_init(struct end *e, int fd, const void *out, size_t out_len, void *in,
                     size_t in_cap)
{
    memset(e, 0, sizeof *e);
    e->fd = fd;
    e->out = out;
    e->out_len = out_len;
    e->in = in;
    e->in_cap = in_cap;
    e->shut_when_sent = 1;
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static int end_closed(const struct end *e)
{
    return e->eof || e->reset;
}

/* Moves bytes on every end until each has sent everything and seen the
 * peer close (or failed), or until timeout_ms. Returns elapsed ms. */
static int pump(struct end *ends, int n, int timeout_ms)
{
    uint64_t t0 = hw_now_ns(), limit = t0 + (uint64_t)timeout_ms * 1000000u;
    for (;;) {
        struct pollfd pf[4];
        int busy = 0;
        for (int i = 0; i < n; i++) {
            struct end *e = &ends[i];
            if (e->out_off == e->out_len && e->shut_when_sent && !e->shut && !e->reset) {
                shutdown(e->fd, SHUT_WR);
                e->shut = 1;
            }
            short ev = 0;
            if (!end_closed(e))
                ev |= POLLIN;
            if (!e->reset && e->out_off < e->out_len)
                ev |= POLLOUT;
            busy |= ev != 0;
            pf[i] = (struct pollfd){ .fd = ev ? e->fd : -1, .events = ev };
        }
        uint64_t now = hw_now_ns();
        if (!busy || now >= limit)
            break;
        if (poll(pf, (nfds_t)n, (int)((limit - now) / 1000000u) + 1) < 0)
            break;
        for (int i = 0; i < n; i++) {
            struct end *e = &ends[i];
            if (pf[i].revents & POLLOUT) {
                ssize_t w = send(e->fd, e->out + e->out_off, e->out_len - e->out_off, MSG_NOSIGNAL);
                if (w > 0)
                    e->out_off += (size_t)w;
                else if (w < 0 && errno != EAGAIN)
                    e->reset = 1;
            }
            if (pf[i].revents & (POLLIN | POLLHUP | POLLERR)) {
                uint8_t sink[65536];
                uint8_t *dst = e->in_len < e->in_cap ? e->in + e->in_len : sink;
                size_t room = e->in_len < e->in_cap ? e->in_cap - e->in_len : sizeof sink;
                ssize_t r = recv(e->fd, dst, room, 0);
                if (r > 0 && dst != sink)
                    e->in_len += (size_t)r;
                else if (r > 0)
                    e->in_len += (size_t)r, e->reset = 1; /* more than expected: fail below */
                else if (r == 0)
                    e->eof = 1;
                else if (errno != EAGAIN)
                    e->reset = 1;
            }
        }
    }
    return (int)((hw_now_ns() - t0) / 1000000u);
}

static void fill_random(uint8_t *p, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        p[i] = (uint8_t)(seed >> 24);
    }
}

/* No read in this test blocks for long: a relay that loses data fails the
 * check that waited for it instead of hanging the test. */
static void read_deadline(int fd)
{
    struct timeval tv = { 20, 0 };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

/* A client connection through the relay and the server side of it. */
static void connect_pair(int lfd, int relay_port, int *cfd, int *sfd)
{
    CHECK(hw_tcp_connect("127.0.0.1", relay_port, 2000, cfd) == 0);
    struct pollfd pf = { .fd = lfd, .events = POLLIN };
    CHECK(poll(&pf, 1, 2000) == 1);
    *sfd = accept(lfd, NULL, NULL);
    CHECK(*sfd >= 0);
    read_deadline(*cfd);
    read_deadline(*sfd);
}

/* The connection was closed or reset (not merely quiet). */
static int closed_by_peer(int fd)
{
    uint8_t byte;
    read_deadline(fd);
    return hw_read_full(fd, &byte, 1) < 0 && errno != EAGAIN && errno != EWOULDBLOCK;
}

/* Nothing arrives on fd within ms, and the connection is still open. */
static void expect_silent_open(int fd, int ms)
{
    struct pollfd pf = { .fd = fd, .events = POLLIN };
    CHECK_EQ(poll(&pf, 1, ms), 0);
}

static uint64_t stat_of(const char *ctl, const char *key)
{
    uint64_t v = 0;
    CHECK(relay_stat(ctl, key, &v) == 0);
    return v;
}

int main(int argc, char **argv)
{
    CHECK(argc == 2);
    const char *relay_bin = argv[1];
    int lfd, sport;
    CHECK(hw_tcp_listen("127.0.0.1", 0, &lfd, &sport) == 0);
    char target[64];
    snprintf(target, sizeof target, "127.0.0.1:%d", sport);
    struct relay_proc rp;
    CHECK(relay_start(relay_bin, target, NULL, &rp) == 0);
    const char *ctl = rp.control;
    char reply[512];

    enum { BIG = 8 << 20 };
    uint8_t *a = malloc(BIG), *b = malloc(BIG), *ra = malloc(BIG), *rb = malloc(BIG);
    CHECK(a && b && ra && rb);
    fill_random(a, BIG, 0x1234567);
    fill_random(b, BIG, 0x89abcdef);
    int cfd, sfd;
    struct end e[2];

    /* 1. 8 MiB each way at once, byte for byte. */
    connect_pair(lfd, rp.port, &cfd, &sfd);
    end_init(&e[0], cfd, a, BIG, rb, BIG);
    end_init(&e[1], sfd, b, BIG, ra, BIG);
    pump(e, 2, 20000);
    CHECK(!e[0].reset && !e[1].reset && e[0].eof && e[1].eof);
    CHECK_EQ(e[1].in_len, BIG);
    CHECK_EQ(e[0].in_len, BIG);
    CHECK(memcmp(ra, a, BIG) == 0);
    CHECK(memcmp(rb, b, BIG) == 0);
    close(cfd);
    close(sfd);
    CHECK_EQ(stat_of(ctl, "c2w"), BIG);
    CHECK_EQ(stat_of(ctl, "w2c"), BIG);
    printf("passthrough: 8 MiB each way, exact: ok\n");

    /* 2. A cut after exactly 100003 bytes client->worker. */
    CHECK(relay_cmd(ctl, reply, sizeof reply, "cut c2w 100003") == 0);
    connect_pair(lfd, rp.port, &cfd, &sfd);
    end_init(&e[0], cfd, a, 1 << 20, rb, 1 << 20);
    end_init(&e[1], sfd, NULL, 0, ra, 1 << 20);
    e[1].shut_when_sent = 0; /* only the cut may close the client's side */
    pump(e, 2, 10000);
    CHECK_EQ(e[1].in_len, 100003);
    CHECK(memcmp(ra, a, 100003) == 0);
    CHECK(end_closed(&e[1]));
    CHECK(e[0].reset); /* the client is reset too: rst is the default mode */
    CHECK_EQ(stat_of(ctl, "cuts"), 1);
    close(cfd);
    close(sfd);
    /* One-shot: the next connection passes untouched. */
    connect_pair(lfd, rp.port, &cfd, &sfd);
    end_init(&e[0], cfd, a, 1 << 20, rb, 1 << 20);
    end_init(&e[1], sfd, NULL, 0, ra, 1 << 20);
    pump(e, 2, 10000);
    CHECK_EQ(e[1].in_len, 1 << 20);
    CHECK(e[1].eof && !e[0].reset);
    CHECK(memcmp(ra, a, 1 << 20) == 0);
    close(cfd);
    close(sfd);
    printf("cut c2w at byte 100003 exactly, once: ok\n");

    /* 3. The same worker->client, after the link has carried traffic. */
    connect_pair(lfd, rp.port, &cfd, &sfd);
    end_init(&e[0], cfd, a, 1000, rb, 1 << 20);
    e[0].shut_when_sent = 0;
    end_init(&e[1], sfd, NULL, 0, ra, 1000);
    e[1].shut_when_sent = 0;
    pump(e, 2, 300); /* 1000 bytes across; both stay open */
    CHECK_EQ(e[1].in_len, 1000);
    CHECK(relay_cmd(ctl, reply, sizeof reply, "cut w2c 77777") == 0);
    end_init(&e[0], cfd, NULL, 0, rb, 1 << 20);
    e[0].shut_when_sent = 0;
    end_init(&e[1], sfd, b, 1 << 20, ra, 1 << 20);
    pump(e, 2, 10000);
    CHECK_EQ(e[0].in_len, 77777);
    CHECK(memcmp(rb, b, 77777) == 0);
    CHECK(end_closed(&e[0]) && e[1].reset);
    close(cfd);
    close(sfd);
    printf("cut w2c at byte 77777 exactly: ok\n");

    /* 4. A stall holds the data and keeps both connections open. */
    connect_pair(lfd, rp.port, &cfd, &sfd);
    CHECK(relay_cmd(ctl, reply, sizeof reply, "stall") == 0);
    CHECK(hw_write_full(cfd, a, 65536) == 0);
    expect_silent_open(sfd, 300);
    CHECK(hw_write_full(sfd, b, 1000) == 0);
    expect_silent_open(cfd, 100);
    CHECK(relay_cmd(ctl, reply, sizeof reply, "resume") == 0);
    CHECK(hw_read_full(sfd, ra, 65536) == 0);
    CHECK(memcmp(ra, a, 65536) == 0);
    CHECK(hw_read_full(cfd, rb, 1000) == 0);
    CHECK(memcmp(rb, b, 1000) == 0);
    /* After N bytes: exactly 1000 of 5000 pass, the rest after resume. */
    CHECK(relay_cmd(ctl, reply, sizeof reply, "stall c2w 1000") == 0);
    CHECK(hw_write_full(cfd, a, 5000) == 0);
    CHECK(hw_read_full(sfd, ra, 1000) == 0);
    expect_silent_open(sfd, 300);
    CHECK(relay_cmd(ctl, reply, sizeof reply, "resume") == 0);
    CHECK(hw_read_full(sfd, ra + 1000, 4000) == 0);
    CHECK(memcmp(ra, a, 5000) == 0);
    close(cfd);
    close(sfd);
    printf("stall and resume, stall after 1000 bytes: ok\n");

    /* 5. down cuts what is open and resets new connections; up restores. */
    connect_pair(lfd, rp.port, &cfd, &sfd);
    CHECK(relay_cmd(ctl, reply, sizeof reply, "down") == 0);
    CHECK(strstr(reply, "cut 1") != NULL);
    uint8_t byte;
    CHECK(closed_by_peer(sfd));
    CHECK(closed_by_peer(cfd));
    close(cfd);
    close(sfd);
    uint64_t refused = stat_of(ctl, "refused");
    int dfd;
    /* The reset may come before connect() returns, or after. */
    if (hw_tcp_connect("127.0.0.1", rp.port, 2000, &dfd) == 0) {
        CHECK(closed_by_peer(dfd));
        close(dfd);
    }
    CHECK_EQ(stat_of(ctl, "refused"), refused + 1);
    CHECK(relay_cmd(ctl, reply, sizeof reply, "up") == 0);
    connect_pair(lfd, rp.port, &cfd, &sfd);
    CHECK(hw_write_full(cfd, "x", 1) == 0);
    CHECK(hw_read_full(sfd, &byte, 1) == 0 && byte == 'x');
    close(cfd);
    close(sfd);
    printf("down resets, up restores: ok\n");

    /* 6. Latency: a round trip takes at least twice the one-way delay. */
    CHECK(relay_cmd(ctl, reply, sizeof reply, "latency 100") == 0);
    connect_pair(lfd, rp.port, &cfd, &sfd);
    uint64_t t0 = hw_now_ns();
    CHECK(hw_write_full(cfd, "p", 1) == 0);
    CHECK(hw_read_full(sfd, &byte, 1) == 0);
    CHECK(hw_write_full(sfd, &byte, 1) == 0);
    CHECK(hw_read_full(cfd, &byte, 1) == 0 && byte == 'p');
    uint64_t rtt_ms = (hw_now_ns() - t0) / 1000000u;
    CHECK(rtt_ms >= 200);
    CHECK(relay_cmd(ctl, reply, sizeof reply, "latency 0") == 0);
    close(cfd);
    close(sfd);
    printf("latency 100 ms: round trip %llu ms: ok\n", (unsigned long long)rtt_ms);

    /* 7. Rate: 500 kB at 1 MB/s takes at least 0.4 s (allowing the burst). */
    CHECK(relay_cmd(ctl, reply, sizeof reply, "rate 1000000") == 0);
    connect_pair(lfd, rp.port, &cfd, &sfd);
    end_init(&e[0], cfd, a, 500000, rb, 16);
    end_init(&e[1], sfd, NULL, 0, ra, 500000);
    int ms = pump(e, 2, 10000);
    CHECK_EQ(e[1].in_len, 500000);
    CHECK(memcmp(ra, a, 500000) == 0);
    CHECK(ms >= 400);
    CHECK(relay_cmd(ctl, reply, sizeof reply, "rate 0") == 0);
    close(cfd);
    close(sfd);
    printf("rate 1 MB/s: 500 kB in %d ms: ok\n", ms);

    /* 8. Bad commands are refused with a reason. */
    CHECK(relay_cmd(ctl, reply, sizeof reply, "cut sideways 5") < 0);
    CHECK(strncmp(reply, "err", 3) == 0);
    CHECK(relay_cmd(ctl, reply, sizeof reply, "explode") < 0);
    CHECK(strstr(reply, "unknown command") != NULL);
    relay_stop(&rp);

    /* 9. A timed cut, set at start: the link works, then is cut. */
    const char *timed[] = { "--cut-after-ms", "300", NULL };
    CHECK(relay_start(relay_bin, target, timed, &rp) == 0);
    connect_pair(lfd, rp.port, &cfd, &sfd);
    t0 = hw_now_ns();
    CHECK(hw_write_full(cfd, "t", 1) == 0);
    CHECK(hw_read_full(sfd, &byte, 1) == 0 && byte == 't');
    CHECK(closed_by_peer(sfd));
    uint64_t cut_ms = (hw_now_ns() - t0) / 1000000u;
    CHECK(cut_ms >= 250 && cut_ms < 5000);
    close(cfd);
    close(sfd);
    printf("cut after 300 ms: cut at %llu ms: ok\n", (unsigned long long)cut_ms);
    relay_stop(&rp);

    /* 10. A target nobody listens on: the client is reset, the relay lives. */
    close(lfd);
    CHECK(relay_start(relay_bin, target, NULL, &rp) == 0);
    if (hw_tcp_connect("127.0.0.1", rp.port, 2000, &dfd) == 0) {
        CHECK(closed_by_peer(dfd));
        close(dfd);
    }
    CHECK_EQ(stat_of(rp.control, "refused"), 1);
    relay_stop(&rp);
    printf("dead target: client reset: ok\n");

    free(a);
    free(b);
    free(ra);
    free(rb);
    printf("fault relay: ok\n");
    return 0;
}
