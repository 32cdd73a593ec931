#include "rocm_plan.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"

int rocm_package_version(const char *version, char *out, size_t size)
{
    unsigned major = 0, minor = 0, patch = 0;
    int consumed = 0;
    int n = sscanf(version, "%3u.%3u%n.%3u%n", &major, &minor, &consumed, &patch, &consumed);
    if (n < 2 || version[consumed] != '\0' || minor > 99 || patch > 99)
        return -1;
    int w = snprintf(out, size, "%u.%u.%u", major, minor, major * 10000 + minor * 100 + patch);
    return (w > 0 && (size_t)w < size) ? 0 : -1;
}

/* Adds one NULL-terminated argument list as a step. */
static int add_step(rocm_plan *plan, ...)
{
    if (plan->count >= ROCM_PLAN_MAX_STEPS)
        return -1;
    char **argv = plan->argv[plan->count];
    size_t n = 0;
    va_list ap;
    va_start(ap, plan);
    for (const char *a; (a = va_arg(ap, const char *)) != NULL;) {
        if (n >= ROCM_PLAN_MAX_ARGS || !(argv[n] = hw_strdup(a))) {
            va_end(ap);
            argv[n] = NULL;
            plan->count++; /* so rocm_plan_free releases what was copied */
            return -1;
        }
        n++;
    }
    va_end(ap);
    argv[n] = NULL;
    plan->count++;
    return 0;
}

void rocm_plan_free(rocm_plan *plan)
{
    for (size_t i = 0; i < plan->count; i++)
        for (size_t j = 0; plan->argv[i][j]; j++)
            free(plan->argv[i][j]);
    memset(plan, 0, sizeof(*plan));
}

static int word_in(const char *list, const char *word)
{
    size_t wl = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += wl) {
        bool start = p == list || p[-1] == ' ';
        bool end = p[wl] == '\0' || p[wl] == ' ';
        if (start && end)
            return 1;
    }
    return 0;
}

static bool is_rhel_like(const os_release *os)
{
    static const char *const ids[] = { "rhel", "rocky", "almalinux", "ol", "centos" };
    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
        if (strcmp(os->id, ids[i]) == 0)
            return true;
    return word_in(os->id_like, "rhel") != 0;
}

int rocm_plan_build(rocm_plan *plan, const os_release *os, const char *kernel, const char *base_url,
                    const char *version, char *err, size_t err_size)
{
    char pkgver[64], url[1024], file[256], local[300], headers[200], extra[200], devel[200];
    memset(plan, 0, sizeof(*plan));
    if (rocm_package_version(version, pkgver, sizeof(pkgver)) < 0) {
        snprintf(err, err_size, "ROCm version '%s' is not MAJOR.MINOR[.PATCH]", version);
        return -1;
    }
    if (!kernel || !*kernel || strchr(kernel, '/') || strlen(kernel) > 120) {
        snprintf(err, err_size, "cannot tell the running kernel release");
        return -1;
    }
    int rc = -1;
    if (strcmp(os->id, "ubuntu") == 0 || strcmp(os->id, "debian") == 0) {
        const char *codename = os->version_codename;
        bool debian = strcmp(os->id, "debian") == 0;
        if (debian) {
            /* AMD ships Debian 12 support from the Ubuntu 22.04 (jammy) tree. */
            if (strcmp(os->version_id, "12") != 0) {
                snprintf(err, err_size,
                         "Debian %s is not supported by amdgpu-install (Debian 12 is)",
                         os->version_id[0] ? os->version_id : "(unknown)");
                return -1;
            }
            codename = "jammy";
        } else if (!codename[0]) {
            snprintf(err, err_size, "/etc/os-release has no VERSION_CODENAME");
            return -1;
        }
        snprintf(file, sizeof(file), "amdgpu-install_%s-1_all.deb", pkgver);
        snprintf(url, sizeof(url), "%s/%s/ubuntu/%s/%s", base_url, version, codename, file);
        snprintf(local, sizeof(local), "/tmp/%s", file);
        snprintf(headers, sizeof(headers), "linux-headers-%s", kernel);
        snprintf(extra, sizeof(extra), "linux-modules-extra-%s", kernel);
        if (add_step(plan, "apt-get", "update", NULL) < 0)
            goto nomem;
        if (debian) {
            if (add_step(plan, "apt-get", "install", "-y", headers, "python3-setuptools",
                         "python3-wheel", "wget", NULL) < 0)
                goto nomem;
        } else if (add_step(plan, "apt-get", "install", "-y", headers, extra, "python3-setuptools",
                            "python3-wheel", "wget", NULL) < 0) {
            goto nomem;
        }
        if (add_step(plan, "wget", "-O", local, url, NULL) < 0)
            goto nomem;
        if (add_step(plan, "apt-get", "install", "-y", local, NULL) < 0)
            goto nomem;
    } else if (is_rhel_like(os)) {
        unsigned el = (unsigned)atoi(os->version_id);
        if (el == 0 || !os->version_id[0]) {
            snprintf(err, err_size, "/etc/os-release has no usable VERSION_ID");
            return -1;
        }
        snprintf(file, sizeof(file), "amdgpu-install-%s-1.el%u.noarch.rpm", pkgver, el);
        snprintf(url, sizeof(url), "%s/%s/rhel/%s/%s", base_url, version, os->version_id, file);
        snprintf(headers, sizeof(headers), "kernel-headers-%s", kernel);
        snprintf(devel, sizeof(devel), "kernel-devel-%s", kernel);
        if (add_step(plan, "dnf", "install", "-y", headers, devel, NULL) < 0)
            goto nomem;
        if (add_step(plan, "dnf", "install", "-y", url, NULL) < 0)
            goto nomem;
    } else if (strcmp(os->id, "sles") == 0) {
        if (!os->version_id[0]) {
            snprintf(err, err_size, "/etc/os-release has no VERSION_ID");
            return -1;
        }
        snprintf(file, sizeof(file), "amdgpu-install-%s-1.noarch.rpm", pkgver);
        snprintf(url, sizeof(url), "%s/%s/sle/%s/%s", base_url, version, os->version_id, file);
        if (add_step(plan, "zypper", "--non-interactive", "install", "kernel-default-devel", NULL) <
            0)
            goto nomem;
        if (add_step(plan, "zypper", "--non-interactive", "--no-gpg-checks", "install", url, NULL) <
            0)
            goto nomem;
    } else {
        snprintf(err, err_size,
                 "no ROCm install plan for OS '%s' (supported: ubuntu, debian 12, "
                 "rhel-like, sles)",
                 os->id[0] ? os->id : "unknown");
        return -1;
    }
    if (add_step(plan, "amdgpu-install", "--usecase=rocm,dkms", "--yes", NULL) < 0)
        goto nomem;
    return 0;
nomem:
    snprintf(err, err_size, "out of memory building the ROCm plan");
    rocm_plan_free(plan);
    return rc;
}
