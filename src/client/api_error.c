/*
 * api_error.c - hipGetErrorName / hipGetErrorString, answered locally with
 * the names and texts AMD's runtime gives (clr hip_error.cpp), so programs
 * that compare or log them see what they would on ROCm.
 */
#include "client.h"

/* Every hipError_t of the HIP 5 headers (aliases such as
 * hipErrorMemoryAllocation share their value's row). hipErrorTbd is a
 * marker AMD names but gives no text. */
#define HW_ERRORS(X)                                                                               \
    X(hipSuccess, "no error")                                                                      \
    X(hipErrorInvalidValue, "invalid argument")                                                    \
    X(hipErrorOutOfMemory, "out of memory")                                                        \
    X(hipErrorNotInitialized, "initialization error")                                              \
    X(hipErrorDeinitialized, "driver shutting down")                                               \
    X(hipErrorProfilerDisabled, "profiler disabled while using external profiling tool")           \
    X(hipErrorProfilerNotInitialized, "profiler is not initialized")                               \
    X(hipErrorProfilerAlreadyStarted, "profiler already started")                                  \
    X(hipErrorProfilerAlreadyStopped, "profiler already stopped")                                  \
    X(hipErrorInvalidConfiguration, "invalid configuration argument")                              \
    X(hipErrorInvalidPitchValue, "invalid pitch argument")                                         \
    X(hipErrorInvalidSymbol, "invalid device symbol")                                              \
    X(hipErrorInvalidDevicePointer, "invalid device pointer")                                      \
    X(hipErrorInvalidMemcpyDirection, "invalid copy direction for memcpy")                         \
    X(hipErrorInsufficientDriver, "driver version is insufficient for runtime version")            \
    X(hipErrorMissingConfiguration, "__global__ function call is not configured")                  \
    X(hipErrorPriorLaunchFailure, "unspecified launch failure in prior launch")                    \
    X(hipErrorInvalidDeviceFunction, "invalid device function")                                    \
    X(hipErrorNoDevice, "no ROCm-capable device is detected")                                      \
    X(hipErrorInvalidDevice, "invalid device ordinal")                                             \
    X(hipErrorInvalidImage, "device kernel image is invalid")                                      \
    X(hipErrorInvalidContext, "invalid device context")                                            \
    X(hipErrorContextAlreadyCurrent, "context is already current context")                         \
    X(hipErrorMapFailed, "mapping of buffer object failed")                                        \
    X(hipErrorUnmapFailed, "unmapping of buffer object failed")                                    \
    X(hipErrorArrayIsMapped, "array is mapped")                                                    \
    X(hipErrorAlreadyMapped, "resource already mapped")                                            \
    X(hipErrorNoBinaryForGpu, "no kernel image is available for execution on the device")          \
    X(hipErrorAlreadyAcquired, "resource already acquired")                                        \
    X(hipErrorNotMapped, "resource not mapped")                                                    \
    X(hipErrorNotMappedAsArray, "resource not mapped as array")                                    \
    X(hipErrorNotMappedAsPointer, "resource not mapped as pointer")                                \
    X(hipErrorECCNotCorrectable, "uncorrectable ECC error encountered")                            \
    X(hipErrorUnsupportedLimit, "limit is not supported on this architecture")                     \
    X(hipErrorContextAlreadyInUse, "exclusive-thread device already in use by a different thread") \
    X(hipErrorPeerAccessUnsupported, "peer access is not supported between these two devices")     \
    X(hipErrorInvalidKernelFile, "invalid kernel file")                                            \
    X(hipErrorInvalidGraphicsContext, "invalid OpenGL or DirectX context")                         \
    X(hipErrorInvalidSource, "device kernel image is invalid")                                     \
    X(hipErrorFileNotFound, "file not found")                                                      \
    X(hipErrorSharedObjectSymbolNotFound, "shared object symbol not found")                        \
    X(hipErrorSharedObjectInitFailed, "shared object initialization failed")                       \
    X(hipErrorOperatingSystem, "OS call failed or operation not supported on this OS")             \
    X(hipErrorInvalidHandle, "invalid resource handle")                                            \
    X(hipErrorIllegalState, "the operation cannot be performed in the present state")              \
    X(hipErrorNotFound, "named symbol not found")                                                  \
    X(hipErrorNotReady, "device not ready")                                                        \
    X(hipErrorIllegalAddress, "an illegal memory access was encountered")                          \
    X(hipErrorLaunchOutOfResources, "too many resources requested for launch")                     \
    X(hipErrorLaunchTimeOut, "the launch timed out and was terminated")                            \
    X(hipErrorPeerAccessAlreadyEnabled, "peer access is already enabled")                          \
    X(hipErrorPeerAccessNotEnabled, "peer access has not been enabled")                            \
    X(hipErrorSetOnActiveProcess, "cannot set while device is active in this process")             \
    X(hipErrorContextIsDestroyed, "context is destroyed")                                          \
    X(hipErrorAssert, "device-side assert triggered")                                              \
    X(hipErrorHostMemoryAlreadyRegistered,                                                         \
      "part or all of the requested memory range is already mapped")                               \
    X(hipErrorHostMemoryNotRegistered,                                                             \
      "pointer does not correspond to a registered memory region")                                 \
    X(hipErrorLaunchFailure, "unspecified launch failure")                                         \
    X(hipErrorCooperativeLaunchTooLarge, "too many blocks in cooperative launch")                  \
    X(hipErrorNotSupported, "operation not supported")                                             \
    X(hipErrorStreamCaptureUnsupported, "operation not permitted when stream is capturing")        \
    X(hipErrorStreamCaptureInvalidated, "operation failed due to a previous error during capture") \
    X(hipErrorStreamCaptureMerge,                                                                  \
      "operation would result in a merge of separate capture sequences")                           \
    X(hipErrorStreamCaptureUnmatched, "capture was not ended in the same stream as it began")      \
    X(hipErrorStreamCaptureUnjoined, "capturing stream has unjoined work")                         \
    X(hipErrorStreamCaptureIsolation, "dependency created on uncaptured work in another stream")   \
    X(hipErrorStreamCaptureImplicit,                                                               \
      "operation would make the legacy stream depend on a capturing blocking stream")              \
    X(hipErrorCapturedEvent,                                                                       \
      "operation not permitted on an event last recorded in a capturing stream")                   \
    X(hipErrorStreamCaptureWrongThread,                                                            \
      "attempt to terminate a thread-local capture sequence from another thread")                  \
    X(hipErrorGraphExecUpdateFailure,                                                              \
      "the graph update was not performed because it included changes which violated "             \
      "constraints specific to instantiated graph update")                                         \
    X(hipErrorUnknown, "unknown error")                                                            \
    X(hipErrorRuntimeMemory, "runtime memory call returned error")                                 \
    X(hipErrorRuntimeOther, "runtime call other than memory returned error")                       \
    X(hipErrorTbd, "unknown error")

HW_EXPORT const char *hipGetErrorName(hipError_t err)
{
    switch (err) {
#define HW_ERROR_NAME_(e, text) \
    case e: return #e;
        HW_ERRORS(HW_ERROR_NAME_)
#undef HW_ERROR_NAME_
    default: return "hipErrorUnknown";
    }
}

HW_EXPORT const char *hipGetErrorString(hipError_t err)
{
    switch (err) {
#define HW_ERROR_TEXT_(e, text) \
    case e: return text;
        HW_ERRORS(HW_ERROR_TEXT_)
#undef HW_ERROR_TEXT_
    default: return "unknown error";
    }
}
