/* The worker-wide compile slots (src/worker/rtc_slots.c): shared across
 * processes, bounded waits, and a dead owner's slots freed by pid. */
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hw_time.h"
#include "rtc_slots.h"
#include "testutil.h"

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
    printf("rtc slots: ok\n");
    return 0;
}
