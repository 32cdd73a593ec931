/*
 * devices.c - device records: GetDeviceCount, GetAllDevices,
 * GetDeviceTopology. One device per physical GPU; its partitions are
 * described in its properties and handed out by AssignPartition.
 */
#include "devices.h"
#include "discovery.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

PROVIDER_API Result GetDeviceCount(size_t *deviceCount)
{
    Result rc = RESULT_SUCCESS;

    if (deviceCount == NULL)
        return RESULT_ERROR_INVALID_PARAM;
    pthread_mutex_lock(&g_provider.lock);
    if (provider_discover(1) != 0)
        rc = RESULT_ERROR_OPERATION_FAILED;
    else
        *deviceCount = g_provider.sys->gpu_count;
    pthread_mutex_unlock(&g_provider.lock);
    return rc;
}

static void add_prop(DeviceProperties *p, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void add_prop(DeviceProperties *p, const char *key, const char *fmt, ...)
{
    va_list ap;

    if (p->count >= MAX_DEVICE_PROPERTIES)
        return;
    DevicePropertyKV *kv = &p->properties[p->count++];
    provider_copy(kv->key, sizeof(kv->key), key);
    va_start(ap, fmt);
    vsnprintf(kv->value, sizeof(kv->value), fmt, ap);
    va_end(ap);
}

static const char *link_name(uint8_t t)
{
    switch (t) {
    case AMDGPU_LINK_XGMI: return "xgmi";
    case AMDGPU_LINK_PCIE: return "pcie";
    case AMDGPU_LINK_OTHER: return "other";
    default: return "";
    }
}

void provider_device_nodes(const amdgpu_gpu_t *g, char *out, size_t outlen)
{
    size_t n = (size_t)snprintf(out, outlen, "/dev/kfd");
    for (uint32_t k = 0; k < g->partition_count && n < outlen; k++)
        if (g->partitions[k].render_minor >= 0)
            n += (size_t)snprintf(out + n, outlen - n, ",/dev/dri/renderD%d",
                                  g->partitions[k].render_minor);
}

void provider_fill_device(const amdgpu_system_t *sys, uint32_t i, ExtendedDeviceInfo *out)
{
    const amdgpu_gpu_t *g = &sys->gpus[i];
    DeviceBasicInfo *b = &out->basic;
    DeviceProperties *p = &out->props;
    VirtualizationCapabilities *c = &out->virtualizationCapabilities;

    memset(out, 0, sizeof(*out));
    provider_copy(b->uuid, sizeof(b->uuid), g->uuid);
    provider_copy(b->vendor, sizeof(b->vendor), "AMD");
    provider_copy(b->model, sizeof(b->model), g->model);
    provider_copy(b->driverVersion, sizeof(b->driverVersion), sys->driver_version);
    provider_copy(b->firmwareVersion, sizeof(b->firmwareVersion), g->vbios_version);
    b->index = (int32_t)g->index;
    b->numaNode = g->numa_node;
    b->totalMemoryBytes = g->vram_bytes;
    b->totalComputeUnits = g->compute_units;
    b->maxTflops =
        amdgpu_peak_tflops(g->gfx_target_version, g->compute_units, g->max_engine_clk_mhz);
    b->pcieGen = g->pcie_gen;
    b->pcieWidth = g->pcie_width;

    add_prop(p, "pciBusId", "%s", g->bdf);
    add_prop(p, "deviceId", "0x%04" PRIx32, g->device_id);
    add_prop(p, "gfxTarget", "%s", g->gfx_target);
    add_prop(p, "gfxTargetVersion", "%" PRIu32, g->gfx_target_version);
    if (g->partitions[0].render_minor >= 0)
        add_prop(p, "renderNode", "/dev/dri/renderD%d", g->partitions[0].render_minor);
    if (g->card_index >= 0)
        add_prop(p, "cardNode", "/dev/dri/card%d", g->card_index);
    char nodes[256];
    provider_device_nodes(g, nodes, sizeof(nodes));
    add_prop(p, "deviceNodes", "%s", nodes);
    if (g->unique_id)
        add_prop(p, "uniqueId", "0x%016" PRIx64, g->unique_id);
    if (g->product_name[0])
        add_prop(p, "productName", "%s", g->product_name);
    add_prop(p, "simdCount", "%" PRIu32, g->simd_count);
    add_prop(p, "maxEngineClockMHz", "%" PRIu32, g->max_engine_clk_mhz);
    add_prop(p, "maxTflopsPrecision", "fp16-dense-matrix");
    if (g->hive_id) {
        add_prop(p, "xgmiHiveId", "0x%016" PRIx64, g->hive_id);
        uint32_t peers = 0;
        for (uint32_t j = 0; j < sys->gpu_count; j++)
            peers += g->link_type[j] == AMDGPU_LINK_XGMI;
        add_prop(p, "xgmiPeers", "%" PRIu32, peers);
    }
    add_prop(p, "computePartition", "%s", g->compute_partition);
    add_prop(p, "memoryPartition", "%s", g->memory_partition);
    add_prop(p, "availableComputePartitions", "%s", g->available_compute_partitions);
    add_prop(p, "availableMemoryPartitions", "%s", g->available_memory_partitions);
    add_prop(p, "partitionCount", "%" PRIu32, g->partition_count);
    if (g->mode_partition_count)
        add_prop(p, "partitionCountByMode", "%" PRIu32, g->mode_partition_count);
    if (g->compute_partition[0] && g->memory_partition[0]) {
        char tmpl[24];
        snprintf(tmpl, sizeof(tmpl), "%s_%s", g->compute_partition, g->memory_partition);
        for (char *s = tmpl; *s; s++)
            *s = (char)(*s >= 'A' && *s <= 'Z' ? *s + 32 : *s);
        add_prop(p, "partitionTemplate", "%s", tmpl);
    }
    for (uint32_t k = 0; k < g->partition_count; k++) {
        const amdgpu_partition_t *part = &g->partitions[k];
        char key[32];
        snprintf(key, sizeof(key), "partition%" PRIu32, k);
        add_prop(p, key, "%s renderD%d cu=%" PRIu32 " vram=%" PRIu64, part->uuid,
                 part->render_minor, part->compute_units, part->vram_bytes);
    }
    for (uint32_t j = 0; j < sys->gpu_count; j++) {
        char key[32];
        if (j == i || link_name(g->link_type[j])[0] == '\0')
            continue;
        snprintf(key, sizeof(key), "link.%" PRIu32, j);
        add_prop(p, key, "%s weight=%" PRIu32, link_name(g->link_type[j]), g->link_weight[j]);
    }

    c->supportsPartitioning = g->available_compute_partitions[0] != '\0';
    /* soft isolation (TensorFusion's default) needs only what this library
     * reports: per-device utilisation and per-process memory */
    c->supportsSoftIsolation = true;
    c->supportsHardIsolation = false;
    c->supportsSnapshot = false;
    c->supportsMetrics = true;
    c->supportsRemoting = true; /* hipwire's HIP remoting */
    c->maxPartitions = c->supportsPartitioning ? g->partition_count : 0;
    c->maxWorkersPerDevice = 16;
}

PROVIDER_API Result GetAllDevices(ExtendedDeviceInfo *devices, size_t maxCount, size_t *deviceCount)
{
    Result rc = RESULT_SUCCESS;

    if (devices == NULL || maxCount == 0 || deviceCount == NULL)
        return RESULT_ERROR_INVALID_PARAM;
    pthread_mutex_lock(&g_provider.lock);
    if (provider_discover(1) != 0) {
        rc = RESULT_ERROR_OPERATION_FAILED;
        goto out;
    }
    const amdgpu_system_t *sys = g_provider.sys;
    size_t n = sys->gpu_count < maxCount ? sys->gpu_count : maxCount;
    for (size_t i = 0; i < n; i++)
        provider_fill_device(sys, (uint32_t)i, &devices[i]);
    *deviceCount = n;
out:
    pthread_mutex_unlock(&g_provider.lock);
    return rc;
}

PROVIDER_API Result GetDeviceTopology(int32_t *deviceIndexArray, size_t deviceCount,
                                      ExtendedDeviceTopology *topology)
{
    Result rc = RESULT_SUCCESS;
    int xgmi = 0;

    if (deviceIndexArray == NULL || deviceCount == 0 || topology == NULL ||
        deviceCount > MAX_TOPOLOGY_DEVICES)
        return RESULT_ERROR_INVALID_PARAM;
    pthread_mutex_lock(&g_provider.lock);
    if (provider_discover(0) != 0) {
        rc = RESULT_ERROR_OPERATION_FAILED;
        goto out;
    }
    const amdgpu_system_t *sys = g_provider.sys;
    for (size_t k = 0; k < deviceCount; k++) {
        int32_t i = deviceIndexArray[k];
        if (i < 0 || (uint32_t)i >= sys->gpu_count) {
            rc = RESULT_ERROR_NOT_FOUND;
            goto out;
        }
    }
    memset(topology, 0, sizeof(*topology));
    for (size_t k = 0; k < deviceCount; k++) {
        const amdgpu_gpu_t *g = &sys->gpus[deviceIndexArray[k]];
        provider_copy(topology->devices[k].deviceUUID, sizeof(topology->devices[k].deviceUUID),
                      g->uuid);
        topology->devices[k].numaNode = g->numa_node;
        /* XGMI when every other requested GPU is one XGMI hop away */
        for (size_t m = 0; m < deviceCount; m++) {
            int32_t j = deviceIndexArray[m];
            if (m != k && g->link_type[j] == AMDGPU_LINK_XGMI)
                xgmi++;
        }
    }
    topology->deviceCount = deviceCount;
    provider_copy(topology->topologyType, sizeof(topology->topologyType),
                  deviceCount > 1 && (size_t)xgmi == deviceCount * (deviceCount - 1) ? "XGMI"
                                                                                     : "PCIe");
out:
    pthread_mutex_unlock(&g_provider.lock);
    return rc;
}
