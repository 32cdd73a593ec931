/*
 * provider_go_driver: drive libaccelerator_amd.so the way TensorFusion's Go
 * hypervisor (pkg/hypervisor/device/accelerator.go, HEAD 3e0a4901) does.
 * The structs below are the Go declarations transcribed field by field, not
 * the provider's headers: the test must fail if the library writes any
 * other layout (notably DeviceTopoNode, 80 bytes in Go, 72 in accelerator.h).
 */
#include "test_util.h"

#include <ctype.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <strings.h>

typedef int32_t go_result; /* Result */

typedef struct {
    uint8_t uuid[64], vendor[32], model[128], driverVersion[80], firmwareVersion[64];
    uint8_t deviceNode[64];
    int32_t index, numaNode;
    uint64_t totalMemoryBytes, totalComputeUnits;
    double maxTflops;
    uint32_t pcieGen, pcieWidth;
} go_basic;

typedef struct {
    uint8_t key[64], value[256];
} go_kv;

typedef struct {
    bool partitioning, soft, hard, snapshot, metrics, remoting;
    uint32_t maxPartitions, maxWorkersPerDevice;
} go_caps;

typedef struct {
    go_basic basic;
    go_kv props[64];
    uintptr_t propCount;
    go_caps caps;
} go_device;

typedef struct {
    uint8_t peerUUID[64];
    int32_t peerIndex, topoLevel;
    int64_t bandwidthBytesPerSec;
} go_topo_node;

typedef struct {
    uint8_t deviceUUID[64];
    int32_t deviceIndex, numaNode;
    go_topo_node peers[64];
    uintptr_t peerCount;
} go_topo_row;

typedef struct {
    go_topo_row devices[64];
    uintptr_t deviceCount;
} go_topology;

typedef struct {
    uint8_t key[64];
    double value;
} go_extra;

typedef struct {
    uint8_t deviceUUID[64];
    double powerUsageWatts, temperatureCelsius;
    uint64_t pcieRxBytes, pcieTxBytes;
    uint32_t utilizationPercent;
    uint64_t memoryUsedBytes;
    go_extra extra[64];
    uintptr_t extraCount;
} go_metrics;

typedef struct {
    int32_t type;
    uint8_t deviceUUID[64];
    uint8_t envVars[16][256];
    uint8_t deviceNodes[16][1026];
} go_partition_result;

_Static_assert(sizeof(go_topo_node) == 80, "Go DeviceTopoNode");
_Static_assert(sizeof(go_topology) == 332808, "Go ExtendedDeviceTopology");
_Static_assert(sizeof(go_device) == 20976, "Go ExtendedDeviceInfo");

/* the purego signatures */
typedef go_result (*init_fn)(void);
typedef go_result (*count_fn)(uintptr_t *);
typedef go_result (*devices_fn)(go_device *, uintptr_t, uintptr_t *);
typedef go_result (*topo_fn)(go_topology *);
typedef go_result (*sized_topo_fn)(void *, size_t);
typedef go_result (*metrics_fn)(const char **, uintptr_t, go_metrics *);
typedef go_result (*assign_fn)(const uint8_t *, const uint8_t *, go_partition_result *);
typedef go_result (*remove_fn)(const uint8_t *, const uint8_t *);
typedef go_result (*limit_mem_fn)(const uint8_t *, uint64_t);
typedef go_result (*limit_cu_fn)(const uint8_t *, uint32_t);
typedef go_result (*log_fn)(void (*)(const char *, const char *));

static int fatal_logs;
static void log_cb(const char *level, const char *msg)
{
    if (strcasecmp(level, "FATAL") == 0)
        fatal_logs++;
    (void)msg;
}

static const char *prop(const go_device *d, const char *key)
{
    for (uintptr_t i = 0; i < d->propCount; i++)
        if (strcmp((const char *)d->props[i].key, key) == 0)
            return (const char *)d->props[i].value;
    return "";
}

static double extra(const go_metrics *m, const char *key)
{
    for (uintptr_t i = 0; i < m->extraCount; i++)
        if (strcmp((const char *)m->extra[i].key, key) == 0)
            return m->extra[i].value;
    return -1;
}

/* A topology buffer of exactly size bytes followed by a canary page. */
static unsigned char *guarded(size_t size)
{
    unsigned char *p = malloc(size + 4096);
    memset(p, 0, size);
    memset(p + size, 0xA5, 4096);
    return p;
}

static int canary_ok(const unsigned char *p, size_t size)
{
    for (size_t i = 0; i < 4096; i++)
        if (p[size + i] != 0xA5)
            return 0;
    return 1;
}

#define RESOLVE(h, var, type, name)                        \
    type var = (type)dlsym(h, name);                       \
    if (var == NULL) {                                     \
        fprintf(stderr, "missing %s (Go panics)\n", name); \
        return 1;                                          \
    }

int main(int argc, char **argv)
{
    char root[256];
    if (argc != 3) {
        fprintf(stderr, "usage: %s LIBRARY FIXTURES_DIR\n", argv[0]);
        return 2;
    }
    make_host_root(argv[2], "mi300x-cpx", root);
    unsetenv("HIPWIRE_TOPOLOGY_PEER_SIZE");

    void *h = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
    if (h == NULL) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    RESOLVE(h, accel_init, init_fn, "AccelInit");
    RESOLVE(h, get_count, count_fn, "AccelGetDeviceCount");
    RESOLVE(h, get_devices, devices_fn, "AccelGetAllDevices");
    RESOLVE(h, get_topology, topo_fn, "AccelGetAllDevicesTopology");
    RESOLVE(h, get_topology_sized, sized_topo_fn, "AccelGetAllDevicesTopologySized");
    RESOLVE(h, get_metrics, metrics_fn, "AccelGetDeviceMetrics");
    RESOLVE(h, assign, assign_fn, "AccelAssignPartition");
    RESOLVE(h, remove_part, remove_fn, "AccelRemovePartition");
    RESOLVE(h, mem_limit, limit_mem_fn, "AccelSetMemHardLimit");
    RESOLVE(h, cu_limit, limit_cu_fn, "AccelSetComputeUnitHardLimit");
    RESOLVE(h, reg_log, log_fn, "AccelRegisterLogCallback");

    CHECK(reg_log(log_cb) == 0);
    CHECK(accel_init() == 0);

    /* GetAllDevices: count, then a 64-entry stack-sized array */
    uintptr_t count = 0, got = 0;
    CHECK(get_count(&count) == 0);
    CHECK_EQ_U(count, 8);
    go_device *devs = calloc(64, sizeof(*devs));
    CHECK(get_devices(devs, count, &got) == 0);
    CHECK_EQ_U(got, 8);
    CHECK_STR((char *)devs[0].basic.firmwareVersion, "113-M3000100-102");
    CHECK_STR((char *)devs[0].basic.deviceNode, "/dev/dri/renderD128");
    CHECK(devs[0].caps.soft);
    /* the whole GPU needs /dev/kfd and all 8 of its partitions' nodes */
    CHECK_STR(prop(&devs[0], "deviceNodes"),
              "/dev/kfd,/dev/dri/renderD128,/dev/dri/renderD129,/dev/dri/renderD130,"
              "/dev/dri/renderD131,/dev/dri/renderD132,/dev/dri/renderD133,"
              "/dev/dri/renderD134,/dev/dri/renderD135");

    /* topology with the default (Go, 80-byte peer) layout */
    unsigned char *tb = guarded(sizeof(go_topology));
    go_topology *topo = (go_topology *)tb;
    CHECK(get_topology(topo) == 0);
    CHECK(canary_ok(tb, sizeof(go_topology)));
    CHECK_EQ_U(topo->deviceCount, 8);
    for (uintptr_t i = 0; i < topo->deviceCount; i++) {
        go_topo_row *r = &topo->devices[i];
        CHECK_STR((char *)r->deviceUUID, (char *)devs[i].basic.uuid);
        CHECK_EQ_U(r->peerCount, 7);
        for (uintptr_t j = 0; j < r->peerCount; j++) {
            go_topo_node *p = &r->peers[j];
            /* 72-byte peers would put the next peer's uuid here */
            /* KFD reports no bandwidth between MI300X GPUs in CPX mode */
            CHECK(p->bandwidthBytesPerSec == 0);
            CHECK(p->peerIndex >= 0 && p->peerIndex < 8 && p->peerIndex != (int32_t)i);
            CHECK_STR((char *)p->peerUUID, (char *)devs[p->peerIndex].basic.uuid);
            CHECK(p->topoLevel == 0); /* MI300X: XGMI between all 8 */
        }
    }
    CHECK(topo->devices[4].numaNode == 1);

    /* the 72-byte layout when configured: fits a 300040-byte struct */
    setenv("HIPWIRE_TOPOLOGY_PEER_SIZE", "72", 1);
    unsigned char *cb = guarded(300040);
    CHECK(get_topology((go_topology *)cb) == 0);
    CHECK(canary_ok(cb, 300040));
    /* second peer of row 0 at 72 + 72 bytes; deviceCount at the end */
    CHECK_STR((char *)cb + 72 + 72, (char *)topo->devices[0].peers[1].peerUUID);
    CHECK_EQ_U(*(size_t *)(cb + 300040 - 8), 8);
    setenv("HIPWIRE_TOPOLOGY_PEER_SIZE", "77", 1);
    CHECK(get_topology(topo) == 3); /* NOT_SUPPORTED: tolerated by Go */
    unsetenv("HIPWIRE_TOPOLOGY_PEER_SIZE");
    /* the sized entry point needs no setting */
    memset(tb, 0, sizeof(go_topology));
    CHECK(get_topology_sized(tb, sizeof(go_topology)) == 0);
    CHECK(canary_ok(tb, sizeof(go_topology)));
    CHECK_STR((char *)topo->devices[2].peers[3].peerUUID, (char *)devs[4].basic.uuid);
    CHECK(get_topology_sized(tb, 1234) == 1);
    CHECK(get_topology_sized(NULL, sizeof(go_topology)) == 1);

    /* metrics with lower-cased uuids; PCIe throughput is unknown here */
    char lower[8][64];
    const char *uuids[8];
    for (int i = 0; i < 8; i++) {
        for (int k = 0; k < 64; k++)
            lower[i][k] = (char)tolower(devs[i].basic.uuid[k]);
        uuids[i] = lower[i];
    }
    go_metrics *m = calloc(8, sizeof(*m));
    CHECK(get_metrics(uuids, 8, m) == 0);
    CHECK(m[2].powerUsageWatts == 320.0);
    CHECK(extra(&m[2], "pcieThroughputKnown") == 0);

    /* partitions: device nodes, and the index the pod will see */
    uint8_t tmpl[64] = "cpx_nps1", dev[64] = { 0 };
    memcpy(dev, lower[1], 64);
    go_partition_result *pr = calloc(1, sizeof(*pr));
    CHECK(assign(tmpl, dev, pr) == 0);
    CHECK(pr->type == 1); /* DEVICE_NODE: Go mounts deviceNodes */
    char want[80];
    snprintf(want, sizeof(want), "%s-p0", lower[1]);
    CHECK_STR((char *)pr->deviceUUID, want);
    CHECK_STR((char *)pr->deviceNodes[0], "/dev/kfd=/dev/kfd");
    CHECK_STR((char *)pr->deviceNodes[1], "/dev/dri/renderD136=/dev/dri/renderD136");
    CHECK_STR((char *)pr->deviceNodes[2], "");
    CHECK_STR((char *)pr->envVars[0], "ROCR_VISIBLE_DEVICES=0");
    /* RemovePartition(partitionUUID, parentUUID), as Go passes it */
    CHECK(remove_part(pr->deviceUUID, dev) == 0);
    CHECK(remove_part(pr->deviceUUID, dev) == 2);
    CHECK(remove_part(NULL, dev) == 1);

    /* hard limits: 0 is invalid, a real one not supported */
    CHECK(mem_limit(dev, 0) == 1);
    CHECK(mem_limit(dev, 1ull << 30) == 3);
    CHECK(cu_limit(dev, 0) == 1);
    CHECK(cu_limit(dev, 50) == 3);

    /* no unique_id: the UUID still differs between two hosts that share
     * PCI addresses (machine-id of the host root) */
    char cmd[2048], first_uuid[64];
    snprintf(cmd, sizeof(cmd),
             "sed -i '/^unique_id/d' %s/sys/class/kfd/kfd/topology/nodes/*/properties && "
             "rm -f %s/sys/class/drm/*/device/unique_id && mkdir -p %s/etc && "
             "echo 0123456789abcdef0123456789abcdef > %s/etc/machine-id",
             root, root, root, root);
    CHECK(system(cmd) == 0);
    CHECK(accel_init() == 0);
    CHECK(get_devices(devs, 8, &got) == 0);
    CHECK_STR((char *)devs[0].basic.uuid, "amdgpu-0123456789ab-pci-0000-05-00");
    memcpy(first_uuid, devs[0].basic.uuid, 64);
    snprintf(cmd, sizeof(cmd), "echo fedcba9876543210fedcba9876543210 > %s/etc/machine-id", root);
    CHECK(system(cmd) == 0);
    CHECK(accel_init() == 0);
    CHECK(get_devices(devs, 8, &got) == 0);
    CHECK(strcmp((char *)devs[0].basic.uuid, first_uuid) != 0);

    /* MI210: two XGMI hives of four; KFD gives 50000 MB/s inside a hive and
     * no link (bandwidth unknown: 0) across them */
    char root2[256];
    make_host_root(argv[2], "mi210-8gpu", root2);
    CHECK(accel_init() == 0);
    memset(tb, 0, sizeof(go_topology));
    CHECK(get_topology(topo) == 0);
    CHECK_EQ_U(topo->deviceCount, 8);
    int in_hive = 0, across = 0;
    for (uintptr_t j = 0; j < topo->devices[0].peerCount; j++) {
        const go_topo_node *p = &topo->devices[0].peers[j];
        if (p->topoLevel == 0) {
            CHECK(p->bandwidthBytesPerSec == 50000LL * 1000000);
            in_hive++;
        } else {
            CHECK(p->bandwidthBytesPerSec == 0);
            across++;
        }
    }
    CHECK(in_hive == 3 && across == 4);
    remove_tree(root2);

    CHECK(fatal_logs == 0);
    free(devs);
    free(tb);
    free(cb);
    free(m);
    free(pr);
    remove_tree(root);
    return test_report("provider_go_driver");
}
