/*
 * image_size.c - how long a code object is, given only its address.
 *
 * hipModuleLoadData receives a bare pointer, so the image's length has to be
 * read from the image's own headers before it can be sent to the worker.
 * Every format here keeps its size in a fixed place near the start.
 */
#include <elf.h>
#include <string.h>

#include "client.h"

#define BUNDLE_MAGIC "__CLANG_OFFLOAD_BUNDLE__"
#define CUDA_FATBIN_MAGIC 0xBA55ED50u

static size_t elf_size(const unsigned char *p)
{
    if (p[EI_CLASS] != ELFCLASS64)
        return 0;
    Elf64_Ehdr eh;
    memcpy(&eh, p, sizeof eh);
    /* Section headers conventionally come last; program-header segments and
     * the section header table bound the file either way. */
    size_t end = (size_t)eh.e_shoff + (size_t)eh.e_shnum * eh.e_shentsize;
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        memcpy(&ph, p + eh.e_phoff + (size_t)i * eh.e_phentsize, sizeof ph);
        if (ph.p_offset + ph.p_filesz > end)
            end = (size_t)(ph.p_offset + ph.p_filesz);
    }
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        Elf64_Shdr sh;
        memcpy(&sh, p + eh.e_shoff + (size_t)i * eh.e_shentsize, sizeof sh);
        if (sh.sh_type != SHT_NOBITS && sh.sh_offset + sh.sh_size > end)
            end = (size_t)(sh.sh_offset + sh.sh_size);
    }
    return end > sizeof eh ? end : 0;
}

/* Uncompressed clang offload bundle: magic, u64 count, then per entry
 * u64 offset, u64 size, u64 id length, id bytes. */
static size_t bundle_size(const unsigned char *p)
{
    uint64_t n, end = 0;
    const unsigned char *q = p + sizeof BUNDLE_MAGIC - 1;
    memcpy(&n, q, 8);
    q += 8;
    if (n == 0 || n > 4096)
        return 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t off, size, idlen;
        memcpy(&off, q, 8);
        memcpy(&size, q + 8, 8);
        memcpy(&idlen, q + 16, 8);
        if (idlen > 4096)
            return 0;
        q += 24 + idlen;
        if (off + size > end)
            end = off + size;
    }
    return (size_t)end;
}

size_t hw_image_size(const void *image)
{
    const unsigned char *p = image;
    if (!p)
        return 0;
    if (memcmp(p, ELFMAG, SELFMAG) == 0)
        return elf_size(p);
    if (memcmp(p, BUNDLE_MAGIC, sizeof BUNDLE_MAGIC - 1) == 0)
        return bundle_size(p);
    uint32_t magic;
    memcpy(&magic, p, 4);
    if (magic == CUDA_FATBIN_MAGIC) {
        uint16_t hdr;
        uint64_t body;
        memcpy(&hdr, p + 6, 2);
        memcpy(&body, p + 8, 8);
        return hdr + (size_t)body;
    }
    /* PTX and other text images end at their NUL, which the worker needs too. */
    if (memcmp(p, "//", 2) == 0 || memcmp(p, ".version", 8) == 0)
        return strlen((const char *)p) + 1;
    return 0;
}
