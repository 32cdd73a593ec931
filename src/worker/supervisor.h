/*
 * supervisor.h - accepts connections and forks one process per session.
 *
 * The supervisor never opens a backend: GPU contexts do not survive fork(),
 * and a fault in one session must not reach the others.
 */
#ifndef SUPERVISOR_H
#define SUPERVISOR_H

#include "worker.h"

/* Runs until SIGTERM/SIGINT; returns the process exit status. */
int supervisor_run(const struct worker_config *cfg);

#endif
