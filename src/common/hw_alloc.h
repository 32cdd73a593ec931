/* The one allocator seam: every heap allocation in src/ goes through these,
 * so tests can make the Nth one fail (HIPWIRE_FAIL_ALLOC=N, and with
 * HIPWIRE_FAIL_ALLOC_EVERY=1 every one after it too) and check that the
 * failure is a clear error, never a crash. Off, they are malloc and friends
 * behind one predictable branch. Code that must not depend on hipwire (the
 * CPU kernel prelude, async-signal handlers) keeps raw calls on the
 * style_no_raw_malloc allow-list. */
#ifndef HW_ALLOC_H
#define HW_ALLOC_H

#include <stddef.h>

void *hw_malloc(size_t size);
void *hw_calloc(size_t count, size_t size);
/* Like realloc: on failure p is untouched and still owned by the caller. */
void *hw_realloc(void *p, size_t size);
char *hw_strdup(const char *s);
void hw_free(void *p);
/* For allocators other than malloc's (aligned memory, say): 1 when the
 * allocation being made is to fail, counted with the others. */
int hw_alloc_fault(void);

#endif
