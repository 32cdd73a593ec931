/*
 * provider_loader: load libaccelerator_amd.so the way the hypervisor does
 * (dlopen RTLD_NOW|RTLD_GLOBAL, resolve every symbol of both ABIs) and call
 * it in the hypervisor's order against the MI300X CPX fixture host.
 */
#include "accel_upstream.h"
#include "test_util.h"

#include <dlfcn.h>
#include <strings.h>

static const char *const abi511[] = {
    "VirtualGPUInit",
    "GetDeviceCount",
    "GetAllDevices",
    "GetDeviceTopology",
    "AssignPartition",
    "RemovePartition",
    "SetMemHardLimit",
    "SetComputeUnitHardLimit",
    "Snapshot",
    "Resume",
    "GetProcessInformation",
    "GetDeviceMetrics",
    "GetVendorMountLibs",
    "RegisterLogCallback",
};
static const char *const abi_upstream[] = {
    "AccelInit",
    "AccelShutdown",
    "AccelGetDeviceCount",
    "AccelGetAllDevices",
    "AccelGetAllDevicesTopology",
    "AccelAssignPartition",
    "AccelRemovePartition",
    "AccelSetMemHardLimit",
    "AccelSetComputeUnitHardLimit",
    "AccelSnapshot",
    "AccelResume",
    "AccelGetProcessInformation",
    "AccelGetDeviceMetrics",
    "AccelGetVendorMountLibs",
    "AccelRegisterLogCallback",
};

static int fatal_logs, log_count;
static void log_cb(const char *level, const char *msg)
{
    log_count++;
    if (strcasecmp(level, "FATAL") == 0)
        fatal_logs++;
    (void)msg;
}

#define SYM(h, name) ((__typeof__(&name))dlsym(h, #name))

static double extra_value(const DeviceMetrics *m, const char *key)
{
    for (size_t i = 0; i < m->extraMetricsCount; i++)
        if (strcmp(m->extraMetrics[i].key, key) == 0)
            return m->extraMetrics[i].value;
    return -1;
}

static const char *prop_value(const ExtendedDeviceInfo *d, const char *key)
{
    for (size_t i = 0; i < d->props.count; i++)
        if (strcmp(d->props.properties[i].key, key) == 0)
            return d->props.properties[i].value;
    return "";
}

int main(int argc, char **argv)
{
    char root[256];
    if (argc != 3) {
        fprintf(stderr, "usage: %s LIBRARY FIXTURES_DIR\n", argv[0]);
        return 2;
    }
    make_host_root(argv[2], "mi300x-cpx", root);

    void *h = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
    if (h == NULL) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    for (size_t i = 0; i < sizeof(abi511) / sizeof(*abi511); i++)
        if (dlsym(h, abi511[i]) == NULL) {
            fprintf(stderr, "missing %s\n", abi511[i]);
            test_failures++;
        }
    for (size_t i = 0; i < sizeof(abi_upstream) / sizeof(*abi_upstream); i++)
        if (dlsym(h, abi_upstream[i]) == NULL) {
            fprintf(stderr, "missing %s\n", abi_upstream[i]);
            test_failures++;
        }
    /* internals stay hidden */
    CHECK(dlsym(h, "amdgpu_system_load") == NULL);
    if (test_failures)
        return test_report("provider_loader");

    CHECK(SYM(h, RegisterLogCallback)(log_cb) == RESULT_SUCCESS);
    CHECK(SYM(h, VirtualGPUInit)() == RESULT_SUCCESS);

    /* discovery */
    size_t count = 0;
    CHECK(SYM(h, GetDeviceCount)(&count) == RESULT_SUCCESS);
    CHECK_EQ_U(count, 8);
    ExtendedDeviceInfo *devs = calloc(64, sizeof(*devs));
    size_t got = 0;
    CHECK(SYM(h, GetAllDevices)(devs, count < 64 ? count : 64, &got) == RESULT_SUCCESS);
    CHECK_EQ_U(got, 8);
    for (size_t i = 0; i < got; i++) {
        DeviceBasicInfo *b = &devs[i].basic;
        CHECK_STR(b->vendor, "AMD");
        CHECK_STR(b->model, "MI300X");
        CHECK_EQ_U(b->totalComputeUnits, 304);
        CHECK_EQ_U(b->totalMemoryBytes, 206158430208ull);
        CHECK(b->maxTflops > 1300 && b->maxTflops < 1310);
        CHECK_EQ_U(b->pcieGen, 5);
        CHECK(b->numaNode == (int)(i / 4));
        CHECK_STR(prop_value(&devs[i], "computePartition"), "CPX");
        CHECK_STR(prop_value(&devs[i], "partitionTemplate"), "cpx_nps1");
        CHECK(devs[i].virtualizationCapabilities.supportsPartitioning);
        CHECK_EQ_U(devs[i].virtualizationCapabilities.maxPartitions, i == 7 ? 7 : 8);
        for (char *s = b->uuid; *s; s++)
            CHECK(!(*s >= 'A' && *s <= 'Z'));
    }
    CHECK_STR(devs[0].basic.driverVersion, "6.10.5");
    CHECK_STR(prop_value(&devs[0], "renderNode"), "/dev/dri/renderD128");

    /* metrics for all uuids, lower-cased as the hypervisor does, plus an
     * unknown one: zeros, still success */
    const char *uuids[9];
    for (size_t i = 0; i < 8; i++)
        uuids[i] = devs[i].basic.uuid;
    uuids[8] = "amdgpu-0000000000000000";
    DeviceMetrics *m = calloc(9, sizeof(*m));
    CHECK(SYM(h, GetDeviceMetrics)(uuids, 9, m) == RESULT_SUCCESS);
    CHECK(m[1].powerUsageWatts == 310.0);
    CHECK(m[1].temperatureCelsius == 41.0); /* junction: no edge sensor */
    CHECK_EQ_U(m[1].utilizationPercent, 1);
    CHECK_EQ_U(m[1].memoryUsedBytes, 2ull << 30);
    CHECK(extra_value(&m[1], "temperatureMemoryCelsius") == 50.5);
    CHECK(extra_value(&m[1], "memoryTotalBytes") == 206158430208.0);
    CHECK_STR(m[8].deviceUUID, "amdgpu-0000000000000000");
    CHECK(m[8].powerUsageWatts == 0 && m[8].extraMetricsCount == 0);

    /* processes: host pids, memory per GPU (4242 merged over 2 partitions) */
    ProcessInformation *pi = calloc(MAX_PROCESSES, sizeof(*pi));
    size_t np = 0;
    CHECK(SYM(h, GetProcessInformation)(pi, MAX_PROCESSES, &np) == RESULT_SUCCESS);
    CHECK_EQ_U(np, 2);
    for (size_t i = 0; i < np; i++) {
        if (strcmp(pi[i].processId, "4242") == 0) {
            CHECK_STR(pi[i].deviceUUID, devs[0].basic.uuid);
            CHECK_EQ_U(pi[i].memoryUsedBytes, 9ull << 30);
            CHECK_EQ_U(pi[i].activeSMs, 19 + 38);
            CHECK_EQ_U(pi[i].totalSMs, 304);
        } else {
            CHECK_STR(pi[i].processId, "5151");
            CHECK_STR(pi[i].deviceUUID, devs[3].basic.uuid);
        }
    }

    /* mounts */
    Mount mounts[64];
    size_t nm = 0;
    CHECK(SYM(h, GetVendorMountLibs)(mounts, 64, &nm) == RESULT_SUCCESS);
    CHECK_EQ_U(nm, 2);
    CHECK_STR(mounts[0].hostPath, "/opt/rocm/lib");
    CHECK_STR(mounts[0].guestPath, "/usr/local/rocm/lib");
    CHECK_STR(mounts[1].guestPath, "/usr/local/rocm/bin");

    /* partitions: GPU 0 partition 0 (KFD node 2) is ROCr agent 0 */
    PartitionAssignment *pa = calloc(1, sizeof(*pa));
    snprintf(pa->templateId, sizeof(pa->templateId), "cpx_nps1");
    snprintf(pa->deviceUUID, sizeof(pa->deviceUUID), "%s", devs[1].basic.uuid);
    CHECK(SYM(h, AssignPartition)(pa));
    char want[80];
    snprintf(want, sizeof(want), "%s-p0", devs[1].basic.uuid);
    CHECK_STR(pa->partitionUUID, want);
    CHECK_EQ_U(pa->envVarCount, 1);
    CHECK_STR(pa->envVars[0].key, "ROCR_VISIBLE_DEVICES");
    CHECK_STR(pa->envVars[0].value, "8"); /* 9th GPU agent in KFD order */
    char first[64];
    memcpy(first, pa->partitionUUID, sizeof(first));
    CHECK(SYM(h, AssignPartition)(pa));
    snprintf(want, sizeof(want), "%s-p1", devs[1].basic.uuid);
    CHECK_STR(pa->partitionUUID, want);
    CHECK_STR(pa->envVars[0].value, "9");
    /* a mode the GPU is not in */
    snprintf(pa->templateId, sizeof(pa->templateId), "spx_nps1");
    CHECK(!SYM(h, AssignPartition)(pa));
    snprintf(pa->templateId, sizeof(pa->templateId), "bogus");
    CHECK(!SYM(h, AssignPartition)(pa));

    /* partition uuids are accepted by metrics */
    const char *pu[1] = { first };
    CHECK(SYM(h, GetDeviceMetrics)(pu, 1, m) == RESULT_SUCCESS);
    CHECK(m[0].powerUsageWatts == 310.0);

    /* assignments survive a restart of the hypervisor */
    CHECK(SYM(h, VirtualGPUInit)() == RESULT_SUCCESS);
    snprintf(pa->templateId, sizeof(pa->templateId), "cpx_nps1");
    CHECK(SYM(h, AssignPartition)(pa));
    snprintf(want, sizeof(want), "%s-p2", devs[1].basic.uuid);
    CHECK_STR(pa->partitionUUID, want);
    /* RemovePartition(partitionUUID, parentUUID) frees it */
    CHECK(SYM(h, RemovePartition)(first, devs[1].basic.uuid));
    CHECK(!SYM(h, RemovePartition)(first, devs[1].basic.uuid));
    CHECK(SYM(h, AssignPartition)(pa));
    CHECK_STR(pa->partitionUUID, first);

    /* topology */
    int32_t idx[2] = { 0, 5 };
    ExtendedDeviceTopology *topo = calloc(1, sizeof(*topo));
    CHECK(SYM(h, GetDeviceTopology)(idx, 2, topo) == RESULT_SUCCESS);
    CHECK_EQ_U(topo->deviceCount, 2);
    CHECK_STR(topo->topologyType, "XGMI");
    CHECK(topo->devices[1].numaNode == 1);

    /* unsupported and invalid calls, as the hypervisor's own test expects */
    CHECK(SYM(h, GetDeviceCount)(NULL) == RESULT_ERROR_INVALID_PARAM);
    CHECK(SYM(h, GetAllDevices)(NULL, 4, &got) == RESULT_ERROR_INVALID_PARAM);
    CHECK(SYM(h, GetAllDevices)(devs, 0, &got) == RESULT_ERROR_INVALID_PARAM);
    CHECK(SYM(h, GetDeviceTopology)(NULL, 2, topo) == RESULT_ERROR_INVALID_PARAM);
    CHECK(SYM(h, GetDeviceTopology)(idx, 0, topo) == RESULT_ERROR_INVALID_PARAM);
    CHECK(SYM(h, GetProcessInformation)(NULL, 4, &np) == RESULT_ERROR_INVALID_PARAM);
    CHECK(SYM(h, GetProcessInformation)(pi, 0, &np) == RESULT_ERROR_INVALID_PARAM);
    CHECK(SYM(h, GetDeviceMetrics)(NULL, 1, m) == RESULT_ERROR_INVALID_PARAM);
    CHECK(SYM(h, GetDeviceMetrics)(uuids, 0, m) == RESULT_ERROR_INVALID_PARAM);
    CHECK(SYM(h, GetVendorMountLibs)(NULL, 4, &nm) == RESULT_ERROR_INVALID_PARAM);
    CHECK(SYM(h, GetVendorMountLibs)(mounts, 0, &nm) == RESULT_ERROR_INVALID_PARAM);
    CHECK(SYM(h, SetMemHardLimit)(NULL, "x", 1) == RESULT_ERROR_INVALID_PARAM);
    CHECK(SYM(h, SetMemHardLimit)("w", "x", 1) == RESULT_ERROR_NOT_SUPPORTED);
    CHECK(SYM(h, SetMemHardLimit)("w", "x", 0) == RESULT_ERROR_INVALID_PARAM);
    CHECK(SYM(h, SetComputeUnitHardLimit)("w", "x", 0) == RESULT_ERROR_INVALID_PARAM);
    CHECK(SYM(h, SetComputeUnitHardLimit)("w", "x", 150) == RESULT_ERROR_INVALID_PARAM);
    CHECK(SYM(h, SetComputeUnitHardLimit)("w", "x", 50) == RESULT_ERROR_NOT_SUPPORTED);
    ProcessArray *parr = calloc(1, sizeof(*parr));
    CHECK(SYM(h, Snapshot)(parr) == RESULT_ERROR_NOT_SUPPORTED);
    CHECK(SYM(h, Resume)(parr) == RESULT_ERROR_NOT_SUPPORTED);
    CHECK(!SYM(h, AssignPartition)(NULL));
    memset(pa, 0, sizeof(*pa));
    CHECK(!SYM(h, AssignPartition)(pa));
    CHECK(!SYM(h, RemovePartition)(NULL, "x"));

    /* the upstream ABI on the same state */
    CHECK(SYM(h, AccelInit)() == ACCEL_SUCCESS);
    AccelExtendedDeviceInfo *ad = calloc(64, sizeof(*ad));
    CHECK(SYM(h, AccelGetAllDevices)(ad, 64, &got) == ACCEL_SUCCESS);
    CHECK_EQ_U(got, 8);
    CHECK_STR(ad[3].basic.uuid, devs[3].basic.uuid);
    CHECK_STR(ad[3].basic.deviceNode, "/dev/dri/renderD152");
    CHECK_EQ_U(ad[3].basic.totalComputeUnits, 304);
    CHECK_STR(ad[0].basic.driverVersion, "6.10.5");
    AccelExtendedDeviceTopology *at = calloc(1, sizeof(*at));
    /* this caller uses accelerator.h's 72-byte peers: it must say so */
    setenv("HIPWIRE_TOPOLOGY_PEER_SIZE", "72", 1);
    CHECK(SYM(h, AccelGetAllDevicesTopology)(at) == ACCEL_SUCCESS);
    unsetenv("HIPWIRE_TOPOLOGY_PEER_SIZE");
    CHECK_EQ_U(at->deviceCount, 8);
    CHECK_EQ_U(at->devices[0].peerCount, 7);
    CHECK(at->devices[0].peers[0].topoLevel == TOPO_LEVEL_INTERNAL);
    PartitionResult *pr = calloc(1, sizeof(*pr));
    CHECK(SYM(h, AccelAssignPartition)("CPX_NPS1", devs[2].basic.uuid, pr) == ACCEL_SUCCESS);
    snprintf(want, sizeof(want), "%s-p0", devs[2].basic.uuid);
    CHECK_STR(pr->deviceUUID, want);
    CHECK(pr->type == PARTITION_TYPE_DEVICE_NODE);
    CHECK_STR(pr->envVars[0], "ROCR_VISIBLE_DEVICES=0"); /* the pod's only GPU */
    CHECK_STR(pr->deviceNodes[1], "/dev/dri/renderD144=/dev/dri/renderD144");
    CHECK(SYM(h, AccelRemovePartition)(want, devs[2].basic.uuid) == ACCEL_SUCCESS);
    MountPath mp[4];
    CHECK(SYM(h, AccelGetVendorMountLibs)(mp, 4, &nm) == ACCEL_SUCCESS);
    CHECK_EQ_U(nm, 2);
    CHECK(SYM(h, AccelSetComputeUnitHardLimit)("x", 101) == ACCEL_ERROR_INVALID_PARAM);
    CHECK(SYM(h, AccelSnapshot)(NULL) == ACCEL_ERROR_INVALID_PARAM);
    CHECK(SYM(h, AccelRemovePartition)(NULL, devs[2].basic.uuid) == ACCEL_ERROR_INVALID_PARAM);
    CHECK(SYM(h, AccelShutdown)() == ACCEL_SUCCESS);

    CHECK(log_count > 0);
    CHECK(fatal_logs == 0);
    CHECK(SYM(h, RegisterLogCallback)(NULL) == RESULT_SUCCESS);
    free(devs);
    free(m);
    free(pi);
    free(pa);
    free(topo);
    free(parr);
    free(ad);
    free(at);
    free(pr);
    remove_tree(root);
    return test_report("provider_loader");
}
