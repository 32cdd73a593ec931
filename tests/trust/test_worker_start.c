/*
 * test_worker_start - hip-worker's security checks at start, on the real
 * binary: no listening beyond loopback without a token unless --insecure,
 * and clear refusals of bad token and TLS settings.
 *
 *   test_worker_start HIP_WORKER FIXTURES_DIR
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "raw_client.h"

static const char *worker, *fx;
static char log_path[256], port_path[256];

/* Starts the worker with args; returns its pid. stderr goes to log_path. */
static pid_t start(const char *const *args)
{
    char *argv[32];
    int n = 0;
    argv[n++] = (char *)worker;
    argv[n++] = "--backend=cpu";
    argv[n++] = "--port=0";
    static char pf[300];
    snprintf(pf, sizeof pf, "--port-file=%s", port_path);
    argv[n++] = pf;
    for (int i = 0; args[i] && n < 30; i++)
        argv[n++] = (char *)args[i];
    argv[n] = NULL;
    unlink(port_path);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen(log_path, "w", stderr))
            _exit(127);
        execv(worker, argv);
        _exit(127);
    }
    return pid;
}

static int log_has(const char *needle)
{
    static char buf[65536];
    FILE *f = fopen(log_path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    return strstr(buf, needle) != NULL;
}

/* The worker must exit with `code` within 10 s, having logged `needle`. */
static void expect_refused(const char *const *args, int code, const char *needle)
{
    int st;
    pid_t pid = start(args);
    for (int i = 0; i < 400 && waitpid(pid, &st, WNOHANG) != pid; i++) {
        if (i == 399) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            EXPECT(0, "the worker kept running");
        }
        raw_sleep_ms(25);
    }
    EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == code, "exit status 0x%x, expected %d", st, code);
    EXPECT(access(port_path, F_OK) != 0, "it listened anyway");
    EXPECT(log_has(needle), "no line with \"%s\" in its log", needle);
}

/* The worker must start listening, have logged needle, and stop on SIGTERM. */
static void expect_listening(const char *const *args, const char *needle)
{
    int st;
    pid_t pid = start(args);
    int up = 0;
    for (int i = 0; i < 400 && !up; i++) {
        up = access(port_path, F_OK) == 0;
        if (!up) {
            EXPECT(waitpid(pid, &st, WNOHANG) != pid, "the worker exited (status 0x%x)", st);
            raw_sleep_ms(25);
        }
    }
    EXPECT(up, "the worker did not start listening");
    EXPECT(!needle || log_has(needle), "no line with \"%s\" in its log", needle);
    kill(pid, SIGTERM);
    waitpid(pid, &st, 0);
    EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0, "exit status 0x%x after SIGTERM", st);
}

int main(int argc, char **argv)
{
    char token[256], cert[256], key[256], short_tok[256], tokarg[300];
    EXPECT(argc == 3, "usage: test_worker_start HIP_WORKER FIXTURES_DIR");
    worker = argv[1];
    fx = argv[2];
    snprintf(log_path, sizeof log_path, "%s/start.log", fx);
    snprintf(port_path, sizeof port_path, "%s/start.port", fx);
    snprintf(token, sizeof token, "--token-file=%s/token", fx);
    snprintf(cert, sizeof cert, "--tls-cert=%s/worker.pem", fx);
    snprintf(key, sizeof key, "--tls-key=%s/worker.key", fx);
    snprintf(short_tok, sizeof short_tok, "%s/short-token", fx);
    FILE *f = fopen(short_tok, "w");
    EXPECT(f && fputs("tooshort\n", f) >= 0 && fclose(f) == 0, "write %s", short_tok);
    chmod(short_tok, 0600);

    raw_begin("non-loopback bind without a token: refused");
    expect_refused((const char *const[]){ "--bind=0.0.0.0", NULL }, 2,
                   "refusing to listen on 0.0.0.0 without --token-file");
    raw_pass();

    raw_begin("non-loopback bind with --insecure: listens, says so");
    expect_listening((const char *const[]){ "--bind=0.0.0.0", "--insecure", NULL },
                     "--insecure: listening on 0.0.0.0 with no authentication");
    raw_pass();

    raw_begin("non-loopback bind with a token: listens, warns that there is no TLS");
    expect_listening((const char *const[]){ "--bind=0.0.0.0", token, NULL }, "without TLS");
    raw_pass();

    raw_begin("non-loopback bind with a token and TLS: listens");
    expect_listening(
        (const char *const[]){ "--bind=0.0.0.0", token, cert, key, "--require-tls", NULL },
        "token required, TLS required");
    raw_pass();

    raw_begin(
        "bad settings: missing token file, short token, half a TLS pair, --require-tls alone");
    expect_refused((const char *const[]){ "--token-file=/nonexistent/token", NULL }, 2,
                   "cannot open /nonexistent/token");
    snprintf(tokarg, sizeof tokarg, "--token-file=%s", short_tok);
    expect_refused((const char *const[]){ tokarg, NULL }, 2, "a token must be 16 to 1024 bytes");
    expect_refused((const char *const[]){ cert, NULL }, 2, "--tls-cert and --tls-key go together");
    expect_refused((const char *const[]){ "--require-tls", NULL }, 2,
                   "--require-tls needs --tls-cert and --tls-key");
    raw_pass();
    printf("test_worker_start: all checks passed\n");
    return 0;
}
