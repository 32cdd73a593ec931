/* The `hipwire node` subcommands (dispatched by cmd_node.c). */
#ifndef HIPWIRE_CLI_NODE_H
#define HIPWIRE_CLI_NODE_H

int node_check(int argc, char **argv);
int node_setup(int argc, char **argv);
int node_labels(int argc, char **argv);

#endif
