/*
 * test_hostile_preauth - idle unauthenticated sockets must not lock real
 * clients out (docs/security.md, "Before authentication"), against
 * `hip-worker --handshake-timeout=60000`:
 *
 *   - 200 sockets from 127.0.0.2 that send nothing: a client from
 *     127.0.0.1 still gets its session at once (the next connection to be
 *     served comes from the source with the fewest handshakes in progress);
 *   - 200 such sockets from the client's own address: it gets its session
 *     at once too, not after the 60 s handshake timeout that would free
 *     their places otherwise: a connection that has sent nothing is held by
 *     the supervisor and gets no process (their number is checked).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "raw_client.h"

enum { IDLE = 200 };

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* n connections from source address `from` that never send a byte. */
static void open_idle(int *fds, int n, const char *from)
{
    struct sockaddr_in src = { .sin_family = AF_INET }, dst = { .sin_family = AF_INET };
    inet_pton(AF_INET, from, &src.sin_addr);
    inet_pton(AF_INET, "127.0.0.1", &dst.sin_addr);
    dst.sin_port = htons((uint16_t)atoi(getenv("TF_WORKER_PORT")));
    for (int i = 0; i < n; i++) {
        fds[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        EXPECT(fds[i] >= 0, "socket");
        EXPECT(bind(fds[i], (struct sockaddr *)&src, sizeof src) == 0, "bind %s", from);
        EXPECT(connect(fds[i], (struct sockaddr *)&dst, sizeof dst) == 0, "connect from %s", from);
    }
}

static void close_all(int *fds, int n)
{
    for (int i = 0; i < n; i++)
        close(fds[i]);
}

/* A real client's HELLO from 127.0.0.1: seconds until its session. */
static double session_after(int timeout_ms)
{
    struct raw_conn c;
    struct hipr_hello_req req = { .proto_min = HIPR_VERSION,
                                  .proto_max = HIPR_VERSION,
                                  .client_pid = (uint32_t)getpid() };
    uint8_t fixed[HIPR_hello_req_SIZE];
    struct raw_reply r;
    int err = 0;
    double t0 = now_s();
    EXPECT(raw_connect(&c) == 0, "connect");
    hipr_hello_req_encode(fixed, &req);
    raw_send(&c, HIPR_OP_HELLO, 1, fixed, sizeof fixed, NULL, 0, &err);
    EXPECT(err == 0, "HELLO not sent");
    int rc = raw_recv(&c, &r, timeout_ms);
    EXPECT(rc == 0, "no HELLO reply within %d ms (%d): locked out", timeout_ms, rc);
    EXPECT(r.h.opcode == HIPR_OP_HELLO && r.rh.status == 0, "HELLO refused: %d", r.rh.status);
    raw_reply_free(&r);
    double took = now_s() - t0;
    raw_close(&c);
    return took;
}

/* The worker supervisor's child processes (sessions and handshakes). */
static int worker_children(void)
{
    char path[128], buf[65536];
    const char *pid = getenv("HIPWIRE_WORKER_PID");
    EXPECT(pid != NULL, "HIPWIRE_WORKER_PID not set (run under with_worker)");
    snprintf(path, sizeof path, "/proc/%s/task/%s/children", pid, pid);
    FILE *f = fopen(path, "r");
    EXPECT(f != NULL, "cannot read %s", path);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    int kids = 0;
    for (char *t = strtok(buf, " \n"); t; t = strtok(NULL, " \n"))
        kids++;
    return kids;
}

int main(void)
{
    static int idle[IDLE];

    raw_begin("200 idle sockets from another address");
    open_idle(idle, IDLE, "127.0.0.2");
    raw_sleep_ms(300); /* were they given processes, they would hold every place */
    int kids = worker_children();
    printf("  worker processes for 200 silent connections: %d\n", kids);
    EXPECT(kids < 16, "%d processes for connections that sent nothing", kids);
    double took = session_after(5000);
    printf("  session after %.3f s\n", took);
    EXPECT(took < 2.0, "a client waited %.2f s behind another peer's idle sockets", took);
    close_all(idle, IDLE);
    raw_pass();

    raw_begin("200 idle sockets from the client's own address");
    raw_sleep_ms(1000);
    open_idle(idle, IDLE, "127.0.0.1");
    raw_sleep_ms(300);
    took = session_after(5000);
    printf("  session after %.3f s\n", took);
    EXPECT(took < 2.0, "a client waited %.2f s behind idle sockets", took);
    close_all(idle, IDLE);
    raw_pass();
    return 0;
}
