/*
 * device_attrs.c - hipDeviceGetAttribute and the DEVICE_ATTRIBUTES request
 * behind it, asked once per device on first use; the conversions are
 * device_props.c's.
 */
#include <string.h>

#include "client.h"

/* DEVICE_ATTRIBUTES answers, per device, asked once. A worker that does not
 * know the request (an older one) leaves them 0. */
static pthread_mutex_t attrs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hipr_devattr attrs[HIPR_CAP_DEVICES];
static int attrs_known[HIPR_CAP_DEVICES];

hipError_t hw_device_attrs(struct hw_conn *c, int dev, struct hipr_devattr *out)
{
    hipError_t err = hipSuccess;
    pthread_mutex_lock(&attrs_lock);
    if (!attrs_known[dev]) {
        struct hipr_device m = { .device = hw_wire_device(dev) };
        uint8_t buf[HIPR_device_SIZE], body[HIPR_devattr_SIZE];
        hipr_device_encode(buf, &m);
        err = hw_call(c, HIPR_OP_DEVICE_ATTRIBUTES, buf, sizeof buf, NULL, 0, body, sizeof body,
                      NULL, 0, NULL);
        if (err == hipSuccess)
            hipr_devattr_decode(body, sizeof body, &attrs[dev]);
        else if (err == hipErrorNotSupported)
            err = hipSuccess;
        attrs_known[dev] = err == hipSuccess;
    }
    if (err == hipSuccess)
        *out = attrs[dev];
    pthread_mutex_unlock(&attrs_lock);
    return err;
}

hipError_t hw_device_attribute(struct hw_conn *c, int dev, hipDeviceAttribute_t attr, int *value)
{
    const struct hipr_devinfo *d = &c->devs[dev];
    struct hipr_devattr ext, *e = NULL;
    hipError_t err;
    int v;
/* The rarer facts come from DEVICE_ATTRIBUTES, fetched on first use. */
#define HW_EXT(field)                                                  \
    do {                                                               \
        if (!e && (err = hw_device_attrs(c, dev, &ext)) != hipSuccess) \
            return err;                                                \
        e = &ext;                                                      \
        v = e->field;                                                  \
    } while (0)
    switch (attr) {
    case hipDeviceAttributeEccEnabled: v = d->ecc_enabled; break;
    case hipDeviceAttributeAccessPolicyMaxWindowSize: HW_EXT(access_policy_max_window_size); break;
    case hipDeviceAttributeAsyncEngineCount: v = d->async_engine_count; break;
    case hipDeviceAttributeCanMapHostMemory: v = d->can_map_host_memory; break;
    case hipDeviceAttributeCanUseHostPointerForRegisteredMem: v = 0; break;
    case hipDeviceAttributeClockRate: v = d->clock_rate_khz; break;
    case hipDeviceAttributeComputeMode: v = d->compute_mode; break;
    case hipDeviceAttributeComputePreemptionSupported: HW_EXT(compute_preemption_supported); break;
    case hipDeviceAttributeConcurrentKernels: v = d->concurrent_kernels; break;
    case hipDeviceAttributeConcurrentManagedAccess: v = 0; break;
    case hipDeviceAttributeCooperativeLaunch: v = d->cooperative_launch; break;
    case hipDeviceAttributeCooperativeMultiDeviceLaunch: v = 0; break;
    case hipDeviceAttributeDeviceOverlap: v = d->async_engine_count > 0; break; /* as AMD */
    case hipDeviceAttributeDirectManagedMemAccessFromHost: v = 0; break;
    case hipDeviceAttributeGlobalL1CacheSupported: HW_EXT(global_l1_cache_supported); break;
    case hipDeviceAttributeHostNativeAtomicSupported: v = 0; break;
    case hipDeviceAttributeIntegrated: v = d->integrated; break;
    case hipDeviceAttributeIsMultiGpuBoard: v = d->is_multi_gpu_board; break;
    case hipDeviceAttributeKernelExecTimeout: HW_EXT(kernel_exec_timeout); break;
    case hipDeviceAttributeL2CacheSize: v = d->l2_cache_size; break;
    case hipDeviceAttributeLocalL1CacheSupported: HW_EXT(local_l1_cache_supported); break;
    /* Windows-only identifiers; undefined, and 0, elsewhere. */
    case hipDeviceAttributeLuid: v = 0; break;
    case hipDeviceAttributeLuidDeviceNodeMask: v = 0; break;
    case hipDeviceAttributeComputeCapabilityMajor: v = d->major; break;
    case hipDeviceAttributeManagedMemory: v = d->managed_memory; break;
    case hipDeviceAttributeMaxBlocksPerMultiProcessor: HW_EXT(max_blocks_per_multiprocessor); break;
    case hipDeviceAttributeMaxBlockDimX: v = d->max_threads_dim_x; break;
    case hipDeviceAttributeMaxBlockDimY: v = d->max_threads_dim_y; break;
    case hipDeviceAttributeMaxBlockDimZ: v = d->max_threads_dim_z; break;
    case hipDeviceAttributeMaxGridDimX: v = d->max_grid_size_x; break;
    case hipDeviceAttributeMaxGridDimY: v = d->max_grid_size_y; break;
    case hipDeviceAttributeMaxGridDimZ: v = d->max_grid_size_z; break;
    /* An int holds one extent: 2D and 3D limits answer their width. */
    case hipDeviceAttributeMaxSurface1D: HW_EXT(max_surface_1d); break;
    case hipDeviceAttributeMaxSurface1DLayered: HW_EXT(max_surface_1d_layered); break;
    case hipDeviceAttributeMaxSurface2D: HW_EXT(max_surface_2d); break;
    case hipDeviceAttributeMaxSurface2DLayered: HW_EXT(max_surface_2d_layered); break;
    case hipDeviceAttributeMaxSurface3D: HW_EXT(max_surface_3d); break;
    case hipDeviceAttributeMaxSurfaceCubemap: HW_EXT(max_surface_cubemap); break;
    case hipDeviceAttributeMaxSurfaceCubemapLayered: HW_EXT(max_surface_cubemap_layered); break;
    case hipDeviceAttributeMaxTexture1DWidth: HW_EXT(max_texture_1d); break;
    case hipDeviceAttributeMaxTexture1DLayered: HW_EXT(max_texture_1d_layered); break;
    case hipDeviceAttributeMaxTexture1DLinear: HW_EXT(max_texture_1d_linear); break;
    case hipDeviceAttributeMaxTexture1DMipmap: HW_EXT(max_texture_1d_mipmap); break;
    case hipDeviceAttributeMaxTexture2DWidth: HW_EXT(max_texture_2d_width); break;
    case hipDeviceAttributeMaxTexture2DHeight: HW_EXT(max_texture_2d_height); break;
    case hipDeviceAttributeMaxTexture2DGather: HW_EXT(max_texture_2d_gather); break;
    case hipDeviceAttributeMaxTexture2DLayered: HW_EXT(max_texture_2d_layered); break;
    case hipDeviceAttributeMaxTexture2DLinear: HW_EXT(max_texture_2d_linear); break;
    case hipDeviceAttributeMaxTexture2DMipmap: HW_EXT(max_texture_2d_mipmap); break;
    case hipDeviceAttributeMaxTexture3DWidth: HW_EXT(max_texture_3d_width); break;
    case hipDeviceAttributeMaxTexture3DHeight: HW_EXT(max_texture_3d_height); break;
    case hipDeviceAttributeMaxTexture3DDepth: HW_EXT(max_texture_3d_depth); break;
    case hipDeviceAttributeMaxTexture3DAlt: HW_EXT(max_texture_3d_alt); break;
    case hipDeviceAttributeMaxTextureCubemap: HW_EXT(max_texture_cubemap); break;
    case hipDeviceAttributeMaxTextureCubemapLayered: HW_EXT(max_texture_cubemap_layered); break;
    case hipDeviceAttributeMaxThreadsDim: v = d->max_threads_dim_x; break;
    case hipDeviceAttributeMaxThreadsPerBlock: v = d->max_threads_per_block; break;
    case hipDeviceAttributeMaxThreadsPerMultiProcessor:
        v = d->max_threads_per_multiprocessor;
        break;
    case hipDeviceAttributeMaxPitch:
        v = d->mem_pitch > INT32_MAX ? INT32_MAX : (int)d->mem_pitch;
        break;
    case hipDeviceAttributeMemoryBusWidth: v = d->memory_bus_width; break;
    case hipDeviceAttributeMemoryClockRate: v = d->memory_clock_rate_khz; break;
    case hipDeviceAttributeComputeCapabilityMinor: v = d->minor; break;
    case hipDeviceAttributeMultiGpuBoardGroupID: HW_EXT(multi_gpu_board_group_id); break;
    case hipDeviceAttributeMultiprocessorCount: v = d->multiprocessor_count; break;
    case hipDeviceAttributePageableMemoryAccess: v = 0; break;
    case hipDeviceAttributePageableMemoryAccessUsesHostPageTables: v = 0; break;
    case hipDeviceAttributePciBusId: v = d->pci_bus_id; break;
    case hipDeviceAttributePciDeviceId: v = d->pci_device_id; break;
    case hipDeviceAttributePciDomainID: v = d->pci_domain_id; break;
    case hipDeviceAttributePersistingL2CacheMaxSize: HW_EXT(persisting_l2_cache_max_size); break;
    case hipDeviceAttributeMaxRegistersPerBlock: v = d->regs_per_block; break;
    case hipDeviceAttributeMaxRegistersPerMultiprocessor: v = d->regs_per_multiprocessor; break;
    case hipDeviceAttributeReservedSharedMemPerBlock: HW_EXT(reserved_shared_mem_per_block); break;
    case hipDeviceAttributeMaxSharedMemoryPerBlock: v = (int)d->shared_mem_per_block; break;
    case hipDeviceAttributeSharedMemPerBlockOptin: v = (int)d->shared_mem_per_block_optin; break;
    case hipDeviceAttributeSharedMemPerMultiprocessor:
    case hipDeviceAttributeMaxSharedMemoryPerMultiprocessor:
        v = (int)d->shared_mem_per_multiprocessor;
        break;
    case hipDeviceAttributeSingleToDoublePrecisionPerfRatio:
        HW_EXT(single_to_double_precision_perf_ratio);
        break;
    case hipDeviceAttributeStreamPrioritiesSupported:
        v = d->stream_priority_low != d->stream_priority_high;
        break;
    case hipDeviceAttributeSurfaceAlignment: HW_EXT(surface_alignment); break;
    case hipDeviceAttributeTccDriver: HW_EXT(tcc_driver); break;
    case hipDeviceAttributeTextureAlignment: v = (int)d->texture_alignment; break;
    case hipDeviceAttributeTexturePitchAlignment: HW_EXT(texture_pitch_alignment); break;
    case hipDeviceAttributeTotalConstantMemory:
        v = d->total_const_mem > INT32_MAX ? INT32_MAX : (int)d->total_const_mem;
        break;
    case hipDeviceAttributeTotalGlobalMem:
        /* An int cannot hold it; HIP saturates the same way. */
        v = d->total_global_mem > INT32_MAX ? INT32_MAX : (int)d->total_global_mem;
        break;
    case hipDeviceAttributeUnifiedAddressing: v = d->unified_addressing; break;
    case hipDeviceAttributeWarpSize: v = d->warp_size; break;
    case hipDeviceAttributeMemoryPoolsSupported: v = 0; break;
    case hipDeviceAttributeClockInstructionRate: v = d->clock_rate_khz; break;
#if HIP_VERSION_MAJOR < 6 /* removed in HIP 6 (with the gcnArch property) */
    case hipDeviceAttributeArch: {
        HW_EXT(arch);
        hipDeviceArch_t a = hw_device_arch(e->arch);
        _Static_assert(sizeof a == sizeof v, "hipDeviceArch_t is one int of bits");
        memcpy(&v, &a, sizeof v);
        break;
    }
    case hipDeviceAttributeGcnArch: v = d->gcn_arch; break;
#else /* added in HIP 6 */
    case hipDeviceAttributeWallClockRate: v = d->clock_rate_khz; break;
    case hipDeviceAttributeHostRegisterSupported:
        v = 0;
        break; /* no device access to client memory */
    case hipDeviceAttributeMemoryPoolSupportedHandleTypes: v = 0; break;
    case hipDeviceAttributeVirtualMemoryManagementSupported: v = 0; break;
#endif
    /* AMD writes a register address here, a whole pointer; there is none. */
    case hipDeviceAttributeHdpMemFlushCntl:
    case hipDeviceAttributeHdpRegFlushCntl: {
        unsigned int *none = NULL;
        memcpy(value, &none, sizeof none);
        return hipSuccess;
    }
    case hipDeviceAttributeCooperativeMultiDeviceUnmatchedFunc:
    case hipDeviceAttributeCooperativeMultiDeviceUnmatchedGridDim:
    case hipDeviceAttributeCooperativeMultiDeviceUnmatchedBlockDim:
    case hipDeviceAttributeCooperativeMultiDeviceUnmatchedSharedMem: v = 0; break;
    case hipDeviceAttributeIsLargeBar: v = 0; break;
    case hipDeviceAttributeAsicRevision: HW_EXT(asic_revision); break;
    case hipDeviceAttributeCanUseStreamWaitValue:
        /* 0 although the cpu and cuda backends run hipStreamWaitValue and
         * WriteValue on device memory (api_stream_value.c): what programs
         * that ask do with them is wait on host memory (registered or signal
         * memory), which lives in the client, out of the worker's reach. */
        v = 0;
        break;
    case hipDeviceAttributeImageSupport: v = 0; break;
    case hipDeviceAttributePhysicalMultiProcessorCount: v = d->multiprocessor_count; break;
    case hipDeviceAttributeFineGrainSupport:
        v = 0;
        break;
        /* A name, an arch name and a UUID do not fit an int: hipDeviceGetName,
     * hipDeviceProp_t.gcnArchName and hipDeviceGetUuid give them. AMD
     * refuses these the same way. */
#if HIP_VERSION_MAJOR < 6
    case hipDeviceAttributeName:
    case hipDeviceAttributeGcnArchName:
    case hipDeviceAttributeUuid:
#endif
    default: return hipErrorInvalidValue;
    }
#undef HW_EXT
    *value = v;
    return hipSuccess;
}
