/* worker_local.c - the private hip-worker started when no --worker is
 * given: the CPU device, loopback, a free port, no session resume (a
 * runner that is killed must take its session with it), and the kernel
 * time limit set to the submission time limit so a hung kernel ends only
 * its session. */
#include "service.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t worker_pid = -1;

int worker_local_start(int *port)
{
    char portfile[] = "/tmp/hipwire-service-port-XXXXXX";
    int fd = mkstemp(portfile);
    if (fd < 0)
        return -1;
    close(fd);
    unlink(portfile);
    char pf[64], tl[32];
    snprintf(pf, sizeof pf, "--port-file=%s", portfile);
    snprintf(tl, sizeof tl, "%d", (int)svc_cfg()->time_limit_s + 1);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        setenv("HIPWIRE_CPU_KERNEL_TIMEOUT", tl, 1);
        char tf[4200] = "--max-sessions=256";
        /* The same secret as the other workers: the runners present it. */
        if (svc_cfg()->worker_token_file)
            snprintf(tf, sizeof tf, "--token-file=%s", svc_cfg()->worker_token_file);
        execl(svc_cfg()->worker_path, "hip-worker", "--backend=cpu", "--bind=127.0.0.1", "--port=0",
              pf, "--resume-grace=0", "--max-sessions=256", tf, (char *)NULL);
        _exit(127);
    }
    worker_pid = pid;
    for (int i = 0; i < 200; i++) {
        FILE *f = fopen(portfile, "r");
        if (f) {
            int p = 0;
            int ok = fscanf(f, "%d", &p) == 1 && p > 0;
            fclose(f);
            if (ok) {
                unlink(portfile);
                *port = p;
                return 0;
            }
        }
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid) {
            worker_pid = -1;
            return -1;
        }
        usleep(50000);
    }
    return -1;
}

void worker_local_stop(void)
{
    if (worker_pid > 0) {
        kill(worker_pid, SIGTERM);
        waitpid(worker_pid, NULL, 0);
        worker_pid = -1;
    }
}
