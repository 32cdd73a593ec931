/* expr.c - a recursive-descent evaluator for problem definitions' formulas.
 * Doubles throughout: sizes stay exact below 2^53, far past any test. */
#include "expr.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct parser {
    const char *p;
    hw_expr_lookup lookup;
    void *ctx;
    int err;
};

static double parse_sum(struct parser *ps);

static void skip_ws(struct parser *ps)
{
    while (isspace((unsigned char)*ps->p))
        ps->p++;
}

static double call_fn(struct parser *ps, const char *name)
{
    double a, b;
    ps->p++; /* '(' */
    a = parse_sum(ps);
    skip_ws(ps);
    if (*ps->p != ',') {
        ps->err = 1;
        return 0;
    }
    ps->p++;
    b = parse_sum(ps);
    skip_ws(ps);
    if (*ps->p != ')') {
        ps->err = 1;
        return 0;
    }
    ps->p++;
    if (!strcmp(name, "cdiv"))
        return b != 0 ? ceil(a / b) : (ps->err = 1, 0);
    if (!strcmp(name, "min"))
        return a < b ? a : b;
    if (!strcmp(name, "max"))
        return a > b ? a : b;
    ps->err = 1;
    return 0;
}

static double parse_atom(struct parser *ps)
{
    skip_ws(ps);
    char c = *ps->p;
    if (c == '(') {
        ps->p++;
        double v = parse_sum(ps);
        skip_ws(ps);
        if (*ps->p != ')')
            ps->err = 1;
        else
            ps->p++;
        return v;
    }
    if (c == '-') {
        ps->p++;
        return -parse_atom(ps);
    }
    if (isdigit((unsigned char)c) || c == '.') {
        char *end;
        double v = strtod(ps->p, &end);
        ps->p = end;
        return v;
    }
    if (isalpha((unsigned char)c) || c == '_') {
        char name[64];
        size_t n = 0;
        while ((isalnum((unsigned char)*ps->p) || *ps->p == '_') && n < sizeof name - 1)
            name[n++] = *ps->p++;
        name[n] = '\0';
        skip_ws(ps);
        if (*ps->p == '(')
            return call_fn(ps, name);
        double v = 0;
        if (!ps->lookup || ps->lookup(ps->ctx, name, &v) != 0)
            ps->err = 1;
        return v;
    }
    ps->err = 1;
    return 0;
}

static double parse_product(struct parser *ps)
{
    double v = parse_atom(ps);
    for (;;) {
        skip_ws(ps);
        char op = *ps->p;
        if (op != '*' && op != '/' && op != '%')
            return v;
        ps->p++;
        double r = parse_atom(ps);
        if (op == '*')
            v *= r;
        else if (r == 0)
            ps->err = 1;
        else if (op == '/')
            v /= r;
        else
            v = fmod(v, r);
    }
}

static double parse_sum(struct parser *ps)
{
    double v = parse_product(ps);
    for (;;) {
        skip_ws(ps);
        char op = *ps->p;
        if (op != '+' && op != '-')
            return v;
        ps->p++;
        double r = parse_product(ps);
        v = op == '+' ? v + r : v - r;
    }
}

int hw_expr_eval(const char *s, hw_expr_lookup lookup, void *ctx, double *out)
{
    struct parser ps = { s, lookup, ctx, 0 };
    if (!s)
        return -1;
    double v = parse_sum(&ps);
    skip_ws(&ps);
    if (ps.err || *ps.p != '\0' || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}
