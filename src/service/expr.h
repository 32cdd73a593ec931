/* expr.h - the arithmetic in problem definitions (sizes, counts, flops,
 * launch geometry): numbers, variables, + - * / % ( ), cdiv(a,b), min, max. */
#ifndef HW_SVC_EXPR_H
#define HW_SVC_EXPR_H

/* Looks a variable up; returns 0 and sets *v when it is known. */
typedef int (*hw_expr_lookup)(void *ctx, const char *name, double *v);

/* Evaluates s; 0 and *out on success, -1 (out untouched) on a syntax error
 * or an unknown variable. */
int hw_expr_eval(const char *s, hw_expr_lookup lookup, void *ctx, double *out);

#endif
