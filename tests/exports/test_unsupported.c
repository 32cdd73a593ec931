/* exports_unsupported_*: hw_api_unsupported() returns hipErrorNotSupported
 * and reports each name once however many threads call it, with bounded
 * memory: by default and under TF_DEBUG=1 (even with TF_QUIET=1), never
 * under TF_QUIET=1 alone.  argv[1] is "report" or "quiet" (the ctest
 * entries set the environment accordingly). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api_unsupported.h"

/* api_unsupported.c looks names up in the generated table; this test
 * links only that file, so give it an empty table. */
#include "generated/exports.h"
const struct hw_export hw_export_table[1] = { { "", "", NULL } };
const size_t hw_export_count = 0;

/* What each report says after the name: what happens, and what to do. */
#define TAIL                                                                                  \
    " is not supported yet and fails (hipErrorNotSupported); see docs/client.md (TF_QUIET=1 " \
    "silences this)\n"

static int bad_returns;

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 200; i++) {
        /* Fresh copies: reports must be keyed by content, not pointer. */
        char a[] = "hipFooBar", b[] = "hipBazQux";
        if (hw_api_unsupported(i % 2 ? a : b) != hipErrorNotSupported)
            bad_returns++;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int report = argc > 1 && strcmp(argv[1], "report") == 0;
    FILE *cap = tmpfile();
    if (cap == NULL || dup2(fileno(cap), 2) < 0)
        return 1;
    pthread_t t[8];
    for (int i = 0; i < 8; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < 8; i++)
        pthread_join(t[i], NULL);
    /* Far more distinct names than the dedupe table holds. */
    char name[32];
    for (int i = 0; i < 3000; i++) {
        snprintf(name, sizeof(name), "hipGenerated%d", i);
        hw_api_unsupported(name);
        hw_api_unsupported(name);
    }
    fflush(stderr);
    rewind(cap);
    char line[512];
    int foo = 0, baz = 0, supported = 0, full = 0, other = 0;
    while (fgets(line, sizeof(line), cap) != NULL) {
        if (strcmp(line, "hipwire: hipFooBar" TAIL) == 0)
            foo++;
        else if (strcmp(line, "hipwire: hipBazQux" TAIL) == 0)
            baz++;
        else if (strncmp(line, "hipwire: hipGenerated", 21) == 0)
            supported++;
        else if (strstr(line, "not reporting more") != NULL)
            full++;
        else
            other++;
    }
    int ok = bad_returns == 0 && other == 0 &&
             (report ? foo == 1 && baz == 1 && full == 1 && supported > 500 && supported < 3000
                     : foo == 0 && baz == 0 && full == 0 && supported == 0);
    printf("%s: foo=%d baz=%d generated=%d full=%d other=%d bad_returns=%d\n", ok ? "PASS" : "FAIL",
           foo, baz, supported, full, other, bad_returns);
    return ok ? 0 : 1;
}
