/*
 * hip/hip_fp16.h for the CPU device (docs/hip-source.md): __half is the host
 * compiler's _Float16, with HIP's conversion and arithmetic names.
 */
#ifndef HIPWIRE_CPU_HIP_FP16_H
#define HIPWIRE_CPU_HIP_FP16_H

#include "hip/hip_runtime.h"

typedef _Float16 __half;
struct __half2 {
    __half x, y;
};
typedef __half half;
typedef __half2 half2;

static __forceinline__ __half __float2half(float f)
{
    return (__half)f;
}
static __forceinline__ float __half2float(__half h)
{
    return (float)h;
}
static __forceinline__ __half __double2half(double d)
{
    return (__half)d;
}
static __forceinline__ __half __int2half_rn(int i)
{
    return (__half)i;
}
static __forceinline__ __half __hadd(__half a, __half b)
{
    return a + b;
}
static __forceinline__ __half __hsub(__half a, __half b)
{
    return a - b;
}
static __forceinline__ __half __hmul(__half a, __half b)
{
    return a * b;
}
static __forceinline__ __half __hdiv(__half a, __half b)
{
    return a / b;
}
static __forceinline__ __half __hfma(__half a, __half b, __half c)
{
    return (__half)fmaf(a, b, c);
}
static __forceinline__ __half __hneg(__half a)
{
    return -a;
}
static __forceinline__ bool __heq(__half a, __half b)
{
    return a == b;
}
static __forceinline__ bool __hlt(__half a, __half b)
{
    return a < b;
}
static __forceinline__ bool __hgt(__half a, __half b)
{
    return a > b;
}
static __forceinline__ __half2 __floats2half2_rn(float a, float b)
{
    return __half2{ (__half)a, (__half)b };
}
static __forceinline__ __half2 __float2half2_rn(float a)
{
    return __half2{ (__half)a, (__half)a };
}
static __forceinline__ float __low2float(__half2 h)
{
    return (float)h.x;
}
static __forceinline__ float __high2float(__half2 h)
{
    return (float)h.y;
}
static __forceinline__ __half2 __hadd2(__half2 a, __half2 b)
{
    return __half2{ a.x + b.x, a.y + b.y };
}
static __forceinline__ __half2 __hmul2(__half2 a, __half2 b)
{
    return __half2{ a.x * b.x, a.y * b.y };
}
static __forceinline__ __half2 __hfma2(__half2 a, __half2 b, __half2 c)
{
    return __half2{ __hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y) };
}

#endif
