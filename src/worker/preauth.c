/* preauth.c - the held connections and their fair order (preauth.h). */
#include "preauth.h"

#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hw_alloc.h"

struct held {
    int fd;
    int spoke; /* bytes were seen waiting (it stays so: the process reads them) */
    uint64_t since_ms;
    struct preauth_source src;
};

struct preauth {
    int cap, n;
    struct held *h; /* in order of arrival */
};

struct preauth *preauth_create(int cap)
{
    struct preauth *p = hw_calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->h = hw_calloc((size_t)(cap > 0 ? cap : 1), sizeof *p->h);
    if (!p->h) {
        hw_free(p);
        return NULL;
    }
    p->cap = cap;
    return p;
}

void preauth_destroy(struct preauth *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->n; i++)
        close(p->h[i].fd);
    hw_free(p->h);
    hw_free(p);
}

int preauth_count(const struct preauth *p)
{
    return p ? p->n : 0;
}

int preauth_full(const struct preauth *p)
{
    return !p || p->n >= p->cap;
}

void preauth_source_of(int fd, struct preauth_source *src)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    memset(src, 0, sizeof *src);
    if (getpeername(fd, (struct sockaddr *)&ss, &len) < 0)
        return;
    if (ss.ss_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)&ss;
        memcpy(src->key, &a->sin_addr, 4);
    } else if (ss.ss_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&ss;
        static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
        if (!memcmp(a->sin6_addr.s6_addr, v4mapped, 12))
            memcpy(src->key, a->sin6_addr.s6_addr + 12, 4); /* the same as IPv4 */
        else {
            memcpy(src->key, a->sin6_addr.s6_addr, 8);
            src->key[15] = 6; /* never equal to an IPv4 key */
        }
    }
}

int preauth_same_source(const struct preauth_source *a, const struct preauth_source *b)
{
    return !memcmp(a->key, b->key, sizeof a->key);
}

void preauth_hold(struct preauth *p, int fd, uint64_t now_ms)
{
    if (preauth_full(p)) {
        close(fd);
        return;
    }
    struct held *h = &p->h[p->n++];
    h->fd = fd;
    h->spoke = 0;
    h->since_ms = now_ms;
    preauth_source_of(fd, &h->src);
}

/* Removes entry i, keeping arrival order (fairness depends on it); its fd. */
static int take(struct preauth *p, int i)
{
    int fd = p->h[i].fd;
    memmove(&p->h[i], &p->h[i + 1], (size_t)(p->n - i - 1) * sizeof *p->h);
    p->n--;
    return fd;
}

static void drop(struct preauth *p, int i)
{
    close(take(p, i));
}

/* 1: bytes are waiting; 0: none yet; -1: the peer closed or the socket
 * failed. */
static int has_spoken(int fd)
{
    uint8_t b;
    ssize_t r = recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
    if (r > 0)
        return 1;
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return 0;
    return -1;
}

/* Refreshes h->spoke; -1 when the peer closed or the socket failed. */
static int check(struct held *h)
{
    if (h->spoke)
        return 1;
    int r = has_spoken(h->fd);
    if (r > 0)
        h->spoke = 1;
    return r;
}

int preauth_pending(struct preauth *p, uint64_t now_ms)
{
    int n = 0;
    for (int i = 0; p && i < p->n;) {
        int r = check(&p->h[i]);
        if (r < 0) {
            drop(p, i);
            continue;
        }
        n += r > 0 || now_ms - p->h[i].since_ms < PREAUTH_FRESH_MS;
        i++;
    }
    return n;
}

int preauth_next(struct preauth *p, int (*busy)(const struct preauth_source *, void *), void *arg,
                 struct preauth_source *src)
{
    int best = -1, best_busy = 0;
    for (int i = 0; p && i < p->n;) {
        int spoke = check(&p->h[i]);
        if (spoke < 0) {
            drop(p, i);
            continue;
        }
        if (spoke) {
            int b = busy(&p->h[i].src, arg);
            if (best < 0 || b < best_busy) {
                best = i;
                best_busy = b;
            }
        }
        i++;
    }
    if (best < 0)
        return -1;
    *src = p->h[best].src;
    return take(p, best);
}

int preauth_expire(struct preauth *p, uint64_t now_ms, uint64_t idle_ms)
{
    int closed = 0;
    for (int i = 0; p && i < p->n;) {
        if (now_ms - p->h[i].since_ms >= idle_ms && check(&p->h[i]) <= 0) {
            drop(p, i);
            closed++;
        } else
            i++;
    }
    return closed;
}

int preauth_make_room(struct preauth *p)
{
    if (!p || p->n < p->cap)
        return 0;
    int victim = -1, victim_count = 0;
    for (int i = 0; i < p->n; i++) {
        if (check(&p->h[i]) > 0)
            continue;
        int same = 0;
        for (int j = 0; j < p->n; j++)
            same += preauth_same_source(&p->h[i].src, &p->h[j].src);
        if (same > victim_count) { /* the first, so the oldest, of that source */
            victim = i;
            victim_count = same;
        }
    }
    if (victim < 0)
        return 0;
    drop(p, victim);
    return 1;
}

void preauth_close_all_in_child(struct preauth *p)
{
    for (int i = 0; p && i < p->n; i++)
        close(p->h[i].fd);
}
