/*
 * hipwire-cc - builds HIP source programs that run through hipwire on any
 * device a worker serves (docs/hip-source.md, "hipwire-cc").
 *
 * Each HIP file is compiled twice over: the host half by clang in HIP mode
 * (--cuda-host-only), which emits the kernel stubs and the registration
 * calls the proxy receives, and the device half kept as portable source
 * (cc_source.c) in a clang offload bundle that becomes the object's
 * .hip_fatbin. The worker compiles that source for its own device at the
 * program's first launch. Template kernels are instantiated explicitly in
 * the device source from the stubs the host compile produced, since the
 * host code that instantiated them is not shipped.
 *
 * The flags are hipcc's (a compiler command line, not getopt's grammar):
 * what is not ours is passed to clang.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hw_alloc.h"
#include "cc_source.h"
#include "hw_cli.h"

#define MAX_ARGS 1024

static const char usage[] =
    "usage: hipwire-cc [options] file...\n"
    "Compiles HIP programs (.hip .cu .cpp .cc .cxx, or any file after -x hip) so\n"
    "that their kernels run through hipwire on any worker device: the device\n"
    "code travels as portable source and the worker compiles it for its device.\n"
    "  -o FILE  -c  -O<n>  -I DIR  -D NAME[=V]  -U NAME  -std=STD  -shared  -fPIC\n"
    "  -x hip|c++|c|none\n"
    "  --offload-arch=gfxNNN  also build AMD code objects for that target (repeat\n"
    "           for several), put beside the source: an AMD worker of that target runs\n"
    "           them, other devices compile the source\n"
    "  -l LIB -L DIR -Wl,...  and other -W/-f/-m flags are passed to clang\n"
    "  -v        print the commands run\n"
    "  --save-temps  keep the intermediate files (their directory is printed)\n"
    "  --help  --version\n"
    "Environment: HIPWIRE_CC_CLANG (default clang++-15, else clang++),\n"
    "HIPWIRE_CC_ROCM_PATH (HIP headers' prefix; default /opt/rocm if present, else /usr),\n"
    "HIPWIRE_CC_DEVICE_LIB_PATH (AMD device libraries, for --offload-arch=gfx...),\n"
    "TMPDIR (intermediate files; default /tmp).\n"
    "Run the program with the hipwire proxy first in LD_LIBRARY_PATH.\n";

struct argv_list {
    const char *v[MAX_ARGS];
    unsigned n;
};

static int add(struct argv_list *l, const char *s)
{
    if (l->n + 1 >= MAX_ARGS) {
        fprintf(stderr, "hipwire-cc: too many arguments\n");
        return -1;
    }
    l->v[l->n++] = s;
    l->v[l->n] = NULL;
    return 0;
}

static int verbose;

/* Runs argv; stdout to out_path when given. 0 when it exited 0. */
static int run(const struct argv_list *l, const char *out_path)
{
    if (verbose) {
        for (unsigned i = 0; i < l->n; i++)
            fprintf(stderr, "%s%s", i ? " " : "", l->v[i]);
        fprintf(stderr, "%s%s\n", out_path ? " > " : "", out_path ? out_path : "");
    }
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (out_path && !freopen(out_path, "w", stdout))
            _exit(127);
        execvp(l->v[0], (char *const *)l->v);
        fprintf(stderr, "hipwire-cc: cannot run %s: %s\n", l->v[0], strerror(errno));
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static int in_path(const char *prog)
{
    const char *path = getenv("PATH");
    char buf[PATH_MAX];
    for (const char *p = path ? path : "/usr/bin"; *p;) {
        const char *e = strchr(p, ':');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        snprintf(buf, sizeof buf, "%.*s/%s", (int)n, p, prog);
        if (access(buf, X_OK) == 0)
            return 1;
        if (!e)
            break;
        p = e + 1;
    }
    return 0;
}

static const char *clang_path(void)
{
    const char *env = getenv("HIPWIRE_CC_CLANG");
    if (env && *env)
        return env;
    return in_path("clang++-15") ? "clang++-15" : "clang++";
}

static const char *rocm_path(void)
{
    const char *env = getenv("HIPWIRE_CC_ROCM_PATH");
    if (env && *env)
        return env;
    struct stat st;
    return stat("/opt/rocm/include/hip/hip_runtime.h", &st) == 0 ? "/opt/rocm" : "/usr";
}

enum lang { LANG_AUTO, LANG_HIP, LANG_CXX, LANG_C };

static int has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

static enum lang lang_of(const char *file, enum lang forced)
{
    if (forced != LANG_AUTO)
        return forced;
    static const char *const hip[] = { ".hip", ".cu", ".cpp", ".cc", ".cxx", ".C", ".c++" };
    for (size_t i = 0; i < sizeof hip / sizeof hip[0]; i++)
        if (has_suffix(file, hip[i]))
            return LANG_HIP;
    if (has_suffix(file, ".c"))
        return LANG_C;
    return LANG_AUTO; /* an object or library: for the link */
}

struct input {
    const char *path;
    enum lang lang;
};

struct options {
    const char *out;
    int compile_only, save_temps;
    struct argv_list host;   /* flags for every compile and the link */
    struct argv_list link;   /* flags for the link only */
    struct argv_list device; /* -D -U -std -O for the worker's compile */
    struct argv_list incdirs;
    struct argv_list archs; /* --offload-arch=gfx... */
    struct input in[MAX_ARGS];
    unsigned nin;
};

/* Two-token options whose value follows. */
static int takes_value(const char *a)
{
    static const char *const two[] = {
        "-I", "-D",  "-U",  "-o",  "-x",       "-include",   "-isystem", "-L",
        "-l", "-MF", "-MT", "-MQ", "-Xlinker", "-idirafter", "-iquote"
    };
    for (size_t i = 0; i < sizeof two / sizeof two[0]; i++)
        if (strcmp(a, two[i]) == 0)
            return 1;
    return 0;
}

/* Flags the compiles would warn about (-Werror makes that fatal). */
static int link_only(const char *a)
{
    return strcmp(a, "-shared") == 0 || strcmp(a, "-rdynamic") == 0 || strncmp(a, "-l", 2) == 0 ||
           strncmp(a, "-L", 2) == 0 || strncmp(a, "-Wl,", 4) == 0 || strcmp(a, "-Xlinker") == 0 ||
           strncmp(a, "-static", 7) == 0;
}

static int parse(int argc, char **argv, struct options *o)
{
    enum lang forced = LANG_AUTO;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
        if (a[0] != '-' || !a[1]) {
            if (o->nin == MAX_ARGS)
                return -1;
            o->in[o->nin].path = a;
            o->in[o->nin++].lang = lang_of(a, forced);
            continue;
        }
        if (takes_value(a)) {
            if (i + 1 >= argc) {
                fprintf(stderr, "hipwire-cc: %s needs a value\n", a);
                return -1;
            }
            val = argv[++i];
        }
        if (strcmp(a, "-v") == 0) {
            verbose = 1;
        } else if (strcmp(a, "--save-temps") == 0 || strcmp(a, "-save-temps") == 0) {
            o->save_temps = 1;
        } else if (strcmp(a, "-c") == 0) {
            o->compile_only = 1;
        } else if (strncmp(a, "-o", 2) == 0) {
            o->out = val ? val : a + 2;
        } else if (strncmp(a, "-x", 2) == 0) {
            const char *l = val ? val : a + 2;
            forced = strcmp(l, "hip") == 0 || strcmp(l, "cu") == 0 || strcmp(l, "cuda") == 0
                         ? LANG_HIP
                     : strcmp(l, "c++") == 0 ? LANG_CXX
                     : strcmp(l, "c") == 0   ? LANG_C
                                             : LANG_AUTO;
        } else if (strncmp(a, "--offload-arch=", 15) == 0 ||
                   strncmp(a, "--amdgpu-target=", 16) == 0 ||
                   strncmp(a, "--cuda-gpu-arch=", 16) == 0) {
            const char *arch = strchr(a, '=') + 1;
            if (strncmp(arch, "gfx", 3) == 0 && add(&o->archs, arch) < 0)
                return -1;
        } else if (strcmp(a, "-fgpu-rdc") == 0) {
            fprintf(stderr, "hipwire-cc: -fgpu-rdc (device code linked across files) is not "
                            "supported: each file's kernels must be defined in that file\n");
            return -1;
        } else if (strcmp(a, "-fno-gpu-rdc") == 0 || strncmp(a, "--rocm-path=", 12) == 0 ||
                   strncmp(a, "--hip-version=", 14) == 0 || strcmp(a, "-nogpulib") == 0) {
            /* hipcc's defaults: nothing to do */
        } else if (strncmp(a, "-I", 2) == 0) {
            const char *d = val ? val : a + 2;
            if (add(&o->incdirs, d) < 0 || add(&o->host, "-I") < 0 || add(&o->host, d) < 0)
                return -1;
        } else if (strncmp(a, "-D", 2) == 0 || strncmp(a, "-U", 2) == 0) {
            char *f = hw_malloc(strlen(a) + (val ? strlen(val) : 0) + 1);
            if (!f)
                return -1;
            sprintf(f, "%.2s%s", a, val ? val : a + 2);
            if (add(&o->host, f) < 0 || add(&o->device, f) < 0)
                return -1;
        } else if (strncmp(a, "-std=", 5) == 0 || strncmp(a, "-O", 2) == 0) {
            if (add(&o->host, a) < 0 || add(&o->device, a) < 0)
                return -1;
        } else if (link_only(a)) {
            if (add(&o->link, a) < 0 || (val && add(&o->link, val) < 0))
                return -1;
        } else {
            if (add(&o->host, a) < 0 || (val && add(&o->host, val) < 0))
                return -1;
        }
    }
    if (!o->nin) {
        fprintf(stderr, "hipwire-cc: no input files\n");
        return -1;
    }
    return 0;
}

/* The explicit instantiations of the template kernels whose host stubs the
 * object defines, read from `nm -C` output. */
static int instantiations(const char *nm_out, struct cc_buf *extra, int *has_fatbin)
{
    FILE *f = fopen(nm_out, "r");
    if (!f)
        return -1;
    char line[8192];
    int any = 0;
    *has_fatbin = 0;
    while (fgets(line, sizeof line, f)) {
        /* clang emits no fat binary for a file without kernels or device
         * variables: then there is nothing to ship */
        if (strstr(line, " __hip_fatbin_wrapper"))
            *has_fatbin = 1;
        char *stub = strstr(line, "__device_stub__");
        char *sym = strchr(line, ' ');
        sym = sym ? strchr(sym + 1, ' ') : NULL;
        if (!stub || !sym)
            continue;
        sym++;
        char *paren = strchr(stub, '(');
        char *angle = strchr(stub, '<');
        if (!paren || !angle || angle > paren || strstr(line, "(anonymous namespace)") ||
            strstr(line, "{lambda"))
            continue;
        line[strcspn(line, "\n")] = '\0';
        if (!any)
            cc_buf_str(extra, "\n#if defined(__CUDACC_RTC__) || defined(__CUDACC__)\n"
                              "#define __hipwire_instance __global__\n#else\n"
                              "#define __hipwire_instance\n#endif\n"
                              "#line 1 \"hipwire-cc-instantiations\"\n");
        any = 1;
        cc_buf_str(extra, "template __hipwire_instance ");
        cc_buf_add(extra, sym, (size_t)(stub - sym));
        cc_buf_str(extra, stub + strlen("__device_stub__"));
        cc_buf_str(extra, ";\n");
    }
    fclose(f);
    return extra->failed ? -1 : 0;
}

/* The AMD device libraries clang needs for gfx code (Debian puts them
 * under the multiarch directory, not under the ROCm prefix). NULL: leave it
 * to clang. */
static const char *device_lib_path(void)
{
    const char *env = getenv("HIPWIRE_CC_DEVICE_LIB_PATH");
    if (env && *env)
        return env;
    static char buf[PATH_MAX];
    const char *const dirs[] = { "%s/amdgcn/bitcode", "%s/lib/amdgcn/bitcode",
                                 "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode",
                                 "/usr/lib/aarch64-linux-gnu/amdgcn/bitcode" };
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(buf, sizeof buf, dirs[i], rocm_path());
        struct stat st;
        char probe[PATH_MAX + 16];
        snprintf(probe, sizeof probe, "%s/ockl.bc", buf);
        if (stat(probe, &st) == 0)
            return buf;
    }
    return NULL;
}

/* Reads a whole file: 0, or -1. */
static int slurp(const char *path, struct cc_buf *out)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        cc_buf_add(out, chunk, n);
    int rc = ferror(f) || out->failed ? -1 : 0;
    fclose(f);
    return rc;
}

/* AMD code objects for the --offload-arch targets, as clang's offload
 * bundle in *out (empty when there are none). A toolchain that cannot build
 * them is not fatal: the program still carries the portable source, and a
 * note says why an AMD worker will compile it instead. */
static void amd_objects(const struct options *o, const char *src, const char *tmp, unsigned n,
                        struct cc_buf *out)
{
    if (!o->archs.n)
        return;
    char dev[PATH_MAX], rocm[PATH_MAX + 16], libs[PATH_MAX + 32];
    static char arch_flags[MAX_ARGS][96];
    snprintf(dev, sizeof dev, "%s/%u.amd", tmp, n);
    snprintf(rocm, sizeof rocm, "--rocm-path=%s", rocm_path());
    struct argv_list cc = { 0 };
    add(&cc, clang_path());
    add(&cc, "-x");
    add(&cc, "hip");
    add(&cc, rocm);
    const char *lib = device_lib_path();
    if (lib) {
        snprintf(libs, sizeof libs, "--rocm-device-lib-path=%s", lib);
        add(&cc, libs);
    }
    for (unsigned i = 0; i < o->archs.n; i++) {
        snprintf(arch_flags[i], sizeof arch_flags[i], "--offload-arch=%s", o->archs.v[i]);
        add(&cc, arch_flags[i]);
    }
    add(&cc, "--cuda-device-only");
    for (unsigned i = 0; i < o->host.n; i++)
        add(&cc, o->host.v[i]);
    add(&cc, "-c");
    add(&cc, src);
    add(&cc, "-o");
    if (add(&cc, dev) == 0 && run(&cc, NULL) == 0 && slurp(dev, out) == 0)
        return;
    cc_buf_free(out);
    fprintf(stderr,
            "hipwire-cc: note: %s: no AMD code objects for --offload-arch=%s%s (%s could not "
            "build them%s); the program carries portable source only, which every worker, AMD "
            "included, compiles for its own device at the first launch\n",
            src, o->archs.v[0], o->archs.n > 1 ? " and the others" : "", clang_path(),
            lib ? "" : ": no AMD device libraries found, set HIPWIRE_CC_DEVICE_LIB_PATH");
}

/* Compiles one HIP file into obj: host half by clang, device source (and
 * AMD code objects when asked for) into its .hip_fatbin. */
static int compile_hip(const struct options *o, const char *src, const char *obj, const char *tmp,
                       unsigned n)
{
    char fb[PATH_MAX], nm_out[PATH_MAX], rocm[PATH_MAX + 16], section[PATH_MAX + 32];
    char arch[64];
    snprintf(fb, sizeof fb, "%s/%u.hipfb", tmp, n);
    snprintf(nm_out, sizeof nm_out, "%s/%u.nm", tmp, n);
    snprintf(rocm, sizeof rocm, "--rocm-path=%s", rocm_path());
    snprintf(arch, sizeof arch, "--offload-arch=%s", o->archs.n ? o->archs.v[0] : "gfx90a");
    FILE *f = fopen(fb, "wb"); /* replaced below; clang needs a file to embed */
    if (!f || fputc(0, f) == EOF || fclose(f) != 0) {
        fprintf(stderr, "hipwire-cc: cannot write %s\n", fb);
        return -1;
    }
    struct argv_list cc = { 0 };
    add(&cc, clang_path());
    add(&cc, "-x");
    add(&cc, "hip");
    add(&cc, rocm);
    add(&cc, arch);
    add(&cc, "--cuda-host-only");
    add(&cc, "-Xclang");
    add(&cc, "-fcuda-include-gpubinary");
    add(&cc, "-Xclang");
    add(&cc, fb);
    for (unsigned i = 0; i < o->host.n; i++)
        add(&cc, o->host.v[i]);
    add(&cc, "-c");
    add(&cc, src);
    add(&cc, "-o");
    if (add(&cc, obj) < 0 || run(&cc, NULL) < 0)
        return -1;
    struct argv_list nm = { .v = { "nm", "-C", "--defined-only", obj, NULL }, .n = 4 };
    struct cc_buf extra = { 0 }, entry = { 0 }, amd = { 0 };
    int rc = -1, has_fatbin = 0;
    if (run(&nm, nm_out) < 0 || instantiations(nm_out, &extra, &has_fatbin) < 0)
        goto cleanup;
    if (!has_fatbin) {
        rc = 0;
        goto cleanup;
    }
    if (cc_source_entry(src, o->incdirs.v, o->incdirs.n, o->device.v, o->device.n, extra.p,
                        &entry) < 0)
        goto cleanup;
    amd_objects(o, src, tmp, n, &amd);
    if (cc_bundle_write(fb, &entry, amd.len ? amd.p : NULL, amd.len) < 0)
        goto cleanup;
    snprintf(section, sizeof section, ".hip_fatbin=%s", fb);
    struct argv_list oc = { .v = { "objcopy", "--update-section", section, obj, NULL }, .n = 4 };
    rc = run(&oc, NULL);
cleanup:
    cc_buf_free(&extra);
    cc_buf_free(&entry);
    cc_buf_free(&amd);
    return rc;
}

static const char *default_obj(const char *src, char *buf, size_t cap)
{
    const char *base = strrchr(src, '/');
    base = base ? base + 1 : src;
    const char *dot = strrchr(base, '.');
    snprintf(buf, cap, "%.*s.o", dot ? (int)(dot - base) : (int)strlen(base), base);
    return buf;
}

static void remove_tree(const char *dir, unsigned n)
{
    char p[PATH_MAX];
    static const char *const ext[] = { "hipfb", "nm", "o", "amd" };
    for (unsigned i = 0; i < n; i++)
        for (size_t k = 0; k < sizeof ext / sizeof ext[0]; k++) {
            snprintf(p, sizeof p, "%s/%u.%s", dir, i, ext[k]);
            unlink(p);
        }
    rmdir(dir);
}

int main(int argc, char **argv)
{
    if (hw_cli_help_version(argc, argv, "hipwire-cc", usage))
        return 0;
    static struct options o;
    if (parse(argc, argv, &o) < 0)
        return 2;
    if (o.compile_only && o.out && o.nin > 1) {
        fprintf(stderr, "hipwire-cc: -o with -c takes one input file\n");
        return 2;
    }
    /* Intermediate files go where the build asked (TMPDIR), as a compiler
     * driver's do; /tmp without it. */
    const char *tmpdir = getenv("TMPDIR");
    if (!tmpdir || !*tmpdir)
        tmpdir = "/tmp";
    char tmp[PATH_MAX - 64]; /* room for the file names under it */
    if (snprintf(tmp, sizeof tmp, "%s/hipwire-cc.XXXXXX", tmpdir) >= (int)sizeof tmp) {
        fprintf(stderr, "hipwire-cc: TMPDIR is too long\n");
        return 1;
    }
    if (!mkdtemp(tmp)) {
        fprintf(stderr, "hipwire-cc: cannot make a directory in %s: %s\n", tmpdir, strerror(errno));
        return 1;
    }
    int rc = 1;
    struct argv_list link = { 0 };
    char rocm[PATH_MAX + 16];
    snprintf(rocm, sizeof rocm, "--rocm-path=%s", rocm_path());
    add(&link, clang_path());
    add(&link, rocm);
    add(&link, "--hip-link");
    static char objs[MAX_ARGS][PATH_MAX];
    for (unsigned i = 0; i < o.nin; i++) {
        const struct input *in = &o.in[i];
        if (in->lang == LANG_AUTO) {
            add(&link, in->path);
            continue;
        }
        if (o.compile_only && o.out)
            snprintf(objs[i], PATH_MAX, "%s", o.out);
        else if (o.compile_only)
            default_obj(in->path, objs[i], PATH_MAX);
        else
            snprintf(objs[i], PATH_MAX, "%s/%u.o", tmp, i);
        if (in->lang == LANG_HIP) {
            if (compile_hip(&o, in->path, objs[i], tmp, i) < 0)
                goto cleanup;
        } else {
            struct argv_list cc = { 0 };
            add(&cc, clang_path());
            add(&cc, "-x");
            add(&cc, in->lang == LANG_C ? "c" : "c++");
            for (unsigned k = 0; k < o.host.n; k++)
                add(&cc, o.host.v[k]);
            add(&cc, "-c");
            add(&cc, in->path);
            add(&cc, "-o");
            if (add(&cc, objs[i]) < 0 || run(&cc, NULL) < 0)
                goto cleanup;
        }
        add(&link, objs[i]);
    }
    if (o.compile_only) {
        rc = 0;
        goto cleanup;
    }
    for (unsigned k = 0; k < o.host.n; k++)
        add(&link, o.host.v[k]);
    for (unsigned k = 0; k < o.link.n; k++)
        add(&link, o.link.v[k]);
    add(&link, "-o");
    if (add(&link, o.out ? o.out : "a.out") < 0 || run(&link, NULL) < 0)
        goto cleanup;
    rc = 0;
cleanup:
    if (o.save_temps)
        fprintf(stderr, "hipwire-cc: intermediate files in %s\n", tmp);
    else
        remove_tree(tmp, o.nin);
    return rc;
}
