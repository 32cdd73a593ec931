/* api_error.c - hipGetErrorName / hipGetErrorString, answered locally. */
#include "client.h"

#define HW_ERRORS(X)                                                                   \
    X(hipSuccess, "no error")                                                          \
    X(hipErrorInvalidValue, "invalid argument")                                        \
    X(hipErrorOutOfMemory, "out of memory")                                            \
    X(hipErrorNotInitialized, "initialization error (is hip-worker reachable?)")       \
    X(hipErrorDeinitialized, "driver shutting down")                                   \
    X(hipErrorInvalidConfiguration, "invalid configuration argument")                  \
    X(hipErrorInvalidPitchValue, "invalid pitch argument")                             \
    X(hipErrorInvalidSymbol, "invalid device symbol")                                  \
    X(hipErrorInvalidDevicePointer, "invalid device pointer")                          \
    X(hipErrorInvalidMemcpyDirection, "invalid copy direction for memcpy")             \
    X(hipErrorNoDevice, "no ROCm-capable device is detected")                          \
    X(hipErrorInvalidDevice, "invalid device ordinal")                                 \
    X(hipErrorInvalidImage, "device kernel image is invalid")                          \
    X(hipErrorInvalidContext, "invalid device context")                                \
    X(hipErrorNoBinaryForGpu, "no kernel image is available for execution on the device") \
    X(hipErrorInvalidKernelFile, "invalid kernel file")                                \
    X(hipErrorSharedObjectInitFailed, "shared object initialization failed")           \
    X(hipErrorOperatingSystem, "OS call failed or operation not supported on this OS") \
    X(hipErrorInvalidHandle, "invalid resource handle")                                \
    X(hipErrorNotFound, "named symbol not found")                                      \
    X(hipErrorNotReady, "device not ready")                                            \
    X(hipErrorIllegalAddress, "an illegal memory access was encountered")              \
    X(hipErrorLaunchOutOfResources, "too many resources requested for launch")         \
    X(hipErrorContextIsDestroyed, "context is destroyed")                              \
    X(hipErrorLaunchFailure, "unspecified launch failure")                             \
    X(hipErrorInvalidDeviceFunction, "invalid device function")                        \
    X(hipErrorNotSupported, "operation not supported")                                 \
    X(hipErrorPeerAccessNotEnabled, "peer access is not enabled")                      \
    X(hipErrorPeerAccessAlreadyEnabled, "peer access is already enabled")              \
    X(hipErrorUnknown, "unknown error")

HW_EXPORT const char *hipGetErrorName(hipError_t err)
{
    switch (err) {
#define HW_ERROR_NAME_(e, text) case e: return #e;
        HW_ERRORS(HW_ERROR_NAME_)
#undef HW_ERROR_NAME_
    default:
        return "hipErrorUnknown";
    }
}

HW_EXPORT const char *hipGetErrorString(hipError_t err)
{
    switch (err) {
#define HW_ERROR_TEXT_(e, text) case e: return text;
        HW_ERRORS(HW_ERROR_TEXT_)
#undef HW_ERROR_TEXT_
    default:
        return "unknown error";
    }
}
