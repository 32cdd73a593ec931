/*
 * rtc_host.c - HIP source for the CPU device, compiled by the host C++
 * compiler (docs/hip-source.md).
 *
 * The program gets the CPU prelude as hip/hip_runtime.h (written from memory
 * into the private directory, ahead of the program's own headers), a #line
 * so diagnostics carry the application's names and lines, and one probe
 * variable per name expression (as rtc_hipcc.c does). Two compiler runs:
 *   1. an object (-O0), only to learn the kernels: the prelude puts every
 *      __global__ function in the section "hipwire_kernels";
 *   2. the shared object, with one ABI 2 descriptor per kernel appended.
 * A descriptor needs the kernel's parameter types, so it names the kernel
 * by a C++ expression: an extern "C" kernel by its name, a C++ one as
 * c++filt spells its symbol, cast to its exact type so overloads and
 * template instances resolve to that very symbol.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hw_alloc.h"
#include "hw_log.h"
#include "hw_time.h"
#include "rtc_compile.h"
#include "rtc_exec.h"
#include "rtc_prelude.h"
#include "rtc_util.h"

#define LOG_CAP        (HIPR_CAP_RTC_LOG - 4096)
#define MAX_MEMORY     (8ull << 30)
#define KERNEL_SECTION "hipwire_kernels"

static const char *const compilers[] = { "clang++", "g++", "c++" };

static int find_tool(const char *name, char *out, size_t cap)
{
    const char *path = getenv("PATH");
    char list[4096];
    snprintf(list, sizeof list, "%s", path && *path ? path : "/usr/bin:/bin");
    for (char *save = NULL, *d = strtok_r(list, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        int n = snprintf(out, cap, "%s/%s", d, name);
        if (d[0] == '/' && n > 0 && (size_t)n < cap && access(out, X_OK) == 0)
            return 0;
    }
    return -1;
}

/* ---- the program text ---------------------------------------------------- */

static int is_ident(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Whether p is inside a // comment (a comment that mentions `extern
 * __shared__` is not a declaration). */
static int in_line_comment(const char *src, const char *p)
{
    const char *line = p;
    while (line > src && line[-1] != '\n')
        line--;
    for (const char *c = line; c + 1 < p; c++)
        if (c[0] == '/' && c[1] == '/')
            return 1;
    return 0;
}

/* `extern __shared__ T name[];` (dynamic shared memory) cannot be a
 * thread_local: it becomes `static __hipwire::dyn_shared<T> name;`, which
 * converts to the block's buffer. Line breaks are kept so #line holds. */
static void rewrite_dynamic_shared(const char *src, struct text *out)
{
    const char *p = src;
    for (;;) {
        const char *e = strstr(p, "extern");
        if (!e) {
            text_str(out, p);
            return;
        }
        const char *q = e + 6;
        while (isspace((unsigned char)*q))
            q++;
        const char *semi = strchr(q, ';');
        if ((e > src && is_ident(e[-1])) || strncmp(q, "__shared__", 10) != 0 || is_ident(q[10]) ||
            !semi || in_line_comment(src, e)) {
            text_add(out, p, (size_t)(q - p));
            p = q;
            continue;
        }
        /* type name [ ] ; */
        const char *t = q + 10, *end = semi;
        while (end > t && isspace((unsigned char)end[-1]))
            end--;
        const char *rb = end;
        int ok = rb > t && rb[-1] == ']';
        const char *lb = ok ? rb - 1 : NULL;
        if (ok) {
            while (lb > t && isspace((unsigned char)lb[-1]))
                lb--;
            ok = lb > t && lb[-1] == '[';
        }
        const char *ne = ok ? lb - 1 : NULL, *ns = NULL;
        if (ok) {
            while (ne > t && isspace((unsigned char)ne[-1]))
                ne--;
            ns = ne;
            while (ns > t && is_ident(ns[-1]))
                ns--;
            ok = ns < ne;
        }
        if (!ok) {
            text_add(out, p, (size_t)(q - p));
            p = q;
            continue;
        }
        text_add(out, p, (size_t)(e - p));
        text_str(out, "static __hipwire::dyn_shared<");
        /* The type without alignment attributes (the buffer is 64-byte aligned). */
        for (const char *c = t; c < ns;) {
            if (!strncmp(c, "__align__", 9) || !strncmp(c, "__attribute__", 13)) {
                const char *o = strchr(c, '(');
                int depth = 0;
                for (c = o ? o : ns; c < ns; c++) {
                    depth += *c == '(';
                    depth -= *c == ')';
                    if (!depth) {
                        c++;
                        break;
                    }
                }
                continue;
            }
            text_add(out, *c == '\n' ? " " : c, 1);
            c++;
        }
        text_str(out, "> ");
        text_add(out, ns, (size_t)(ne - ns));
        text_str(out, ";");
        for (const char *c = e; c < semi; c++)
            if (*c == '\n')
                text_str(out, "\n");
        p = semi + 1;
    }
}

static int build_source(const struct hw_rtc_input *in, struct text *src)
{
    rtc_source_head(in, src);
    rewrite_dynamic_shared(in->source, src);
    return rtc_source_tail(in, "__attribute__((used))", src);
}

/* One kernel's descriptor. `demangled` is c++filt's spelling of a C++
 * symbol, NULL for an extern "C" one. 0, or -1 when it has no spelling a
 * program could write (anonymous namespaces, lambdas). */
static int describe_kernel(struct text *t, uint32_t i, const char *sym, const char *demangled)
{
    if (!demangled) {
        text_fmt(t,
                 "extern \"C\" __attribute__((visibility(\"default\"))) const hipwire_cpu_kernel "
                 "hipwire_kernel_%s = __hipwire::entry<&%s>::describe(\"%s\");\n",
                 sym, sym, sym);
        return 0;
    }
    if (strstr(demangled, "(anonymous namespace)") || strstr(demangled, "lambda") ||
        strstr(demangled, "{") || strstr(demangled, "'"))
        return -1;
    size_t n = strlen(demangled);
    if (n < 3 || demangled[n - 1] != ')')
        return -1;
    size_t open = n - 1;
    int depth = 0;
    for (;;) {
        depth += demangled[open] == ')';
        depth -= demangled[open] == '(';
        if (!depth || open == 0)
            break;
        open--;
    }
    if (depth)
        return -1;
    const char *fn = demangled;
    if (!strncmp(fn, "void ", 5)) /* a template instance's name carries its return type */
        fn += 5;
    if ((size_t)(fn - demangled) >= open)
        return -1;
    text_fmt(t, "static constexpr void (*__hipwire_k%u)(", i);
    text_add(t, demangled + open + 1, n - open - 2);
    text_str(t, ") = &");
    text_add(t, fn, (size_t)(demangled + open - fn));
    text_fmt(t,
             ";\nextern \"C\" __attribute__((visibility(\"default\"))) const hipwire_cpu_kernel "
             "hipwire_kernel_%s = __hipwire::entry<__hipwire_k%u>::describe(\"%s\");\n",
             sym, i, sym);
    return 0;
}

static int plain_symbol(const char *s)
{
    for (; *s; s++)
        if (!is_ident(*s))
            return 0;
    return 1;
}

/* ---- running the tools --------------------------------------------------- */

struct job {
    const struct hw_rtc_input *in;
    const char *dir;
    const char *extra[2]; /* the compiler's real directory, read-only */
    uint64_t deadline_ns;
    struct text *log;
    int result; /* set when a run fails */
    int warned;
};

/* Runs argv; 0 when it exited 0. Its output goes to out (or the log). */
static int run(struct job *j, struct command *c, struct text *out)
{
    static int warned_unconfined;
    uint64_t now = hw_now_ns();
    uint32_t left = now < j->deadline_ns ? (uint32_t)((j->deadline_ns - now) / 1000000) : 1;
    struct rtc_exec x = {
        .argv = c->argv,
        .envp = c->envp,
        .dir = j->dir,
        .read_dirs = j->extra,
        .timeout_ms = left ? left : 1,
        .max_file_size = j->in->max_output,
        .max_memory = rtc_memory_limit(j->in->max_memory, MAX_MEMORY),
        .max_log = LOG_CAP,
        .cancel = j->in->cancel,
    };
    if (rtc_exec_run(&x) < 0) {
        text_fmt(j->log, "hipwire: cannot run %s: %s\n", c->argv[0], strerror(errno));
        free(x.log);
        j->result = HW_RTC_INTERNAL_ERROR;
        return -1;
    }
    if (!x.confined && !__atomic_exchange_n(&warned_unconfined, 1, __ATOMIC_RELAXED))
        hw_warn("run-time compiles are not confined to their directory: this kernel has no "
                "Landlock (docs/hiprtc.md)");
    text_add(out ? out : j->log, x.log, x.log_len);
    if (x.log_truncated)
        text_str(j->log, "\n[hipwire: compiler output truncated]\n");
    int oom = !x.cancelled && !x.timed_out &&
              !(WIFEXITED(x.wait_status) && WEXITSTATUS(x.wait_status) == 0) &&
              rtc_out_of_memory(x.log);
    free(x.log);
    if (oom) {
        text_fmt(j->log,
                 "hipwire: the compiler ran out of its --rtc-max-memory of %llu bytes "
                 "(the worker's limit on one compile's address space)\n",
                 (unsigned long long)x.max_memory);
        j->result = HW_RTC_COMPILATION;
        return -1;
    }
    if (x.cancelled) {
        text_str(j->log, "hipwire: the compile was cancelled: the session is ending\n");
        j->result = HW_RTC_INTERNAL_ERROR;
        return -1;
    }
    if (x.timed_out) {
        text_fmt(j->log,
                 "hipwire: the compile was stopped after %u s, the worker's limit "
                 "(--rtc-timeout)\n",
                 j->in->timeout_ms / 1000);
        j->result = HW_RTC_COMPILATION;
        return -1;
    }
    if (WIFEXITED(x.wait_status) && WEXITSTATUS(x.wait_status) == 0)
        return 0;
    if (WIFSIGNALED(x.wait_status))
        text_fmt(j->log, "hipwire: the compiler was killed by signal %d (%s)\n",
                 WTERMSIG(x.wait_status), rtc_signal_name(WTERMSIG(x.wait_status)));
    else
        text_fmt(j->log, "hipwire: %s failed (exit status %d)\n", c->argv[0],
                 WEXITSTATUS(x.wait_status));
    j->result = HW_RTC_COMPILATION;
    return -1;
}

static void base_env(struct command *c, const char *dir)
{
    c->envp[c->nenv++] = "PATH=/usr/bin:/bin";
    c->envp[c->nenv++] = own(c, "HOME=%s", dir);
    c->envp[c->nenv++] = own(c, "TMPDIR=%s", dir);
    c->envp[c->nenv++] = "LC_ALL=C";
    c->envp[c->nenv] = NULL;
}

/* GPU code-generation options mean nothing to a host compile. */
static const char *const dropped[] = {
    "-fno-gpu-rdc",
    "-mcumode",
    "-mno-cumode",
    "-mwavefrontsize64",
    "-munsafe-fp-atomics",
    "-mno-unsafe-fp-atomics",
    "-fgpu-flush-denormals-to-zero",
    "-fno-gpu-flush-denormals-to-zero",
    "-fhip-fp32-correctly-rounded-divide-sqrt",
    "-fno-hip-fp32-correctly-rounded-divide-sqrt",
};

/* The compiler's command: pass 1 makes pass1.o, pass 2 code.so. */
static int build_compile(const struct hw_rtc_input *in, const char *cxx, const char *dir, int pass,
                         struct command *c, struct text *log)
{
    int is_clang = strstr(cxx, "clang") != NULL;
    c->argv[c->nargv++] = (char *)cxx;
    c->argv[c->nargv++] = pass == 1 ? "-O0" : "-O2";
    c->argv[c->nargv++] = "-std=c++17";
    c->argv[c->nargv++] = "-fPIC";
    if (is_clang)
        c->argv[c->nargv++] = "-fno-crash-diagnostics";
    else /* unique symbols would keep the module loaded after hipModuleUnload */
        c->argv[c->nargv++] = "-fno-gnu-unique";
    c->argv[c->nargv++] = "-Iprelude";
    c->argv[c->nargv++] = "-Iinclude";
    for (uint32_t i = 0; i < in->option_count; i++) {
        const char *o = in->options[i];
        int drop = 0;
        for (size_t k = 0; k < sizeof dropped / sizeof dropped[0]; k++)
            drop |= !strcmp(o, dropped[k]);
        if (drop || !strncmp(o, "--offload-arch=", 15) || !strncmp(o, "--gpu-architecture=", 19))
            continue;
        if (!strcmp(o, "-mno-wavefrontsize64")) {
            text_str(log, "hipwire: -mno-wavefrontsize64 asks for 32-wide warps; the CPU device's "
                          "warpSize is 64 (docs/hip-source.md)\n");
            return -1;
        }
        if (!strncmp(o, "-std=", 5) || !strncmp(o, "--std=", 6)) {
            const char *v = strchr(o, '=') + 1;
            /* The prelude needs C++17; older standards compile as C++17. */
            if (!strcmp(v, "c++11") || !strcmp(v, "c++14") || !strcmp(v, "c++0x") ||
                !strcmp(v, "c++1y") || !strcmp(v, "gnu++11") || !strcmp(v, "gnu++14")) {
                if (pass == 1)
                    text_fmt(log, "hipwire: %s is compiled as -std=c++17 on the CPU device\n", o);
                continue;
            }
            c->argv[c->nargv++] = own(c, "-std=%s", v);
            continue;
        }
        if (pass == 1 && (!strncmp(o, "-O", 2) || !strcmp(o, "-g") || !strcmp(o, "-g0")))
            continue; /* pass 1 only lists the kernels */
        if (!strncmp(o, "-I", 2)) {
            c->argv[c->nargv++] = own(c, "-Iinclude/%s", o + 2);
            continue;
        }
        c->argv[c->nargv++] = (char *)o;
    }
    if (pass == 1) {
        c->argv[c->nargv++] = "-c";
        c->argv[c->nargv++] = "program.cpp";
        c->argv[c->nargv++] = "-o";
        c->argv[c->nargv++] = "pass1.o";
    } else {
        /* Pass 1 showed the diagnostics already. */
        c->argv[c->nargv++] = "-w";
        c->argv[c->nargv++] = "-shared";
        c->argv[c->nargv++] = "program2.cpp";
        c->argv[c->nargv++] = "-o";
        c->argv[c->nargv++] = "code.so";
    }
    c->argv[c->nargv] = NULL;
    base_env(c, dir);
    return c->failed ? -1 : 0;
}

/* Adds to syms the C++ functions name expressions point to in the object,
 * where not listed yet. 0 or -1. */
static int add_probed(const uint8_t *obj, size_t len, uint32_t count, char ***syms, uint32_t *n)
{
    char **found = hw_calloc(count, sizeof *found);
    int rc = found ? 0 : -1;
    if (found && rtc_lowered_names(obj, len, count, found) == 0)
        for (uint32_t i = 0; i < count && rc == 0; i++) {
            int have = !found[i] || strncmp(found[i], "_Z", 2) != 0;
            for (uint32_t k = 0; k < *n && !have; k++)
                have = !strcmp((*syms)[k], found[i]);
            if (have)
                continue;
            char **grown = hw_realloc(*syms, (*n + 1) * sizeof **syms);
            if (!grown) {
                rc = -1;
                break;
            }
            *syms = grown;
            grown[(*n)++] = found[i];
            found[i] = NULL;
        }
    for (uint32_t i = 0; found && i < count; i++)
        free(found[i]);
    free(found);
    return rc;
}

/* Appends the kernels' descriptors to src; demangles through c++filt.
 * syms[listed..n) came from name expressions: only void function templates
 * among them are taken as kernels, silently. */
static int add_descriptors(struct job *j, char **syms, uint32_t n, uint32_t listed,
                           struct text *src)
{
    char filt[PATH_MAX];
    struct command *c = NULL;
    struct text out = { 0 };
    char **dem = hw_calloc(n ? n : 1, sizeof *dem);
    int rc = -1, mangled = 0;
    if (!dem)
        goto done;
    for (uint32_t i = 0; i < n; i++)
        mangled |= !strncmp(syms[i], "_Z", 2);
    if (mangled) {
        if (find_tool("c++filt", filt, sizeof filt) < 0) {
            text_str(j->log, "hipwire: c++filt (binutils) is not installed on the worker: C++ "
                             "kernels cannot be described; extern \"C\" kernels can\n");
            j->result = HW_RTC_INTERNAL_ERROR;
            goto done;
        }
        c = hw_calloc(1, sizeof *c);
        if (!c)
            goto done;
        c->argv[c->nargv++] = filt;
        for (uint32_t i = 0; i < n && c->nargv < MAX_ARGS; i++)
            if (!strncmp(syms[i], "_Z", 2))
                c->argv[c->nargv++] = syms[i];
        c->argv[c->nargv] = NULL;
        base_env(c, j->dir);
        if (c->failed || run(j, c, &out) < 0 || out.failed)
            goto done;
        char *line = out.p, *save = NULL;
        for (uint32_t i = 0; i < n; i++) {
            if (strncmp(syms[i], "_Z", 2))
                continue;
            char *l = strtok_r(line, "\n", &save);
            line = NULL;
            if (!l)
                break;
            dem[i] = l;
        }
    }
    text_str(src, "#line 1 \"hipwire-kernels\"\n");
    for (uint32_t i = 0; i < n; i++) {
        if (i >= listed && (!dem[i] || strncmp(dem[i], "void ", 5) != 0))
            continue;
        if (!plain_symbol(syms[i]) || (!strncmp(syms[i], "_Z", 2) && !dem[i]) ||
            describe_kernel(src, i, syms[i], strncmp(syms[i], "_Z", 2) ? NULL : dem[i]) < 0)
            text_fmt(j->log,
                     "hipwire: kernel %s has no name the CPU device can describe (a "
                     "kernel in an anonymous namespace or a lambda): it cannot be launched\n",
                     dem[i] ? dem[i] : syms[i]);
    }
    rc = src->failed ? -1 : 0;
done:
    free(dem);
    free(out.p);
    command_free(c);
    return rc;
}

static int write_tree(const char *dir, const char *sub, const char *rel, const char *data, size_t n)
{
    char root[PATH_MAX], path[PATH_MAX + 300];
    snprintf(root, sizeof root, "%s/%s", dir, sub);
    snprintf(path, sizeof path, "%s/%s", root, rel);
    if (rtc_make_parents(root, rel) < 0)
        return -1;
    return rtc_write_file(path, data, n);
}

int rtc_host_compile(const struct hw_rtc_input *in, struct hw_rtc_output *out)
{
    struct text log = { 0 }, src = { 0 };
    struct command *c1 = NULL, *c2 = NULL;
    char cxx[PATH_MAX], dir[1024], path[PATH_MAX], real[PATH_MAX];
    int result = HW_RTC_INTERNAL_ERROR, made_dir = 0;
    uint8_t *obj = NULL, *code = NULL;
    uint64_t obj_size = 0, code_size = 0;
    char **syms = NULL;
    uint32_t nsyms = 0;
    char **lowered = hw_calloc(in->name_count ? in->name_count : 1, sizeof *lowered);
    if (!lowered)
        return HW_ENOMEM;
    struct job j = { .in = in,
                     .log = &log,
                     .result = HW_RTC_COMPILATION,
                     .deadline_ns = hw_now_ns() + (uint64_t)in->timeout_ms * 1000000 };

    size_t k = 0;
    while (k < sizeof compilers / sizeof compilers[0] &&
           find_tool(compilers[k], cxx, sizeof cxx) < 0)
        k++;
    if (k == sizeof compilers / sizeof compilers[0]) {
        text_str(&log, "hipwire: no C++ compiler on the worker for the CPU device: none of "
                       "clang++, g++, c++ is in PATH (install clang)\n");
        goto done;
    }
    const char *base = in->work_dir ? in->work_dir : getenv("TMPDIR");
    int dn = snprintf(dir, sizeof dir, "%s/hipwire-rtc-XXXXXX", base && *base ? base : "/tmp");
    if (dn < 0 || (size_t)dn >= sizeof dir) {
        text_str(&log, "hipwire: the worker's compile directory path is too long\n");
        goto done;
    }
    if (!mkdtemp(dir)) {
        text_fmt(&log, "hipwire: cannot make a compile directory under %s: %s\n",
                 base && *base ? base : "/tmp", strerror(errno));
        goto done;
    }
    made_dir = 1;
    j.dir = dir;
    if (realpath(cxx, real)) {
        *strrchr(real, '/') = '\0';
        j.extra[0] = real;
    }
    snprintf(path, sizeof path, "%s/include", dir);
    if (mkdir(path, 0700) < 0)
        goto io_error;
    snprintf(path, sizeof path, "%s/prelude", dir);
    if (mkdir(path, 0700) < 0)
        goto io_error;
    for (size_t i = 0; i < rtc_prelude_count; i++)
        if (write_tree(dir, "prelude", rtc_prelude_files[i].path,
                       (const char *)rtc_prelude_files[i].data, rtc_prelude_files[i].size) < 0)
            goto io_error;
    int hdr = rtc_write_headers(dir, in, &log);
    if (hdr < 0)
        goto io_error;
    if (hdr > 0) {
        result = HW_RTC_INVALID_INPUT;
        goto done;
    }
    if (build_source(in, &src) < 0) {
        result = HW_RTC_OUT_OF_MEMORY;
        goto done;
    }
    snprintf(path, sizeof path, "%s/program.cpp", dir);
    if (rtc_write_file(path, src.p, src.len) < 0)
        goto io_error;

    c1 = hw_calloc(1, sizeof *c1);
    c2 = hw_calloc(1, sizeof *c2);
    if (!c1 || !c2) {
        result = HW_RTC_OUT_OF_MEMORY;
        goto done;
    }
    if (build_compile(in, cxx, dir, 1, c1, &log) < 0) {
        result = c1->failed ? HW_RTC_OUT_OF_MEMORY : HW_RTC_INVALID_OPTION;
        goto done;
    }
    if (run(&j, c1, NULL) < 0) {
        result = j.result;
        goto done;
    }
    if (rtc_read_file(dir, "pass1.o", in->max_output, &obj, &obj_size) < 0 ||
        rtc_kernel_symbols(obj, (size_t)obj_size, KERNEL_SECTION, &syms, &nsyms) < 0) {
        text_str(&log, "hipwire: the compiler's object could not be read\n");
        goto done;
    }
    /* g++ ignores the section of a template instance: the template kernels
     * named by name expressions are found through their probes instead. */
    uint32_t listed = nsyms;
    if (in->name_count && add_probed(obj, (size_t)obj_size, in->name_count, &syms, &nsyms) < 0) {
        result = HW_RTC_OUT_OF_MEMORY;
        goto done;
    }
    if (add_descriptors(&j, syms, nsyms, listed, &src) < 0) {
        result = j.result == HW_RTC_COMPILATION ? HW_RTC_INTERNAL_ERROR : j.result;
        goto done;
    }
    snprintf(path, sizeof path, "%s/program2.cpp", dir);
    if (rtc_write_file(path, src.p, src.len) < 0)
        goto io_error;
    if (build_compile(in, cxx, dir, 2, c2, &log) < 0) {
        result = HW_RTC_OUT_OF_MEMORY;
        goto done;
    }
    if (run(&j, c2, NULL) < 0) {
        result = j.result;
        goto done;
    }
    if (rtc_read_file(dir, "code.so", in->max_output, &code, &code_size) < 0) {
        text_str(&log, "hipwire: the compiler wrote no shared object\n");
        result = HW_RTC_COMPILATION;
        goto done;
    }
    result = HW_RTC_SUCCESS;
    if (in->name_count)
        rtc_lowered_names(code, (size_t)code_size, in->name_count, lowered);
    goto done;

io_error:
    text_fmt(&log, "hipwire: cannot write the program into %s: %s\n", dir, strerror(errno));
done:
    /* The limit shows as a file at the limit, or as a tool killed by SIGXFSZ
     * (whose partial output it already removed). */
    if (made_dir &&
        (rtc_remove_tree(dir) >= in->max_output ||
         (log.p && (strstr(log.p, strsignal(SIGXFSZ)) || strstr(log.p, "SIGXFSZ")))) &&
        result != HW_RTC_SUCCESS)
        text_fmt(&log,
                 "hipwire: a file the compiler wrote reached the worker's limit of %llu "
                 "bytes (--rtc-max-output)\n",
                 (unsigned long long)in->max_output);
    for (uint32_t i = 0; i < nsyms; i++)
        free(syms[i]);
    free(syms);
    free(obj);
    command_free(c1);
    command_free(c2);
    free(src.p);
    if (log.failed) {
        free(log.p);
        log.p = NULL;
        log.len = 0;
    }
    out->result = result;
    out->code = code;
    out->code_size = code_size;
    out->log = log.p;
    out->log_size = log.len;
    out->lowered = lowered;
    return HW_OK;
}
