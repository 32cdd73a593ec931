/*
 * bench_tls.c - hipwire-bench-tls: what TLS costs, plain TCP and TLS side by
 * side in one run against one real hip-worker (docs/benchmarks.md).
 *
 *   hipwire-bench-tls --spawn-worker PATH [--quick]
 *
 * It starts PATH --backend cpu with a throwaway self-signed certificate
 * (made with the openssl CLI) and a token, then opens one plain and one TLS
 * session, each authenticated, and times alternately on both: connection
 * setup (TCP + TLS + authentication + HELLO), a PING round trip, and H2D and
 * D2H copies. HIPR is spoken directly over hw_transport (the proxy holds one
 * connection per process, so it cannot hold both); the copies are the same
 * requests the proxy sends. Ratios are TLS / plain.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hipr.h"
#include "hw_auth.h"
#include "hw_net.h"
#include "hw_sha256.h"
#include "hw_transport.h"
#include "hw_cli.h"

#define MAX_SIZE (64u << 20)

struct link {
    struct hw_transport tx;
    uint32_t next_id;
};

static char dir[] = "/tmp/hipwire-bench-tls-XXXXXX";
static pid_t worker_pid;
static int port;
static struct hw_token token;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
    fprintf(stderr, "hipwire-bench-tls: %s\n", what);
    if (worker_pid > 0)
        kill(worker_pid, SIGTERM);
    exit(1);
}

static int run(char *const argv[])
{
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stderr))
            _exit(127);
        execvp(argv[0], argv);
        _exit(127);
    }
    int st;
    return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static void make_secrets(void)
{
    char key[128], cert[128], tok[128];
    if (!mkdtemp(dir))
        die("mkdtemp");
    snprintf(key, sizeof key, "%s/key.pem", dir);
    snprintf(cert, sizeof cert, "%s/cert.pem", dir);
    snprintf(tok, sizeof tok, "%s/token", dir);
    char *argv[] = { "openssl",
                     "req",
                     "-x509",
                     "-newkey",
                     "ec",
                     "-pkeyopt",
                     "ec_paramgen_curve:prime256v1",
                     "-nodes",
                     "-days",
                     "1",
                     "-subj",
                     "/CN=hipwire-bench",
                     "-addext",
                     "subjectAltName=IP:127.0.0.1",
                     "-keyout",
                     key,
                     "-out",
                     cert,
                     NULL };
    if (run(argv) < 0)
        die("cannot make a certificate with the openssl CLI");
    uint8_t raw[32];
    char hex[65];
    if (hw_random_bytes(raw, sizeof raw) < 0)
        die("random");
    for (int i = 0; i < 32; i++)
        sprintf(hex + 2 * i, "%02x", raw[i]);
    FILE *f = fopen(tok, "w");
    if (!f || fputs(hex, f) < 0 || fclose(f) != 0)
        die("cannot write the token");
    char why[128];
    if (hw_token_from_string(hex, &token, why, sizeof why) < 0)
        die(why);
}

static void spawn(const char *path)
{
    char pf[160], key[160], cert[160], tok[160];
    snprintf(pf, sizeof pf, "--port-file=%s/port", dir);
    snprintf(key, sizeof key, "--tls-key=%s/key.pem", dir);
    snprintf(cert, sizeof cert, "--tls-cert=%s/cert.pem", dir);
    snprintf(tok, sizeof tok, "--token-file=%s/token", dir);
    worker_pid = fork();
    if (worker_pid == 0) {
        char *argv[] = { (char *)path, "--backend=cpu", "--port=0", pf, key, cert, tok, NULL };
        execv(path, argv);
        _exit(127);
    }
    char portfile[160];
    snprintf(portfile, sizeof portfile, "%s/port", dir);
    for (int i = 0; i < 400 && !port; i++) {
        FILE *f = fopen(portfile, "r");
        if (f) {
            if (fscanf(f, "%d", &port) != 1)
                port = 0;
            fclose(f);
        }
        if (!port)
            usleep(25000);
    }
    if (!port)
        die("the worker did not start listening");
}

/* One request; when want_reply, reads its reply (body/tail into out). */
static int request(struct link *l, uint16_t op, int want_reply, const void *fixed, size_t fl,
                   const void *tail, size_t tl, void *out, size_t out_cap)
{
    uint8_t hdr[HIPR_HEADER_SIZE + HIPR_reply_hdr_SIZE];
    struct hipr_header h = {
        HIPR_MAGIC, HIPR_VERSION, op, ++l->next_id, want_reply ? 0 : HIPR_FLAG_NO_REPLY, fl + tl
    };
    hipr_header_encode(hdr, &h);
    struct iovec iov[3] = { { hdr, HIPR_HEADER_SIZE },
                            { (void *)fixed, fl },
                            { (void *)tail, tl } };
    if (hw_tx_writev_full(&l->tx, iov, 3) < 0)
        return -1;
    if (!want_reply)
        return 0;
    if (hw_tx_read_full(&l->tx, hdr, sizeof hdr) < 0)
        return -1;
    hipr_header_decode(hdr, &h);
    struct hipr_reply_hdr rh;
    hipr_reply_hdr_decode(hdr + HIPR_HEADER_SIZE, HIPR_reply_hdr_SIZE, &rh);
    uint64_t rest = h.payload_length - HIPR_reply_hdr_SIZE;
    if (rest > out_cap || (rest && hw_tx_read_full(&l->tx, out, (size_t)rest) < 0))
        return -1;
    return rh.status;
}

static int open_link(struct link *l, struct hw_tls_ctx *tls, uint64_t *devptr)
{
    int fd;
    char why[256];
    memset(l, 0, sizeof *l);
    if (hw_tcp_connect("127.0.0.1", port, 5000, &fd) < 0)
        return -1;
    hw_tx_init_plain(&l->tx, fd);
    if (tls && hw_tls_connect(&l->tx, tls, "127.0.0.1", 5000, why, sizeof why) < 0) {
        fprintf(stderr, "hipwire-bench-tls: %s\n", why);
        return -1;
    }
    struct hipr_auth_begin_req br = { .session = 0 };
    struct hipr_auth_begin_rep bp;
    struct hipr_auth_proof pr;
    uint8_t fixed[64], out[4096 + HIPR_CAP_DEVICES * 1024], binding[32];
    hw_random_bytes(br.client_nonce, sizeof br.client_nonce);
    hipr_auth_begin_req_encode(fixed, &br);
    if (request(l, HIPR_OP_AUTH_BEGIN, 1, fixed, HIPR_auth_begin_req_SIZE, NULL, 0, out,
                sizeof out) != 0)
        return -1;
    hipr_auth_begin_rep_decode(out, HIPR_auth_begin_rep_SIZE, &bp);
    hw_tx_channel_binding(&l->tx, binding);
    hw_auth_proof(&token, HW_PROOF_CLIENT, br.client_nonce, bp.worker_nonce, 0, binding, pr.proof);
    hipr_auth_proof_encode(fixed, &pr);
    if (request(l, HIPR_OP_AUTH_PROOF, 1, fixed, HIPR_auth_proof_SIZE, NULL, 0, out, sizeof out) !=
        0)
        return -1;
    struct hipr_hello_req hr = { .proto_min = HIPR_VERSION, .proto_max = HIPR_VERSION };
    hipr_hello_req_encode(fixed, &hr);
    if (request(l, HIPR_OP_HELLO, 1, fixed, HIPR_hello_req_SIZE, NULL, 0, out, sizeof out) != 0)
        return -1;
    if (!devptr)
        return 0;
    struct hipr_malloc_req mr = { .device = 0, .size = MAX_SIZE };
    struct hipr_ptr p;
    hipr_malloc_req_encode(fixed, &mr);
    if (request(l, HIPR_OP_MALLOC, 1, fixed, HIPR_malloc_req_SIZE, NULL, 0, out, sizeof out))
        return -1;
    hipr_ptr_decode(out, HIPR_ptr_SIZE, &p);
    *devptr = p.ptr;
    return 0;
}

static int ping(struct link *l)
{
    uint8_t fixed[8] = { 0 }, out[8];
    return request(l, HIPR_OP_PING, 1, fixed, sizeof fixed, NULL, 0, out, sizeof out);
}

/* H2D as the proxy sends it (fire-and-forget), made synchronous by a PING. */
static int h2d(struct link *l, uint64_t dst, const void *src, size_t n)
{
    struct hipr_memcpy_h2d m = { .dst = dst, .stream = 0 };
    uint8_t fixed[HIPR_memcpy_h2d_SIZE];
    hipr_memcpy_h2d_encode(fixed, &m);
    if (request(l, HIPR_OP_MEMCPY_H2D, 0, fixed, sizeof fixed, src, n, NULL, 0) < 0)
        return -1;
    return ping(l);
}

static int d2h(struct link *l, uint64_t src, void *dst, size_t n)
{
    struct hipr_memcpy_d2h m = { .src = src, .size = n, .stream = 0 };
    uint8_t fixed[HIPR_memcpy_d2h_SIZE];
    hipr_memcpy_d2h_encode(fixed, &m);
    return request(l, HIPR_OP_MEMCPY_D2H, 1, fixed, sizeof fixed, NULL, 0, dst, n);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

int main(int argc, char **argv)
{
    const char *worker = NULL;
    int quick = 0;
    if (hw_cli_help_version(argc, argv, "hipwire-bench-tls",
                            "usage: hipwire-bench-tls --spawn-worker PATH [--quick]\n"
                            "TLS against plain TCP through a spawned hip-worker, side by side.\n"))
        return 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--spawn-worker") && i + 1 < argc)
            worker = argv[++i];
        else if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else {
            fprintf(stderr, "usage: hipwire-bench-tls --spawn-worker PATH [--quick]\n");
            return 2;
        }
    }
    if (!worker) {
        fprintf(stderr, "usage: hipwire-bench-tls --spawn-worker PATH [--quick]\n");
        return 2;
    }
    if (!hw_tls_available()) {
        printf("hipwire-bench-tls: this build has no TLS\n");
        return 0;
    }
    signal(SIGPIPE, SIG_IGN);
    make_secrets();
    spawn(worker);
    char why[256], ca[160];
    snprintf(ca, sizeof ca, "%s/cert.pem", dir);
    struct hw_tls_ctx *tls = hw_tls_client_ctx(ca, 1, why, sizeof why);
    if (!tls)
        die(why);

    /* Connection setup, alternating plain and TLS. */
    int nconn = quick ? 5 : 20;
    double setup[2][64];
    for (int i = 0; i < nconn; i++)
        for (int m = 0; m < 2; m++) {
            struct link l;
            double t0 = now_s();
            if (open_link(&l, m ? tls : NULL, NULL) < 0)
                die("cannot open a session");
            setup[m][i] = now_s() - t0;
            hw_tx_close(&l.tx);
        }

    struct link lk[2];
    uint64_t dev[2];
    for (int m = 0; m < 2; m++)
        if (open_link(&lk[m], m ? tls : NULL, &dev[m]) < 0)
            die("cannot open a session");

    int npings = quick ? 2000 : 20000;
    double *rtt[2] = { malloc(sizeof(double) * (size_t)npings),
                       malloc(sizeof(double) * (size_t)npings) };
    if (!rtt[0] || !rtt[1])
        die("out of memory");
    for (int i = 0; i < npings; i++)
        for (int m = 0; m < 2; m++) {
            double t0 = now_s();
            if (ping(&lk[m]) != 0)
                die("PING failed");
            rtt[m][i] = now_s() - t0;
        }

    printf("== TLS vs plain TCP (one hip-worker, cpu backend, loopback; TLS / plain) ==\n");
    printf("%-34s %12s %12s %8s\n", "", "plain", "TLS", "ratio");
    double s0 = median(setup[0], nconn), s1 = median(setup[1], nconn);
    printf("%-34s %10.0f us %10.0f us %7.2fx\n", "connect+auth+HELLO, median", s0 * 1e6, s1 * 1e6,
           s1 / s0);
    double r0 = median(rtt[0], npings), r1 = median(rtt[1], npings);
    printf("%-34s %10.1f us %10.1f us %7.2fx\n", "PING round trip, p50", r0 * 1e6, r1 * 1e6,
           r1 / r0);

    uint8_t *buf = malloc(MAX_SIZE);
    if (!buf)
        die("out of memory");
    memset(buf, 0x5a, MAX_SIZE);
    static const size_t sizes[] = { 64u << 10, 1u << 20, 16u << 20, 64u << 20 };
    for (int dir_ = 0; dir_ < 2; dir_++)
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            size_t n = sizes[si];
            if (quick && n > (16u << 20))
                continue;
            int reps = (int)((quick ? 64u << 20 : 512u << 20) / n);
            if (reps < 3)
                reps = 3;
            if (reps > 200)
                reps = 200;
            double bw[2][200];
            for (int i = 0; i < reps; i++)
                for (int m = 0; m < 2; m++) {
                    double t0 = now_s();
                    int rc = dir_ == 0 ? h2d(&lk[m], dev[m], buf, n) : d2h(&lk[m], dev[m], buf, n);
                    if (rc != 0)
                        die("copy failed");
                    bw[m][i] = (double)n / (now_s() - t0) / 1e9;
                }
            double b0 = median(bw[0], reps), b1 = median(bw[1], reps);
            char label[64];
            snprintf(label, sizeof label, "%s %5zu %s, GB/s (median)", dir_ ? "D2H" : "H2D",
                     n >= (1u << 20) ? n >> 20 : n >> 10, n >= (1u << 20) ? "MiB" : "KiB");
            printf("%-34s %12.2f %12.2f %7.2fx\n", label, b0, b1, b1 / b0);
        }
    for (int m = 0; m < 2; m++)
        hw_tx_close(&lk[m].tx);
    hw_tls_ctx_free(tls);
    kill(worker_pid, SIGTERM);
    waitpid(worker_pid, NULL, 0);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "hipwire-bench-tls: could not remove %s\n", dir);
    free(buf);
    free(rtt[0]);
    free(rtt[1]);
    return 0;
}
