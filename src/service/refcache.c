/* refcache.c - problems' references compiled once per (problem, worker,
 * device) by a trusted runner (--precompile: no solution involved) into a
 * directory of the service's, instead of once per submission. Runners get
 * the file and its SHA-256 and load it only if the bytes match, so a
 * solution that could write there (no Landlock) cannot swap a reference.
 * Any failure here only means the runner compiles the reference itself. */
#include "service.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/evp.h>

#define MAX_ENTRIES 512

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static char cache_dir[64];
static unsigned cache_seq;
static struct {
    const struct problem *prob;
    int worker, device;
    char path[160];
    char sha[65];
} entries[MAX_ENTRIES];
static int nentries;

static int sha_file(const char *path, char hex[65])
{
    FILE *f = fopen(path, "rb");
    unsigned char buf[65536], md[EVP_MAX_MD_SIZE];
    unsigned len = 0;
    size_t n;
    int rc = -1;
    if (!f)
        return -1;
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    if (c && EVP_DigestInit_ex(c, EVP_sha256(), NULL) == 1) {
        rc = 0;
        while (rc == 0 && (n = fread(buf, 1, sizeof buf, f)) > 0)
            rc = EVP_DigestUpdate(c, buf, n) == 1 ? 0 : -1;
        if (rc == 0 && EVP_DigestFinal_ex(c, md, &len) == 1 && len == 32)
            for (unsigned i = 0; i < 32; i++)
                sprintf(hex + 2 * i, "%02x", md[i]);
        else
            rc = -1;
    }
    EVP_MD_CTX_free(c);
    fclose(f);
    return rc;
}

/* Runs hipwire-runner --precompile; 0 when out was written. */
static int precompile(const struct problem *p, const struct lease *l, const char *src,
                      const char *out)
{
    char port[16], dev[16];
    snprintf(port, sizeof port, "%d", l->port);
    snprintf(dev, sizeof dev, "%d", l->device);
    FILE *f = fopen(src, "wb");
    if (!f)
        return -1;
    int ok = fputs(p->reference_source, f) >= 0;
    if (fclose(f) != 0 || !ok)
        return -1;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int nul = open("/dev/null", O_RDWR);
        if (nul >= 0) {
            dup2(nul, 0);
            dup2(nul, 1);
        }
        closefrom(3);
        setenv("TF_WORKER_HOST", l->host, 1);
        setenv("TF_WORKER_PORT", port, 1);
        setenv("TF_WORKER_RESUME_TIMEOUT_MS", "0", 1);
        if (svc_cfg()->worker_token_file)
            setenv("TF_WORKER_TOKEN_FILE", svc_cfg()->worker_token_file, 1);
        alarm(120);
        execl(svc_cfg()->runner_path, "hipwire-runner", "--precompile", out, "--reference", src,
              "--device", dev, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    unlink(src);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

int refcache_get(const struct problem *p, const struct lease *l, char *path, size_t psz,
                 char sha[65])
{
    char src[200], out[160];
    unsigned seq;
    pthread_mutex_lock(&cache_lock);
    for (int i = 0; i < nentries; i++)
        if (entries[i].prob == p && entries[i].worker == l->worker &&
            entries[i].device == l->device) {
            snprintf(path, psz, "%s", entries[i].path);
            memcpy(sha, entries[i].sha, 65);
            pthread_mutex_unlock(&cache_lock);
            return 0;
        }
    if (!cache_dir[0]) {
        snprintf(cache_dir, sizeof cache_dir, "/tmp/hipwire-refcache-XXXXXX");
        if (!mkdtemp(cache_dir))
            cache_dir[0] = '\0';
        else
            fprintf(stderr, "hipwire-service: compiled references in %s\n", cache_dir);
    }
    seq = ++cache_seq;
    int have_dir = cache_dir[0] != '\0';
    pthread_mutex_unlock(&cache_lock);
    if (!have_dir)
        return -1;
    /* Unique names: two submissions may compile the same key at once. */
    snprintf(src, sizeof src, "%s/ref-%u.hip", cache_dir, seq);
    snprintf(out, sizeof out, "%s/ref-%u.co", cache_dir, seq);
    char hex[65];
    if (precompile(p, l, src, out) != 0 || sha_file(out, hex) != 0) {
        unlink(out);
        return -1;
    }
    chmod(out, 0400);
    pthread_mutex_lock(&cache_lock);
    if (nentries < MAX_ENTRIES) {
        entries[nentries].prob = p;
        entries[nentries].worker = l->worker;
        entries[nentries].device = l->device;
        snprintf(entries[nentries].path, sizeof entries[nentries].path, "%s", out);
        memcpy(entries[nentries].sha, hex, 65);
        nentries++;
    }
    pthread_mutex_unlock(&cache_lock);
    snprintf(path, psz, "%s", out);
    memcpy(sha, hex, 65);
    return 0;
}

void refcache_cleanup(void)
{
    pthread_mutex_lock(&cache_lock);
    for (int i = 0; i < nentries; i++)
        unlink(entries[i].path);
    if (cache_dir[0])
        rmdir(cache_dir);
    pthread_mutex_unlock(&cache_lock);
}
