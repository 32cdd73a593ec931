/*
 * with_worker - runs a command against a freshly started hip-worker, the way
 * a user would: a real worker process on a real loopback socket.
 *
 *   with_worker --worker PATH [--log FILE] [--port-env NAME] [--arg WORKER_ARG]... -- CMD [ARGS...]
 *
 * The worker is started with --port 0 and its chosen port is passed to CMD
 * in TF_WORKER_PORT (TF_WORKER_HOST=127.0.0.1, HIPWIRE_WORKER_PID set too),
 * and also in NAME with --port-env (so that a with_worker nested in CMD,
 * which sets TF_WORKER_PORT again, leaves this worker's port known).
 * --worker-env NAME=VALUE sets NAME in the worker's environment only.
 * In a WORKER_ARG, %env:NAME% is replaced by the value of NAME (an outer
 * worker's port, say: --arg --migrate-to=127.0.0.1:%env:PORT%).
 * Afterwards the worker gets SIGTERM and must exit 0 within 10 s. The exit
 * status is CMD's, or 1 if the worker misbehaved.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* arg with %env:NAME% replaced (once) by NAME's value; arg itself when it
 * has none (or more than 8 arguments have one). */
static char *expand(char *arg)
{
    static char out[8][512];
    static int used;
    char *at = strstr(arg, "%env:");
    char *end = at ? strchr(at + 5, '%') : NULL;
    if (!end || used == 8)
        return arg;
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(end - at - 5), at + 5);
    const char *v = getenv(name);
    snprintf(out[used], sizeof out[used], "%.*s%s%s", (int)(at - arg), arg, v ? v : "", end + 1);
    return out[used++];
}

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
    const char *worker = NULL, *log = NULL, *port_env = NULL;
    char *wenv[8];
    int nenv = 0;
    char *wargs[64];
    int nw = 0, i;
    char portfile[] = "/tmp/hipwire-port-XXXXXX";

    for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (!strcmp(argv[i], "--worker") && i + 1 < argc)
            worker = argv[++i];
        else if (!strcmp(argv[i], "--log") && i + 1 < argc)
            log = argv[++i];
        else if (!strcmp(argv[i], "--port-env") && i + 1 < argc)
            port_env = argv[++i];
        else if (!strcmp(argv[i], "--worker-env") && i + 1 < argc && nenv < 8)
            wenv[nenv++] = argv[++i];
        else if (!strcmp(argv[i], "--arg") && i + 1 < argc && nw < 50)
            wargs[3 + nw++] = expand(argv[++i]);
        else {
            fprintf(stderr, "with_worker: bad argument %s\n", argv[i]);
            return 2;
        }
    }
    if (!worker || i + 1 >= argc) {
        fprintf(stderr, "usage: with_worker --worker PATH [--arg A]... -- CMD...\n");
        return 2;
    }
    char **cmd = &argv[i + 1];
    int pfd = mkstemp(portfile);
    if (pfd < 0)
        return 2;
    close(pfd);
    unlink(portfile);

    wargs[0] = (char *)worker;
    wargs[1] = "--port=0";
    char pf[64];
    snprintf(pf, sizeof pf, "--port-file=%s", portfile);
    wargs[2] = pf;
    wargs[3 + nw] = NULL;

    pid_t wpid = fork();
    if (wpid == 0) {
        if (log && !freopen(log, "w", stderr))
            _exit(127);
        for (int e = 0; e < nenv; e++)
            putenv(wenv[e]);
        execv(worker, wargs);
        perror("exec hip-worker");
        _exit(127);
    }
    char port[16] = "";
    for (int t = 0; t < 200 && !port[0]; t++) {
        FILE *f = fopen(portfile, "r");
        if (f) {
            if (!fgets(port, sizeof port, f))
                port[0] = '\0';
            fclose(f);
        }
        int st;
        if (!port[0] && waitpid(wpid, &st, WNOHANG) == wpid) {
            fprintf(stderr, "with_worker: hip-worker exited before listening\n");
            return 1;
        }
        if (!port[0])
            sleep_ms(25);
    }
    unlink(portfile);
    if (!port[0]) {
        fprintf(stderr, "with_worker: hip-worker did not start listening\n");
        kill(wpid, SIGKILL);
        return 1;
    }
    port[strcspn(port, "\n")] = '\0';
    char wpid_s[16];
    snprintf(wpid_s, sizeof wpid_s, "%d", (int)wpid);
    setenv("TF_WORKER_HOST", "127.0.0.1", 1);
    setenv("TF_WORKER_PORT", port, 1);
    setenv("HIPWIRE_WORKER_PID", wpid_s, 1);
    if (port_env)
        setenv(port_env, port, 1);

    pid_t cpid = fork();
    if (cpid == 0) {
        execvp(cmd[0], cmd);
        perror("exec test command");
        _exit(127);
    }
    int cst = 0, wst = 0;
    waitpid(cpid, &cst, 0);

    kill(wpid, SIGTERM);
    int done = 0;
    for (int t = 0; t < 400 && !done; t++) {
        if (waitpid(wpid, &wst, WNOHANG) == wpid)
            done = 1;
        else
            sleep_ms(25);
    }
    if (!done) {
        fprintf(stderr, "with_worker: hip-worker ignored SIGTERM for 10 s\n");
        kill(wpid, SIGKILL);
        waitpid(wpid, &wst, 0);
        return 1;
    }
    if (!WIFEXITED(wst) || WEXITSTATUS(wst) != 0) {
        fprintf(stderr, "with_worker: hip-worker did not shut down cleanly (status 0x%x)\n", wst);
        return 1;
    }
    if (WIFSIGNALED(cst)) {
        fprintf(stderr, "with_worker: test died from signal %d\n", WTERMSIG(cst));
        return 1;
    }
    return WEXITSTATUS(cst);
}
