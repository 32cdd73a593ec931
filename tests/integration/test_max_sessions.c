/* --max-sessions 1: a second client is refused with a clear line and
 * hipErrorNotInitialized, and the first keeps working. */
#include <hip/hip_runtime_api.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

int main(void)
{
    int go[2], ready[2];
    CHECK(pipe(go) == 0 && pipe(ready) == 0);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        char c = 0;
        void *p;
        HIP_CHECK(hipMalloc(&p, 4096)); /* holds the only session */
        CHECK(write(ready[1], &c, 1) == 1);
        CHECK(read(go[0], &c, 1) == 1);
        HIP_CHECK(hipMemset(p, 1, 4096));
        HIP_CHECK(hipDeviceSynchronize());
        _exit(0);
    }
    char c;
    CHECK(read(ready[0], &c, 1) == 1);
    int n = -1;
    HIP_EXPECT(hipGetDeviceCount(&n), hipErrorNotInitialized);
    CHECK(write(go[1], &c, 1) == 1);
    int st;
    CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    printf("max sessions: second client refused, first unaffected: ok\n");
    return 0;
}
