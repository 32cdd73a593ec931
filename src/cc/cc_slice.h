/* cc_slice.h - the device half of a HIP source file, as text. */
#ifndef CC_SLICE_H
#define CC_SLICE_H

#include <stddef.h>

/* Blanks, in place, every namespace-scope function definition of text that is
 * host code only (no __global__, __device__ or constexpr in its declaration),
 * head and body: main, host helpers and their <<<>>> launches. Newlines and
 * preprocessor lines stay, so the rest keeps its line numbers and #if
 * nesting. Class bodies, variables and declarations are kept. Returns the
 * number of definitions blanked. */
unsigned cc_slice_host_code(char *text, size_t len);

#endif
