/*
 * preauth.h - connections accepted and not yet given a process, and the
 * fair order in which they get one (docs/security.md, "Before
 * authentication").
 *
 * Handshakes in progress are capped (the supervisor's handshake slack), so
 * idle unauthenticated sockets could keep every real client out until their
 * --handshake-timeout. Left in the kernel's listen backlog, the next
 * connection is always the oldest, whoever sent it, and each gets a process
 * whether it says anything or not. Held here instead, a connection gets a
 * process only once its client has sent something, the next one from the
 * source address with the fewest handshakes in progress; one that sends
 * nothing is closed after --handshake-timeout, or sooner when the holding
 * room is full. Connections that have spoken are accepted only a few ahead
 * of the handshake places: the rest of a burst of real clients stays in the
 * listen backlog, where an unanswered SYN holds the client in connect()
 * (its connect timeout) rather than starting the clock on its handshake.
 */
#ifndef HIPWIRE_PREAUTH_H
#define HIPWIRE_PREAUTH_H

#include <stdint.h>

/* Where a connection comes from: an IPv4 address, or an IPv6 /64 (one host
 * owns a whole /64 and could otherwise spread over it). */
struct preauth_source {
    uint8_t key[16];
};

struct preauth;

/* Holds at most cap connections. NULL when out of memory. */
struct preauth *preauth_create(int cap);
/* Closes every connection still held. */
void preauth_destroy(struct preauth *p);
int preauth_count(const struct preauth *p);
int preauth_full(const struct preauth *p);
/* Takes fd (accepted); its source from getpeername. */
void preauth_hold(struct preauth *p, int fd, uint64_t now_ms);
/* The connection to serve next among those whose client has spoken (every
 * client speaks first: a TLS ClientHello, AUTH_BEGIN or HELLO): the one
 * whose source has the fewest handshakes in progress, as busy(source, arg)
 * counts them, the oldest among equals; -1 when none has. *src: its
 * source. Connections closed by their peer are dropped on the way. */
int preauth_next(struct preauth *p, int (*busy)(const struct preauth_source *, void *), void *arg,
                 struct preauth_source *src);
/* Held connections that have spoken, or are too fresh to tell (accepted
 * within PREAUTH_FRESH_MS: a client's first bytes follow its connect within
 * a round trip); those closed by their peer are dropped on the way. */
int preauth_pending(struct preauth *p, uint64_t now_ms);
#define PREAUTH_FRESH_MS 100
/* Closes the held connections that have sent nothing for idle_ms; returns
 * how many. */
int preauth_expire(struct preauth *p, uint64_t now_ms, uint64_t idle_ms);
/* When full: closes the oldest silent connection of the source holding the
 * most, so that others can be accepted. Returns 1 when one was closed. */
int preauth_make_room(struct preauth *p);
/* A forked process must not keep the others' connections open: closing
 * one in the supervisor would then not end it. */
void preauth_close_all_in_child(struct preauth *p);
/* The source of a connected socket. */
void preauth_source_of(int fd, struct preauth_source *src);
int preauth_same_source(const struct preauth_source *a, const struct preauth_source *b);

#endif
