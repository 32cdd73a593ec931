/* The proxy's export table, defined by the generated
 * generated/hip<major>/exports.c (tools/gen_hip_exports.py). */
#ifndef HIPWIRE_CLIENT_GENERATED_EXPORTS_H
#define HIPWIRE_CLIENT_GENERATED_EXPORTS_H

#include <stddef.h>

#include "../export.h"

/* Exports have many signatures; ISO C only allows converting between
 * function pointer types, so the table stores this one and callers cast. */
typedef void (*hw_export_fn)(void);

struct hw_export {
    const char *name;     /* dynamic symbol name (C++ ones mangled) */
    const char *version;  /* version node, e.g. "hip_4.2" */
    hw_export_fn fn;
};

/* Sorted by strcmp() order of name. */
extern const struct hw_export hw_export_table[];
extern const size_t hw_export_count;

/* Binary search of hw_export_table; NULL when name is not exported. */
const struct hw_export *hw_export_find(const char *name);

#endif
