/* Fault injection as curl's and libuv's test loops do it: the environment is
 * read once, and only when it asks for failures does an allocation touch the
 * shared counter. */
#include "hw_alloc.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum { FAULTS_UNREAD, FAULTS_OFF, FAULTS_ON };

static atomic_int faults_state;
static unsigned long faults_at;
static int faults_every;
static atomic_ulong faults_count;

/* Racing first readers compute the same values from the same environment, so
 * no lock: the state is published after the settings with release order. */
static int faults_read(void)
{
    const char *n = getenv("HIPWIRE_FAIL_ALLOC");
    const char *every = getenv("HIPWIRE_FAIL_ALLOC_EVERY");
    char *end = NULL;
    unsigned long at = n && *n ? strtoul(n, &end, 10) : 0;
    int state = FAULTS_OFF;
    if (at > 0 && end && *end == '\0') {
        faults_at = at;
        faults_every = every && strcmp(every, "1") == 0;
        state = FAULTS_ON;
    }
    atomic_store_explicit(&faults_state, state, memory_order_release);
    return state;
}

int hw_alloc_fault(void)
{
    int state = atomic_load_explicit(&faults_state, memory_order_acquire);
    if (state == FAULTS_OFF)
        return 0;
    if (state == FAULTS_UNREAD && faults_read() == FAULTS_OFF)
        return 0;
    unsigned long nth = atomic_fetch_add_explicit(&faults_count, 1, memory_order_relaxed) + 1;
    return nth == faults_at || (faults_every && nth > faults_at);
}

void *hw_malloc(size_t size)
{
    return hw_alloc_fault() ? NULL : malloc(size);
}

void *hw_calloc(size_t count, size_t size)
{
    return hw_alloc_fault() ? NULL : calloc(count, size);
}

void *hw_realloc(void *p, size_t size)
{
    return hw_alloc_fault() ? NULL : realloc(p, size);
}

char *hw_strdup(const char *s)
{
    size_t len = strlen(s) + 1;
    char *copy = hw_malloc(len);
    if (copy)
        memcpy(copy, s, len);
    return copy;
}

void hw_free(void *p)
{
    free(p);
}
