/*
 * rtc_exec.c - a contained child process for a compile (rtc_exec.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rtc_exec.h"
#include "hw_alloc.h"
#include "hw_time.h"

#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif

#define POLL_MS 50

/* What the compiler's tree may read (and execute) besides its directory:
 * the toolchain, the HIP headers and device libraries, and the loader's
 * cache. Not /etc as a whole, /home, /root, /proc or /tmp. */
static const char *const system_read_dirs[] = {
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/opt",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",
    "/etc/perl",
    "/etc/localtime",
    NULL,
};

static int ll_abi(void)
{
    static int abi = -2;
    int v = __atomic_load_n(&abi, __ATOMIC_RELAXED);
    if (v == -2) {
        v = (int)syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
        if (v < 0)
            v = -1;
        __atomic_store_n(&abi, v, __ATOMIC_RELAXED);
    }
    return v;
}

int rtc_exec_can_confine(void)
{
    return ll_abi() >= 1;
}

static uint64_t handled_rights(void)
{
    uint64_t r =
        LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |
        LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_REMOVE_DIR |
        LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
        LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
        LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
    if (ll_abi() >= 2)
        r |= LANDLOCK_ACCESS_FS_REFER;
    if (ll_abi() >= 3)
        r |= LANDLOCK_ACCESS_FS_TRUNCATE;
    return r;
}

static void allow(int ruleset, const char *path, uint64_t rights)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return; /* not on this system */
    struct stat st;
    /* Directory-only rights on a file are an error; keep the file ones. */
    if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
        rights &= LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                  LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE;
    struct landlock_path_beneath_attr pb = { .allowed_access = rights & handled_rights(),
                                             .parent_fd = fd };
    syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
    close(fd);
}

/* A ruleset for x, or -1 where the kernel has no Landlock. */
static int make_ruleset(const struct rtc_exec *x)
{
    if (!rtc_exec_can_confine())
        return -1;
    struct landlock_ruleset_attr attr = { .handled_access_fs = handled_rights() };
    int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
    if (rs < 0)
        return -1;
    uint64_t ro =
        LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_EXECUTE;
    for (size_t i = 0; system_read_dirs[i]; i++)
        allow(rs, system_read_dirs[i], ro);
    for (size_t i = 0; x->read_dirs && x->read_dirs[i]; i++)
        allow(rs, x->read_dirs[i], ro);
    allow(rs, "/dev/null", LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE);
    allow(rs, x->dir, handled_rights());
    return rs;
}

/* After fork: async-signal-safe calls only, then exec. */
static void child(const struct rtc_exec *x, int out_fd, int null_fd, int ruleset, pid_t parent)
{
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    setpgid(0, 0);
    /* The compile dies with the session process. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(126);
    if (dup2(null_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(out_fd, 2) < 0)
        _exit(126);
    struct rlimit fsize = { (rlim_t)x->max_file_size, (rlim_t)x->max_file_size };
    struct rlimit core = { 0, 0 };
    struct rlimit cpu = { (rlim_t)x->timeout_ms / 1000 + 2, (rlim_t)x->timeout_ms / 1000 + 3 };
    if (setrlimit(RLIMIT_FSIZE, &fsize) < 0 || setrlimit(RLIMIT_CORE, &core) < 0 ||
        setrlimit(RLIMIT_CPU, &cpu) < 0)
        _exit(126);
    if (x->max_memory) {
        struct rlimit as = { (rlim_t)x->max_memory, (rlim_t)x->max_memory };
        if (setrlimit(RLIMIT_AS, &as) < 0)
            _exit(126);
    }
    if (chdir(x->dir) < 0)
        _exit(126);
    if (ruleset >= 0) {
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
            syscall(SYS_landlock_restrict_self, ruleset, 0) < 0)
            _exit(126);
    }
    /* Nothing of the session (its socket above all) reaches the compiler. */
    if (close_range(3, ~0u, 0) < 0)
        for (int fd = 3; fd < 65536; fd++)
            close(fd);
    execve(x->argv[0], x->argv, x->envp);
    _exit(127);
}

static void keep_output(struct rtc_exec *x, const char *buf, size_t n)
{
    size_t room = x->max_log - x->log_len;
    if (n > room) {
        n = room;
        x->log_truncated = 1;
    }
    memcpy(x->log + x->log_len, buf, n);
    x->log_len += n;
    x->log[x->log_len] = '\0';
}

int rtc_exec_run(struct rtc_exec *x)
{
    int pipefd[2] = { -1, -1 }, null_fd = -1, ruleset = -1;
    x->log = hw_malloc(x->max_log + 1);
    if (!x->log)
        return -1;
    x->log[0] = '\0';
    x->log_len = 0;
    x->log_truncated = x->timed_out = x->cancelled = x->confined = 0;
    x->wait_status = 0;
    if (pipe2(pipefd, O_CLOEXEC) < 0)
        return -1;
    null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null_fd < 0)
        goto fail;
    ruleset = make_ruleset(x);
    x->confined = ruleset >= 0;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0)
        goto fail;
    if (pid == 0)
        child(x, pipefd[1], null_fd, ruleset, parent);
    close(pipefd[1]);
    close(null_fd);
    if (ruleset >= 0)
        close(ruleset);
    /* Either order of setpgid wins the race; a group exists before any kill. */
    setpgid(pid, pid);

    uint64_t deadline = hw_now_ms() + x->timeout_ms, drain_until = 0;
    int open_out = 1;
    siginfo_t si;
    for (;;) {
        if (x->cancel && __atomic_load_n(x->cancel, __ATOMIC_ACQUIRE)) {
            x->cancelled = 1;
            break;
        }
        uint64_t t = hw_now_ms();
        if (t >= deadline) {
            x->timed_out = 1;
            break;
        }
        if (open_out) {
            struct pollfd p = { pipefd[0], POLLIN, 0 };
            if (poll(&p, 1, POLL_MS) > 0) {
                char buf[4096];
                ssize_t n = read(pipefd[0], buf, sizeof buf);
                if (n > 0)
                    keep_output(x, buf, (size_t)n);
                else if (n == 0 || errno != EINTR)
                    open_out = 0;
            }
        } else {
            struct timespec ts = { 0, POLL_MS * 1000000L };
            nanosleep(&ts, NULL);
        }
        /* Done once the command has exited and its output is drained; a
         * leftover process holding the pipe gets a short grace, no more. */
        memset(&si, 0, sizeof si);
        if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid) {
            if (!drain_until)
                drain_until = hw_now_ms() + 500;
            if (!open_out || hw_now_ms() >= drain_until)
                break;
        }
    }
    /* Whatever is left of the group goes, before the leader is reaped so its
     * id cannot have been reused. */
    kill(-pid, SIGKILL);
    while (waitpid(pid, &x->wait_status, 0) < 0 && errno == EINTR)
        ;
    close(pipefd[0]);
    return 0;
fail : {
    int e = errno;
    close(pipefd[0]);
    close(pipefd[1]);
    if (null_fd >= 0)
        close(null_fd);
    if (ruleset >= 0)
        close(ruleset);
    errno = e;
}
    return -1;
}
