/* launcher.c - one thread per running submission: writes the job into a
 * private directory, starts hipwire-runner in its own process group with
 * the worker in its environment and the result pipe as fd 3 (its stdout
 * and stderr go to a file nobody parses), relays the authenticated events
 * the moment they arrive, and enforces the time limit and cancellation by
 * killing the group. A runner that cannot reach its worker marks the
 * worker down and the submission is retried once elsewhere. */
#include "hw_alloc.h"
#include "service.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/rand.h>

#include "frame.h"

#define EXIT_UNREACHABLE 75

static pthread_mutex_t running_lock = PTHREAD_MUTEX_INITIALIZER;
static int running;

struct launch {
    struct submission *s;
    struct lease l;
};

int launcher_running(void)
{
    pthread_mutex_lock(&running_lock);
    int n = running;
    pthread_mutex_unlock(&running_lock);
    return n;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static int write_file(const char *path, const char *data)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    size_t n = strlen(data);
    ssize_t w = write(fd, data, n);
    close(fd);
    return w == (ssize_t)n ? 0 : -1;
}

static int is_runner_event(const char *name)
{
    static const char *ok[] = { "COMPILING",        "CHECKING",     "TEST_RESULT",
                                "CHECKED",          "WRONG_ANSWER", "BENCHMARKING",
                                "BENCHMARK_RESULT", "BENCHMARKED",  "COMPILE_ERROR",
                                "RUNTIME_ERROR",    "ERROR",        "SAMPLE_RESULT" };
    for (unsigned i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (!strcmp(ok[i], name))
            return 1;
    return 0;
}

static int is_final(const struct submission *s, const char *name)
{
    if (!strcmp(name, "CHECKED"))
        return strcmp(s->endpoint, "benchmark") != 0;
    return !strcmp(name, "WRONG_ANSWER") || !strcmp(name, "BENCHMARKED") ||
           !strcmp(name, "COMPILE_ERROR") || !strcmp(name, "RUNTIME_ERROR") ||
           !strcmp(name, "ERROR") || !strcmp(name, "SAMPLE_RESULT");
}

static void error_event(struct submission *s, const char *name, const char *msg)
{
    json_t *p = json_object();
    json_object_set_new(p, "message", json_string(msg));
    json_object_set_new(p, !strcmp(name, "ERROR") ? "error" : "details", json_string(msg));
    sub_emit(s, name, p, 1);
}

/* The last 2 KiB the solution's process wrote (shown, never parsed). */
static json_t *output_tail(const char *dir)
{
    char path[4200], buf[2049];
    snprintf(path, sizeof path, "%s/output.log", dir);
    FILE *f = fopen(path, "rb");
    size_t n = 0;
    if (!f)
        return json_string("");
    if (fseek(f, -2048, SEEK_END) != 0)
        rewind(f);
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    json_t *str = json_stringn(buf, n);
    if (str)
        return str;
    /* Not UTF-8 (or cut inside a character): keep what is printable ASCII. */
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)buf[i] > 0x7e || ((unsigned char)buf[i] < 0x20 && buf[i] != '\n'))
            buf[i] = '?';
    return json_stringn(buf, n);
}

/* Writes the job and starts the runner; its pid, or -1. */
static pid_t start_runner(struct submission *s, const struct lease *l, const char *dir,
                          unsigned char *key, int *rfd)
{
    char path[4200], hex[2 * HW_FRAME_KEY_LEN + 1];
    const struct svc_config *cfg = svc_cfg();
    snprintf(path, sizeof path, "%s/solution.hip", dir);
    if (write_file(path, s->code) != 0)
        return -1;
    if (RAND_bytes(key, HW_FRAME_KEY_LEN) != 1)
        return -1;
    for (int i = 0; i < HW_FRAME_KEY_LEN; i++)
        sprintf(hex + 2 * i, "%02x", key[i]);
    uint64_t seed;
    RAND_bytes((unsigned char *)&seed, sizeof seed);
    int cpu = !strcmp(l->device_class, "cpu");
    json_t *job = json_object();
    json_object_set(job, "problem", s->prob->def);
    json_object_set_new(job, "reference_source", json_string(s->prob->reference_source));
    json_object_set_new(job, "endpoint", json_string(s->endpoint));
    json_object_set_new(job, "language", json_string(s->language));
    json_object_set_new(job, "solution_path", json_string(path));
    json_object_set_new(job, "compiler", json_string(cfg->cc_path ? cfg->cc_path : "hipwire-cc"));
    json_object_set_new(job, "workdir", json_string(dir));
    json_object_set_new(job, "device_class", json_string(l->device_class));
    json_object_set_new(job, "device", json_integer(l->device));
    json_object_set_new(job, "seed", json_integer((json_int_t)(seed >> 1)));
    json_object_set_new(
        job, "flush_bytes",
        json_integer((json_int_t)(cpu ? cfg->flush_bytes_cpu : cfg->flush_bytes_gpu)));
    json_object_set_new(job, "bench_budget_s", json_real(cfg->bench_budget_s));
    json_object_set_new(job, "key", json_string(hex));
    char refpath[160], refsha[65];
    if (refcache_get(s->prob, l, refpath, sizeof refpath, refsha) == 0) {
        json_object_set_new(job, "reference_code", json_string(refpath));
        json_object_set_new(job, "reference_sha256", json_string(refsha));
    }
    char jobpath[4200];
    snprintf(jobpath, sizeof jobpath, "%s/job.json", dir);
    char *js = json_dumps(job, JSON_COMPACT);
    json_decref(job);
    int wrc = js ? write_file(jobpath, js) : -1;
    free(js);
    if (wrc != 0)
        return -1;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return -1;
    char port[16], tl[32];
    snprintf(port, sizeof port, "%d", l->port);
    snprintf(tl, sizeof tl, "%g", cfg->time_limit_s);
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        /* fd 3 is the result pipe; nothing else of the service leaks in. */
        dup2(fds[1], 3);
        char out[4300];
        snprintf(out, sizeof out, "%s/output.log", dir);
        int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int nul = open("/dev/null", O_RDONLY);
        if (o >= 0) {
            dup2(o, 1);
            dup2(o, 2);
        }
        if (nul >= 0)
            dup2(nul, 0);
        closefrom(4);
        setenv("TF_WORKER_HOST", l->host, 1);
        setenv("TF_WORKER_PORT", port, 1);
        setenv("TF_WORKER_RESUME_TIMEOUT_MS", "0", 1);
        if (svc_cfg()->worker_token_file)
            setenv("TF_WORKER_TOKEN_FILE", svc_cfg()->worker_token_file, 1);
        setenv("TMPDIR", dir, 1);
        if (chdir(dir) != 0)
            _exit(126);
        execl(cfg->runner_path, "hipwire-runner", "--job", jobpath, "--result-fd", "3",
              "--time-limit", tl, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        return -1;
    }
    setpgid(pid, pid);
    *rfd = fds[0];
    return pid;
}

/* Relays verified lines until the runner closes the pipe, the deadline
 * passes or the submission is cancelled. Returns 1 final event relayed,
 * 0 pipe closed without one, 2 time limit, 3 cancelled. */
static int relay(struct submission *s, int rfd, const unsigned char *key, double deadline)
{
    char *buf = hw_malloc(HW_FRAME_MAX + 1);
    size_t have = 0;
    uint64_t seq = 0;
    int result = 0;
    if (!buf)
        return 0;
    for (;;) {
        pthread_mutex_lock(&s->mu);
        int cancel = s->cancel;
        pthread_mutex_unlock(&s->mu);
        if (cancel) {
            result = 3;
            break;
        }
        double left = deadline - now_s();
        if (left <= 0) {
            result = 2;
            break;
        }
        struct pollfd p = { rfd, POLLIN, 0 };
        int wait_ms = left > 0.2 ? 200 : (int)(left * 1000) + 1;
        int r = poll(&p, 1, wait_ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0)
            continue;
        ssize_t n = read(rfd, buf + have, HW_FRAME_MAX - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        have += (size_t)n;
        char *line = buf, *nl;
        while ((nl = memchr(line, '\n', have - (size_t)(line - buf)))) {
            *nl = '\0';
            const char *js;
            if (line[0] && hw_frame_verify(key, seq, line, &js) == 0) {
                seq++;
                json_t *o = json_loads(js, 0, NULL);
                const char *name = json_string_value(json_object_get(o, "status"));
                if (o && name && is_runner_event(name)) {
                    char nm[32];
                    snprintf(nm, sizeof nm, "%s", name);
                    int fin = is_final(s, nm);
                    sub_emit(s, nm, o, fin);
                    o = NULL;
                    if (fin)
                        result = 1;
                }
                json_decref(o);
            } else if (line[0]) {
                metrics_count("forged_lines", s->prob->slug);
            }
            line = nl + 1;
        }
        have -= (size_t)(line - buf);
        memmove(buf, line, have);
        if (have == HW_FRAME_MAX)
            have = 0; /* an overlong unterminated line: junk by definition */
        if (result == 1)
            break;
    }
    free(buf);
    return result;
}

static void *launch_thread(void *arg)
{
    struct launch *la = arg;
    struct submission *s = la->s;
    char dir[] = "/tmp/hipwire-run-XXXXXX";
    unsigned char key[HW_FRAME_KEY_LEN];
    int rfd = -1, requeue = 0;
    pid_t pid = -1;
    pthread_mutex_lock(&running_lock);
    running++;
    pthread_mutex_unlock(&running_lock);
    s->attempts++;
    if (!mkdtemp(dir) || (pid = start_runner(s, &la->l, dir, key, &rfd)) < 0) {
        error_event(s, "ERROR", "the service could not start a runner");
        goto out;
    }
    /* The limit counts from the start of the run, not from queueing. */
    int r = relay(s, rfd, key, now_s() + svc_cfg()->time_limit_s);
    if (r == 2 || r == 3)
        kill(-pid, SIGKILL);
    int st = 0;
    /* After a final event the runner only exits; give it a moment. */
    for (int i = 0; i < 50 && waitpid(pid, &st, WNOHANG) == 0; i++)
        usleep(20000);
    if (waitpid(pid, &st, WNOHANG) == 0) {
        kill(-pid, SIGKILL);
        waitpid(pid, &st, 0);
    }
    kill(-pid, SIGKILL); /* anything the solution left behind */
    if (r == 2) {
        char msg[128];
        snprintf(msg, sizeof msg, "Time limit of %g s exceeded", svc_cfg()->time_limit_s);
        error_event(s, "TIME_LIMIT_EXCEEDED", msg);
    } else if (r == 3) {
        error_event(s, "ERROR", "cancelled");
    } else if (r == 0) {
        if (WIFEXITED(st) && WEXITSTATUS(st) == EXIT_UNREACHABLE) {
            pool_mark_dead(la->l.worker);
            if (s->attempts < 2) {
                s->avoid_worker = la->l.worker;
                requeue = 1;
            } else {
                error_event(s, "ERROR", "the worker became unreachable (tried twice)");
            }
        } else {
            char msg[160];
            if (WIFSIGNALED(st))
                snprintf(msg, sizeof msg, "the solution's process was killed by signal %d",
                         WTERMSIG(st));
            else
                snprintf(msg, sizeof msg,
                         "the solution's process exited with status %d "
                         "before a result",
                         WEXITSTATUS(st));
            json_t *p = json_object();
            json_object_set_new(p, "message", json_string(msg));
            json_object_set_new(p, "details", json_string(msg));
            json_object_set_new(p, "output", output_tail(dir));
            sub_emit(s, "RUNTIME_ERROR", p, 1);
        }
    }
out:
    if (rfd >= 0)
        close(rfd);
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    pthread_mutex_lock(&running_lock);
    running--;
    pthread_mutex_unlock(&running_lock);
    pool_release(&la->l);
    if (requeue) {
        sched_enqueue(s); /* takes its own reference */
    }
    sub_put(s);
    free(la);
    return NULL;
}

void launcher_start(struct submission *s, const struct lease *l)
{
    struct launch *la = hw_malloc(sizeof *la);
    pthread_t t;
    if (!la) {
        error_event(s, "ERROR", "out of memory");
        pool_release(l);
        sub_put(s);
        return;
    }
    la->s = s;
    la->l = *l;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &attr, launch_thread, la) != 0) {
        error_event(s, "ERROR", "cannot start a thread");
        pool_release(l);
        sub_put(s);
        free(la);
    }
    pthread_attr_destroy(&attr);
}
