/*
 * topology.c - enumerate physical GPUs and their partitions from the KFD
 * topology, then complete them from their DRM/PCI device directories.
 *
 * KFD lists one node per logical device. Partitions of one GPU share the
 * PCI bus and device number; the partition number sits in the function
 * bits of location_id (and, on newer kernels, in bits 31:28). So nodes are
 * grouped by (domain, bus, device) and ordered by that partition number.
 */
#include "hw_alloc.h"
#include "amdgpu.h"
#include "parse.h"
#include "sysfs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define MAX_KFD_NODES  1024
#define MAX_NODE_LINKS 256

/* CRAT io link types (kfd_crat.h) */
#define CRAT_IOLINK_TYPE_PCIEXPRESS 2
#define CRAT_IOLINK_TYPE_XGMI       11

typedef struct kfd_link {
    uint32_t to;
    uint32_t type;
    uint32_t weight;
    uint64_t max_bandwidth; /* MB/s, 0 if not reported */
} kfd_link_t;

typedef struct kfd_node {
    uint32_t id;
    kfd_properties_t props;
    uint32_t gpu_id;
    uint64_t mem_bytes;
    uint32_t link_count;
    kfd_link_t links[MAX_NODE_LINKS];
} kfd_node_t;

typedef struct scan {
    kfd_node_t *gpu_nodes; /* GPU nodes only */
    size_t gpu_node_count;
    uint32_t cpu_nodes[MAX_KFD_NODES]; /* KFD ids of CPU nodes, in order */
    size_t cpu_node_count;
} scan_t;

static uint64_t prop(const kfd_node_t *n, int key)
{
    return n->props.value[key];
}

static int is_number(const char *s)
{
    if (*s == '\0')
        return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return 0;
    return 1;
}

static int read_properties(const char *dir, kfd_properties_t *out)
{
    char path[AMDGPU_PATH_LEN + 64], buf[8192];
    long n;

    if (sysfs_join(path, sizeof(path), dir, "properties") != 0)
        return -1;
    n = sysfs_read(path, buf, sizeof(buf));
    if (n <= 0)
        return -1;
    return parse_kfd_properties(buf, (size_t)n, out);
}

/* Sum of nodes/N/mem_banks/<M>/properties size_in_bytes. */
static uint64_t read_mem_banks(const char *node_dir)
{
    char dir[AMDGPU_PATH_LEN + 64];
    uint64_t total = 0;
    struct dirent *de;
    DIR *d;

    if (sysfs_join(dir, sizeof(dir), node_dir, "mem_banks") != 0)
        return 0;
    d = opendir(dir);
    if (d == NULL)
        return 0;
    while ((de = readdir(d)) != NULL) {
        char bank[AMDGPU_PATH_LEN + 128];
        kfd_properties_t p;
        if (!is_number(de->d_name) || sysfs_join(bank, sizeof(bank), dir, de->d_name) != 0)
            continue;
        if (read_properties(bank, &p) == 0 && (p.present & (1u << KFD_SIZE_IN_BYTES)))
            total += p.value[KFD_SIZE_IN_BYTES];
    }
    closedir(d);
    return total;
}

static void read_links(const char *node_dir, kfd_node_t *n)
{
    char dir[AMDGPU_PATH_LEN + 64];
    struct dirent *de;
    DIR *d;

    if (sysfs_join(dir, sizeof(dir), node_dir, "io_links") != 0)
        return;
    d = opendir(dir);
    if (d == NULL)
        return;
    while ((de = readdir(d)) != NULL && n->link_count < MAX_NODE_LINKS) {
        char link[AMDGPU_PATH_LEN + 128];
        kfd_properties_t p;
        const uint32_t need = (1u << KFD_TYPE) | (1u << KFD_NODE_TO);
        if (!is_number(de->d_name) || sysfs_join(link, sizeof(link), dir, de->d_name) != 0)
            continue;
        if (read_properties(link, &p) != 0 || (p.present & need) != need)
            continue;
        kfd_link_t *l = &n->links[n->link_count++];
        l->to = (uint32_t)p.value[KFD_NODE_TO];
        l->type = (uint32_t)p.value[KFD_TYPE];
        l->weight = (uint32_t)p.value[KFD_WEIGHT];
        l->max_bandwidth = p.value[KFD_MAX_BANDWIDTH];
    }
    closedir(d);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int scan_nodes(scan_t *s, char *err, size_t errlen)
{
    char nodes_dir[AMDGPU_PATH_LEN];
    uint32_t ids[MAX_KFD_NODES];
    size_t id_count = 0;
    struct dirent *de;
    DIR *d;

    if (amdgpu_host_path(nodes_dir, sizeof(nodes_dir), "/sys/class/kfd/kfd/topology/nodes") != 0) {
        sysfs_set_error(err, errlen, "HIPWIRE_HOST_ROOT is too long");
        return -1;
    }
    d = opendir(nodes_dir);
    if (d == NULL) {
        sysfs_set_error(err, errlen,
                        "no KFD topology at %s: %s (is amdgpu "
                        "loaded?)",
                        nodes_dir, strerror(errno));
        return -1;
    }
    while ((de = readdir(d)) != NULL && id_count < MAX_KFD_NODES) {
        char *end;
        unsigned long v;
        if (!is_number(de->d_name))
            continue;
        errno = 0;
        v = strtoul(de->d_name, &end, 10);
        if (errno == 0 && v <= UINT32_MAX)
            ids[id_count++] = (uint32_t)v;
    }
    closedir(d);
    qsort(ids, id_count, sizeof(*ids), cmp_u32);

    s->gpu_nodes = hw_calloc(id_count ? id_count : 1, sizeof(*s->gpu_nodes));
    if (s->gpu_nodes == NULL) {
        sysfs_set_error(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < id_count; i++) {
        char node_dir[AMDGPU_PATH_LEN + 32];
        kfd_node_t *n = &s->gpu_nodes[s->gpu_node_count];
        uint64_t v;

        snprintf(node_dir, sizeof(node_dir), "%s/%" PRIu32, nodes_dir, ids[i]);
        memset(n, 0, sizeof(*n));
        /* a node whose properties are unreadable or garbled is skipped:
         * there is nothing safe to report about it */
        if (read_properties(node_dir, &n->props) != 0)
            continue;
        if (prop(n, KFD_SIMD_COUNT) == 0) {
            s->cpu_nodes[s->cpu_node_count++] = ids[i];
            continue;
        }
        n->id = ids[i];
        if (sysfs_read_u64(node_dir, "gpu_id", &v) == 0 && v <= UINT32_MAX)
            n->gpu_id = (uint32_t)v;
        n->mem_bytes = read_mem_banks(node_dir);
        read_links(node_dir, n);
        s->gpu_node_count++;
    }
    return 0;
}

static uint32_t loc_bus(uint64_t loc)
{
    return (uint32_t)(loc >> 8) & 0xff;
}
static uint32_t loc_dev(uint64_t loc)
{
    return (uint32_t)(loc >> 3) & 0x1f;
}
static uint32_t loc_part(uint64_t loc)
{
    return (uint32_t)(loc & 7) | (uint32_t)((loc >> 28) & 0xf) << 3;
}

static uint64_t gpu_key(const kfd_node_t *n)
{
    return prop(n, KFD_DOMAIN) << 16 | (uint64_t)loc_bus(prop(n, KFD_LOCATION_ID)) << 8 |
           (uint64_t)loc_dev(prop(n, KFD_LOCATION_ID)) << 3;
}

static int cmp_nodes(const void *a, const void *b)
{
    const kfd_node_t *x = a, *y = b;
    uint64_t kx = gpu_key(x), ky = gpu_key(y);
    if (kx != ky)
        return kx < ky ? -1 : 1;
    uint32_t px = loc_part(prop(x, KFD_LOCATION_ID));
    uint32_t py = loc_part(prop(y, KFD_LOCATION_ID));
    if (px != py)
        return px < py ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static void gfx_target_name(uint32_t v, char out[16])
{
    unsigned major = v / 10000, minor = (v / 100) % 100, step = v % 100;
    if (v == 0 || minor > 15 || step > 15)
        snprintf(out, 16, "%s", v ? "gfx?" : "");
    else
        snprintf(out, 16, "gfx%u%x%x", major, minor, step);
}

/* Is dir the PCI device of this GPU? A dir without uevent is trusted. */
static int device_dir_matches(const char *dir, const amdgpu_gpu_t *g)
{
    char path[AMDGPU_PATH_LEN + 16], buf[1024];
    uint32_t d, b, v, f;
    long n;

    if (access(dir, F_OK) != 0)
        return 0;
    if (sysfs_join(path, sizeof(path), dir, "uevent") != 0)
        return 0;
    n = sysfs_read(path, buf, sizeof(buf));
    if (n <= 0)
        return 1;
    if (parse_uevent_slot(buf, (size_t)n, &d, &b, &v, &f) != 0)
        return 0; /* a platform device: a secondary partition */
    return d == g->domain && b == g->bus && v == g->device;
}

static void find_device_dir(amdgpu_gpu_t *g)
{
    char drm[AMDGPU_PATH_LEN], dir[AMDGPU_PATH_LEN];
    struct dirent *de;
    DIR *d;

    if (amdgpu_host_path(drm, sizeof(drm), "/sys/class/drm") != 0)
        return;
    if (g->partitions[0].render_minor >= 0) {
        int n =
            snprintf(dir, sizeof(dir), "%s/renderD%d/device", drm, g->partitions[0].render_minor);
        if (n > 0 && (size_t)n < sizeof(dir) && device_dir_matches(dir, g)) {
            memcpy(g->device_dir, dir, (size_t)n + 1);
            return;
        }
    }
    /* render minors can be renumbered; fall back to matching the BDF */
    d = opendir(drm);
    if (d == NULL)
        return;
    while ((de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, "renderD", 7) != 0)
            continue;
        int n = snprintf(dir, sizeof(dir), "%s/%s/device", drm, de->d_name);
        if (n <= 0 || (size_t)n >= sizeof(dir))
            continue;
        char uevent[AMDGPU_PATH_LEN + 16];
        /* only a dir with a matching uevent counts here */
        if (sysfs_join(uevent, sizeof(uevent), dir, "uevent") == 0 && access(uevent, F_OK) == 0 &&
            device_dir_matches(dir, g)) {
            memcpy(g->device_dir, dir, (size_t)n + 1);
            break;
        }
    }
    closedir(d);
}

static int find_card_index(const char *device_dir)
{
    char dir[AMDGPU_PATH_LEN + 8];
    struct dirent *de;
    int card = -1;
    DIR *d;

    if (sysfs_join(dir, sizeof(dir), device_dir, "drm") != 0)
        return -1;
    d = opendir(dir);
    if (d == NULL)
        return -1;
    while ((de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, "card", 4) == 0 && is_number(de->d_name + 4)) {
            card = atoi(de->d_name + 4);
            break;
        }
    }
    closedir(d);
    return card;
}

/* Fill what the PCI device directory adds to the KFD view. */
static void read_device_dir(amdgpu_gpu_t *g)
{
    char buf[256];
    uint64_t v;
    int64_t sv;

    find_device_dir(g);
    if (g->device_dir[0] == '\0')
        return;
    const char *dir = g->device_dir;
    if (sysfs_read_u64(dir, "mem_info_vram_total", &v) == 0)
        g->vram_bytes = v;
    if (g->unique_id == 0 && sysfs_read_line(dir, "unique_id", buf, sizeof(buf)) == 0 &&
        parse_hex_u64(buf, strlen(buf), &v) == 0)
        g->unique_id = v;
    if (sysfs_read_line(dir, "product_name", g->product_name, sizeof(g->product_name)) != 0)
        g->product_name[0] = '\0';
    if (sysfs_read_line(dir, "vbios_version", g->vbios_version, sizeof(g->vbios_version)) != 0)
        g->vbios_version[0] = '\0';
    if (sysfs_read_line(dir, "current_link_speed", buf, sizeof(buf)) == 0)
        parse_link_speed_gen(buf, strlen(buf), &g->pcie_gen);
    if (sysfs_read_u64(dir, "current_link_width", &v) == 0 && v <= 32)
        g->pcie_width = (uint32_t)v;
    if (sysfs_read_i64(dir, "numa_node", &sv) == 0 && sv >= 0 && sv < 4096)
        g->numa_node = (int)sv;
    amdgpu_partition_modes_read(g, g->compute_partition, g->memory_partition, NULL, 0);
    if (sysfs_read_line(dir, "available_compute_partition", buf, sizeof(buf)) == 0)
        parse_partition_list(buf, strlen(buf), g->available_compute_partitions,
                             sizeof(g->available_compute_partitions));
    if (sysfs_read_line(dir, "available_memory_partition", buf, sizeof(buf)) == 0)
        parse_partition_list(buf, strlen(buf), g->available_memory_partitions,
                             sizeof(g->available_memory_partitions));
    g->card_index = find_card_index(dir);
}

/* XCCs per GPU from the available modes: QPX needs 8, TPX 6, DPX 4
 * (amdgpu_gfx.c); then the partition count of the current mode. */
static uint32_t mode_partitions(const amdgpu_gpu_t *g)
{
    const char *avail = g->available_compute_partitions;
    const char *mode = g->compute_partition;
    uint32_t xcc = strstr(avail, "QPX")   ? 8
                   : strstr(avail, "TPX") ? 6
                   : strstr(avail, "DPX") ? 4
                                          : 0;

    if (strcmp(mode, "SPX") == 0)
        return 1;
    if (xcc == 0)
        return 0;
    if (strcmp(mode, "DPX") == 0)
        return 2;
    if (strcmp(mode, "TPX") == 0)
        return 3;
    if (strcmp(mode, "QPX") == 0)
        return 4;
    if (strcmp(mode, "CPX") == 0)
        return xcc;
    return 0;
}

static int numa_from_kfd(const scan_t *s, const kfd_node_t *n)
{
    for (uint32_t l = 0; l < n->link_count; l++) {
        if (n->links[l].type != CRAT_IOLINK_TYPE_PCIEXPRESS)
            continue;
        for (size_t c = 0; c < s->cpu_node_count; c++)
            if (s->cpu_nodes[c] == n->links[l].to)
                return (int)c;
    }
    return -1;
}

/* 12 hex digits naming this host: /etc/machine-id, else an FNV-1a hash of
 * the host name. A PCI address alone repeats on every node of a cluster,
 * and the hypervisor keys devices by UUID cluster-wide. */
static void host_tag(char out[13])
{
    char path[AMDGPU_PATH_LEN], buf[128];
    uint64_t h = UINT64_C(0xcbf29ce484222325);

    if (amdgpu_host_path(path, sizeof(path), "/etc") == 0 &&
        sysfs_read_line(path, "machine-id", buf, sizeof(buf)) == 0 && strlen(buf) >= 12) {
        for (int i = 0; i < 12; i++)
            out[i] = (char)tolower((unsigned char)buf[i]);
        out[12] = '\0';
        if (strspn(out, "0123456789abcdef") == 12)
            return;
    }
    if (gethostname(buf, sizeof(buf)) != 0)
        buf[0] = '\0';
    buf[sizeof(buf) - 1] = '\0';
    for (const char *c = buf; *c; c++)
        h = (h ^ (unsigned char)*c) * UINT64_C(0x100000001b3);
    snprintf(out, 13, "%012" PRIx64, h & UINT64_C(0xffffffffffff));
}

static void set_uuids(amdgpu_gpu_t *g)
{
    if (g->unique_id != 0) {
        snprintf(g->uuid, sizeof(g->uuid), "amdgpu-%016" PRIx64, g->unique_id);
    } else {
        char tag[13];
        host_tag(tag);
        snprintf(g->uuid, sizeof(g->uuid), "amdgpu-%s-pci-%04" PRIx32 "-%02" PRIx32 "-%02" PRIx32,
                 tag, g->domain, g->bus, g->device);
    }
    /* A local copy: gcc -O2 cannot tell g->uuid from the partitions' own
     * buffers and rejects the snprintf under -Werror=restrict. */
    char base[sizeof(g->uuid)];
    memcpy(base, g->uuid, sizeof base);
    for (uint32_t p = 0; p < g->partition_count; p++)
        snprintf(g->partitions[p].uuid, sizeof(g->partitions[p].uuid), "%.48s-p%" PRIu32, base, p);
}

/* Build the GPU at sorted nodes [first, last). */
static void build_gpu(const scan_t *s, const kfd_node_t *nodes, size_t first, size_t last,
                      amdgpu_gpu_t *g, uint32_t index)
{
    const kfd_node_t *primary = &nodes[first];
    uint64_t loc = prop(primary, KFD_LOCATION_ID);
    uint64_t kfd_mem = 0;

    memset(g, 0, sizeof(*g));
    g->index = index;
    g->numa_node = -1;
    g->card_index = -1;
    g->domain = (uint32_t)prop(primary, KFD_DOMAIN);
    g->bus = loc_bus(loc);
    g->device = loc_dev(loc);
    snprintf(g->bdf, sizeof(g->bdf), "%04" PRIx32 ":%02" PRIx32 ":%02" PRIx32 ".0",
             g->domain & 0xffff, g->bus, g->device);
    g->vendor_id = (uint32_t)prop(primary, KFD_VENDOR_ID);
    g->device_id = (uint32_t)prop(primary, KFD_DEVICE_ID);
    g->gfx_target_version = (uint32_t)prop(primary, KFD_GFX_TARGET_VERSION);
    gfx_target_name(g->gfx_target_version, g->gfx_target);
    g->hive_id = prop(primary, KFD_HIVE_ID);
    g->unique_id = prop(primary, KFD_UNIQUE_ID);
    g->max_engine_clk_mhz = (uint32_t)prop(primary, KFD_MAX_ENGINE_CLK_FCOMPUTE);
    for (size_t i = first; i < last && g->partition_count < AMDGPU_MAX_PARTITIONS; i++) {
        const kfd_node_t *n = &nodes[i];
        amdgpu_partition_t *p = &g->partitions[g->partition_count];
        p->index = g->partition_count++;
        p->kfd_node = n->id;
        p->gpu_id = n->gpu_id;
        p->render_minor = (n->props.present & (1u << KFD_DRM_RENDER_MINOR))
                              ? (int)prop(n, KFD_DRM_RENDER_MINOR)
                              : -1;
        p->location_id = (uint32_t)prop(n, KFD_LOCATION_ID);
        p->simd_count = (uint32_t)prop(n, KFD_SIMD_COUNT);
        p->simd_per_cu = (uint32_t)prop(n, KFD_SIMD_PER_CU);
        p->compute_units = p->simd_per_cu ? p->simd_count / p->simd_per_cu : 0;
        p->num_xcc = (uint32_t)prop(n, KFD_NUM_XCC);
        p->vram_bytes = n->mem_bytes;
        kfd_mem += n->mem_bytes;
        g->simd_count += p->simd_count;
        g->compute_units += p->compute_units;
    }
    g->vram_bytes = kfd_mem;
    g->numa_node = numa_from_kfd(s, primary);
    const char *model = amdgpu_model_name(g->device_id);
    if (model)
        snprintf(g->model, sizeof(g->model), "%s", model);
    else
        snprintf(g->model, sizeof(g->model), "AMD GPU 0x%04" PRIx32, g->device_id);
}

/* link_type/weight between GPUs from the primary partitions' io_links. */
static void fill_links(amdgpu_system_t *sys, const kfd_node_t *nodes, const size_t *primary_of)
{
    for (uint32_t i = 0; i < sys->gpu_count; i++) {
        amdgpu_gpu_t *g = &sys->gpus[i];
        const kfd_node_t *n = &nodes[primary_of[i]];
        g->link_type[i] = AMDGPU_LINK_SELF;
        for (uint32_t l = 0; l < n->link_count; l++) {
            const kfd_link_t *lk = &n->links[l];
            const amdgpu_partition_t *p = NULL;
            for (uint32_t j = 0; j < sys->gpu_count && p == NULL; j++) {
                if (j == i)
                    continue;
                for (uint32_t k = 0; k < sys->gpus[j].partition_count; k++) {
                    if (sys->gpus[j].partitions[k].kfd_node == lk->to) {
                        p = &sys->gpus[j].partitions[k];
                        if (g->link_type[j] == AMDGPU_LINK_NONE || lk->weight < g->link_weight[j]) {
                            g->link_type[j] = lk->type == CRAT_IOLINK_TYPE_XGMI ? AMDGPU_LINK_XGMI
                                              : lk->type == CRAT_IOLINK_TYPE_PCIEXPRESS
                                                  ? AMDGPU_LINK_PCIE
                                                  : AMDGPU_LINK_OTHER;
                            g->link_weight[j] = lk->weight;
                            g->link_bandwidth_mbps[j] = lk->max_bandwidth;
                        }
                        break;
                    }
                }
            }
        }
    }
}

int amdgpu_system_load(amdgpu_system_t **out, char *err, size_t errlen)
{
    scan_t *s = NULL;
    amdgpu_system_t *sys = NULL;
    size_t primary_of[AMDGPU_MAX_GPUS];
    int rc = -1;

    if (out == NULL) {
        sysfs_set_error(err, errlen, "amdgpu_system_load: out is NULL");
        return -1;
    }
    s = hw_calloc(1, sizeof(*s));
    sys = hw_calloc(1, sizeof(*sys));
    if (s == NULL || sys == NULL) {
        sysfs_set_error(err, errlen, "out of memory");
        goto cleanup;
    }
    if (scan_nodes(s, err, errlen) != 0)
        goto cleanup;
    qsort(s->gpu_nodes, s->gpu_node_count, sizeof(*s->gpu_nodes), cmp_nodes);

    for (size_t i = 0; i < s->gpu_node_count && sys->gpu_count < AMDGPU_MAX_GPUS;) {
        size_t j = i + 1;
        while (j < s->gpu_node_count && gpu_key(&s->gpu_nodes[j]) == gpu_key(&s->gpu_nodes[i]))
            j++;
        primary_of[sys->gpu_count] = i;
        build_gpu(s, s->gpu_nodes, i, j, &sys->gpus[sys->gpu_count], sys->gpu_count);
        sys->gpu_count++;
        i = j;
    }
    fill_links(sys, s->gpu_nodes, primary_of);
    for (uint32_t i = 0; i < sys->gpu_count; i++) {
        amdgpu_gpu_t *g = &sys->gpus[i];
        uint64_t kfd_mem = g->vram_bytes;
        read_device_dir(g);
        g->mode_partition_count = mode_partitions(g);
        uint32_t shares = g->partition_count;
        if (g->mode_partition_count > g->partition_count &&
            g->mode_partition_count <= AMDGPU_MAX_PARTITIONS) {
            /* partitions are uniform; count the invisible ones too */
            g->compute_units = g->partitions[0].compute_units * g->mode_partition_count;
            shares = g->mode_partition_count;
        }
        /* partitions without a KFD memory bank share the GPU evenly */
        for (uint32_t p = 0; p < g->partition_count; p++)
            if (g->partitions[p].vram_bytes == 0 || kfd_mem == 0)
                g->partitions[p].vram_bytes = g->vram_bytes / shares;
        set_uuids(g);
    }
    amdgpu_driver_version(sys->driver_version, sizeof(sys->driver_version));
    *out = sys;
    sys = NULL;
    rc = 0;
cleanup:
    if (s)
        free(s->gpu_nodes);
    free(s);
    free(sys);
    return rc;
}

void amdgpu_system_free(amdgpu_system_t *sys)
{
    free(sys);
}

const amdgpu_gpu_t *amdgpu_find_uuid(const amdgpu_system_t *sys, const char *uuid,
                                     const amdgpu_partition_t **partition_out)
{
    if (sys == NULL || uuid == NULL)
        return NULL;
    for (uint32_t i = 0; i < sys->gpu_count; i++) {
        const amdgpu_gpu_t *g = &sys->gpus[i];
        if (strcasecmp(g->uuid, uuid) == 0) {
            if (partition_out)
                *partition_out = NULL;
            return g;
        }
        for (uint32_t p = 0; p < g->partition_count; p++) {
            if (strcasecmp(g->partitions[p].uuid, uuid) == 0) {
                if (partition_out)
                    *partition_out = &g->partitions[p];
                return g;
            }
        }
    }
    return NULL;
}
