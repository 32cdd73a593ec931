/*
 * fuzz_codeobj - libFuzzer harness over every hipwire_codeobj parser: the
 * same bytes are tried as an AMDGPU ELF (metadata and symbols), a bare
 * metadata map, an offload bundle (plain or CCOB; decompression capped at
 * 16 MiB so the fuzzer's memory limit is not the thing found), an image to
 * size, and raw msgpack.
 * Whatever parses is walked completely so that ASan sees every pointer.
 * Built only with -DHIPWIRE_FUZZ=ON under clang (ctest codeobj_fuzz_short).
 */
#include "codeobj.h"
#include "msgpack.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

static void walk(const hw_cob_metadata *m)
{
    if (m->target)
        sink += strlen(m->target);
    for (uint32_t k = 0; k < m->nkernels; k++) {
        const hw_cob_kernel *kn = &m->kernels[k];
        sink += strlen(kn->name) + strlen(kn->symbol) + kn->explicit_size;
        for (uint32_t a = 0; a < kn->nargs + kn->nhidden; a++) {
            const hw_cob_arg *ar = &kn->args[a];
            sink += strlen(ar->value_kind) + ar->offset + ar->size;
            if (ar->name)
                sink += strlen(ar->name);
            if (ar->type_name)
                sink += strlen(ar->type_name);
            if (ar->address_space)
                sink += strlen(ar->address_space);
        }
        if (hw_cob_find_kernel(m, kn->name) == NULL)
            __builtin_trap();
    }
}

/* Every byte a symbol claims is read, so ASan sees a bad bound. */
static int touch_symbol(void *arg, const hw_cob_symbol *sym)
{
    (void)arg;
    sink += strlen(sym->name) + sym->type;
    for (uint64_t i = 0; sym->init && i < sym->size; i++)
        sink += sym->init[i];
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hw_cob_err err;
    hw_cob_metadata m;
    if (hw_cob_elf_metadata(data, size, &m, &err) == 0) {
        walk(&m);
        hw_cob_metadata_free(&m);
    }
    if (hw_cob_metadata_decode(data, size, &m, &err) == 0) {
        walk(&m);
        hw_cob_metadata_free(&m);
    }
    hw_cob_symbol sym;
    (void)hw_cob_elf_symbols(data, size, touch_symbol, NULL, &err);
    if (hw_cob_elf_find_object(data, size, "x", &sym, &err) == 0)
        touch_symbol(NULL, &sym);
    uint64_t isz;
    if (hw_cob_image_size(data, size, &isz, &err) == 0 && isz > size)
        __builtin_trap(); /* a bounded size must stay within the bound */
    hw_cob_bundle b;
    if (hw_cob_bundle_open(data, size, 16u << 20, &b, &err) == 0) {
        for (uint32_t k = 0; k < b.nentries; k++) {
            const hw_cob_entry *e = &b.entries[k];
            const uint8_t *p = hw_cob_entry_data(&b, e);
            if (e->size && !p)
                __builtin_trap();
            if (p && hw_cob_elf_metadata(p, (size_t)e->size, &m, &err) == 0) {
                walk(&m);
                hw_cob_metadata_free(&m);
            }
            if (e->is_amdgcn)
                sink += (size_t)(hw_cob_bundle_find(&b, e->target_id) != NULL);
        }
        hw_cob_bundle_close(&b);
    }
    hw_mp_reader r;
    hw_mp_init(&r, data, size);
    while (hw_mp_skip(&r, HW_MP_MAX_DEPTH) == 0 && r.p < r.end)
        ;
    return 0;
}
