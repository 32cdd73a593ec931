/* cc_slice_test.c - hipwire-cc's host-code blanking (src/cc/cc_slice.c):
 * what is blanked, what is kept, and that line numbers never move. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_slice.h"

static int failures;

/* Slices src; every `want` must survive, every `gone` must not, and the
 * text keeps its length and newlines. */
static void expect(const char *what, const char *src, unsigned blanked, const char *const *want,
                   const char *const *gone)
{
    char *t = strdup(src);
    unsigned n = cc_slice_host_code(t, strlen(t));
    int ok = n == blanked && strlen(t) == strlen(src);
    for (size_t i = 0; ok && src[i]; i++)
        ok = (src[i] == '\n') == (t[i] == '\n');
    for (; want && *want; want++)
        if (!strstr(t, *want)) {
            fprintf(stderr, "%s: '%s' was blanked\n", what, *want);
            ok = 0;
        }
    for (; gone && *gone; gone++)
        if (strstr(t, *gone)) {
            fprintf(stderr, "%s: '%s' was kept\n", what, *gone);
            ok = 0;
        }
    if (!ok) {
        fprintf(stderr, "FAIL %s (%u blanked, expected %u):\n%s\n", what, n, blanked, t);
        failures++;
    }
    free(t);
}

#define L(...) ((const char *const[]){ __VA_ARGS__, NULL })

int main(void)
{
    expect("main and a launch",
           "#include <hip/hip_runtime.h>\n"
           "__global__ void k(int *p) { p[0] = 1; }\n"
           "int main() {\n  k<<<1, 1>>>(nullptr);\n  return 0;\n}\n",
           1, L("__global__ void k(int *p) { p[0] = 1; }", "#include <hip/hip_runtime.h>"),
           L("main", "<<<"));
    expect("device, host-device, constexpr and launch-bounds functions are kept",
           "__device__ float f(float x) { return x; }\n"
           "__host__ __device__ inline float g(float x) { return 2 * x; }\n"
           "constexpr int h(int x) { return x + 1; }\n"
           "__global__ void __launch_bounds__(256) k(float *p) { p[0] = f(g(1)); }\n"
           "static void host_only(int) { puts(\"x\"); }\n",
           1, L("f(float x)", "g(float x)", "h(int x)", "__launch_bounds__(256) k"),
           L("host_only", "puts"));
    expect(
        "templates, namespaces, extern C blocks",
        "namespace a { namespace b {\n"
        "template <typename T> __global__ void t(T *p) { p[0] = T(); }\n"
        "template <typename T> void launch(T *p) { t<<<1, 1>>>(p); }\n"
        "} }\n"
        "extern \"C\" {\n__global__ void c(int *p) { *p = 2; }\nint host_c(void) { return 3; }\n}\n"
        "extern \"C\" __global__ void d(int *p) { *p = 4; }\n",
        2, L("__global__ void t(T *p)", "void c(int *p)", "void d(int *p)", "namespace a"),
        L("launch", "host_c"));
    expect("class bodies and initializers are kept whole",
           "struct S { int f() { return 1; } int v; };\n"
           "template <class T> struct W { T x; void set(T v) { x = v; } };\n"
           "int table[] = { 1, 2, 3 };\n"
           "auto lam = [](int x) { return x; };\n"
           "enum class E { A, B };\n",
           0, L("int f() { return 1; }", "void set(T v)", "{ 1, 2, 3 }", "return x;", "A, B"),
           NULL);
    expect("braces in comments, strings and characters",
           "void h() {\n  const char *s = \"}}\"; char c = '{'; // }\n  /* { */ }\n"
           "__global__ void k() { /* } */ }\n",
           1, L("__global__ void k() { /* } */ }"), L("const char"));
    expect("preprocessor lines inside a blanked function stay",
           "int main() {\n#ifdef X\n  return 1;\n#else\n  return 2;\n#endif\n}\n"
           "#define M(a) { a }\n",
           1, L("#ifdef X", "#else", "#endif", "#define M(a) { a }"), L("return 1", "return 2"));
    expect("out-of-class member definitions with initializer lists",
           "struct A { A(); int x; };\nA::A() : x(1) { x++; }\n__device__ int y;\n", 1,
           L("struct A { A(); int x; };", "__device__ int y;"), L("A::A()", "x++"));
    if (failures)
        return 1;
    printf("cc_slice: ok\n");
    return 0;
}
