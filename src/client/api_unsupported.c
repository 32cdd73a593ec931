/* Fallback for HIP API the proxy does not forward yet, the export table
 * lookup, and the compiler-rt half helpers the real library re-exports. */
#include "api_unsupported.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "generated/exports.h"

/* Names already reported, as 64-bit hashes in a fixed open-addressing
 * set: memory stays bounded however many names arrive, the caller's
 * string is never retained, and claiming a slot is one compare-and-swap.
 * A hash collision would only suppress a report line. */
#define HW_SEEN_SLOTS 1024u /* power of two, > number of exports */
static _Atomic uint64_t hw_seen[HW_SEEN_SLOTS];
static atomic_int hw_report = -1; /* -1: the environment not read yet */
static atomic_flag hw_full_reported = ATOMIC_FLAG_INIT;

static int env_is_1(const char *name)
{
    const char *v = getenv(name);
    return v != NULL && strcmp(v, "1") == 0;
}

/* A program that calls something not forwarded must not fail silently, so
 * each such name is reported unless TF_QUIET=1 asks for silence (TF_DEBUG=1,
 * which asks for every debug line, wins over it). */
static int report_enabled(void)
{
    int r = atomic_load_explicit(&hw_report, memory_order_relaxed);
    if (r < 0) {
        r = env_is_1("TF_DEBUG") || !env_is_1("TF_QUIET");
        atomic_store_explicit(&hw_report, r, memory_order_relaxed);
    }
    return r;
}

/* True the first time name is seen, keyed by content. */
static int first_sighting(const char *name)
{
    uint64_t h = 14695981039346656037u; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 1099511628211u;
    if (h == 0) /* 0 marks an empty slot */
        h = 1;
    for (uint32_t i = 0; i < HW_SEEN_SLOTS; i++) {
        _Atomic uint64_t *slot = &hw_seen[(h + i) & (HW_SEEN_SLOTS - 1)];
        uint64_t cur = atomic_load_explicit(slot, memory_order_relaxed);
        if (cur == 0) {
            if (atomic_compare_exchange_strong_explicit(slot, &cur, h, memory_order_relaxed,
                                                        memory_order_relaxed))
                return 1;
            /* Lost the race; cur now holds the winner's hash. */
        }
        if (cur == h)
            return 0;
    }
    /* Table full: say so once rather than repeat lines forever. */
    if (!atomic_flag_test_and_set(&hw_full_reported))
        fprintf(stderr, "hipwire: too many unsupported functions; not reporting more\n");
    return 0;
}

hipError_t hw_api_unsupported(const char *name)
{
    if (name != NULL && report_enabled() && first_sighting(name))
        fprintf(stderr,
                "hipwire: %s is not supported yet and fails (hipErrorNotSupported); "
                "see docs/client.md (TF_QUIET=1 silences this)\n",
                name);
    return hipErrorNotSupported;
}

void hw_api_note_once(const char *key, const char *line)
{
    if (report_enabled() && first_sighting(key))
        fprintf(stderr, "hipwire: %s (TF_QUIET=1 silences this)\n", line);
}

static int export_cmp(const void *key, const void *elem)
{
    return strcmp((const char *)key, ((const struct hw_export *)elem)->name);
}

const struct hw_export *hw_export_find(const char *name)
{
    if (name == NULL)
        return NULL;
    return bsearch(name, hw_export_table, hw_export_count, sizeof(hw_export_table[0]), export_cmp);
}

/* hipwire's own lookup hook, the table seen from outside the library: the
 * exports_lookup test dlopens the proxy and checks every export through
 * it.  Declared in no header; callers use dlsym. */
HW_EXPORT void *hipwire_get_proc_address(const char *name)
{
    const struct hw_export *e = hw_export_find(name);
    void *p = NULL;
    /* ISO C has no function-to-object pointer cast; POSIX (dlsym)
     * guarantees the representations match, so copy the bits. */
    _Static_assert(sizeof(p) == sizeof(e->fn), "function pointer size");
    if (e != NULL)
        memcpy(&p, &e->fn, sizeof(p));
    return p;
}

/* IEEE half <-> float, round to nearest even.  The real library leaks
 * these compiler-rt helpers as exports, and code built by clang may bind
 * to them there, so they must really work. */
HW_EXPORT uint16_t __gnu_f2h_ieee(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof(x));
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t exp = (x >> 23) & 0xffu;
    uint32_t mant = x & 0x7fffffu;
    if (exp == 0xffu) /* inf, or NaN kept quiet */
        return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u | (mant >> 13) : 0u));
    int e = (int)exp - 127 + 15;
    if (e >= 31)
        return (uint16_t)(sign | 0x7c00u);
    uint32_t h, rem, halfway;
    if (e <= 0) { /* half subnormal or zero */
        if (e < -10)
            return (uint16_t)sign;
        mant |= 0x800000u;
        uint32_t shift = (uint32_t)(14 - e);
        h = mant >> shift;
        rem = mant & ((1u << shift) - 1u);
        halfway = 1u << (shift - 1u);
    } else {
        h = ((uint32_t)e << 10) | (mant >> 13);
        rem = mant & 0x1fffu;
        halfway = 0x1000u;
    }
    /* A carry out of the mantissa correctly bumps the exponent (to inf). */
    if (rem > halfway || (rem == halfway && (h & 1u)))
        h++;
    return (uint16_t)(sign | h);
}

HW_EXPORT float __gnu_h2f_ieee(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    uint32_t x;
    if (exp == 0 && mant == 0) {
        x = sign;
    } else if (exp == 0) { /* subnormal: normalise */
        uint32_t e = 113;
        while (!(mant & 0x400u)) {
            mant <<= 1;
            e--;
        }
        x = sign | (e << 23) | ((mant & 0x3ffu) << 13);
    } else if (exp == 31) {
        x = sign | 0x7f800000u | (mant << 13);
    } else {
        x = sign | ((exp + 112u) << 23) | (mant << 13);
    }
    float f;
    memcpy(&f, &x, sizeof(f));
    return f;
}
