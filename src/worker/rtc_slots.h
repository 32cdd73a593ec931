/*
 * rtc_slots.h - the worker-wide cap on run-time compiles running at once
 * (--rtc-max-concurrent, docs/hiprtc.md).
 *
 * Sessions are separate processes, so the slots live in one MAP_SHARED page
 * the supervisor maps before it forks any session. Each slot holds the pid
 * of the session process using it. Not a POSIX semaphore (named or not): a
 * session killed while holding one would leak its count for the life of the
 * worker, and a semaphore does not say who holds it. With owner pids the
 * supervisor, which reaps every session, frees the slots of a dead one
 * (rtc_slots_release_pid); a pid cannot be reused before that reap.
 */
#ifndef HIPWIRE_RTC_SLOTS_H
#define HIPWIRE_RTC_SLOTS_H

#include <stdint.h>
#include <sys/types.h>

struct rtc_slots;

/* n >= 1 slots; NULL on failure. */
struct rtc_slots *rtc_slots_create(uint32_t n);
void rtc_slots_destroy(struct rtc_slots *t);
uint32_t rtc_slots_count(const struct rtc_slots *t);
/* Slots held now (a compile running in each). */
uint32_t rtc_slots_busy(const struct rtc_slots *t);

/* Takes a slot for pid, waiting up to timeout_ms; waiters get slots in the
 * order they asked (a session that died waiting leaves the line when the
 * supervisor releases its pid). Returns its index, -1 when
 * none came free in time, -2 when *cancel became non-zero meanwhile. */
int rtc_slots_acquire(struct rtc_slots *t, pid_t pid, uint32_t timeout_ms, const int *cancel);
void rtc_slots_release(struct rtc_slots *t, int slot, pid_t pid);
/* Frees every slot pid holds (it has died); returns how many. */
uint32_t rtc_slots_release_pid(struct rtc_slots *t, pid_t pid);

#endif
