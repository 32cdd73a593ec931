/* bench_sessions.h - hipwire-bench --sessions (bench_sessions.c). */
#ifndef HIPWIRE_BENCH_SESSIONS_H
#define HIPWIRE_BENCH_SESSIONS_H

/* The whole --sessions run; its exit status. */
int bench_sessions_main(int argc, char **argv);

#endif
