/*
 * leak_check.h - LeakSanitizer for session processes.
 *
 * A session process ends with _exit (it must not run the supervisor's
 * atexit work), which skips LeakSanitizer's exit-time check: without this,
 * the ASan CI run would never see a leak in session code. In a sanitizer
 * build the session checks before _exit and exits LEAK_CHECK_EXIT on a
 * leak; the supervisor notices and exits non-zero itself, which fails the
 * test that ran the worker. Elsewhere both are no-ops.
 */
#ifndef LEAK_CHECK_H
#define LEAK_CHECK_H

#define LEAK_CHECK_EXIT 86

/* rc, or LEAK_CHECK_EXIT when LeakSanitizer reported a leak (its report is
 * on stderr). */
int leak_check_session_exit(int rc);

#endif
