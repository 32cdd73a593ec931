#include "ext_command.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static bool is_executable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int ext_command_find(const char *name, char *path, size_t size)
{
    if (strchr(name, '/'))
        return -1; /* only bare names: the lookup is the policy */
    const char *bin_dir = getenv("HIPWIRE_NODE_BIN_DIR");
    if (bin_dir && *bin_dir) {
        int n = snprintf(path, size, "%s/%s", bin_dir, name);
        return (n > 0 && (size_t)n < size && is_executable_file(path)) ? 0 : -1;
    }
    const char *env = getenv("PATH");
    if (!env || !*env)
        env = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    const char *p = env;
    while (*p) {
        const char *colon = strchr(p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        if (len > 0) {
            int n = snprintf(path, size, "%.*s/%s", (int)len, p, name);
            if (n > 0 && (size_t)n < size && is_executable_file(path))
                return 0;
        }
        if (!colon)
            break;
        p = colon + 1;
    }
    return -1;
}

bool ext_command_available(const char *name)
{
    char path[4096];
    return ext_command_find(name, path, sizeof(path)) == 0;
}

static bool needs_quotes(const char *s)
{
    if (!*s)
        return true;
    for (; *s; s++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                    "-_./:=,+@%",
                    *s))
            return true;
    return false;
}

void ext_command_print(FILE *out, const char *const argv[])
{
    for (size_t i = 0; argv[i]; i++) {
        if (i)
            fputc(' ', out);
        if (!needs_quotes(argv[i])) {
            fputs(argv[i], out);
            continue;
        }
        fputc('\'', out);
        for (const char *c = argv[i]; *c; c++) {
            if (*c == '\'')
                fputs("'\\''", out);
            else
                fputc(*c, out);
        }
        fputc('\'', out);
    }
    fputc('\n', out);
}

int ext_command_run(const char *const argv[])
{
    char path[4096];
    if (ext_command_find(argv[0], path, sizeof(path)) < 0) {
        fprintf(stderr, "hipwire: %s: command not found%s\n", argv[0],
                getenv("HIPWIRE_NODE_BIN_DIR") ? " in HIPWIRE_NODE_BIN_DIR" : "");
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "hipwire: fork: %s\n", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        execv(path, (char *const *)argv);
        fprintf(stderr, "hipwire: exec %s: %s\n", path, strerror(errno));
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "hipwire: waitpid: %s\n", strerror(errno));
            return -1;
        }
    }
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}
