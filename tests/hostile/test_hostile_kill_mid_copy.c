/*
 * test_hostile_kill_mid_copy - a client SIGKILLed halfway through a 256 MiB
 * host-to-device copy.
 *
 * A child process opens a session, allocates 256 MiB of device memory and
 * streams the copy (in 64 MiB HIPR chunks, the per-message cap) slowly,
 * reporting progress over a pipe; the parent kills it at the halfway mark.
 * Meanwhile a second session in the parent keeps doing verified round trips.
 * The killed session must end, free all 256 MiB (WORKER_STATUS and the
 * worker log say so) within a few seconds, and the other must not notice.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hostile_ops.h"
#include "hw_status.h"

#define COPY_SIZE (UINT64_C(256) << 20)
#define PIECE     (UINT64_C(2) << 20)

struct progress {
    uint64_t session_id;
    uint64_t bytes_sent;
};

static void report(int fd, const struct progress *p)
{
    if (write(fd, p, sizeof *p) != (ssize_t)sizeof *p)
        _exit(3);
}

/* The child: never returns; the parent kills it. */
static void slow_copier(int progress_fd)
{
    struct raw_conn c;
    struct progress p = { 0, 0 };
    uint64_t dst = 0;
    uint8_t fixed[HIPR_memcpy_h2d_SIZE];
    int err;

    uint8_t *host = malloc(COPY_SIZE);
    if (!host || raw_connect(&c) < 0 || raw_hello(&c) < 0 || raw_malloc(&c, COPY_SIZE, &dst) != 0)
        _exit(2);
    memset(host, 0xC5, COPY_SIZE);
    p.session_id = c.session_id;
    report(progress_fd, &p);
    for (uint64_t off = 0; off < COPY_SIZE; off += HIPR_CAP_COPY_CHUNK) {
        struct hipr_memcpy_h2d m = { .dst = dst + off, .stream = DEFAULT_STREAM };
        hipr_memcpy_h2d_encode(fixed, &m);
        raw_send_header(&c, HIPR_OP_MEMCPY_H2D, HIPR_FLAG_NO_REPLY,
                        sizeof fixed + HIPR_CAP_COPY_CHUNK, &err);
        if (err < 0 || raw_send_bytes(&c, fixed, sizeof fixed) < 0)
            _exit(2);
        for (uint64_t k = 0; k < HIPR_CAP_COPY_CHUNK; k += PIECE) {
            if (raw_send_bytes(&c, host + off + k, PIECE) < 0)
                _exit(2);
            p.bytes_sent += PIECE;
            report(progress_fd, &p);
            raw_sleep_ms(10);
        }
    }
    /* Reaching the end means the parent never killed us. */
    _exit(4);
}

static int read_progress(int fd, struct progress *p)
{
    return read(fd, p, sizeof *p) == (ssize_t)sizeof *p ? 0 : -1;
}

/* One verified round trip on the bystander session. */
static void bystander_round_trip(struct raw_conn *c, uint64_t dst, uint8_t seed)
{
    uint8_t data[8192], got[8192];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(seed + i);
    EXPECT(op_h2d(c, dst, DEFAULT_STREAM, data, sizeof data) == HW_OK, "bystander H2D");
    EXPECT(op_d2h(c, dst, sizeof got, DEFAULT_STREAM, got, sizeof got) == HW_OK, "bystander D2H");
    EXPECT(memcmp(data, got, sizeof data) == 0, "bystander data corrupted");
}

int main(void)
{
    struct raw_conn by;
    struct raw_worker_status st;
    struct progress p = { 0, 0 };
    uint64_t by_buf = 0;
    int pipefd[2];
    uint8_t seed = 0;

    signal(SIGPIPE, SIG_IGN);
    raw_begin("setup: a bystander session and a slow 256 MiB copier");
    EXPECT(raw_connect(&by) == 0 && raw_hello(&by) == 0, "bystander HELLO");
    EXPECT(raw_malloc(&by, 8192, &by_buf) == 0, "bystander MALLOC");
    EXPECT(pipe(pipefd) == 0, "pipe");
    fflush(stdout);
    pid_t child = fork();
    EXPECT(child >= 0, "fork");
    if (child == 0) {
        close(pipefd[0]);
        close(by.fd); /* the bystander's socket is the parent's alone */
        slow_copier(pipefd[1]);
    }
    close(pipefd[1]);
    EXPECT(read_progress(pipefd[0], &p) == 0, "the copier failed to open its session");
    uint64_t victim = p.session_id;
    raw_pass();

    raw_begin("the bystander keeps working while the copy streams in");
    while (p.bytes_sent < COPY_SIZE / 2) {
        EXPECT(read_progress(pipefd[0], &p) == 0, "the copier died before halfway (%llu bytes)",
               (unsigned long long)p.bytes_sent);
        if ((p.bytes_sent / PIECE) % 8 == 0)
            bystander_round_trip(&by, by_buf, seed++);
    }
    EXPECT(raw_worker_status(&st) == 0 && st.sessions == 2,
           "expected 2 sessions mid-copy, worker reports %u", st.sessions);
    EXPECT(st.bytes_in_use >= COPY_SIZE, "mid-copy bytes_in_use %llu",
           (unsigned long long)st.bytes_in_use);
    raw_pass();

    raw_begin("SIGKILL halfway: the session ends and frees all 256 MiB within 5 s");
    kill(child, SIGKILL);
    int wst = 0;
    EXPECT(waitpid(child, &wst, 0) == child && WIFSIGNALED(wst) && WTERMSIG(wst) == SIGKILL,
           "the copier was not killed by SIGKILL (status 0x%x)", wst);
    close(pipefd[0]);
    EXPECT(raw_wait_worker_idle(1, 8192, 5000, &st) == 0,
           "5 s after the kill: %u sessions, %llu bytes in use", st.sessions,
           (unsigned long long)st.bytes_in_use);
    for (uint32_t i = 0; i < st.entries; i++)
        EXPECT(st.entry[i].session_id != victim, "the killed session is still listed");
    char id[32];
    snprintf(id, sizeof id, "session %016llx", (unsigned long long)victim);
    EXPECT(raw_log_has(id, "freed 268435456 bytes"),
           "worker log has no '%s: freed 268435456 bytes' line", id);
    raw_pass();

    raw_begin("the bystander session was unaffected");
    for (int i = 0; i < 4; i++)
        bystander_round_trip(&by, by_buf, seed++);
    EXPECT(op_free(&by, by_buf) == HW_OK, "bystander FREE");
    EXPECT(raw_status(&by, HIPR_OP_GOODBYE, NULL, 0, NULL, 0) == HW_OK, "bystander GOODBYE");
    raw_close(&by);
    EXPECT(raw_wait_worker_idle(0, 0, 5000, &st) == 0, "at the end: %u sessions, %llu bytes",
           st.sessions, (unsigned long long)st.bytes_in_use);
    raw_pass();
    printf("kill mid-copy checks passed\n");
    return 0;
}
