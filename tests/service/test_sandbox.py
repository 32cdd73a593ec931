"""The runner's confinement: a solution cannot open a network socket
(seccomp) nor create a file outside its private directory (Landlock), and
rlimits are in place. The solution answers wrong exactly when an escape
worked, so CHECKED means every attempt failed."""
import os
import tempfile

from svc import Service, check, last, names

target = os.path.join(tempfile.gettempdir(), "hw-svc-escape-%d" % os.getpid())
ESCAPE = r"""
#include <hip/hip_runtime.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
__global__ void vadd(const float* a, const float* b, float* c, size_t n, float bias) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i] + (i == 0 ? bias : 0.0f);
}
extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    float escaped = 0.0f;
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s >= 0) { escaped += 1.0f; close(s); }
    int u = socket(AF_UNIX, SOCK_STREAM, 0);
    if (u >= 0) { escaped += 2.0f; close(u); }
    int f = open("TARGET", O_WRONLY | O_CREAT, 0600);
    if (f >= 0) { escaped += 4.0f; close(f); }
    struct rlimit rl;
    if (getrlimit(RLIMIT_CORE, &rl) != 0 || rl.rlim_cur != 0) escaped += 8.0f;
    vadd<<<(n + 255) / 256, 256>>>(a, b, c, n, escaped);
}
""".replace("TARGET", target)

svc = Service()
try:
    status, ev, _ = svc.submit(ESCAPE, problem="vector-addition")
    comp = last(ev, "COMPILING")
    if comp["landlock"] != "on" or comp["seccomp"] != "on":
        print("SKIPPED: this kernel lacks Landlock or seccomp (%s)" % comp)
        raise SystemExit(77)
    wa = last(ev, "WRONG_ANSWER")
    check(names(ev)[-1] == "CHECKED",
          "an escape worked (1 inet socket, 2 unix socket, 4 file, 8 rlimit): %s"
          % (wa["debug_info"] if wa else names(ev)))
    check(not os.path.exists(target), "the file outside the private directory exists")
    print("socket(AF_INET), socket(AF_UNIX), a file in %s: all refused; RLIMIT_CORE 0"
          % os.path.dirname(target))
finally:
    svc.stop()
    if os.path.exists(target):
        os.unlink(target)
print("service sandbox: ok")
