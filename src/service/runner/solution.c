/* solution.c - the submitted code, ready to call.
 * language "hip": HIP source with kernels and an extern "C" solution()
 *   host function, compiled by hipwire-cc into a shared library that is
 *   dlopen'ed here; solution() is called through libffi with the problem's
 *   signature, so no per-problem glue is compiled.
 * language "hip-kernel": a __global__ solution kernel with the same
 *   parameters, compiled by hiprtc and launched with the reference's
 *   geometry (for when hipwire-cc is not installed). */
#include "hw_alloc.h"
#include "runner.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ffi.h>

struct solution {
    void *dl;
    void (*fn)(void);
    ffi_cif cif;
    ffi_type *types[RUNNER_MAX_PARAMS];
    struct rtc_kernel kernel;
    int is_kernel;
};

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = hw_calloc(1, 65537);
    if (buf)
        fread(buf, 1, 65536, f);
    fclose(f);
    return buf;
}

/* The one place the compiler is named: hipwire-cc turns HIP source into a
 * shared library whose kernels the worker compiles for its own device at
 * first launch. It runs in a child started before the runner confines
 * itself, under its own Landlock domain that also lets it write /tmp
 * (hipwire-cc keeps its intermediates there, whatever TMPDIR says).
 * Output and diagnostics go to a file in the private directory. Returns
 * the compiler's pid, 0 when the language needs no compiler, -1. */
pid_t solution_compile_start(struct rjob *job)
{
    char logpath[4096], so[4096];
    if (!strcmp(job->language, "hip-kernel"))
        return 0;
    snprintf(logpath, sizeof logpath, "%s/compile.log", job->workdir);
    snprintf(so, sizeof so, "%s/solution.so", job->workdir);
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    const char *why = sandbox_landlock_paths(job->workdir, "/tmp");
    int fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
    }
    if (why)
        fprintf(stderr, "hipwire-runner: compiling without Landlock: %s\n", why);
    const char *arch = !strcmp(job->device_class, "cpu") ? "--offload-arch=hipwire-cpu" : "-O3";
    execl(job->compiler, job->compiler, "-shared", "-fPIC", "-O3", arch, "-o", so,
          job->solution_path, (char *)NULL);
    fprintf(stderr, "cannot run %s: %s\n", job->compiler, strerror(errno));
    _exit(127);
}

/* 0 when the compile succeeded; else -1 with *log the compiler's output. */
int solution_compile_wait(struct rjob *job, pid_t pid, char **log)
{
    char logpath[4096];
    int st = 0;
    if (pid == 0)
        return 0;
    if (pid < 0)
        return -1;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return 0;
    snprintf(logpath, sizeof logpath, "%s/compile.log", job->workdir);
    *log = read_text(logpath);
    return -1;
}

static ffi_type *ffi_of(enum rkind k)
{
    switch (k) {
    case RK_FLOAT_PTR: return &ffi_type_pointer;
    case RK_SIZE_T: return &ffi_type_uint64;
    case RK_INT: return &ffi_type_sint32;
    case RK_FLOAT: return &ffi_type_float;
    }
    return &ffi_type_void;
}

struct solution *solution_load(struct rjob *job, char **log, int *compile_failed)
{
    struct solution *s = hw_calloc(1, sizeof *s);
    *compile_failed = 0;
    if (!s)
        return NULL;
    if (!strcmp(job->language, "hip-kernel")) {
        char *src = read_text(job->solution_path);
        int rc = src ? rtc_build(src, "solution", &s->kernel, log) : -1;
        free(src);
        if (rc != 0) {
            *compile_failed = 1;
            free(s);
            return NULL;
        }
        s->is_kernel = 1;
        return s;
    }
    char so[4096];
    snprintf(so, sizeof so, "%s/solution.so", job->workdir);
    s->dl = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!s->dl || !(s->fn = (void (*)(void))dlsym(s->dl, "solution"))) {
        free(*log);
        *log = hw_strdup(s->dl ? "no extern \"C\" function named solution" : dlerror());
        *compile_failed = 1;
        if (s->dl)
            dlclose(s->dl);
        free(s);
        return NULL;
    }
    for (int i = 0; i < job->nparams; i++)
        s->types[i] = ffi_of(job->params[i].kind);
    if (ffi_prep_cif(&s->cif, FFI_DEFAULT_ABI, (unsigned)job->nparams, &ffi_type_void, s->types) !=
        FFI_OK) {
        dlclose(s->dl);
        free(s);
        return NULL;
    }
    return s;
}

hipError_t solution_call(struct rjob *job, struct solution *s, struct rargs *a)
{
    if (s->is_kernel) {
        json_t *ref = json_object_get(job->problem, "reference");
        return rtc_launch(&s->kernel, json_object_get(ref, "grid"), json_object_get(ref, "block"),
                          a->test, a->argv);
    }
    ffi_call(&s->cif, s->fn, NULL, a->argv);
    return hipGetLastError();
}

void solution_free(struct solution *s)
{
    if (s->is_kernel)
        hipModuleUnload(s->kernel.mod);
    /* The library stays loaded: its kernels' registrations live until exit. */
    free(s);
}
