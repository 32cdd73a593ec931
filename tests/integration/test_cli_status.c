/*
 * `hipwire status` against real workers: B (with_worker, 2 CPU devices,
 * --mem-limit=512M) holding two sessions with memory, and a worker started
 * here and killed (its port dead). Checks the text and --json output
 * against what the sessions hold, the exit status (1 while a worker is
 * unreachable, 0 when all answer), and that asking opens no session.
 *
 *   test_cli_status PATH_TO_hipwire PATH_TO_hip-worker
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "raw_client.h"

static int run(const char *cmd, char *out, size_t cap)
{
    FILE *p = popen(cmd, "r");
    EXPECT(p != NULL, "popen %s", cmd);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    EXPECT(WIFEXITED(st), "%s died", cmd);
    return WEXITSTATUS(st);
}

static int dead_port(const char *worker)
{
    char pf[] = "/tmp/hipwire-status-XXXXXX";
    int fd = mkstemp(pf);
    EXPECT(fd >= 0, "mkstemp");
    close(fd);
    unlink(pf);
    pid_t pid = fork();
    if (pid == 0) {
        char arg[64];
        snprintf(arg, sizeof arg, "--port-file=%s", pf);
        if (!freopen("/dev/null", "w", stderr))
            _exit(127);
        execl(worker, worker, "--backend=cpu", "--port=0", arg, (char *)NULL);
        _exit(127);
    }
    int port = 0;
    for (int t = 0; t < 400 && !port; t++) {
        FILE *f = fopen(pf, "r");
        if (f) {
            if (fscanf(f, "%d", &port) != 1)
                port = 0;
            fclose(f);
        }
        if (!port)
            raw_sleep_ms(10);
    }
    unlink(pf);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    EXPECT(port > 0, "the second worker started");
    return port;
}

int main(int argc, char **argv)
{
    raw_begin("hipwire status: one worker with sessions, one dead");
    EXPECT(argc == 3 || argc == 4, "usage");
    const char *cli = argv[1];
    /* the worker's --isolation (a third argument says which) */
    const char *mode = argc == 4 ? argv[3] : "process";
    const char *port = getenv("TF_WORKER_PORT");
    EXPECT(port != NULL, "run under with_worker");
    int dead = dead_port(argv[2]);

    struct raw_conn a, b;
    uint64_t p;
    EXPECT(raw_connect(&a) == 0 && raw_hello(&a) == 0, "session a");
    EXPECT(raw_connect(&b) == 0 && raw_hello(&b) == 0, "session b");
    EXPECT(raw_malloc(&a, 3 << 20, &p) == 0 && raw_malloc(&b, 1 << 20, &p) == 0, "memory");

    static char out[65536];
    char cmd[512], want[128];
    snprintf(cmd, sizeof cmd, "%s status --worker 127.0.0.1:%s --worker 127.0.0.1:%d", cli, port,
             dead);
    int rc = run(cmd, out, sizeof out);
    printf("%s", out);
    EXPECT(rc == 1, "exit status %d with a worker down", rc);
    snprintf(want, sizeof want, "127.0.0.1:%s  up ", port);
    EXPECT(strstr(out, want) && strstr(out, "protocol 1, backend cpu"), "health line");
    snprintf(want, sizeof want, "backend cpu, isolation %s\n", mode);
    EXPECT(strstr(out, want), "isolation: %s", want);
    EXPECT(strstr(out, "devices: 2") && strstr(out, "0  hipwire CPU device"), "devices");
    EXPECT(strstr(out, "sessions: 2 of 64") && strstr(out, "device memory in use: 0.004 GiB") &&
               strstr(out, "per-session limit: 0.500 GiB"),
           "sessions and memory, in GiB");
    snprintf(want, sizeof want,
             "session %016llx  client 127.0.0.1:", (unsigned long long)a.session_id);
    EXPECT(strstr(out, want), "session a listed with its client's address: %s", want);
    snprintf(want, sizeof want, "  attached  pid %u  0.003 GiB", a.session_pid);
    EXPECT(strstr(out, want), "session a attached: %s", want);
    snprintf(want, sizeof want, "127.0.0.1:%d  unreachable: Connection refused", dead);
    EXPECT(strstr(out, want), "dead worker: %s", want);

    /* The same through TF_WORKER_HOST, as JSON. */
    snprintf(cmd, sizeof cmd, "TF_WORKER_HOST=127.0.0.1:%s,127.0.0.1:%d %s status --json", port,
             dead, cli);
    rc = run(cmd, out, sizeof out);
    EXPECT(rc == 1, "json: exit status %d", rc);
    EXPECT(strstr(out, "\"all_reachable\": false"), "all_reachable");
    EXPECT(strstr(out, "\"reachable\": true") && strstr(out, "\"reachable\": false"), "both");
    EXPECT(strstr(out, "\"sessions\": 2,") && strstr(out, "\"memory_in_use_bytes\": 4194304,"),
           "json sessions and bytes");
    snprintf(want, sizeof want, "\"id\": \"%016llx\"", (unsigned long long)b.session_id);
    EXPECT(strstr(out, want), "json session id");
    EXPECT(strstr(out, "\"error\": \"Connection refused\""), "json error");
    snprintf(want, sizeof want, "\"isolation\": \"%s\"", mode);
    EXPECT(strstr(out, want), "json isolation: %s", want);
    EXPECT(strstr(out, "\"client\": \"127.0.0.1:") && strstr(out, "\"state\": \"attached\""),
           "json client and state");

    /* A resumable session whose connection broke is listed as detached. */
    struct raw_conn d;
    struct raw_reply rr;
    struct hipr_hello_req hreq = { .proto_min = HIPR_VERSION,
                                   .proto_max = HIPR_VERSION,
                                   .client_pid = (uint32_t)getpid(),
                                   .resume_token = 0x5eed5eed5eed5eedull };
    struct hipr_hello_rep hrep;
    uint8_t hfixed[HIPR_hello_req_SIZE];
    hipr_hello_req_encode(hfixed, &hreq);
    EXPECT(raw_connect(&d) == 0 &&
               raw_call(&d, HIPR_OP_HELLO, hfixed, sizeof hfixed, NULL, 0, &rr) == 0 &&
               rr.rh.status == 0 && hipr_hello_rep_decode(rr.body, rr.body_len, &hrep) == 0,
           "session d, with a resume token");
    raw_reply_free(&rr);
    EXPECT(raw_call(&d, HIPR_OP_RESUME_ENABLE, NULL, 0, NULL, 0, &rr) == 0 && rr.rh.status == 0,
           "resume enabled");
    raw_reply_free(&rr);
    uint64_t d_id = hrep.session_id;
    raw_close(&d);
    snprintf(want, sizeof want, "session %016llx  client 127.0.0.1:", (unsigned long long)d_id);
    int seen = 0;
    for (int i = 0; i < 50 && !seen; i++) {
        raw_sleep_ms(100);
        snprintf(cmd, sizeof cmd, "%s status --worker 127.0.0.1:%s", cli, port);
        run(cmd, out, sizeof out);
        char *line = strstr(out, want);
        seen = line && strstr(line, "detached, awaiting resume") &&
               strstr(line, "detached") < strchr(line, '\n');
    }
    EXPECT(seen, "session d detached:\n%s", out);

    /* Sessions gone: 0 sessions, 0 bytes, exit 0; asking opened none. */
    raw_close(&a);
    raw_close(&b);
    struct raw_worker_status st;
    EXPECT(raw_wait_worker_idle(0, 0, 10000, &st) == 0, "sessions ended");
    snprintf(cmd, sizeof cmd, "%s status --worker 127.0.0.1:%s", cli, port);
    rc = run(cmd, out, sizeof out);
    EXPECT(rc == 0, "all up: exit status %d", rc);
    EXPECT(strstr(out, "sessions: 0 of 64 (3 served), device memory in use: 0.000 GiB"),
           "nothing held, and status calls are not sessions:\n%s", out);

    snprintf(cmd, sizeof cmd, "%s status --worker 127.0.0.1:,x 2>&1", cli);
    rc = run(cmd, out, sizeof out);
    EXPECT(rc == 2 && strstr(out, "bad port"), "a bad --worker is a usage error: %s", out);
    raw_pass();
    return 0;
}
