/* test_exports_procaddr PROXY LIST HIPVERSION: opens the proxy (which it is
 * also linked with, so dlopen returns the loaded copy) and, for
 * each "name node" line of LIST (every function the headers declare, from
 * check_decls.py), checks that name@node is defined, that it is the default
 * version dlsym finds, and that hipGetProcAddress returns the same address.
 * Then the call's own rules for the headers of HIPVERSION (major*100+minor):
 * bad arguments, unknown names, the R0600 mapping and, where the headers
 * define the flag constants (or predate the call), the flags. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dlvsym */
#endif
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* hipGetProcAddress's ABI: hipError_t (int), the status an enum (int). */
typedef int (*proc_fn)(const char *, void **, int, uint64_t, int *);

enum { OK = 0, INVALID_VALUE = 1, FOUND = 0, NOT_FOUND = 1 };
enum { FLAG_DEFAULT = 0, FLAG_LEGACY = 1, FLAG_PER_THREAD = 2 };

static int failures;

#define CHECK(cond, ...)                           \
    do {                                           \
        if (!(cond)) {                             \
            fprintf(stderr, "FAIL: " __VA_ARGS__); \
            fputc('\n', stderr);                   \
            failures++;                            \
        }                                          \
    } while (0)

static void *sym(void *h, const char *name)
{
    void *p = dlsym(h, name);
    CHECK(p != NULL, "dlsym %s", name);
    return p;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s PROXY.so LIST HIPVERSION\n", argv[0]);
        return 2;
    }
    int hipver = atoi(argv[3]);
    /* HIP 6.1/6.2 ignore flags; 7 checks them; before 6.1 hipwire uses 7's. */
    int flags_checked = !(hipver >= 601 && hipver < 700);
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        fprintf(stderr, "FAIL: dlopen %s: %s\n", argv[1], dlerror());
        return 1;
    }
    proc_fn gpa, gpa_spt;
    void *p = sym(h, "hipGetProcAddress"), *q = sym(h, "hipGetProcAddress_spt");
    if (!p || !q)
        return 1;
    memcpy(&gpa, &p, sizeof p);
    memcpy(&gpa_spt, &q, sizeof q);

    FILE *f = fopen(argv[2], "r");
    if (f == NULL) {
        perror(argv[2]);
        return 1;
    }
    char name[400], node[64];
    int n = 0;
    while (fscanf(f, "%399s %63s", name, node) == 2) {
        n++;
        void *v = dlvsym(h, name, node), *d = dlsym(h, name), *got = NULL;
        int status = -1;
        CHECK(v != NULL, "%s@%s not defined", name, node);
        CHECK(v == d, "%s: dlsym %p is not %s@%s %p", name, d, name, node, v);
        int rc = gpa(name, &got, hipver, FLAG_DEFAULT, &status);
        CHECK(rc == OK && status == FOUND, "hipGetProcAddress(%s) = %d, status %d", name, rc,
              status);
        CHECK(got == d, "hipGetProcAddress(%s) = %p, dlsym %p", name, got, d);
    }
    fclose(f);
    CHECK(n > 300, "only %d names listed", n);

    /* Bad arguments and unknown names: hipErrorInvalidValue. */
    void *got = (void *)&got;
    int status = -1;
    CHECK(gpa(NULL, &got, hipver, 0, &status) == INVALID_VALUE, "NULL symbol");
    CHECK(gpa("", &got, hipver, 0, &status) == INVALID_VALUE, "empty symbol");
    CHECK(gpa("hipMalloc", NULL, hipver, 0, &status) == INVALID_VALUE, "NULL pfn");
    CHECK(gpa("hipNoSuchFunction", &got, hipver, 0, &status) == INVALID_VALUE && got == NULL &&
              status == NOT_FOUND,
          "unknown name: pfn %p status %d", got, status);
    CHECK(gpa("hipMalloc", &got, hipver, 0, NULL) == OK && got == dlsym(h, "hipMalloc"),
          "status is optional");

    /* hipVersion >= 600 asks for the R0600 ABI of the calls whose struct changed. */
    const char *pairs[][2] = { { "hipGetDeviceProperties", "hipGetDevicePropertiesR0600" },
                               { "hipChooseDevice", "hipChooseDeviceR0600" } };
    for (int i = 0; i < 2; i++) {
        void *r0600 = dlsym(h, pairs[i][1]);
        got = NULL;
        int rc = gpa(pairs[i][0], &got, 600, FLAG_PER_THREAD, &status);
        if (r0600 != NULL)
            CHECK(rc == OK && got == r0600, "%s at 600 gave %p, want %s", pairs[i][0], got,
                  pairs[i][1]);
        else
            CHECK(rc == INVALID_VALUE && status == NOT_FOUND, "%s at 600 without R0600",
                  pairs[i][0]);
        CHECK(gpa(pairs[i][0], &got, 502, 0, &status) == OK && got == dlsym(h, pairs[i][0]),
              "%s at 502 is the plain symbol", pairs[i][0]);
    }

    /* Flags: the per-thread flag picks the _spt variant, falling back to the
     * plain name; an unknown flag is an invalid value. */
    void *memcpy_plain = sym(h, "hipMemcpy"), *memcpy_spt = sym(h, "hipMemcpy_spt");
    got = NULL;
    CHECK(gpa("hipMemcpy", &got, hipver, FLAG_LEGACY, &status) == OK && got == memcpy_plain,
          "legacy flag");
    got = NULL;
    int rc = gpa("hipMemcpy", &got, hipver, FLAG_PER_THREAD, &status);
    CHECK(rc == OK && got == (flags_checked ? memcpy_spt : memcpy_plain), "per-thread flag");
    got = NULL;
    rc = gpa("hipGetDeviceCount", &got, hipver, FLAG_PER_THREAD, &status);
    CHECK(rc == OK && got == dlsym(h, "hipGetDeviceCount"), "per-thread flag, no _spt");
    got = NULL;
    rc = gpa("hipMemcpy", &got, hipver, 7, &status);
    CHECK(flags_checked ? rc == INVALID_VALUE : (rc == OK && got == memcpy_plain),
          "unknown flag: rc %d", rc);
    got = NULL;
    rc = gpa_spt("hipMemcpy", &got, hipver, FLAG_DEFAULT, &status);
    CHECK(rc == OK && got == (flags_checked ? memcpy_spt : memcpy_plain),
          "hipGetProcAddress_spt default flag");

    dlclose(h);
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("%d declared functions resolve through dlvsym, dlsym and hipGetProcAddress\n", n);
    return 0;
}
