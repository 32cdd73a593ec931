/*
 * accel_upstream.h - the newer upstream provider ABI (AccelInit, ...,
 * AccelResult/ACCEL_*, MountPath, PartitionResult), exported by the same
 * libaccelerator_amd.so so either hypervisor generation can load it.
 *
 * The upstream header reuses type names of the older ABI with different
 * layouts (DeviceBasicInfo grows deviceNode[64] and driverVersion[80];
 * ExtendedDeviceTopology becomes a peer matrix). Here those types carry an
 * Accel prefix so both ABIs fit in one translation unit; the layouts, which
 * are all the loader sees, match upstream (checked in abi_check.c). Types
 * whose layout did not change are shared from accelerator.h.
 */
#ifndef HIPWIRE_ACCEL_UPSTREAM_H
#define HIPWIRE_ACCEL_UPSTREAM_H

#include "accelerator.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    ACCEL_SUCCESS = 0,
    ACCEL_ERROR_INVALID_PARAM = 1,
    ACCEL_ERROR_NOT_FOUND = 2,
    ACCEL_ERROR_NOT_SUPPORTED = 3,
    ACCEL_ERROR_RESOURCE_EXHAUSTED = 4,
    ACCEL_ERROR_OPERATION_FAILED = 5,
    ACCEL_ERROR_INTERNAL = 6
} AccelResult;

typedef struct {
    char uuid[64];
    char vendor[32];
    char model[128];
    char driverVersion[80];
    char firmwareVersion[64];
    char deviceNode[64];
    int32_t index;
    int32_t numaNode;
    uint64_t totalMemoryBytes;
    uint64_t totalComputeUnits;
    double maxTflops;
    uint32_t pcieGen;
    uint32_t pcieWidth;
} AccelDeviceBasicInfo; /* 472 bytes */

typedef struct {
    AccelDeviceBasicInfo basic;
    DeviceProperties props;
    VirtualizationCapabilities virtualizationCapabilities;
} AccelExtendedDeviceInfo; /* 20976 bytes */

typedef enum {
    TOPO_LEVEL_INTERNAL = 0,
    TOPO_LEVEL_SINGLE_SWITCH = 1,
    TOPO_LEVEL_MULTI_SWITCH = 2,
    TOPO_LEVEL_HOST_BRIDGE = 3,
    TOPO_LEVEL_NUMA_NODE = 4,
    TOPO_LEVEL_SYSTEM = 5,
    TOPO_LEVEL_SELF = 6,
    TOPO_LEVEL_UNKNOWN = 7
} TopoLevelType;

typedef struct {
    char peerUUID[64];
    int32_t peerIndex;
    TopoLevelType topoLevel;
} AccelDeviceTopoNode; /* 72 bytes */

typedef struct {
    char deviceUUID[64];
    int32_t deviceIndex;
    int32_t numaNode;
    AccelDeviceTopoNode peers[MAX_TOPOLOGY_DEVICES];
    size_t peerCount;
} AccelDeviceTopologyInfo;

typedef struct {
    AccelDeviceTopologyInfo devices[MAX_TOPOLOGY_DEVICES];
    size_t deviceCount;
} AccelExtendedDeviceTopology; /* 300040 bytes */

/*
 * The same topology as TensorFusion's Go hypervisor declares it (since its
 * #639): each peer has an int64 BandwidthBytesPerSec the C header lacks, so a
 * peer is 80 bytes there and 72 here. Go reads the provider's memory through
 * its own copy of the struct, so the provider must write the caller's layout.
 * Which one AccelGetAllDevicesTopology writes is documented in
 * docs/provider.md (HIPWIRE_TOPOLOGY_PEER_SIZE, default 80, the Go
 * hypervisor's); AccelGetAllDevicesTopologySized takes the caller's struct
 * size and so needs no setting.
 */
typedef struct {
    char peerUUID[64];
    int32_t peerIndex;
    TopoLevelType topoLevel;
    int64_t bandwidthBytesPerSec; /* KFD io_link max_bandwidth; 0 if unknown */
} AccelDeviceTopoNodeGo;          /* 80 bytes */

typedef struct {
    char deviceUUID[64];
    int32_t deviceIndex;
    int32_t numaNode;
    AccelDeviceTopoNodeGo peers[MAX_TOPOLOGY_DEVICES];
    size_t peerCount;
} AccelDeviceTopologyInfoGo;

typedef struct {
    AccelDeviceTopologyInfoGo devices[MAX_TOPOLOGY_DEVICES];
    size_t deviceCount;
} AccelExtendedDeviceTopologyGo; /* 332808 bytes */

typedef struct {
    pid_t *processIds;
    size_t processCount;
    const char *deviceUUID;
} SnapshotContext;

typedef struct {
    char hostPath[MAX_MOUNT_PATH];
    char guestPath[MAX_MOUNT_PATH];
} MountPath;

typedef enum {
    PARTITION_TYPE_ENVIRONMENT_VARIABLE = 0,
    PARTITION_TYPE_DEVICE_NODE = 1
} PartitionResultType;

#define MAX_PARTITION_DEVICE_NODES       16
#define MAX_PARTITION_DEVICE_NODE_LENGTH (MAX_MOUNT_PATH * 2 + 2)

typedef struct {
    PartitionResultType type;
    char deviceUUID[64];                                    /* partition id */
    char envVars[MAX_PARTITION_ENVS][MAX_ENV_VALUE_LENGTH]; /* "K=V" */
    char deviceNodes[MAX_PARTITION_DEVICE_NODES]
                    [MAX_PARTITION_DEVICE_NODE_LENGTH]; /* "host=guest" */
} PartitionResult;

AccelResult AccelInit(void);
AccelResult AccelShutdown(void);
AccelResult AccelGetDeviceCount(size_t *deviceCount);
AccelResult AccelGetAllDevices(AccelExtendedDeviceInfo *devices, size_t maxCount,
                               size_t *deviceCount);
/* Writes the layout HIPWIRE_TOPOLOGY_PEER_SIZE names: 80 (default,
 * AccelExtendedDeviceTopologyGo) or 72 (AccelExtendedDeviceTopology). */
AccelResult AccelGetAllDevicesTopology(AccelExtendedDeviceTopology *topology);
/* hipwire extension: the caller passes sizeof its struct (300040 or
 * 332808); any other size is ACCEL_ERROR_INVALID_PARAM. */
AccelResult AccelGetAllDevicesTopologySized(void *topology, size_t topologySize);
AccelResult AccelAssignPartition(const char *templateId, const char *deviceUUID,
                                 PartitionResult *partitionResult);
AccelResult AccelRemovePartition(const char *templateId, const char *deviceUUID);
AccelResult AccelSetMemHardLimit(const char *deviceUUID, uint64_t memoryLimitBytes);
AccelResult AccelSetComputeUnitHardLimit(const char *deviceUUID, uint32_t computeUnitLimit);
AccelResult AccelSnapshot(SnapshotContext *context);
AccelResult AccelResume(SnapshotContext *context);
AccelResult AccelGetProcessInformation(ProcessInformation *processInfos, size_t maxCount,
                                       size_t *processInfoCount);
AccelResult AccelGetDeviceMetrics(const char **deviceUUIDs, size_t deviceCount,
                                  DeviceMetrics *metrics);
AccelResult AccelGetVendorMountLibs(MountPath *mounts, size_t maxCount, size_t *mountCount);
AccelResult AccelRegisterLogCallback(LogCallbackFunc callback);

#ifdef __cplusplus
}
#endif

#endif /* HIPWIRE_ACCEL_UPSTREAM_H */
