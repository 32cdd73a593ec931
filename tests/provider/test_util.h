/*
 * test_util.h - tiny assertion helpers and fixture host roots for the
 * provider/amdgpu tests.
 */
#ifndef HIPWIRE_TEST_UTIL_H
#define HIPWIRE_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_failures;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            test_failures++;                                                         \
        }                                                                            \
    } while (0)

#define CHECK_EQ_U(a, b)                                                                           \
    do {                                                                                           \
        unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b);             \
        if (a_ != b_) {                                                                            \
            fprintf(stderr, "%s:%d: %s == %llu, expected %llu\n", __FILE__, __LINE__, #a, a_, b_); \
            test_failures++;                                                                       \
        }                                                                                          \
    } while (0)

#define CHECK_STR(a, b)                                                                           \
    do {                                                                                          \
        const char *a_ = (a), *b_ = (b);                                                          \
        if (strcmp(a_, b_) != 0) {                                                                \
            fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #a, a_, \
                    b_);                                                                          \
            test_failures++;                                                                      \
        }                                                                                         \
    } while (0)

/* Build a fresh host root from tests/fixtures/NAME in a temp dir, point
 * HIPWIRE_HOST_ROOT (and the provider state file) at it. out: 256 bytes. */
static inline void make_host_root(const char *fixtures, const char *name, char *out)
{
    char cmd[1024];
    snprintf(out, 256, "/tmp/hipwire-test-XXXXXX");
    if (mkdtemp(out) == NULL) {
        perror("mkdtemp");
        exit(2);
    }
    snprintf(cmd, sizeof(cmd), "sh '%s/make-host-root.sh' '%s' '%s'", fixtures, name, out);
    if (system(cmd) != 0) {
        fprintf(stderr, "cannot build host root: %s\n", cmd);
        exit(2);
    }
    setenv("HIPWIRE_HOST_ROOT", out, 1);
    char state[300];
    snprintf(state, sizeof(state), "%s/state/accelerator_amd.state", out);
    setenv("HIPWIRE_PROVIDER_STATE", state, 1);
}

static inline void remove_tree(const char *dir)
{
    char cmd[400];
    if (strncmp(dir, "/tmp/hipwire-test-", 18) != 0)
        return;
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}

/* Write text to root + rel (creating nothing else). */
static inline void write_file(const char *root, const char *rel, const char *text)
{
    char path[600];
    snprintf(path, sizeof(path), "%s%s", root, rel);
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        perror(path);
        exit(2);
    }
    fputs(text, f);
    fclose(f);
}

static inline int test_report(const char *name)
{
    if (test_failures) {
        fprintf(stderr, "%s: %d check(s) failed\n", name, test_failures);
        return 1;
    }
    printf("%s: ok\n", name);
    return 0;
}

#endif
