/*
 * amdgpu_fixtures: the reader against the captured MI300X CPX and MI210
 * KFD trees plus the synthetic DRM/hwmon/proc files.
 */
#include "amdgpu.h"
#include "test_util.h"

#include <inttypes.h>

static const char *fixtures;

static void mi300x_cpx(void)
{
    char root[256], err[AMDGPU_ERR_LEN];
    amdgpu_system_t *sys = NULL;

    make_host_root(fixtures, "mi300x-cpx", root);
    CHECK(amdgpu_system_load(&sys, err, sizeof(err)) == 0);
    if (sys == NULL)
        goto out;
    CHECK_EQ_U(sys->gpu_count, 8);
    CHECK_STR(sys->driver_version, "6.10.5");
    for (uint32_t i = 0; i < sys->gpu_count; i++) {
        const amdgpu_gpu_t *g = &sys->gpus[i];
        CHECK_EQ_U(g->compute_units, 304);
        CHECK_STR(g->model, "MI300X");
        CHECK_STR(g->gfx_target, "gfx942");
        CHECK_STR(g->compute_partition, "CPX");
        CHECK_STR(g->memory_partition, "NPS1");
        CHECK_STR(g->available_compute_partitions, "SPX, DPX, QPX, CPX");
        CHECK_EQ_U(g->mode_partition_count, 8);
        CHECK_EQ_U(g->vram_bytes, 206158430208ull);
        CHECK_EQ_U(g->pcie_gen, 5);
        CHECK_EQ_U(g->pcie_width, 16);
        CHECK(g->numa_node == (int)(i / 4));
        CHECK(strncmp(g->uuid, "amdgpu-", 7) == 0 && strlen(g->uuid) == 23);
        /* the capture lost the last GPU's 8th partition to the DRM-minor
         * limit: 63 GPU nodes in all */
        CHECK_EQ_U(g->partition_count, i == 7 ? 7 : 8);
        for (uint32_t p = 0; p < g->partition_count; p++) {
            const amdgpu_partition_t *part = &g->partitions[p];
            char want[80];
            CHECK_EQ_U(part->compute_units, 38);
            CHECK_EQ_U(part->vram_bytes, 206158430208ull / 8);
            CHECK_EQ_U(part->index, p);
            CHECK(part->render_minor == (int)(128 + 8 * i + p));
            snprintf(want, sizeof(want), "%s-p%" PRIu32, g->uuid, p);
            CHECK_STR(part->uuid, want);
        }
        for (uint32_t j = 0; j < sys->gpu_count; j++)
            CHECK_EQ_U(g->link_type[j], i == j ? AMDGPU_LINK_SELF : AMDGPU_LINK_XGMI);
        CHECK(g->hive_id != 0);
    }
    /* first GPU: KFD node 2, unique_id 16404946649897475633, bus 5 */
    CHECK_STR(sys->gpus[0].uuid, "amdgpu-e3aa140f9a5f9e31");
    CHECK_STR(sys->gpus[0].bdf, "0000:05:00.0");
    CHECK_EQ_U(sys->gpus[0].partitions[0].kfd_node, 2);
    CHECK_EQ_U(sys->gpus[0].partitions[1].gpu_id, 40021);

    /* UUID lookup is case-insensitive and finds partitions */
    const amdgpu_partition_t *part = NULL;
    CHECK(amdgpu_find_uuid(sys, "AMDGPU-E3AA140F9A5F9E31-P3", &part) == &sys->gpus[0]);
    CHECK(part == &sys->gpus[0].partitions[3]);
    CHECK(amdgpu_find_uuid(sys, "amdgpu-e3aa140f9a5f9e31-p9", &part) == NULL);

    /* metrics: µW -> W, m°C -> °C, no edge sensor */
    amdgpu_metrics_t m;
    CHECK(amdgpu_metrics_read(&sys->gpus[2], &m, err, sizeof(err)) == 0);
    CHECK(m.have_power && m.power_watts == 320.0);
    CHECK(!m.have_temp_edge);
    CHECK(m.have_temp_junction && m.temp_junction_c == 42.0);
    CHECK(m.have_temp_mem && m.temp_mem_c == 51.0);
    CHECK_EQ_U(m.busy_percent, 2);
    CHECK_EQ_U(m.vram_used_bytes, 3ull << 30);
    CHECK(m.sclk_mhz == 2100.0);

    /* without hwmon, gpu_metrics v1.4 supplies power and temperatures */
    char rel[512];
    snprintf(rel, sizeof(rel),
             "rm -rf '%s/sys/class/drm/renderD144/device/"
             "hwmon'",
             root);
    CHECK(system(rel) == 0);
    CHECK(amdgpu_metrics_read(&sys->gpus[2], &m, err, sizeof(err)) == 0);
    CHECK(m.have_power && m.power_watts == 320.0);
    CHECK(m.have_temp_junction && m.temp_junction_c == 42.0);
    CHECK(m.have_temp_mem && m.temp_mem_c == 50.0);

    char path[AMDGPU_PATH_LEN];
    CHECK(amdgpu_partition_file_path(&sys->gpus[0], AMDGPU_CURRENT_COMPUTE_PARTITION, path,
                                     sizeof(path)) == 0);
    CHECK(strstr(path, "/sys/class/drm/renderD128/device/"
                       "current_compute_partition") != NULL);

    /* processes */
    amdgpu_process_t procs[8];
    size_t n = 0;
    CHECK(amdgpu_processes_read(sys, procs, 8, &n, err, sizeof(err)) == 0);
    CHECK_EQ_U(n, 3);
    int seen = 0;
    for (size_t i = 0; i < n; i++) {
        if (procs[i].pid == 4242 && procs[i].partition_index == 0) {
            CHECK_EQ_U(procs[i].gpu_index, 0);
            CHECK_EQ_U(procs[i].vram_bytes, 8ull << 30);
            CHECK(procs[i].cu_occupancy == 19);
            seen |= 1;
        } else if (procs[i].pid == 5151) {
            CHECK_EQ_U(procs[i].gpu_index, 3);
            seen |= 2;
        }
    }
    CHECK(seen == 3);
out:
    amdgpu_system_free(sys);
    remove_tree(root);
}

static void mi210(void)
{
    char root[256], err[AMDGPU_ERR_LEN];
    amdgpu_system_t *sys = NULL;

    make_host_root(fixtures, "mi210-8gpu", root);
    CHECK(amdgpu_system_load(&sys, err, sizeof(err)) == 0);
    if (sys == NULL)
        goto out;
    CHECK_EQ_U(sys->gpu_count, 8);
    for (uint32_t i = 0; i < sys->gpu_count; i++) {
        const amdgpu_gpu_t *g = &sys->gpus[i];
        CHECK_EQ_U(g->compute_units, 104);
        CHECK_EQ_U(g->partition_count, 1);
        CHECK_STR(g->model, "MI210");
        CHECK_STR(g->gfx_target, "gfx90a");
        CHECK_STR(g->compute_partition, "");
        CHECK_EQ_U(g->mode_partition_count, 0);
        /* two XGMI hives of four: 3 XGMI peers each, none across hives */
        uint32_t xgmi = 0;
        for (uint32_t j = 0; j < sys->gpu_count; j++) {
            if (g->link_type[j] == AMDGPU_LINK_XGMI) {
                xgmi++;
                CHECK(sys->gpus[j].hive_id == g->hive_id);
            }
        }
        CHECK_EQ_U(xgmi, 3);
    }
    /* the uuids are distinct */
    for (uint32_t i = 0; i < sys->gpu_count; i++)
        for (uint32_t j = i + 1; j < sys->gpu_count; j++)
            CHECK(strcmp(sys->gpus[i].uuid, sys->gpus[j].uuid) != 0);
    amdgpu_metrics_t m;
    CHECK(amdgpu_metrics_read(&sys->gpus[0], &m, err, sizeof(err)) == 0);
    CHECK(m.have_temp_edge && m.temp_edge_c >= 35.0);
    CHECK(m.have_power && m.power_watts >= 100.0);
    CHECK(amdgpu_peak_tflops(sys->gpus[0].gfx_target_version, 104, 1700) > 180.0);
out:
    amdgpu_system_free(sys);
    remove_tree(root);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s FIXTURES_DIR\n", argv[0]);
        return 2;
    }
    fixtures = argv[1];
    mi300x_cpx();
    mi210();
    return test_report("amdgpu_fixtures");
}
