/*
 * gpu_check - runs a GPU test only where a CUDA GPU is usable.
 *
 *   gpu_check -- CMD [ARGS...]
 *
 * Looks for the driver and a device exactly as the cuda backend does
 * (hwcu_api_load). Without one it prints "SKIPPED: no CUDA GPU (why)" and
 * exits 77, which ctest reports as skipped; otherwise it becomes CMD.
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cuda_api.h"
#include "hw_status.h"

int main(int argc, char **argv)
{
    if (argc < 3 || strcmp(argv[1], "--") != 0) {
        fprintf(stderr, "usage: gpu_check -- CMD [ARGS...]\n");
        return 2;
    }
    /* Probed in a child: the driver must not be initialised in a process
     * that goes on to fork the worker and the test. */
    int fds[2];
    if (pipe(fds) < 0)
        return 2;
    pid_t pid = fork();
    if (pid == 0) {
        struct hwcu_api api;
        const char *why = "unknown";
        close(fds[0]);
        int rc = hwcu_api_load(&api, &why);
        if (rc != HW_OK && write(fds[1], why, strlen(why)) < 0)
            _exit(3);
        _exit(rc == HW_OK ? 0 : 1);
    }
    close(fds[1]);
    char why[256] = "";
    ssize_t n = read(fds[0], why, sizeof why - 1);
    why[n > 0 ? n : 0] = '\0';
    close(fds[0]);
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        printf("SKIPPED: no CUDA GPU (%s)\n", why[0] ? why : "driver probe failed");
        return 77;
    }
    fflush(stdout);
    execvp(argv[2], &argv[2]);
    perror("gpu_check: exec");
    return 2;
}
