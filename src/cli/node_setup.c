/* `hipwire node setup`: the host changes a GPU node needs, printed as a
 * shell script (dry run) or carried out (--apply). Every step first looks at
 * the current state, so a second run does nothing. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "ext_command.h"
#include "host_fs.h"
#include "node.h"
#include "os_release.h"
#include "rocm_detect.h"
#include "rocm_plan.h"

#define UDEV_RULES_PATH   "/etc/udev/rules.d/70-amdgpu.rules"
#define MODULES_LOAD_PATH "/etc/modules-load.d/amdgpu.conf"

/* World read/write on the KFD and render nodes lets unprivileged containers
 * use them without adding their users to the render/video groups. */
static const char udev_rules[] = "KERNEL==\"kfd\", MODE=\"0666\"\n"
                                 "SUBSYSTEM==\"drm\", KERNEL==\"renderD*\", MODE=\"0666\"\n";
static const char modules_load[] = "amdgpu\n";

typedef struct setup_options {
    bool apply;
    bool skip_rocm;
    const char *rocm_version;
    const char *rocm_base_url;
} setup_options;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: hipwire node setup [--apply] [--skip-rocm] [--rocm-version X.Y.Z]\n"
            "                          [--rocm-base-url URL]\n"
            "Prints the steps as a shell script; --apply carries them out (needs root).\n"
            "Defaults: ROCm %s from %s (or $HIPWIRE_ROCM_VERSION, $HIPWIRE_ROCM_BASE_URL).\n",
            ROCM_DEFAULT_VERSION, ROCM_DEFAULT_BASE_URL);
}

/* Returns 1 when the file already holds content, 0 when not, -1 on a
 * read error other than "missing". */
static int file_matches(const char *path, const char *content)
{
    char buf[1024];
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    int err = ferror(f);
    fclose(f);
    if (err)
        return -1;
    buf[n] = '\0';
    return strcmp(buf, content) == 0;
}

/* Ensures one config file. Returns 1 when it changed (or would), 0 when it was
 * already right, -1 on error. */
static int ensure_file(const setup_options *o, const char *host_file, const char *content)
{
    char path[4096];
    if (host_path(path, sizeof(path), "%s", host_file) < 0) {
        fprintf(stderr, "hipwire: HIPWIRE_HOST_ROOT is too long\n");
        return -1;
    }
    int same = file_matches(path, content);
    if (same < 0) {
        fprintf(stderr, "hipwire: cannot read %s\n", path);
        return -1;
    }
    if (same) {
        printf("# %s is up to date\n", host_file);
        return 0;
    }
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s", host_file);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    printf("mkdir -p %s\ncat > %s <<'EOF'\n%sEOF\n", dir, host_file, content);
    if (!o->apply)
        return 1;
    char pdir[4096];
    snprintf(pdir, sizeof(pdir), "%s", path);
    slash = strrchr(pdir, '/');
    if (slash)
        *slash = '\0';
    if (mkdir_parents(pdir) < 0 || write_file_atomic(path, content, 0644) < 0) {
        perror(path);
        return -1;
    }
    return 1;
}

static int step(const setup_options *o, const char *const argv[])
{
    ext_command_print(stdout, argv);
    if (!o->apply)
        return 0;
    int rc = ext_command_run(argv);
    if (rc != 0) {
        fprintf(stderr, "hipwire: '%s' failed (status %d)\n", argv[0], rc);
        return -1;
    }
    return 0;
}

static int run_setup(const setup_options *o)
{
    printf("#!/bin/sh\n# hipwire node setup: %s\nset -e\n",
           o->apply ? "applying" : "dry run, nothing is changed; --apply carries this out");

    printf("# 1. udev: /dev/kfd and the render nodes usable from containers\n");
    int changed = ensure_file(o, UDEV_RULES_PATH, udev_rules);
    if (changed < 0)
        return -1;
    if (changed) {
        static const char *const reload[] = { "udevadm", "control", "--reload-rules", NULL };
        static const char *const trigger[] = { "udevadm", "trigger", NULL };
        if (step(o, reload) < 0 || step(o, trigger) < 0)
            return -1;
    }

    printf("# 2. load amdgpu at boot\n");
    if (ensure_file(o, MODULES_LOAD_PATH, modules_load) < 0)
        return -1;

    printf("# 3. ROCm and the amdgpu DKMS driver\n");
    rocm_userspace rocm;
    rocm_detect(&rocm);
    const char *installed = rocm_default_version(&rocm);
    if (o->skip_rocm) {
        printf("# skipped (--skip-rocm)\n");
    } else if (installed) {
        printf("# ROCm %s is installed: nothing to install\n", installed);
    } else {
        os_release os;
        char kernel[256], err[256];
        if (os_release_read(&os) < 0) {
            fprintf(stderr, "hipwire: cannot read /etc/os-release: no ROCm plan\n");
            return -1;
        }
        if (kernel_release(kernel, sizeof(kernel)) < 0) {
            fprintf(stderr, "hipwire: cannot tell the kernel release: no ROCm plan\n");
            return -1;
        }
        rocm_plan plan;
        if (rocm_plan_build(&plan, &os, kernel, o->rocm_base_url, o->rocm_version, err,
                            sizeof(err)) < 0) {
            fprintf(stderr, "hipwire: %s\n", err);
            return -1;
        }
        printf("# ROCm %s for %s, kernel %s\n", o->rocm_version,
               os.pretty_name[0] ? os.pretty_name : os.id, kernel);
        int rc = 0;
        for (size_t i = 0; i < plan.count && rc == 0; i++)
            rc = step(o, (const char *const *)plan.argv[i]);
        rocm_plan_free(&plan);
        if (rc < 0)
            return -1;
    }

    char module_dir[4096];
    if (host_path(module_dir, sizeof(module_dir), "/sys/module/amdgpu") == 0 &&
        !path_is_dir(module_dir)) {
        static const char *const modprobe[] = { "modprobe", "amdgpu", NULL };
        if (step(o, modprobe) < 0)
            return -1;
    } else {
        printf("# amdgpu is loaded\n");
    }
    printf("# done\n");
    return 0;
}

int node_setup(int argc, char **argv)
{
    setup_options o = {
        .rocm_version = getenv("HIPWIRE_ROCM_VERSION"),
        .rocm_base_url = getenv("HIPWIRE_ROCM_BASE_URL"),
    };
    if (!o.rocm_version || !*o.rocm_version)
        o.rocm_version = ROCM_DEFAULT_VERSION;
    if (!o.rocm_base_url || !*o.rocm_base_url)
        o.rocm_base_url = ROCM_DEFAULT_BASE_URL;
    static const struct option longopts[] = {
        { "apply", no_argument, NULL, 'a' },
        { "skip-rocm", no_argument, NULL, 's' },
        { "rocm-version", required_argument, NULL, 'v' },
        { "rocm-base-url", required_argument, NULL, 'u' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;
    optind = 0;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'a': o.apply = true; break;
        case 's': o.skip_rocm = true; break;
        case 'v': o.rocm_version = optarg; break;
        case 'u': o.rocm_base_url = optarg; break;
        case 'h': usage(stdout); return CLI_EXIT_OK;
        default: usage(stderr); return CLI_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "hipwire: node setup: unexpected argument '%s'\n", argv[optind]);
        return CLI_EXIT_USAGE;
    }
    char pkgver[64];
    if (rocm_package_version(o.rocm_version, pkgver, sizeof(pkgver)) < 0) {
        fprintf(stderr, "hipwire: --rocm-version '%s' is not MAJOR.MINOR[.PATCH]\n",
                o.rocm_version);
        return CLI_EXIT_USAGE;
    }
    if (strncmp(o.rocm_base_url, "https://", 8) != 0 &&
        strncmp(o.rocm_base_url, "http://", 7) != 0) {
        fprintf(stderr, "hipwire: --rocm-base-url must be an http(s) URL\n");
        return CLI_EXIT_USAGE;
    }
    if (o.apply && host_root_is_real() && geteuid() != 0) {
        fprintf(stderr,
                "hipwire: node setup --apply changes /etc and loads modules: run it as root\n");
        return CLI_EXIT_FAILURE;
    }
    fflush(stdout);
    return run_setup(&o) == 0 ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}
