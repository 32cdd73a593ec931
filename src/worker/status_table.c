#include "status_table.h"

#include <stddef.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "hipr.h"

static size_t table_size(uint32_t max_sessions)
{
    return sizeof(struct status_table) + (size_t)max_sessions * sizeof(struct status_slot);
}

struct status_table *status_table_create(uint32_t max_sessions, uint64_t mem_limit,
                                         const char *backend)
{
    struct status_table *t = mmap(NULL, table_size(max_sessions), PROT_READ | PROT_WRITE,
                                  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (t == MAP_FAILED)
        return NULL;
    t->max_sessions = max_sessions;
    t->mem_limit = mem_limit;
    strncpy(t->backend, backend, sizeof t->backend - 1);
    return t;
}

void status_table_destroy(struct status_table *t)
{
    if (t)
        munmap(t, table_size(t->max_sessions));
}

struct status_slot *status_table_claim(struct status_table *t, pid_t pid, uint64_t session_id)
{
    for (uint32_t i = 0; i < t->max_sessions; i++) {
        uint32_t expected = 0;
        struct status_slot *s = &t->slots[i];
        if (__atomic_compare_exchange_n(&s->pid, &expected, (uint32_t)pid, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE)) {
            __atomic_store_n(&s->session_id, session_id, __ATOMIC_RELEASE);
            __atomic_store_n(&s->bytes_in_use, 0, __ATOMIC_RELEASE);
            __atomic_store_n(&s->streams, 0, __ATOMIC_RELEASE);
            __atomic_add_fetch(&t->sessions_served, 1, __ATOMIC_RELAXED);
            return s;
        }
    }
    return NULL;
}

uint64_t status_table_release_pid(struct status_table *t, pid_t pid, uint64_t *session_id)
{
    for (uint32_t i = 0; i < t->max_sessions; i++) {
        struct status_slot *s = &t->slots[i];
        if (__atomic_load_n(&s->pid, __ATOMIC_ACQUIRE) == (uint32_t)pid) {
            uint64_t bytes = __atomic_load_n(&s->bytes_in_use, __ATOMIC_ACQUIRE);
            *session_id = s->session_id;
            __atomic_store_n(&s->bytes_in_use, 0, __ATOMIC_RELEASE);
            __atomic_store_n(&s->streams, 0, __ATOMIC_RELEASE);
            __atomic_store_n(&s->pid, 0, __ATOMIC_RELEASE);
            return bytes;
        }
    }
    *session_id = 0;
    return 0;
}

void status_table_release(struct status_slot *s)
{
    if (!s)
        return;
    __atomic_store_n(&s->bytes_in_use, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&s->streams, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&s->pid, 0, __ATOMIC_RELEASE);
}

uint32_t status_table_streams(const struct status_table *t)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < t->max_sessions; i++)
        if (__atomic_load_n(&t->slots[i].pid, __ATOMIC_ACQUIRE))
            n += __atomic_load_n(&t->slots[i].streams, __ATOMIC_RELAXED);
    return n;
}

pid_t status_table_pid_of(const struct status_table *t, uint64_t session_id)
{
    for (uint32_t i = 0; i < t->max_sessions; i++) {
        const struct status_slot *s = &t->slots[i];
        uint32_t pid = __atomic_load_n(&s->pid, __ATOMIC_ACQUIRE);
        if (pid && __atomic_load_n(&s->session_id, __ATOMIC_ACQUIRE) == session_id)
            return (pid_t)pid;
    }
    return 0;
}

void status_slot_set_client(struct status_slot *s, int fd)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    uint8_t addr[16] = { 0 };
    uint32_t port = 0;

    if (s == NULL)
        return;
    if (getpeername(fd, (struct sockaddr *)&ss, &len) == 0) {
        if (ss.ss_family == AF_INET) {
            const struct sockaddr_in *a = (const struct sockaddr_in *)&ss;
            addr[10] = addr[11] = 0xff;
            memcpy(addr + 12, &a->sin_addr, 4);
            port = ntohs(a->sin_port);
        } else if (ss.ss_family == AF_INET6) {
            const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&ss;
            memcpy(addr, &a->sin6_addr, 16);
            port = ntohs(a->sin6_port);
        }
    }
    memcpy(s->client_addr, addr, sizeof addr);
    __atomic_store_n(&s->client_port, port, __ATOMIC_RELEASE);
    __atomic_store_n(&s->state, HIPR_SESSION_ATTACHED, __ATOMIC_RELEASE);
}

void status_slot_set_state(struct status_slot *s, uint32_t state)
{
    if (s)
        __atomic_store_n(&s->state, state, __ATOMIC_RELEASE);
}

int status_table_index_of(const struct status_table *t, pid_t pid)
{
    for (uint32_t i = 0; i < t->max_sessions; i++)
        if (__atomic_load_n(&t->slots[i].pid, __ATOMIC_ACQUIRE) == (uint32_t)pid)
            return (int)i;
    return -1;
}

uint32_t status_table_count(const struct status_table *t, uint64_t *bytes_total)
{
    uint32_t n = 0;
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < t->max_sessions; i++) {
        if (__atomic_load_n(&t->slots[i].pid, __ATOMIC_ACQUIRE)) {
            n++;
            bytes += __atomic_load_n(&t->slots[i].bytes_in_use, __ATOMIC_ACQUIRE);
        }
    }
    *bytes_total = bytes;
    return n;
}
