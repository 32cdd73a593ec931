/*
 * hip/hip_vector_types.h for HIP source compiled by hipwire: float4 and the
 * rest, as HIP_vector_type<T, n>, for the CPU device (host C++ compiler) and
 * the cuda backend (NVRTC) alike (docs/hip-source.md).
 *
 * The same template name and arguments as HIP's own headers, so a kernel
 * taking a float4 mangles the same here as in the host compile that
 * registered it (hipwire-cc against ROCm's headers), and with HIP's size and
 * alignment (a 3-vector takes the room of 4), so arguments are laid out
 * alike. NVRTC declares CUDA's own float4 before any header: there the HIP
 * names are macros onto the template (CUDA's float4 would mangle as
 * "6float4" and the registered kernel would not be found).
 */
#ifndef HIPWIRE_HIP_VECTOR_TYPES_H
#define HIPWIRE_HIP_VECTOR_TYPES_H

#define HW_VEC_FN __host__ __device__ __forceinline__

template <typename T, unsigned int rank> struct HIP_vector_type;

#define HW_VEC_OPS(n)                                                                          \
    HW_VEC_FN T &operator[](unsigned i)                                                  \
    {                                                                                          \
        return (&x)[i];                                                                        \
    }                                                                                          \
    HW_VEC_FN const T &operator[](unsigned i) const                                      \
    {                                                                                          \
        return (&x)[i];                                                                        \
    }                                                                                          \
    HW_VEC_OP(+)                                                                               \
    HW_VEC_OP(-)                                                                               \
    HW_VEC_OP(*)                                                                               \
    HW_VEC_OP(/)                                                                               \
    HW_VEC_FN friend bool operator==(const HIP_vector_type &a, const HIP_vector_type &b) \
    {                                                                                          \
        for (unsigned i = 0; i < n; i++)                                                       \
            if (!(a[i] == b[i]))                                                               \
                return false;                                                                  \
        return true;                                                                           \
    }                                                                                          \
    HW_VEC_FN friend bool operator!=(const HIP_vector_type &a, const HIP_vector_type &b) \
    {                                                                                          \
        return !(a == b);                                                                      \
    }                                                                                          \
    HW_VEC_FN HIP_vector_type operator-() const                                          \
    {                                                                                          \
        HIP_vector_type r = *this;                                                             \
        for (unsigned i = 0; i < n; i++)                                                       \
            r[i] = -r[i];                                                                      \
        return r;                                                                              \
    }
#define HW_VEC_OP(op)                                                                 \
    HW_VEC_FN HIP_vector_type &operator op##=(const HIP_vector_type &b)         \
    {                                                                                 \
        for (unsigned i = 0; i < rank_; i++)                                          \
            (*this)[i] op## = b[i];                                                   \
        return *this;                                                                 \
    }                                                                                 \
    HW_VEC_FN HIP_vector_type &operator op##=(T b)                              \
    {                                                                                 \
        for (unsigned i = 0; i < rank_; i++)                                          \
            (*this)[i] op## = b;                                                      \
        return *this;                                                                 \
    }                                                                                 \
    HW_VEC_FN friend HIP_vector_type operator op(HIP_vector_type a,             \
                                                       const HIP_vector_type &b)      \
    {                                                                                 \
        return a op## = b;                                                            \
    }                                                                                 \
    HW_VEC_FN friend HIP_vector_type operator op(HIP_vector_type a, T b)        \
    {                                                                                 \
        return a op## = b;                                                            \
    }                                                                                 \
    HW_VEC_FN friend HIP_vector_type operator op(T a, const HIP_vector_type &b) \
    {                                                                                 \
        return HIP_vector_type(a) op## = b;                                           \
    }

template <typename T> struct alignas(sizeof(T)) HIP_vector_type<T, 1> {
    static constexpr unsigned rank_ = 1;
    T x;
    HIP_vector_type() = default;
    HW_VEC_FN constexpr HIP_vector_type(T x_) : x(x_) {}
    HW_VEC_OPS(1)
};
template <typename T> struct alignas(2 * sizeof(T)) HIP_vector_type<T, 2> {
    static constexpr unsigned rank_ = 2;
    T x, y;
    HIP_vector_type() = default;
    HW_VEC_FN constexpr explicit HIP_vector_type(T v) : x(v), y(v) {}
    HW_VEC_FN constexpr HIP_vector_type(T x_, T y_) : x(x_), y(y_) {}
    HW_VEC_OPS(2)
};
template <typename T> struct alignas(4 * sizeof(T)) HIP_vector_type<T, 3> {
    static constexpr unsigned rank_ = 3;
    T x, y, z;
    HIP_vector_type() = default;
    HW_VEC_FN constexpr explicit HIP_vector_type(T v) : x(v), y(v), z(v) {}
    HW_VEC_FN constexpr HIP_vector_type(T x_, T y_, T z_) : x(x_), y(y_), z(z_) {}
    HW_VEC_OPS(3)
};
template <typename T> struct alignas(4 * sizeof(T)) HIP_vector_type<T, 4> {
    static constexpr unsigned rank_ = 4;
    T x, y, z, w;
    HIP_vector_type() = default;
    HW_VEC_FN constexpr explicit HIP_vector_type(T v) : x(v), y(v), z(v), w(v) {}
    HW_VEC_FN constexpr HIP_vector_type(T x_, T y_, T z_, T w_) : x(x_), y(y_), z(z_), w(w_) {}
    HW_VEC_OPS(4)
};
#undef HW_VEC_OP
#undef HW_VEC_OPS

#define HW_VEC_MAKERS(name, T)                                                    \
    static HW_VEC_FN constexpr HIP_vector_type<T, 1> __hipwire_make_##name##1(T x) \
    {                                                                             \
        return HIP_vector_type<T, 1>(x);                                          \
    }                                                                             \
    static HW_VEC_FN constexpr HIP_vector_type<T, 2> __hipwire_make_##name##2(T x, T y) \
    {                                                                             \
        return HIP_vector_type<T, 2>(x, y);                                       \
    }                                                                             \
    static HW_VEC_FN constexpr HIP_vector_type<T, 3> __hipwire_make_##name##3(T x, T y, T z) \
    {                                                                             \
        return HIP_vector_type<T, 3>(x, y, z);                                    \
    }                                                                             \
    static HW_VEC_FN constexpr HIP_vector_type<T, 4> __hipwire_make_##name##4(T x, T y, T z, T w) \
    {                                                                             \
        return HIP_vector_type<T, 4>(x, y, z, w);                                 \
    }
HW_VEC_MAKERS(uchar, unsigned char)
HW_VEC_MAKERS(char, char)
HW_VEC_MAKERS(ushort, unsigned short)
HW_VEC_MAKERS(short, short)
HW_VEC_MAKERS(uint, unsigned int)
HW_VEC_MAKERS(int, int)
HW_VEC_MAKERS(ulong, unsigned long)
HW_VEC_MAKERS(long, long)
HW_VEC_MAKERS(ulonglong, unsigned long long)
HW_VEC_MAKERS(longlong, long long)
HW_VEC_MAKERS(float, float)
HW_VEC_MAKERS(double, double)
#undef HW_VEC_MAKERS

#ifdef __CUDACC_RTC__
#define uchar1 HIP_vector_type<unsigned char, 1>
#define uchar2 HIP_vector_type<unsigned char, 2>
#define uchar3 HIP_vector_type<unsigned char, 3>
#define uchar4 HIP_vector_type<unsigned char, 4>
#define char1 HIP_vector_type<char, 1>
#define char2 HIP_vector_type<char, 2>
#define char3 HIP_vector_type<char, 3>
#define char4 HIP_vector_type<char, 4>
#define ushort1 HIP_vector_type<unsigned short, 1>
#define ushort2 HIP_vector_type<unsigned short, 2>
#define ushort3 HIP_vector_type<unsigned short, 3>
#define ushort4 HIP_vector_type<unsigned short, 4>
#define short1 HIP_vector_type<short, 1>
#define short2 HIP_vector_type<short, 2>
#define short3 HIP_vector_type<short, 3>
#define short4 HIP_vector_type<short, 4>
#define uint1 HIP_vector_type<unsigned int, 1>
#define uint2 HIP_vector_type<unsigned int, 2>
#define uint3 HIP_vector_type<unsigned int, 3>
#define uint4 HIP_vector_type<unsigned int, 4>
#define int1 HIP_vector_type<int, 1>
#define int2 HIP_vector_type<int, 2>
#define int3 HIP_vector_type<int, 3>
#define int4 HIP_vector_type<int, 4>
#define ulong1 HIP_vector_type<unsigned long, 1>
#define ulong2 HIP_vector_type<unsigned long, 2>
#define ulong3 HIP_vector_type<unsigned long, 3>
#define ulong4 HIP_vector_type<unsigned long, 4>
#define long1 HIP_vector_type<long, 1>
#define long2 HIP_vector_type<long, 2>
#define long3 HIP_vector_type<long, 3>
#define long4 HIP_vector_type<long, 4>
#define ulonglong1 HIP_vector_type<unsigned long long, 1>
#define ulonglong2 HIP_vector_type<unsigned long long, 2>
#define ulonglong3 HIP_vector_type<unsigned long long, 3>
#define ulonglong4 HIP_vector_type<unsigned long long, 4>
#define longlong1 HIP_vector_type<long long, 1>
#define longlong2 HIP_vector_type<long long, 2>
#define longlong3 HIP_vector_type<long long, 3>
#define longlong4 HIP_vector_type<long long, 4>
#define float1 HIP_vector_type<float, 1>
#define float2 HIP_vector_type<float, 2>
#define float3 HIP_vector_type<float, 3>
#define float4 HIP_vector_type<float, 4>
#define double1 HIP_vector_type<double, 1>
#define double2 HIP_vector_type<double, 2>
#define double3 HIP_vector_type<double, 3>
#define double4 HIP_vector_type<double, 4>
#define make_uchar1 __hipwire_make_uchar1
#define make_uchar2 __hipwire_make_uchar2
#define make_uchar3 __hipwire_make_uchar3
#define make_uchar4 __hipwire_make_uchar4
#define make_char1 __hipwire_make_char1
#define make_char2 __hipwire_make_char2
#define make_char3 __hipwire_make_char3
#define make_char4 __hipwire_make_char4
#define make_ushort1 __hipwire_make_ushort1
#define make_ushort2 __hipwire_make_ushort2
#define make_ushort3 __hipwire_make_ushort3
#define make_ushort4 __hipwire_make_ushort4
#define make_short1 __hipwire_make_short1
#define make_short2 __hipwire_make_short2
#define make_short3 __hipwire_make_short3
#define make_short4 __hipwire_make_short4
#define make_uint1 __hipwire_make_uint1
#define make_uint2 __hipwire_make_uint2
#define make_uint3 __hipwire_make_uint3
#define make_uint4 __hipwire_make_uint4
#define make_int1 __hipwire_make_int1
#define make_int2 __hipwire_make_int2
#define make_int3 __hipwire_make_int3
#define make_int4 __hipwire_make_int4
#define make_ulong1 __hipwire_make_ulong1
#define make_ulong2 __hipwire_make_ulong2
#define make_ulong3 __hipwire_make_ulong3
#define make_ulong4 __hipwire_make_ulong4
#define make_long1 __hipwire_make_long1
#define make_long2 __hipwire_make_long2
#define make_long3 __hipwire_make_long3
#define make_long4 __hipwire_make_long4
#define make_ulonglong1 __hipwire_make_ulonglong1
#define make_ulonglong2 __hipwire_make_ulonglong2
#define make_ulonglong3 __hipwire_make_ulonglong3
#define make_ulonglong4 __hipwire_make_ulonglong4
#define make_longlong1 __hipwire_make_longlong1
#define make_longlong2 __hipwire_make_longlong2
#define make_longlong3 __hipwire_make_longlong3
#define make_longlong4 __hipwire_make_longlong4
#define make_float1 __hipwire_make_float1
#define make_float2 __hipwire_make_float2
#define make_float3 __hipwire_make_float3
#define make_float4 __hipwire_make_float4
#define make_double1 __hipwire_make_double1
#define make_double2 __hipwire_make_double2
#define make_double3 __hipwire_make_double3
#define make_double4 __hipwire_make_double4
#else
using uchar1 = HIP_vector_type<unsigned char, 1>;
using uchar2 = HIP_vector_type<unsigned char, 2>;
using uchar3 = HIP_vector_type<unsigned char, 3>;
using uchar4 = HIP_vector_type<unsigned char, 4>;
using char1 = HIP_vector_type<char, 1>;
using char2 = HIP_vector_type<char, 2>;
using char3 = HIP_vector_type<char, 3>;
using char4 = HIP_vector_type<char, 4>;
using ushort1 = HIP_vector_type<unsigned short, 1>;
using ushort2 = HIP_vector_type<unsigned short, 2>;
using ushort3 = HIP_vector_type<unsigned short, 3>;
using ushort4 = HIP_vector_type<unsigned short, 4>;
using short1 = HIP_vector_type<short, 1>;
using short2 = HIP_vector_type<short, 2>;
using short3 = HIP_vector_type<short, 3>;
using short4 = HIP_vector_type<short, 4>;
using uint1 = HIP_vector_type<unsigned int, 1>;
using uint2 = HIP_vector_type<unsigned int, 2>;
using uint3 = HIP_vector_type<unsigned int, 3>;
using uint4 = HIP_vector_type<unsigned int, 4>;
using int1 = HIP_vector_type<int, 1>;
using int2 = HIP_vector_type<int, 2>;
using int3 = HIP_vector_type<int, 3>;
using int4 = HIP_vector_type<int, 4>;
using ulong1 = HIP_vector_type<unsigned long, 1>;
using ulong2 = HIP_vector_type<unsigned long, 2>;
using ulong3 = HIP_vector_type<unsigned long, 3>;
using ulong4 = HIP_vector_type<unsigned long, 4>;
using long1 = HIP_vector_type<long, 1>;
using long2 = HIP_vector_type<long, 2>;
using long3 = HIP_vector_type<long, 3>;
using long4 = HIP_vector_type<long, 4>;
using ulonglong1 = HIP_vector_type<unsigned long long, 1>;
using ulonglong2 = HIP_vector_type<unsigned long long, 2>;
using ulonglong3 = HIP_vector_type<unsigned long long, 3>;
using ulonglong4 = HIP_vector_type<unsigned long long, 4>;
using longlong1 = HIP_vector_type<long long, 1>;
using longlong2 = HIP_vector_type<long long, 2>;
using longlong3 = HIP_vector_type<long long, 3>;
using longlong4 = HIP_vector_type<long long, 4>;
using float1 = HIP_vector_type<float, 1>;
using float2 = HIP_vector_type<float, 2>;
using float3 = HIP_vector_type<float, 3>;
using float4 = HIP_vector_type<float, 4>;
using double1 = HIP_vector_type<double, 1>;
using double2 = HIP_vector_type<double, 2>;
using double3 = HIP_vector_type<double, 3>;
using double4 = HIP_vector_type<double, 4>;
#define make_uchar1 __hipwire_make_uchar1
#define make_uchar2 __hipwire_make_uchar2
#define make_uchar3 __hipwire_make_uchar3
#define make_uchar4 __hipwire_make_uchar4
#define make_char1 __hipwire_make_char1
#define make_char2 __hipwire_make_char2
#define make_char3 __hipwire_make_char3
#define make_char4 __hipwire_make_char4
#define make_ushort1 __hipwire_make_ushort1
#define make_ushort2 __hipwire_make_ushort2
#define make_ushort3 __hipwire_make_ushort3
#define make_ushort4 __hipwire_make_ushort4
#define make_short1 __hipwire_make_short1
#define make_short2 __hipwire_make_short2
#define make_short3 __hipwire_make_short3
#define make_short4 __hipwire_make_short4
#define make_uint1 __hipwire_make_uint1
#define make_uint2 __hipwire_make_uint2
#define make_uint3 __hipwire_make_uint3
#define make_uint4 __hipwire_make_uint4
#define make_int1 __hipwire_make_int1
#define make_int2 __hipwire_make_int2
#define make_int3 __hipwire_make_int3
#define make_int4 __hipwire_make_int4
#define make_ulong1 __hipwire_make_ulong1
#define make_ulong2 __hipwire_make_ulong2
#define make_ulong3 __hipwire_make_ulong3
#define make_ulong4 __hipwire_make_ulong4
#define make_long1 __hipwire_make_long1
#define make_long2 __hipwire_make_long2
#define make_long3 __hipwire_make_long3
#define make_long4 __hipwire_make_long4
#define make_ulonglong1 __hipwire_make_ulonglong1
#define make_ulonglong2 __hipwire_make_ulonglong2
#define make_ulonglong3 __hipwire_make_ulonglong3
#define make_ulonglong4 __hipwire_make_ulonglong4
#define make_longlong1 __hipwire_make_longlong1
#define make_longlong2 __hipwire_make_longlong2
#define make_longlong3 __hipwire_make_longlong3
#define make_longlong4 __hipwire_make_longlong4
#define make_float1 __hipwire_make_float1
#define make_float2 __hipwire_make_float2
#define make_float3 __hipwire_make_float3
#define make_float4 __hipwire_make_float4
#define make_double1 __hipwire_make_double1
#define make_double2 __hipwire_make_double2
#define make_double3 __hipwire_make_double3
#define make_double4 __hipwire_make_double4
#endif
#undef HW_VEC_FN

#endif
