/* hw_cli.h - the two arguments every hipwire binary answers the same way:
 * --help (usage on stdout, exit 0) and --version. For tools whose own
 * parsing has no place for them; hip-worker and hipwire parse them too. */
#ifndef HW_CLI_H
#define HW_CLI_H

#include <stdio.h>
#include <string.h>

#ifndef HIPWIRE_VERSION
#error "HIPWIRE_VERSION comes from CMake (project version)"
#endif

/* 1 when argv[1] was --help/-h or --version and was answered (the caller
 * returns 0), else 0. */
static inline int hw_cli_help_version(int argc, char **argv, const char *prog, const char *usage)
{
    if (argc < 2)
        return 0;
    if (strcmp(argv[1], "--version") == 0) {
        printf("%s %s\n", prog, HIPWIRE_VERSION);
        return 1;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(usage, stdout);
        return 1;
    }
    return 0;
}

#endif
