/*
 * One session must not exhaust the worker's tasks with streams (each costs
 * a thread on the cpu backend). Against a real worker started with
 *   --max-streams=8 --max-streams-total=12
 * a session's streams stop at its limit, all sessions' streams together at
 * the worker's budget, each refusal is hipErrorOutOfMemory with one log
 * line naming the option, and a session asking for 5,000 streams leaves the
 * worker serving new clients with its thread count bounded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostile_ops.h"
#include <unistd.h>

#define ENOMEM_STATUS 2 /* hipErrorOutOfMemory */

static long threads_of(uint32_t pid)
{
    char path[64], line[256];
    long n = -1;
    snprintf(path, sizeof path, "/proc/%u/status", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Threads: %ld", &n) == 1)
            break;
    fclose(f);
    return n;
}

static void hello(struct raw_conn *c)
{
    EXPECT(raw_connect(c) == 0 && raw_hello(c) == 0, "no session");
}

int main(void)
{
    struct raw_conn a, b, c, d;
    char id[64];

    raw_begin("--max-streams: a session's streams stop at its limit");
    hello(&a);
    for (uint64_t i = 0; i < 8; i++)
        EXPECT(op_stream_create(&a, HIPR_FIRST_STREAM_ID + i, 0) == 0, "stream %llu",
               (unsigned long long)i);
    int rc = op_stream_create(&a, HIPR_FIRST_STREAM_ID + 8, 0);
    EXPECT(rc == ENOMEM_STATUS, "ninth stream: %d", rc);
    snprintf(id, sizeof id, "session %016llx", (unsigned long long)a.session_id);
    EXPECT(raw_log_count(id, "--max-streams ") == 1 || raw_log_count(id, "--max-streams (") == 1,
           "no single log line naming --max-streams");
    raw_pass();

    raw_begin("--max-streams-total: all sessions' streams stop at the worker's budget");
    hello(&b);
    for (uint64_t i = 0; i < 4; i++)
        EXPECT(op_stream_create(&b, HIPR_FIRST_STREAM_ID + i, 0) == 0, "B's stream %llu",
               (unsigned long long)i);
    rc = op_stream_create(&b, HIPR_FIRST_STREAM_ID + 4, 0);
    EXPECT(rc == ENOMEM_STATUS, "B's fifth stream (13th in the worker): %d", rc);
    snprintf(id, sizeof id, "session %016llx", (unsigned long long)b.session_id);
    EXPECT(raw_log_count(id, "--max-streams-total") == 1, "no log line naming --max-streams-total");
    for (uint64_t i = 0; i < 3; i++)
        EXPECT(op_handle(&a, HIPR_OP_STREAM_DESTROY, HIPR_FIRST_STREAM_ID + i) == 0,
               "A destroys a stream");
    for (uint64_t i = 4; i < 7; i++)
        EXPECT(op_stream_create(&b, HIPR_FIRST_STREAM_ID + i, 0) == 0,
               "B gets the room A gave back");
    EXPECT(op_stream_create(&b, HIPR_FIRST_STREAM_ID + 7, 0) == ENOMEM_STATUS,
           "the budget is full again");
    raw_pass();

    raw_begin("a session that leaves frees its share of the budget");
    EXPECT(raw_status(&a, HIPR_OP_GOODBYE, NULL, 0, NULL, 0) == 0, "A says GOODBYE");
    raw_close(&a);
    int got = 0;
    for (int tries = 0; tries < 100 && !got; tries++) {
        got = op_stream_create(&b, HIPR_FIRST_STREAM_ID + 7, 0) == 0;
        if (!got)
            usleep(50 * 1000);
    }
    EXPECT(got, "A's streams still count after it left");
    raw_pass();

    raw_begin("5,000 streams asked for: refused past the limit, the worker serves new clients");
    EXPECT(raw_status(&b, HIPR_OP_GOODBYE, NULL, 0, NULL, 0) == 0, "B says GOODBYE");
    raw_close(&b);
    hello(&c);
    long before = threads_of(c.session_pid);
    int made = 0, refused = 0;
    for (uint64_t i = 0; i < 5000; i++) {
        rc = op_stream_create(&c, HIPR_FIRST_STREAM_ID + i, 0);
        made += rc == 0;
        refused += rc == ENOMEM_STATUS;
    }
    EXPECT(made == 8 && refused == 4992, "%d made, %d refused of 5000", made, refused);
    long after = threads_of(c.session_pid);
    EXPECT(before > 0 && after > 0 && after - before <= 8,
           "the session went from %ld to %ld threads", before, after);
    hello(&d);
    EXPECT(op_ping(&d, NULL) == 0, "a new client is not served");
    EXPECT(op_ping(&c, NULL) == 0, "the session itself goes on");
    raw_close(&d);
    raw_close(&c);
    raw_pass();
    return 0;
}
