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

static void print_latency_row(const char *call, const char *target, const struct stats *st,
                              int ok, const struct stats *raw)
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
    printf("machine: %s, %d CPUs, %s; build: %s; load average at start: %s\n", r->host,
           r->cpus, r->cpu, r->build_type, r->loadavg);
    for (int t = 0; t < r->ntargets; t++)
        printf("%-8s %s\n", r->targets[t]->name, r->device[t]);
    printf("raw:     loopback TCP, forked server, TCP_NODELAY and 4 MiB socket buffers "
           "(hipwire's settings)\n");
}

static void print_round_trips(const struct bench_results *r)
{
    printf("\n== 1. Synchronous call round trip (microseconds; ratios against the raw echo) ==\n");
    printf("%-24s %-8s %9s %9s %9s %9s %9s %8s %8s\n", "call", "target", "samples", "min",
           "p50", "p99", "mean", "p50/raw", "mean/raw");
    print_latency_row("raw TCP echo, 24 B", "raw", &r->raw_rtt, r->raw_rtt_ok, &r->raw_rtt);
    for (int t = 0; t < r->ntargets; t++)
        for (int k = 0; k < PROBE_COUNT; k++)
            print_latency_row(bench_probe_names[k], r->targets[t]->name, &r->probe[t][k],
                              r->probe_ok[t][k], &r->raw_rtt);
    printf("(hipGetDevice is timed 100 calls at a time: it never leaves the process)\n");
}

static void print_launches(const struct bench_results *r)
{
    printf("\n== 2. Fire-and-forget kernel launches (hipModuleLaunchKernel of `empty`, "
           "1x1 grid, default stream) ==\n");
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
            const struct launch_result *l = &r->launch[t];
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
    printf("(enqueue: the launch loop alone; completion: first launch to the end of the "
           "hipDeviceSynchronize after the last; median of the repetitions)\n");
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
        int rtt_ok = r->probe_ok[t][PROBE_STREAM_QUERY] && r->probe_ok[t][PROBE_MEM_INFO] &&
                     r->raw_rtt_ok;
        int met = rtt_ok && q <= TARGET_SYNC_RTT_RATIO && m <= TARGET_SYNC_RTT_RATIO;
        printf("[%-6s] sync call p50 <= %.1f x raw RTT p50: hipStreamQuery %.2fx, "
               "hipMemGetInfo %.2fx\n",
               !rtt_ok ? "n/a" : met ? "MET" : "MISSED", TARGET_SYNC_RTT_RATIO, q, m);

        const struct launch_result *l = &r->launch[t];
        printf("[%-6s] enqueue >= %.0f launches/s: %.0f/s (worker completes %.0f/s)\n",
               !l->ok ? "n/a" : l->enqueue_per_s >= TARGET_ENQUEUE_PER_S ? "MET" : "MISSED",
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
                       !measured ? "n/a" : worst >= TARGET_BW_RATIO ? "MET" : "MISSED",
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
    if (r->only_section == 0)
        print_targets(r);
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
    fprintf(f, "{\"samples\": %zu, \"min_us\": %.3f, \"p50_us\": %.3f, \"p99_us\": %.3f, "
               "\"mean_us\": %.3f, \"max_us\": %.3f}",
            st->n, st->min_us, st->p50_us, st->p99_us, st->mean_us, st->max_us);
}

int report_write_json(const struct bench_results *r, const char *path)
{
    static const char *const probe_keys[PROBE_COUNT] = { "hipGetDevice", "hipStreamQuery",
                                                         "hipMemGetInfo",
                                                         "hipDeviceSynchronize" };
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
        const struct launch_result *l = &r->launch[t];
        fprintf(f, "},\n     \"launch\": ");
        if (l->ok)
            fprintf(f, "{\"launches\": %zu, \"repetitions\": %d, \"enqueue_per_s\": %.0f, "
                       "\"complete_per_s\": %.0f}",
                    l->launches, l->repetitions, l->enqueue_per_s, l->complete_per_s);
        else
            fprintf(f, "null");
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
