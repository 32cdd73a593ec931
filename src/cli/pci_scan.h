/* The PCI bus as node check sees it: every display, processing-accelerator
 * and co-processor function, from /sys/bus/pci/devices. Works without the
 * amdgpu driver (it is how a node without the module still finds its GPUs)
 * and recognises SR-IOV virtual functions by their physfn link. */
#ifndef HIPWIRE_CLI_PCI_SCAN_H
#define HIPWIRE_CLI_PCI_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PCI_VENDOR_AMD    0x1002u
#define PCI_VENDOR_NVIDIA 0x10deu
#define PCI_VENDOR_INTEL  0x8086u

typedef struct pci_function {
    char bdf[16]; /* 0000:05:00.0 */
    uint32_t vendor_id, device_id, class_code, revision;
    bool is_vf;      /* has a physfn link */
    char physfn[16]; /* the PF's BDF for a VF, else "" */
    char driver[32]; /* bound driver ("amdgpu", "vfio-pci") or "" */
} pci_function;

/* Reads every GPU-like function, sorted by BDF. On success *out is a
 * malloc'ed array (free()); on failure -1 and err says why. A bus with no
 * such functions is success with count 0. */
int pci_scan_gpus(pci_function **out, size_t *count, char *err, size_t err_size);

/* Display (0x03), processing accelerator (0x12) or co-processor (0x0b40). */
bool pci_class_is_gpu(uint32_t class_code);

const char *pci_vendor_name(uint32_t vendor_id);

#endif
