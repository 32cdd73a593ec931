/*
 * Streams created with a compute-unit mask (src/client/api_cu_mask.c): an
 * ordinary working stream, registered like any other; hipExtStreamGetCUMask
 * reports the mask in effect (all of the device's compute units), not the
 * requested one; the limitation is said once on stderr; AMD's codes.
 */
#include <hip/hip_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

/* The mask of every compute unit, words of 32 as AMD lays them out. */
static uint32_t full_word(int cus, int i)
{
    int left = cus - i * 32;
    return left >= 32 ? 0xffffffffu : left > 0 ? (1u << left) - 1 : 0;
}

/* Runs two mask creations with stderr in a file; returns how many lines
 * name the limitation. */
static int creations_said(hipStream_t s[2], const uint32_t *mask)
{
    char path[] = "/tmp/hipwire-cumask-XXXXXX";
    int fd = mkstemp(path), saved = dup(2);
    CHECK(fd >= 0 && saved >= 0);
    fflush(stderr);
    CHECK(dup2(fd, 2) == 2);
    hipError_t e0 = hipExtStreamCreateWithCUMask(&s[0], 1, mask);
    hipError_t e1 = hipExtStreamCreateWithCUMask(&s[1], 1, mask);
    fflush(stderr);
    CHECK(dup2(saved, 2) == 2);
    close(saved);
    HIP_CHECK(e0);
    HIP_CHECK(e1);
    char buf[4096] = { 0 };
    CHECK(pread(fd, buf, sizeof buf - 1, 0) >= 0);
    close(fd);
    unlink(path);
    int n = 0;
    for (char *p = buf; (p = strstr(p, "compute units")) != NULL; p++)
        n++;
    return n;
}

int main(void)
{
    hipDeviceProp_t prop;
    HIP_CHECK(hipGetDeviceProperties(&prop, 0));
    int cus = prop.multiProcessorCount;
    CHECK(cus > 0);
    uint32_t words = (uint32_t)(cus + 31) / 32;

    /* Ask for compute unit 0 alone; the stream uses them all. */
    const uint32_t one = 0x1;
    hipStream_t s[2];
    unsetenv("TF_QUIET");
    CHECK_EQ(creations_said(s, &one), 1);

    uint32_t *got = calloc(words + 1, sizeof *got);
    CHECK(got != NULL);
    got[words] = 0xabcdabcdu;
    HIP_CHECK(hipExtStreamGetCUMask(s[0], words + 1, got));
    for (uint32_t i = 0; i < words; i++)
        CHECK_EQ(got[i], full_word(cus, (int)i));
    CHECK_EQ(got[words], 0xabcdabcdu); /* only the device's words are written */
    /* The null stream too. */
    memset(got, 0, words * sizeof *got);
    HIP_CHECK(hipExtStreamGetCUMask(NULL, words, got));
    CHECK_EQ(got[0], full_word(cus, 0));

    /* It is a working stream. */
    int in[256], out[256] = { 0 };
    for (int i = 0; i < 256; i++)
        in[i] = i * 3 + 1;
    int *d;
    HIP_CHECK(hipMalloc((void **)&d, sizeof in));
    HIP_CHECK(hipMemcpyAsync(d, in, sizeof in, hipMemcpyHostToDevice, s[0]));
    HIP_CHECK(hipMemcpyAsync(out, d, sizeof out, hipMemcpyDeviceToHost, s[0]));
    HIP_CHECK(hipStreamSynchronize(s[0]));
    CHECK(memcmp(in, out, sizeof in) == 0);
    unsigned flags = 99;
    HIP_CHECK(hipStreamGetFlags(s[0], &flags));
    CHECK_EQ(flags, (unsigned)hipStreamDefault);
    HIP_CHECK(hipFree(d));

    /* Bad arguments, as AMD answers them. */
    hipStream_t t = NULL;
    HIP_EXPECT(hipExtStreamCreateWithCUMask(NULL, 1, &one), hipErrorInvalidHandle);
    HIP_EXPECT(hipExtStreamCreateWithCUMask(&t, 0, &one), hipErrorInvalidValue);
    HIP_EXPECT(hipExtStreamCreateWithCUMask(&t, 1, NULL), hipErrorInvalidValue);
    CHECK(t == NULL);
    HIP_EXPECT(hipExtStreamGetCUMask(s[0], words, NULL), hipErrorInvalidValue);
    HIP_EXPECT(hipExtStreamGetCUMask(s[0], 0, got), hipErrorInvalidValue);

    /* Registered like any stream: destroyed once. */
    HIP_CHECK(hipStreamDestroy(s[0]));
    HIP_CHECK(hipStreamDestroy(s[1]));
    HIP_EXPECT(hipStreamDestroy(s[0]), hipErrorContextIsDestroyed);
    HIP_EXPECT(hipExtStreamGetCUMask(s[1], words, got), hipErrorContextIsDestroyed);
    free(got);
    printf("cu_mask: ok (%d compute units)\n", cus);
    return 0;
}
