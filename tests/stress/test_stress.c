/*
 * test_stress - 64 clients against one worker (CPU device) at once.
 *
 *   test_stress STRESS_CLIENT MAX_WORKER_MIB
 *
 * 61 clients do mixed work (stress_client normal), one floods
 * fire-and-forget launches (flood), one asks for more than --mem-limit
 * (quota), and one, a raw HIPR connection from this program, opens a
 * session and then sends garbage. All 64 connect at the same moment; once
 * every session is open the worker's memory is measured (a benchmark
 * line), then the work starts and the memory is sampled until the end.
 *
 * Passes when every HIP client exits 0 (its results bit-exact), the
 * garbage session is closed by the worker and logged, the quota refusal is
 * logged once, the worker's total memory (the supervisor and every session
 * process, PSS from /proc) never exceeds MAX_WORKER_MIB, and at the end
 * the worker reports 0 sessions and 0 bytes with no session process left.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "raw_client.h"

enum { CLIENTS = 64, GARBAGE_INDEX = 63 };

struct mem {
    long pss_kib, rss_kib;
    int procs;
};

static long field_kib(const char *path, const char *name)
{
    char line[256];
    long v = -1;
    size_t len = strlen(name);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, name, len) && line[len] == ':') {
            v = strtol(line + len + 1, NULL, 10);
            break;
        }
    fclose(f);
    return v;
}

static int parent_of(int pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')'); /* the name may hold spaces */
    int ppid = -1;
    if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
        return -1;
    return ppid;
}

/* PSS and RSS of the supervisor and every process it forked. */
static struct mem worker_memory(int supervisor)
{
    struct mem m = { 0, 0, 0 };
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        int pid = atoi(e->d_name);
        if (pid <= 0 || (pid != supervisor && parent_of(pid) != supervisor))
            continue;
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/smaps_rollup", pid);
        long pss = field_kib(path, "Pss");
        snprintf(path, sizeof path, "/proc/%d/status", pid);
        long rss = field_kib(path, "VmRSS");
        if (pss < 0 || rss < 0)
            continue; /* exited meanwhile */
        m.pss_kib += pss;
        m.rss_kib += rss;
        m.procs++;
    }
    if (d)
        closedir(d);
    return m;
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int log_lines(const char *needle1, const char *needle2)
{
    const char *path = getenv("HIPWIRE_WORKER_LOG");
    char line[2048];
    int n = 0;
    FILE *f = path ? fopen(path, "r") : NULL;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        n += strstr(line, needle1) && (!needle2 || strstr(line, needle2));
    fclose(f);
    return n;
}

/* The 64th client: a session, then 64 KiB of noise; the worker must close it. */
static int garbage_client(int go1, int ready, int go2)
{
    struct raw_conn c;
    char ch;
    while (read(go1, &ch, 1) > 0)
        ;
    if (raw_connect(&c) < 0 || raw_hello(&c) < 0)
        return 2;
    if (write(ready, "r", 1) != 1)
        return 3;
    while (read(go2, &ch, 1) > 0)
        ;
    uint8_t noise[64 * 1024];
    uint64_t seed = 0xbadc0ffee0ddf00dull;
    for (size_t i = 0; i < sizeof noise; i += 8) {
        uint64_t r = raw_rand(&seed);
        memcpy(noise + i, &r, 8);
    }
    raw_send_bytes(&c, noise, sizeof noise); /* may fail half way: the worker hung up */
    int closed = raw_wait_closed(&c, 10000);
    printf("garbage client: session %016llx %s\n", (unsigned long long)c.session_id,
           closed ? "closed by the worker" : "STILL OPEN");
    fflush(stdout);
    raw_close(&c);
    return closed ? 0 : 4;
}

int main(int argc, char **argv)
{
    raw_begin("64 clients at once: mixed work, a flood, a quota, garbage");
    EXPECT(argc == 3, "usage: test_stress STRESS_CLIENT MAX_WORKER_MIB");
    const char *client = argv[1];
    long max_kib = atol(argv[2]) * 1024;
    const char *wpid = getenv("HIPWIRE_WORKER_PID");
    EXPECT(wpid != NULL, "run under with_worker");
    int supervisor = atoi(wpid);

    int go1[2], ready[2], go2[2];
    EXPECT(pipe(go1) == 0 && pipe(ready) == 0 && pipe(go2) == 0, "pipes");
    pid_t pids[CLIENTS];
    const char *roles[CLIENTS];
    for (int i = 0; i < CLIENTS; i++) {
        roles[i] = i == GARBAGE_INDEX ? "garbage" : i == 0 ? "flood" : i == 1 ? "quota" : "normal";
        pids[i] = fork();
        EXPECT(pids[i] >= 0, "fork");
        if (pids[i] == 0) {
            close(go1[1]);
            close(go2[1]);
            close(ready[0]);
            if (i == GARBAGE_INDEX)
                _exit(garbage_client(go1[0], ready[1], go2[0]));
            char idx[16], g1[16], r[16], g2[16];
            snprintf(idx, sizeof idx, "%d", i);
            snprintf(g1, sizeof g1, "%d", go1[0]);
            snprintf(r, sizeof r, "%d", ready[1]);
            snprintf(g2, sizeof g2, "%d", go2[0]);
            execl(client, client, roles[i], idx, g1, r, g2, (char *)NULL);
            perror("exec stress_client");
            _exit(127);
        }
    }
    close(go1[0]);
    close(go2[0]);
    close(ready[1]);

    long long t0 = now_ms();
    close(go1[1]); /* everyone connects now */
    int n_ready = 0;
    while (n_ready < CLIENTS) {
        struct pollfd pf = { .fd = ready[0], .events = POLLIN };
        EXPECT(poll(&pf, 1, 30000) == 1, "only %d of %d sessions opened in 30 s", n_ready, CLIENTS);
        char buf[CLIENTS];
        ssize_t r = read(ready[0], buf, sizeof buf);
        EXPECT(r > 0, "a client died before its session opened (%d ready)", n_ready);
        n_ready += (int)r;
    }
    long long t_open = now_ms() - t0;
    struct raw_worker_status st;
    EXPECT(raw_worker_status(&st) == 0 && st.sessions == CLIENTS, "64 sessions open: %u",
           st.sessions);
    /* The connection that asked for the status has its own process for a
     * moment: wait for it to go. */
    struct mem idle = worker_memory(supervisor);
    for (int t = 0; t < 100 && idle.procs != CLIENTS + 1; t++) {
        raw_sleep_ms(20);
        idle = worker_memory(supervisor);
    }
    EXPECT(idle.procs == CLIENTS + 1, "supervisor + 64 session processes: %d", idle.procs);
    printf("bench: worker memory with 64 idle sessions: %.1f MiB PSS (%.0f KiB per session), "
           "%.1f MiB RSS summed over %d processes; 64 sessions opened in %lld ms\n",
           idle.pss_kib / 1024.0, (double)idle.pss_kib / CLIENTS, idle.rss_kib / 1024.0, idle.procs,
           t_open);
    fflush(stdout);

    close(go2[1]); /* the work starts */
    struct mem peak = idle;
    int left = CLIENTS, failed = 0;
    while (left > 0) {
        struct mem m = worker_memory(supervisor);
        if (m.pss_kib > peak.pss_kib)
            peak = m;
        int status;
        pid_t p;
        while ((p = waitpid(-1, &status, WNOHANG)) > 0) {
            left--;
            for (int i = 0; i < CLIENTS; i++)
                if (pids[i] == p && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
                    fprintf(stderr, "client %d (%s) failed: status 0x%x\n", i, roles[i], status);
                    failed++;
                }
        }
        EXPECT(now_ms() - t0 < 100000, "clients still running after 100 s (%d left)", left);
        raw_sleep_ms(50);
    }
    long long t_done = now_ms() - t0;
    printf("bench: worker memory peak under load: %.1f MiB PSS over %d processes; all 64 "
           "clients done in %lld ms\n",
           peak.pss_kib / 1024.0, peak.procs, t_done);
    EXPECT(failed == 0, "%d client(s) failed", failed);
    EXPECT(peak.pss_kib <= max_kib, "worker PSS %ld KiB over the bound %ld KiB", peak.pss_kib,
           max_kib);

    EXPECT(raw_wait_worker_idle(0, 0, 20000, &st) == 0,
           "every session freed: %u sessions, %llu bytes", st.sessions,
           (unsigned long long)st.bytes_in_use);
    struct mem after;
    for (int t = 0; t < 200; t++) {
        after = worker_memory(supervisor);
        if (after.procs == 1)
            break;
        raw_sleep_ms(50);
    }
    EXPECT(after.procs == 1, "session processes left behind: %d", after.procs - 1);
    EXPECT(log_lines("refused hipMalloc", "--mem-limit") == 1, "one quota line, for one client");
    EXPECT(log_lines(": ending: bad magic", NULL) == 1,
           "the garbage session's end is logged, and only that one");
    EXPECT(log_lines("freed", "allocations") >= CLIENTS, "every session logged what it freed");
    printf("worker memory after: %.1f MiB PSS (supervisor alone)\n", after.pss_kib / 1024.0);
    raw_pass();
    return 0;
}
