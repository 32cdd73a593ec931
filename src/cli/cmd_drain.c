/*
 * hipwire drain - asks hip-workers to admit no new session, let the live
 * ones end and exit (WORKER_DRAIN, docs/protocol.md "Drain"). With --wait it
 * returns once each worker has stopped answering; --timeout-after S has the
 * worker end the sessions still running after S seconds (their clients get
 * GOING_AWAY, reason DRAIN).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "hipr.h"
#include "status_ask.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: hipwire drain [--to HOST[:PORT]] [--drain-timeout S] [--wait] [--timeout MS]\n"
            "                     WORKER...\n"
            "Tells each hip-worker (HOST[:PORT]) to admit no new session, let the\n"
            "sessions it has end, and exit when none is left.\n"
            "  --to HOST[:PORT]   move the live sessions to that worker instead: each\n"
            "                     keeps its device memory, modules, streams and events at\n"
            "                     the same device addresses, and its client's calls pause\n"
            "                     and go on there; a session that cannot move (not\n"
            "                     resumable, or the target refuses) stays and runs here\n"
            "  --drain-timeout S  then end the sessions still running after S seconds\n"
            "                     (their clients are told: GOING_AWAY, drained); 0 = never\n"
            "  --wait             return once each worker has exited (stopped answering)\n"
            "  --timeout MS       per request (default 3000)\n"
            "Token and TLS as for `hipwire status` (TF_WORKER_TOKEN, TF_WORKER_TLS).\n"
            "Exit 0 when every worker accepted (and, with --wait, exited); 1 otherwise.\n");
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* Whether the worker still answers WORKER_STATUS. */
static int still_up(const struct hw_worker_addr *a, const struct status_security *sec, int tmo)
{
    uint8_t *body = NULL;
    size_t len = 0;
    char err[256];
    int up =
        status_ask(a, sec, tmo, HIPR_OP_WORKER_STATUS, NULL, 0, &body, &len, err, sizeof err) == 0;
    free(body);
    return up;
}

int cli_drain(int argc, char **argv)
{
    static const struct option opts[] = {
        { "drain-timeout", required_argument, NULL, 'd' },
        { "wait", no_argument, NULL, 'W' },
        { "to", required_argument, NULL, 'T' },
        { "timeout", required_argument, NULL, 't' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    long drain_s = 0, timeout_ms = 3000;
    const char *to = NULL;
    struct hw_worker_addr target;
    int wait = 0, c, rc = CLI_EXIT_OK;
    char err[512];
    struct status_security sec;
    memset(&sec, 0, sizeof sec);
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'd':
            if (parse_long(optarg, 0, UINT32_MAX, &drain_s) < 0) {
                fprintf(stderr, "hipwire drain: bad --drain-timeout '%s'\n", optarg);
                return CLI_EXIT_USAGE;
            }
            break;
        case 'W': wait = 1; break;
        case 'T':
            if (hw_worker_list_parse(optarg, HIPR_DEFAULT_PORT, &target, 1, err, sizeof err) != 1 ||
                strlen(target.host) > 255) {
                fprintf(stderr, "hipwire drain: bad --to '%s'\n", optarg);
                return CLI_EXIT_USAGE;
            }
            to = optarg;
            break;
        case 't':
            if (parse_long(optarg, 1, 600000, &timeout_ms) < 0) {
                fprintf(stderr, "hipwire drain: bad --timeout '%s'\n", optarg);
                return CLI_EXIT_USAGE;
            }
            break;
        case 'h': usage(stdout); return CLI_EXIT_OK;
        default: usage(stderr); return CLI_EXIT_USAGE;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "hipwire drain: name the worker(s) to drain\n");
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    if (security_from_env(&sec, err, sizeof err) < 0) {
        fprintf(stderr, "hipwire drain: %s\n", err);
        return CLI_EXIT_USAGE;
    }
    for (int i = optind; i < argc; i++) {
        struct hw_worker_addr a;
        if (hw_worker_list_parse(argv[i], HIPR_DEFAULT_PORT, &a, 1, err, sizeof err) != 1) {
            fprintf(stderr, "hipwire drain: %s: %s\n", argv[i], err);
            rc = CLI_EXIT_USAGE;
            continue;
        }
        struct hipr_worker_drain req = { .timeout_s = (uint32_t)drain_s }, rep;
        uint8_t fixed[HIPR_worker_drain_SIZE], *body = NULL;
        size_t len = 0;
        hipr_worker_drain_encode(fixed, &req);
        if (status_ask(&a, &sec, (int)timeout_ms, HIPR_OP_WORKER_DRAIN, fixed, sizeof fixed, &body,
                       &len, err, sizeof err) < 0 ||
            hipr_worker_drain_decode(body, len, &rep) < 0) {
            fprintf(stderr, "hipwire drain: %s: %s\n", argv[i], body ? "malformed reply" : err);
            free(body);
            rc = CLI_EXIT_FAILURE;
            continue;
        }
        free(body);
        char limit[64] = "no time limit";
        if (rep.timeout_s)
            snprintf(limit, sizeof limit, "sessions left after %u s are ended", rep.timeout_s);
        printf("%s: draining: no new sessions; %u session(s) to end (%s)\n", argv[i], rep.sessions,
               limit);
        fflush(stdout);
        if (to) {
            struct hipr_worker_migrate_req mreq = { .port = (uint32_t)target.port };
            struct hipr_worker_migrate_rep mrep;
            uint8_t mfixed[HIPR_worker_migrate_req_SIZE];
            hipr_worker_migrate_req_encode(mfixed, &mreq);
            body = NULL;
            if (status_ask_tail(&a, &sec, (int)timeout_ms, HIPR_OP_WORKER_MIGRATE, mfixed,
                                sizeof mfixed, target.host, strlen(target.host), &body, &len, err,
                                sizeof err) < 0 ||
                hipr_worker_migrate_rep_decode(body, len, &mrep) < 0) {
                fprintf(stderr, "hipwire drain: %s: moving the sessions to %s: %s\n", argv[i], to,
                        body ? "malformed reply" : err);
                free(body);
                rc = CLI_EXIT_FAILURE;
                continue;
            }
            free(body);
            printf("%s: moving %u session(s) to %s (a session that cannot move stays)\n", argv[i],
                   mrep.sessions, to);
            fflush(stdout);
        }
        if (!wait)
            continue;
        while (still_up(&a, &sec, (int)timeout_ms)) {
            struct timespec ts = { 0, 200 * 1000000L };
            nanosleep(&ts, NULL);
        }
        printf("%s: exited\n", argv[i]);
    }
    return rc;
}
