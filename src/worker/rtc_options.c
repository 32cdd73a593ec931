/*
 * rtc_options.c - what a client may hand the worker's compiler.
 *
 * The compiler runs on the worker with the client's input, so options are an
 * allowlist: code generation, language and warning flags, macros, the target,
 * and include directories among the program's own headers. Anything that
 * names a worker file (-I/abs, @file, -include), writes one (-o, -save-temps,
 * -M*, -ftime-trace), loads code into the compiler (-fplugin, -load) or
 * passes raw flags to a sub-tool (-Xclang, -Wl, -mllvm) is refused, and so
 * is everything not listed, with the option named in the log.
 */
#include <stdio.h>
#include <string.h>

#include "rtc.h"

static const char *const exact_options[] = {
    "-O0",
    "-O1",
    "-O2",
    "-O3",
    "-Os",
    "-Oz",
    "-g",
    "-g0",
    "-w",
    "-pedantic",
    "-ffast-math",
    "-fno-fast-math",
    "-fno-gpu-rdc",
    "-funsafe-math-optimizations",
    "-fno-unsafe-math-optimizations",
    "-ffinite-math-only",
    "-fno-finite-math-only",
    "-fgpu-flush-denormals-to-zero",
    "-fno-gpu-flush-denormals-to-zero",
    "-fhip-fp32-correctly-rounded-divide-sqrt",
    "-fno-hip-fp32-correctly-rounded-divide-sqrt",
    "-fno-exceptions",
    "-fno-rtti",
    "-mcumode",
    "-mno-cumode",
    "-mwavefrontsize64",
    "-mno-wavefrontsize64",
    "-munsafe-fp-atomics",
    "-mno-unsafe-fp-atomics",
};

static int is_ident_start(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static int is_ident(char c)
{
    return is_ident_start(c) || (c >= '0' && c <= '9');
}

/* Every character of s is in set, and s is not empty. */
static int all_in(const char *s, const char *set)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!strchr(set, *s))
            return 0;
    return 1;
}

#define LOWER_DIGITS "abcdefghijklmnopqrstuvwxyz0123456789"
#define ALNUM        "ABCDEFGHIJKLMNOPQRSTUVWXYZ" LOWER_DIGITS

static int printable(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
            return 0;
    return 1;
}

/* -DNAME, -DNAME=value, -DNAME(a,b)=value; value: printable ASCII. */
static int macro_definition(const char *s)
{
    if (!is_ident_start(*s))
        return 0;
    while (is_ident(*s))
        s++;
    if (*s == '(') {
        const char *close = strchr(s, ')');
        if (!close)
            return 0;
        for (const char *p = s + 1; p < close; p++)
            if (!is_ident(*p) && *p != ',' && *p != ' ')
                return 0;
        s = close + 1;
    }
    return *s == '\0' || (*s == '=' && printable(s + 1));
}

static int prefixed(const char *opt, const char *prefix, const char **rest)
{
    size_t n = strlen(prefix);
    if (strncmp(opt, prefix, n) != 0)
        return 0;
    *rest = opt + n;
    return 1;
}

int rtc_include_name_check(const char *name)
{
    size_t len = strlen(name);
    if (len == 0 || len > 255 || name[0] == '/')
        return -1;
    const char *p = name;
    while (*p) {
        size_t n = strcspn(p, "/");
        if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
            return -1;
        for (size_t i = 0; i < n; i++)
            if (!strchr(ALNUM "._+-", p[i]))
                return -1;
        p += n;
        if (*p == '/')
            p++;
        if (*p == '\0' && p[-1] == '/')
            return -1;
    }
    return 0;
}

int rtc_name_expr_check(const char *expr)
{
    return *expr && printable(expr) ? 0 : -1;
}

int rtc_option_check(const char *opt, char *why, size_t why_len)
{
    const char *v;
    for (size_t i = 0; i < sizeof exact_options / sizeof exact_options[0]; i++)
        if (strcmp(opt, exact_options[i]) == 0)
            return 0;
    if (prefixed(opt, "-D", &v) && macro_definition(v))
        return 0;
    if (prefixed(opt, "-U", &v) && is_ident_start(*v) && all_in(v, ALNUM "_"))
        return 0;
    if ((prefixed(opt, "-std=", &v) || prefixed(opt, "--std=", &v)) && all_in(v, LOWER_DIGITS "+"))
        return 0;
    if (prefixed(opt, "-ffp-contract=", &v) &&
        (!strcmp(v, "fast") || !strcmp(v, "on") || !strcmp(v, "off") ||
         !strcmp(v, "fast-honor-pragmas")))
        return 0;
    /* Warning flags: -Wall, -Wno-unused, -Werror=shadow. No comma, so never
     * -Wl, / -Wa, / -Wp, (flags for the linker, assembler, preprocessor). */
    if (prefixed(opt, "-W", &v) && all_in(v, ALNUM "-_=+"))
        return 0;
    /* A target: gfx90a, gfx90a:sramecc+:xnack- */
    if ((prefixed(opt, "--offload-arch=", &v) || prefixed(opt, "--gpu-architecture=", &v)) &&
        all_in(v, ALNUM ":+-_"))
        return 0;
    /* An include directory among the program's own headers. */
    if (prefixed(opt, "-I", &v) && rtc_include_name_check(v) == 0)
        return 0;
    if (!printable(opt))
        snprintf(why, why_len, "hipwire: an option with a control or non-ASCII character");
    else
        snprintf(why, why_len,
                 "hipwire: option '%.200s' is not accepted by the worker (docs/hiprtc.md "
                 "lists the options a remote compile may use)",
                 opt);
    return -1;
}
