/* Stand-in for `hipwire devices` when the provider's cmd_devices.c is not in
 * the tree: the command stays listed and says so instead of vanishing. */
#include <stdio.h>

#include "commands.h"

int cli_devices(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "hipwire: 'devices' is not built in this tree (src/cli/cmd_devices.c is missing)\n");
    return CLI_EXIT_FAILURE;
}
