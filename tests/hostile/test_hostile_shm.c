/*
 * test_hostile_shm - a same-host client that attacks the shared-memory
 * transport (docs/protocol.md, "Shared-memory transport").
 *
 *   1. A connection to the hand-over socket with a wrong nonce gets no
 *      region, and the offer is gone for the real client too (one try).
 *   2. A switched session works: PING through the rings.
 *   3. The client breaks the request ring's index (its own head, far ahead
 *      of the worker's tail): the worker says so in its log and ends the
 *      session; the session process does not crash.
 *   4. The client breaks the reply ring's index (the worker's consumer
 *      tail) and sends a PING: same.
 *   5. The worker still serves new sessions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hostile_ops.h"
#include "hw_shm.h"
#include "hw_status.h"

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

static int shm_step(struct raw_conn *c, uint32_t op, struct hipr_transport_shm_rep *rep)
{
    struct hipr_transport_shm_req q;
    uint8_t fixed[HIPR_transport_shm_req_SIZE];
    struct raw_reply r;
    memset(&q, 0, sizeof q);
    q.op = op;
    if (hw_shm_boot_id(q.boot_id) < 0)
        return -100;
    hipr_transport_shm_req_encode(fixed, &q);
    int rc = raw_call(c, HIPR_OP_TRANSPORT_SHM, fixed, sizeof fixed, NULL, 0, &r);
    if (rc != 0)
        return rc;
    int status = r.rh.status;
    if (status == 0 && rep && r.body_len == HIPR_transport_shm_rep_SIZE)
        hipr_transport_shm_rep_decode(r.body, r.body_len, rep);
    raw_reply_free(&r);
    return status;
}

/* A session on the rings: 0 and *out, or -1. */
static int go_shm(struct raw_conn *c, struct hw_shm_link **out)
{
    struct hipr_transport_shm_rep rep;
    char why[200] = "";
    CHECK(shm_step(c, HIPR_SHM_OFFER, &rep) == 0);
    int sock = hw_shm_dial(rep.path, rep.nonce, why, sizeof why);
    CHECK(sock >= 0);
    CHECK(shm_step(c, HIPR_SHM_HANDOVER, NULL) == 0);
    int memfd = hw_shm_take_fd(sock, 2000, why, sizeof why);
    close(sock);
    CHECK(memfd >= 0);
    struct hw_shm_link *l = hw_shm_map(memfd, rep.ring_size, rep.nonce, why, sizeof why);
    close(memfd);
    CHECK(l != NULL);
    CHECK(shm_step(c, HIPR_SHM_COMMIT, NULL) == 0);
    *out = l;
    return 0;
}

/* PING through the rings: 0 when the worker answered it. */
static int shm_ping(struct raw_conn *c, struct hw_shm_link *l)
{
    uint8_t frame[HIPR_HEADER_SIZE + HIPR_ping_SIZE];
    struct hipr_header h = { HIPR_MAGIC, HIPR_VERSION, HIPR_OP_PING, 77, 0, HIPR_ping_SIZE };
    struct hipr_ping p = { .nonce = 0x1234 };
    hipr_header_encode(frame, &h);
    hipr_ping_encode(frame + HIPR_HEADER_SIZE, &p);
    struct iovec iov = { frame, sizeof frame };
    if (hw_shm_writev(l, c->fd, &iov, 1) < 0)
        return -1;
    uint8_t rep[HIPR_HEADER_SIZE + HIPR_reply_hdr_SIZE + HIPR_ping_SIZE];
    size_t have = 0;
    while (have < sizeof rep) {
        ssize_t r = hw_shm_recv(l, c->fd, rep + have, sizeof rep - have, 5000);
        if (r <= 0)
            return -1;
        have += (size_t)r;
    }
    hipr_header_decode(rep, &h);
    return h.request_id == 77 && h.opcode == HIPR_OP_PING ? 0 : -1;
}

static int log_has(const char *needle)
{
    const char *path = getenv("HIPWIRE_WORKER_LOG");
    size_t len = 0;
    char *text = path ? read_file(path, &len) : NULL;
    int found = text && memmem(text, len, needle, strlen(needle)) != NULL;
    free(text);
    return found;
}

static void wait_log(const char *needle)
{
    for (int i = 0; i < 100 && !log_has(needle); i++)
        usleep(50 * 1000);
    CHECK(log_has(needle));
}

int main(void)
{
    struct raw_conn c;
    struct hw_shm_link *l;
    struct hipr_transport_shm_rep rep;
    char why[200] = "";
    uint8_t wrong[HW_SHM_NONCE_LEN];

    /* 1. A thief with the socket's name but not the nonce. */
    CHECK(raw_connect(&c) == 0 && raw_hello(&c) == 0);
    CHECK(shm_step(&c, HIPR_SHM_OFFER, &rep) == 0);
    memset(wrong, 0x5a, sizeof wrong);
    int thief = hw_shm_dial(rep.path, wrong, why, sizeof why);
    CHECK(thief >= 0);
    CHECK(shm_step(&c, HIPR_SHM_HANDOVER, NULL) == HW_EINVAL);
    CHECK(hw_shm_take_fd(thief, 500, why, sizeof why) < 0);
    close(thief);
    CHECK(access(rep.path, F_OK) != 0); /* the name is gone */
    CHECK(shm_step(&c, HIPR_SHM_COMMIT, NULL) == HW_EINVAL);
    /* Still a working session, on TCP. */
    int32_t async = 0;
    CHECK(op_ping(&c, &async) == 0);
    wait_log("hand-over connection did not present the nonce");
    printf("wrong nonce: no region, the offer withdrawn: ok\n");

    /* 2. The real thing. */
    CHECK(go_shm(&c, &l) == 0);
    CHECK(shm_ping(&c, l) == 0);
    CHECK(shm_ping(&c, l) == 0);
    printf("ping through the rings: ok\n");

    /* 3. The request ring's head, far beyond anything written. */
    uint64_t *head, *tail;
    hw_shm_test_indices(l, 0, &head, &tail);
    __atomic_store_n(head, *head + (UINT64_C(1) << 40), __ATOMIC_RELEASE);
    CHECK(raw_wait_closed(&c, 5000));
    wait_log("the peer corrupted the request ring's index");
    hw_shm_free(l);
    raw_close(&c);
    printf("corrupted request index: the worker ended the session: ok\n");

    /* 4. The reply ring's tail moved backwards, then a request. */
    CHECK(raw_connect(&c) == 0 && raw_hello(&c) == 0);
    CHECK(go_shm(&c, &l) == 0);
    CHECK(shm_ping(&c, l) == 0);
    hw_shm_test_indices(l, 1, &head, &tail);
    __atomic_store_n(tail, *tail - (UINT64_C(1) << 30), __ATOMIC_RELEASE);
    CHECK(shm_ping(&c, l) < 0);
    CHECK(raw_wait_closed(&c, 5000));
    wait_log("the peer corrupted the reply ring's index");
    hw_shm_free(l);
    raw_close(&c);
    printf("corrupted reply index: the worker ended the session: ok\n");

    /* 5. Nobody died; new sessions work. */
    CHECK(!log_has("died from signal"));
    CHECK(raw_connect(&c) == 0 && raw_hello(&c) == 0);
    CHECK(op_ping(&c, &async) == 0);
    raw_close(&c);
    printf("hostile shm: ok\n");
    return 0;
}
