/*
 * TF_WORKER_HOST with several workers, all real: B (3 CPU devices, started
 * by with_worker), C (2 devices, started here), A (started here and killed,
 * so its port is dead) and a fault relay in front of B that stalls (a
 * worker that accepts and never answers). Each case is a fresh client
 * process; the device count it sees says which worker it got.
 *
 *   test_worker_list PATH_TO_hip-worker PATH_TO_fault_relay
 */
#include <hip/hip_runtime_api.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "relay_ctl.h"
#include "testutil.h"

struct worker {
    pid_t pid;
    int port;
};

static void start_worker(const char *path, const char *devices, struct worker *w)
{
    char port_file[] = "/tmp/hipwire-wl-XXXXXX";
    int fd = mkstemp(port_file);
    CHECK(fd >= 0);
    close(fd);
    unlink(port_file);
    char pf[64], dev[32];
    snprintf(pf, sizeof pf, "--port-file=%s", port_file);
    snprintf(dev, sizeof dev, "--cpu-devices=%s", devices);
    w->pid = fork();
    CHECK(w->pid >= 0);
    if (w->pid == 0) {
        if (!freopen("/dev/null", "w", stderr))
            _exit(127);
        execl(path, path, "--backend=cpu", "--port=0", pf, dev, (char *)NULL);
        _exit(127);
    }
    w->port = 0;
    for (int t = 0; t < 400 && !w->port; t++) {
        FILE *f = fopen(port_file, "r");
        if (f) {
            if (fscanf(f, "%d", &w->port) != 1)
                w->port = 0;
            fclose(f);
        }
        if (!w->port)
            usleep(10000);
    }
    unlink(port_file);
    CHECK(w->port > 0);
}

static void stop_worker(struct worker *w, int sig)
{
    kill(w->pid, sig);
    waitpid(w->pid, NULL, 0);
}

/* Runs one client with this TF_WORKER_HOST (and TF_WORKER_PORT, if given):
 * returns the device count it saw, or -(hipError_t); its stderr goes to
 * err_out. *ms gets how long the first call took. */
static int client_sees(const char *hosts, const char *port, char *err_out, size_t cap, long *ms)
{
    int pfd[2];
    CHECK(pipe(pfd) == 0);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        dup2(pfd[1], 2);
        close(pfd[0]);
        setenv("TF_WORKER_HOST", hosts, 1);
        if (port)
            setenv("TF_WORKER_PORT", port, 1);
        else
            unsetenv("TF_WORKER_PORT");
        int n = 0;
        hipError_t e = hipGetDeviceCount(&n);
        if (e != hipSuccess)
            _exit(100 + (e == hipErrorNotInitialized ? 0 : 1));
        void *p;
        if (hipMalloc(&p, 4096) != hipSuccess || hipFree(p) != hipSuccess)
            _exit(99);
        _exit(n);
    }
    close(pfd[1]);
    size_t len = 0;
    ssize_t r;
    while (len + 1 < cap && (r = read(pfd[0], err_out + len, cap - 1 - len)) > 0)
        len += (size_t)r;
    err_out[len] = '\0';
    close(pfd[0]);
    int st;
    CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
    int code = WEXITSTATUS(st);
    return code == 100 ? -hipErrorNotInitialized : code > 99 ? -1 : code;
}

int main(int argc, char **argv)
{
    CHECK(argc == 3);
    const char *port_b = getenv("TF_WORKER_PORT");
    CHECK(port_b != NULL);
    int pb = atoi(port_b);
    struct worker a, c, a2;
    start_worker(argv[1], "1", &a);
    start_worker(argv[1], "2", &c);
    start_worker(argv[1], "1", &a2);
    stop_worker(&a, SIGKILL); /* a real worker, now dead: its port refuses */
    stop_worker(&a2, SIGKILL);
    char target[64];
    snprintf(target, sizeof target, "127.0.0.1:%d", pb);
    const char *stall[] = { "--stall-c2w", "1", NULL };
    struct relay_proc hung;
    CHECK(relay_start(argv[2], target, stall, &hung) == 0);

    char hosts[256], err[4096];
    long ms;
    /* The first one dead: the second answers. */
    snprintf(hosts, sizeof hosts, "127.0.0.1:%d,127.0.0.1:%d", a.port, pb);
    CHECK_EQ(client_sees(hosts, NULL, err, sizeof err, &ms), 3);
    CHECK(strstr(err, "hipwire:") == NULL); /* a failover is not an error */
    printf("dead first, B second: B (%ld ms): ok\n", ms);

    /* In order, every time: two live workers, the first listed wins. */
    snprintf(hosts, sizeof hosts, "127.0.0.1:%d, 127.0.0.1:%d", c.port, pb);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(client_sees(hosts, NULL, err, sizeof err, &ms), 2);
    snprintf(hosts, sizeof hosts, "127.0.0.1:%d,127.0.0.1:%d", pb, c.port);
    CHECK_EQ(client_sees(hosts, NULL, err, sizeof err, &ms), 3);
    printf("two live workers: the first listed, every time: ok\n");

    /* A worker that accepts and never answers is skipped after the timeout. */
    setenv("TF_CONNECT_TIMEOUT_MS", "500", 1);
    snprintf(hosts, sizeof hosts, "127.0.0.1:%d,127.0.0.1:%d", hung.port, c.port);
    CHECK_EQ(client_sees(hosts, NULL, err, sizeof err, &ms), 2);
    CHECK(ms >= 450);
    unsetenv("TF_CONNECT_TIMEOUT_MS");
    printf("hung first: skipped after %ld ms: ok\n", ms);

    /* Entries without a port take TF_WORKER_PORT, as before. */
    CHECK_EQ(client_sees("127.0.0.1", port_b, err, sizeof err, &ms), 3);

    /* None usable: one line naming each, and hipErrorNotInitialized. */
    snprintf(hosts, sizeof hosts, "127.0.0.1:%d,127.0.0.1:%d", a.port, a2.port);
    CHECK_EQ(client_sees(hosts, NULL, err, sizeof err, &ms), -hipErrorNotInitialized);
    char want[64];
    snprintf(want, sizeof want, "127.0.0.1:%d: Connection refused", a.port);
    CHECK(strstr(err, "hipwire: cannot reach hip-worker at") && strstr(err, want));
    snprintf(want, sizeof want, "127.0.0.1:%d: Connection refused", a2.port);
    CHECK(strstr(err, want) && strstr(err, "hipErrorNotInitialized"));
    CHECK(strchr(err, '\n') == err + strlen(err) - 1); /* one line */
    printf("all dead: %s", err);

    /* A malformed list is reported, not guessed at. */
    snprintf(hosts, sizeof hosts, "127.0.0.1:%d,,127.0.0.1:%d", pb, c.port);
    CHECK_EQ(client_sees(hosts, NULL, err, sizeof err, &ms), -hipErrorNotInitialized);
    CHECK(strstr(err, "TF_WORKER_HOST=") && strstr(err, "an empty entry"));
    printf("malformed list: %s", err);

    relay_stop(&hung);
    stop_worker(&c, SIGTERM);
    printf("worker list: ok\n");
    return 0;
}
