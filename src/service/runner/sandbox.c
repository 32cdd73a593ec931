/* sandbox.c - what confines the runner, which runs untrusted code:
 * - rlimits: CPU time, file size, address space, no core dumps;
 * - Landlock: writes (create, remove, write, truncate) only under its
 *   private directory; reads stay open (toolchain, libraries);
 * - seccomp: no new sockets of the network families once the worker link is
 *   up (that link is the only connection it keeps), no ptrace.
 * Landlock and seccomp are applied when the kernel offers them; each
 * returns NULL or a reason it could not, which the runner reports. */
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/landlock.h>
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HW_RUNNER_ASAN 1
#endif
#endif
#include <seccomp.h>

static void set_limit(int res, rlim_t v)
{
    struct rlimit rl = { v, v };
    setrlimit(res, &rl);
}

void sandbox_limits(double cpu_seconds)
{
    set_limit(RLIMIT_CPU, (rlim_t)cpu_seconds + 5);
    set_limit(RLIMIT_FSIZE, 64u << 20);
    set_limit(RLIMIT_CORE, 0);
    set_limit(RLIMIT_NOFILE, 256);
    /* A sanitizer's shadow memory is address space: no limit there. */
#if !defined(__SANITIZE_ADDRESS__) && !defined(HW_RUNNER_ASAN)
    set_limit(RLIMIT_AS, (rlim_t)16 << 30);
#endif
}

const char *sandbox_landlock(const char *workdir)
{
    return sandbox_landlock_paths(workdir, NULL);
}

/* Writes under workdir (and also, when given), and to existing nodes in
 * /dev. */
const char *sandbox_landlock_paths(const char *workdir, const char *also)
{
    int abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 1)
        return "Landlock is not available in this kernel";
    struct landlock_ruleset_attr attr = {
        .handled_access_fs = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
                             LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
                             LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
                             LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
                             LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM,
    };
    int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
    if (rs < 0)
        return "landlock_create_ruleset failed";
    const char *err = NULL;
    const char *dirs[] = { workdir, "/dev", also };
    for (unsigned i = 0; i < sizeof dirs / sizeof dirs[0] && dirs[i]; i++) {
        struct landlock_path_beneath_attr pb = { .allowed_access = attr.handled_access_fs };
        pb.parent_fd = open(dirs[i], O_PATH | O_CLOEXEC);
        if (pb.parent_fd < 0) {
            err = "cannot open the private directory";
            goto out;
        }
        /* /dev: writes to existing nodes (null, tty) only. */
        if (i == 1)
            pb.allowed_access = LANDLOCK_ACCESS_FS_WRITE_FILE;
        int r = (int)syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
        close(pb.parent_fd);
        if (r < 0) {
            err = "landlock_add_rule failed";
            goto out;
        }
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
        syscall(SYS_landlock_restrict_self, rs, 0) < 0)
        err = "landlock_restrict_self failed";
out:
    close(rs);
    return err;
}

const char *sandbox_seccomp(void)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx)
        return "seccomp_init failed";
    const int families[] = { AF_INET, AF_INET6, AF_PACKET, AF_NETLINK, AF_UNIX };
    int rc = 0;
    for (unsigned i = 0; i < sizeof families / sizeof families[0] && rc == 0; i++) {
        struct scmp_arg_cmp family = {
            .arg = 0, .op = SCMP_CMP_EQ, .datum_a = (scmp_datum_t)families[i], .datum_b = 0
        };
        rc = seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 1, &family);
    }
    if (rc == 0)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ptrace), 0);
    if (rc == 0)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(process_vm_writev), 0);
    if (rc == 0)
        rc = seccomp_load(ctx);
    seccomp_release(ctx);
    return rc == 0 ? NULL : "seccomp_load failed";
}
