/* `hipwire node check|setup|labels`. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "node.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: hipwire node <check|setup|labels> [options]\n"
                 "  check   is this node ready to share its AMD GPUs? (--json)\n"
                 "  setup   udev rules, module loading, ROCm install (dry run; --apply)\n"
                 "  labels  Kubernetes node labels (--json, --kubectl, --apply [--node NAME])\n");
}

int cli_node(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *sub = argv[1];
    if (strcmp(sub, "check") == 0)
        return node_check(argc - 1, argv + 1);
    if (strcmp(sub, "setup") == 0)
        return node_setup(argc - 1, argv + 1);
    if (strcmp(sub, "labels") == 0)
        return node_labels(argc - 1, argv + 1);
    if (strcmp(sub, "-h") == 0 || strcmp(sub, "--help") == 0) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    fprintf(stderr, "hipwire: node: unknown subcommand '%s'\n", sub);
    usage(stderr);
    return CLI_EXIT_USAGE;
}
