/*
 * amdgpu_bad_data: missing, empty and garbage files, and a GPU vanishing
 * between calls give clear errors or zeros, never a crash.
 */
#include "amdgpu.h"
#include "test_util.h"

static const char *fixtures;

static void run(const char *root, const char *cmd)
{
    char buf[1024];
    snprintf(buf, sizeof(buf), "cd '%s' && %s", root, cmd);
    if (system(buf) != 0) {
        fprintf(stderr, "failed: %s\n", buf);
        test_failures++;
    }
}

int main(int argc, char **argv)
{
    char root[256], err[AMDGPU_ERR_LEN];
    amdgpu_system_t *sys = NULL, *keep = (amdgpu_system_t *)&err;
    amdgpu_metrics_t m;

    if (argc != 2)
        return 2;
    fixtures = argv[1];

    /* no KFD at all: an error that names the path; out untouched */
    setenv("HIPWIRE_HOST_ROOT", "/nonexistent-hipwire-root", 1);
    sys = keep;
    CHECK(amdgpu_system_load(&sys, err, sizeof(err)) == -1);
    CHECK(sys == keep);
    CHECK(strstr(err, "/nonexistent-hipwire-root/sys/class/kfd") != NULL);
    sys = NULL;

    make_host_root(fixtures, "mi210-8gpu", root);
    const char *t = "sys/class/kfd/kfd/topology/nodes";
    /* node 2: garbage number; node 3: empty; node 4: no properties;
     * node 5: binary junk; node 6: huge number */
    write_file(root, "/sys/class/kfd/kfd/topology/nodes/2/properties", "simd_count 4x16\n");
    write_file(root, "/sys/class/kfd/kfd/topology/nodes/3/properties", "");
    run(root, "rm sys/class/kfd/kfd/topology/nodes/4/properties");
    write_file(root, "/sys/class/kfd/kfd/topology/nodes/5/properties",
               "\x01\x02 \xff\xfe\n\n   \n");
    write_file(root, "/sys/class/kfd/kfd/topology/nodes/6/properties",
               "simd_count 99999999999999999999999\n");
    (void)t;
    /* device files of the GPU at node 7 (render 133): garbage and empty */
    run(root, "cd sys/class/drm/renderD133/device && echo lots > "
              "gpu_busy_percent && : > mem_info_vram_used && echo -5 > "
              "mem_info_vram_total && echo 'fast' > current_link_speed && "
              "echo zz > unique_id && echo junk > hwmon/hwmon5/power1_average"
              " && echo 999999999 > hwmon/hwmon5/temp1_input");
    CHECK(amdgpu_system_load(&sys, err, sizeof(err)) == 0);
    if (sys) {
        CHECK_EQ_U(sys->gpu_count, 3); /* nodes 7, 8, 9 remain */
        for (uint32_t i = 0; i < sys->gpu_count; i++)
            CHECK_EQ_U(sys->gpus[i].compute_units, 104);
        /* the GPU at node 7 lost only the broken readings */
        const amdgpu_gpu_t *g = NULL;
        for (uint32_t i = 0; i < sys->gpu_count; i++)
            if (sys->gpus[i].partitions[0].kfd_node == 7)
                g = &sys->gpus[i];
        CHECK(g != NULL);
        if (g) {
            CHECK_EQ_U(g->vram_bytes, 0);
            CHECK_EQ_U(g->pcie_gen, 0);
            CHECK(g->unique_id != 0); /* KFD's unique_id still counts */
            CHECK(amdgpu_metrics_read(g, &m, err, sizeof(err)) == 0);
            CHECK(!m.have_busy && !m.have_power && !m.have_vram);
            CHECK(!m.have_temp_edge);
            CHECK(m.have_temp_junction); /* the intact sensor */
        }
        /* the GPU vanishes between calls: an error, out untouched */
        run(root, "rm -rf sys/class/drm/renderD133");
        if (g) {
            memset(&m, 0x5a, sizeof(m));
            CHECK(amdgpu_metrics_read(g, &m, err, sizeof(err)) == -1);
            CHECK(strstr(err, "renderD133") != NULL);
            CHECK(((unsigned char *)&m)[0] == 0x5a);
        }
        /* processes of an unknown gpu_id are skipped; a garbage pid dir
         * and a non-numeric vram file are ignored */
        run(root, "mkdir -p sys/class/kfd/kfd/proc/abc "
                  "sys/class/kfd/kfd/proc/12 && echo 5 > "
                  "sys/class/kfd/kfd/proc/12/vram_99999 && echo x > "
                  "sys/class/kfd/kfd/proc/12/vram_40049");
        amdgpu_process_t procs[4];
        size_t n = 99;
        CHECK(amdgpu_processes_read(sys, procs, 4, &n, err, sizeof(err)) == 0);
        CHECK_EQ_U(n, 0); /* pid 777's GPU (node 4) is gone too */
        amdgpu_system_free(sys);
        sys = NULL;
    }
    /* the whole KFD tree goes away */
    run(root, "rm -rf sys/class/kfd");
    CHECK(amdgpu_system_load(&sys, err, sizeof(err)) == -1);
    remove_tree(root);
    return test_report("amdgpu_bad_data");
}
