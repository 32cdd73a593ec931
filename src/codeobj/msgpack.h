/*
 * msgpack.h - a small bounded MessagePack reader (internal to hipwire_codeobj,
 * exposed for its tests and fuzzer).
 *
 * It decodes one object header at a time from a byte range and never reads
 * past the range's end. Strings and binaries are returned as pointers into
 * the input (not NUL-terminated). Containers return their element count; the
 * caller then reads the elements (a map's as key, value, key, value...).
 *
 * Every count is checked against the bytes that remain before it is
 * returned (an element takes at least one byte), so a hostile length cannot
 * make a caller loop or allocate beyond what the input could describe.
 */
#ifndef HIPWIRE_CODEOBJ_MSGPACK_H
#define HIPWIRE_CODEOBJ_MSGPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Nesting deeper than this is refused by hw_mp_skip (and by the metadata
 * decoder, whose schema is 4 levels deep). */
#define HW_MP_MAX_DEPTH 32

typedef enum hw_mp_type {
    HW_MP_NIL,
    HW_MP_BOOL,
    HW_MP_UINT,  /* any non-negative integer, whatever its encoding */
    HW_MP_INT,   /* a negative integer */
    HW_MP_FLOAT, /* float32 widened, or float64 */
    HW_MP_STR,
    HW_MP_BIN,
    HW_MP_ARRAY,
    HW_MP_MAP,
    HW_MP_EXT
} hw_mp_type;

typedef enum hw_mp_status {
    HW_MP_OK = 0,
    HW_MP_ETRUNC = -1,   /* input ends inside an object */
    HW_MP_EBADBYTE = -2, /* 0xc1, the one byte msgpack never uses */
    HW_MP_ECOUNT = -3,   /* a container count larger than the input could hold */
    HW_MP_EDEPTH = -4    /* nesting deeper than allowed */
} hw_mp_status;

typedef struct hw_mp_obj {
    hw_mp_type type;
    bool b;
    uint64_t u;          /* HW_MP_UINT */
    int64_t i;           /* HW_MP_INT (and HW_MP_UINT values that fit) */
    double f;            /* HW_MP_FLOAT */
    const uint8_t *data; /* HW_MP_STR, HW_MP_BIN, HW_MP_EXT payload */
    uint32_t len;        /* payload bytes, or element count (array: items,
                            map: key/value pairs) */
    int8_t ext_type;     /* HW_MP_EXT */
} hw_mp_obj;

typedef struct hw_mp_reader {
    const uint8_t *p;
    const uint8_t *end;
} hw_mp_reader;

void hw_mp_init(hw_mp_reader *r, const void *data, size_t len);

/* Read one object header (and, for scalars/strings, its payload). On
 * failure *o and the reader are left as they were. */
int hw_mp_read(hw_mp_reader *r, hw_mp_obj *o);

/* Skip one complete object, containers included, nesting at most
 * max_depth levels. On failure the reader position is unspecified. */
int hw_mp_skip(hw_mp_reader *r, unsigned max_depth);

/* "string", "array", ... for messages. */
const char *hw_mp_type_name(hw_mp_type t);
const char *hw_mp_strerror(int status);

/* Whether a HW_MP_STR object equals the NUL-terminated s. */
bool hw_mp_str_eq(const hw_mp_obj *o, const char *s);

#endif /* HIPWIRE_CODEOBJ_MSGPACK_H */
