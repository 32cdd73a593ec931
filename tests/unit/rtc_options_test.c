/* The worker's allowlist of compiler options, header names and name
 * expressions (src/worker/rtc_options.c, docs/hiprtc.md). */
#include <stdio.h>
#include <string.h>

#include "rtc.h"
#include "testutil.h"

static void accepted(const char *opt)
{
    char why[300] = "";
    if (rtc_option_check(opt, why, sizeof why) != 0) {
        fprintf(stderr, "refused \"%s\": %s\n", opt, why);
        CHECK(!"an option that should pass was refused");
    }
}

static void refused(const char *opt)
{
    char why[300] = "";
    if (rtc_option_check(opt, why, sizeof why) == 0) {
        fprintf(stderr, "accepted \"%s\"\n", opt);
        CHECK(!"an option that must be refused passed");
    }
    CHECK(strncmp(why, "hipwire: ", 9) == 0);
}

int main(void)
{
    static const char *const good[] = {
        "-O0",
        "-O3",
        "-g",
        "-w",
        "-ffast-math",
        "-fno-gpu-rdc",
        "-mcumode",
        "-DN=4",
        "-DNAME",
        "-DF(a,b)=((a)+(b))",
        "-DS=\"quoted string\"",
        "-UNDEBUG",
        "-std=c++17",
        "--std=c++20",
        "-ffp-contract=fast",
        "-Wall",
        "-Wno-unused-variable",
        "-Werror=shadow",
        "--offload-arch=gfx90a",
        "--gpu-architecture=gfx90a:sramecc+:xnack-",
        "-Iinclude",
        "-Ia/b/c",
    };
    static const char *const bad[] = {
        "",
        "-o",
        "-o/tmp/x",
        "-fplugin=/x.so",
        "-Xclang",
        "-Xlinker",
        "-Wl,-rpath,/x",
        "-Wa,-x",
        "-Wp,-MD,/tmp/d",
        "-mllvm",
        "@/etc/passwd",
        "-include/etc/passwd",
        "-imacros",
        "-isystem/etc",
        "-I/etc",
        "-I..",
        "-Ia/../../b",
        "-I",
        "--save-temps",
        "-save-temps=obj",
        "-MF/tmp/x",
        "-MD",
        "-ftime-trace",
        "-fprofile-generate",
        "-fgpu-rdc",
        "-B/tmp",
        "--sysroot=/",
        "-DX=a\nb",
        "-D",
        "-D1X",
        "-DX(",
        "-U1",
        "-std=c++17;rm",
        "--offload-arch=gfx90a,gfx1100",
        "-ffp-contract=whatever",
        "-O3 -fplugin=x",
        "-x",
        "hip",
        "/etc/passwd",
        "-v",
        "-###",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        accepted(good[i]);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        refused(bad[i]);

    CHECK(rtc_include_name_check("a.h") == 0);
    CHECK(rtc_include_name_check("dir/sub/a_b-c+d.hpp") == 0);
    CHECK(rtc_include_name_check("/etc/passwd") != 0);
    CHECK(rtc_include_name_check("../a.h") != 0);
    CHECK(rtc_include_name_check("a/../b.h") != 0);
    CHECK(rtc_include_name_check("./a.h") != 0);
    CHECK(rtc_include_name_check("a//b.h") != 0);
    CHECK(rtc_include_name_check("a/") != 0);
    CHECK(rtc_include_name_check("") != 0);
    CHECK(rtc_include_name_check("a b.h") != 0);
    CHECK(rtc_include_name_check("a\\b.h") != 0);

    CHECK(rtc_name_expr_check("scale<float, 4>") == 0);
    CHECK(rtc_name_expr_check("&ns::k<(int)3>") == 0);
    CHECK(rtc_name_expr_check("") != 0);
    CHECK(rtc_name_expr_check("a\nb") != 0);
    CHECK(rtc_name_expr_check("\x80") != 0);
    printf("rtc options: %zu accepted, %zu refused as expected\n", sizeof good / sizeof good[0],
           sizeof bad / sizeof bad[0]);
    return 0;
}
