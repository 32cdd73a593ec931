/*
 * test_route_hijack - the attacks on session resume, run against a real
 * worker (docs/protocol.md, "Session resume"; docs/security.md).
 *
 * 1. A local process binds a session's abstract route name - after the
 *    session's process died, or before it listened - and waits for the next
 *    SESSION_ROUTE: the worker must never hand it the client's socket.
 * 2. A peer that routes to a session and then trickles its handshake a byte
 *    at a time must be closed within --handshake-timeout in all, and must
 *    not delay the owner's resume meanwhile.
 *
 * Usage: test_route_hijack TOKEN_FILE HANDSHAKE_TIMEOUT_MS
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "hw_status.h"
#include "hw_time.h"
#include "hw_transport.h"
#include "trust_client.h"

#define RESUME_TOKEN UINT64_C(0x0ddba11cafe51ab5)

static struct hw_token token;
static const uint8_t plain_binding[HW_TLS_CHANNEL_BINDING_LEN];

/* HELLO with a resume token; RESUME_ENABLE's status (0: resumable). */
static int open_session(struct raw_conn *c, int (*before_enable)(struct raw_conn *))
{
    EXPECT(trust_connect(c, &token) == 0, "authenticate");
    int st = trust_hello_resumable(c, RESUME_TOKEN, NULL);
    EXPECT(st == 0, "HELLO refused (%d)", st);
    if (before_enable && before_enable(c) < 0)
        return -1;
    return raw_status(c, HIPR_OP_RESUME_ENABLE, NULL, 0, NULL, 0);
}

static long parent_of(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "r");
    EXPECT(f != NULL, "cannot read %s", path);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    long ppid = -1;
    EXPECT(p && sscanf(p + 1, " %*c %ld", &ppid) == 1, "cannot parse %s", path);
    return ppid;
}

/* The attacker: binds the route name the worker derives for session id. */
static int bind_route(long supervisor, uint64_t session)
{
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    int n = snprintf(a.sun_path + 1, sizeof a.sun_path - 1, "hipwire-%ld-%016llx", supervisor,
                     (unsigned long long)session);
    socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    EXPECT(fd >= 0, "socket");
    if (bind(fd, (struct sockaddr *)&a, len) < 0 || listen(fd, 4) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Whatever reached the attacker's listener within ms: 1 when it carried a
 * file descriptor (the hijack worked), else 0. */
static int attacker_got_socket(int lfd, int ms)
{
    struct pollfd p = { .fd = lfd, .events = POLLIN };
    if (poll(&p, 1, ms) <= 0)
        return 0;
    int fd = accept(lfd, NULL, NULL);
    if (fd < 0)
        return 0;
    uint8_t msg[64];
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int))];
    } ctl;
    struct iovec iov = { msg, sizeof msg };
    struct msghdr mh = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf
    };
    struct timeval tv = { 2, 0 };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ssize_t r = recvmsg(fd, &mh, 0);
    struct cmsghdr *cm = r > 0 ? CMSG_FIRSTHDR(&mh) : NULL;
    int got = cm && cm->cmsg_type == SCM_RIGHTS;
    if (got) {
        int passed;
        memcpy(&passed, CMSG_DATA(cm), sizeof passed);
        close(passed);
    }
    close(fd);
    return got;
}

static int route(struct raw_conn *c, uint64_t session)
{
    struct hipr_session_route m = { .session_id = session };
    uint8_t fixed[HIPR_session_route_SIZE];
    hipr_session_route_encode(fixed, &m);
    EXPECT(raw_connect(c) == 0, "connect");
    return raw_status(c, HIPR_OP_SESSION_ROUTE, fixed, sizeof fixed, NULL, 0);
}

static void wait_gone(pid_t pid)
{
    for (int i = 0; i < 100; i++) {
        if (kill(pid, 0) < 0 && errno == ESRCH)
            return;
        usleep(50 * 1000);
    }
    EXPECT(0, "session process %ld still there after SIGKILL", (long)pid);
}

static long attack_supervisor;
static int attack_fd = -1;

/* Binds the name of the session that HELLO just opened, before it listens. */
static int squat(struct raw_conn *c)
{
    attack_fd = bind_route(attack_supervisor, c->session_id);
    EXPECT(attack_fd >= 0, "could not bind the route name first: %s", strerror(errno));
    return 0;
}

/* Routes, authenticates and resumes as the session's owner. */
static int owner_resume(struct raw_conn *b, uint64_t session, uint64_t requests)
{
    struct trust_begin tb;
    struct hipr_session_resume_req m = { .session_id = session,
                                         .replies_received = requests,
                                         .requests_sent = requests };
    struct hipr_session_resume_rep rep;
    struct raw_reply r;
    uint8_t fixed[HIPR_session_resume_req_SIZE];
    if (route(b, session) != 0)
        return -1;
    trust_begin(b, session, 0, &tb, NULL);
    EXPECT(trust_proof(b, &token, &tb, session, NULL) == 0, "token refused");
    hw_resume_proof(RESUME_TOKEN, HW_PROOF_RESUME_CLIENT, tb.cnonce, tb.wnonce, session,
                    plain_binding, m.proof);
    hipr_session_resume_req_encode(fixed, &m);
    EXPECT(raw_call(b, HIPR_OP_SESSION_RESUME, fixed, sizeof fixed, NULL, 0, &r) == 0,
           "no SESSION_RESUME reply");
    int rc = r.rh.status;
    if (rc == 0)
        EXPECT(hipr_session_resume_rep_decode(r.body, r.body_len, &rep) == 0, "short reply");
    raw_reply_free(&r);
    return rc;
}

int main(int argc, char **argv)
{
    struct raw_conn a, b, slow;
    EXPECT(argc == 3, "usage: test_route_hijack TOKEN_FILE HANDSHAKE_TIMEOUT_MS");
    trust_load_token(argv[1], &token);
    int hs_ms = atoi(argv[2]);

    raw_begin("the session's process dies; a local process takes its route name");
    EXPECT(open_session(&a, NULL) == 0, "RESUME_ENABLE refused");
    long sup = parent_of((pid_t)a.session_pid);
    EXPECT(kill((pid_t)a.session_pid, SIGKILL) == 0, "kill the session process");
    wait_gone((pid_t)a.session_pid);
    int lfd = bind_route(sup, a.session_id);
    EXPECT(lfd >= 0, "could not bind the dead session's route name: %s", strerror(errno));
    int st = route(&b, a.session_id);
    EXPECT(!attacker_got_socket(lfd, 1000),
           "the worker handed a resuming client's socket to a foreign listener");
    EXPECT(st == HW_ENOTFOUND, "SESSION_ROUTE answered %d, expected hipErrorNotFound", st);
    raw_close(&b);
    close(lfd);
    raw_close(&a);
    raw_pass();

    raw_begin("a local process squats a live session's route name before it listens");
    attack_supervisor = sup;
    EXPECT(open_session(&a, squat) == HW_ENOTSUP,
           "RESUME_ENABLE succeeded though the route name was taken");
    st = route(&b, a.session_id);
    EXPECT(!attacker_got_socket(attack_fd, 1000),
           "the worker handed a client's socket to the process squatting the route name");
    EXPECT(st == HW_ENOTFOUND, "SESSION_ROUTE answered %d, expected hipErrorNotFound", st);
    EXPECT(raw_log_has("its route is held by pid", "not the session's process"),
           "the worker did not log who held the name");
    raw_close(&b);
    close(attack_fd);
    EXPECT(raw_status(&a, HIPR_OP_GOODBYE, NULL, 0, NULL, 0) == 0, "GOODBYE");
    raw_close(&a);
    raw_pass();

    raw_begin("a routed peer trickling its handshake is cut at the deadline; the owner resumes");
    EXPECT(open_session(&a, NULL) == 0, "RESUME_ENABLE refused");
    EXPECT(raw_status(&a, HIPR_OP_PING, (uint8_t[HIPR_ping_SIZE]){ 0 }, HIPR_ping_SIZE, NULL, 0) ==
               0,
           "PING");
    raw_close(&a); /* the link breaks; the session waits for its owner */
    EXPECT(route(&slow, a.session_id) == 0, "SESSION_ROUTE refused for the slow peer");
    uint8_t hdr[HIPR_HEADER_SIZE];
    struct hipr_header h = { .magic = HIPR_MAGIC,
                             .version = HIPR_VERSION,
                             .opcode = HIPR_OP_AUTH_BEGIN,
                             .request_id = 1,
                             .payload_length = HIPR_auth_begin_req_SIZE };
    hipr_header_encode(hdr, &h);
    uint64_t t0 = hw_now_ms();
    int owner_done = 0, cut = 0;
    /* One byte every hs_ms/4: each read is well inside the timeout. */
    for (size_t i = 0; i < sizeof hdr; i++) {
        if (i == 1) {
            EXPECT(owner_resume(&b, a.session_id, 1) == 0,
                   "the owner could not resume while a slow peer was in its handshake");
            owner_done = 1;
        }
        if (raw_send_bytes(&slow, hdr + i, 1) < 0) {
            cut = 1;
            break;
        }
        usleep((useconds_t)hs_ms * 250);
        struct pollfd p = { .fd = slow.fd, .events = POLLIN };
        if (poll(&p, 1, 0) > 0) {
            char x;
            if (recv(slow.fd, &x, 1, MSG_DONTWAIT) == 0) {
                cut = 1;
                break;
            }
        }
    }
    uint64_t took = hw_now_ms() - t0;
    EXPECT(owner_done, "the owner never got to resume");
    EXPECT(cut || raw_wait_closed(&slow, hs_ms), "the slow peer was never cut");
    took = hw_now_ms() - t0;
    EXPECT(took <= (uint64_t)hs_ms * 2 + 1000,
           "the slow peer kept its handshake open %llu ms (--handshake-timeout %d)",
           (unsigned long long)took, hs_ms);
    raw_close(&slow);
    EXPECT(raw_status(&b, HIPR_OP_PING, (uint8_t[HIPR_ping_SIZE]){ 0 }, HIPR_ping_SIZE, NULL, 0) ==
               0,
           "the resumed session does not answer");
    EXPECT(raw_status(&b, HIPR_OP_GOODBYE, NULL, 0, NULL, 0) == 0, "GOODBYE");
    raw_close(&b);
    raw_pass();
    return 0;
}
