/*
 * device.c - live readings and partition files of one GPU's PCI device
 * directory (hwmon, mem_info_*, gpu_busy_percent, gpu_metrics).
 */
#include "hw_alloc.h"
#include "amdgpu.h"
#include "parse.h"
#include "sysfs.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int first_hwmon(const char *device_dir, char *out, size_t outlen)
{
    char dir[AMDGPU_PATH_LEN + 16];
    struct dirent *de;
    int rc = -1;
    DIR *d;

    if (sysfs_join(dir, sizeof(dir), device_dir, "hwmon") != 0)
        return -1;
    d = opendir(dir);
    if (d == NULL)
        return -1;
    while ((de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, "hwmon", 5) == 0) {
            int n = snprintf(out, outlen, "%s/%s", dir, de->d_name);
            rc = (n > 0 && (size_t)n < outlen) ? 0 : -1;
            break;
        }
    }
    closedir(d);
    return rc;
}

/* amdgpu labels temp1..3 "edge", "junction", "mem"; without labels the
 * index decides. */
static void read_temps(const char *hwmon, amdgpu_metrics_t *m)
{
    for (int i = 1; i <= 3; i++) {
        char name[32], label[32];
        int64_t mc;

        snprintf(name, sizeof(name), "temp%d_input", i);
        if (sysfs_read_i64(hwmon, name, &mc) != 0 || mc < -273000 || mc > 1000000)
            continue;
        snprintf(name, sizeof(name), "temp%d_label", i);
        if (sysfs_read_line(hwmon, name, label, sizeof(label)) != 0)
            snprintf(label, sizeof(label), "%s", i == 1 ? "edge" : i == 2 ? "junction" : "mem");
        double c = (double)mc / 1000.0; /* m°C */
        if (strcmp(label, "edge") == 0) {
            m->temp_edge_c = c;
            m->have_temp_edge = 1;
        } else if (strcmp(label, "junction") == 0 || strcmp(label, "hotspot") == 0) {
            m->temp_junction_c = c;
            m->have_temp_junction = 1;
        } else if (strcmp(label, "mem") == 0) {
            m->temp_mem_c = c;
            m->have_temp_mem = 1;
        }
    }
}

static void read_gpu_metrics(const char *dir, amdgpu_metrics_t *m)
{
    char path[AMDGPU_PATH_LEN + 16];
    static const size_t max = 128 * 1024; /* the driver's upper bound */
    gpu_metrics_summary_t s;
    char *buf;
    long n;

    if (sysfs_join(path, sizeof(path), dir, "gpu_metrics") != 0)
        return;
    if (access(path, R_OK) != 0)
        return;
    buf = hw_malloc(max);
    if (buf == NULL)
        return;
    n = sysfs_read(path, buf, max);
    if (n > 0 && parse_gpu_metrics((const uint8_t *)buf, (size_t)n, &s) == 0) {
        if (!m->have_power && s.have_power) {
            m->power_watts = s.socket_power_w;
            m->have_power = 1;
        }
        if (!m->have_temp_edge && s.have_edge) {
            m->temp_edge_c = s.temp_edge_c;
            m->have_temp_edge = 1;
        }
        if (!m->have_temp_junction && s.have_hotspot) {
            m->temp_junction_c = s.temp_hotspot_c;
            m->have_temp_junction = 1;
        }
        if (!m->have_temp_mem && s.have_mem) {
            m->temp_mem_c = s.temp_mem_c;
            m->have_temp_mem = 1;
        }
        if (!m->have_busy && s.have_activity && s.gfx_activity <= 100) {
            m->busy_percent = s.gfx_activity;
            m->have_busy = 1;
        }
    }
    free(buf);
}

int amdgpu_metrics_read(const amdgpu_gpu_t *gpu, amdgpu_metrics_t *out, char *err, size_t errlen)
{
    amdgpu_metrics_t m;
    char hwmon[AMDGPU_PATH_LEN + 64];
    uint64_t v;

    if (gpu == NULL || out == NULL) {
        sysfs_set_error(err, errlen, "amdgpu_metrics_read: NULL argument");
        return -1;
    }
    if (gpu->device_dir[0] == '\0') {
        sysfs_set_error(err, errlen, "GPU %s has no PCI device directory", gpu->bdf);
        return -1;
    }
    if (access(gpu->device_dir, F_OK) != 0) {
        sysfs_set_error(err, errlen, "GPU %s: %s: %s", gpu->bdf, gpu->device_dir, strerror(errno));
        return -1;
    }
    memset(&m, 0, sizeof(m));
    const char *dir = gpu->device_dir;
    if (sysfs_read_u64(dir, "gpu_busy_percent", &v) == 0 && v <= 100) {
        m.busy_percent = (uint32_t)v;
        m.have_busy = 1;
    }
    if (sysfs_read_u64(dir, "mem_busy_percent", &v) == 0 && v <= 100)
        m.mem_busy_percent = (uint32_t)v;
    if (sysfs_read_u64(dir, "mem_info_vram_used", &v) == 0) {
        m.vram_used_bytes = v;
        m.have_vram = 1;
    }
    if (sysfs_read_u64(dir, "mem_info_vram_total", &v) == 0)
        m.vram_total_bytes = v;
    if (first_hwmon(dir, hwmon, sizeof(hwmon)) == 0) {
        /* µW; power1_input is the instantaneous reading on newer kernels */
        if (sysfs_read_u64(hwmon, "power1_input", &v) == 0 ||
            sysfs_read_u64(hwmon, "power1_average", &v) == 0) {
            m.power_watts = (double)v / 1e6;
            m.have_power = 1;
        }
        read_temps(hwmon, &m);
        if (sysfs_read_u64(hwmon, "freq1_input", &v) == 0)
            m.sclk_mhz = (double)v / 1e6; /* Hz */
        if (sysfs_read_u64(hwmon, "freq2_input", &v) == 0)
            m.mclk_mhz = (double)v / 1e6;
    }
    read_gpu_metrics(dir, &m);
    *out = m;
    return 0;
}

static const char *const partition_file_names[] = {
    [AMDGPU_CURRENT_COMPUTE_PARTITION] = "current_compute_partition",
    [AMDGPU_AVAILABLE_COMPUTE_PARTITION] = "available_compute_partition",
    [AMDGPU_CURRENT_MEMORY_PARTITION] = "current_memory_partition",
    [AMDGPU_AVAILABLE_MEMORY_PARTITION] = "available_memory_partition",
};

int amdgpu_partition_file_path(const amdgpu_gpu_t *gpu, amdgpu_partition_file_t which, char *out,
                               size_t outlen)
{
    if (gpu == NULL || out == NULL || gpu->device_dir[0] == '\0' ||
        (unsigned)which >= sizeof(partition_file_names) / sizeof(*partition_file_names))
        return -1;
    char tmp[AMDGPU_PATH_LEN + 64];
    if (sysfs_join(tmp, sizeof(tmp), gpu->device_dir, partition_file_names[which]) != 0 ||
        strlen(tmp) >= outlen)
        return -1;
    memcpy(out, tmp, strlen(tmp) + 1);
    return 0;
}

int amdgpu_partition_modes_read(const amdgpu_gpu_t *gpu, char compute[8], char memory[8], char *err,
                                size_t errlen)
{
    char c[8] = "", m[8] = "", buf[64];

    if (gpu == NULL || compute == NULL || memory == NULL) {
        sysfs_set_error(err, errlen,
                        "amdgpu_partition_modes_read: NULL "
                        "argument");
        return -1;
    }
    if (gpu->device_dir[0] == '\0' || access(gpu->device_dir, F_OK) != 0) {
        sysfs_set_error(err, errlen, "GPU %s has no PCI device directory", gpu->bdf);
        return -1;
    }
    if (sysfs_read_line(gpu->device_dir, "current_compute_partition", buf, sizeof(buf)) == 0)
        parse_partition_mode(buf, strlen(buf), c);
    if (sysfs_read_line(gpu->device_dir, "current_memory_partition", buf, sizeof(buf)) == 0)
        parse_partition_mode(buf, strlen(buf), m);
    memcpy(compute, c, sizeof(c));
    memcpy(memory, m, sizeof(m));
    return 0;
}
