/* The `hipwire` subcommands. Each takes argv starting at its own name
 * (argv[0] = "node", ...) and returns the process exit status. */
#ifndef HIPWIRE_CLI_COMMANDS_H
#define HIPWIRE_CLI_COMMANDS_H

int cli_node(int argc, char **argv);
int cli_partition(int argc, char **argv);
int cli_devices(int argc, char **argv);
int cli_metrics(int argc, char **argv);
int cli_status(int argc, char **argv);
int cli_drain(int argc, char **argv);

/* Exit statuses shared by the subcommands. */
enum {
    CLI_EXIT_OK = 0,
    CLI_EXIT_FAILURE = 1, /* the thing asked for failed or the node is not ready */
    CLI_EXIT_USAGE = 2,
};

#endif
