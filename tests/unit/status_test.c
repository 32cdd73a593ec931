/* The worker's status codes are hipError_t values, its run-time compile
 * results hiprtcResult values: pinned against the installed HIP headers. */
#include <hip/hip_runtime_api.h>
#include <hip/hiprtc.h>

#include "backend.h"
#include "hw_status.h"

#define SAME(a, b) _Static_assert((int)(a) == (int)(b), #a " != " #b)
SAME(HW_OK, hipSuccess);
SAME(HW_EINVAL, hipErrorInvalidValue);
SAME(HW_ENOMEM, hipErrorOutOfMemory);
SAME(HW_ENOTINIT, hipErrorNotInitialized);
SAME(HW_ECONFIG, hipErrorInvalidConfiguration);
SAME(HW_ESYMBOL, hipErrorInvalidSymbol);
SAME(HW_EDEVPTR, hipErrorInvalidDevicePointer);
SAME(HW_EDIRECTION, hipErrorInvalidMemcpyDirection);
SAME(HW_ENODEV, hipErrorNoDevice);
SAME(HW_EDEVICE, hipErrorInvalidDevice);
SAME(HW_EIMAGE, hipErrorInvalidImage);
SAME(HW_ENOBINARY, hipErrorNoBinaryForGpu);
SAME(HW_EKERNELFILE, hipErrorInvalidKernelFile);
SAME(HW_ESHAREDOBJ, hipErrorSharedObjectInitFailed);
SAME(HW_EOS, hipErrorOperatingSystem);
SAME(HW_EHANDLE, hipErrorInvalidHandle);
SAME(HW_ENOTFOUND, hipErrorNotFound);
SAME(HW_ENOTREADY, hipErrorNotReady);
SAME(HW_EILLEGAL, hipErrorIllegalAddress);
SAME(HW_ERESOURCES, hipErrorLaunchOutOfResources);
SAME(HW_EDESTROYED, hipErrorContextIsDestroyed);
SAME(HW_ELAUNCH, hipErrorLaunchFailure);
SAME(HW_ENOTSUP, hipErrorNotSupported);
SAME(HW_EUNKNOWN, hipErrorUnknown);

/* Run-time compilation results (backend.h) are hiprtcResult values. */
SAME(HW_RTC_SUCCESS, HIPRTC_SUCCESS);
SAME(HW_RTC_OUT_OF_MEMORY, HIPRTC_ERROR_OUT_OF_MEMORY);
SAME(HW_RTC_INVALID_INPUT, HIPRTC_ERROR_INVALID_INPUT);
SAME(HW_RTC_INVALID_OPTION, HIPRTC_ERROR_INVALID_OPTION);
SAME(HW_RTC_COMPILATION, HIPRTC_ERROR_COMPILATION);
SAME(HW_RTC_INTERNAL_ERROR, HIPRTC_ERROR_INTERNAL_ERROR);

int main(void)
{
    return 0;
}
