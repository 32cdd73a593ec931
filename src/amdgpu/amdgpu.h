/*
 * amdgpu.h - the one reader of the amdgpu/amdkfd kernel interfaces.
 *
 * Everything hipwire knows about the AMD GPUs of a host comes through this
 * header: the KFD topology (/sys/class/kfd/kfd/topology), the DRM/PCI device
 * directories (/sys/class/drm/renderD<N>/device), their hwmon and gpu_metrics
 * files, the partition files, /sys/class/kfd/kfd/proc and
 * /sys/module/amdgpu/version. Only text and binary kernel files are read; no
 * vendor library is loaded.
 *
 * Every host path is prefixed with $HIPWIRE_HOST_ROOT when it is set, so the
 * same code runs against fixture trees (HIPWIRE_HOST_ROOT=/tmp/x reads
 * /tmp/x/sys/class/kfd/...). The variable is read on every call.
 *
 * Model: a physical GPU ("gpu") owns one or more logical devices
 * ("partitions"): each partition is one KFD GPU node with its own render
 * node. A GPU that is not partitioned (SPX, or an MI210) has exactly one.
 *
 * Conventions: functions return 0 on success and -1 on failure; on failure
 * they write a one-line reason into err (when err is not NULL) and leave
 * their out-parameters untouched. Numbers a file does not provide are 0
 * (numa_node: -1). All functions are thread-safe: there is no global state.
 */
#ifndef HIPWIRE_AMDGPU_H
#define HIPWIRE_AMDGPU_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define AMDGPU_ERR_LEN        256
#define AMDGPU_MAX_GPUS       64 /* physical GPUs per host */
#define AMDGPU_MAX_PARTITIONS 16 /* logical devices per GPU (MI300X CPX: 8) */
#define AMDGPU_PATH_LEN       512
#define AMDGPU_UUID_LEN       64

/* One logical device: one KFD GPU node (an XCP on MI300, the whole GPU
 * otherwise). */
typedef struct amdgpu_partition {
    uint32_t index;       /* 0.. within its GPU, in location_id order */
    uint32_t kfd_node;    /* topology/nodes/<kfd_node> */
    uint32_t gpu_id;      /* nodes/<N>/gpu_id (the id in kfd/proc file
                                  names); 0 if the file is absent */
    int render_minor;     /* /dev/dri/renderD<render_minor>; -1 if none */
    uint32_t location_id; /* raw KFD location_id */
    uint32_t simd_count;  /* all XCCs of the node */
    uint32_t simd_per_cu;
    uint32_t compute_units; /* simd_count / simd_per_cu */
    uint32_t num_xcc;
    uint64_t vram_bytes;        /* KFD mem_banks size, else the GPU's VRAM
                                  divided evenly; 0 if unknown */
    char uuid[AMDGPU_UUID_LEN]; /* "<gpu uuid>-p<index>", lower case */
} amdgpu_partition_t;

/* Link kinds between GPUs, from KFD io_links (CRAT io link types). */
typedef enum amdgpu_link_type {
    AMDGPU_LINK_NONE = 0, /* no direct io_link */
    AMDGPU_LINK_PCIE = 1,
    AMDGPU_LINK_XGMI = 2,
    AMDGPU_LINK_OTHER = 3,
    AMDGPU_LINK_SELF = 4
} amdgpu_link_type_t;

typedef struct amdgpu_gpu {
    uint32_t index;             /* 0.. in PCI (domain, bus, device) order */
    char uuid[AMDGPU_UUID_LEN]; /* "amdgpu-<unique_id as 16 hex>", or
                                  "amdgpu-<host>-pci-<dddd>-<bb>-<dd>"
                                  when the GPU reports no unique_id
                                  (<host>: 12 hex of /etc/machine-id, else
                                  of a hash of the host name, so the UUID is
                                  unique across a cluster); lower case */
    uint64_t unique_id;         /* 0 if none */
    uint32_t domain, bus, device;
    char bdf[16]; /* "0000:05:00.0" */
    uint32_t vendor_id, device_id;
    uint32_t gfx_target_version;           /* 90402 */
    char gfx_target[16];                   /* "gfx942" */
    char model[32];                        /* "MI300X"; see amdgpu_model_name() */
    char product_name[128];                /* FRU product_name, "" if absent */
    char vbios_version[64];                /* device/vbios_version, "" if absent */
    int numa_node;                         /* -1 if none */
    uint64_t hive_id;                      /* XGMI hive, 0 if none */
    uint32_t simd_count;                   /* sum over visible partitions */
    uint32_t compute_units;                /* physical CUs: the sum over partitions,
                                      or CUs per partition x
                                      mode_partition_count when fewer
                                      partitions are visible than the mode
                                      implies */
    uint32_t max_engine_clk_mhz;           /* max_engine_clk_fcompute */
    uint64_t vram_bytes;                   /* mem_info_vram_total, else the sum of
                                      the partitions' KFD mem_banks */
    uint32_t pcie_gen, pcie_width;         /* current link; 0 if unknown */
    int card_index;                        /* /dev/dri/card<N> of the primary; -1 */
    char device_dir[AMDGPU_PATH_LEN];      /* host path (root prefix applied) of
                                  the PCI device directory, "" if not found */
    char compute_partition[8];             /* current mode, "SPX".."CPX"; "" if the
                                      GPU has no partition support */
    char memory_partition[8];              /* "NPS1".. or "" */
    char available_compute_partitions[64]; /* "SPX, DPX, QPX, CPX" or "" */
    char available_memory_partitions[64];  /* "NPS1, NPS4" or "" */
    uint32_t partition_count;              /* visible logical devices (KFD nodes) */
    uint32_t mode_partition_count;         /* logical devices the current compute
                                      mode implies (SPX 1, DPX 2, TPX 3,
                                      QPX 4, CPX = XCCs, derived from the
                                      available modes); 0 if unknown. Larger
                                      than partition_count when the kernel
                                      ran out of DRM minors (the "only 63
                                      GPU devices" case of 8 x MI300X CPX) */
    amdgpu_partition_t partitions[AMDGPU_MAX_PARTITIONS];
    /* link_type[j]: how this GPU reaches GPU j (first partitions' KFD
     * io_links); link_weight[j] the KFD weight, 0 if none. */
    uint8_t link_type[AMDGPU_MAX_GPUS];
    uint32_t link_weight[AMDGPU_MAX_GPUS];
    uint64_t link_bandwidth_mbps[AMDGPU_MAX_GPUS]; /* that link's KFD max_bandwidth
                                                      (MB/s); 0 if not reported */
} amdgpu_gpu_t;

typedef struct amdgpu_system {
    uint32_t gpu_count;
    char driver_version[64]; /* /sys/module/amdgpu/version, "" if
                                      absent (in-tree driver) */
    amdgpu_gpu_t gpus[AMDGPU_MAX_GPUS];
} amdgpu_system_t;

/* Live readings of one GPU. Fields a host does not expose stay 0 and their
 * have_* flag 0. */
typedef struct amdgpu_metrics {
    double power_watts;        /* hwmon power1_input|power1_average,
                                      else gpu_metrics socket power */
    double temp_edge_c;        /* hwmon "edge" */
    double temp_junction_c;    /* hwmon "junction" (hotspot) */
    double temp_mem_c;         /* hwmon "mem" */
    uint32_t busy_percent;     /* gpu_busy_percent */
    uint32_t mem_busy_percent; /* mem_busy_percent */
    uint64_t vram_used_bytes;  /* mem_info_vram_used */
    uint64_t vram_total_bytes; /* mem_info_vram_total */
    double sclk_mhz;           /* hwmon freq1_input */
    double mclk_mhz;           /* hwmon freq2_input */
    unsigned have_power : 1, have_temp_edge : 1, have_temp_junction : 1, have_temp_mem : 1,
        have_busy : 1, have_vram : 1;
} amdgpu_metrics_t;

/* One (process, logical device) pair from /sys/class/kfd/kfd/proc. */
typedef struct amdgpu_process {
    pid_t pid;                /* host-namespace pid */
    uint32_t gpu_id;          /* KFD gpu_id of the logical device */
    uint32_t gpu_index;       /* amdgpu_system_t.gpus[] index */
    uint32_t partition_index; /* within that GPU */
    uint64_t vram_bytes;      /* vram_<gpu_id> */
    int32_t cu_occupancy;     /* stats_<gpu_id>/cu_occupancy, -1 if
                                      absent */
} amdgpu_process_t;

typedef enum amdgpu_partition_file {
    AMDGPU_CURRENT_COMPUTE_PARTITION,
    AMDGPU_AVAILABLE_COMPUTE_PARTITION,
    AMDGPU_CURRENT_MEMORY_PARTITION,
    AMDGPU_AVAILABLE_MEMORY_PARTITION
} amdgpu_partition_file_t;

/* Prefix an absolute host path with $HIPWIRE_HOST_ROOT. Returns 0, or -1
 * (out untouched) when the result does not fit outlen. */
int amdgpu_host_path(char *out, size_t outlen, const char *abs_path);

/* Read the whole host: KFD topology first (it is required: a host without
 * /sys/class/kfd/kfd/topology/nodes is an error), then for each GPU its DRM
 * device directory when one exists. A GPU with no DRM directory is still
 * listed with the KFD data. On success *out is a new heap object the caller
 * frees with amdgpu_system_free(). A host with zero GPUs succeeds with
 * gpu_count 0. GPUs beyond AMDGPU_MAX_GPUS and partitions beyond
 * AMDGPU_MAX_PARTITIONS are dropped. */
int amdgpu_system_load(amdgpu_system_t **out, char *err, size_t errlen);
void amdgpu_system_free(amdgpu_system_t *sys);

/* Find a GPU or one of its partitions by UUID, case-insensitively.
 * Returns the GPU (and *partition_out = the partition, or NULL when the
 * UUID names the whole GPU), or NULL when nothing matches. */
const amdgpu_gpu_t *amdgpu_find_uuid(const amdgpu_system_t *sys, const char *uuid,
                                     const amdgpu_partition_t **partition_out);

/* Marketing model name ("MI300X") for a PCI device id, or NULL when the id
 * is not in the table. */
const char *amdgpu_model_name(uint32_t device_id);

/* Peak dense FP16 matrix TFLOPS of a GPU: CUs x engine clock x the
 * architecture's FP16 FLOPs per CU per clock (packed-FP16 vector rate for
 * architectures without matrix cores). 0 when CUs or clock are unknown. */
double amdgpu_peak_tflops(uint32_t gfx_target_version, uint32_t compute_units,
                          uint32_t engine_clk_mhz);

/* Live readings for one GPU from its device_dir. A GPU whose directory
 * vanished is an error (out untouched); missing individual files are not. */
int amdgpu_metrics_read(const amdgpu_gpu_t *gpu, amdgpu_metrics_t *out, char *err, size_t errlen);

/* Host path of one of the GPU's partition files (in its PCI device
 * directory: secondary partitions have none). -1 when the GPU has no
 * device directory or the path does not fit. The file may not exist on
 * GPUs without partition support. */
int amdgpu_partition_file_path(const amdgpu_gpu_t *gpu, amdgpu_partition_file_t which, char *out,
                               size_t outlen);

/* Re-read the current compute and memory partition modes of one GPU
 * (after a mode change). Modes are upper case; "" when unsupported. */
int amdgpu_partition_modes_read(const amdgpu_gpu_t *gpu, char compute[8], char memory[8], char *err,
                                size_t errlen);

/* List KFD processes: one entry per (pid, logical device) with VRAM use,
 * mapped to sys's GPUs through gpu_id; entries of unknown gpu_ids are
 * skipped. Writes at most max entries and the number written to *count.
 * A missing /sys/class/kfd/kfd/proc is 0 entries, not an error. */
int amdgpu_processes_read(const amdgpu_system_t *sys, amdgpu_process_t *procs, size_t max,
                          size_t *count, char *err, size_t errlen);

/* /sys/module/amdgpu/version into out ("" when absent, not an error). */
int amdgpu_driver_version(char *out, size_t outlen);

#endif /* HIPWIRE_AMDGPU_H */
