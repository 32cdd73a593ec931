/*
 * The worker's kept replies (src/worker/reply_log.c): copied, handed-over
 * and borrowed tails; acknowledgement in order; re-sending exactly the
 * bytes first sent, even after the memory a borrowed tail pointed at has
 * changed (once snapshotted); every handed-over buffer given back once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reply_log.h"
#include "testutil.h"

static int given_back;

static void give_back(void *ctx, void *buf)
{
    (void)ctx;
    given_back++;
    free(buf);
}

struct seen {
    uint8_t bytes[4096];
    size_t len;
    int frames;
};

static int collect(void *ctx, const void *head, size_t head_len, const void *tail,
                   uint64_t tail_len)
{
    struct seen *s = ctx;
    CHECK(s->len + head_len + tail_len <= sizeof s->bytes);
    memcpy(s->bytes + s->len, head, head_len);
    s->len += head_len;
    if (tail_len)
        memcpy(s->bytes + s->len, tail, (size_t)tail_len);
    s->len += (size_t)tail_len;
    s->frames++;
    return 0;
}

int main(void)
{
    struct reply_log log;
    reply_log_init(&log, give_back, NULL);
    uint8_t hdr[32], body[8] = "bodybod", device[64];
    memset(hdr, 'h', sizeof hdr);
    memset(device, 'd', sizeof device);
    char small[5] = "abcd";

    /* Out of memory (the seam's first allocation fails): nothing is kept and
     * the handed-over buffer is still the caller's, to send and then free. */
    setenv("HIPWIRE_FAIL_ALLOC", "1", 1);
    uint8_t *unkept = malloc(8);
    CHECK(reply_log_add(&log, hdr, sizeof hdr, NULL, 0, unkept, 8, REPLY_TAIL_GIVE, unkept) == -1);
    CHECK(given_back == 0 && log.sent == 0 && log.bytes == 0 && log.first == NULL);
    free(unkept);

    /* 1: copied tail; 2: handed-over buffer; 3: borrowed device memory. */
    CHECK(reply_log_add(&log, hdr, sizeof hdr, body, sizeof body, small, 4, REPLY_TAIL_COPY,
                        NULL) == 0);
    uint8_t *staged = malloc(16);
    memset(staged, 's', 16);
    CHECK(reply_log_add(&log, hdr, sizeof hdr, NULL, 0, staged, 16, REPLY_TAIL_GIVE, staged) == 0);
    CHECK(reply_log_add(&log, hdr, sizeof hdr, NULL, 0, device, sizeof device, REPLY_TAIL_BORROW,
                        NULL) == 0);
    CHECK(log.sent == 3 && log.borrowed == 1);
    CHECK(log.bytes == 3 * sizeof hdr + sizeof body + 4 + 16 + sizeof device);
    small[0] = 'X'; /* a copied tail no longer depends on the caller */

    /* Before the next request runs, borrowed tails become copies. */
    CHECK(reply_log_snapshot(&log) == 0 && log.borrowed == 0);
    memset(device, 'Z', sizeof device); /* a later request changes the source */

    CHECK(reply_log_has(&log, 0) && reply_log_has(&log, 3) && !reply_log_has(&log, 4));
    struct seen s = { .len = 0 };
    CHECK(reply_log_resend(&log, 1, collect, &s) == 0);
    CHECK(s.frames == 2 && s.len == 2 * sizeof hdr + 16 + 64);
    for (size_t i = 0; i < 16; i++)
        CHECK(s.bytes[sizeof hdr + i] == 's');
    for (size_t i = 0; i < 64; i++)
        CHECK(s.bytes[2 * sizeof hdr + 16 + i] == 'd'); /* the bytes first sent */

    /* Acknowledged replies go, in order; the buffer is given back once. */
    reply_log_ack(&log, 1);
    CHECK(!reply_log_has(&log, 0) && reply_log_has(&log, 1) && given_back == 0);
    reply_log_ack(&log, 2);
    CHECK(given_back == 1 && log.bytes == sizeof hdr + sizeof device);
    reply_log_ack(&log, 1); /* an old acknowledgement changes nothing */
    CHECK(log.acked == 2);
    reply_log_ack(&log, 99); /* nor can one from the future drop what was not sent */
    CHECK(log.acked == 3 && log.bytes == 0 && reply_log_has(&log, 3));

    /* Clearing gives back what was handed over and never acknowledged. */
    for (int i = 0; i < 10; i++) {
        uint8_t *b = malloc(8);
        CHECK(reply_log_add(&log, hdr, sizeof hdr, NULL, 0, b, 8, REPLY_TAIL_GIVE, b) == 0);
    }
    CHECK(reply_log_add(&log, hdr, sizeof hdr, NULL, 0, device, 8, REPLY_TAIL_BORROW, NULL) == 0);
    reply_log_clear(&log);
    CHECK(given_back == 11 && log.bytes == 0 && log.borrowed == 0 && log.sent == 14);
    printf("reply log: ok\n");
    return 0;
}
