/*
 * kernel_types.h - the by-value argument types of kernels.hip, in the
 * common subset of C and HIP, so that the layout test (C, host compiler)
 * computes each argument's size and alignment from the same definitions
 * the device compiler saw.
 */
#ifndef HIPWIRE_TEST_KERNEL_TYPES_H
#define HIPWIRE_TEST_KERNEL_TYPES_H

struct hw_s1 {
    char c;
    double d;
    int i;
}; /* holes inside, align 8 */
struct hw_s2 {
    short a;
    char b;
}; /* size 4, align 2 */
struct hw_vec3 {
    float x, y, z;
}; /* size 12, align 4 */
/* Over 4 KiB by value: HIP's documented kernel-argument limit is 4 KiB,
 * but the compiler takes more, so the proxy must too. */
struct hw_big {
    char bytes[4100];
    int tail;
};

#endif
