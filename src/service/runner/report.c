/* report.c - events to the service on the dedicated fd, each line
 * authenticated (../frame.c). One write() per line, below PIPE_BUF where
 * possible, so a line is never interleaved with anything else written to
 * the pipe; the leading newline ends any partial line written before it. */
#include "hw_alloc.h"
#include "runner.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../frame.h"

static int report_fd = -1;
static unsigned char report_key[HW_FRAME_KEY_LEN];
static uint64_t report_seq;

int report_init(int fd, const unsigned char *key)
{
    report_fd = fd;
    memcpy(report_key, key, HW_FRAME_KEY_LEN);
    return 0;
}

void report_event(const char *name, json_t *payload)
{
    if (!payload)
        payload = json_object();
    json_object_set_new(payload, "status", json_string(name));
    char *js = json_dumps(payload, JSON_COMPACT);
    json_decref(payload);
    if (!js || report_fd < 0) {
        free(js);
        return;
    }
    char mac[65];
    uint64_t seq = report_seq++;
    hw_frame_mac(report_key, seq, js, mac);
    size_t n = strlen(js) + 100;
    char *line = hw_malloc(n);
    if (line) {
        int len = snprintf(line, n, "\n%s %llu %s\n", mac, (unsigned long long)seq, js);
        const char *p = line;
        size_t left = (size_t)len;
        while (left) {
            ssize_t w = write(report_fd, p, left);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                break;
            p += w;
            left -= (size_t)w;
        }
        free(line);
    }
    free(js);
}
