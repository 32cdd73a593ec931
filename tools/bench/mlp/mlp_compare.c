/*
 * mlp_compare.c - runs the MLP workload natively and through hipwire in
 * alternating rounds and prints them side by side, with the workload
 * target: remote step time <= 1.05 x native, and network round trips per
 * step = the one loss read-back.
 *
 *   hipwire-mlp-compare --remote PATH [--native PATH] [--rounds N] [-- MLP ARGS...]
 *
 * The remote program reaches the worker through TF_WORKER_HOST/PORT as any
 * HIP program does (e.g. under tests' with_worker). Without --native, or
 * when the native run cannot start (no GPU), only the remote column is
 * printed. Exit status: 0 when every remote run succeeded (its own checks:
 * the loss went down), 1 otherwise; the speeds never decide it.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "hw_cli.h"

#define MAX_ROUNDS        9
#define TARGET_STEP_RATIO 1.05

struct mlp_run {
    int ok;
    char name[128];
    int batch, in, hidden, classes, steps;
    double step_ms, round_trips, posted, hip_calls;
    double loss_first;
    char loss_last[32]; /* as printed (%.9g): compared as text, bit for bit */
};

static double field(const char *line, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, " %s=", key);
    const char *p = strstr(line, pat);
    return p ? strtod(p + strlen(pat), NULL) : NAN;
}

static int parse(const char *line, struct mlp_run *r)
{
    const char *p = strstr(line, "mlp: name=\"");
    if (!p)
        return -1;
    p += strlen("mlp: name=\"");
    const char *q = strchr(p, '"');
    if (!q)
        return -1;
    snprintf(r->name, sizeof r->name, "%.*s", (int)(q - p), p);
    r->batch = (int)field(line, "batch");
    r->in = (int)field(line, "in");
    r->hidden = (int)field(line, "hidden");
    r->classes = (int)field(line, "classes");
    r->steps = (int)field(line, "steps");
    r->step_ms = field(line, "step_ms");
    r->round_trips = field(line, "round_trips_per_step");
    r->posted = field(line, "posted_per_step");
    r->hip_calls = field(line, "hip_calls_per_step");
    r->loss_first = field(line, "loss_first");
    const char *l = strstr(line, " loss_last=");
    if (!l)
        return -1;
    sscanf(l + strlen(" loss_last="), "%31s", r->loss_last);
    return isnan(r->step_ms) ? -1 : 0;
}

/* Runs prog with args; its "mlp:" line goes to r, everything is echoed. */
static void run_one(const char *prog, char **args, int nargs, struct mlp_run *r)
{
    int fds[2];
    memset(r, 0, sizeof *r);
    if (pipe(fds) < 0)
        return;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return;
    }
    if (pid == 0) {
        char **argv = calloc((size_t)nargs + 2, sizeof *argv);
        if (!argv)
            _exit(127);
        argv[0] = (char *)prog;
        for (int i = 0; i < nargs; i++)
            argv[i + 1] = args[i];
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        execv(prog, argv);
        fprintf(stderr, "mlp_compare: cannot run %s: %s\n", prog, strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    FILE *f = fdopen(fds[0], "r");
    char line[1024];
    int parsed = -1;
    while (f && fgets(line, sizeof line, f)) {
        fputs(line, stdout);
        if (parsed < 0)
            parsed = parse(line, r);
    }
    if (f)
        fclose(f);
    int status = 0;
    waitpid(pid, &status, 0);
    r->ok = parsed == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    fflush(stdout);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median step time over the successful runs, or -1. */
static double median_ms(const struct mlp_run *runs, int n, const struct mlp_run **pick)
{
    double v[MAX_ROUNDS];
    int k = 0;
    for (int i = 0; i < n; i++)
        if (runs[i].ok)
            v[k++] = runs[i].step_ms;
    if (k == 0)
        return -1;
    qsort(v, (size_t)k, sizeof v[0], cmp_double);
    double m = v[k / 2];
    for (int i = 0; i < n; i++)
        if (runs[i].ok && runs[i].step_ms == m)
            *pick = &runs[i];
    return m;
}

int main(int argc, char **argv)
{
    if (hw_cli_help_version(argc, argv, "hipwire-mlp-compare",
                            "usage: hipwire-mlp-compare --remote PATH [--native PATH] [--rounds N] "
                            "[-- MLP ARGS]\n"
                            "Runs the MLP workload remote and native, side by side.\n"))
        return 0;
    const char *remote = NULL, *native = NULL;
    int rounds = 3, i;
    for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (!strcmp(argv[i], "--remote") && i + 1 < argc)
            remote = argv[++i];
        else if (!strcmp(argv[i], "--native") && i + 1 < argc)
            native = argv[++i];
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s --remote PATH [--native PATH] [--rounds N] [-- MLP ARGS]\n",
                    argv[0]);
            return 2;
        }
    }
    if (!remote || rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "mlp_compare: --remote is required and --rounds is 1..%d\n", MAX_ROUNDS);
        return 2;
    }
    char **args = i < argc ? argv + i + 1 : argv + argc;
    int nargs = (int)(argv + argc - args);

    struct mlp_run nat[MAX_ROUNDS], rem[MAX_ROUNDS];
    int have_native = native != NULL;
    /* Alternating, so that a change in the machine's load hits both alike. */
    for (int r = 0; r < rounds; r++) {
        if (have_native) {
            run_one(native, args, nargs, &nat[r]);
            if (!nat[r].ok && r == 0) {
                printf("mlp_compare: the native run failed (no GPU?); remote column only\n");
                have_native = 0;
            }
        }
        run_one(remote, args, nargs, &rem[r]);
    }

    const struct mlp_run *rp = NULL, *np = NULL;
    double rms = median_ms(rem, rounds, &rp), nms = have_native ? median_ms(nat, rounds, &np) : -1;
    if (!rp) {
        printf("mlp_compare: no remote run succeeded\n");
        return 1;
    }
    int failures = 0;
    for (int r = 0; r < rounds; r++)
        failures += !rem[r].ok;

    printf("\n== MLP training step: %d x %d -> %d (ReLU) -> %d, softmax cross-entropy, SGD; "
           "median of %d runs of %d steps ==\n",
           rp->batch, rp->in, rp->hidden, rp->classes, rounds, rp->steps);
    printf("device: %s\n", rp->name);
    char nv[3][32] = { "-", "-", "-" };
    if (np) {
        snprintf(nv[0], sizeof nv[0], "%.4f", nms);
        snprintf(nv[1], sizeof nv[1], "%.1f", 1e3 / nms);
        snprintf(nv[2], sizeof nv[2], "%.2f", np->hip_calls);
    }
    printf("%-34s %14s %14s %14s\n", "", "native", "hipwire", "hipwire/native");
    printf("%-34s %14s %14.4f", "step time (ms)", nv[0], rms);
    if (np)
        printf(" %14.3f", rms / nms);
    printf("\n%-34s %14s %14.1f\n", "steps per second", nv[1], 1e3 / rms);
    printf("%-34s %14s %14.2f\n", "HIP calls per step", nv[2], rp->hip_calls);
    printf("%-34s %14s %14.2f\n", "kernel launches per step", "16", 16.0);
    printf("%-34s %14s %14.3f\n", "network round trips per step", "-", rp->round_trips);
    printf("%-34s %14s %14.3f\n", "requests sent per step", "-", rp->posted + rp->round_trips);
    printf("%-34s %14s %14s\n", "loss after the last step", np ? np->loss_last : "-",
           rp->loss_last);
    int same_loss = np && strcmp(np->loss_last, rp->loss_last) == 0;
    if (np)
        printf("(same kernels, data and order: the final losses %s)\n",
               same_loss ? "are bit-identical" : "DIFFER");

    printf("\n== Targets (MLP) ==\n");
    if (np)
        printf("[%-6s] step time remote <= %.2f x native: %.3f x\n",
               rms / nms <= TARGET_STEP_RATIO ? "MET" : "MISSED", TARGET_STEP_RATIO, rms / nms);
    else
        printf("[n/a   ] step time remote <= %.2f x native: no native run\n", TARGET_STEP_RATIO);
    /* One loss read-back per step, and nothing else waits for the worker. */
    printf("[%-6s] round trips per step = loss read-backs (1): %.3f\n",
           fabs(rp->round_trips - 1.0) < 1e-9 ? "MET" : "MISSED", rp->round_trips);
    if (failures)
        printf("%d remote run(s) failed\n", failures);
    return failures || (np && !same_loss) ? 1 : 0;
}
