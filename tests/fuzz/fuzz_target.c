/*
 * fuzz_target.c - libFuzzer entry point for the worker's request path
 * (fuzz_session.h describes the input format).
 *
 * The session under test owns SIGALRM and its interval timer (the
 * handshake deadline), which silences libFuzzer's own -timeout. A watchdog
 * thread stands in for it: an input that runs longer than INPUT_LIMIT_S
 * aborts with a message, so libFuzzer saves it as a crash instead of the
 * whole run hanging until ctest's timeout.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz_session.h"
#include "hw_time.h"

#define INPUT_LIMIT_S 30

static _Atomic long long input_started; /* hw_now_ms() at its start; 0 between inputs */

static void *watchdog(void *arg)
{
    (void)arg;
    for (;;) {
        sleep(1);
        long long t = input_started;
        if (t != 0 && (long long)hw_now_ms() - t > INPUT_LIMIT_S * 1000LL) {
            fprintf(stderr,
                    "fuzz_target: one input has run for over %d s: aborting so that "
                    "libFuzzer keeps it as a crash\n",
                    INPUT_LIMIT_S);
            abort();
        }
    }
    return NULL;
}

static void start_watchdog(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, watchdog, NULL) == 0)
        pthread_detach(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, start_watchdog);
    input_started = (long long)hw_now_ms();
    int rc = fuzz_session_run(data, size);
    input_started = 0;
    return rc;
}
