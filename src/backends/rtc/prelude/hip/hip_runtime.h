/*
 * hip/hip_runtime.h for HIP source compiled for hipwire's CPU device
 * (docs/hip-source.md). Not ROCm's header: it gives HIP's device names their
 * HIP meaning on top of the host C++ compiler and the fiber kernel ABI
 * (hipwire/cpu_kernel.h, ABI 2). A program compiled by hiprtc on a cpu
 * worker gets it implicitly, and an #include of it resolves here.
 */
#ifndef HIPWIRE_CPU_HIP_RUNTIME_H
#define HIPWIRE_CPU_HIP_RUNTIME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <limits.h>
#include <float.h>
#include <math.h>
#include <cmath>
#include <utility>
#include <type_traits>

#include "hipwire/cpu_kernel.h"

#define __HIP__                1
#define __HIPCC__              1
#define __HIPCC_RTC__          1
#define __HIP_DEVICE_COMPILE__ 1
#define __HIP_PLATFORM_AMD__   1
#define __HIP_PLATFORM_HCC__   1
#define __HIPWIRE_CPU__        1

/* Kernels go to a section of their own: the compile lists them there. */
#define __global__ __attribute__((section("hipwire_kernels"), used))
#define __device__
#define __host__
#define __constant__
#define __shared__ static thread_local
#define __managed__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__    __attribute__((noinline))
#define __align__(n)    __attribute__((aligned(n)))
#define __launch_bounds__(...)
#define __restrict__ __restrict
#define HIP_KERNEL_NAME(...) __VA_ARGS__

typedef enum hipError_t { hipSuccess = 0 } hipError_t;

namespace __hipwire
{

/* The running thread: its fiber's record is found from the stack pointer
 * (cpu_kernel.h). */
static __forceinline__ hipwire_cpu_fiber *self()
{
    uintptr_t sp;
#if defined(__x86_64__)
    __asm__("movq %%rsp, %0" : "=r"(sp));
#elif defined(__aarch64__)
    __asm__("mov %0, sp" : "=r"(sp));
#else
#error "the CPU device runs on x86-64 and AArch64"
#endif
    return hipwire_cpu_fiber_of(sp);
}

/* extern __shared__ T name[] becomes one of these (the compile rewrites the
 * declaration): it converts to the block's dynamic shared memory. */
template <typename T> struct dyn_shared {
    __forceinline__ operator T *() const { return (T *)self()->ctx.shared; }
};

template <typename T> __forceinline__ uint64_t to_bits(T v)
{
    static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value,
                  "warp functions take values of at most 8 bytes");
    uint64_t b = 0;
    memcpy(&b, &v, sizeof v);
    return b;
}

template <typename T> __forceinline__ T from_bits(uint64_t b)
{
    T v;
    memcpy(&v, &b, sizeof v);
    return v;
}

/* One lockstep step: every lane publishes v and reads lane src's value;
 * a lane outside the warp or not running gives the caller its own. */
template <typename T> __forceinline__ T exchange(T v, int src)
{
    hipwire_cpu_fiber *me = self();
    return from_bits<T>(me->shfl(me, to_bits(v), (uint32_t)src & (HIPWIRE_CPU_WARP_SIZE - 1)));
}

/* ---- kernel descriptors: what the compile appends for each kernel ---- */

template <typename... A> struct params {
    static constexpr size_t count = sizeof...(A);
    struct table {
        hipwire_cpu_param p[sizeof...(A) + 1];
        uint32_t size;
    };
    static constexpr table make()
    {
        const size_t sizes[] = { sizeof(A)..., 0 };
        const size_t aligns[] = { alignof(A)..., 1 };
        table t{};
        size_t off = 0, maxa = 1;
        for (size_t i = 0; i < count; i++) {
            off = (off + aligns[i] - 1) / aligns[i] * aligns[i];
            t.p[i].offset = (uint32_t)off;
            t.p[i].size = (uint32_t)sizes[i];
            off += sizes[i];
            maxa = aligns[i] > maxa ? aligns[i] : maxa;
        }
        t.size = (uint32_t)((off + maxa - 1) / maxa * maxa);
        return t;
    }
    static constexpr table layout = make();
};

template <auto F> struct entry;
template <typename... A, void (*F)(A...)> struct entry<F> {
    using P = params<A...>;
    template <size_t... I>
    static __forceinline__ void call(const char *args, std::index_sequence<I...>)
    {
        F(*(const std::remove_cv_t<A> *)(args + P::layout.p[I].offset)...);
    }
    static void run(const hipwire_cpu_ctx *, const void *args)
    {
        call((const char *)args, std::index_sequence_for<A...>{});
    }
    static constexpr hipwire_cpu_kernel describe(const char *name)
    {
        return hipwire_cpu_kernel{ HIPWIRE_CPU_KERNEL_ABI_FIBER,
                                   (uint32_t)P::count,
                                   P::layout.size,
                                   0,
                                   P::layout.p,
                                   &run,
                                   name };
    }
};

} // namespace __hipwire

#define HIP_DYNAMIC_SHARED(type, var) static __hipwire::dyn_shared<type> var;
#define HIP_DYNAMIC_SHARED_ATTRIBUTE

/* ---- built-in variables ---- */

struct dim3 {
    uint32_t x, y, z;
    constexpr dim3(uint32_t x_ = 1, uint32_t y_ = 1, uint32_t z_ = 1) : x(x_), y(y_), z(z_) {}
    constexpr dim3(const hipwire_dim3 &d) : x(d.x), y(d.y), z(d.z) {}
};

#define threadIdx      (__hipwire::self()->ctx.thread_idx)
#define blockIdx       (__hipwire::self()->ctx.block_idx)
#define blockDim       (__hipwire::self()->ctx.block_dim)
#define gridDim        (__hipwire::self()->ctx.grid_dim)
#define hipThreadIdx_x (threadIdx.x)
#define hipThreadIdx_y (threadIdx.y)
#define hipThreadIdx_z (threadIdx.z)
#define hipBlockIdx_x  (blockIdx.x)
#define hipBlockIdx_y  (blockIdx.y)
#define hipBlockIdx_z  (blockIdx.z)
#define hipBlockDim_x  (blockDim.x)
#define hipBlockDim_y  (blockDim.y)
#define hipBlockDim_z  (blockDim.z)
#define hipGridDim_x   (gridDim.x)
#define hipGridDim_y   (gridDim.y)
#define hipGridDim_z   (gridDim.z)

static constexpr int warpSize = HIPWIRE_CPU_WARP_SIZE;

/* ---- synchronisation ---- */

static __forceinline__ void __syncthreads()
{
    hipwire_cpu_fiber *me = __hipwire::self();
    me->syncthreads(me);
}
static __forceinline__ int __syncthreads_count(int p)
{
    __shared__ int n;
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0)
        n = 0;
    __syncthreads();
    __atomic_fetch_add(&n, p != 0, __ATOMIC_RELAXED);
    __syncthreads();
    return n;
}
static __forceinline__ int __syncthreads_and(int p)
{
    return __syncthreads_count(p) == (int)(blockDim.x * blockDim.y * blockDim.z);
}
static __forceinline__ int __syncthreads_or(int p)
{
    return __syncthreads_count(p) != 0;
}
static __forceinline__ void __threadfence()
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
static __forceinline__ void __threadfence_block()
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
static __forceinline__ void __threadfence_system()
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* ---- warp functions (HIP's maskless forms, width a power of two <= warpSize) ---- */

static __forceinline__ unsigned __lane_id()
{
    return __hipwire::self()->lane;
}

template <typename T> __forceinline__ T __shfl(T var, int src, int width = warpSize)
{
    int me = (int)__lane_id();
    return __hipwire::exchange(var, src + (me & ~(width - 1)));
}
template <typename T> __forceinline__ T __shfl_up(T var, unsigned delta, int width = warpSize)
{
    int me = (int)__lane_id();
    int src = me - (int)delta;
    return __hipwire::exchange(var, src < (me & ~(width - 1)) ? me : src);
}
template <typename T> __forceinline__ T __shfl_down(T var, unsigned delta, int width = warpSize)
{
    int me = (int)__lane_id();
    int src = (me & (width - 1)) + (int)delta >= width ? me : me + (int)delta;
    return __hipwire::exchange(var, src);
}
template <typename T> __forceinline__ T __shfl_xor(T var, int mask, int width = warpSize)
{
    int me = (int)__lane_id();
    int src = me ^ mask;
    return __hipwire::exchange(var, src >= ((me + width) & ~(width - 1)) ? me : src);
}
static __forceinline__ unsigned long long __ballot(int pred)
{
    hipwire_cpu_fiber *me = __hipwire::self();
    const hipwire_cpu_warp_step *s = me->warp_step(me, pred != 0);
    unsigned long long m = 0;
    for (int i = 0; i < HIPWIRE_CPU_WARP_SIZE; i++)
        if ((s->arrived >> i & 1) && s->value[i])
            m |= 1ull << i;
    return m;
}
static __forceinline__ unsigned long long __activemask()
{
    hipwire_cpu_fiber *me = __hipwire::self();
    return me->warp_step(me, 0)->arrived;
}
static __forceinline__ int __any(int pred)
{
    return __ballot(pred) != 0;
}
static __forceinline__ int __all(int pred)
{
    hipwire_cpu_fiber *me = __hipwire::self();
    const hipwire_cpu_warp_step *s = me->warp_step(me, pred != 0);
    for (int i = 0; i < HIPWIRE_CPU_WARP_SIZE; i++)
        if ((s->arrived >> i & 1) && !s->value[i])
            return 0;
    return 1;
}

/* ---- atomics: host atomics on device memory ---- */

#define HW_ATOMIC_INT(T)                                                                           \
    static __forceinline__ T atomicAdd(T *a, T v)                                                  \
    {                                                                                              \
        return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST);                                         \
    }                                                                                              \
    static __forceinline__ T atomicSub(T *a, T v)                                                  \
    {                                                                                              \
        return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST);                                         \
    }                                                                                              \
    static __forceinline__ T atomicAnd(T *a, T v)                                                  \
    {                                                                                              \
        return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST);                                         \
    }                                                                                              \
    static __forceinline__ T atomicOr(T *a, T v)                                                   \
    {                                                                                              \
        return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST);                                          \
    }                                                                                              \
    static __forceinline__ T atomicXor(T *a, T v)                                                  \
    {                                                                                              \
        return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST);                                         \
    }                                                                                              \
    static __forceinline__ T atomicExch(T *a, T v)                                                 \
    {                                                                                              \
        return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);                                        \
    }                                                                                              \
    static __forceinline__ T atomicCAS(T *a, T cmp, T v)                                           \
    {                                                                                              \
        __atomic_compare_exchange_n(a, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);        \
        return cmp;                                                                                \
    }                                                                                              \
    static __forceinline__ T atomicMin(T *a, T v)                                                  \
    {                                                                                              \
        T old = __atomic_load_n(a, __ATOMIC_RELAXED);                                              \
        while (v < old &&                                                                          \
               !__atomic_compare_exchange_n(a, &old, v, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) \
            ;                                                                                      \
        return old;                                                                                \
    }                                                                                              \
    static __forceinline__ T atomicMax(T *a, T v)                                                  \
    {                                                                                              \
        T old = __atomic_load_n(a, __ATOMIC_RELAXED);                                              \
        while (v > old &&                                                                          \
               !__atomic_compare_exchange_n(a, &old, v, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) \
            ;                                                                                      \
        return old;                                                                                \
    }
HW_ATOMIC_INT(int)
HW_ATOMIC_INT(unsigned int)
HW_ATOMIC_INT(unsigned long long)
HW_ATOMIC_INT(long long)
HW_ATOMIC_INT(unsigned long)
#undef HW_ATOMIC_INT

/* A read-modify-write of a float or double as a compare-exchange of its bits. */
#define HW_ATOMIC_FP(T, B, name, expr)                                                \
    static __forceinline__ T name(T *a, T v)                                          \
    {                                                                                 \
        B *p = (B *)a, oldb = __atomic_load_n(p, __ATOMIC_RELAXED), newb;             \
        T old;                                                                        \
        do {                                                                          \
            memcpy(&old, &oldb, sizeof old);                                          \
            T n = (expr);                                                             \
            memcpy(&newb, &n, sizeof n);                                              \
        } while (!__atomic_compare_exchange_n(p, &oldb, newb, true, __ATOMIC_SEQ_CST, \
                                              __ATOMIC_RELAXED));                     \
        return old;                                                                   \
    }
HW_ATOMIC_FP(float, uint32_t, atomicAdd, old + v)
HW_ATOMIC_FP(float, uint32_t, atomicSub, old - v)
HW_ATOMIC_FP(float, uint32_t, atomicMin, v < old ? v : old)
HW_ATOMIC_FP(float, uint32_t, atomicMax, v > old ? v : old)
HW_ATOMIC_FP(double, uint64_t, atomicAdd, old + v)
HW_ATOMIC_FP(double, uint64_t, atomicSub, old - v)
HW_ATOMIC_FP(double, uint64_t, atomicMin, v < old ? v : old)
HW_ATOMIC_FP(double, uint64_t, atomicMax, v > old ? v : old)
#undef HW_ATOMIC_FP
static __forceinline__ float atomicExch(float *a, float v)
{
    uint32_t b, o;
    memcpy(&b, &v, 4);
    o = __atomic_exchange_n((uint32_t *)a, b, __ATOMIC_SEQ_CST);
    memcpy(&v, &o, 4);
    return v;
}
static __forceinline__ unsigned atomicInc(unsigned *a, unsigned limit)
{
    unsigned old = __atomic_load_n(a, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(a, &old, old >= limit ? 0 : old + 1, true, __ATOMIC_SEQ_CST,
                                        __ATOMIC_RELAXED))
        ;
    return old;
}
static __forceinline__ unsigned atomicDec(unsigned *a, unsigned limit)
{
    unsigned old = __atomic_load_n(a, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(a, &old, (old == 0 || old > limit) ? limit : old - 1, true,
                                        __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
        ;
    return old;
}
#define atomicAdd_system  atomicAdd
#define atomicCAS_system  atomicCAS
#define atomicExch_system atomicExch

/* ---- integer and bit functions ---- */

static __forceinline__ int __popc(unsigned x)
{
    return __builtin_popcount(x);
}
static __forceinline__ int __popcll(unsigned long long x)
{
    return __builtin_popcountll(x);
}
static __forceinline__ int __clz(int x)
{
    return x ? __builtin_clz((unsigned)x) : 32;
}
static __forceinline__ int __clzll(long long x)
{
    return x ? __builtin_clzll((unsigned long long)x) : 64;
}
static __forceinline__ int __ffs(int x)
{
    return __builtin_ffs(x);
}
static __forceinline__ int __ffsll(long long x)
{
    return __builtin_ffsll(x);
}
static __forceinline__ unsigned __brev(unsigned x)
{
    unsigned r = 0;
    for (int i = 0; i < 32; i++, x >>= 1)
        r = r << 1 | (x & 1);
    return r;
}
static __forceinline__ int __mul24(int a, int b)
{
    return (int)((long long)(a << 8 >> 8) * (b << 8 >> 8));
}
static __forceinline__ unsigned __umul24(unsigned a, unsigned b)
{
    return (a & 0xffffff) * (b & 0xffffff);
}
static __forceinline__ int __mulhi(int a, int b)
{
    return (int)(((long long)a * b) >> 32);
}
static __forceinline__ unsigned __umulhi(unsigned a, unsigned b)
{
    return (unsigned)(((unsigned long long)a * b) >> 32);
}
static __forceinline__ float __int_as_float(int x)
{
    float f;
    memcpy(&f, &x, 4);
    return f;
}
static __forceinline__ int __float_as_int(float f)
{
    int x;
    memcpy(&x, &f, 4);
    return x;
}
static __forceinline__ float __uint_as_float(unsigned x)
{
    float f;
    memcpy(&f, &x, 4);
    return f;
}
static __forceinline__ unsigned __float_as_uint(float f)
{
    unsigned x;
    memcpy(&x, &f, 4);
    return x;
}
static __forceinline__ double __longlong_as_double(long long x)
{
    double f;
    memcpy(&f, &x, 8);
    return f;
}
static __forceinline__ long long __double_as_longlong(double f)
{
    long long x;
    memcpy(&x, &f, 8);
    return x;
}
static __forceinline__ long long clock64()
{
#if defined(__x86_64__)
    return (long long)__builtin_ia32_rdtsc();
#else
    uint64_t v;
    __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
    return (long long)v;
#endif
}
static __forceinline__ long long wall_clock64()
{
    return clock64();
}

/* ---- math: the C library's, and HIP's extra names ---- */

#define HW_MINMAX(T)                       \
    static __forceinline__ T min(T a, T b) \
    {                                      \
        return a < b ? a : b;              \
    }                                      \
    static __forceinline__ T max(T a, T b) \
    {                                      \
        return a > b ? a : b;              \
    }
HW_MINMAX(int)
HW_MINMAX(unsigned int)
HW_MINMAX(long long)
HW_MINMAX(unsigned long long)
HW_MINMAX(long)
HW_MINMAX(unsigned long)
#undef HW_MINMAX
static __forceinline__ float min(float a, float b)
{
    return fminf(a, b);
}
static __forceinline__ float max(float a, float b)
{
    return fmaxf(a, b);
}
static __forceinline__ double min(double a, double b)
{
    return fmin(a, b);
}
static __forceinline__ double max(double a, double b)
{
    return fmax(a, b);
}
static __forceinline__ float __fdividef(float a, float b)
{
    return a / b;
}
/* glibc declares these names itself (without defining all): macros, then. */
#define __expf(x)          expf(x)
#define __exp10f(x)        powf(10.0f, (x))
#define __logf(x)          logf(x)
#define __log2f(x)         log2f(x)
#define __log10f(x)        log10f(x)
#define __sinf(x)          sinf(x)
#define __cosf(x)          cosf(x)
#define __tanf(x)          tanf(x)
#define __sincosf(x, s, c) sincosf((x), (s), (c))
#define __powf(a, b)       powf((a), (b))
static __forceinline__ float __saturatef(float x)
{
    return x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x;
}
static __forceinline__ float __fmaf_rn(float a, float b, float c)
{
    return fmaf(a, b, c);
}
static __forceinline__ float __fadd_rn(float a, float b)
{
    return a + b;
}
static __forceinline__ float __fsub_rn(float a, float b)
{
    return a - b;
}
static __forceinline__ float __fmul_rn(float a, float b)
{
    return a * b;
}
static __forceinline__ float __fdiv_rn(float a, float b)
{
    return a / b;
}
static __forceinline__ float __frcp_rn(float a)
{
    return 1.0f / a;
}
static __forceinline__ float __fsqrt_rn(float a)
{
    return sqrtf(a);
}
static __forceinline__ double __dadd_rn(double a, double b)
{
    return a + b;
}
static __forceinline__ double __dmul_rn(double a, double b)
{
    return a * b;
}
static __forceinline__ double __fma_rn(double a, double b, double c)
{
    return fma(a, b, c);
}
static __forceinline__ float rsqrtf(float x)
{
    return 1.0f / sqrtf(x);
}
static __forceinline__ double rsqrt(double x)
{
    return 1.0 / sqrt(x);
}
static __forceinline__ float rcbrtf(float x)
{
    return 1.0f / cbrtf(x);
}
static __forceinline__ void sincospif(float x, float *s, float *c)
{
    *s = sinf((float)M_PI * x);
    *c = cosf((float)M_PI * x);
}
static __forceinline__ float sinpif(float x)
{
    return sinf((float)M_PI * x);
}
static __forceinline__ float cospif(float x)
{
    return cosf((float)M_PI * x);
}
static __forceinline__ float normcdff(float x)
{
    return 0.5f * erfcf(-x / sqrtf(2.0f));
}
static __forceinline__ double normcdf(double x)
{
    return 0.5 * erfc(-x / sqrt(2.0));
}
static __forceinline__ int __float2int_rn(float x)
{
    return (int)nearbyintf(x);
}
static __forceinline__ int __float2int_rz(float x)
{
    return (int)x;
}
static __forceinline__ int __float2int_rd(float x)
{
    return (int)floorf(x);
}
static __forceinline__ int __float2int_ru(float x)
{
    return (int)ceilf(x);
}
static __forceinline__ float __int2float_rn(int x)
{
    return (float)x;
}
static __forceinline__ unsigned __float2uint_rn(float x)
{
    return (unsigned)nearbyintf(x);
}
static __forceinline__ float __uint2float_rn(unsigned x)
{
    return (float)x;
}

/* float4 and the rest (shared with the cuda backend's prelude). */
#include "hip/hip_vector_types.h"

#endif
