/*
 * launch_notes: a launch that names no registered kernel (device code not
 * linked in) is reported on stderr by default, once however often it is
 * retried, besides returning AMD's hipErrorInvalidDeviceFunction.
 */
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

static void not_a_kernel(void) {}

int main(void)
{
    char path[] = "/tmp/hipwire-notes-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    fflush(stderr);
    int saved = dup(2);
    CHECK(dup2(fd, 2) == 2);

    dim3 one = { 1, 1, 1 };
    for (int i = 0; i < 3; i++)
        HIP_EXPECT(hipLaunchKernel((const void *)not_a_kernel, one, one, NULL, 0, NULL),
                   hipErrorInvalidDeviceFunction);

    fflush(stderr);
    dup2(saved, 2);
    char buf[4096] = { 0 };
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    unlink(path);
    buf[n] = '\0';
    fputs(buf, stderr);
    int count = 0;
    for (const char *p = buf; (p = strstr(p, "no registered fat binary")) != NULL; p++)
        count++;
    CHECK(count == 1);
    CHECK(strstr(buf, "hipErrorInvalidDeviceFunction") != NULL);
    printf("launch notes: ok\n");
    return 0;
}
