#include "rocm_detect.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_fs.h"

static int compare_installs(const void *a, const void *b)
{
    return strcmp(((const rocm_install *)a)->path, ((const rocm_install *)b)->path);
}

static void find_tool(const char *name, char *out, size_t size)
{
    static const char *const dirs[] = { "/opt/rocm/bin", "/usr/bin", "/usr/local/bin",
                                        "/usr/sbin" };
    char path[4096];
    out[0] = '\0';
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        if (host_path(path, sizeof(path), "%s/%s", dirs[i], name) < 0)
            continue;
        if (path_exists(path)) {
            snprintf(out, size, "%s/%s", dirs[i], name);
            return;
        }
    }
}

void rocm_detect(rocm_userspace *out)
{
    char opt[4096], path[4096];
    memset(out, 0, sizeof(*out));
    if (host_path(opt, sizeof(opt), "/opt") == 0) {
        DIR *d = opendir(opt);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL && out->count < ROCM_MAX_INSTALLS) {
            if (strncmp(e->d_name, "rocm", 4) != 0)
                continue;
            if (e->d_name[4] != '\0' && e->d_name[4] != '-')
                continue;
            rocm_install *ri = &out->installs[out->count];
            snprintf(ri->path, sizeof(ri->path), "/opt/%.200s", e->d_name);
            if (host_path(path, sizeof(path), "%s", ri->path) < 0 || !path_is_dir(path))
                continue;
            if (host_path(path, sizeof(path), "%s/.info/version", ri->path) == 0)
                read_text_file(path, ri->version, sizeof(ri->version));
            out->count++;
        }
        if (d)
            closedir(d);
    }
    qsort(out->installs, out->count, sizeof(out->installs[0]), compare_installs);
    find_tool("amd-smi", out->amd_smi, sizeof(out->amd_smi));
    find_tool("rocm-smi", out->rocm_smi, sizeof(out->rocm_smi));
}

const char *rocm_default_version(const rocm_userspace *r)
{
    for (size_t i = 0; i < r->count; i++)
        if (strcmp(r->installs[i].path, "/opt/rocm") == 0 && r->installs[i].version[0])
            return r->installs[i].version;
    if (r->count == 1 && r->installs[0].version[0])
        return r->installs[0].version;
    return NULL;
}
