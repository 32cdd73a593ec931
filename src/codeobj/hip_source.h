/* hip_source.h - portable HIP device source carried in a fat binary.
 *
 * hipwire-cc puts one bundle entry with the id HW_SRC_TRIPLE beside any AMD
 * code objects. Its bytes are HW_SRC_MAGIC followed by records, each a tag
 * byte and a NUL-terminated string:
 *   'N' program name (once, first)   'S' source (once)
 *   'O' a compile option              'H' header name, then 'C' its content
 * The proxy hands them to the worker's hiprtc compile for its own device. */
#ifndef HW_HIP_SOURCE_H
#define HW_HIP_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#define HW_SRC_TRIPLE    "hipwire-source-portable"
#define HW_SRC_MAGIC     "HWSRC1\n"
#define HW_SRC_MAGIC_LEN 8 /* with its NUL */
#define HW_SRC_MAX_LIST  256

/* A parsed entry; the strings point into the entry's bytes. */
typedef struct hw_src_program {
    const char *name, *source;
    unsigned option_count, header_count;
    const char *options[HW_SRC_MAX_LIST];
    const char *header_names[HW_SRC_MAX_LIST];
    const char *headers[HW_SRC_MAX_LIST];
} hw_src_program;

/* 0 and *out filled, or -1 when data is not a well-formed entry (every
 * string terminated inside len, tags known, name and source present). */
int hw_src_parse(const void *data, size_t len, hw_src_program *out);

#endif
