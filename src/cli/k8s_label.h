/* Kubernetes label keys and values (k8s.io/apimachinery validation rules):
 * a value is empty or at most 63 characters of [A-Za-z0-9._-] that begin and
 * end with an alphanumeric; a key is [prefix/]name where the prefix is a DNS
 * subdomain of at most 253 characters and the name follows the value rule but
 * must not be empty. */
#ifndef HIPWIRE_CLI_K8S_LABEL_H
#define HIPWIRE_CLI_K8S_LABEL_H

#include <stdbool.h>
#include <stddef.h>

#define K8S_LABEL_VALUE_MAX 63

bool k8s_label_value_valid(const char *value);
bool k8s_label_key_valid(const char *key);

/* Turns free text (a product name, a version) into a valid value the way the
 * AMD node labeller does for product names: whitespace becomes '_',
 * parentheses are dropped; any other invalid character becomes '_'; leading
 * and trailing non-alphanumerics are trimmed; the result is cut to 63
 * characters. out needs K8S_LABEL_VALUE_MAX + 1 bytes. Returns the length. */
size_t k8s_label_value_sanitize(const char *in, char *out, size_t out_size);

#endif
