/* hw_config.h - a config file whose keys are a program's long option names.
 *
 * Each line is `name = value`, `name value` or a bare `name` (an option that
 * takes no argument; `name = true|false` too); `#` starts a comment. The file
 * becomes `--name value` arguments placed before the command line's, so a flag
 * given on the command line overrides the file (getopt keeps the last value).
 * The keys are checked against the option table: an unknown key, a missing
 * value or a value for a flag is an error that names the line. */
#ifndef HW_CONFIG_H
#define HW_CONFIG_H

#include <getopt.h>
#include <stddef.h>

/* Finds `--config FILE` / `--config=FILE` in argv and returns a new argv:
 * argv[0], the file's arguments, then argv[1..] without the --config pair.
 * Without --config, *out_argv is argv itself and nothing is allocated.
 * opts: the program's getopt_long table ("config" itself may be in it).
 * Returns 0, or -1 with the reason in err; *out_argc and *out_argv are untouched
 * on failure. Free with hw_config_free(). */
int hw_config_expand(int argc, char **argv, const struct option *opts, int *out_argc,
                     char ***out_argv, char *err, size_t err_size);

/* Frees what hw_config_expand allocated (a no-op for the original argv). */
void hw_config_free(char **new_argv, char **orig_argv);

#endif
