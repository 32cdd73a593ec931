/* Types of the HIP 7.1/7.2 API that older headers lack, so that the
 * functions using them (api_hip7.c) build in every proxy: a .so.5/.so.6
 * exports them too (at its newest node), as it does the newer _spt variants.
 * Against headers that declare them (7.1 for the stream and copy calls, 7.2
 * for libraries) the headers' own types are used. Layouts are the ones
 * ROCm 7.x documents: the stream attribute value is a 64-byte union whose
 * members all start at offset 0, the attribute ids are the CUDA values, and
 * library and kernel handles are opaque pointers (docs/exports.md, "HIP
 * 7.x"). HIP 6 headers define a smaller hipLaunchAttributeValue without the
 * policy, so the stream names are not aliases of the launch ones here. */
#ifndef HIPWIRE_CLIENT_HIP7_TYPES_H
#define HIPWIRE_CLIENT_HIP7_TYPES_H

#include <hip/hip_runtime_api.h>

#if HIP_VERSION < 70100000
typedef enum hipSynchronizationPolicy {
    hipSyncPolicyAuto = 1,
    hipSyncPolicySpin = 2,
    hipSyncPolicyYield = 3,
    hipSyncPolicyBlockingSync = 4,
} hipSynchronizationPolicy;

typedef int hipStreamAttrID;
#define hipStreamAttributeAccessPolicyWindow    1
#define hipStreamAttributeSynchronizationPolicy 3
#define hipStreamAttributePriority              8
#define hipStreamAttributeMemSyncDomainMap      9
#define hipStreamAttributeMemSyncDomain         10

typedef union hipStreamAttrValue {
    char pad[64];
    int priority;
    hipSynchronizationPolicy syncPolicy;
} hipStreamAttrValue;

/* Only passed through: the attributes are hints this proxy needs not read. */
typedef struct hipMemcpyAttributes hipMemcpyAttributes;
#endif

#if HIP_VERSION < 70200000
typedef struct hipLibrary_st *hipLibrary_t;
typedef struct hipKernel_st *hipKernel_t;
typedef enum hipLibraryOption {
    hipLibraryHostUniversalFunctionAndDataTable = 0,
    hipLibraryBinaryIsPreserved = 1,
} hipLibraryOption;
#endif

#endif
