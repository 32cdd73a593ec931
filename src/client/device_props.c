/*
 * device_props.c - hipDeviceProp_t built from the device descriptions the
 * worker sent at connect (DEVINFO) and, for the rarer facts (texture and
 * surface limits, ...), from DEVICE_ATTRIBUTES (device_attrs.c asks for
 * them). Pure conversions: nothing here calls the worker, so conn.c's HELLO
 * can use them from below the API files (docs/architecture.md, "Layers"). Attribute numbering differs between
 * HIP releases, so the wire carries named fields and the mapping to this
 * header's enum happens here, at compile time.
 *
 * Some answers are hipwire's rather than the device's: what a program on
 * the client can do with the device through the network. Host memory is
 * never coherent with device memory (no fine-grained or pageable access,
 * no host-native atomics, no large-BAR mapping), there are no images,
 * managed memory, memory pools, stream wait/write-value operations or
 * multi-device cooperative launches, so those read 0 whatever the device.
 */
#include <string.h>

#include "client.h"

/* The fields every layout has (HIP 5's hipDeviceProp_t, HIP 6's R0600 and
 * the R0000 ABI HIP 6 keeps): one list, expanded for each struct type. */
#define HW_FILL_COMMON_PROPS(p, d)                                                      \
    do {                                                                                \
        memcpy(p->name, d->name,                                                        \
               sizeof p->name < sizeof d->name ? sizeof p->name : sizeof d->name);      \
        p->name[sizeof p->name - 1] = '\0';                                             \
        p->totalGlobalMem = (size_t)d->total_global_mem;                                \
        p->sharedMemPerBlock = (size_t)d->shared_mem_per_block;                         \
        p->regsPerBlock = d->regs_per_block;                                            \
        p->warpSize = d->warp_size;                                                     \
        p->maxThreadsPerBlock = d->max_threads_per_block;                               \
        p->maxThreadsDim[0] = d->max_threads_dim_x;                                     \
        p->maxThreadsDim[1] = d->max_threads_dim_y;                                     \
        p->maxThreadsDim[2] = d->max_threads_dim_z;                                     \
        p->maxGridSize[0] = d->max_grid_size_x;                                         \
        p->maxGridSize[1] = d->max_grid_size_y;                                         \
        p->maxGridSize[2] = d->max_grid_size_z;                                         \
        p->clockRate = d->clock_rate_khz;                                               \
        p->memoryClockRate = d->memory_clock_rate_khz;                                  \
        p->memoryBusWidth = d->memory_bus_width;                                        \
        p->totalConstMem = (size_t)d->total_const_mem;                                  \
        p->major = d->major;                                                            \
        p->minor = d->minor;                                                            \
        p->multiProcessorCount = d->multiprocessor_count;                               \
        p->l2CacheSize = d->l2_cache_size;                                              \
        p->maxThreadsPerMultiProcessor = d->max_threads_per_multiprocessor;             \
        p->computeMode = d->compute_mode;                                               \
        p->clockInstructionRate = d->clock_rate_khz;                                    \
        p->concurrentKernels = d->concurrent_kernels;                                   \
        p->pciDomainID = d->pci_domain_id;                                              \
        p->pciBusID = d->pci_bus_id;                                                    \
        p->pciDeviceID = d->pci_device_id;                                              \
        p->maxSharedMemoryPerMultiProcessor = (size_t)d->shared_mem_per_multiprocessor; \
        p->isMultiGpuBoard = d->is_multi_gpu_board;                                     \
        p->canMapHostMemory = d->can_map_host_memory;                                   \
        memcpy(p->gcnArchName, d->arch_name,                                            \
               sizeof p->gcnArchName < sizeof d->arch_name ? sizeof p->gcnArchName      \
                                                           : sizeof d->arch_name);      \
        p->gcnArchName[sizeof p->gcnArchName - 1] = '\0';                               \
        p->integrated = d->integrated;                                                  \
        p->cooperativeLaunch = d->cooperative_launch;                                   \
        p->memPitch = (size_t)d->mem_pitch;                                             \
        p->textureAlignment = (size_t)d->texture_alignment;                             \
        p->ECCEnabled = d->ecc_enabled;                                                 \
        p->managedMemory = d->managed_memory;                                           \
    } while (0)

/* hipDeviceArch_t from DEVICE_ATTRIBUTES' arch bits. */
hipDeviceArch_t hw_device_arch(uint32_t bits)
{
    hipDeviceArch_t a;
    memset(&a, 0, sizeof a);
    a.hasGlobalInt32Atomics = !!(bits & HIPR_ARCH_GLOBAL_INT32_ATOMICS);
    a.hasGlobalFloatAtomicExch = !!(bits & HIPR_ARCH_GLOBAL_FLOAT_ATOMIC_EXCH);
    a.hasSharedInt32Atomics = !!(bits & HIPR_ARCH_SHARED_INT32_ATOMICS);
    a.hasSharedFloatAtomicExch = !!(bits & HIPR_ARCH_SHARED_FLOAT_ATOMIC_EXCH);
    a.hasFloatAtomicAdd = !!(bits & HIPR_ARCH_FLOAT_ATOMIC_ADD);
    a.hasGlobalInt64Atomics = !!(bits & HIPR_ARCH_GLOBAL_INT64_ATOMICS);
    a.hasSharedInt64Atomics = !!(bits & HIPR_ARCH_SHARED_INT64_ATOMICS);
    a.hasDoubles = !!(bits & HIPR_ARCH_DOUBLES);
    a.hasWarpVote = !!(bits & HIPR_ARCH_WARP_VOTE);
    a.hasWarpBallot = !!(bits & HIPR_ARCH_WARP_BALLOT);
    a.hasWarpShuffle = !!(bits & HIPR_ARCH_WARP_SHUFFLE);
    a.hasFunnelShift = !!(bits & HIPR_ARCH_FUNNEL_SHIFT);
    a.hasThreadFenceSystem = !!(bits & HIPR_ARCH_THREAD_FENCE_SYSTEM);
    a.hasSyncThreadsExt = !!(bits & HIPR_ARCH_SYNC_THREADS_EXT);
    a.hasSurfaceFuncs = !!(bits & HIPR_ARCH_SURFACE_FUNCS);
    a.has3dGrid = !!(bits & HIPR_ARCH_3D_GRID);
    a.hasDynamicParallelism = !!(bits & HIPR_ARCH_DYNAMIC_PARALLELISM);
    return a;
}

void hw_props_from_devinfo(const struct hipr_devinfo *d, hipDeviceProp_t *p)
{
    memset(p, 0, sizeof *p);
    HW_FILL_COMMON_PROPS(p, d);
#if HIP_VERSION_MAJOR < 6
    p->gcnArch = d->gcn_arch; /* removed from the R0600 layout */
#endif
}

/* The fields DEVICE_ATTRIBUTES fills, in every layout. Multi-device
 * cooperative launches, HDP registers, large BAR and host-coherent managed
 * or pageable memory stay 0 (see the top of this file). */
#define HW_FILL_DEVATTR_PROPS(p, e)                                    \
    do {                                                               \
        p->maxTexture1DLinear = e->max_texture_1d_linear;              \
        p->maxTexture1D = e->max_texture_1d;                           \
        p->maxTexture2D[0] = e->max_texture_2d_width;                  \
        p->maxTexture2D[1] = e->max_texture_2d_height;                 \
        p->maxTexture3D[0] = e->max_texture_3d_width;                  \
        p->maxTexture3D[1] = e->max_texture_3d_height;                 \
        p->maxTexture3D[2] = e->max_texture_3d_depth;                  \
        p->texturePitchAlignment = (size_t)e->texture_pitch_alignment; \
        p->kernelExecTimeoutEnabled = e->kernel_exec_timeout;          \
        p->tccDriver = e->tcc_driver;                                  \
        p->asicRevision = e->asic_revision;                            \
        p->arch = hw_device_arch(e->arch);                             \
    } while (0)

void hw_props_add_devattr(const struct hipr_devattr *e, hipDeviceProp_t *p)
{
    HW_FILL_DEVATTR_PROPS(p, e);
}

#if HIP_VERSION_MAJOR >= 6
void hw_props_r0000_from_devinfo(const struct hipr_devinfo *d, const struct hipr_devattr *e,
                                 hipDeviceProp_tR0000 *p)
{
    memset(p, 0, sizeof *p);
    HW_FILL_COMMON_PROPS(p, d);
    HW_FILL_DEVATTR_PROPS(p, e);
    p->gcnArch = d->gcn_arch;
}
#endif
