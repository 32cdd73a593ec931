/*
 * cuda_module.c - code objects, kernel descriptions and launches for the
 * cuda backend.
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"
#include "cuda_internal.h"

#define FATBIN_MAGIC      0xBA55ED50u
#define FATBIN_HEADER_MIN 16u

/*
 * cuModuleLoadData takes no length: it trusts the sizes inside ELF and
 * fatbin headers. The image comes from a client, so those sizes are checked
 * against what was actually received before the driver reads it.
 */
static int elf_fits(const uint8_t *p, size_t size)
{
    Elf64_Ehdr eh;
    if (size < sizeof eh || p[EI_CLASS] != ELFCLASS64)
        return 0;
    memcpy(&eh, p, sizeof eh);
    if ((eh.e_phnum && eh.e_phentsize < sizeof(Elf64_Phdr)) ||
        (eh.e_shnum && eh.e_shentsize < sizeof(Elf64_Shdr)))
        return 0;
    if (eh.e_phoff > size || (uint64_t)eh.e_phnum * eh.e_phentsize > size - eh.e_phoff ||
        eh.e_shoff > size || (uint64_t)eh.e_shnum * eh.e_shentsize > size - eh.e_shoff)
        return 0;
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        memcpy(&ph, p + eh.e_phoff + (size_t)i * eh.e_phentsize, sizeof ph);
        if (ph.p_offset > size || ph.p_filesz > size - ph.p_offset)
            return 0;
    }
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        Elf64_Shdr sh;
        memcpy(&sh, p + eh.e_shoff + (size_t)i * eh.e_shentsize, sizeof sh);
        if (sh.sh_type != SHT_NOBITS && (sh.sh_offset > size || sh.sh_size > size - sh.sh_offset))
            return 0;
    }
    return 1;
}

/* Fatbin file header: u32 magic, u16 version, u16 header size, u64 body size. */
static int fatbin_fits(const uint8_t *p, size_t size)
{
    uint16_t hsize;
    uint64_t body;
    if (size < FATBIN_HEADER_MIN)
        return 0;
    memcpy(&hsize, p + 6, 2);
    memcpy(&body, p + 8, 8);
    return hsize >= FATBIN_HEADER_MIN && hsize <= size && body <= size - hsize;
}

int hwcu_module_load(struct hw_backend *be, int dev, const void *image, size_t size,
                     struct hw_bmodule **out)
{
    const uint8_t *p = image;
    uint8_t *text = NULL;
    const void *load = image;
    struct hw_bmodule *m = NULL;
    uint32_t magic = 0;
    int rc;

    if (dev < 0 || dev >= be->ndev)
        return HW_EDEVICE;
    if ((rc = hwcu_use(be, &be->devs[dev])) != HW_OK)
        return rc;
    if (size >= 4)
        memcpy(&magic, p, 4);
    if (size >= SELFMAG && memcmp(p, ELFMAG, SELFMAG) == 0) {
        if (!elf_fits(p, size))
            return HW_EIMAGE;
    } else if (magic == FATBIN_MAGIC) {
        if (!fatbin_fits(p, size))
            return HW_EIMAGE;
    } else {
        /* PTX is text the driver reads up to its NUL; a file read by
         * hipModuleLoad has none, so one is added. */
        if (memchr(p, '\0', size) == NULL) {
            text = hw_malloc(size + 1);
            if (!text)
                return HW_ENOMEM;
            memcpy(text, p, size);
            text[size] = '\0';
            load = text;
        }
    }
    m = hw_calloc(1, sizeof *m);
    if (!m) {
        rc = HW_ENOMEM;
        goto out;
    }
    rc = hwcu_check(be, be->api.cuModuleLoadData(&m->m, load));
    if (rc != HW_OK) {
        free(m);
        goto out;
    }
    m->d = &be->devs[dev];
    *out = m;
out:
    free(text);
    return rc;
}

void hwcu_module_unload(struct hw_backend *be, struct hw_bmodule *m)
{
    if (hwcu_use(be, m->d) == HW_OK)
        hwcu_check(be, be->api.cuModuleUnload(m->m));
    while (m->funcs) {
        struct hw_bfunction *f = m->funcs;
        m->funcs = f->next;
        free(f->params);
        free(f);
    }
    free(m);
}

static int fattr(struct hw_backend *be, CUfunction f, int a, int32_t *out)
{
    int v = 0;
    int rc = hwcu_check(be, be->api.cuFuncGetAttribute(&v, a, f));
    if (rc == HW_OK)
        *out = v;
    return rc;
}

/* The parameter layout, one cuFuncGetParamInfo call per parameter until the
 * driver answers "no such index". */
static int param_layout(struct hw_backend *be, CUfunction f, struct hw_bfunction *bf)
{
    uint32_t cap = 0;
    for (uint32_t i = 0; i < HIPR_CAP_PARAMS; i++) {
        size_t off = 0, sz = 0;
        CUresult r = be->api.cuFuncGetParamInfo(f, i, &off, &sz);
        if (r == HWCU_ERROR_INVALID_VALUE)
            return HW_OK;
        if (r != HWCU_SUCCESS)
            return hwcu_check(be, r);
        if (off > UINT32_MAX || sz > UINT32_MAX || off + sz > HIPR_CAP_KERNEL_ARGS)
            return HW_EINVAL;
        if (bf->nparams == cap) {
            uint32_t ncap = cap ? 2 * cap : 8;
            struct hw_param *np = hw_realloc(bf->params, ncap * sizeof *np);
            if (!np)
                return HW_ENOMEM;
            bf->params = np;
            cap = ncap;
        }
        bf->params[bf->nparams].offset = (uint32_t)off;
        bf->params[bf->nparams].size = (uint32_t)sz;
        bf->nparams++;
        if (off + sz > bf->args_size)
            bf->args_size = (uint32_t)(off + sz);
    }
    return HW_EINVAL; /* more parameters than the protocol can describe */
}

int hwcu_module_function(struct hw_backend *be, struct hw_bmodule *m, const char *name,
                         struct hw_bfunction **out, struct hw_func_info *info_out)
{
    struct hw_func_info info;
    CUfunction f;
    int rc;

    if ((rc = hwcu_use(be, m->d)) != HW_OK)
        return rc;
    if ((rc = hwcu_check(be, be->api.cuModuleGetFunction(&f, m->m, name))) != HW_OK)
        return rc;
    /* Without the driver's layout (CUDA < 12.4) arguments cannot be placed. */
    if (!be->api.cuFuncGetParamInfo)
        return HW_ENOTSUP;
    struct hw_bfunction *bf = hw_calloc(1, sizeof *bf);
    if (!bf)
        return HW_ENOMEM;
    bf->f = f;
    memset(&info, 0, sizeof info);
    if ((rc = param_layout(be, f, bf)) != HW_OK ||
        (rc = fattr(be, f, HWCU_FA_MAX_THREADS_PER_BLOCK, &info.max_threads_per_block)) != HW_OK ||
        (rc = fattr(be, f, HWCU_FA_NUM_REGS, &info.num_regs)) != HW_OK ||
        (rc = fattr(be, f, HWCU_FA_SHARED_SIZE_BYTES, &info.shared_size_bytes)) != HW_OK ||
        (rc = fattr(be, f, HWCU_FA_CONST_SIZE_BYTES, &info.const_size_bytes)) != HW_OK ||
        (rc = fattr(be, f, HWCU_FA_LOCAL_SIZE_BYTES, &info.local_size_bytes)) != HW_OK ||
        (rc = fattr(be, f, HWCU_FA_MAX_DYNAMIC_SHARED_SIZE_BYTES, &info.max_dynamic_shared)) !=
            HW_OK ||
        (rc = fattr(be, f, HWCU_FA_PTX_VERSION, &info.ptx_version)) != HW_OK ||
        (rc = fattr(be, f, HWCU_FA_BINARY_VERSION, &info.binary_version)) != HW_OK) {
        free(bf->params);
        free(bf);
        return rc;
    }
    info.param_count = bf->nparams;
    info.args_size = bf->args_size;
    info.params = bf->params;
    bf->next = m->funcs;
    m->funcs = bf;
    *out = bf;
    *info_out = info;
    return HW_OK;
}

int hwcu_module_global(struct hw_backend *be, struct hw_bmodule *m, const char *name,
                       uint64_t *dptr_out, uint64_t *size_out)
{
    CUdeviceptr p = 0;
    size_t sz = 0;
    int rc;
    if ((rc = hwcu_use(be, m->d)) != HW_OK)
        return rc;
    if ((rc = hwcu_check(be, be->api.cuModuleGetGlobal(&p, &sz, m->m, name))) != HW_OK)
        return rc;
    *dptr_out = p;
    *size_out = sz;
    return HW_OK;
}

#define STACK_PARAMS 64

/*
 * The packed buffer is handed to the driver as kernelParams pointing into
 * it at the offsets the driver itself reported. That is the same bytes as
 * CU_LAUNCH_PARAM_BUFFER_POINTER, without depending on how the driver
 * checks CU_LAUNCH_PARAM_BUFFER_SIZE against trailing padding, and it is
 * the only form cuLaunchCooperativeKernel accepts. The driver copies the
 * values before returning.
 */
int hwcu_launch(struct hw_backend *be, struct hw_bstream *s, struct hw_bfunction *f,
                const uint32_t grid[3], const uint32_t block[3], uint32_t shared_mem,
                const void *args, uint32_t args_size, uint32_t flags)
{
    void *stack_kp[STACK_PARAMS];
    void **kp = stack_kp;
    CUresult r;
    int rc;

    if ((rc = HWCU_DEAD(be)) != 0 || (rc = hwcu_use(be, s->d)) != HW_OK)
        return rc;
    if (args_size < f->args_size)
        return HW_EINVAL;
    if ((flags & HIPR_LAUNCH_COOPERATIVE) && !be->api.cuLaunchCooperativeKernel)
        return HW_ENOTSUP;
    if (f->nparams > STACK_PARAMS && !(kp = hw_malloc(f->nparams * sizeof *kp)))
        return HW_ENOMEM;
    for (uint32_t i = 0; i < f->nparams; i++)
        kp[i] = (uint8_t *)(uintptr_t)args + f->params[i].offset;
    if (flags & HIPR_LAUNCH_COOPERATIVE)
        r = be->api.cuLaunchCooperativeKernel(f->f, grid[0], grid[1], grid[2], block[0], block[1],
                                              block[2], shared_mem, s->s, f->nparams ? kp : NULL);
    else
        r = be->api.cuLaunchKernel(f->f, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                   shared_mem, s->s, f->nparams ? kp : NULL, NULL);
    if (kp != stack_kp)
        free(kp);
    return hwcu_check(be, r);
}
