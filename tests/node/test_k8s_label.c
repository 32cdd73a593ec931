/* Label value sanitising and validation against hand-checked cases. */
#include <stdio.h>
#include <string.h>

#include "k8s_label.h"

static int failures;

static void expect_sanitized(const char *in, const char *want)
{
    char out[K8S_LABEL_VALUE_MAX + 1];
    k8s_label_value_sanitize(in, out, sizeof(out));
    if (strcmp(out, want) != 0 || !k8s_label_value_valid(out)) {
        fprintf(stderr, "sanitize(\"%s\") = \"%s\", want \"%s\"\n", in, out, want);
        failures++;
    }
}

static void expect_value(const char *v, int valid)
{
    if (k8s_label_value_valid(v) != valid) {
        fprintf(stderr, "value \"%s\": valid=%d, want %d\n", v, !valid, valid);
        failures++;
    }
}

static void expect_key(const char *k, int valid)
{
    if (k8s_label_key_valid(k) != valid) {
        fprintf(stderr, "key \"%s\": valid=%d, want %d\n", k, !valid, valid);
        failures++;
    }
}

int main(void)
{
    char sixty_four[65], sixty_three[64], long_in[200];
    memset(sixty_four, 'a', 64);
    sixty_four[64] = '\0';
    memset(sixty_three, 'a', 63);
    sixty_three[63] = '\0';

    expect_sanitized("AMD Instinct MI300X OAM", "AMD_Instinct_MI300X_OAM");
    expect_sanitized("AMD Instinct MI325 OAM", "AMD_Instinct_MI325_OAM");
    expect_sanitized("AMD Instinct MI250X/MI250", "AMD_Instinct_MI250X_MI250");
    expect_sanitized("Radeon Pro W7900 (Navi 31)", "Radeon_Pro_W7900_Navi_31");
    expect_sanitized("(AMD)", "AMD");
    expect_sanitized("  6.12.12  ", "6.12.12");
    expect_sanitized("--x--", "x");
    expect_sanitized("Instinct\xe2\x84\xa2", "Instinct"); /* trailing UTF-8 (TM) */
    expect_sanitized("", "");
    expect_sanitized("()", "");
    expect_sanitized("___", "");
    expect_sanitized(sixty_four, sixty_three);
    /* cut at 63, then the cut end must be alphanumeric again */
    memset(long_in, 'b', 62);
    strcpy(long_in + 62, "-tail");
    memset(sixty_three, 'b', 62);
    sixty_three[62] = '\0';
    expect_sanitized(long_in, sixty_three);

    expect_value("", 1);
    expect_value("cpx_nps4", 1);
    expect_value("192G", 1);
    expect_value("a.b-c_d", 1);
    expect_value("-a", 0);
    expect_value("a-", 0);
    expect_value("a b", 0);
    expect_value("a/b", 0);
    expect_value(sixty_four, 0);

    expect_key("gpu", 1);
    expect_key("amd.com/gpu", 1);
    expect_key("amd.com/gpu.product-name", 1);
    expect_key("feature.node.kubernetes.io/amd-gpu", 1);
    expect_key("amd.com/gpu.vram.192G", 1);
    expect_key("AMD.com/gpu", 0); /* prefix must be lower case */
    expect_key("amd.com/", 0);
    expect_key("/gpu", 0);
    expect_key("amd.com/a/b", 0);
    expect_key("amd..com/gpu", 0);
    expect_key("-amd.com/gpu", 0);

    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    puts("ok: label values");
    return 0;
}
