#include "pci_scan.h"

#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hw_alloc.h"
#include "host_fs.h"

bool pci_class_is_gpu(uint32_t class_code)
{
    uint32_t base = class_code >> 16, sub = (class_code >> 8) & 0xff;
    return base == 0x03 || base == 0x12 || (base == 0x0b && sub == 0x40);
}

const char *pci_vendor_name(uint32_t vendor_id)
{
    switch (vendor_id) {
    case PCI_VENDOR_AMD: return "AMD";
    case PCI_VENDOR_NVIDIA: return "NVIDIA";
    case PCI_VENDOR_INTEL: return "Intel";
    case 0x1a03: return "ASPEED";
    case 0x1234: return "QEMU";
    case 0x1af4: return "virtio";
    case 0x15ad: return "VMware";
    default: return "other";
    }
}

static int read_hex_attr(const char *dir, const char *name, uint32_t *out)
{
    char path[4096];
    unsigned long v;
    if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
        return -1;
    if (read_ulong_file(path, &v) < 0 || v > 0xffffffffUL)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* Base name of a symlink's target, e.g. driver -> ../../bus/pci/drivers/amdgpu. */
static void link_basename(const char *dir, const char *name, char *out, size_t size)
{
    char path[4096], target[4096];
    out[0] = '\0';
    if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
        return;
    ssize_t n = readlink(path, target, sizeof(target) - 1);
    if (n <= 0)
        return;
    target[n] = '\0';
    snprintf(out, size, "%s", basename(target));
}

static int compare_bdf(const void *a, const void *b)
{
    return strcmp(((const pci_function *)a)->bdf, ((const pci_function *)b)->bdf);
}

static bool looks_like_bdf(const char *s)
{
    unsigned d, b, dev, fn;
    char tail;
    return strlen(s) == 12 && sscanf(s, "%4x:%2x:%2x.%1x%c", &d, &b, &dev, &fn, &tail) == 4;
}

int pci_scan_gpus(pci_function **out, size_t *count, char *err, size_t err_size)
{
    char root[4096], dir[4096];
    pci_function *list = NULL;
    size_t n = 0, cap = 0;
    DIR *d = NULL;
    if (host_path(root, sizeof(root), "/sys/bus/pci/devices") < 0) {
        snprintf(err, err_size, "HIPWIRE_HOST_ROOT is too long");
        return -1;
    }
    d = opendir(root);
    if (!d) {
        snprintf(err, err_size, "cannot read %s: %s", root, strerror(errno));
        return -1;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!looks_like_bdf(e->d_name))
            continue;
        if (snprintf(dir, sizeof(dir), "%s/%s", root, e->d_name) >= (int)sizeof(dir))
            continue;
        pci_function f;
        memset(&f, 0, sizeof(f));
        memcpy(f.bdf, e->d_name, 13); /* looks_like_bdf checked: 12 chars + NUL */
        if (read_hex_attr(dir, "vendor", &f.vendor_id) < 0 ||
            read_hex_attr(dir, "device", &f.device_id) < 0 ||
            read_hex_attr(dir, "class", &f.class_code) < 0)
            continue; /* not a readable function: nothing to report about it */
        if (!pci_class_is_gpu(f.class_code))
            continue;
        read_hex_attr(dir, "revision", &f.revision);
        link_basename(dir, "physfn", f.physfn, sizeof(f.physfn));
        f.is_vf = f.physfn[0] != '\0';
        link_basename(dir, "driver", f.driver, sizeof(f.driver));
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            pci_function *grown = hw_realloc(list, ncap * sizeof(*list));
            if (!grown) {
                snprintf(err, err_size, "out of memory");
                free(list);
                closedir(d);
                return -1;
            }
            list = grown;
            cap = ncap;
        }
        list[n++] = f;
    }
    closedir(d);
    if (n > 1)
        qsort(list, n, sizeof(*list), compare_bdf);
    *out = list;
    *count = n;
    return 0;
}
