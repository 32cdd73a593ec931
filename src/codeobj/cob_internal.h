/* cob_internal.h - helpers shared by the hipwire_codeobj sources. */
#ifndef HIPWIRE_CODEOBJ_INTERNAL_H
#define HIPWIRE_CODEOBJ_INTERNAL_H

#include "codeobj.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static inline int
cob_fail(hw_cob_err *err, int status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return status;
}

/* Little-endian loads from possibly unaligned bytes. */
static inline uint16_t le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}
static inline uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline uint64_t le64(const uint8_t *p)
{
    return (uint64_t)le32(p) | ((uint64_t)le32(p + 4) << 32);
}

/* An ELF64 little-endian image whose header tables were checked to lie
 * inside it (elf.c). */
typedef struct cob_elf_view {
    const uint8_t *p;
    size_t len;
    uint64_t phoff, shoff;
    uint16_t phnum, shnum, phentsize, shentsize;
    uint32_t flags;
    uint8_t abiversion;
} cob_elf_view;

int cob_elf_open(const uint8_t *p, size_t len, cob_elf_view *v, bool need_amdgpu, hw_cob_err *err);

/* ELF image size (elf.c), used by hw_cob_image_size. */
int cob_elf_image_size(const uint8_t *p, size_t max, uint64_t *size, hw_cob_err *err);

#endif
