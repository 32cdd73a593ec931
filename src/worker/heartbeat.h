/*
 * heartbeat.h - dead-peer detection (lifecycle layer, heartbeat.c).
 */
#ifndef HEARTBEAT_H
#define HEARTBEAT_H

#include "session.h"

/* heartbeat.c: sends HEARTBEAT after each heartbeat_ms of silence, and
 * makes a read that hears nothing for HW_DEAD_AFTER heartbeats fail. */
#define HW_DEAD_AFTER       4
#define HW_HEARTBEAT_MIN_MS 100
#define HW_HEARTBEAT_MAX_MS 600000
int session_heartbeat_start(struct session *s);
void session_heartbeat_stop(struct session *s);
/* Applies the read and write timeouts to the current connection (again,
 * after a resume). */
void session_heartbeat_link(struct session *s);

#endif
