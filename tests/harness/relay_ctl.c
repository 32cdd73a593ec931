#include "relay_ctl.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void nap_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

int relay_start(const char *relay_path, const char *target, const char *const *args,
                struct relay_proc *out)
{
    struct relay_proc p;
    memset(&p, 0, sizeof p);
    snprintf(p.dir, sizeof p.dir, "/tmp/hipwire-relay-XXXXXX");
    if (!mkdtemp(p.dir))
        return -1;
    char port_file[128];
    snprintf(port_file, sizeof port_file, "%s/port", p.dir);
    snprintf(p.control, sizeof p.control, "%s/ctl", p.dir);

    const char *argv[64];
    int n = 0;
    argv[n++] = relay_path;
    argv[n++] = "--target";
    argv[n++] = target;
    argv[n++] = "--port-file";
    argv[n++] = port_file;
    argv[n++] = "--control";
    argv[n++] = p.control;
    for (int i = 0; args && args[i] && n < 63; i++)
        argv[n++] = args[i];
    argv[n] = NULL;

    pid_t parent = getpid();
    p.pid = fork();
    if (p.pid < 0) {
        rmdir(p.dir);
        return -1;
    }
    if (p.pid == 0) {
        /* A test that fails a check exits at once: its relay goes with it. */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(127);
        execv(relay_path, (char *const *)argv);
        perror("relay_start: exec");
        _exit(127);
    }
    for (int t = 0; t < 400; t++) {
        FILE *f = fopen(port_file, "r");
        if (f) {
            int ok = fscanf(f, "%d", &p.port) == 1;
            fclose(f);
            if (ok && p.port > 0) {
                *out = p;
                return 0;
            }
        }
        int st;
        if (waitpid(p.pid, &st, WNOHANG) == p.pid)
            break;
        nap_ms(10);
    }
    fprintf(stderr, "relay_start: %s did not start listening\n", relay_path);
    kill(p.pid, SIGKILL);
    waitpid(p.pid, NULL, 0);
    unlink(port_file);
    unlink(p.control);
    rmdir(p.dir);
    return -1;
}

void relay_stop(struct relay_proc *p)
{
    if (p->pid <= 0)
        return;
    kill(p->pid, SIGTERM);
    waitpid(p->pid, NULL, 0);
    p->pid = 0;
    char port_file[128];
    snprintf(port_file, sizeof port_file, "%s/port", p->dir);
    unlink(port_file);
    unlink(p->control);
    rmdir(p->dir);
}

int relay_cmd(const char *control, char *reply, size_t cap, const char *fmt, ...)
{
    char line[256], got[512];
    size_t len = 0;
    int fd = -1, rc = -1;
    va_list ap;

    if (!control)
        control = getenv("HIPWIRE_RELAY_CONTROL");
    if (!control)
        goto out;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof line - 1)
        goto out;
    line[n++] = '\n';

    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (strlen(control) >= sizeof sa.sun_path)
        goto out;
    strcpy(sa.sun_path, control);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0)
        goto out;
    if (write(fd, line, (size_t)n) != n)
        goto out;
    while (len < sizeof got - 1) {
        ssize_t r = read(fd, got + len, sizeof got - 1 - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        len += (size_t)r;
        if (memchr(got, '\n', len))
            break;
    }
    got[len] = '\0';
    got[strcspn(got, "\n")] = '\0';
    if (reply && cap)
        snprintf(reply, cap, "%s", got);
    rc = strncmp(got, "ok", 2) == 0 ? 0 : -1;
out:
    if (fd >= 0)
        close(fd);
    return rc;
}

int relay_stat(const char *control, const char *key, uint64_t *value)
{
    char reply[512], needle[64];
    if (relay_cmd(control, reply, sizeof reply, "stats") < 0)
        return -1;
    snprintf(needle, sizeof needle, " %s=", key);
    const char *p = strstr(reply, needle);
    if (!p)
        return -1;
    *value = strtoull(p + strlen(needle), NULL, 10);
    return 0;
}
