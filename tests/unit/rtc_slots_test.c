/* The worker-wide compile slots (src/worker/rtc_slots.c): shared across
 * processes, bounded waits, and a dead owner's slots freed by pid. */
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hw_time.h"
#include "rtc_slots.h"
#include "testutil.h"

/* A waiter that takes the slot records its turn in order[] and holds it a
 * moment, so whoever comes next was waiting meanwhile. */
static void waiter(struct rtc_slots *t, uint32_t *order, uint32_t id)
{
    int slot = rtc_slots_acquire(t, getpid(), 10000, NULL);
    if (slot < 0)
        _exit(1);
    uint32_t at = __atomic_fetch_add(&order[0], 1, __ATOMIC_ACQ_REL);
    order[1 + at] = id;
    struct timespec hold = { 0, 60 * 1000000L };
    nanosleep(&hold, NULL);
    rtc_slots_release(t, slot, getpid());
    _exit(0);
}

/* Slots go to waiters in the order they began to wait: with first-come
 * polling the order below comes out right only by chance (1 in 2^rounds). */
static void check_first_waiter_first(void)
{
    struct rtc_slots *t = rtc_slots_create(1);
    uint32_t *order = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(t != NULL && order != MAP_FAILED);
    for (int round = 0; round < 6; round++) {
        order[0] = 0;
        int held = rtc_slots_acquire(t, getpid(), 0, NULL);
        CHECK(held >= 0);
        pid_t kids[3];
        for (uint32_t k = 0; k < 3; k++) {
            kids[k] = fork();
            CHECK(kids[k] >= 0);
            if (kids[k] == 0)
                waiter(t, order, k);
            struct timespec gap = { 0, 50 * 1000000L }; /* k is in line before k + 1 */
            nanosleep(&gap, NULL);
        }
        rtc_slots_release(t, held, getpid());
        for (int k = 0; k < 3; k++) {
            int st;
            CHECK(waitpid(kids[k], &st, 0) == kids[k] && WIFEXITED(st) && WEXITSTATUS(st) == 0);
        }
        CHECK_EQ(order[0], 3);
        for (uint32_t k = 0; k < 3; k++)
            CHECK_EQ(order[1 + k], k);
    }
    munmap(order, 4096);
    rtc_slots_destroy(t);
}

static double now_s(void)
{
    return (double)hw_now_ns() / 1e9;
}

int main(void)
{
    CHECK(rtc_slots_create(0) == NULL);
    struct rtc_slots *t = rtc_slots_create(2);
    CHECK(t != NULL);
    CHECK_EQ(rtc_slots_count(t), 2);
    pid_t me = getpid();
    int a = rtc_slots_acquire(t, me, 0, NULL);
    int b = rtc_slots_acquire(t, me, 0, NULL);
    CHECK(a >= 0 && b >= 0 && a != b);

    /* Full: a wait ends at its timeout, or at once when cancelled. */
    double t0 = now_s();
    CHECK_EQ(rtc_slots_acquire(t, me, 200, NULL), -1);
    CHECK(now_s() - t0 >= 0.19);
    int cancel = 1;
    CHECK_EQ(rtc_slots_acquire(t, me, 10000, &cancel), -2);

    /* Release by another pid is ignored; by the owner it frees the slot. */
    rtc_slots_release(t, a, me + 1);
    CHECK_EQ(rtc_slots_acquire(t, me, 0, NULL), -1);
    rtc_slots_release(t, a, me);
    CHECK_EQ(rtc_slots_acquire(t, me, 0, NULL), a);
    rtc_slots_release(t, a, me);
    rtc_slots_release(t, b, me);

    /* Another process takes both slots and dies without releasing them:
     * they stay taken (visible here, so the page is shared) until they are
     * released by its pid, as the supervisor does when it reaps it. */
    pid_t kid = fork();
    CHECK(kid >= 0);
    if (kid == 0) {
        int ok = rtc_slots_acquire(t, getpid(), 0, NULL) >= 0 &&
                 rtc_slots_acquire(t, getpid(), 0, NULL) >= 0;
        _exit(ok ? 0 : 1);
    }
    int st;
    CHECK(waitpid(kid, &st, 0) == kid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK_EQ(rtc_slots_acquire(t, me, 50, NULL), -1);
    CHECK_EQ(rtc_slots_release_pid(t, me), 0);
    CHECK_EQ(rtc_slots_release_pid(t, kid), 2);
    CHECK(rtc_slots_acquire(t, me, 0, NULL) >= 0);
    rtc_slots_destroy(t);
    check_first_waiter_first();
    printf("rtc slots: ok\n");
    return 0;
}
