/*
 * abi_check.c - compile-time proof that the structs match the layouts the
 * hypervisor's Go loader re-declares (sizes measured with gcc on x86-64 for
 * the #511 header; upstream sizes from its header).
 */
#include "accel_upstream.h"

#include <stddef.h>

#if defined(__x86_64__) || defined(__aarch64__)
#define ABI_SIZE(t, n)   _Static_assert(sizeof(t) == (n), #t " size")
#define ABI_OFF(t, f, n) _Static_assert(offsetof(t, f) == (n), #t "." #f)

ABI_SIZE(VirtualizationCapabilities, 16);
ABI_OFF(VirtualizationCapabilities, maxPartitions, 8);
ABI_SIZE(DeviceBasicInfo, 392);
ABI_OFF(DeviceBasicInfo, index, 352);
ABI_OFF(DeviceBasicInfo, numaNode, 356);
ABI_OFF(DeviceBasicInfo, totalMemoryBytes, 360);
ABI_OFF(DeviceBasicInfo, maxTflops, 376);
ABI_OFF(DeviceBasicInfo, pcieGen, 384);
ABI_SIZE(DevicePropertyKV, 320);
ABI_SIZE(DeviceProperties, 20488);
ABI_SIZE(ExtendedDeviceInfo, 20896);
ABI_OFF(ExtendedDeviceInfo, props, 392);
ABI_OFF(ExtendedDeviceInfo, virtualizationCapabilities, 20880);
ABI_SIZE(PartitionTemplate, 480);
ABI_SIZE(DeviceTopology, 68);
ABI_SIZE(ExtendedDeviceTopology, 4392);
ABI_SIZE(EnvVar, 320);
ABI_SIZE(PartitionAssignment, 5320);
ABI_OFF(PartitionAssignment, partitionUUID, 128);
ABI_OFF(PartitionAssignment, envVars, 192);
ABI_OFF(PartitionAssignment, envVarCount, 5312);
ABI_SIZE(WorkerInfo, 152);
ABI_SIZE(ProcessArray, 4168);
ABI_SIZE(ExtraMetric, 72);
ABI_SIZE(ProcessInformation, 144);
ABI_OFF(ProcessInformation, computeUtilizationPercent, 96);
ABI_OFF(ProcessInformation, memoryUsedBytes, 120);
ABI_OFF(ProcessInformation, memoryUtilizationPercent, 136);
ABI_SIZE(DeviceMetrics, 4728);
ABI_OFF(DeviceMetrics, utilizationPercent, 96);
ABI_OFF(DeviceMetrics, memoryUsedBytes, 104);
ABI_OFF(DeviceMetrics, extraMetrics, 112);
ABI_OFF(DeviceMetrics, extraMetricsCount, 4720);
ABI_SIZE(DeviceUUIDEntry, 64);
ABI_SIZE(Mount, 1024);

/* upstream */
ABI_SIZE(AccelDeviceBasicInfo, 472);
ABI_OFF(AccelDeviceBasicInfo, deviceNode, 368);
ABI_OFF(AccelDeviceBasicInfo, index, 432);
ABI_SIZE(AccelExtendedDeviceInfo, 20976);
ABI_SIZE(AccelDeviceTopoNode, 72);
ABI_SIZE(AccelExtendedDeviceTopology, 300040);
/* TensorFusion's Go copy (DeviceTopoNode with BandwidthBytesPerSec) */
ABI_SIZE(AccelDeviceTopoNodeGo, 80);
ABI_OFF(AccelDeviceTopoNodeGo, bandwidthBytesPerSec, 72);
ABI_SIZE(AccelDeviceTopologyInfoGo, 5200);
ABI_SIZE(AccelExtendedDeviceTopologyGo, 332808);
ABI_SIZE(SnapshotContext, 24);
ABI_SIZE(MountPath, 1024);
ABI_SIZE(PartitionResult, 20580);
ABI_OFF(PartitionResult, envVars, 68);
ABI_OFF(PartitionResult, deviceNodes, 4164);
#endif
