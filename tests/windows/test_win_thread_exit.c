/*
 * test_win_thread_exit - per-thread streams of native Windows threads
 * (CreateThread, as Python's are; not pthreads) are released when the
 * threads end. The worker allows 4 streams per session (--max-streams=4)
 * and 12 threads in turn each use hipStreamPerThread: a stream kept past
 * its thread would make a later thread's work fail. Their release is
 * deferred out of the thread-detach callback (docs/windows.md).
 */
#include <stdint.h>
#include <string.h>

#include <hip/hip_runtime_api.h>
#include <windows.h>

#include "testutil.h"

enum { THREADS = 12, N = 1 << 16 };
static unsigned char *dev_buf;

static DWORD WINAPI one_thread(LPVOID arg)
{
    int v = (int)(intptr_t)arg;
    unsigned char back[64];
    HIP_CHECK(hipMemsetAsync(dev_buf, v, N, hipStreamPerThread));
    HIP_CHECK(hipStreamSynchronize(hipStreamPerThread));
    HIP_CHECK(hipMemcpy(back, dev_buf + N - sizeof back, sizeof back, hipMemcpyDeviceToHost));
    for (size_t i = 0; i < sizeof back; i++)
        CHECK_EQ(back[i], v);
    return 0;
}

int main(void)
{
    HIP_CHECK(hipMalloc((void **)&dev_buf, N));
    for (int i = 0; i < THREADS; i++) {
        HANDLE t = CreateThread(NULL, 0, one_thread, (LPVOID)(intptr_t)(i + 1), 0, NULL);
        CHECK(t != NULL);
        CHECK(WaitForSingleObject(t, 60000) == WAIT_OBJECT_0);
        DWORD code = 1;
        CHECK(GetExitCodeThread(t, &code) && code == 0);
        CloseHandle(t);
    }
    HIP_CHECK(hipFree(dev_buf));
    printf("windows thread exit: %d native threads' per-thread streams released: ok\n", THREADS);
    return 0;
}
