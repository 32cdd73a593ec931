/* Running external tools (udevadm, modprobe, kubectl, apt-get, ...).
 *
 * HIPWIRE_NODE_BIN_DIR, when set, is the only place tools are looked up: the
 * tests point it at recording stubs so they can check the exact argv without
 * touching this machine. Otherwise PATH is searched. */
#ifndef HIPWIRE_CLI_EXT_COMMAND_H
#define HIPWIRE_CLI_EXT_COMMAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Finds an executable by name. Returns 0 and fills path, or -1. */
int ext_command_find(const char *name, char *path, size_t size);
bool ext_command_available(const char *name);

/* Prints argv as one shell-quoted command line. */
void ext_command_print(FILE *out, const char *const argv[]);

/* Runs argv[0] (looked up as above) and waits. Returns the exit status, or
 * -1 when it cannot be started (message on stderr). */
int ext_command_run(const char *const argv[]);

#endif
