/* Two client processes on one worker at once, each with its own session. */
#include <hip/hip_runtime_api.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

static int run_client(unsigned char tag)
{
    enum { SIZE = 8 << 20 };
    unsigned char *h = malloc(SIZE), *back = malloc(SIZE), *d;
    HIP_CHECK(hipMalloc((void **)&d, SIZE));
    for (int round = 0; round < 20; round++) {
        memset(h, tag + round, SIZE);
        HIP_CHECK(hipMemcpy(d, h, SIZE, hipMemcpyHostToDevice));
        HIP_CHECK(hipMemcpy(back, d, SIZE, hipMemcpyDeviceToHost));
        CHECK(memcmp(h, back, SIZE) == 0);
    }
    HIP_CHECK(hipFree(d));
    free(h);
    free(back);
    return 0;
}

int main(void)
{
    /* Fork before the first HIP call: each process opens its own session. */
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0)
        _exit(run_client(0x40));
    run_client(0x80);
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    printf("two concurrent clients: ok\n");
    return 0;
}
