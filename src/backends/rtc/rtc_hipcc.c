/*
 * rtc_hipcc.c - a hiprtc compile done with hipcc (rtc_compile.h).
 *
 * The program becomes one file: `#include <hip/hip_runtime.h>` (what
 * hiprtc's builtin headers give a program implicitly), a #line so
 * diagnostics name the program as its creator did, the source, and one
 * probe variable per name expression (rtc_lowered.c). Headers go under
 * include/ of a private directory; hipcc --genco --no-gpu-bundle-output
 * turns it into a single AMDGPU code object, which is what hiprtcGetCode
 * returns on ROCm.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hw_alloc.h"
#include "hw_log.h"
#include "rtc_compile.h"
#include "rtc_exec.h"
#include "rtc_util.h"

#define LOG_CAP    (HIPR_CAP_RTC_LOG - 4096) /* room for hipwire's own lines */
#define MAX_MEMORY (8ull << 30)

/* ---- the command ------------------------------------------------------------- */

static int find_compiler(const char *configured, char *out, size_t cap)
{
    if (configured) {
        if (configured[0] != '/' || access(configured, X_OK) < 0)
            return -1;
        snprintf(out, cap, "%s", configured);
        return 0;
    }
    const char *path = getenv("PATH");
    char list[4096];
    snprintf(list, sizeof list, "%s", path && *path ? path : "/usr/bin:/bin");
    for (char *save = NULL, *d = strtok_r(list, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        int n = snprintf(out, cap, "%s/hipcc", d);
        if (d[0] == '/' && n > 0 && (size_t)n < cap && access(out, X_OK) == 0)
            return 0;
    }
    return -1;
}

static int build_source(const struct hw_rtc_input *in, struct text *src)
{
    rtc_source_head(in, src);
    text_str(src, in->source);
    return rtc_source_tail(in, "__device__", src);
}

static const char *const passed_env[] = {
    "ROCM_PATH", "HIP_PATH",        "HIP_CLANG_PATH", "HIP_DEVICE_LIB_PATH",
    "HSA_PATH",  "HIP_ROCCLR_HOME", "HIP_LIB_PATH",   "DEVICE_LIB_PATH",
};

/* Options after the core's allowlist: hiprtc's spellings become hipcc's,
 * include directories move under the program's header tree. */
static int translate_options(const struct hw_rtc_input *in, struct command *c, const char **target,
                             int *has_std, struct text *log)
{
    int targets = 0;
    for (uint32_t i = 0; i < in->option_count; i++) {
        const char *o = in->options[i];
        if (!strncmp(o, "--gpu-architecture=", 19) || !strncmp(o, "--offload-arch=", 15)) {
            *target = strchr(o, '=') + 1;
            if (++targets > 1) {
                text_str(log, "hipwire: a run-time compile has exactly one target; the options "
                              "name more than one\n");
                return -1;
            }
            continue;
        }
        if (!strncmp(o, "-std=", 5) || !strncmp(o, "--std=", 6))
            *has_std = 1;
        if (!strncmp(o, "-I", 2)) {
            c->argv[c->nargv++] = own(c, "-Iinclude/%s", o + 2);
            continue;
        }
        c->argv[c->nargv++] = (char *)o;
    }
    return 0;
}

static int build_command(const struct hw_rtc_input *in, const char *compiler, const char *dir,
                         const char *default_target, struct command *c, struct text *log)
{
    const char *target = default_target;
    int has_std = 0;
    c->argv[c->nargv++] = (char *)compiler;
    c->argv[c->nargv++] = "--genco";
    c->argv[c->nargv++] = "--no-gpu-bundle-output";
    c->argv[c->nargv++] = "-Iinclude";
    /* A crashing compiler writes no reproducer files. */
    c->argv[c->nargv++] = "-fno-crash-diagnostics";
    if (translate_options(in, c, &target, &has_std, log) < 0)
        return -1;
    c->argv[c->nargv++] = own(c, "--offload-arch=%s", target);
    if (!has_std)
        c->argv[c->nargv++] = "-std=c++17";
    c->argv[c->nargv++] = "program.hip";
    c->argv[c->nargv++] = "-o";
    c->argv[c->nargv++] = "code.o";
    c->argv[c->nargv] = NULL;

    int bindir_len = (int)(strrchr(compiler, '/') - compiler);
    c->envp[c->nenv++] = own(c, "PATH=%.*s:/usr/bin:/bin", bindir_len, compiler);
    c->envp[c->nenv++] = own(c, "HOME=%s", dir);
    c->envp[c->nenv++] = own(c, "TMPDIR=%s", dir);
    c->envp[c->nenv++] = "LC_ALL=C";
    c->envp[c->nenv++] = "HIP_PLATFORM=amd";
    /* hipcc asks the local GPUs for a target unless told; there are none. */
    c->envp[c->nenv++] = own(c, "HCC_AMDGPU_TARGET=%s", target);
    for (size_t i = 0; i < sizeof passed_env / sizeof passed_env[0]; i++) {
        const char *v = getenv(passed_env[i]);
        if (v)
            c->envp[c->nenv++] = own(c, "%s=%s", passed_env[i], v);
    }
    c->envp[c->nenv] = NULL;
    if (c->failed) {
        text_str(log, "hipwire: out of memory building the compiler's command\n");
        return -1;
    }
    return 0;
}

int rtc_hipcc_compile(const struct hw_rtc_input *in, const char *target, struct hw_rtc_output *out)
{
    static int warned_unconfined;
    struct text log = { 0 }, src = { 0 };
    struct command *cmd = NULL;
    char compiler[PATH_MAX], dir[1024], path[PATH_MAX];
    int result = HW_RTC_INTERNAL_ERROR, made_dir = 0;
    uint8_t *code = NULL;
    uint64_t code_size = 0;
    char **lowered = hw_calloc(in->name_count ? in->name_count : 1, sizeof *lowered);
    if (!lowered)
        return HW_ENOMEM;

    if (find_compiler(in->compiler, compiler, sizeof compiler) < 0) {
        text_fmt(&log,
                 "hipwire: no HIP compiler on the worker: %s %s (install hipcc, or start "
                 "hip-worker with --hipcc PATH)\n",
                 in->compiler ? in->compiler : "hipcc",
                 in->compiler ? "is not an executable absolute path" : "was not found in PATH");
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
    snprintf(path, sizeof path, "%s/include", dir);
    if (mkdir(path, 0700) < 0)
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
    snprintf(path, sizeof path, "%s/program.hip", dir);
    if (rtc_write_file(path, src.p, src.len) < 0)
        goto io_error;
    cmd = hw_calloc(1, sizeof *cmd);
    if (!cmd) {
        result = HW_RTC_OUT_OF_MEMORY;
        goto done;
    }
    if (build_command(in, compiler, dir, target, cmd, &log) < 0) {
        result = cmd->failed ? HW_RTC_OUT_OF_MEMORY : HW_RTC_INVALID_OPTION;
        goto done;
    }

    char real[PATH_MAX];
    const char *extra[3] = { NULL, NULL, NULL };
    if (realpath(compiler, real)) {
        *strrchr(real, '/') = '\0';
        extra[0] = real; /* a toolchain outside the system directories */
    }
    struct rtc_exec x = {
        .argv = cmd->argv,
        .envp = cmd->envp,
        .dir = dir,
        .read_dirs = extra,
        .timeout_ms = in->timeout_ms,
        .max_file_size = in->max_output,
        .max_memory = rtc_memory_limit(in->max_memory, MAX_MEMORY),
        .max_log = LOG_CAP,
        .cancel = in->cancel,
    };
    if (rtc_exec_run(&x) < 0) {
        text_fmt(&log, "hipwire: cannot run %s: %s\n", compiler, strerror(errno));
        free(x.log);
        goto done;
    }
    if (!x.confined && !__atomic_exchange_n(&warned_unconfined, 1, __ATOMIC_RELAXED))
        hw_warn("run-time compiles are not confined to their directory: this kernel has no "
                "Landlock (docs/hiprtc.md)");
    text_add(&log, x.log, x.log_len);
    if (x.log_truncated)
        text_str(&log, "\n[hipwire: compiler output truncated]\n");
    int oom = rtc_out_of_memory(x.log);
    free(x.log);
    if (x.cancelled) {
        text_str(&log, "hipwire: the compile was cancelled: the session is ending\n");
    } else if (x.timed_out) {
        text_fmt(&log,
                 "hipwire: the compile was stopped after %u s, the worker's limit "
                 "(--rtc-timeout)\n",
                 in->timeout_ms / 1000);
        result = HW_RTC_COMPILATION;
    } else if (WIFEXITED(x.wait_status) && WEXITSTATUS(x.wait_status) == 0 &&
               rtc_read_file(dir, "code.o", in->max_output, &code, &code_size) == 0) {
        result = HW_RTC_SUCCESS;
        if (in->name_count)
            rtc_lowered_names(code, (size_t)code_size, in->name_count, lowered);
    } else if (oom) {
        text_fmt(&log,
                 "hipwire: the compiler ran out of its --rtc-max-memory of %llu bytes "
                 "(the worker's limit on one compile's address space)\n",
                 (unsigned long long)x.max_memory);
        result = HW_RTC_COMPILATION;
    } else {
        if (WIFSIGNALED(x.wait_status))
            text_fmt(&log, "hipwire: the compiler was killed by signal %d (%s)\n",
                     WTERMSIG(x.wait_status), rtc_signal_name(WTERMSIG(x.wait_status)));
        else if (WEXITSTATUS(x.wait_status) == 127 || WEXITSTATUS(x.wait_status) == 126)
            text_fmt(&log, "hipwire: %s could not be started\n", compiler);
        else
            text_fmt(&log, "hipwire: hipcc failed (exit status %d)\n", WEXITSTATUS(x.wait_status));
        result = HW_RTC_COMPILATION;
    }
    goto done;

io_error:
    text_fmt(&log, "hipwire: cannot write the program into %s: %s\n", dir, strerror(errno));
done:
    /* The limit shows as a file at the limit, or as a tool killed by SIGXFSZ
     * (whose partial output the compiler already removed). */
    if (made_dir &&
        (rtc_remove_tree(dir) >= in->max_output || (log.p && strstr(log.p, strsignal(SIGXFSZ)))) &&
        result != HW_RTC_SUCCESS)
        text_fmt(&log,
                 "hipwire: a file the compiler wrote reached the worker's limit of %llu "
                 "bytes (--rtc-max-output)\n",
                 (unsigned long long)in->max_output);
    command_free(cmd);
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
