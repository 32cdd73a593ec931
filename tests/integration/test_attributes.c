/*
 * test_attributes.c - hipDeviceGetAttribute answers every attribute of the
 * HIP 5 enum (argv[1], hip_runtime_api.h, is read to check that this list
 * is the whole enum), refuses values outside it with hipErrorInvalidValue,
 * agrees with hipDeviceProp_t, and gives the values docs/backend-cpu.md and
 * docs/client.md document for the CPU device and for what hipwire cannot do.
 */
#include <stdio.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

#include "testutil.h"

struct attr {
    hipDeviceAttribute_t a;
    const char *name;
};

#define A(x) { x, #x },
static const struct attr all[] = {
    A(hipDeviceAttributeEccEnabled) A(hipDeviceAttributeAccessPolicyMaxWindowSize) A(
        hipDeviceAttributeAsyncEngineCount) A(hipDeviceAttributeCanMapHostMemory)
        A(hipDeviceAttributeCanUseHostPointerForRegisteredMem) A(hipDeviceAttributeClockRate) A(
            hipDeviceAttributeComputeMode) A(hipDeviceAttributeComputePreemptionSupported)
            A(hipDeviceAttributeConcurrentKernels) A(hipDeviceAttributeConcurrentManagedAccess) A(
                hipDeviceAttributeCooperativeLaunch) A(hipDeviceAttributeCooperativeMultiDeviceLaunch)
                A(hipDeviceAttributeDeviceOverlap) A(hipDeviceAttributeDirectManagedMemAccessFromHost) A(
                    hipDeviceAttributeGlobalL1CacheSupported)
                    A(hipDeviceAttributeHostNativeAtomicSupported) A(hipDeviceAttributeIntegrated) A(
                        hipDeviceAttributeIsMultiGpuBoard) A(hipDeviceAttributeKernelExecTimeout)
                        A(hipDeviceAttributeL2CacheSize) A(hipDeviceAttributeLocalL1CacheSupported) A(
                            hipDeviceAttributeLuid) A(hipDeviceAttributeLuidDeviceNodeMask)
                            A(hipDeviceAttributeComputeCapabilityMajor) A(
                                hipDeviceAttributeManagedMemory)
                                A(hipDeviceAttributeMaxBlocksPerMultiProcessor) A(
                                    hipDeviceAttributeMaxBlockDimX) A(hipDeviceAttributeMaxBlockDimY)
                                    A(hipDeviceAttributeMaxBlockDimZ) A(hipDeviceAttributeMaxGridDimX) A(
                                        hipDeviceAttributeMaxGridDimY) A(hipDeviceAttributeMaxGridDimZ)
                                        A(hipDeviceAttributeMaxSurface1D) A(
                                            hipDeviceAttributeMaxSurface1DLayered) A(hipDeviceAttributeMaxSurface2D)
                                            A(hipDeviceAttributeMaxSurface2DLayered) A(
                                                hipDeviceAttributeMaxSurface3D) A(hipDeviceAttributeMaxSurfaceCubemap)
                                                A(hipDeviceAttributeMaxSurfaceCubemapLayered) A(
                                                    hipDeviceAttributeMaxTexture1DWidth) A(hipDeviceAttributeMaxTexture1DLayered)
                                                    A(hipDeviceAttributeMaxTexture1DLinear) A(
                                                        hipDeviceAttributeMaxTexture1DMipmap) A(hipDeviceAttributeMaxTexture2DWidth)
                                                        A(hipDeviceAttributeMaxTexture2DHeight) A(
                                                            hipDeviceAttributeMaxTexture2DGather) A(hipDeviceAttributeMaxTexture2DLayered)
                                                            A(hipDeviceAttributeMaxTexture2DLinear) A(hipDeviceAttributeMaxTexture2DMipmap) A(
                                                                hipDeviceAttributeMaxTexture3DWidth) A(hipDeviceAttributeMaxTexture3DHeight)
                                                                A(hipDeviceAttributeMaxTexture3DDepth) A(
                                                                    hipDeviceAttributeMaxTexture3DAlt) A(hipDeviceAttributeMaxTextureCubemap)
                                                                    A(hipDeviceAttributeMaxTextureCubemapLayered) A(
                                                                        hipDeviceAttributeMaxThreadsDim) A(hipDeviceAttributeMaxThreadsPerBlock)
                                                                        A(hipDeviceAttributeMaxThreadsPerMultiProcessor) A(
                                                                            hipDeviceAttributeMaxPitch) A(hipDeviceAttributeMemoryBusWidth)
                                                                            A(hipDeviceAttributeMemoryClockRate) A(
                                                                                hipDeviceAttributeComputeCapabilityMinor)
                                                                                A(hipDeviceAttributeMultiGpuBoardGroupID) A(
                                                                                    hipDeviceAttributeMultiprocessorCount)
                                                                                    A(hipDeviceAttributePageableMemoryAccess) A(
                                                                                        hipDeviceAttributePageableMemoryAccessUsesHostPageTables)
                                                                                        A(hipDeviceAttributePciBusId) A(
                                                                                            hipDeviceAttributePciDeviceId)
                                                                                            A(hipDeviceAttributePciDomainID) A(
                                                                                                hipDeviceAttributePersistingL2CacheMaxSize)
                                                                                                A(hipDeviceAttributeMaxRegistersPerBlock)
                                                                                                    A(hipDeviceAttributeMaxRegistersPerMultiprocessor)
                                                                                                        A(
                                                                                                            hipDeviceAttributeReservedSharedMemPerBlock) A(hipDeviceAttributeMaxSharedMemoryPerBlock) A(hipDeviceAttributeSharedMemPerBlockOptin) A(hipDeviceAttributeSharedMemPerMultiprocessor) A(hipDeviceAttributeSingleToDoublePrecisionPerfRatio) A(hipDeviceAttributeStreamPrioritiesSupported) A(hipDeviceAttributeSurfaceAlignment) A(hipDeviceAttributeTccDriver) A(hipDeviceAttributeTextureAlignment) A(hipDeviceAttributeTexturePitchAlignment) A(hipDeviceAttributeTotalConstantMemory) A(hipDeviceAttributeTotalGlobalMem) A(hipDeviceAttributeUnifiedAddressing)
                                                                                                            A(hipDeviceAttributeWarpSize)
                                                                                                                A(hipDeviceAttributeMemoryPoolsSupported)
                                                                                                                    A(hipDeviceAttributeClockInstructionRate)
                                                                                                                        A(
                                                                                                                            hipDeviceAttributeMaxSharedMemoryPerMultiprocessor) A(hipDeviceAttributeHdpMemFlushCntl) A(hipDeviceAttributeHdpRegFlushCntl) A(hipDeviceAttributeCooperativeMultiDeviceUnmatchedFunc) A(hipDeviceAttributeCooperativeMultiDeviceUnmatchedGridDim) A(hipDeviceAttributeCooperativeMultiDeviceUnmatchedBlockDim) A(hipDeviceAttributeCooperativeMultiDeviceUnmatchedSharedMem)
                                                                                                                            A(hipDeviceAttributeIsLargeBar) A(
                                                                                                                                hipDeviceAttributeAsicRevision) A(hipDeviceAttributeCanUseStreamWaitValue)
                                                                                                                                A(hipDeviceAttributeImageSupport) A(
                                                                                                                                    hipDeviceAttributePhysicalMultiProcessorCount)
                                                                                                                                    A(hipDeviceAttributeFineGrainSupport)
#if HIP_VERSION_MAJOR < 6 /* removed in HIP 6 */
                                                                                                                                        A(hipDeviceAttributeArch) A(
                                                                                                                                            hipDeviceAttributeGcnArch)
                                                                                                                                            A(hipDeviceAttributeGcnArchName)
                                                                                                                                                A(hipDeviceAttributeName)
                                                                                                                                                    A(hipDeviceAttributeUuid)
#else /* added in HIP 6 */
                                                                                                                                        A(hipDeviceAttributeWallClockRate)
                                                                                                                                            A(hipDeviceAttributeHostRegisterSupported)
                                                                                                                                                A(hipDeviceAttributeMemoryPoolSupportedHandleTypes)
                                                                                                                                                    A(hipDeviceAttributeVirtualMemoryManagementSupported)
#endif
};
#define NALL (sizeof all / sizeof all[0])

/* Values of the enum that do not fit an int (AMD refuses them too). */
static int is_string_valued(hipDeviceAttribute_t a)
{
#if HIP_VERSION_MAJOR < 6
    return a == hipDeviceAttributeName || a == hipDeviceAttributeGcnArchName ||
           a == hipDeviceAttributeUuid;
#else
    (void)a;
    return 0;
#endif
}

static int listed(const char *name)
{
    for (size_t i = 0; i < NALL; i++)
        if (strcmp(all[i].name, name) == 0)
            return 1;
    /* Range markers and HIP 6's placeholders, not attributes. */
    return strstr(name, "Begin") != NULL || strstr(name, "End") != NULL ||
           strstr(name, "Unused") != NULL;
}

static void check_header(const char *path)
{
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    char line[512];
    int in_enum = 0, seen = 0;
    while (fgets(line, sizeof line, f)) {
        if (!in_enum) {
            in_enum = strstr(line, "typedef enum hipDeviceAttribute_t") != NULL;
            continue;
        }
        if (strstr(line, "} hipDeviceAttribute_t;"))
            break;
        char *p = line;
        while (*p == ' ')
            p++;
        if (strncmp(p, "hipDeviceAttribute", 18) != 0)
            continue;
        p[strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")] = '\0';
        if (!listed(p)) {
            fprintf(stderr, "%s is in the header but not tested\n", p);
            exit(1);
        }
        seen++;
    }
    fclose(f);
    CHECK(seen >= (int)NALL);
}

static int attr(hipDeviceAttribute_t a, int dev)
{
    int v = -12345;
    hipError_t e = hipDeviceGetAttribute(&v, a, dev);
    if (e != hipSuccess) {
        fprintf(stderr, "attribute %d: %s\n", (int)a, hipGetErrorName(e));
        exit(1);
    }
    return v;
}

int main(int argc, char **argv)
{
    CHECK(argc == 2);
    check_header(argv[1]);
    int n = 0;
    HIP_CHECK(hipGetDeviceCount(&n));
    CHECK(n >= 1);
    for (int dev = 0; dev < n; dev++) {
        for (size_t i = 0; i < NALL; i++) {
            /* Pointer-sized room: the HDP attributes write an address. */
            union {
                int i;
                void *p;
            } v;
            memset(&v, 0x5a, sizeof v);
            hipError_t e = hipDeviceGetAttribute(&v.i, all[i].a, dev);
            hipError_t want = is_string_valued(all[i].a) ? hipErrorInvalidValue : hipSuccess;
            if (e != want) {
                fprintf(stderr, "device %d %s: %s\n", dev, all[i].name, hipGetErrorName(e));
                return 1;
            }
            if (all[i].a == hipDeviceAttributeHdpMemFlushCntl ||
                all[i].a == hipDeviceAttributeHdpRegFlushCntl)
                CHECK(v.p == NULL); /* no such register */
        }
        hipDeviceProp_t p;
        HIP_CHECK(hipGetDeviceProperties(&p, dev));
        CHECK_EQ(attr(hipDeviceAttributeMaxThreadsPerBlock, dev), p.maxThreadsPerBlock);
        CHECK_EQ(attr(hipDeviceAttributeMaxBlockDimX, dev), p.maxThreadsDim[0]);
        CHECK_EQ(attr(hipDeviceAttributeMaxThreadsDim, dev), p.maxThreadsDim[0]);
        CHECK_EQ(attr(hipDeviceAttributeMaxGridDimZ, dev), p.maxGridSize[2]);
        CHECK_EQ(attr(hipDeviceAttributeMaxSharedMemoryPerBlock, dev), p.sharedMemPerBlock);
        CHECK_EQ(attr(hipDeviceAttributeTotalConstantMemory, dev), p.totalConstMem);
        CHECK_EQ(attr(hipDeviceAttributeWarpSize, dev), p.warpSize);
        CHECK_EQ(attr(hipDeviceAttributeMaxRegistersPerBlock, dev), p.regsPerBlock);
        CHECK_EQ(attr(hipDeviceAttributeClockRate, dev), p.clockRate);
        CHECK_EQ(attr(hipDeviceAttributeMemoryClockRate, dev), p.memoryClockRate);
        CHECK_EQ(attr(hipDeviceAttributeMemoryBusWidth, dev), p.memoryBusWidth);
        CHECK_EQ(attr(hipDeviceAttributeMultiprocessorCount, dev), p.multiProcessorCount);
        CHECK_EQ(attr(hipDeviceAttributeIsMultiGpuBoard, dev), p.isMultiGpuBoard);
        CHECK_EQ(attr(hipDeviceAttributeComputeMode, dev), p.computeMode);
        CHECK_EQ(attr(hipDeviceAttributeL2CacheSize, dev), p.l2CacheSize);
        CHECK_EQ(attr(hipDeviceAttributeMaxThreadsPerMultiProcessor, dev),
                 p.maxThreadsPerMultiProcessor);
        CHECK_EQ(attr(hipDeviceAttributeComputeCapabilityMajor, dev), p.major);
        CHECK_EQ(attr(hipDeviceAttributeComputeCapabilityMinor, dev), p.minor);
        CHECK_EQ(attr(hipDeviceAttributeConcurrentKernels, dev), p.concurrentKernels);
        CHECK_EQ(attr(hipDeviceAttributePciBusId, dev), p.pciBusID);
        CHECK_EQ(attr(hipDeviceAttributePciDeviceId, dev), p.pciDeviceID);
        CHECK_EQ(attr(hipDeviceAttributePciDomainID, dev), p.pciDomainID);
        CHECK_EQ(attr(hipDeviceAttributeMaxSharedMemoryPerMultiprocessor, dev),
                 p.maxSharedMemoryPerMultiProcessor);
        CHECK_EQ(attr(hipDeviceAttributeIntegrated, dev), p.integrated);
        CHECK_EQ(attr(hipDeviceAttributeMaxTexture1DWidth, dev), p.maxTexture1D);
        CHECK_EQ(attr(hipDeviceAttributeMaxTexture1DLinear, dev), p.maxTexture1DLinear);
        CHECK_EQ(attr(hipDeviceAttributeMaxTexture2DWidth, dev), p.maxTexture2D[0]);
        CHECK_EQ(attr(hipDeviceAttributeMaxTexture2DHeight, dev), p.maxTexture2D[1]);
        CHECK_EQ(attr(hipDeviceAttributeMaxTexture3DWidth, dev), p.maxTexture3D[0]);
        CHECK_EQ(attr(hipDeviceAttributeMaxTexture3DHeight, dev), p.maxTexture3D[1]);
        CHECK_EQ(attr(hipDeviceAttributeMaxTexture3DDepth, dev), p.maxTexture3D[2]);
        CHECK_EQ(attr(hipDeviceAttributeCooperativeLaunch, dev), p.cooperativeLaunch);
        CHECK_EQ(attr(hipDeviceAttributeCooperativeMultiDeviceLaunch, dev),
                 p.cooperativeMultiDeviceLaunch);
        CHECK_EQ(attr(hipDeviceAttributeDirectManagedMemAccessFromHost, dev),
                 p.directManagedMemAccessFromHost);
        CHECK_EQ(attr(hipDeviceAttributeConcurrentManagedAccess, dev), p.concurrentManagedAccess);
        CHECK_EQ(attr(hipDeviceAttributePageableMemoryAccess, dev), p.pageableMemoryAccess);
        CHECK_EQ(attr(hipDeviceAttributePageableMemoryAccessUsesHostPageTables, dev),
                 p.pageableMemoryAccessUsesHostPageTables);
        CHECK_EQ(attr(hipDeviceAttributeCooperativeMultiDeviceUnmatchedFunc, dev),
                 p.cooperativeMultiDeviceUnmatchedFunc);
        CHECK_EQ(attr(hipDeviceAttributeAsicRevision, dev), p.asicRevision);
        CHECK_EQ(attr(hipDeviceAttributeManagedMemory, dev), p.managedMemory);
        CHECK_EQ(attr(hipDeviceAttributeMaxPitch, dev),
                 p.memPitch > 0x7fffffff ? 0x7fffffff : (long long)p.memPitch);
        CHECK_EQ(attr(hipDeviceAttributeTextureAlignment, dev), p.textureAlignment);
        CHECK_EQ(attr(hipDeviceAttributeTexturePitchAlignment, dev), p.texturePitchAlignment);
        CHECK_EQ(attr(hipDeviceAttributeKernelExecTimeout, dev), p.kernelExecTimeoutEnabled);
        CHECK_EQ(attr(hipDeviceAttributeCanMapHostMemory, dev), p.canMapHostMemory);
        CHECK_EQ(attr(hipDeviceAttributeEccEnabled, dev), p.ECCEnabled);
        CHECK_EQ(attr(hipDeviceAttributeTccDriver, dev), p.tccDriver);
        CHECK_EQ(attr(hipDeviceAttributeIsLargeBar, dev), p.isLargeBar);
#if HIP_VERSION_MAJOR < 6
        CHECK_EQ(attr(hipDeviceAttributeGcnArch, dev), p.gcnArch);
        int arch = attr(hipDeviceAttributeArch, dev);
        CHECK(memcmp(&arch, &p.arch, sizeof arch) == 0);
#endif
        CHECK(p.arch.hasDoubles && p.arch.has3dGrid);
        if (strcmp(p.name, "hipwire CPU device") == 0) {
            /* HIP source on the CPU device (kernel ABI 2) has warp
             * operations, barriers and atomics; no funnel shifts. */
            CHECK(p.arch.hasWarpShuffle && p.arch.hasWarpBallot && p.arch.hasSyncThreadsExt);
            CHECK(p.arch.hasGlobalInt64Atomics && !p.arch.hasFunnelShift);
            CHECK_EQ(p.warpSize, 64);
            /* Its documented limits (docs/backend-cpu.md). */
            CHECK_EQ(attr(hipDeviceAttributeMaxTexture1DWidth, dev), 16384);
            CHECK_EQ(attr(hipDeviceAttributeMaxTexture1DLinear, dev), 1 << 27);
            CHECK_EQ(attr(hipDeviceAttributeMaxTexture3DDepth, dev), 8192);
            CHECK_EQ(attr(hipDeviceAttributeMaxSurface2D, dev), 16384);
            CHECK_EQ(attr(hipDeviceAttributeSurfaceAlignment, dev), 256);
            CHECK_EQ(attr(hipDeviceAttributeMaxBlocksPerMultiProcessor, dev), 1);
        } else {
            /* A GPU's driver knows its texture limits. */
            CHECK(p.maxTexture1D > 0 && p.maxTexture2D[1] > 0 && p.maxTexture3D[2] > 0);
            CHECK(attr(hipDeviceAttributeMaxSurface2D, dev) > 0);
            CHECK(attr(hipDeviceAttributeMaxBlocksPerMultiProcessor, dev) > 0);
            printf("device %d (%s): texture 1D %d, 2D %dx%d, 3D %dx%dx%d; surface 2D %d; "
                   "pitch alignment %zu; blocks/SM %d\n",
                   dev, p.name, p.maxTexture1D, p.maxTexture2D[0], p.maxTexture2D[1],
                   p.maxTexture3D[0], p.maxTexture3D[1], p.maxTexture3D[2],
                   attr(hipDeviceAttributeMaxSurface2D, dev), p.texturePitchAlignment,
                   attr(hipDeviceAttributeMaxBlocksPerMultiProcessor, dev));
        }
        /* What hipwire cannot do through the network (docs/client.md). */
        CHECK_EQ(attr(hipDeviceAttributeCanUseStreamWaitValue, dev), 0);
        CHECK_EQ(attr(hipDeviceAttributeImageSupport, dev), 0);
        CHECK_EQ(attr(hipDeviceAttributeFineGrainSupport, dev), 0);
        CHECK_EQ(attr(hipDeviceAttributeHostNativeAtomicSupported, dev), 0);
        CHECK_EQ(attr(hipDeviceAttributeMemoryPoolsSupported, dev), 0);
        CHECK_EQ(attr(hipDeviceAttributeCanUseHostPointerForRegisteredMem, dev), 0);
    }

    /* Outside the enum, and bad arguments. */
    int v;
    const int outside[] = { -1, 9999, 19999, 20000, 123456 };
    for (size_t i = 0; i < sizeof outside / sizeof outside[0]; i++)
        HIP_EXPECT(hipDeviceGetAttribute(&v, (hipDeviceAttribute_t)outside[i], 0),
                   hipErrorInvalidValue);
    HIP_EXPECT(hipDeviceGetAttribute(NULL, hipDeviceAttributePciBusId, 0), hipErrorInvalidValue);
    HIP_EXPECT(hipDeviceGetAttribute(&v, hipDeviceAttributePciBusId, -1), hipErrorInvalidDevice);
    HIP_EXPECT(hipDeviceGetAttribute(&v, hipDeviceAttributePciBusId, n), hipErrorInvalidDevice);
    (void)hipGetLastError();
    printf("attributes: %zu on %d devices: ok\n", NALL, n);
    return 0;
}
