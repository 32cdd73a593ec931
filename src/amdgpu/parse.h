/*
 * parse.h - pure parsers for amdgpu/amdkfd sysfs contents (internal).
 *
 * They take a buffer and a length (not necessarily NUL-terminated), never
 * read past it, and return 0 on success or -1 when the input is not what
 * the driver prints. They are the fuzzed surface (tests/provider/fuzz).
 */
#ifndef HIPWIRE_AMDGPU_PARSE_H
#define HIPWIRE_AMDGPU_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* A decimal unsigned number, surrounding whitespace allowed, nothing else. */
int parse_u64(const char *buf, size_t len, uint64_t *out);
/* A decimal signed number, same rules. */
int parse_i64(const char *buf, size_t len, int64_t *out);
/* A hex number with or without 0x ("%016llx" of unique_id). */
int parse_hex_u64(const char *buf, size_t len, uint64_t *out);

/* The KFD node/io_link "properties" keys hipwire uses. */
enum {
    KFD_SIMD_COUNT,
    KFD_SIMD_PER_CU,
    KFD_GFX_TARGET_VERSION,
    KFD_VENDOR_ID,
    KFD_DEVICE_ID,
    KFD_LOCATION_ID,
    KFD_DOMAIN,
    KFD_DRM_RENDER_MINOR,
    KFD_HIVE_ID,
    KFD_UNIQUE_ID,
    KFD_NUM_XCC,
    KFD_MAX_ENGINE_CLK_FCOMPUTE,
    KFD_LOCAL_MEM_SIZE,
    KFD_CPU_CORES_COUNT,
    /* io_links */
    KFD_TYPE,
    KFD_NODE_FROM,
    KFD_NODE_TO,
    KFD_WEIGHT,
    KFD_MAX_BANDWIDTH,
    /* mem_banks */
    KFD_SIZE_IN_BYTES,
    KFD_KEY_COUNT
};

typedef struct kfd_properties {
    uint64_t value[KFD_KEY_COUNT];
    uint32_t present; /* bit k set when key k was seen */
} kfd_properties_t;

/* "name value\n" lines as kfd_topology.c prints them. Unknown keys are
 * ignored; a line that is not "name <decimal>" makes it fail. */
int parse_kfd_properties(const char *buf, size_t len, kfd_properties_t *out);

/* First token of a partition mode file, upper-cased, if it is one of the
 * modes the driver prints (SPX DPX TPX QPX CPX / NPS1 NPS2 NPS3 NPS4 NPS6
 * NPS8). out must hold 8 bytes. */
int parse_partition_mode(const char *buf, size_t len, char out[8]);

/* "SPX, DPX, QPX, CPX" -> the same list normalised to upper case and ", "
 * separators, dropping unknown tokens ("Not supported" -> empty list). */
int parse_partition_list(const char *buf, size_t len, char *out, size_t outlen);

/* PCI current_link_speed ("16.0 GT/s PCIe", "2.5 GT/s") -> PCIe gen. */
int parse_link_speed_gen(const char *buf, size_t len, uint32_t *gen);

/* PCI_SLOT_NAME=dddd:bb:dd.f from a PCI uevent. */
int parse_uevent_slot(const char *buf, size_t len, uint32_t *domain, uint32_t *bus, uint32_t *dev,
                      uint32_t *fn);

/* The parts of a gpu_metrics blob hipwire reads. Temperatures in degrees C,
 * power in W, as the SMU tables define them; UINT16_MAX in the blob (the
 * driver's "not available") clears the have_ flag. */
typedef struct gpu_metrics_summary {
    uint8_t format_revision, content_revision;
    double temp_edge_c, temp_hotspot_c, temp_mem_c, socket_power_w;
    uint32_t gfx_activity;
    unsigned have_edge : 1, have_hotspot : 1, have_mem : 1, have_power : 1, have_activity : 1;
} gpu_metrics_summary_t;

/* Parse by the header (format 1 = dGPU; content 1..3 share the old layout,
 * 4 and later the MI300 layout). Fails on other formats, on a header whose
 * structure_size exceeds len, or a blob too short for the fields. */
int parse_gpu_metrics(const uint8_t *buf, size_t len, gpu_metrics_summary_t *out);

#endif /* HIPWIRE_AMDGPU_PARSE_H */
