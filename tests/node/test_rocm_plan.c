/* The ROCm install plan per OS, compared with the commands of AMD's install
 * docs written out by hand. */
#include <stdio.h>
#include <string.h>

#include "os_release.h"
#include "rocm_plan.h"

static int failures;

static void joined(const rocm_plan *p, char *out, size_t size)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < p->count; i++) {
        for (size_t j = 0; p->argv[i][j]; j++)
            len += (size_t)snprintf(out + len, size - len, "%s%s", j ? " " : "", p->argv[i][j]);
        len += (size_t)snprintf(out + len, size - len, "\n");
    }
}

static void expect_plan(const char *os_text, const char *kernel, const char *version,
                        const char *want)
{
    os_release os;
    rocm_plan plan;
    char err[256] = "", got[4096];
    os_release_parse(os_text, &os);
    int rc = rocm_plan_build(&plan, &os, kernel, ROCM_DEFAULT_BASE_URL, version, err, sizeof(err));
    if (!want) {
        if (rc == 0 || !err[0] || plan.count != 0) {
            fprintf(stderr, "expected a refusal for %s\n", os_text);
            failures++;
        }
        if (rc == 0)
            rocm_plan_free(&plan);
        return;
    }
    if (rc != 0) {
        fprintf(stderr, "plan failed: %s\n", err);
        failures++;
        return;
    }
    joined(&plan, got, sizeof(got));
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "plan for:\n%s\ngot:\n%swant:\n%s", os_text, got, want);
        failures++;
    }
    rocm_plan_free(&plan);
}

int main(void)
{
    expect_plan(
        "ID=ubuntu\nVERSION_ID=\"24.04\"\nVERSION_CODENAME=noble\n", "6.8.0-45-generic", "6.4.1",
        "apt-get update\n"
        "apt-get install -y linux-headers-6.8.0-45-generic linux-modules-extra-6.8.0-45-generic "
        "python3-setuptools python3-wheel wget\n"
        "wget -O /tmp/amdgpu-install_6.4.60401-1_all.deb "
        "https://repo.radeon.com/amdgpu-install/6.4.1/ubuntu/noble/"
        "amdgpu-install_6.4.60401-1_all.deb\n"
        "apt-get install -y /tmp/amdgpu-install_6.4.60401-1_all.deb\n"
        "amdgpu-install --usecase=rocm,dkms --yes\n");
    expect_plan(
        "ID=debian\nVERSION_ID=\"12\"\nVERSION_CODENAME=bookworm\n", "6.1.0-25-amd64", "6.3.2",
        "apt-get update\n"
        "apt-get install -y linux-headers-6.1.0-25-amd64 python3-setuptools python3-wheel wget\n"
        "wget -O /tmp/amdgpu-install_6.3.60302-1_all.deb "
        "https://repo.radeon.com/amdgpu-install/6.3.2/ubuntu/jammy/"
        "amdgpu-install_6.3.60302-1_all.deb\n"
        "apt-get install -y /tmp/amdgpu-install_6.3.60302-1_all.deb\n"
        "amdgpu-install --usecase=rocm,dkms --yes\n");
    expect_plan(
        "ID=\"rocky\"\nID_LIKE=\"rhel centos fedora\"\nVERSION_ID=\"9.4\"\n",
        "5.14.0-427.el9.x86_64", "6.4.1",
        "dnf install -y kernel-headers-5.14.0-427.el9.x86_64 kernel-devel-5.14.0-427.el9.x86_64\n"
        "dnf install -y https://repo.radeon.com/amdgpu-install/6.4.1/rhel/9.4/"
        "amdgpu-install-6.4.60401-1.el9.noarch.rpm\n"
        "amdgpu-install --usecase=rocm,dkms --yes\n");
    expect_plan("ID=\"sles\"\nVERSION_ID=\"15.6\"\n", "6.4.0-150600.23-default", "7.0",
                "zypper --non-interactive install kernel-default-devel\n"
                "zypper --non-interactive --no-gpg-checks install "
                "https://repo.radeon.com/amdgpu-install/7.0/"
                "sle/15.6/amdgpu-install-7.0.70000-1.noarch.rpm\n"
                "amdgpu-install --usecase=rocm,dkms --yes\n");
    expect_plan("ID=arch\n", "6.10.0", "6.4.1", NULL);
    expect_plan("ID=debian\nVERSION_ID=\"11\"\n", "5.10.0", "6.4.1", NULL);
    expect_plan("ID=ubuntu\nVERSION_ID=\"22.04\"\n", "5.15.0", "6.4.1", NULL); /* no codename */
    expect_plan("ID=ubuntu\nVERSION_CODENAME=jammy\n", "5.15.0", "6.x", NULL);
    expect_plan("ID=ubuntu\nVERSION_CODENAME=jammy\n", "../../etc", "6.4.1", NULL);

    char v[32] = "untouched";
    if (rocm_package_version("6.4.1", v, sizeof(v)) != 0 || strcmp(v, "6.4.60401") != 0)
        failures++;
    if (rocm_package_version("6.0.2", v, sizeof(v)) != 0 || strcmp(v, "6.0.60002") != 0)
        failures++;
    strcpy(v, "untouched");
    if (rocm_package_version("6.4.1.2", v, sizeof(v)) == 0 || strcmp(v, "untouched") != 0)
        failures++;
    if (rocm_package_version("6", v, sizeof(v)) == 0 ||
        rocm_package_version("6.100", v, sizeof(v)) == 0)
        failures++;

    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    puts("ok: rocm plan");
    return 0;
}
