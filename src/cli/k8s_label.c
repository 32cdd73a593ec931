#include "k8s_label.h"

#include <ctype.h>
#include <string.h>

static bool is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool is_value_char(char c)
{
    return is_alnum(c) || c == '-' || c == '_' || c == '.';
}

static bool name_valid(const char *s, size_t len, bool allow_empty)
{
    if (len == 0)
        return allow_empty;
    if (len > K8S_LABEL_VALUE_MAX)
        return false;
    if (!is_alnum(s[0]) || !is_alnum(s[len - 1]))
        return false;
    for (size_t i = 0; i < len; i++)
        if (!is_value_char(s[i]))
            return false;
    return true;
}

bool k8s_label_value_valid(const char *value)
{
    return value && name_valid(value, strlen(value), true);
}

/* RFC 1123 subdomain: lower-case labels of [a-z0-9-], dot separated. */
static bool dns_subdomain_valid(const char *s, size_t len)
{
    if (len == 0 || len > 253)
        return false;
    size_t label_start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || s[i] == '.') {
            size_t n = i - label_start;
            if (n == 0 || n > 63)
                return false;
            char first = s[label_start], last = s[i - 1];
            if (!(islower((unsigned char)first) || isdigit((unsigned char)first)))
                return false;
            if (!(islower((unsigned char)last) || isdigit((unsigned char)last)))
                return false;
            label_start = i + 1;
            continue;
        }
        if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '-'))
            return false;
    }
    return true;
}

bool k8s_label_key_valid(const char *key)
{
    if (!key)
        return false;
    const char *slash = strchr(key, '/');
    if (!slash)
        return name_valid(key, strlen(key), false);
    if (strchr(slash + 1, '/'))
        return false;
    return dns_subdomain_valid(key, (size_t)(slash - key)) &&
           name_valid(slash + 1, strlen(slash + 1), false);
}

size_t k8s_label_value_sanitize(const char *in, char *out, size_t out_size)
{
    char tmp[256];
    size_t n = 0;
    if (out_size == 0)
        return 0;
    for (const char *p = in ? in : ""; *p && n < sizeof(tmp) - 1; p++) {
        char c = *p;
        if (c == '(' || c == ')')
            continue;
        tmp[n++] = is_value_char(c) ? c : '_';
    }
    size_t start = 0;
    while (start < n && !is_alnum(tmp[start]))
        start++;
    size_t end = n;
    if (end - start > K8S_LABEL_VALUE_MAX)
        end = start + K8S_LABEL_VALUE_MAX;
    while (end > start && !is_alnum(tmp[end - 1]))
        end--;
    size_t len = end - start;
    if (len >= out_size)
        len = out_size - 1;
    while (len > 0 && !is_alnum(tmp[start + len - 1]))
        len--;
    memcpy(out, tmp + start, len);
    out[len] = '\0';
    return len;
}
