/*
 * metrics.c - GetDeviceMetrics and GetProcessInformation.
 *
 * Both run on the hypervisor's polling path (every 500 ms upstream), so they
 * use the devices found at the last discovery and read only cheap files;
 * pcie_bw (which sleeps 1 s in the kernel) is never read, so the PCIe byte
 * counters are 0. Unknown UUIDs get zeroed metrics and the call succeeds,
 * because one failure drops the whole tick in the hypervisor.
 */
#include "hw_alloc.h"
#include "discovery.h"
#include "partition.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void extra(DeviceMetrics *m, const char *key, double value)
{
    if (m->extraMetricsCount >= MAX_EXTRA_METRICS)
        return;
    ExtraMetric *e = &m->extraMetrics[m->extraMetricsCount++];
    provider_copy(e->key, sizeof(e->key), key);
    e->value = value;
}

/* VRAM the KFD processes hold on one logical device. */
static uint64_t partition_vram_used(const amdgpu_process_t *procs, size_t n, uint32_t gpu_index,
                                    uint32_t part)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        if (procs[i].gpu_index == gpu_index && procs[i].partition_index == part)
            sum += procs[i].vram_bytes;
    return sum;
}

static void fill_metrics(const amdgpu_system_t *sys, const char *uuid, DeviceMetrics *m,
                         amdgpu_process_t *procs, size_t *proc_count, int *procs_read)
{
    const amdgpu_partition_t *part = NULL;
    amdgpu_metrics_t r;
    char err[AMDGPU_ERR_LEN];

    memset(m, 0, sizeof(*m));
    provider_copy(m->deviceUUID, sizeof(m->deviceUUID), uuid);
    const amdgpu_gpu_t *g = amdgpu_find_uuid(sys, uuid, &part);
    if (g == NULL)
        return;
    if (amdgpu_metrics_read(g, &r, err, sizeof(err)) != 0) {
        provider_log("WARN", "metrics of %s: %s", uuid, err);
        return;
    }
    m->powerUsageWatts = r.power_watts;
    /* MI300 has no edge sensor: junction stands in */
    m->temperatureCelsius = r.have_temp_edge ? r.temp_edge_c : r.temp_junction_c;
    m->utilizationPercent = r.busy_percent;
    m->memoryUsedBytes = r.vram_used_bytes;
    if (part != NULL) {
        /* device-level readings are shared; memory is per partition */
        if (!*procs_read) {
            if (amdgpu_processes_read(sys, procs, MAX_PROCESSES, proc_count, err, sizeof(err)) != 0)
                *proc_count = 0;
            *procs_read = 1;
        }
        m->memoryUsedBytes = partition_vram_used(procs, *proc_count, g->index, part->index);
    }
    if (r.have_temp_junction)
        extra(m, "temperatureJunctionCelsius", r.temp_junction_c);
    if (r.have_temp_mem)
        extra(m, "temperatureMemoryCelsius", r.temp_mem_c);
    if (r.have_temp_edge)
        extra(m, "temperatureEdgeCelsius", r.temp_edge_c);
    if (r.sclk_mhz > 0)
        extra(m, "gfxClockMHz", r.sclk_mhz);
    if (r.mclk_mhz > 0)
        extra(m, "memoryClockMHz", r.mclk_mhz);
    extra(m, "memoryBusyPercent", r.mem_busy_percent);
    /* pcieRx/TxBytes have no "unknown" value in the ABI; 0 there means
     * unknown exactly when this says so (hipwire metrics omits them) */
    extra(m, "pcieThroughputKnown", 0);
    extra(m, "memoryTotalBytes", (double)(part ? part->vram_bytes : r.vram_total_bytes));
}

PROVIDER_API Result GetDeviceMetrics(const char **deviceUUIDs, size_t deviceCount,
                                     DeviceMetrics *metrics)
{
    amdgpu_process_t *procs = NULL;
    size_t proc_count = 0;
    int procs_read = 0;

    if (deviceUUIDs == NULL || deviceCount == 0 || metrics == NULL)
        return RESULT_ERROR_INVALID_PARAM;
    procs = hw_calloc(MAX_PROCESSES, sizeof(*procs));
    if (procs == NULL)
        return RESULT_ERROR_INTERNAL;
    pthread_mutex_lock(&g_provider.lock);
    provider_discover(0);
    for (size_t i = 0; i < deviceCount; i++) {
        const char *uuid = deviceUUIDs[i] ? deviceUUIDs[i] : "";
        if (g_provider.sys == NULL) {
            memset(&metrics[i], 0, sizeof(metrics[i]));
            provider_copy(metrics[i].deviceUUID, sizeof(metrics[i].deviceUUID), uuid);
            continue;
        }
        fill_metrics(g_provider.sys, uuid, &metrics[i], procs, &proc_count, &procs_read);
    }
    pthread_mutex_unlock(&g_provider.lock);
    free(procs);
    return RESULT_SUCCESS;
}

PROVIDER_API Result GetProcessInformation(ProcessInformation *processInfos, size_t maxCount,
                                          size_t *processInfoCount)
{
    amdgpu_process_t *procs = NULL;
    size_t n = 0, out = 0;
    char err[AMDGPU_ERR_LEN];
    Result rc = RESULT_SUCCESS;

    if (processInfos == NULL || maxCount == 0 || processInfoCount == NULL)
        return RESULT_ERROR_INVALID_PARAM;
    procs = hw_calloc(MAX_PROCESSES, sizeof(*procs));
    if (procs == NULL)
        return RESULT_ERROR_INTERNAL;
    pthread_mutex_lock(&g_provider.lock);
    if (provider_discover(0) != 0) {
        *processInfoCount = 0;
        goto unlock;
    }
    const amdgpu_system_t *sys = g_provider.sys;
    if (amdgpu_processes_read(sys, procs, MAX_PROCESSES, &n, err, sizeof(err)) != 0) {
        provider_log("ERROR", "GetProcessInformation: %s", err);
        rc = RESULT_ERROR_OPERATION_FAILED;
        goto unlock;
    }
    for (size_t i = 0; i < n && out < maxCount; i++) {
        const amdgpu_gpu_t *g = &sys->gpus[procs[i].gpu_index];
        const amdgpu_partition_t *p = &g->partitions[procs[i].partition_index];
        /* an assigned partition is its own device to the hypervisor */
        int as_part = provider_find_assignment(p->uuid) != NULL;
        const char *uuid = as_part ? p->uuid : g->uuid;
        uint64_t cus = as_part ? p->compute_units : g->compute_units;
        uint64_t vram = as_part ? p->vram_bytes : g->vram_bytes;
        char pid[32];
        snprintf(pid, sizeof(pid), "%d", (int)procs[i].pid);

        /* merge a pid's partitions of one unassigned GPU */
        ProcessInformation *e = NULL;
        for (size_t k = 0; k < out; k++)
            if (strcmp(processInfos[k].processId, pid) == 0 &&
                strcmp(processInfos[k].deviceUUID, uuid) == 0)
                e = &processInfos[k];
        if (e == NULL) {
            e = &processInfos[out++];
            memset(e, 0, sizeof(*e));
            provider_copy(e->processId, sizeof(e->processId), pid);
            provider_copy(e->deviceUUID, sizeof(e->deviceUUID), uuid);
            e->totalSMs = cus;
        }
        e->memoryUsedBytes += procs[i].vram_bytes;
        if (procs[i].cu_occupancy > 0)
            e->activeSMs += (uint64_t)procs[i].cu_occupancy;
        if (e->activeSMs > e->totalSMs)
            e->activeSMs = e->totalSMs;
        e->computeUtilizationPercent =
            e->totalSMs ? 100.0 * (double)e->activeSMs / (double)e->totalSMs : 0.0;
        e->memoryUtilizationPercent =
            vram ? 100.0 * (double)e->memoryUsedBytes / (double)vram : 0.0;
        if (e->memoryUtilizationPercent > 100.0)
            e->memoryUtilizationPercent = 100.0;
    }
    *processInfoCount = out;
unlock:
    pthread_mutex_unlock(&g_provider.lock);
    free(procs);
    return rc;
}
