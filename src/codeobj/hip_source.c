/* hip_source.c - reads the portable-source entry of a hipwire-cc fat binary
 * (format in hip_source.h). The bytes come from the program's own image, but
 * are checked like input: nothing is read past len. */
#include "hip_source.h"

#include <string.h>

int hw_src_parse(const void *data, size_t len, hw_src_program *out)
{
    const char *p = data;
    if (!data || len < HW_SRC_MAGIC_LEN || memcmp(p, HW_SRC_MAGIC, HW_SRC_MAGIC_LEN) != 0)
        return -1;
    hw_src_program r;
    memset(&r, 0, sizeof r);
    size_t i = HW_SRC_MAGIC_LEN;
    const char *pending_header = NULL;
    while (i < len) {
        char tag = p[i++];
        const char *s = p + i;
        const char *nul = i < len ? memchr(s, '\0', len - i) : NULL;
        if (!nul)
            return -1;
        i += (size_t)(nul - s) + 1;
        if (pending_header && tag != 'C')
            return -1;
        switch (tag) {
        case 'N': r.name = s; break;
        case 'S': r.source = s; break;
        case 'O':
            if (r.option_count == HW_SRC_MAX_LIST)
                return -1;
            r.options[r.option_count++] = s;
            break;
        case 'H':
            if (r.header_count == HW_SRC_MAX_LIST)
                return -1;
            pending_header = s;
            break;
        case 'C':
            if (!pending_header)
                return -1;
            r.header_names[r.header_count] = pending_header;
            r.headers[r.header_count++] = s;
            pending_header = NULL;
            break;
        default: return -1;
        }
    }
    if (!r.name || !r.source || pending_header)
        return -1;
    *out = r;
    return 0;
}
