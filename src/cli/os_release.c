#include "os_release.h"

#include <string.h>
#include <sys/utsname.h>

#include "host_fs.h"

static void copy_value(char *dst, size_t size, const char *src, size_t len)
{
    if (len >= 2 && (src[0] == '"' || src[0] == '\'') && src[len - 1] == src[0]) {
        src++;
        len -= 2;
    }
    if (len >= size)
        len = size - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

void os_release_parse(const char *text, os_release *out)
{
    memset(out, 0, sizeof(*out));
    const char *line = text;
    while (line && *line) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        const char *eq = memchr(line, '=', len);
        if (eq && line[0] != '#') {
            size_t klen = (size_t)(eq - line);
            const char *val = eq + 1;
            size_t vlen = len - klen - 1;
            struct {
                const char *key;
                char *dst;
                size_t size;
            } fields[] = {
                { "ID", out->id, sizeof(out->id) },
                { "ID_LIKE", out->id_like, sizeof(out->id_like) },
                { "VERSION_ID", out->version_id, sizeof(out->version_id) },
                { "VERSION_CODENAME", out->version_codename, sizeof(out->version_codename) },
                { "PRETTY_NAME", out->pretty_name, sizeof(out->pretty_name) },
            };
            for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
                if (strlen(fields[i].key) == klen && memcmp(fields[i].key, line, klen) == 0)
                    copy_value(fields[i].dst, fields[i].size, val, vlen);
            }
        }
        line = nl ? nl + 1 : NULL;
    }
}

int os_release_read(os_release *out)
{
    static const char *const candidates[] = { "/etc/os-release", "/usr/lib/os-release" };
    char path[4096], text[8192];
    for (size_t i = 0; i < 2; i++) {
        if (host_path(path, sizeof(path), "%s", candidates[i]) < 0)
            continue;
        if (read_text_file(path, text, sizeof(text)) == 0) {
            os_release_parse(text, out);
            return 0;
        }
    }
    return -1;
}

int kernel_release(char *buf, size_t size)
{
    char path[4096];
    if (host_path(path, sizeof(path), "/proc/sys/kernel/osrelease") == 0 &&
        read_text_file(path, buf, size) == 0 && buf[0])
        return 0;
    struct utsname u;
    if (uname(&u) < 0 || strlen(u.release) >= size)
        return -1;
    strcpy(buf, u.release);
    return 0;
}
