/*
 * Per-session limits against a real worker started with
 *   --mem-limit=1M --max-handles=4 --max-module-size=1M --max-inflight=1M
 * Each limit refuses with hipErrorOutOfMemory for the session over it only,
 * the worker logs one line per session and limit however often it refuses,
 * the session goes on working, and a client flooding fire-and-forget
 * launches at a slow device is held back by TCP while the session process's
 * memory stays put.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "hostile_ops.h"

#define ENOMEM_STATUS 2 /* hipErrorOutOfMemory */

static long rss_kib(uint32_t pid)
{
    char path[64], line[256];
    long kib = -1;
    snprintf(path, sizeof path, "/proc/%u/status", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
            break;
    fclose(f);
    return kib;
}

static void hello(struct raw_conn *c)
{
    EXPECT(raw_connect(c) == 0 && raw_hello(c) == 0, "no session");
}

static const char *sid(const struct raw_conn *c, char *buf)
{
    sprintf(buf, "session %016llx", (unsigned long long)c->session_id);
    return buf;
}

static void check_memory(void)
{
    struct raw_conn a, b;
    uint64_t pa, pb, pa2;
    char ida[64], idb[64];
    raw_begin("--mem-limit refuses the session over it, only that one, one log line each");
    hello(&a);
    hello(&b);
    EXPECT(raw_malloc(&a, 768 << 10, &pa) == 0, "768 KiB of 1 MiB");
    int rc = raw_malloc(&a, 512 << 10, &pa2);
    EXPECT(rc == ENOMEM_STATUS, "over the limit: %d", rc);
    EXPECT(raw_malloc(&b, 768 << 10, &pb) == 0, "the other session has its own 1 MiB");
    for (int i = 0; i < 5; i++)
        EXPECT(raw_malloc(&a, 512 << 10, &pa2) == ENOMEM_STATUS, "refused again");
    EXPECT(raw_malloc(&b, 2 << 20, &pb) == ENOMEM_STATUS, "b over its own limit");
    EXPECT(raw_log_count(sid(&a, ida), "refused hipMalloc of 524288 bytes") == 1,
           "one line for a's six refusals");
    EXPECT(raw_log_count(ida, "--mem-limit") == 1, "the line names the option");
    EXPECT(raw_log_count(sid(&b, idb), "--mem-limit") == 1, "b's own line");
    EXPECT(op_free(&a, pa) == 0, "free");
    EXPECT(raw_malloc(&a, 512 << 10, &pa2) == 0, "fits once freed");
    raw_close(&a);
    raw_close(&b);
    raw_pass();
}

static void check_handles(const void *image, size_t image_len)
{
    struct raw_conn c;
    char id[64];
    raw_begin("--max-handles: streams, events, modules, functions each");
    hello(&c);
    for (uint64_t i = 0; i < 4; i++)
        EXPECT(op_stream_create(&c, HIPR_FIRST_STREAM_ID + i, 0) == 0, "stream %llu",
               (unsigned long long)i);
    int rc = op_stream_create(&c, HIPR_FIRST_STREAM_ID + 4, 0);
    EXPECT(rc == ENOMEM_STATUS, "fifth stream: %d", rc);
    EXPECT(op_handle(&c, HIPR_OP_STREAM_DESTROY, HIPR_FIRST_STREAM_ID) == 0, "destroy one");
    EXPECT(op_stream_create(&c, HIPR_FIRST_STREAM_ID + 4, 0) == 0, "room again");

    for (uint64_t i = 1; i <= 4; i++)
        EXPECT(op_event_create(&c, i, 0) == 0, "event %llu", (unsigned long long)i);
    EXPECT(op_event_create(&c, 5, 0) == ENOMEM_STATUS, "fifth event");

    uint64_t mod[5];
    for (int i = 0; i < 4; i++)
        EXPECT(op_module_load(&c, image, image_len, &mod[i]) == 0, "module %d", i);
    EXPECT(op_module_load(&c, image, image_len, &mod[4]) == ENOMEM_STATUS, "fifth module");

    /* The same name again is the same handle and costs nothing. */
    uint64_t f0 = 0, f;
    uint32_t args;
    EXPECT(op_get_function(&c, mod[0], "vadd", &f0, &args) == 0, "vadd");
    for (int i = 0; i < 10; i++) {
        EXPECT(op_get_function(&c, mod[0], "vadd", &f, &args) == 0, "vadd again");
        EXPECT(f == f0, "the same handle: %llu vs %llu", (unsigned long long)f,
               (unsigned long long)f0);
    }
    EXPECT(op_get_function(&c, mod[1], "vadd", &f, &args) == 0 && f != f0,
           "another module's vadd is another function");
    EXPECT(op_get_function(&c, mod[0], "block_sum", &f, &args) == 0, "third");
    EXPECT(op_get_function(&c, mod[0], "empty", &f, &args) == 0, "fourth");
    EXPECT(op_get_function(&c, mod[0], "mixed", &f, &args) == ENOMEM_STATUS, "fifth function");
    EXPECT(op_handle(&c, HIPR_OP_MODULE_UNLOAD, mod[1]) == 0, "unload");
    EXPECT(op_get_function(&c, mod[0], "mixed", &f, &args) == 0, "room after unload");

    EXPECT(raw_log_count(sid(&c, id), "--max-handles") == 1, "one line for four kinds of refusal");
    EXPECT(op_ping(&c, NULL) == 0, "the session goes on");
    raw_close(&c);
    raw_pass();
}

static void check_module_size(const void *image, size_t image_len)
{
    struct raw_conn c;
    char id[64];
    uint64_t m;
    raw_begin("--max-module-size refuses a larger image, the session goes on");
    hello(&c);
    size_t big = (1 << 20) + 1;
    uint8_t *junk = calloc(1, big);
    EXPECT(junk != NULL, "memory");
    int rc = op_module_load(&c, junk, big, &m);
    EXPECT(rc == ENOMEM_STATUS, "1 MiB + 1: %d", rc);
    free(junk);
    EXPECT(raw_log_count(sid(&c, id), "a module image of 1048577 bytes (limit 1048576)") == 1,
           "the log line says why");
    EXPECT(op_module_load(&c, image, image_len, &m) == 0, "a small one still loads");
    raw_close(&c);
    raw_pass();
}

struct flood {
    struct raw_conn *c;
    uint64_t function;
    long sent;
    int target;
};

static void *flood_main(void *arg)
{
    struct flood *fl = arg;
    struct hipr_launch m = { .function = fl->function,
                             .stream = DEFAULT_STREAM,
                             .grid_x = 1,
                             .grid_y = 1,
                             .grid_z = 1,
                             .block_x = 1,
                             .block_y = 1,
                             .block_z = 1 };
    uint8_t fixed[HIPR_launch_SIZE];
    uint32_t us = 200;
    uint8_t args[4];
    hipr_put_u32(args, us);
    hipr_launch_encode(fixed, &m);
    for (int i = 0; i < fl->target; i++) {
        int err;
        raw_send(fl->c, HIPR_OP_LAUNCH, HIPR_FLAG_NO_REPLY, fixed, sizeof fixed, args, sizeof args,
                 &err);
        if (err < 0)
            break;
        __atomic_store_n(&fl->sent, i + 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

static void check_backpressure(const void *image, size_t image_len)
{
    struct raw_conn c;
    uint64_t mod, fn;
    uint32_t args;
    raw_begin("--max-inflight: a flood of launches is held back, the worker's memory stays put");
    hello(&c);
    EXPECT(op_module_load(&c, image, image_len, &mod) == 0, "module");
    EXPECT(op_get_function(&c, mod, "spin", &fn, &args) == 0 && args == 4, "spin");
    long before = rss_kib(c.session_pid);
    EXPECT(before > 0, "session RSS");
    /* 300000 launches of 200 us: a minute of device time. Unbounded, the
     * worker would read them all in well under a second and queue them. */
    struct flood fl = { .c = &c, .function = fn, .target = 300000 };
    pthread_t t;
    EXPECT(pthread_create(&t, NULL, flood_main, &fl) == 0, "thread");
    raw_sleep_ms(2000);
    long sent = __atomic_load_n(&fl.sent, __ATOMIC_ACQUIRE);
    long after = rss_kib(c.session_pid);
    printf("flood: %ld of %d launches accepted in 2 s; session RSS %ld -> %ld KiB\n", sent,
           fl.target, before, after);
    EXPECT(sent < fl.target, "the sender was never held back");
    EXPECT(after - before < 16 * 1024, "the session grew by %ld KiB", after - before);
    /* The client goes away with a reset: the worker drops what it has not
     * read yet instead of running it (shutdown wakes the blocked sender;
     * close with a zero linger sends the reset). */
    struct linger lg = { 1, 0 };
    setsockopt(c.fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    shutdown(c.fd, SHUT_WR);
    pthread_join(t, NULL);
    raw_close(&c);
    struct raw_worker_status st;
    EXPECT(raw_wait_worker_idle(0, 0, 20000, &st) == 0, "the session ended and freed all: %u",
           st.sessions);
    raw_pass();
}

int main(void)
{
    const char *kernels = getenv("HIPWIRE_KERNELS");
    size_t image_len = 0;
    void *image = kernels ? read_file(kernels, &image_len) : NULL;
    EXPECT(image != NULL, "HIPWIRE_KERNELS must name the CPU test kernels");
    EXPECT(image_len < (1 << 20), "the kernels fit under --max-module-size");
    check_memory();
    check_handles(image, image_len);
    check_module_size(image, image_len);
    check_backpressure(image, image_len);
    free(image);
    printf("limits: ok\n");
    return 0;
}
