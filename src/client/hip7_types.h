/* Types of the HIP 7.1/7.2 API that older headers lack, so that the
 * functions using them (api_hip7.c) build in every proxy: a .so.5/.so.6
 * exports them too (at its newest node), as it does the newer _spt variants.
 * Against headers that declare them (HIP 7.1 and later) the headers' own
 * types are used. Layouts are the ones ROCm 7.x documents: the attribute
 * value is a 64-byte union whose members all start at offset 0, the
 * attribute ids are the CUDA values, and the library and kernel handles
 * are opaque pointers (docs/exports.md, "HIP 7.x"). */
#ifndef HIPWIRE_CLIENT_HIP7_TYPES_H
#define HIPWIRE_CLIENT_HIP7_TYPES_H

#include <hip/hip_runtime_api.h>

#if HIP_VERSION_MAJOR < 7
typedef enum hipLaunchAttributeID {
    hipLaunchAttributeAccessPolicyWindow = 1,
    hipLaunchAttributeCooperative = 2,
    hipLaunchAttributeSynchronizationPolicy = 3,
    hipLaunchAttributePriority = 8,
    hipLaunchAttributeMemSyncDomainMap = 9,
    hipLaunchAttributeMemSyncDomain = 10,
} hipLaunchAttributeID;

typedef enum hipSynchronizationPolicy {
    hipSyncPolicyAuto = 1,
    hipSyncPolicySpin = 2,
    hipSyncPolicyYield = 3,
    hipSyncPolicyBlockingSync = 4,
} hipSynchronizationPolicy;

typedef union hipLaunchAttributeValue {
    char pad[64];
    int priority;
    hipSynchronizationPolicy syncPolicy;
} hipLaunchAttributeValue;

typedef hipLaunchAttributeID hipStreamAttrID;
typedef hipLaunchAttributeValue hipStreamAttrValue;
#define hipStreamAttributeSynchronizationPolicy hipLaunchAttributeSynchronizationPolicy
#define hipStreamAttributePriority              hipLaunchAttributePriority

/* Only passed through: the attributes are hints this proxy needs not read. */
typedef struct hipMemcpyAttributes hipMemcpyAttributes;

typedef struct hipLibrary_st *hipLibrary_t;
typedef struct hipKernel_st *hipKernel_t;
typedef enum hipLibraryOption {
    hipLibraryHostUniversalFunctionAndDataTable = 0,
    hipLibraryBinaryIsPreserved = 1,
} hipLibraryOption;
#endif

#endif
