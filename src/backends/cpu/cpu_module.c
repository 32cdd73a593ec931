/*
 * cpu_module.c - CPU-device code objects: host shared objects loaded from
 * memory (memfd + dlopen) and described by hipwire/cpu_kernel.h.
 *
 * Loading a module runs the client's host code inside this session's process.
 * That is the point of the CPU device (a development and CI stand-in for a
 * GPU), and the process-per-session design keeps a bad kernel from reaching
 * other sessions; it is also why the cpu backend must not face untrusted
 * clients on a shared machine (docs/worker.md).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hw_alloc.h"
#include "cpu_internal.h"
#include "hw_log.h"

#ifndef EM_AMDGPU
#define EM_AMDGPU 224
#endif

#if defined(__x86_64__)
#define HOST_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define HOST_MACHINE EM_AARCH64
#else
#define HOST_MACHINE EM_NONE
#endif

/* Tells a loadable host object from other images before dlopen sees it. */
static int classify_image(const void *image, size_t size)
{
    const unsigned char *p = image;
    if (size < sizeof(Elf64_Ehdr) || memcmp(p, ELFMAG, SELFMAG) != 0)
        return HW_EIMAGE;
    Elf64_Ehdr eh;
    memcpy(&eh, p, sizeof eh);
    if (eh.e_ident[EI_CLASS] != ELFCLASS64)
        return HW_EIMAGE;
    if (eh.e_machine != HOST_MACHINE)
        return HW_ENOBINARY; /* e.g. an AMDGPU or NVIDIA code object */
    if (eh.e_type != ET_DYN)
        return HW_EIMAGE;
    return HW_OK;
}

static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int cpu_module_load(struct hw_backend *be, int dev, const void *image, size_t size,
                    struct hw_bmodule **out)
{
    struct hw_bmodule *m = NULL;
    char path[64];
    int fd = -1, rc = classify_image(image, size);

    if (rc != HW_OK)
        return rc;
    if (dev < 0 || dev >= be->ndev)
        return HW_EDEVICE;
    fd = memfd_create("hipwire-module", MFD_CLOEXEC);
    if (fd < 0 || write_all(fd, image, size) < 0) {
        rc = HW_EOS;
        goto out;
    }
    m = hw_calloc(1, sizeof *m);
    if (!m) {
        rc = HW_ENOMEM;
        goto out;
    }
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    /* dlopen answers a path it already has loaded with that object: an
     * earlier module that dlclose could not unload (one with
     * STB_GNU_UNIQUE symbols, which g++ makes of inline statics) holds its
     * /proc/self/fd/N name. Load this one under a descriptor number of its own. */
    for (int tries = 0; tries < 64; tries++) {
        void *old = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
        if (!old)
            break;
        dlclose(old);
        int again = fcntl(fd, F_DUPFD_CLOEXEC, fd + 1);
        if (again < 0) {
            rc = HW_EOS;
            goto out;
        }
        close(fd);
        fd = again;
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    m->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!m->dl) {
        hw_warn("cpu: module rejected by the loader: %s", dlerror());
        rc = HW_ESHAREDOBJ;
        goto out;
    }
    m->dev = dev;
    *out = m;
    m = NULL;
    rc = HW_OK;
out:
    free(m);
    if (fd >= 0)
        close(fd);
    return rc;
}

void cpu_module_unload(struct hw_backend *be, struct hw_bmodule *m)
{
    (void)be;
    while (m->functions) {
        struct hw_bfunction *f = m->functions;
        m->functions = f->next;
        free(f->params);
        free(f);
    }
    dlclose(m->dl);
    free(m);
}

int cpu_module_function(struct hw_backend *be, struct hw_bmodule *m, const char *name,
                        struct hw_bfunction **out, struct hw_func_info *info_out)
{
    char sym[HIPR_CAP_NAME + 32];
    (void)be;
    snprintf(sym, sizeof sym, "hipwire_kernel_%s", name);
    const struct hipwire_cpu_kernel *k = dlsym(m->dl, sym);
    if (!k)
        return HW_ENOTFOUND;
    if ((k->abi_version != HIPWIRE_CPU_KERNEL_ABI &&
         k->abi_version != HIPWIRE_CPU_KERNEL_ABI_FIBER) ||
        !k->fn || k->param_count > HIPR_CAP_PARAMS || k->args_size > HIPR_CAP_KERNEL_ARGS)
        return HW_EIMAGE;
    for (uint32_t i = 0; i < k->param_count; i++)
        if (k->params[i].offset > k->args_size ||
            k->params[i].size > k->args_size - k->params[i].offset)
            return HW_EIMAGE;

    struct hw_bfunction *f = hw_calloc(1, sizeof *f);
    struct hw_param *params = hw_calloc(k->param_count ? k->param_count : 1, sizeof *params);
    if (!f || !params) {
        free(f);
        free(params);
        return HW_ENOMEM;
    }
    for (uint32_t i = 0; i < k->param_count; i++)
        params[i] = (struct hw_param){ k->params[i].offset, k->params[i].size };
    f->kernel = k;
    f->params = params;
    f->next = m->functions;
    m->functions = f;

    memset(info_out, 0, sizeof *info_out);
    info_out->param_count = k->param_count;
    info_out->args_size = k->args_size;
    info_out->params = params;
    info_out->max_threads_per_block = 1024;
    info_out->max_dynamic_shared = 64 * 1024;
    info_out->binary_version = k->abi_version;
    *out = f;
    return HW_OK;
}

int cpu_module_global(struct hw_backend *be, struct hw_bmodule *m, const char *name,
                      uint64_t *dptr_out, uint64_t *size_out)
{
    const ElfW(Sym) *sym = NULL;
    Dl_info info;
    (void)be;
    void *addr = dlsym(m->dl, name);
    if (!addr)
        return HW_ENOTFOUND;
    if (!dladdr1(addr, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym ||
        ELF64_ST_TYPE(sym->st_info) != STT_OBJECT || sym->st_size == 0)
        return HW_ENOTFOUND; /* functions and sizeless symbols are not globals */
    *dptr_out = (uint64_t)(uintptr_t)addr;
    *size_out = sym->st_size;
    return HW_OK;
}
