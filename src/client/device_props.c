/*
 * device_props.c - hipDeviceProp_t and hipDeviceGetAttribute, built from the
 * device descriptions the worker sent at connect. Attribute numbering
 * differs between HIP releases, so the wire carries named fields and the
 * mapping to this header's enum happens here, at compile time.
 */
#include <string.h>

#include "array.h"
#include "client.h"

/* The fields every layout has (HIP 5's hipDeviceProp_t, HIP 6's R0600 and
 * the R0000 ABI HIP 6 keeps): one list, expanded for each struct type. */
#define HW_FILL_COMMON_PROPS(p, d)                                                                 \
    do {                                                                                           \
        memcpy(p->name, d->name,                                                                   \
               sizeof p->name < sizeof d->name ? sizeof p->name : sizeof d->name);                 \
        p->name[sizeof p->name - 1] = '\0';                                                        \
        p->totalGlobalMem = (size_t)d->total_global_mem;                                           \
        p->sharedMemPerBlock = (size_t)d->shared_mem_per_block;                                    \
        p->regsPerBlock = d->regs_per_block;                                                       \
        p->warpSize = d->warp_size;                                                                \
        p->maxThreadsPerBlock = d->max_threads_per_block;                                          \
        p->maxThreadsDim[0] = d->max_threads_dim_x;                                                \
        p->maxThreadsDim[1] = d->max_threads_dim_y;                                                \
        p->maxThreadsDim[2] = d->max_threads_dim_z;                                                \
        p->maxGridSize[0] = d->max_grid_size_x;                                                    \
        p->maxGridSize[1] = d->max_grid_size_y;                                                    \
        p->maxGridSize[2] = d->max_grid_size_z;                                                    \
        p->clockRate = d->clock_rate_khz;                                                          \
        p->memoryClockRate = d->memory_clock_rate_khz;                                             \
        p->memoryBusWidth = d->memory_bus_width;                                                   \
        p->totalConstMem = (size_t)d->total_const_mem;                                             \
        p->major = d->major;                                                                       \
        p->minor = d->minor;                                                                       \
        p->multiProcessorCount = d->multiprocessor_count;                                          \
        p->l2CacheSize = d->l2_cache_size;                                                         \
        p->maxThreadsPerMultiProcessor = d->max_threads_per_multiprocessor;                        \
        p->computeMode = d->compute_mode;                                                          \
        p->clockInstructionRate = d->clock_rate_khz;                                               \
        p->concurrentKernels = d->concurrent_kernels;                                              \
        p->pciDomainID = d->pci_domain_id;                                                         \
        p->pciBusID = d->pci_bus_id;                                                               \
        p->pciDeviceID = d->pci_device_id;                                                         \
        p->maxSharedMemoryPerMultiProcessor = (size_t)d->shared_mem_per_multiprocessor;            \
        p->isMultiGpuBoard = d->is_multi_gpu_board;                                                \
        p->canMapHostMemory = d->can_map_host_memory;                                              \
        memcpy(p->gcnArchName, d->arch_name,                                                       \
               sizeof p->gcnArchName < sizeof d->arch_name ? sizeof p->gcnArchName                 \
                                                           : sizeof d->arch_name);                 \
        p->gcnArchName[sizeof p->gcnArchName - 1] = '\0';                                          \
        p->integrated = d->integrated;                                                             \
        p->cooperativeLaunch = d->cooperative_launch;                                              \
        p->memPitch = (size_t)d->mem_pitch;                                                        \
        p->textureAlignment = (size_t)d->texture_alignment;                                        \
        p->ECCEnabled = d->ecc_enabled;                                                            \
        p->managedMemory = d->managed_memory;                                                      \
        /* Arrays are the proxy's (array.h): its limits, whatever the GPU's. */                    \
        p->maxTexture1D = HW_ARRAY_MAX_1D;                                                         \
        p->maxTexture2D[0] = HW_ARRAY_MAX_2D_W;                                                    \
        p->maxTexture2D[1] = HW_ARRAY_MAX_2D_H;                                                    \
        p->maxTexture3D[0] = HW_ARRAY_MAX_3D_W;                                                    \
        p->maxTexture3D[1] = HW_ARRAY_MAX_3D_H;                                                    \
        p->maxTexture3D[2] = HW_ARRAY_MAX_3D_D;                                                    \
    } while (0)

void hw_props_from_devinfo(const struct hipr_devinfo *d, hipDeviceProp_t *p)
{
    memset(p, 0, sizeof *p);
    HW_FILL_COMMON_PROPS(p, d);
#if HIP_VERSION_MAJOR < 6
    p->gcnArch = d->gcn_arch; /* removed from the R0600 layout */
#endif
}

#if HIP_VERSION_MAJOR >= 6
void hw_props_r0000_from_devinfo(const struct hipr_devinfo *d, hipDeviceProp_tR0000 *p)
{
    memset(p, 0, sizeof *p);
    HW_FILL_COMMON_PROPS(p, d);
    p->gcnArch = d->gcn_arch;
}
#endif

hipError_t hw_attribute_from_devinfo(const struct hipr_devinfo *d, hipDeviceAttribute_t attr,
                                     int *value)
{
    int v;
    switch (attr) {
    case hipDeviceAttributeEccEnabled: v = d->ecc_enabled; break;
    case hipDeviceAttributeAsyncEngineCount: v = d->async_engine_count; break;
    case hipDeviceAttributeCanMapHostMemory: v = d->can_map_host_memory; break;
    case hipDeviceAttributeClockRate: v = d->clock_rate_khz; break;
    case hipDeviceAttributeClockInstructionRate: v = d->clock_rate_khz; break;
    case hipDeviceAttributeComputeMode: v = d->compute_mode; break;
    case hipDeviceAttributeConcurrentKernels: v = d->concurrent_kernels; break;
    case hipDeviceAttributeCooperativeLaunch: v = d->cooperative_launch; break;
    case hipDeviceAttributeIntegrated: v = d->integrated; break;
    case hipDeviceAttributeIsMultiGpuBoard: v = d->is_multi_gpu_board; break;
    case hipDeviceAttributeL2CacheSize: v = d->l2_cache_size; break;
    case hipDeviceAttributeComputeCapabilityMajor: v = d->major; break;
    case hipDeviceAttributeComputeCapabilityMinor: v = d->minor; break;
    case hipDeviceAttributeManagedMemory: v = d->managed_memory; break;
    case hipDeviceAttributeMaxBlockDimX: v = d->max_threads_dim_x; break;
    case hipDeviceAttributeMaxBlockDimY: v = d->max_threads_dim_y; break;
    case hipDeviceAttributeMaxBlockDimZ: v = d->max_threads_dim_z; break;
    case hipDeviceAttributeMaxGridDimX: v = d->max_grid_size_x; break;
    case hipDeviceAttributeMaxGridDimY: v = d->max_grid_size_y; break;
    case hipDeviceAttributeMaxGridDimZ: v = d->max_grid_size_z; break;
    case hipDeviceAttributeMaxThreadsPerBlock: v = d->max_threads_per_block; break;
    case hipDeviceAttributeMaxThreadsPerMultiProcessor: v = d->max_threads_per_multiprocessor; break;
    case hipDeviceAttributeMaxPitch:
        v = d->mem_pitch > INT32_MAX ? INT32_MAX : (int)d->mem_pitch;
        break;
    case hipDeviceAttributeMemoryBusWidth: v = d->memory_bus_width; break;
    case hipDeviceAttributeMemoryClockRate: v = d->memory_clock_rate_khz; break;
    case hipDeviceAttributeMultiprocessorCount: v = d->multiprocessor_count; break;
    case hipDeviceAttributePhysicalMultiProcessorCount: v = d->multiprocessor_count; break;
    case hipDeviceAttributePciBusId: v = d->pci_bus_id; break;
    case hipDeviceAttributePciDeviceId: v = d->pci_device_id; break;
    case hipDeviceAttributePciDomainID: v = d->pci_domain_id; break;
    case hipDeviceAttributeMaxRegistersPerBlock: v = d->regs_per_block; break;
    case hipDeviceAttributeMaxRegistersPerMultiprocessor: v = d->regs_per_multiprocessor; break;
    case hipDeviceAttributeMaxSharedMemoryPerBlock:
        v = (int)d->shared_mem_per_block;
        break;
    case hipDeviceAttributeSharedMemPerBlockOptin:
        v = (int)d->shared_mem_per_block_optin;
        break;
    case hipDeviceAttributeSharedMemPerMultiprocessor:
    case hipDeviceAttributeMaxSharedMemoryPerMultiprocessor:
        v = (int)d->shared_mem_per_multiprocessor;
        break;
    case hipDeviceAttributeStreamPrioritiesSupported:
        v = d->stream_priority_low != d->stream_priority_high;
        break;
    case hipDeviceAttributeTextureAlignment: v = (int)d->texture_alignment; break;
    case hipDeviceAttributeMaxTexture1DWidth: v = HW_ARRAY_MAX_1D; break;
    case hipDeviceAttributeMaxTexture2DWidth: v = HW_ARRAY_MAX_2D_W; break;
    case hipDeviceAttributeMaxTexture2DHeight: v = HW_ARRAY_MAX_2D_H; break;
    case hipDeviceAttributeMaxTexture3DWidth: v = HW_ARRAY_MAX_3D_W; break;
    case hipDeviceAttributeMaxTexture3DHeight: v = HW_ARRAY_MAX_3D_H; break;
    case hipDeviceAttributeMaxTexture3DDepth: v = HW_ARRAY_MAX_3D_D; break;
    case hipDeviceAttributeTotalConstantMemory:
        v = d->total_const_mem > INT32_MAX ? INT32_MAX : (int)d->total_const_mem;
        break;
    case hipDeviceAttributeTotalGlobalMem:
        /* An int cannot hold it; HIP saturates the same way. */
        v = d->total_global_mem > INT32_MAX ? INT32_MAX : (int)d->total_global_mem;
        break;
    case hipDeviceAttributeUnifiedAddressing: v = d->unified_addressing; break;
    case hipDeviceAttributeWarpSize: v = d->warp_size; break;
#if HIP_VERSION_MAJOR < 6 /* removed in HIP 6 with the gcnArch property */
    case hipDeviceAttributeGcnArch: v = d->gcn_arch; break;
#endif
    case hipDeviceAttributeKernelExecTimeout: v = 0; break;
    case hipDeviceAttributeHostNativeAtomicSupported: v = 0; break;
    case hipDeviceAttributeDirectManagedMemAccessFromHost: v = 0; break;
    case hipDeviceAttributeConcurrentManagedAccess: v = 0; break;
    case hipDeviceAttributePageableMemoryAccess: v = 0; break;
    case hipDeviceAttributePageableMemoryAccessUsesHostPageTables: v = 0; break;
    case hipDeviceAttributeCooperativeMultiDeviceLaunch: v = 0; break;
    case hipDeviceAttributeIsLargeBar: v = 0; break;
    case hipDeviceAttributeImageSupport: v = 0; break;
    case hipDeviceAttributeMemoryPoolsSupported: v = 0; break;
    default:
        return hipErrorInvalidValue;
    }
    *value = v;
    return hipSuccess;
}
