/*
 * test_error_names.c - hipGetErrorName / hipGetErrorString give AMD's name
 * and text (clr hip_error.cpp) for every hipError_t of the headers, and
 * AMD's fallback ("hipErrorUnknown", "unknown error") for anything else.
 * argv[1] is hip_runtime_api.h: every enumerator it declares must be in the
 * table below, so a code added to the headers cannot go unnoticed.
 */
#include <stdio.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

#include "testutil.h"

struct expect {
    hipError_t code;
    const char *name;
    const char *text;
};

#define E(code, text)     \
    {                     \
        code, #code, text \
    }
static const struct expect table[] = {
    E(hipSuccess, "no error"),
    E(hipErrorInvalidValue, "invalid argument"),
    E(hipErrorOutOfMemory, "out of memory"),
    E(hipErrorNotInitialized, "initialization error"),
    E(hipErrorDeinitialized, "driver shutting down"),
    E(hipErrorProfilerDisabled, "profiler disabled while using external profiling tool"),
    E(hipErrorProfilerNotInitialized, "profiler is not initialized"),
    E(hipErrorProfilerAlreadyStarted, "profiler already started"),
    E(hipErrorProfilerAlreadyStopped, "profiler already stopped"),
    E(hipErrorInvalidConfiguration, "invalid configuration argument"),
    E(hipErrorInvalidPitchValue, "invalid pitch argument"),
    E(hipErrorInvalidSymbol, "invalid device symbol"),
    E(hipErrorInvalidDevicePointer, "invalid device pointer"),
    E(hipErrorInvalidMemcpyDirection, "invalid copy direction for memcpy"),
    E(hipErrorInsufficientDriver, "driver version is insufficient for runtime version"),
    E(hipErrorMissingConfiguration, "__global__ function call is not configured"),
    E(hipErrorPriorLaunchFailure, "unspecified launch failure in prior launch"),
    E(hipErrorInvalidDeviceFunction, "invalid device function"),
    E(hipErrorNoDevice, "no ROCm-capable device is detected"),
    E(hipErrorInvalidDevice, "invalid device ordinal"),
    E(hipErrorInvalidImage, "device kernel image is invalid"),
    E(hipErrorInvalidContext, "invalid device context"),
    E(hipErrorContextAlreadyCurrent, "context is already current context"),
    E(hipErrorMapFailed, "mapping of buffer object failed"),
    E(hipErrorUnmapFailed, "unmapping of buffer object failed"),
    E(hipErrorArrayIsMapped, "array is mapped"),
    E(hipErrorAlreadyMapped, "resource already mapped"),
    E(hipErrorNoBinaryForGpu, "no kernel image is available for execution on the device"),
    E(hipErrorAlreadyAcquired, "resource already acquired"),
    E(hipErrorNotMapped, "resource not mapped"),
    E(hipErrorNotMappedAsArray, "resource not mapped as array"),
    E(hipErrorNotMappedAsPointer, "resource not mapped as pointer"),
    E(hipErrorECCNotCorrectable, "uncorrectable ECC error encountered"),
    E(hipErrorUnsupportedLimit, "limit is not supported on this architecture"),
    E(hipErrorContextAlreadyInUse, "exclusive-thread device already in use by a different thread"),
    E(hipErrorPeerAccessUnsupported, "peer access is not supported between these two devices"),
    E(hipErrorInvalidKernelFile, "invalid kernel file"),
    E(hipErrorInvalidGraphicsContext, "invalid OpenGL or DirectX context"),
    E(hipErrorInvalidSource, "device kernel image is invalid"),
    E(hipErrorFileNotFound, "file not found"),
    E(hipErrorSharedObjectSymbolNotFound, "shared object symbol not found"),
    E(hipErrorSharedObjectInitFailed, "shared object initialization failed"),
    E(hipErrorOperatingSystem, "OS call failed or operation not supported on this OS"),
    E(hipErrorInvalidHandle, "invalid resource handle"),
    E(hipErrorIllegalState, "the operation cannot be performed in the present state"),
    E(hipErrorNotFound, "named symbol not found"),
    E(hipErrorNotReady, "device not ready"),
    E(hipErrorIllegalAddress, "an illegal memory access was encountered"),
    E(hipErrorLaunchOutOfResources, "too many resources requested for launch"),
    E(hipErrorLaunchTimeOut, "the launch timed out and was terminated"),
    E(hipErrorPeerAccessAlreadyEnabled, "peer access is already enabled"),
    E(hipErrorPeerAccessNotEnabled, "peer access has not been enabled"),
    E(hipErrorSetOnActiveProcess, "cannot set while device is active in this process"),
    E(hipErrorContextIsDestroyed, "context is destroyed"),
    E(hipErrorAssert, "device-side assert triggered"),
    E(hipErrorHostMemoryAlreadyRegistered,
      "part or all of the requested memory range is already mapped"),
    E(hipErrorHostMemoryNotRegistered, "pointer does not correspond to a registered memory region"),
    E(hipErrorLaunchFailure, "unspecified launch failure"),
    E(hipErrorCooperativeLaunchTooLarge, "too many blocks in cooperative launch"),
    E(hipErrorNotSupported, "operation not supported"),
    E(hipErrorStreamCaptureUnsupported, "operation not permitted when stream is capturing"),
    E(hipErrorStreamCaptureInvalidated, "operation failed due to a previous error during capture"),
    E(hipErrorStreamCaptureMerge,
      "operation would result in a merge of separate capture sequences"),
    E(hipErrorStreamCaptureUnmatched, "capture was not ended in the same stream as it began"),
    E(hipErrorStreamCaptureUnjoined, "capturing stream has unjoined work"),
    E(hipErrorStreamCaptureIsolation, "dependency created on uncaptured work in another stream"),
    E(hipErrorStreamCaptureImplicit,
      "operation would make the legacy stream depend on a capturing blocking stream"),
    E(hipErrorCapturedEvent,
      "operation not permitted on an event last recorded in a capturing stream"),
    E(hipErrorStreamCaptureWrongThread,
      "attempt to terminate a thread-local capture sequence from another thread"),
    E(hipErrorGraphExecUpdateFailure,
      "the graph update was not performed because it included changes which violated constraints "
      "specific to instantiated graph update"),
    E(hipErrorUnknown, "unknown error"),
    E(hipErrorRuntimeMemory, "runtime memory call returned error"),
    E(hipErrorRuntimeOther, "runtime call other than memory returned error"),
    E(hipErrorTbd, "unknown error"),
};
#define NTABLE (sizeof table / sizeof table[0])

/* Second names of a value, which the runtime reports by the first name. */
static const char *const aliases[] = {
    "hipErrorMemoryAllocation",
    "hipErrorInitializationError",
    "hipErrorMapBufferObjectFailed",
    "hipErrorInvalidResourceHandle",
};

static int known(const char *name)
{
    for (size_t i = 0; i < NTABLE; i++)
        if (strcmp(table[i].name, name) == 0)
            return 1;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(aliases[i], name) == 0)
            return 1;
    return 0;
}

/* Every enumerator of the hipError_t enum in the header text. */
static int check_header(const char *path)
{
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    char line[512];
    int in_enum = 0, seen = 0;
    while (fgets(line, sizeof line, f)) {
        if (!in_enum) {
            in_enum = strstr(line, "enum") && strstr(line, "hipError_t");
            continue;
        }
        if (strstr(line, "} hipError_t;"))
            break;
        char *p = line;
        while (*p == ' ')
            p++;
        if (strncmp(p, "hipSuccess", 10) != 0 && strncmp(p, "hipError", 8) != 0)
            continue;
        size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
        p[n] = '\0';
        if (!known(p)) {
            fprintf(stderr, "%s is in the header but not covered\n", p);
            exit(1);
        }
        seen++;
    }
    fclose(f);
    CHECK(in_enum);
    return seen;
}

int main(int argc, char **argv)
{
    CHECK(argc == 2);
    for (size_t i = 0; i < NTABLE; i++) {
        const char *name = hipGetErrorName(table[i].code);
        const char *text = hipGetErrorString(table[i].code);
        CHECK(name != NULL && text != NULL);
        if (strcmp(name, table[i].name) != 0 || strcmp(text, table[i].text) != 0) {
            fprintf(stderr, "code %d: got %s / \"%s\", expected %s / \"%s\"\n", (int)table[i].code,
                    name, text, table[i].name, table[i].text);
            return 1;
        }
    }
    /* Values no enumerator has fall back as AMD's do. */
    int unknown = 0;
    for (int v = -2; v < 1200; v++) {
        int listed = 0;
        for (size_t i = 0; i < NTABLE; i++)
            listed |= (int)table[i].code == v;
        if (listed)
            continue;
        CHECK(strcmp(hipGetErrorName((hipError_t)v), "hipErrorUnknown") == 0);
        CHECK(strcmp(hipGetErrorString((hipError_t)v), "unknown error") == 0);
        unknown++;
    }
    CHECK(unknown > 1000);
    int declared = check_header(argv[1]);
    CHECK(declared >= (int)NTABLE);
    printf("error names: %zu codes, %d header enumerators: ok\n", NTABLE, declared);
    return 0;
}
