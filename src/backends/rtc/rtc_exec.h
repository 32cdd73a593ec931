/*
 * rtc_exec.h - runs a compiler for a client on the worker, contained.
 *
 * The command runs in its own process group with stdin on /dev/null and
 * stdout+stderr captured (at most max_log bytes kept), no other descriptor
 * inherited, every file it writes limited to max_file_size bytes
 * (RLIMIT_FSIZE), its address space to max_memory, and a wall-clock limit
 * after which the whole group is killed; the same when *cancel is set. Where
 * the kernel has Landlock, the process tree may only write in `dir` and only
 * read the system's toolchain directories, so a source cannot #include the
 * worker's files; `confined` says whether that applied.
 */
#ifndef HW_RTC_EXEC_H
#define HW_RTC_EXEC_H

#include <stddef.h>
#include <stdint.h>

struct rtc_exec {
    /* in */
    char *const *argv; /* argv[0]: an absolute path */
    char *const *envp;
    const char *dir;              /* working directory; the only writable place */
    const char *const *read_dirs; /* extra read-only trees (NULL-terminated, may be NULL) */
    uint32_t timeout_ms;
    uint64_t max_file_size;
    uint64_t max_memory; /* 0: no limit */
    size_t max_log;
    const int *cancel; /* may be NULL */
    /* out */
    char *log; /* malloc'ed, NUL-terminated */
    size_t log_len;
    int log_truncated;
    int wait_status; /* as from waitpid */
    int timed_out;
    int cancelled;
    int confined;
};

/* 0 when the command ran (see wait_status, timed_out, cancelled); -1 with
 * errno when it could not be started. Free x->log either way. */
int rtc_exec_run(struct rtc_exec *x);

/* Whether rtc_exec_run can confine the command's file access here. */
int rtc_exec_can_confine(void);

#endif
