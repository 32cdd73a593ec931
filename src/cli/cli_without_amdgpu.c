/* Used only when src/amdgpu is not in the tree: the commands that read the
 * KFD topology say so instead of failing to link. */
#include <stdio.h>

#include "commands.h"
#include "node.h"

static int not_built(const char *what) {
    fprintf(stderr, "hipwire: '%s' needs src/amdgpu, which is not in this tree\n", what);
    return CLI_EXIT_FAILURE;
}

int node_check(int argc, char **argv) { (void)argc; (void)argv; return not_built("node check"); }
int node_labels(int argc, char **argv) { (void)argc; (void)argv; return not_built("node labels"); }
int cli_partition(int argc, char **argv) { (void)argc; (void)argv; return not_built("partition"); }
