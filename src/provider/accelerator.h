/*
 * accelerator.h - the GPU-pooling hypervisor's vendor provider ABI, in the
 * version the TensorFusion hypervisor of PR #511 loads (VirtualGPUInit,
 * Result/RESULT_*, Mount, GetDeviceTopology).
 *
 * Written for hipwire from the published ABI facts: names, constants,
 * field order and sizes match that ABI byte for byte on LP64 (the sizes are
 * checked at compile time in abi_check.c). The hypervisor resolves all 13
 * functions eagerly with dlopen(RTLD_NOW|RTLD_GLOBAL) and calls
 * VirtualGPUInit first; RegisterLogCallback is optional. The upstream ABI
 * that replaced this one (AccelInit, ...) is in accel_upstream.h; one
 * library exports both. Unlike the original header this one does not
 * include limiter.h: those functions belong to the limiter, not a vendor.
 */
#ifndef HIPWIRE_ACCELERATOR_H
#define HIPWIRE_ACCELERATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    RESULT_SUCCESS = 0,
    RESULT_ERROR_INVALID_PARAM = 1,
    RESULT_ERROR_NOT_FOUND = 2,
    RESULT_ERROR_NOT_SUPPORTED = 3,
    RESULT_ERROR_RESOURCE_EXHAUSTED = 4,
    RESULT_ERROR_OPERATION_FAILED = 5,
    RESULT_ERROR_INTERNAL = 6
} Result;

/* level: "DEBUG", "INFO", "WARN", "ERROR" ("FATAL" would end the
 * hypervisor; this provider never sends it). */
typedef void (*LogCallbackFunc)(const char *level, const char *message);

#define MAX_DEVICE_PROPERTIES 64
#define MAX_TOPOLOGY_DEVICES  64
#define MAX_PARTITION_ENVS    16
#define MAX_ENV_KEY_LENGTH    64
#define MAX_ENV_VALUE_LENGTH  256
#define MAX_PROCESSES         1024
#define MAX_EXTRA_METRICS     64
#define MAX_DEVICE_UUIDS      64
#define UUID_STRING_LENGTH    64
#define MAX_MOUNT_PATH        512

typedef struct {
    bool supportsPartitioning;
    bool supportsSoftIsolation;
    bool supportsHardIsolation;
    bool supportsSnapshot;
    bool supportsMetrics;
    bool supportsRemoting;
    uint32_t maxPartitions;
    uint32_t maxWorkersPerDevice;
} VirtualizationCapabilities; /* 16 bytes */

typedef struct {
    char uuid[64];
    char vendor[32];
    char model[128];
    char driverVersion[64];
    char firmwareVersion[64];
    int32_t index;
    int32_t numaNode; /* -1 if none */
    uint64_t totalMemoryBytes;
    uint64_t totalComputeUnits;
    double maxTflops;
    uint32_t pcieGen;
    uint32_t pcieWidth;
} DeviceBasicInfo; /* 392 bytes */

typedef struct {
    char key[64];
    char value[256];
} DevicePropertyKV;

typedef struct {
    DevicePropertyKV properties[MAX_DEVICE_PROPERTIES];
    size_t count;
} DeviceProperties; /* 20488 bytes */

typedef struct {
    DeviceBasicInfo basic;
    DeviceProperties props;
    VirtualizationCapabilities virtualizationCapabilities;
} ExtendedDeviceInfo; /* 20896 bytes */

typedef struct {
    char templateId[64];
    char name[128];
    uint64_t memoryBytes;
    uint64_t computeUnits;
    double tflops;
    uint32_t sliceCount;
    bool isDefault;
    char description[256];
} PartitionTemplate; /* 480 bytes */

typedef struct {
    char deviceUUID[64];
    int32_t numaNode;
} DeviceTopology;

typedef struct {
    DeviceTopology devices[MAX_TOPOLOGY_DEVICES];
    size_t deviceCount;
    char topologyType[32];
} ExtendedDeviceTopology;

typedef struct {
    char key[MAX_ENV_KEY_LENGTH];
    char value[MAX_ENV_VALUE_LENGTH];
} EnvVar;

typedef struct {
    char templateId[64];                /* in */
    char deviceUUID[64];                /* in */
    char partitionUUID[64];             /* out */
    EnvVar envVars[MAX_PARTITION_ENVS]; /* out */
    size_t envVarCount;                 /* out */
} PartitionAssignment;                  /* 5320 bytes */

typedef struct {
    char workerId[64];
    char deviceUUID[64];
    pid_t processId;
    uint64_t memoryLimitBytes;
    uint32_t computeUnitLimit;
} WorkerInfo;

typedef struct {
    pid_t processIds[MAX_PROCESSES];
    size_t processCount;
    char deviceUUID[64];
} ProcessArray; /* 4168 bytes */

typedef struct {
    char key[64];
    double value;
} ExtraMetric;

typedef struct {
    char processId[32]; /* host pid, decimal */
    char deviceUUID[64];
    double computeUtilizationPercent;
    uint64_t activeSMs;
    uint64_t totalSMs;
    uint64_t memoryUsedBytes;
    uint64_t memoryReservedBytes;
    double memoryUtilizationPercent;
} ProcessInformation; /* 144 bytes */

typedef struct {
    char deviceUUID[64];
    double powerUsageWatts;
    double temperatureCelsius;
    uint64_t pcieRxBytes;
    uint64_t pcieTxBytes;
    uint32_t utilizationPercent;
    uint64_t memoryUsedBytes;
    ExtraMetric extraMetrics[MAX_EXTRA_METRICS];
    size_t extraMetricsCount;
} DeviceMetrics; /* 4728 bytes */

typedef struct {
    char uuid[UUID_STRING_LENGTH];
} DeviceUUIDEntry; /* deprecated */

typedef struct {
    char hostPath[MAX_MOUNT_PATH];
    char guestPath[MAX_MOUNT_PATH];
} Mount; /* 1024 bytes */

Result VirtualGPUInit(void);
Result GetDeviceCount(size_t *deviceCount);
Result GetAllDevices(ExtendedDeviceInfo *devices, size_t maxCount, size_t *deviceCount);
Result GetDeviceTopology(int32_t *deviceIndexArray, size_t deviceCount,
                         ExtendedDeviceTopology *topology);
/* The hypervisor calls RemovePartition(partitionUUID, parentDeviceUUID). */
bool AssignPartition(PartitionAssignment *assignment);
bool RemovePartition(const char *templateId, const char *deviceUUID);
Result SetMemHardLimit(const char *workerId, const char *deviceUUID, uint64_t memoryLimitBytes);
Result SetComputeUnitHardLimit(const char *workerId, const char *deviceUUID,
                               uint32_t computeUnitLimit);
Result Snapshot(ProcessArray *processes);
Result Resume(ProcessArray *processes);
Result GetProcessInformation(ProcessInformation *processInfos, size_t maxCount,
                             size_t *processInfoCount);
Result GetDeviceMetrics(const char **deviceUUIDs, size_t deviceCount, DeviceMetrics *metrics);
Result GetVendorMountLibs(Mount *mounts, size_t maxCount, size_t *mountCount);
Result RegisterLogCallback(LogCallbackFunc callback);

#ifdef __cplusplus
}
#endif

#endif /* HIPWIRE_ACCELERATOR_H */
