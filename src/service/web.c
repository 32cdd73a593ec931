/* web.c - the page at /, embedded at build time from web/index.html
 * (generated web_index.c holds its bytes). */
#include "service.h"

extern const char hw_web_index[];
extern const unsigned long hw_web_index_len;

const char *web_index_html(size_t *len)
{
    *len = hw_web_index_len;
    return hw_web_index;
}
