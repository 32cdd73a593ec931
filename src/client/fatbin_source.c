/*
 * fatbin_source.c - a fat binary built by hipwire-cc carries its device code
 * as portable HIP source (src/codeobj/hip_source.h). On a device it has no
 * AMD code object for, the worker compiles that source with hiprtc for its
 * own device (the host compiler on the CPU device, NVRTC on NVIDIA), and the
 * result is loaded as the fat binary's module: kernels and variables are then
 * found by the names their registration gave (mangled names, as the device
 * compile spells them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"
#include "client.h"
#include "codeobj.h"
#include "hip_source.h"
#include "hw_log.h"
#include "rtc_compile.h"

/* The source entry of the bundle, if it has one and no AMD code object the
 * device runs. */
static const hw_cob_entry *source_entry(const hw_cob_bundle *b, const char *arch)
{
    const hw_cob_entry *src = NULL;
    for (uint32_t i = 0; i < b->nentries; i++)
        if (strcmp(b->entries[i].triple, HW_SRC_TRIPLE) == 0)
            src = &b->entries[i];
    if (src && hw_cob_bundle_find(b, arch))
        return NULL;
    return src;
}

static hipError_t compile_and_load(struct hw_conn *c, int dev, hw_src_program *p,
                                   struct hw_module **out)
{
    hiprtcProgram prog = NULL;
    hipError_t err = hipErrorNoBinaryForGpu;
    if (hiprtcCreateProgram(&prog, p->source, p->name, (int)p->header_count, p->headers,
                            p->header_names) != HIPRTC_SUCCESS)
        return hipErrorOutOfMemory;
    const char *dev_name = c->devs[dev].name;
    hiprtcResult r = hw_rtc_compile(prog, dev, (int)p->option_count, p->options);
    size_t log_size = 0, size = 0;
    if (r != HIPRTC_SUCCESS) {
        char *log = NULL;
        if (hiprtcGetProgramLogSize(prog, &log_size) == HIPRTC_SUCCESS &&
            (log = hw_malloc(log_size + 1)) && hiprtcGetProgramLog(prog, log) == HIPRTC_SUCCESS)
            log[log_size] = '\0';
        fprintf(stderr,
                "hipwire: compiling the device source of %s (built by hipwire-cc) for '%s' "
                "failed (%s):\n%s",
                p->name, dev_name, hiprtcGetErrorString(r), log ? log : "");
        free(log);
        goto cleanup;
    }
    void *code = NULL;
    if (hiprtcGetCodeSize(prog, &size) != HIPRTC_SUCCESS || !(code = hw_malloc(size ? size : 1)) ||
        hiprtcGetCode(prog, code) != HIPRTC_SUCCESS) {
        free(code);
        err = hipErrorOutOfMemory;
        goto cleanup;
    }
    err = hw_module_load(c, dev, code, size, out);
    hw_debug("device source of %s compiled for device %d (%zu bytes): %s", p->name, dev, size,
             hipGetErrorName(err));
    free(code);
cleanup:
    hiprtcDestroyProgram(&prog);
    return err;
}

int hw_fatbin_source_load(struct hw_conn *c, int dev, const void *image, size_t size,
                          struct hw_module **out, hipError_t *err)
{
    hw_cob_bundle b;
    hw_cob_err cerr = { { 0 } };
    if (hw_cob_detect(image, size) != HW_COB_KIND_BUNDLE ||
        hw_cob_bundle_open(image, size, 0, &b, &cerr) != HW_COB_OK)
        return 0;
    int handled = 0;
    const hw_cob_entry *e = source_entry(&b, c->devs[dev].arch_name);
    hw_src_program p;
    if (e) {
        handled = 1;
        if (hw_src_parse(hw_cob_entry_data(&b, e), (size_t)e->size, &p) < 0) {
            fprintf(stderr, "hipwire: the device source in the fat binary at %p is damaged\n",
                    image);
            *err = hipErrorInvalidImage;
        } else {
            *err = compile_and_load(c, dev, &p, out);
        }
    }
    hw_cob_bundle_close(&b);
    return handled;
}

char *hw_fatbin_arch_note(struct hw_conn *c, int dev, const void *image, size_t size)
{
    char targets[512] = "";
    size_t k = 0;
    hw_cob_bundle b;
    hw_cob_err cerr = { { 0 } };
    if (hw_cob_bundle_open(image, size, 0, &b, &cerr) == HW_COB_OK) {
        for (uint32_t i = 0; i < b.nentries && k + 2 < sizeof targets; i++) {
            const char *t = b.entries[i].is_amdgcn ? b.entries[i].target_id : NULL;
            if (t && *t)
                k += (size_t)snprintf(targets + k, sizeof targets - k, "%s%s", k ? ", " : "", t);
        }
        hw_cob_bundle_close(&b);
    } else if (hw_cob_detect(image, size) == HW_COB_KIND_ELF) {
        snprintf(targets, sizeof targets, "one AMD code object");
    }
    if (k >= sizeof targets)
        k = sizeof targets - 1;
    char *note = NULL;
    if (asprintf(&note,
                 "the program carries device code only for %s (AMD code objects, as hipcc "
                 "builds them), and device %d is '%s' (%s), which cannot run them. Rebuild the "
                 "program with hipwire-cc (hipcc's flags): its device code then travels as "
                 "source that the worker compiles for its own device (docs/hip-source.md)",
                 *targets ? targets : "other devices", dev, c->devs[dev].name,
                 c->devs[dev].arch_name) < 0)
        return NULL;
    return note;
}
