/*
 * report.c - the table hipwire-bench prints, and the same numbers as JSON.
 *
 * Section 1 has one row per (call, target); sections 2 and 3 one column (or
 * column block) per target, so a native target adds to the table without
 * changing the hipwire numbers' place in it.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"

const char *const bench_probe_names[PROBE_COUNT] = {
    [PROBE_LOCAL] = "hipGetDevice (local)",
    [PROBE_STREAM_QUERY] = "hipStreamQuery(NULL)",
    [PROBE_MEM_INFO] = "hipMemGetInfo",
    [PROBE_DEVICE_SYNC] = "hipDeviceSynchronize",
};

static const char *const dir_names[DIR_COUNT] = { "H2D", "D2H" };
static const char *const mem_names[MEM_COUNT] = { "pageable", "pinned" };

static void size_label(char *out, size_t len, size_t size)
{
    if (size >= (1u << 20))
        snprintf(out, len, "%zu MiB", size >> 20);
    else
        snprintf(out, len, "%zu KiB", size >> 10);
}

static double ratio(double a, double b)
{
    return b > 0 && a >= 0 ? a / b : -1;
}

/* A number, or "-" where it was not measured. */
static void cell(char *out, size_t len, const char *fmt, double v)
{
    if (v < 0)
        snprintf(out, len, "-");
    else
        snprintf(out, len, fmt, v);
}

static void print_latency_row(const char *call, const char *target, const struct stats *st, int ok,
                              const struct stats *raw)
{
    if (!ok) {
        printf("%-24s %-8s %9s  (failed)\n", call, target, "-");
        return;
    }
    char p50r[16], meanr[16];
    cell(p50r, sizeof p50r, "%.2f", ratio(st->p50_us, raw->p50_us));
    cell(meanr, sizeof meanr, "%.2f", ratio(st->mean_us, raw->mean_us));
    printf("%-24s %-8s %9zu %9.2f %9.2f %9.2f %9.2f %8s %8s\n", call, target, st->n, st->min_us,
           st->p50_us, st->p99_us, st->mean_us, p50r, meanr);
}

static void print_header(const struct bench_results *r)
{
    printf("hipwire-bench  %s  (%s run)\n", r->date, r->quick ? "quick" : "full");
    printf("machine: %s, %d CPUs, %s; build: %s; load average at start: %s\n", r->host, r->cpus,
           r->cpu, r->build_type, r->loadavg);
    for (int t = 0; t < r->ntargets; t++)
        printf("%-8s %s\n", r->targets[t]->name, r->device[t]);
    printf("raw:     loopback TCP, forked server, TCP_NODELAY and 4 MiB socket buffers "
           "(hipwire's settings)\n");
}

static void print_round_trips(const struct bench_results *r)
{
    printf("\n== 1. Synchronous call round trip (microseconds; ratios against the raw echo) ==\n");
    printf("%-24s %-8s %9s %9s %9s %9s %9s %8s %8s\n", "call", "target", "samples", "min", "p50",
           "p99", "mean", "p50/raw", "mean/raw");
    print_latency_row("raw TCP echo, 24 B", "raw", &r->raw_rtt, r->raw_rtt_ok, &r->raw_rtt);
    for (int t = 0; t < r->ntargets; t++)
        for (int k = 0; k < PROBE_COUNT; k++)
            print_latency_row(bench_probe_names[k], r->targets[t]->name, &r->probe[t][k],
                              r->probe_ok[t][k], &r->raw_rtt);
    printf("(hipGetDevice is timed 100 calls at a time: it never leaves the process)\n");
}

static void print_launch_table(const struct bench_results *r, const struct launch_result *res)
{
    printf("%-36s", "");
    for (int t = 0; t < r->ntargets; t++)
        printf(" %14s", r->targets[t]->name);
    printf("\n");
    const char *rows[] = { "launches x repetitions", "enqueue rate (launches/s)",
                           "completion rate (launches/s)", "enqueue time per launch (us)",
                           "completion time per launch (us)" };
    for (int row = 0; row < 5; row++) {
        printf("%-36s", rows[row]);
        for (int t = 0; t < r->ntargets; t++) {
            const struct launch_result *l = &res[t];
            char v[32];
            if (!l->ok)
                snprintf(v, sizeof v, "(failed)");
            else if (row == 0)
                snprintf(v, sizeof v, "%zu x %d", l->launches, l->repetitions);
            else if (row == 1)
                snprintf(v, sizeof v, "%.0f", l->enqueue_per_s);
            else if (row == 2)
                snprintf(v, sizeof v, "%.0f", l->complete_per_s);
            else if (row == 3)
                snprintf(v, sizeof v, "%.3f", 1e6 / l->enqueue_per_s);
            else
                snprintf(v, sizeof v, "%.3f", 1e6 / l->complete_per_s);
            printf(" %14s", v);
        }
        printf("\n");
    }
}

static void print_launches(const struct bench_results *r)
{
    printf("\n== 2. Fire-and-forget kernel launches (hipModuleLaunchKernel, 1x1 grid, "
           "default stream) ==\n");
    printf("-- `empty` --\n");
    print_launch_table(r, r->launch);
    printf("-- spin_ns(%llu): %.0f us of device time per kernel --\n", SPIN_KERNEL_NS,
           (double)SPIN_KERNEL_NS / 1e3);
    print_launch_table(r, r->spin);
    printf("(enqueue: the launch loop alone; completion: first launch to the end of the "
           "hipDeviceSynchronize after the last; median of the repetitions)\n");
}

static void print_alloc(const struct bench_results *r)
{
    printf("\n== 4. hipMalloc + hipFree of %u KiB, back to back ==\n", ALLOC_PAIR_SIZE >> 10);
    printf("%-36s", "");
    for (int t = 0; t < r->ntargets; t++)
        printf(" %14s", r->targets[t]->name);
    printf("\n%-36s", "pairs per second");
    for (int t = 0; t < r->ntargets; t++) {
        char v[32];
        if (r->alloc_ok[t])
            snprintf(v, sizeof v, "%.0f", r->alloc_per_s[t]);
        else
            snprintf(v, sizeof v, "(failed)");
        printf(" %14s", v);
    }
    printf("\n%-36s", "microseconds per pair");
    for (int t = 0; t < r->ntargets; t++) {
        char v[32];
        cell(v, sizeof v, "%.2f", r->alloc_ok[t] ? 1e6 / r->alloc_per_s[t] : -1);
        printf(" %14s", v);
    }
    printf("\n(%zu pairs, then a hipDeviceSynchronize: a remote hipFree is fire-and-forget)\n",
           r->alloc_pairs);
}

static int find_target(const struct bench_results *r, const char *name)
{
    for (int t = 0; t < r->ntargets; t++)
        if (strcmp(r->targets[t]->name, name) == 0)
            return t;
    return -1;
}

static const char *verdict(int measured, int met)
{
    return !measured ? "n/a" : met ? "MET" : "MISSED";
}

/* Remote and native side by side, each with its ratio; raw TCP where the
 * network is the reference. Printed only when a native column ran. */
static void print_side_by_side(const struct bench_results *r, int h, int n)
{
    printf("\n== Remote (hipwire) vs native, side by side from this run ==\n");
    printf("%-40s %12s %12s %9s %12s\n", "measurement", "hipwire", "native", "hw/native",
           "raw TCP");
    static const int rtt_probes[] = { PROBE_STREAM_QUERY, PROBE_MEM_INFO, PROBE_DEVICE_SYNC };
    for (size_t i = 0; i < sizeof rtt_probes / sizeof rtt_probes[0]; i++) {
        int k = rtt_probes[i];
        char label[64], a[16], b[16], raw[16];
        snprintf(label, sizeof label, "%s p50 (us)", bench_probe_names[k]);
        cell(a, sizeof a, "%.2f", r->probe_ok[h][k] ? r->probe[h][k].p50_us : -1);
        cell(b, sizeof b, "%.2f", r->probe_ok[n][k] ? r->probe[n][k].p50_us : -1);
        cell(raw, sizeof raw, "%.2f", r->raw_rtt_ok ? r->raw_rtt.p50_us : -1);
        printf("%-40s %12s %12s %9s %12s\n", label, a, b, "-", raw);
    }
    const struct launch_result *lr[2] = { r->launch, r->spin };
    for (int i = 0; i < 2; i++) {
        char label[64], a[16], b[16], q[16];
        snprintf(label, sizeof label, "%s launches completed/s",
                 i ? "5 us kernel" : "empty kernel");
        cell(a, sizeof a, "%.0f", lr[i][h].ok ? lr[i][h].complete_per_s : -1);
        cell(b, sizeof b, "%.0f", lr[i][n].ok ? lr[i][n].complete_per_s : -1);
        cell(q, sizeof q, "%.3f",
             lr[i][h].ok && lr[i][n].ok ? lr[i][h].complete_per_s / lr[i][n].complete_per_s : -1);
        printf("%-40s %12s %12s %9s %12s\n", label, a, b, q, "-");
    }
    {
        char a[16], b[16], q[16];
        cell(a, sizeof a, "%.0f", r->alloc_ok[h] ? r->alloc_per_s[h] : -1);
        cell(b, sizeof b, "%.0f", r->alloc_ok[n] ? r->alloc_per_s[n] : -1);
        cell(q, sizeof q, "%.3f",
             r->alloc_ok[h] && r->alloc_ok[n] ? r->alloc_per_s[h] / r->alloc_per_s[n] : -1);
        printf("%-40s %12s %12s %9s %12s\n", "hipMalloc+hipFree pairs/s", a, b, q, "-");
    }
    for (int d = 0; d < DIR_COUNT; d++) {
        char head[16];
        snprintf(head, sizeof head, "%s GB/s", dir_names[d]);
        printf("%-10s | %8s | %16s %8s %7s %7s | %16s %8s %7s %7s\n", head, "raw TCP",
               "pageable hipwire", "native", "hw/raw", "hw/nat", "pinned hipwire", "native",
               "hw/raw", "hw/nat");
        for (size_t i = 0; i < r->nsizes; i++) {
            char label[32], raw[16], v[MEM_COUNT][4][16];
            size_label(label, sizeof label, r->sizes[i]);
            cell(raw, sizeof raw, "%.3f", r->raw_gbps[d][i]);
            for (int m = 0; m < MEM_COUNT; m++) {
                double hv = r->gbps[h][d][m][i], nv = r->gbps[n][d][m][i];
                cell(v[m][0], sizeof v[m][0], "%.3f", hv);
                cell(v[m][1], sizeof v[m][1], "%.3f", nv);
                cell(v[m][2], sizeof v[m][2], "%.2f", ratio(hv, r->raw_gbps[d][i]));
                cell(v[m][3], sizeof v[m][3], "%.2f", ratio(hv, nv));
            }
            printf("%-10s | %8s | %16s %8s %7s %7s | %16s %8s %7s %7s\n", label, raw, v[0][0],
                   v[0][1], v[0][2], v[0][3], v[1][0], v[1][1], v[1][2], v[1][3]);
        }
    }
}

/* The GPU targets (issue #4): remote against native and against raw TCP. */
static void print_native_targets(const struct bench_results *r, int h, int n)
{
    printf("\n== Targets against native (GPU) ==\n");
    const struct launch_result *sh = &r->spin[h], *sn = &r->spin[n];
    double q = sh->ok && sn->ok ? sh->complete_per_s / sn->complete_per_s : -1;
    printf("[%-6s] 5 us kernels, fire-and-forget: remote >= %.0f%% of native: %.1f%%\n",
           verdict(q >= 0, q >= TARGET_NATIVE_SPIN_RATIO), TARGET_NATIVE_SPIN_RATIO * 100, q * 100);
    const struct launch_result *eh = &r->launch[h], *en = &r->launch[n];
    q = eh->ok && en->ok ? eh->complete_per_s / en->complete_per_s : -1;
    printf("[%-6s] empty kernels: remote >= %.0f%% of native: %.1f%%\n",
           verdict(q >= 0, q >= TARGET_NATIVE_EMPTY_RATIO), TARGET_NATIVE_EMPTY_RATIO * 100,
           q * 100);
    int ok = r->raw_rtt_ok && r->probe_ok[h][PROBE_DEVICE_SYNC];
    double over = ok ? r->probe[h][PROBE_DEVICE_SYNC].p50_us - r->raw_rtt.p50_us : 0;
    printf("[%-6s] synchronize round trip <= raw TCP RTT + %.0f us: hipDeviceSynchronize p50 "
           "%.2f us = raw %.2f us %+.2f us\n",
           verdict(ok, over <= TARGET_NATIVE_SYNC_US), TARGET_NATIVE_SYNC_US,
           ok ? r->probe[h][PROBE_DEVICE_SYNC].p50_us : 0, ok ? r->raw_rtt.p50_us : 0, over);
    for (int d = 0; d < DIR_COUNT; d++)
        for (int m = 0; m < MEM_COUNT; m++) {
            double worst = -1, log_sum = 0;
            size_t worst_size = 0;
            int measured = 0;
            for (size_t i = 0; i < r->nsizes; i++) {
                double v = ratio(r->gbps[h][d][m][i], r->raw_gbps[d][i]);
                if (r->sizes[i] < TARGET_BW_FROM_SIZE || v < 0)
                    continue;
                measured++;
                log_sum += log(v);
                if (worst < 0 || v < worst) {
                    worst = v;
                    worst_size = r->sizes[i];
                }
            }
            char label[32];
            size_label(label, sizeof label, worst_size);
            printf("[%-6s] %s %-8s >= %.0f%% of raw TCP from 1 MiB: worst %.0f%% at %s, "
                   "geometric mean %.0f%%\n",
                   verdict(measured, worst >= TARGET_NATIVE_BW_RATIO), dir_names[d], mem_names[m],
                   TARGET_NATIVE_BW_RATIO * 100, worst * 100, measured ? label : "-",
                   measured ? 100 * exp(log_sum / measured) : 0.0);
        }
}

static void print_bandwidth(const struct bench_results *r)
{
    printf("\n== 3. Copy bandwidth: hipMemcpy vs the same payloads over raw TCP "
           "(GB/s = 1e9 B/s, median transfer) ==\n");
    printf("(H2D sample: hipMemcpy + hipDeviceSynchronize, raw: push + 24 B ack; "
           "D2H sample: hipMemcpy, raw: 24 B request + pull)\n");
    for (int t = 0; t < r->ntargets; t++) {
        const char *name = r->targets[t]->name;
        printf("%-8s %6s | %7s %7s |", "", "", "raw TCP", "");
        for (int d = 0; d < DIR_COUNT; d++)
            printf(" %-7s %-3s %-20s |", name, dir_names[d], "");
        printf("\n%-8s %6s | %7s %7s |", "size", "iters", "push", "pull");
        for (int d = 0; d < DIR_COUNT; d++)
            for (int m = 0; m < MEM_COUNT; m++)
                printf(" %8s %4s%s", mem_names[m], "/raw", m == MEM_COUNT - 1 ? " |" : "");
        printf("\n");
        for (size_t i = 0; i < r->nsizes; i++) {
            char label[32], push[16], pull[16];
            size_label(label, sizeof label, r->sizes[i]);
            cell(push, sizeof push, "%.3f", r->raw_gbps[DIR_H2D][i]);
            cell(pull, sizeof pull, "%.3f", r->raw_gbps[DIR_D2H][i]);
            printf("%-8s %6zu | %7s %7s |", label, r->iterations[i], push, pull);
            for (int d = 0; d < DIR_COUNT; d++)
                for (int m = 0; m < MEM_COUNT; m++) {
                    char v[16], q[16];
                    cell(v, sizeof v, "%.3f", r->gbps[t][d][m][i]);
                    cell(q, sizeof q, "%.2f", ratio(r->gbps[t][d][m][i], r->raw_gbps[d][i]));
                    printf(" %8s %4s%s", v, q, m == MEM_COUNT - 1 ? " |" : "");
                }
            printf("\n");
        }
    }
}

/* Targets apply to the remote path only; a native column is the yardstick. */
static void print_targets(const struct bench_results *r)
{
    printf("\n== Targets ==\n");
    for (int t = 0; t < r->ntargets; t++) {
        if (strcmp(r->targets[t]->name, "hipwire") != 0)
            continue;
        double q = ratio(r->probe[t][PROBE_STREAM_QUERY].p50_us, r->raw_rtt.p50_us);
        double m = ratio(r->probe[t][PROBE_MEM_INFO].p50_us, r->raw_rtt.p50_us);
        int rtt_ok =
            r->probe_ok[t][PROBE_STREAM_QUERY] && r->probe_ok[t][PROBE_MEM_INFO] && r->raw_rtt_ok;
        int met = rtt_ok && q <= TARGET_SYNC_RTT_RATIO && m <= TARGET_SYNC_RTT_RATIO;
        printf("[%-6s] sync call p50 <= %.1f x raw RTT p50: hipStreamQuery %.2fx, "
               "hipMemGetInfo %.2fx\n",
               !rtt_ok ? "n/a"
               : met   ? "MET"
                       : "MISSED",
               TARGET_SYNC_RTT_RATIO, q, m);

        const struct launch_result *l = &r->launch[t];
        printf("[%-6s] enqueue >= %.0f launches/s: %.0f/s (worker completes %.0f/s)\n",
               !l->ok                                     ? "n/a"
               : l->enqueue_per_s >= TARGET_ENQUEUE_PER_S ? "MET"
                                                          : "MISSED",
               TARGET_ENQUEUE_PER_S, l->enqueue_per_s, l->complete_per_s);

        for (int d = 0; d < DIR_COUNT; d++)
            for (int k = 0; k < MEM_COUNT; k++) {
                double worst = -1, log_sum = 0;
                size_t worst_size = 0;
                int measured = 0;
                for (size_t i = 0; i < r->nsizes; i++) {
                    if (r->sizes[i] < TARGET_BW_FROM_SIZE)
                        continue;
                    double q2 = ratio(r->gbps[t][d][k][i], r->raw_gbps[d][i]);
                    if (q2 < 0)
                        continue;
                    measured++;
                    log_sum += log(q2);
                    if (worst < 0 || q2 < worst) {
                        worst = q2;
                        worst_size = r->sizes[i];
                    }
                }
                char label[32];
                size_label(label, sizeof label, worst_size);
                /* The verdict takes the worst size, as the target is stated; the
                 * geometric mean tells one noisy size from a systematic loss. */
                printf("[%-6s] %s %-8s >= %.0f%% of raw from 1 MiB: worst %.0f%% at %s, "
                       "geometric mean %.0f%%\n",
                       !measured                  ? "n/a"
                       : worst >= TARGET_BW_RATIO ? "MET"
                                                  : "MISSED",
                       dir_names[d], mem_names[k], TARGET_BW_RATIO * 100, worst * 100,
                       measured ? label : "-", measured ? 100 * exp(log_sum / measured) : 0.0);
            }
    }
    if (r->failures)
        printf("%d measurement(s) could not run; see the messages above\n", r->failures);
}

void report_print(const struct bench_results *r)
{
    print_header(r);
    if (r->only_section == 0 || r->only_section == 1)
        print_round_trips(r);
    if (r->only_section == 0 || r->only_section == 2)
        print_launches(r);
    if (r->only_section == 0 || r->only_section == 3)
        print_bandwidth(r);
    if (r->only_section == 0 || r->only_section == 4)
        print_alloc(r);
    int h = find_target(r, "hipwire"), n = find_target(r, "native");
    if (r->only_section == 0 && h >= 0 && n >= 0)
        print_side_by_side(r, h, n);
    if (r->only_section == 0)
        print_targets(r);
    if (r->only_section == 0 && h >= 0 && n >= 0)
        print_native_targets(r, h, n);
}

/* ---- JSON ------------------------------------------------------------------ */

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", (unsigned char)*s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

/* JSON has no NaN: an unmeasured value is null. */
static void json_number(FILE *f, double v)
{
    if (v < 0)
        fprintf(f, "null");
    else
        fprintf(f, "%.6g", v);
}

static void json_stats(FILE *f, const struct stats *st, int ok)
{
    if (!ok) {
        fprintf(f, "null");
        return;
    }
    fprintf(f,
            "{\"samples\": %zu, \"min_us\": %.3f, \"p50_us\": %.3f, \"p99_us\": %.3f, "
            "\"mean_us\": %.3f, \"max_us\": %.3f}",
            st->n, st->min_us, st->p50_us, st->p99_us, st->mean_us, st->max_us);
}

int report_write_json(const struct bench_results *r, const char *path)
{
    static const char *const probe_keys[PROBE_COUNT] = { "hipGetDevice", "hipStreamQuery",
                                                         "hipMemGetInfo", "hipDeviceSynchronize" };
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "{\n  \"date\": ");
    json_string(f, r->date);
    fprintf(f, ",\n  \"machine\": ");
    json_string(f, r->host);
    fprintf(f, ",\n  \"cpu\": ");
    json_string(f, r->cpu);
    fprintf(f, ",\n  \"cpus\": %d,\n  \"build_type\": ", r->cpus);
    json_string(f, r->build_type);
    fprintf(f, ",\n  \"loadavg\": ");
    json_string(f, r->loadavg);
    fprintf(f, ",\n  \"quick\": %s,\n  \"raw_rtt\": ", r->quick ? "true" : "false");
    json_stats(f, &r->raw_rtt, r->raw_rtt_ok);
    fprintf(f, ",\n  \"raw_gbps\": {");
    for (int d = 0; d < DIR_COUNT; d++) {
        fprintf(f, "%s\"%s\": [", d ? ", " : "", dir_names[d]);
        for (size_t i = 0; i < r->nsizes; i++) {
            fprintf(f, "%s", i ? ", " : "");
            json_number(f, r->raw_gbps[d][i]);
        }
        fprintf(f, "]");
    }
    fprintf(f, "},\n  \"sizes\": [");
    for (size_t i = 0; i < r->nsizes; i++)
        fprintf(f, "%s%zu", i ? ", " : "", r->sizes[i]);
    fprintf(f, "],\n  \"targets\": [");
    for (int t = 0; t < r->ntargets; t++) {
        fprintf(f, "%s\n    {\"name\": ", t ? "," : "");
        json_string(f, r->targets[t]->name);
        fprintf(f, ", \"device\": ");
        json_string(f, r->device[t]);
        fprintf(f, ",\n     \"round_trip\": {");
        for (int k = 0; k < PROBE_COUNT; k++) {
            fprintf(f, "%s\"%s\": ", k ? ", " : "", probe_keys[k]);
            json_stats(f, &r->probe[t][k], r->probe_ok[t][k]);
        }
        for (int k = 0; k < 2; k++) {
            const struct launch_result *l = k ? &r->spin[t] : &r->launch[t];
            fprintf(f, "%s\"%s\": ", k ? ",\n     " : "},\n     ", k ? "launch_spin" : "launch");
            if (l->ok)
                fprintf(f,
                        "{\"kernel_us\": %.3f, \"launches\": %zu, \"repetitions\": %d, "
                        "\"enqueue_per_s\": %.0f, \"complete_per_s\": %.0f}",
                        l->kernel_us, l->launches, l->repetitions, l->enqueue_per_s,
                        l->complete_per_s);
            else
                fprintf(f, "null");
        }
        fprintf(f, ",\n     \"alloc_free_pairs_per_s\": ");
        json_number(f, r->alloc_ok[t] ? r->alloc_per_s[t] : -1);
        fprintf(f, ",\n     \"gbps\": {");
        for (int d = 0; d < DIR_COUNT; d++)
            for (int m = 0; m < MEM_COUNT; m++) {
                fprintf(f, "%s\"%s_%s\": [", d || m ? ", " : "", dir_names[d], mem_names[m]);
                for (size_t i = 0; i < r->nsizes; i++) {
                    fprintf(f, "%s", i ? ", " : "");
                    json_number(f, r->gbps[t][d][m][i]);
                }
                fprintf(f, "]");
            }
        fprintf(f, "}}");
    }
    fprintf(f, "\n  ],\n  \"failures\": %d\n}\n", r->failures);
    return fclose(f) == 0 ? 0 : -1;
}
