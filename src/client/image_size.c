/*
 * image_size.c - how long a code object is, given only its address.
 *
 * hipModuleLoadData receives a bare pointer, so the image's length has to be
 * read from the image's own headers before it can be sent to the worker.
 * ELF objects and clang offload bundles (plain or compressed) are sized by
 * src/codeobj, the parser the worker uses too; the two NVIDIA formats a
 * cuda-backend worker accepts are sized here.
 */
#include <stdint.h>
#include <string.h>

#include "client.h"
#include "codeobj.h"

#define CUDA_FATBIN_MAGIC 0xBA55ED50u

size_t hw_image_size(const void *image)
{
    const unsigned char *p = image;
    uint64_t size = 0;
    if (!p)
        return 0;
    if (hw_cob_detect(p, SIZE_MAX) != HW_COB_KIND_UNKNOWN)
        return hw_cob_image_size(p, SIZE_MAX, &size, NULL) == HW_COB_OK ? (size_t)size : 0;
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
