/* The cuda backend's HIP-source compiles through NVRTC (src/backends/cuda/
 * cuda_rtc.c), called directly: NVRTC needs no GPU. Skipped (77) where
 * libnvrtc is not installed. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_rtc.h"
#include "testutil.h"

struct compile {
    const char *name;
    const char *source;
    const char *const *options;
    uint32_t option_count;
    const char *const *name_exprs;
    uint32_t name_count;
    const char *const *header_names;
    const char *const *headers;
    uint32_t header_count;
};

static struct hw_rtc_output run(const struct compile *c)
{
    struct hw_rtc_input in = {
        .name = c->name,
        .source = c->source,
        .header_count = c->header_count,
        .header_names = c->header_names,
        .headers = c->headers,
        .option_count = c->option_count,
        .options = c->options,
        .name_count = c->name_count,
        .name_exprs = c->name_exprs,
        .timeout_ms = 60000,
        .max_output = 64u << 20,
    };
    struct hw_rtc_output out;
    CHECK_EQ(hw_cuda_rtc_compile(9, 0, &in, &out), HW_OK);
    if (out.log_size)
        fprintf(stderr, "[%s] log:\n%.*s\n", c->name, (int)out.log_size, out.log);
    return out;
}

static void release(struct hw_rtc_output *o, uint32_t names)
{
    for (uint32_t i = 0; o->lowered && i < names; i++)
        free(o->lowered[i]);
    free(o->lowered);
    free(o->code);
    free(o->log);
}

/* Compiled, with PTX for sm_90 that has a kernel entry named entry. */
static void expect_ptx(const struct hw_rtc_output *o, const char *entry)
{
    CHECK_EQ(o->result, HW_RTC_SUCCESS);
    CHECK(o->code && o->code_size > 1);
    const char *ptx = (const char *)o->code;
    CHECK_EQ(ptx[o->code_size - 1], '\0');
    CHECK(strstr(ptx, ".target sm_90") != NULL);
    char want[256];
    snprintf(want, sizeof want, ".entry %s(", entry);
    CHECK(strstr(ptx, want) != NULL);
}

static const char vadd_src[] =
    "#include <hip/hip_runtime.h>\n"
    "extern \"C\" __global__ void vadd(const float *a, const float *b, float *c, int n)\n"
    "{\n"
    "    int i = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;\n"
    "    if (i < n)\n"
    "        c[i] = a[i] + b[i] * SCALE;\n"
    "}\n";

/* HIP's maskless warp functions, no #include: hiprtc gives the header. */
static const char shfl_src[] =
    "extern \"C\" __global__ void warp_sum(const int *in, int *out, unsigned long long *votes)\n"
    "{\n"
    "    int v = in[threadIdx.x];\n"
    "    for (int off = warpSize / 2; off > 0; off /= 2)\n"
    "        v += __shfl_down(v, off);\n"
    "    int up = __shfl_up(v, 1), x = __shfl_xor(v, 1), b = __shfl(v, 0);\n"
    "    unsigned long long ballot = __ballot(in[threadIdx.x] & 1);\n"
    "    if (threadIdx.x == 0) {\n"
    "        *out = v;\n"
    "        votes[0] = ballot;\n"
    "        votes[1] = __any(up > 0) + 2 * __all(x >= 0) + 4 * (b == v);\n"
    "        atomicAdd(out + 1, 1);\n"
    "    }\n"
    "}\n";

static const char shared_src[] =
    "#include <hip/hip_runtime.h>\n"
    "#include <hip/hip_fp16.h>\n"
    "extern \"C\" __global__ void reverse(int *d, int n)\n"
    "{\n"
    "    HIP_DYNAMIC_SHARED(int, s)\n"
    "    int t = hipThreadIdx_x;\n"
    "    s[t] = d[t];\n"
    "    __syncthreads();\n"
    "    d[t] = s[n - t - 1] + (int)__half2float(__float2half(1.0f));\n"
    "}\n";

static const char template_src[] = "#include \"scale.h\"\n"
                                   "template <typename T> __global__ void scale(T *p, T f)\n"
                                   "{\n"
                                   "    p[hipThreadIdx_x] *= f + T(BIAS);\n"
                                   "}\n";

/* HIP's vector types: a float4 parameter must mangle as HIP's
 * HIP_vector_type<float, 4> (what hipwire-cc registered from the host
 * compile against ROCm's headers), not as CUDA's built-in float4. */
static const char vector_src[] =
    "__global__ void scale4(float4 *p, float4 f, int2 n)\n"
    "{\n"
    "    int i = threadIdx.x;\n"
    "    if (i < n.x + n.y)\n"
    "        p[i] = p[i] * f + make_float4(1.0f, 2.0f, 3.0f, 4.0f);\n"
    "    static_assert(sizeof(float3) == 16 && alignof(float4) == 16, \"HIP layout\");\n"
    "}\n";

static const char error_src[] = "extern \"C\" __global__ void broken(int *p)\n"
                                "{\n"
                                "    p[0] = no_such_name;\n"
                                "}\n";

static int nvrtc_present(void)
{
    static const char *const names[] = { "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        void *dl = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (dl) {
            dlclose(dl);
            return 1;
        }
    }
    return 0;
}

int main(void)
{
    if (!nvrtc_present()) {
        printf("SKIPPED: libnvrtc not found\n");
        return 77;
    }
    struct hw_rtc_output o;

    /* Options map: -O3, -ffast-math, a standard, a macro. */
    static const char *const vadd_opts[] = { "-O3", "-ffast-math", "-std=c++17", "-DSCALE=2.0f",
                                             "-Wall" };
    struct compile vadd = { "vadd.hip", vadd_src, vadd_opts, 5, NULL, 0, NULL, NULL, 0 };
    o = run(&vadd);
    expect_ptx(&o, "vadd");
    release(&o, 0);

    struct compile shfl = { "shfl.hip", shfl_src, NULL, 0, NULL, 0, NULL, NULL, 0 };
    o = run(&shfl);
    expect_ptx(&o, "warp_sum");
    CHECK(strstr((const char *)o.code, "shfl.sync.down") != NULL);
    CHECK(strstr((const char *)o.code, "vote.sync.ballot") != NULL);
    release(&o, 0);

    struct compile shared = { "shared.hip", shared_src, NULL, 0, NULL, 0, NULL, NULL, 0 };
    o = run(&shared);
    expect_ptx(&o, "reverse");
    CHECK(strstr((const char *)o.code, ".extern .shared") != NULL);
    release(&o, 0);

    /* A template instantiated by name expression, a header found through -I. */
    static const char *const tmpl_opts[] = { "-Iinc" };
    static const char *const tmpl_names[] = { "scale<float>", "scale<int>" };
    static const char *const hdr_names[] = { "inc/scale.h" };
    static const char *const hdrs[] = { "#define BIAS 1\n" };
    struct compile tmpl = { "tmpl.hip", template_src, tmpl_opts, 1, tmpl_names,
                            2,          hdr_names,    hdrs,      1 };
    o = run(&tmpl);
    CHECK(o.lowered && o.lowered[0] && o.lowered[1]);
    CHECK(strcmp(o.lowered[0], "_Z5scaleIfEvPT_S0_") == 0);
    CHECK(strcmp(o.lowered[1], "_Z5scaleIiEvPT_S0_") == 0);
    expect_ptx(&o, o.lowered[0]);
    expect_ptx(&o, o.lowered[1]);
    release(&o, 2);

    struct compile vec = { "vector.hip", vector_src, NULL, 0, NULL, 0, NULL, NULL, 0 };
    o = run(&vec);
    expect_ptx(&o, "_Z6scale4P15HIP_vector_typeIfLj4EES0_S_IiLj2EE");
    release(&o, 0);

    /* The log names the program and the user's line 3. */
    struct compile bad = { "broken.hip", error_src, NULL, 0, NULL, 0, NULL, NULL, 0 };
    o = run(&bad);
    CHECK_EQ(o.result, HW_RTC_COMPILATION);
    CHECK(o.code == NULL);
    CHECK(o.log && strstr(o.log, "broken.hip(3)") != NULL);
    CHECK(strstr(o.log, "no_such_name") != NULL);
    release(&o, 0);

    /* An AMD target, and an option NVIDIA has no meaning for: refused, named. */
    static const char *const amd[] = { "--offload-arch=gfx90a" };
    static const char *const wave64[] = { "-mwavefrontsize64" };
    static const char *const sm[] = { "--gpu-architecture=sm_80", "-DSCALE=1" };
    const char *const *refuse[] = { amd, wave64 };
    const char *named[] = { "gfx90a", "-mwavefrontsize64" };
    for (int i = 0; i < 2; i++) {
        struct compile c = { "vadd.hip", vadd_src, refuse[i], 1, NULL, 0, NULL, NULL, 0 };
        o = run(&c);
        CHECK_EQ(o.result, HW_RTC_INVALID_OPTION);
        CHECK(o.code == NULL && o.log && strstr(o.log, named[i]) &&
              !strncmp(o.log, "hipwire: ", 9));
        release(&o, 0);
    }
    /* An NVIDIA target is taken over the device's. */
    struct compile c = { "vadd.hip", vadd_src, sm, 2, NULL, 0, NULL, NULL, 0 };
    o = run(&c);
    CHECK_EQ(o.result, HW_RTC_SUCCESS);
    CHECK(strstr((const char *)o.code, ".target sm_80") != NULL);
    release(&o, 0);

    printf("cuda_rtc: all checks passed\n");
    return 0;
}
