/* hipwire: the node-side command line. Subcommands live in their own files;
 * this table is the only place that lists them. */
#include <stdio.h>
#include <string.h>

#include "commands.h"

#ifndef HIPWIRE_VERSION
#define HIPWIRE_VERSION "unknown"
#endif

typedef struct subcommand {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} subcommand;

static const subcommand subcommands[] = {
    { "node", cli_node, "check, prepare and label this node (check|setup|labels)" },
    { "partition", cli_partition, "MI300-class partition modes (show|set|reset)" },
    { "devices", cli_devices, "list the AMD GPUs and logical devices the provider sees" },
    { "metrics", cli_metrics, "GPU metrics with TensorFusion's names (Prometheus or InfluxDB)" },
    { "status", cli_status, "health, sessions and memory of the hip-workers (TF_WORKER_HOST)" },
    { "drain", cli_drain, "stop a hip-worker admitting sessions; it exits when they end" },
};

static void usage(FILE *out)
{
    fprintf(out, "usage: hipwire <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
        fprintf(out, "  %-10s %s\n", subcommands[i].name, subcommands[i].summary);
    fprintf(out,
            "\n'hipwire <command> --help' describes a command.\n"
            "HIPWIRE_HOST_ROOT=DIR reads (and with --apply writes) the host tree under DIR.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("hipwire %s\n", HIPWIRE_VERSION);
        return CLI_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
        if (strcmp(cmd, subcommands[i].name) == 0)
            return subcommands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "hipwire: unknown command '%s'\n\n", cmd);
    usage(stderr);
    return CLI_EXIT_USAGE;
}
