/*
 * hw_status.h - status codes on the wire and inside the worker.
 *
 * They are hipError_t values, so a status travels from a backend to the
 * application unchanged. The worker is built without HIP headers (it must run
 * on NVIDIA-only and CPU-only hosts), so the values it needs are pinned here;
 * tests/unit/status_test.c checks them against the installed hip_runtime_api.h.
 */
#ifndef HW_STATUS_H
#define HW_STATUS_H

enum hw_status {
    HW_OK = 0,
    HW_EINVAL = 1,        /* hipErrorInvalidValue */
    HW_ENOMEM = 2,        /* hipErrorOutOfMemory */
    HW_ENOTINIT = 3,      /* hipErrorNotInitialized */
    HW_ECONFIG = 9,       /* hipErrorInvalidConfiguration */
    HW_ESYMBOL = 13,      /* hipErrorInvalidSymbol */
    HW_EDEVPTR = 17,      /* hipErrorInvalidDevicePointer */
    HW_EDIRECTION = 21,   /* hipErrorInvalidMemcpyDirection */
    HW_ENODEV = 100,      /* hipErrorNoDevice */
    HW_EDEVICE = 101,     /* hipErrorInvalidDevice */
    HW_EIMAGE = 200,      /* hipErrorInvalidImage */
    HW_ENOBINARY = 209,   /* hipErrorNoBinaryForGpu */
    HW_EKERNELFILE = 218, /* hipErrorInvalidKernelFile */
    HW_ESHAREDOBJ = 303,  /* hipErrorSharedObjectInitFailed */
    HW_EOS = 304,         /* hipErrorOperatingSystem */
    HW_EHANDLE = 400,     /* hipErrorInvalidHandle */
    HW_ENOTFOUND = 500,   /* hipErrorNotFound */
    HW_ENOTREADY = 600,   /* hipErrorNotReady */
    HW_EILLEGAL = 700,    /* hipErrorIllegalAddress */
    HW_ERESOURCES = 701,  /* hipErrorLaunchOutOfResources */
    HW_EDESTROYED = 709,  /* hipErrorContextIsDestroyed */
    HW_ELAUNCH = 719,     /* hipErrorLaunchFailure */
    HW_ENOTSUP = 801,     /* hipErrorNotSupported */
    HW_EUNKNOWN = 999,    /* hipErrorUnknown */
};

#endif
