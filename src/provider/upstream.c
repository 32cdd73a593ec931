/*
 * upstream.c - the newer upstream ABI (Accel*), on top of the same core.
 */
#include "hw_alloc.h"
#include "accel_upstream.h"
#include "devices.h"
#include "discovery.h"
#include "lifecycle.h"
#include "mounts.h"
#include "partition.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static AccelResult to_accel(Result r)
{
    return (AccelResult)r; /* same numbering, checked below */
}

_Static_assert((int)ACCEL_ERROR_INTERNAL == (int)RESULT_ERROR_INTERNAL &&
                   (int)ACCEL_ERROR_NOT_SUPPORTED == (int)RESULT_ERROR_NOT_SUPPORTED,
               "result codes");

PROVIDER_API AccelResult AccelInit(void)
{
    return to_accel(VirtualGPUInit());
}

PROVIDER_API AccelResult AccelShutdown(void)
{
    pthread_mutex_lock(&g_provider.lock);
    provider_shutdown_locked();
    pthread_mutex_unlock(&g_provider.lock);
    return ACCEL_SUCCESS;
}

PROVIDER_API AccelResult AccelGetDeviceCount(size_t *deviceCount)
{
    return to_accel(GetDeviceCount(deviceCount));
}

static void convert_device(const ExtendedDeviceInfo *in, const amdgpu_gpu_t *g,
                           AccelExtendedDeviceInfo *out)
{
    const DeviceBasicInfo *b = &in->basic;
    AccelDeviceBasicInfo *o = &out->basic;

    memset(o, 0, sizeof(*o));
    memcpy(o->uuid, b->uuid, sizeof(o->uuid));
    memcpy(o->vendor, b->vendor, sizeof(o->vendor));
    memcpy(o->model, b->model, sizeof(o->model));
    memcpy(o->driverVersion, b->driverVersion, sizeof(b->driverVersion));
    memcpy(o->firmwareVersion, b->firmwareVersion, sizeof(o->firmwareVersion));
    if (g->partitions[0].render_minor >= 0)
        snprintf(o->deviceNode, sizeof(o->deviceNode), "/dev/dri/renderD%d",
                 g->partitions[0].render_minor);
    o->index = b->index;
    o->numaNode = b->numaNode;
    o->totalMemoryBytes = b->totalMemoryBytes;
    o->totalComputeUnits = b->totalComputeUnits;
    o->maxTflops = b->maxTflops;
    o->pcieGen = b->pcieGen;
    o->pcieWidth = b->pcieWidth;
    out->props = in->props;
    out->virtualizationCapabilities = in->virtualizationCapabilities;
}

PROVIDER_API AccelResult AccelGetAllDevices(AccelExtendedDeviceInfo *devices, size_t maxCount,
                                            size_t *deviceCount)
{
    ExtendedDeviceInfo *tmp;
    AccelResult rc = ACCEL_SUCCESS;

    if (devices == NULL || maxCount == 0 || deviceCount == NULL)
        return ACCEL_ERROR_INVALID_PARAM;
    tmp = hw_malloc(sizeof(*tmp));
    if (tmp == NULL)
        return ACCEL_ERROR_INTERNAL;
    pthread_mutex_lock(&g_provider.lock);
    if (provider_discover(1) != 0) {
        rc = ACCEL_ERROR_OPERATION_FAILED;
        goto out;
    }
    const amdgpu_system_t *sys = g_provider.sys;
    size_t n = sys->gpu_count < maxCount ? sys->gpu_count : maxCount;
    for (size_t i = 0; i < n; i++) {
        provider_fill_device(sys, (uint32_t)i, tmp);
        convert_device(tmp, &sys->gpus[i], &devices[i]);
    }
    *deviceCount = n;
out:
    pthread_mutex_unlock(&g_provider.lock);
    free(tmp);
    return rc;
}

static TopoLevelType topo_level(const amdgpu_gpu_t *a, const amdgpu_gpu_t *b)
{
    switch (a->link_type[b->index]) {
    case AMDGPU_LINK_SELF: return TOPO_LEVEL_SELF;
    /* XGMI is a direct GPU-to-GPU fabric: the closest level */
    case AMDGPU_LINK_XGMI: return TOPO_LEVEL_INTERNAL;
    case AMDGPU_LINK_PCIE: return TOPO_LEVEL_HOST_BRIDGE;
    default: break;
    }
    if (a->numa_node < 0 || b->numa_node < 0)
        return TOPO_LEVEL_UNKNOWN;
    return a->numa_node == b->numa_node ? TOPO_LEVEL_NUMA_NODE : TOPO_LEVEL_SYSTEM;
}

/* Fill the Go layout (the superset); the lock is held. */
static void fill_topology(const amdgpu_system_t *sys, AccelExtendedDeviceTopologyGo *topology)
{
    uint32_t n = sys->gpu_count < MAX_TOPOLOGY_DEVICES ? sys->gpu_count : MAX_TOPOLOGY_DEVICES;

    memset(topology, 0, sizeof(*topology));
    for (uint32_t i = 0; i < n; i++) {
        const amdgpu_gpu_t *g = &sys->gpus[i];
        AccelDeviceTopologyInfoGo *d = &topology->devices[i];
        provider_copy(d->deviceUUID, sizeof(d->deviceUUID), g->uuid);
        d->deviceIndex = (int32_t)i;
        d->numaNode = g->numa_node;
        for (uint32_t j = 0; j < n; j++) {
            if (j == i)
                continue;
            AccelDeviceTopoNodeGo *p = &d->peers[d->peerCount++];
            provider_copy(p->peerUUID, sizeof(p->peerUUID), sys->gpus[j].uuid);
            p->peerIndex = (int32_t)j;
            p->topoLevel = topo_level(g, &sys->gpus[j]);
            /* KFD's MB/s (10^6 bytes), as amdgpu computes it from the link rate */
            p->bandwidthBytesPerSec = (int64_t)(g->link_bandwidth_mbps[j] * 1000000u);
        }
    }
    topology->deviceCount = n;
}

static void to_c_layout(const AccelExtendedDeviceTopologyGo *in, AccelExtendedDeviceTopology *out)
{
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < in->deviceCount; i++) {
        const AccelDeviceTopologyInfoGo *a = &in->devices[i];
        AccelDeviceTopologyInfo *b = &out->devices[i];
        memcpy(b->deviceUUID, a->deviceUUID, sizeof(b->deviceUUID));
        b->deviceIndex = a->deviceIndex;
        b->numaNode = a->numaNode;
        for (size_t j = 0; j < a->peerCount; j++) {
            memcpy(b->peers[j].peerUUID, a->peers[j].peerUUID, sizeof(b->peers[j].peerUUID));
            b->peers[j].peerIndex = a->peers[j].peerIndex;
            b->peers[j].topoLevel = a->peers[j].topoLevel;
        }
        b->peerCount = a->peerCount;
    }
    out->deviceCount = in->deviceCount;
}

PROVIDER_API AccelResult AccelGetAllDevicesTopologySized(void *topology, size_t topologySize)
{
    AccelExtendedDeviceTopologyGo *tmp = NULL;
    AccelResult rc = ACCEL_SUCCESS;

    if (topology == NULL || (topologySize != sizeof(AccelExtendedDeviceTopologyGo) &&
                             topologySize != sizeof(AccelExtendedDeviceTopology)))
        return ACCEL_ERROR_INVALID_PARAM;
    tmp = hw_malloc(sizeof(*tmp));
    if (tmp == NULL)
        return ACCEL_ERROR_INTERNAL;
    pthread_mutex_lock(&g_provider.lock);
    if (provider_discover(0) != 0)
        rc = ACCEL_ERROR_OPERATION_FAILED;
    else
        fill_topology(g_provider.sys, tmp);
    pthread_mutex_unlock(&g_provider.lock);
    if (rc == ACCEL_SUCCESS) {
        if (topologySize == sizeof(*tmp))
            memcpy(topology, tmp, sizeof(*tmp));
        else
            to_c_layout(tmp, topology);
    }
    free(tmp);
    return rc;
}

/* The legacy entry point carries no size, so the layout is configured:
 * writing 80-byte peers into a 72-byte caller's struct would overrun it by
 * 32 KiB, and 72-byte peers into the Go struct lose the topology. */
PROVIDER_API AccelResult AccelGetAllDevicesTopology(AccelExtendedDeviceTopology *topology)
{
    const char *v = getenv("HIPWIRE_TOPOLOGY_PEER_SIZE");

    if (v == NULL || *v == '\0' || strcmp(v, "80") == 0)
        return AccelGetAllDevicesTopologySized(topology, sizeof(AccelExtendedDeviceTopologyGo));
    if (strcmp(v, "72") == 0)
        return AccelGetAllDevicesTopologySized(topology, sizeof(AccelExtendedDeviceTopology));
    provider_log("ERROR", "HIPWIRE_TOPOLOGY_PEER_SIZE=%s: expected 80 or 72; topology not written",
                 v);
    /* NOT_SUPPORTED is the result the hypervisor tolerates */
    return ACCEL_ERROR_NOT_SUPPORTED;
}

PROVIDER_API AccelResult AccelAssignPartition(const char *templateId, const char *deviceUUID,
                                              PartitionResult *result)
{
    char uuid[64], render[64];
    EnvVar env[1];
    size_t env_count = 0;
    int rc;

    if (templateId == NULL || deviceUUID == NULL || result == NULL || templateId[0] == '\0' ||
        deviceUUID[0] == '\0')
        return ACCEL_ERROR_INVALID_PARAM;
    memset(env, 0, sizeof(env));
    pthread_mutex_lock(&g_provider.lock);
    rc = provider_assign(templateId, deviceUUID, uuid, env, &env_count, render);
    pthread_mutex_unlock(&g_provider.lock);
    if (rc != 0)
        return ACCEL_ERROR_OPERATION_FAILED;
    (void)env_count;
    memset(result, 0, sizeof(*result));
    /* DEVICE_NODE: the hypervisor mounts exactly these nodes into the pod
     * (with ENVIRONMENT_VARIABLE it mounts none and the pod sees no GPU) */
    result->type = PARTITION_TYPE_DEVICE_NODE;
    provider_copy(result->deviceUUID, sizeof(result->deviceUUID), uuid);
    snprintf(result->deviceNodes[0], sizeof(result->deviceNodes[0]), "/dev/kfd=/dev/kfd");
    if (render[0])
        snprintf(result->deviceNodes[1], sizeof(result->deviceNodes[1]), "%s=%s", render, render);
    /* Index as the pod sees it: KFD hides topology nodes whose render node
     * the container's device cgroup denies, so the partition is the pod's
     * only GPU agent. env[0] holds the host-wide index (the #511 ABI's). */
    snprintf(result->envVars[0], sizeof(result->envVars[0]), "ROCR_VISIBLE_DEVICES=0");
    return ACCEL_SUCCESS;
}

PROVIDER_API AccelResult AccelRemovePartition(const char *templateId, const char *deviceUUID)
{
    if (templateId == NULL || templateId[0] == '\0')
        return ACCEL_ERROR_INVALID_PARAM;
    return RemovePartition(templateId, deviceUUID) ? ACCEL_SUCCESS : ACCEL_ERROR_NOT_FOUND;
}

PROVIDER_API AccelResult AccelSetMemHardLimit(const char *deviceUUID, uint64_t memoryLimitBytes)
{
    if (deviceUUID == NULL || memoryLimitBytes == 0)
        return ACCEL_ERROR_INVALID_PARAM;
    return ACCEL_ERROR_NOT_SUPPORTED;
}

PROVIDER_API AccelResult AccelSetComputeUnitHardLimit(const char *deviceUUID, uint32_t limit)
{
    if (deviceUUID == NULL || limit == 0 || limit > 100)
        return ACCEL_ERROR_INVALID_PARAM;
    return ACCEL_ERROR_NOT_SUPPORTED;
}

PROVIDER_API AccelResult AccelSnapshot(SnapshotContext *context)
{
    return context ? ACCEL_ERROR_NOT_SUPPORTED : ACCEL_ERROR_INVALID_PARAM;
}

PROVIDER_API AccelResult AccelResume(SnapshotContext *context)
{
    return context ? ACCEL_ERROR_NOT_SUPPORTED : ACCEL_ERROR_INVALID_PARAM;
}

PROVIDER_API AccelResult AccelGetProcessInformation(ProcessInformation *processInfos,
                                                    size_t maxCount, size_t *processInfoCount)
{
    return to_accel(GetProcessInformation(processInfos, maxCount, processInfoCount));
}

PROVIDER_API AccelResult AccelGetDeviceMetrics(const char **deviceUUIDs, size_t deviceCount,
                                               DeviceMetrics *metrics)
{
    return to_accel(GetDeviceMetrics(deviceUUIDs, deviceCount, metrics));
}

PROVIDER_API AccelResult AccelGetVendorMountLibs(MountPath *mounts, size_t maxCount,
                                                 size_t *mountCount)
{
    Mount tmp[4];
    size_t n;

    if (mounts == NULL || maxCount == 0 || mountCount == NULL)
        return ACCEL_ERROR_INVALID_PARAM;
    n = provider_mounts(tmp, maxCount < 4 ? maxCount : 4);
    for (size_t i = 0; i < n; i++) {
        memcpy(mounts[i].hostPath, tmp[i].hostPath, sizeof(tmp[i].hostPath));
        memcpy(mounts[i].guestPath, tmp[i].guestPath, sizeof(tmp[i].guestPath));
    }
    *mountCount = n;
    return ACCEL_SUCCESS;
}

PROVIDER_API AccelResult AccelRegisterLogCallback(LogCallbackFunc callback)
{
    return to_accel(RegisterLogCallback(callback));
}
