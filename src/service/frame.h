/* frame.h - the runner's result channel: one line per event,
 * "\n<hmac-sha256 hex> <seq> <json>\n", keyed with a per-run secret the
 * service gives only to the runner. Shared by both ends. */
#ifndef HW_SVC_FRAME_H
#define HW_SVC_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define HW_FRAME_KEY_LEN 32
#define HW_FRAME_MAX     65536

/* Writes hex(HMAC(key, "<seq> <json>")) into mac (65 bytes). */
void hw_frame_mac(const unsigned char key[HW_FRAME_KEY_LEN], uint64_t seq, const char *json,
                  char mac[65]);

/* Checks one received line (without its newline). Returns 0 and points
 * *json into line when the MAC and the expected sequence number match. */
int hw_frame_verify(const unsigned char key[HW_FRAME_KEY_LEN], uint64_t expect_seq, char *line,
                    const char **json);

#endif
