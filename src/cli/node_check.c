/* `hipwire node check`: is this node ready to share its AMD GPUs?
 *
 * Order matters: the PCI scan and module check work without a driver, so a
 * node that is missing everything still gets a useful first failure. */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "amdgpu_adapter.h"
#include "check_report.h"
#include "commands.h"
#include "host_fs.h"
#include "json_writer.h"
#include "node.h"
#include "os_release.h"
#include "partition_rules.h"
#include "pci_scan.h"
#include "rocm_detect.h"

#define FIX_MODULE \
    "modprobe amdgpu; 'hipwire node setup --apply' installs the driver and loads it at boot"
#define FIX_PERMS "hipwire node setup --apply (a udev rule giving MODE=\"0666\")"

typedef struct check_state {
    check_report report;
    pci_function *pci;
    size_t pci_count;
    amdgpu_system_t *sys;
    bool module_loaded;
} check_state;

static bool is_amd_gpu(const pci_function *f)
{
    return f->vendor_id == PCI_VENDOR_AMD;
}

static bool is_vf(const pci_function *f)
{
    return f->is_vf || amd_device_is_vf(f->device_id);
}

static void check_os(check_state *st)
{
    os_release os;
    char kernel[128] = "unknown";
    kernel_release(kernel, sizeof(kernel));
    if (os_release_read(&os) == 0)
        report_add(&st->report, CHECK_INFO, "os", NULL, "%s, kernel %s",
                   os.pretty_name[0] ? os.pretty_name : os.id, kernel);
    else
        report_add(&st->report, CHECK_INFO, "os", NULL, "no /etc/os-release, kernel %s", kernel);
}

static void check_pci(check_state *st)
{
    char err[256];
    if (pci_scan_gpus(&st->pci, &st->pci_count, err, sizeof(err)) < 0) {
        report_add(&st->report, CHECK_FAIL, "pci",
                   "run on the host (or set HIPWIRE_HOST_ROOT to its /)", "%s", err);
        return;
    }
    size_t amd = 0, vfs = 0;
    char others[256] = "";
    size_t olen = 0;
    for (size_t i = 0; i < st->pci_count; i++) {
        const pci_function *f = &st->pci[i];
        if (!is_amd_gpu(f)) {
            int n = snprintf(others + olen, sizeof(others) - olen, "%s%s %04x:%04x at %s",
                             olen ? ", " : "", pci_vendor_name(f->vendor_id), f->vendor_id,
                             f->device_id, f->bdf);
            if (n > 0 && olen + (size_t)n < sizeof(others))
                olen += (size_t)n;
            continue;
        }
        amd++;
        vfs += is_vf(f);
    }
    if (amd == 0) {
        report_add(&st->report, CHECK_FAIL, "pci",
                   "this node has no AMD GPU: keep it out of AMD GPU pools",
                   "no AMD GPU (vendor 0x1002) on the PCI bus%s%s", olen ? "; found: " : "",
                   others);
        return;
    }
    report_add(&st->report, CHECK_OK, "pci", NULL, "%zu AMD GPU function%s (%zu SR-IOV VF%s)%s%s",
               amd, amd == 1 ? "" : "s", vfs, vfs == 1 ? "" : "s", olen ? "; also: " : "", others);
    for (size_t i = 0; i < st->pci_count; i++) {
        const pci_function *f = &st->pci[i];
        if (!is_amd_gpu(f))
            continue;
        char what[96];
        if (f->is_vf)
            snprintf(what, sizeof(what), "SR-IOV VF of %s", f->physfn);
        else if (is_vf(f))
            snprintf(what, sizeof(what), "SR-IOV VF (guest)");
        else
            snprintf(what, sizeof(what), "physical function");
        const char *model = amd_model_or_unknown(f->device_id);
        if (strcmp(f->driver, "amdgpu") == 0)
            report_add(&st->report, CHECK_OK, "gpu", NULL, "%s %s (1002:%04x), %s, driver amdgpu",
                       f->bdf, model, f->device_id, what);
        else if (f->driver[0])
            report_add(&st->report, CHECK_WARN, "gpu",
                       "unbind it from that driver if this host should use it",
                       "%s %s (1002:%04x), %s, bound to %s: not usable on this host", f->bdf, model,
                       f->device_id, what, f->driver);
        else
            report_add(&st->report, CHECK_FAIL, "gpu", FIX_MODULE,
                       "%s %s (1002:%04x), %s, no driver bound", f->bdf, model, f->device_id, what);
    }
}

static void check_module(check_state *st)
{
    char dir[4096], path[4096], state[32] = "", version[64] = "";
    if (host_path(dir, sizeof(dir), "/sys/module/amdgpu") < 0 || !path_is_dir(dir)) {
        report_add(&st->report, CHECK_FAIL, "module", FIX_MODULE, "amdgpu is not loaded");
        return;
    }
    if (snprintf(path, sizeof(path), "%s/initstate", dir) < (int)sizeof(path))
        read_text_file(path, state, sizeof(state));
    if (state[0] && strcmp(state, "live") != 0) {
        report_add(&st->report, CHECK_FAIL, "module", "check dmesg for amdgpu errors",
                   "amdgpu is %s, not live", state);
        return;
    }
    st->module_loaded = true;
    amdgpu_driver_version(version, sizeof(version));
    if (version[0]) {
        report_add(&st->report, CHECK_OK, "module", NULL, "amdgpu %s loaded (DKMS/out-of-tree)",
                   version);
    } else {
        char kernel[128] = "?";
        kernel_release(kernel, sizeof(kernel));
        report_add(&st->report, CHECK_OK, "module", NULL, "amdgpu loaded (in-tree, kernel %s)",
                   kernel);
    }
}

static void check_kfd(check_state *st)
{
    char err[AMDGPU_ERR_LEN];
    if (amdgpu_system_load(&st->sys, err, sizeof(err)) != 0) {
        st->sys = NULL;
        report_add(&st->report, CHECK_FAIL, "kfd",
                   st->module_loaded ? "check dmesg for amdkfd errors" : FIX_MODULE, "%s", err);
        return;
    }
    uint32_t logical = 0;
    for (uint32_t g = 0; g < st->sys->gpu_count; g++)
        logical += st->sys->gpus[g].partition_count;
    report_add(&st->report, st->sys->gpu_count ? CHECK_OK : CHECK_FAIL, "kfd", FIX_MODULE,
               "KFD topology: %u GPU%s, %u logical device%s", st->sys->gpu_count,
               st->sys->gpu_count == 1 ? "" : "s", logical, logical == 1 ? "" : "s");
}

/* Every amdgpu-bound PCI GPU must be a KFD GPU and the other way round. */
static void check_kfd_matches_pci(check_state *st)
{
    if (!st->sys || !st->pci)
        return;
    char missing_kfd[256] = "", missing_pci[256] = "";
    size_t a = 0, b = 0, bound = 0;
    for (size_t i = 0; i < st->pci_count; i++) {
        const pci_function *f = &st->pci[i];
        if (!is_amd_gpu(f) || strcmp(f->driver, "amdgpu") != 0)
            continue;
        bound++;
        bool found = false;
        for (uint32_t g = 0; g < st->sys->gpu_count && !found; g++)
            found = strcmp(st->sys->gpus[g].bdf, f->bdf) == 0;
        if (!found) {
            int n =
                snprintf(missing_kfd + a, sizeof(missing_kfd) - a, "%s%s", a ? " " : "", f->bdf);
            if (n > 0 && a + (size_t)n < sizeof(missing_kfd))
                a += (size_t)n;
        }
    }
    for (uint32_t g = 0; g < st->sys->gpu_count; g++) {
        bool found = false;
        for (size_t i = 0; i < st->pci_count && !found; i++)
            found = strcmp(st->pci[i].bdf, st->sys->gpus[g].bdf) == 0;
        if (!found) {
            int n = snprintf(missing_pci + b, sizeof(missing_pci) - b, "%s%s", b ? " " : "",
                             st->sys->gpus[g].bdf);
            if (n > 0 && b + (size_t)n < sizeof(missing_pci))
                b += (size_t)n;
        }
    }
    if (a == 0 && b == 0) {
        report_add(&st->report, CHECK_OK, "kfd-pci", NULL, "KFD and the PCI bus agree on %zu GPU%s",
                   bound, bound == 1 ? "" : "s");
        return;
    }
    if (a)
        report_add(&st->report, CHECK_FAIL, "kfd-pci",
                   "check dmesg: amdgpu bound the device but KFD did not initialise it",
                   "amdgpu GPU%s not in the KFD topology: %s", strchr(missing_kfd, ' ') ? "s" : "",
                   missing_kfd);
    if (b)
        report_add(&st->report, CHECK_FAIL, "kfd-pci", "HIPWIRE_HOST_ROOT may mix two hosts' trees",
                   "KFD GPU%s missing from the PCI scan: %s", strchr(missing_pci, ' ') ? "s" : "",
                   missing_pci);
}

static const char *group_name(gid_t gid, char *buf, size_t size)
{
    char path[4096], line[512];
    snprintf(buf, size, "%u", (unsigned)gid);
    if (host_path(path, sizeof(path), "/etc/group") < 0)
        return buf;
    FILE *f = fopen(path, "r");
    if (!f)
        return buf;
    while (fgets(line, sizeof(line), f)) {
        char *name = strtok(line, ":");
        strtok(NULL, ":");
        char *id = strtok(NULL, ":");
        if (name && id && strtoul(id, NULL, 10) == gid) {
            snprintf(buf, size, "%s", name);
            break;
        }
    }
    fclose(f);
    return buf;
}

/* Fixture trees cannot hold device nodes; HIPWIRE_NODE_FAKE_DEVICES=1 lets
 * regular files stand in for them (the tests set it, nothing else should). */
static bool devices_may_be_files(void)
{
    const char *v = getenv("HIPWIRE_NODE_FAKE_DEVICES");
    return v && strcmp(v, "1") == 0;
}

/* Classifies one device node; fills detail. */
static check_status device_status(const char *host_file, char *detail, size_t size)
{
    char path[4096], grp[64];
    struct stat sb;
    if (host_path(path, sizeof(path), "%s", host_file) < 0 || stat(path, &sb) < 0) {
        snprintf(detail, size, "%s missing", host_file);
        return CHECK_FAIL;
    }
    if (!S_ISCHR(sb.st_mode) && !(devices_may_be_files() && S_ISREG(sb.st_mode))) {
        snprintf(detail, size, "%s is not a character device", host_file);
        return CHECK_FAIL;
    }
    unsigned mode = sb.st_mode & 07777;
    group_name(sb.st_gid, grp, sizeof(grp));
    if ((mode & 0006) == 0006) {
        snprintf(detail, size, "%s mode %04o group %s", host_file, mode, grp);
        return CHECK_OK;
    }
    if ((mode & 0060) == 0060) {
        snprintf(detail, size, "%s mode %04o: only group %s can use it", host_file, mode, grp);
        return CHECK_WARN;
    }
    snprintf(detail, size, "%s mode %04o group %s: unusable by non-root users and containers",
             host_file, mode, grp);
    return CHECK_FAIL;
}

static void check_devices(check_state *st)
{
    char detail[256];
    check_status s = device_status("/dev/kfd", detail, sizeof(detail));
    report_add(&st->report, s, "dev-kfd",
               s == CHECK_FAIL && strstr(detail, "missing") ? FIX_MODULE : FIX_PERMS, "%s", detail);
    if (!st->sys) {
        report_add(&st->report, CHECK_FAIL, "dev-render", FIX_MODULE,
                   "no KFD topology: cannot tell which render nodes the GPUs need");
        return;
    }
    check_status worst = CHECK_OK;
    size_t checked = 0, bad = 0;
    char first_bad[256] = "", first_ok[256] = "";
    for (uint32_t g = 0; g < st->sys->gpu_count; g++) {
        const amdgpu_gpu_t *gpu = &st->sys->gpus[g];
        for (uint32_t p = 0; p < gpu->partition_count; p++) {
            char file[64];
            const amdgpu_partition_t *part = &gpu->partitions[p];
            checked++;
            if (part->render_minor < 0) {
                snprintf(detail, sizeof(detail), "GPU %u logical device %u has no render node", g,
                         p);
                s = CHECK_FAIL;
            } else {
                snprintf(file, sizeof(file), "/dev/dri/renderD%d", part->render_minor);
                s = device_status(file, detail, sizeof(detail));
            }
            if (s != CHECK_OK) {
                bad++;
                if (!first_bad[0] || s > worst)
                    snprintf(first_bad, sizeof(first_bad), "%s", detail);
            } else if (!first_ok[0]) {
                snprintf(first_ok, sizeof(first_ok), "%s", detail);
            }
            if (s > worst)
                worst = s;
        }
    }
    if (checked == 0)
        return;
    if (bad == 0)
        report_add(&st->report, CHECK_OK, "dev-render", NULL, "%zu render node%s usable (e.g. %s)",
                   checked, checked == 1 ? "" : "s", first_ok);
    else
        report_add(&st->report, worst, "dev-render",
                   strstr(first_bad, "missing")
                       ? "reload amdgpu; check dmesg for DRM minor exhaustion"
                       : FIX_PERMS,
                   "%zu of %zu render nodes not usable: %s%s", bad, checked, first_bad,
                   bad > 1 ? ", ..." : "");
}

static void check_partitions(check_state *st)
{
    if (!st->sys)
        return;
    size_t partitionable = 0;
    for (uint32_t g = 0; g < st->sys->gpu_count; g++) {
        const amdgpu_gpu_t *gpu = &st->sys->gpus[g];
        if (!gpu->compute_partition[0])
            continue;
        partitionable++;
        /* GPUs of one model in one mode expose the same number of logical
         * devices; fewer means the kernel dropped some (DRM minors ran out,
         * or a BMC display driver such as ast took one). */
        uint32_t expected = partition_compute_count(gpu->compute_partition, amd_gpu_xcc_count(gpu));
        for (uint32_t h = 0; h < st->sys->gpu_count; h++) {
            const amdgpu_gpu_t *peer = &st->sys->gpus[h];
            if (peer->device_id == gpu->device_id &&
                strcmp(peer->compute_partition, gpu->compute_partition) == 0 &&
                peer->partition_count > expected)
                expected = peer->partition_count;
        }
        char mem_err[256] = "";
        bool combo_bad = gpu->memory_partition[0] &&
                         partition_memory_count(gpu->memory_partition) >
                             partition_compute_count(gpu->compute_partition, expected);
        if (combo_bad)
            snprintf(mem_err, sizeof(mem_err), " (invalid combination)");
        if (gpu->partition_count < expected || combo_bad)
            report_add(&st->report, CHECK_WARN, "partition",
                       "modprobe -r ast; modprobe -r amdgpu; modprobe amdgpu (or blacklist ast); "
                       "hipwire partition reset to return to SPX/NPS1",
                       "GPU %u %s %s/%s%s: %u of %u logical devices present", g, gpu->bdf,
                       gpu->compute_partition,
                       gpu->memory_partition[0] ? gpu->memory_partition : "-", mem_err,
                       gpu->partition_count, expected);
        else
            report_add(
                &st->report, CHECK_OK, "partition", NULL,
                "GPU %u %s %s/%s, %u logical device%s (available: %s; %s)", g, gpu->bdf,
                gpu->compute_partition, gpu->memory_partition[0] ? gpu->memory_partition : "-",
                gpu->partition_count, gpu->partition_count == 1 ? "" : "s",
                gpu->available_compute_partitions[0] ? gpu->available_compute_partitions : "-",
                gpu->available_memory_partitions[0] ? gpu->available_memory_partitions : "-");
    }
    if (partitionable == 0 && st->sys->gpu_count)
        report_add(&st->report, CHECK_INFO, "partition", NULL, "no GPU supports partition modes");
}

static void check_rocm(check_state *st)
{
    rocm_userspace r;
    rocm_detect(&r);
    if (r.count == 0) {
        report_add(&st->report, CHECK_WARN, "rocm",
                   "hipwire node setup --apply (not needed when containers bring ROCm)",
                   "no ROCm user space in /opt/rocm*%s%s%s%s", r.amd_smi[0] ? "; amd-smi at " : "",
                   r.amd_smi, r.rocm_smi[0] ? "; rocm-smi at " : "", r.rocm_smi);
        return;
    }
    char list[512] = "";
    size_t len = 0;
    for (size_t i = 0; i < r.count; i++) {
        int n =
            snprintf(list + len, sizeof(list) - len, "%s%s %s", i ? ", " : "", r.installs[i].path,
                     r.installs[i].version[0] ? r.installs[i].version : "(no version)");
        if (n > 0 && len + (size_t)n < sizeof(list))
            len += (size_t)n;
    }
    report_add(&st->report, CHECK_OK, "rocm", NULL, "%s; amd-smi %s; rocm-smi %s", list,
               r.amd_smi[0] ? r.amd_smi : "not found", r.rocm_smi[0] ? r.rocm_smi : "not found");
}

static void write_json(const check_state *st)
{
    json_writer w;
    jw_init(&w, stdout);
    jw_object_begin(&w);
    jw_key(&w, "ready");
    jw_bool(&w, report_ready(&st->report));
    jw_key(&w, "failures");
    jw_uint(&w, report_count(&st->report, CHECK_FAIL));
    jw_key(&w, "warnings");
    jw_uint(&w, report_count(&st->report, CHECK_WARN));
    report_write_json(&st->report, &w);
    jw_key(&w, "pci");
    jw_array_begin(&w);
    for (size_t i = 0; i < st->pci_count; i++) {
        const pci_function *f = &st->pci[i];
        char id[8];
        jw_object_begin(&w);
        jw_key(&w, "bdf");
        jw_string(&w, f->bdf);
        jw_key(&w, "vendor");
        jw_string(&w, pci_vendor_name(f->vendor_id));
        snprintf(id, sizeof(id), "%04x", f->device_id);
        jw_key(&w, "device_id");
        jw_string(&w, id);
        jw_key(&w, "model");
        jw_string(&w, f->vendor_id == PCI_VENDOR_AMD ? amd_model_or_unknown(f->device_id) : NULL);
        jw_key(&w, "vf");
        jw_bool(&w, f->vendor_id == PCI_VENDOR_AMD && is_vf(f));
        jw_key(&w, "driver");
        jw_string(&w, f->driver[0] ? f->driver : NULL);
        jw_object_end(&w);
    }
    jw_array_end(&w);
    jw_object_end(&w);
    jw_finish(&w);
}

int node_check(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "json", no_argument, NULL, 'j' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    bool json = false;
    int c;
    optind = 0;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': json = true; break;
        case 'h':
            printf(
                "usage: hipwire node check [--json]\nExit status 0 only when the node is ready.\n");
            return CLI_EXIT_OK;
        default: fprintf(stderr, "usage: hipwire node check [--json]\n"); return CLI_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "hipwire: node check: unexpected argument '%s'\n", argv[optind]);
        return CLI_EXIT_USAGE;
    }
    check_state st;
    memset(&st, 0, sizeof(st));
    report_init(&st.report);
    check_os(&st);
    check_pci(&st);
    check_module(&st);
    check_kfd(&st);
    check_kfd_matches_pci(&st);
    check_devices(&st);
    check_partitions(&st);
    check_rocm(&st);
    if (json)
        write_json(&st);
    else
        report_print_text(&st.report, stdout);
    int rc = report_ready(&st.report) ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
    report_free(&st.report);
    free(st.pci);
    amdgpu_system_free(st.sys);
    return rc;
}
