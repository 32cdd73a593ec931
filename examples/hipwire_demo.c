/*
 * hipwire-demo - starts a private hip-worker on loopback (the CPU device
 * when the machine has no GPU), runs the vector_add example against it
 * through the proxy, and stops the worker.
 *
 * Everything it uses sits next to it in the build tree: bin/hip-worker,
 * bin/vector_add (linked against lib/libamdhip64.so.N), kernels/.
 */
#include <limits.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hw_cli.h"

static void sleep_ms(int ms)
{
    struct timespec ts = { 0, ms * 1000000L };
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
    char self[PATH_MAX], bin[PATH_MAX], worker[PATH_MAX + 16], app[PATH_MAX + 16],
        kernels[PATH_MAX + 32], portfile[64], portarg[96];
    if (hw_cli_help_version(argc, argv, "hipwire-demo",
                            "usage: hipwire-demo\n"
                            "Starts a private hip-worker on loopback (the CPU device when there is "
                            "no GPU) and runs the\nvector_add HIP program against it through the "
                            "proxy libamdhip64.\n"))
        return 0;
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return 1;
    self[n] = '\0';
    snprintf(bin, sizeof bin, "%s", dirname(self));
    snprintf(worker, sizeof worker, "%s/hip-worker", bin);
    snprintf(app, sizeof app, "%s/vector_add", bin);
    snprintf(kernels, sizeof kernels, "%s/../kernels/demo_kernels.so", bin);
    snprintf(portfile, sizeof portfile, "/tmp/hipwire-demo-%d.port", (int)getpid());
    snprintf(portarg, sizeof portarg, "--port-file=%s", portfile);

    printf("== hipwire demo: a HIP program whose calls run on a hip-worker over TCP\n");
    printf("== starting %s --backend=cpu --port=0\n", worker);
    fflush(stdout);
    pid_t w = fork();
    if (w == 0) {
        execl(worker, worker, "--backend=cpu", "--port=0", portarg, (char *)NULL);
        perror("hip-worker");
        _exit(127);
    }
    char port[16] = "";
    for (int i = 0; i < 200 && !port[0]; i++) {
        FILE *f = fopen(portfile, "r");
        if (f) {
            if (!fgets(port, sizeof port, f))
                port[0] = '\0';
            fclose(f);
        }
        if (!port[0])
            sleep_ms(25);
    }
    unlink(portfile);
    if (!port[0]) {
        fprintf(stderr, "hipwire-demo: the worker did not start\n");
        kill(w, SIGKILL);
        return 1;
    }
    port[strcspn(port, "\n")] = '\0';
    setenv("TF_WORKER_HOST", "127.0.0.1", 1);
    setenv("TF_WORKER_PORT", port, 1);
    printf("== running vector_add with TF_WORKER_HOST=127.0.0.1 TF_WORKER_PORT=%s\n", port);
    fflush(stdout);
    pid_t a = fork();
    if (a == 0) {
        execl(app, app, kernels, (char *)NULL);
        perror("vector_add");
        _exit(127);
    }
    int st = 0, wst = 0;
    waitpid(a, &st, 0);
    kill(w, SIGTERM);
    waitpid(w, &wst, 0);
    int ok = WIFEXITED(st) && WEXITSTATUS(st) == 0 && WIFEXITED(wst) && WEXITSTATUS(wst) == 0;
    printf("== demo %s\n", ok ? "finished: all results correct" : "FAILED");
    return ok ? 0 : 1;
}
