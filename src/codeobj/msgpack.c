/*
 * msgpack.c - bounded MessagePack reader (see msgpack.h).
 *
 * Written from the MessagePack format specification: one type byte, then a
 * big-endian length or value whose width the type byte fixes.
 */
#include "msgpack.h"

#include <string.h>

void hw_mp_init(hw_mp_reader *r, const void *data, size_t len)
{
    r->p = data;
    r->end = r->p + (data ? len : 0);
}

static uint64_t be(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned k = 0; k < n; k++)
        v = (v << 8) | p[k];
    return v;
}

/* Containers: every element takes at least one byte (two for a map pair),
 * so a count above what remains is a lie we can reject before anyone
 * loops over it. */
static int check_count(uint64_t count, unsigned per, size_t remaining)
{
    if (count > remaining / per)
        return HW_MP_ECOUNT;
    return HW_MP_OK;
}

int hw_mp_read(hw_mp_reader *r, hw_mp_obj *out)
{
    if (!r || !out || !r->p || r->p >= r->end)
        return HW_MP_ETRUNC;
    const uint8_t *p = r->p;
    size_t avail = (size_t)(r->end - p);
    uint8_t t = p[0];
    hw_mp_obj o;
    memset(&o, 0, sizeof o);
    size_t hdr = 1;       /* bytes of type + length/value fields */
    uint64_t payload = 0; /* bytes of data that follow the header */
    unsigned width = 0;

    if (t <= 0x7f) {
        o.type = HW_MP_UINT;
        o.u = t;
    } else if (t <= 0x8f) {
        o.type = HW_MP_MAP;
        o.len = t & 0x0f;
    } else if (t <= 0x9f) {
        o.type = HW_MP_ARRAY;
        o.len = t & 0x0f;
    } else if (t <= 0xbf) {
        o.type = HW_MP_STR;
        payload = t & 0x1f;
    } else if (t >= 0xe0) {
        o.type = HW_MP_INT;
        o.i = (int8_t)t;
    } else {
        switch (t) {
        case 0xc0: o.type = HW_MP_NIL; break;
        case 0xc2:
            o.type = HW_MP_BOOL;
            o.b = false;
            break;
        case 0xc3:
            o.type = HW_MP_BOOL;
            o.b = true;
            break;
        case 0xc4:
        case 0xc5:
        case 0xc6:
            o.type = HW_MP_BIN;
            width = 1u << (t - 0xc4);
            break;
        case 0xc7:
        case 0xc8:
        case 0xc9:
            o.type = HW_MP_EXT;
            width = 1u << (t - 0xc7);
            break;
        case 0xca:
            o.type = HW_MP_FLOAT;
            hdr = 5;
            break;
        case 0xcb:
            o.type = HW_MP_FLOAT;
            hdr = 9;
            break;
        case 0xcc:
        case 0xcd:
        case 0xce:
        case 0xcf:
            o.type = HW_MP_UINT;
            hdr = 1 + (1u << (t - 0xcc));
            break;
        case 0xd0:
        case 0xd1:
        case 0xd2:
        case 0xd3:
            o.type = HW_MP_INT;
            hdr = 1 + (1u << (t - 0xd0));
            break;
        case 0xd4:
        case 0xd5:
        case 0xd6:
        case 0xd7:
        case 0xd8:
            o.type = HW_MP_EXT;
            hdr = 2;
            payload = 1u << (t - 0xd4);
            break;
        case 0xd9:
        case 0xda:
        case 0xdb:
            o.type = HW_MP_STR;
            width = 1u << (t - 0xd9);
            break;
        case 0xdc:
        case 0xdd:
            o.type = HW_MP_ARRAY;
            width = 2u << (t - 0xdc);
            break;
        case 0xde:
        case 0xdf:
            o.type = HW_MP_MAP;
            width = 2u << (t - 0xde);
            break;
        default: return HW_MP_EBADBYTE; /* 0xc1 */
        }
    }

    if (width) {
        /* A length field: type byte, then `width` big-endian bytes (ext
         * adds its one-byte type after the length). */
        hdr = 1 + width + (o.type == HW_MP_EXT ? 1 : 0);
        if (avail < hdr)
            return HW_MP_ETRUNC;
        uint64_t n = be(p + 1, width);
        if (o.type == HW_MP_ARRAY || o.type == HW_MP_MAP) {
            int rc = check_count(n, o.type == HW_MP_MAP ? 2 : 1, avail - hdr);
            if (rc)
                return rc;
            o.len = (uint32_t)n;
        } else {
            payload = n;
        }
    }
    if (avail < hdr)
        return HW_MP_ETRUNC;
    if (payload > avail - hdr)
        return HW_MP_ETRUNC;
    if ((o.type == HW_MP_ARRAY || o.type == HW_MP_MAP) && !width) {
        int rc = check_count(o.len, o.type == HW_MP_MAP ? 2 : 1, avail - hdr);
        if (rc)
            return rc;
    }

    switch (t) {
    case 0xca: {
        uint32_t bits = (uint32_t)be(p + 1, 4);
        float f;
        memcpy(&f, &bits, sizeof f);
        o.f = f;
        break;
    }
    case 0xcb: {
        uint64_t bits = be(p + 1, 8);
        memcpy(&o.f, &bits, sizeof o.f);
        break;
    }
    case 0xcc:
    case 0xcd:
    case 0xce:
    case 0xcf: o.u = be(p + 1, (unsigned)hdr - 1); break;
    case 0xd0:
    case 0xd1:
    case 0xd2:
    case 0xd3: {
        unsigned n = (unsigned)hdr - 1;
        uint64_t v = be(p + 1, n);
        /* Sign-extend from n bytes without shifting into the sign bit. */
        if (n < 8 && (v >> (8 * n - 1)) & 1)
            v |= ~(uint64_t)0 << (8 * n);
        memcpy(&o.i, &v, sizeof v);
        break;
    }
    default: break;
    }
    if (t >= 0xd4 && t <= 0xd8)
        o.ext_type = (int8_t)p[1];
    else if (o.type == HW_MP_EXT)
        o.ext_type = (int8_t)p[hdr - 1];

    /* One integer domain for callers: non-negative values are UINT. */
    if (o.type == HW_MP_INT && o.i >= 0) {
        o.type = HW_MP_UINT;
        o.u = (uint64_t)o.i;
    } else if (o.type == HW_MP_UINT) {
        o.i = o.u <= INT64_MAX ? (int64_t)o.u : INT64_MAX;
    }
    if (o.type == HW_MP_STR || o.type == HW_MP_BIN || o.type == HW_MP_EXT) {
        if (payload > UINT32_MAX)
            return HW_MP_ETRUNC; /* cannot be: widths are at most 32 bits */
        o.data = p + hdr;
        o.len = (uint32_t)payload;
    }
    r->p = p + hdr + payload;
    *out = o;
    return HW_MP_OK;
}

int hw_mp_skip(hw_mp_reader *r, unsigned max_depth)
{
    hw_mp_obj o;
    int rc = hw_mp_read(r, &o);
    if (rc)
        return rc;
    if (o.type != HW_MP_ARRAY && o.type != HW_MP_MAP)
        return HW_MP_OK;
    if (max_depth == 0)
        return HW_MP_EDEPTH;
    uint64_t n = (uint64_t)o.len * (o.type == HW_MP_MAP ? 2 : 1);
    /* Bounded: each element consumes at least one input byte. */
    for (uint64_t k = 0; k < n; k++) {
        rc = hw_mp_skip(r, max_depth - 1);
        if (rc)
            return rc;
    }
    return HW_MP_OK;
}

const char *hw_mp_type_name(hw_mp_type t)
{
    switch (t) {
    case HW_MP_NIL: return "nil";
    case HW_MP_BOOL: return "bool";
    case HW_MP_UINT: return "unsigned integer";
    case HW_MP_INT: return "negative integer";
    case HW_MP_FLOAT: return "float";
    case HW_MP_STR: return "string";
    case HW_MP_BIN: return "binary";
    case HW_MP_ARRAY: return "array";
    case HW_MP_MAP: return "map";
    case HW_MP_EXT: return "ext";
    }
    return "?";
}

const char *hw_mp_strerror(int status)
{
    switch (status) {
    case HW_MP_OK: return "ok";
    case HW_MP_ETRUNC: return "msgpack input truncated";
    case HW_MP_EBADBYTE: return "msgpack: invalid type byte 0xc1";
    case HW_MP_ECOUNT: return "msgpack: container count exceeds input size";
    case HW_MP_EDEPTH: return "msgpack: nesting too deep";
    }
    return "msgpack: unknown error";
}

bool hw_mp_str_eq(const hw_mp_obj *o, const char *s)
{
    size_t n = strlen(s);
    return o->type == HW_MP_STR && o->len == n && memcmp(o->data, s, n) == 0;
}
