/*
 * relay_ctl.h - drives tests/harness/fault_relay from a test.
 *
 * Either run the test under the relay (`fault_relay [faults] -- test`, the
 * relay then sets HIPWIRE_RELAY_CONTROL) and pass control = NULL, or start
 * a relay from the test with relay_start(). Commands are those of
 * docs/testing.md ("cut", "cut c2w 4096", "stall", "resume", "down", "up",
 * "latency 20", "rate 1000000", "stats").
 */
#ifndef HIPWIRE_RELAY_CTL_H
#define HIPWIRE_RELAY_CTL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct relay_proc {
    pid_t pid;
    int port;          /* where clients connect */
    char control[128]; /* its control socket */
    char dir[64];      /* temporary directory holding it */
};

/* Starts `relay_path --target target [args...]` (args NULL-terminated, may
 * be NULL) and waits until it listens. 0 or -1. */
int relay_start(const char *relay_path, const char *target, const char *const *args,
                struct relay_proc *out);
/* SIGTERM, wait, remove its files. */
void relay_stop(struct relay_proc *p);

/* Sends one command to the relay whose control socket is `control` (NULL:
 * $HIPWIRE_RELAY_CONTROL); its reply line, without the newline, goes to
 * reply (may be NULL). 0 when the relay answered "ok", -1 otherwise. */
int relay_cmd(const char *control, char *reply, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* One counter of the "stats" reply (accepted, live, refused, cuts, c2w,
 * w2c, down). 0 or -1. */
int relay_stat(const char *control, const char *key, uint64_t *value);

#endif
