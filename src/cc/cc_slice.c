/*
 * cc_slice.c - keeps what a device compile needs from a HIP source file.
 *
 * A HIP translation unit mixes host and device code; the worker compiles it
 * for its device with its own prelude (the host compiler on the CPU device,
 * NVRTC on NVIDIA), where host API calls and <<<>>> do not parse. Host-only
 * function definitions are blanked instead of preprocessed away, so the
 * program's own headers, macros and #if blocks reach the worker unexpanded
 * and the compile log keeps the user's line numbers.
 *
 * A scanner, not a parser: it follows comments, string and character
 * literals, preprocessor lines and braces, and looks at namespace scope
 * only (namespace and extern "C" blocks are entered; class bodies are kept
 * whole). Code that makes braces unbalanced across #if branches, or host
 * functions produced by macros, are not recognised (docs/hip-source.md).
 */
#include "cc_slice.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "hw_alloc.h"

struct scan {
    char *t;
    size_t len, pos;
    unsigned char *pp; /* 1 where a byte belongs to a preprocessor line */
};

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Skips a literal starting at pos (a quote); returns the index after it. */
static size_t skip_literal(const char *t, size_t len, size_t pos)
{
    char q = t[pos];
    /* Raw strings: R"delim( ... )delim" */
    if (q == '"' && pos > 0 && t[pos - 1] == 'R' &&
        (pos < 2 || !ident_char(t[pos - 2]) || t[pos - 2] == 'u' || t[pos - 2] == 'L' ||
         t[pos - 2] == '8' || t[pos - 2] == 'U')) {
        size_t d = pos + 1;
        while (d < len && t[d] != '(' && d - pos < 17)
            d++;
        char close[20];
        size_t dl = d - pos - 1;
        close[0] = ')';
        memcpy(close + 1, t + pos + 1, dl);
        close[dl + 1] = '"';
        size_t cl = dl + 2;
        for (size_t i = d; i + cl <= len; i++)
            if (memcmp(t + i, close, cl) == 0)
                return i + cl;
        return len;
    }
    for (size_t i = pos + 1; i < len; i++) {
        if (t[i] == '\\')
            i++;
        else if (t[i] == q || t[i] == '\n')
            return i + 1;
    }
    return len;
}

/* Marks the preprocessor lines (with their continuations) of the text. */
static void mark_pp(struct scan *s)
{
    int line_start = 1;
    for (size_t i = 0; i < s->len; i++) {
        char c = s->t[i];
        if (c == '\n') {
            line_start = 1;
            continue;
        }
        if (line_start && (c == ' ' || c == '\t'))
            continue;
        if (line_start && c == '#') {
            while (i < s->len && s->t[i] != '\n') {
                if (s->t[i] == '\\' && i + 1 < s->len && s->t[i + 1] == '\n')
                    s->pp[i++] = 1;
                else if (s->t[i] == '/' && i + 1 < s->len && s->t[i + 1] == '*') {
                    /* a block comment may run past the line's end */
                    char *e = strstr(s->t + i + 2, "*/");
                    size_t end = e ? (size_t)(e - s->t) + 2 : s->len;
                    while (i < end)
                        s->pp[i++] = 1;
                    continue;
                }
                s->pp[i++] = 1;
            }
            i--;
            line_start = 0;
            continue;
        }
        line_start = 0;
        if (c == '/' && i + 1 < s->len && s->t[i + 1] == '/') {
            while (i + 1 < s->len && s->t[i + 1] != '\n')
                i++;
        } else if (c == '/' && i + 1 < s->len && s->t[i + 1] == '*') {
            char *e = strstr(s->t + i + 2, "*/");
            i = e ? (size_t)(e - s->t) + 1 : s->len;
        } else if (c == '"' || c == '\'') {
            i = skip_literal(s->t, s->len, i) - 1;
        }
    }
}

/* The next significant byte at or after pos (skipping comments, literals
 * and preprocessor lines are the caller's): returns its index, or len. */
static size_t skip_space(struct scan *s, size_t i)
{
    while (i < s->len) {
        if (s->pp[i] || isspace((unsigned char)s->t[i])) {
            i++;
        } else if (s->t[i] == '/' && i + 1 < s->len && s->t[i + 1] == '/') {
            while (i < s->len && s->t[i] != '\n')
                i++;
        } else if (s->t[i] == '/' && i + 1 < s->len && s->t[i + 1] == '*') {
            char *e = strstr(s->t + i + 2, "*/");
            i = e ? (size_t)(e - s->t) + 2 : s->len;
        } else {
            break;
        }
    }
    return i;
}

/* Index after the brace matching the '{' at open. */
static size_t match_brace(struct scan *s, size_t open)
{
    int depth = 0;
    for (size_t i = open; i < s->len;) {
        i = skip_space(s, i);
        if (i >= s->len)
            break;
        char c = s->t[i];
        if (c == '"' || c == '\'') {
            /* a digit separator (1'000) is not a literal */
            if (c == '\'' && i > 0 && isxdigit((unsigned char)s->t[i - 1])) {
                i++;
                continue;
            }
            i = skip_literal(s->t, s->len, i);
            continue;
        }
        if (c == '{')
            depth++;
        else if (c == '}' && --depth == 0)
            return i + 1;
        i++;
    }
    return s->len;
}

/* Whether the head (significant text between a declaration's start and its
 * '{') holds the word w outside literals. */
static int head_has_word(struct scan *s, size_t from, size_t to, const char *w)
{
    size_t wl = strlen(w);
    for (size_t i = from; i + wl <= to; i++) {
        if (s->pp[i])
            continue;
        if (s->t[i] == '"' || s->t[i] == '\'') {
            i = skip_literal(s->t, to, i) - 1;
            continue;
        }
        if (memcmp(s->t + i, w, wl) == 0 && (i == from || !ident_char(s->t[i - 1])) &&
            (i + wl == to || !ident_char(s->t[i + wl])))
            return 1;
    }
    return 0;
}

enum head_kind { HEAD_SCOPE, HEAD_FUNCTION, HEAD_OTHER };

static enum head_kind classify(struct scan *s, size_t from, size_t to)
{
    size_t first = skip_space(s, from);
    if (head_has_word(s, first, to, "namespace"))
        return HEAD_SCOPE;
    /* extern "C" { */
    if (to - first >= 6 && memcmp(s->t + first, "extern", 6) == 0) {
        size_t q = skip_space(s, first + 6);
        if (q < to && s->t[q] == '"') {
            size_t after = skip_space(s, skip_literal(s->t, to, q));
            if (after >= to)
                return HEAD_SCOPE;
        }
    }
    int paren = 0, saw_paren = 0, eq = 0;
    for (size_t i = first; i < to; i++) {
        if (s->pp[i])
            continue;
        char c = s->t[i];
        if (c == '"' || c == '\'') {
            i = skip_literal(s->t, to, i) - 1;
            continue;
        }
        if (c == '(') {
            paren++;
            saw_paren = 1;
        } else if (c == ')') {
            paren--;
        } else if (c == '=' && paren == 0) {
            eq = 1;
        }
    }
    if (!saw_paren || eq)
        return HEAD_OTHER;
    /* class/struct/enum bodies: the keyword before any parenthesis */
    static const char *const tags[] = { "class", "struct", "union", "enum" };
    size_t p = first;
    while (p < to && s->t[p] != '(')
        p++;
    for (size_t k = 0; k < sizeof tags / sizeof tags[0]; k++)
        if (head_has_word(s, first, p, tags[k]) && !head_has_word(s, first, p, "template"))
            return HEAD_OTHER;
    if (head_has_word(s, first, p, "template")) {
        /* template <class T> struct X {: a class template's body */
        size_t close = p;
        while (close > first && s->t[close] != '>')
            close--;
        for (size_t k = 0; k < sizeof tags / sizeof tags[0]; k++)
            if (head_has_word(s, close, p, tags[k]))
                return HEAD_OTHER;
    }
    return HEAD_FUNCTION;
}

static int device_function(struct scan *s, size_t from, size_t to)
{
    return head_has_word(s, from, to, "__global__") || head_has_word(s, from, to, "__device__") ||
           head_has_word(s, from, to, "constexpr") ||
           head_has_word(s, from, to, "__launch_bounds__");
}

/* Blanks [from, to) except newlines and preprocessor lines. */
static void blank(struct scan *s, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (!s->pp[i] && s->t[i] != '\n')
            s->t[i] = ' ';
}

unsigned cc_slice_host_code(char *text, size_t len)
{
    struct scan s = { .t = text, .len = len };
    s.pp = hw_calloc(len ? len : 1, 1);
    if (!s.pp)
        return 0;
    mark_pp(&s);
    unsigned blanked = 0;
    size_t head = 0;
    for (size_t i = 0; i < len;) {
        i = skip_space(&s, i);
        if (i >= len)
            break;
        char c = text[i];
        if (c == '"' || c == '\'') {
            if (c == '\'' && i > 0 && isxdigit((unsigned char)text[i - 1])) {
                i++;
                continue;
            }
            i = skip_literal(text, len, i);
            continue;
        }
        if (c == ';' || c == '}') {
            head = ++i;
            continue;
        }
        if (c != '{') {
            i++;
            continue;
        }
        switch (classify(&s, head, i)) {
        case HEAD_SCOPE: head = ++i; break;
        case HEAD_FUNCTION: {
            size_t end = match_brace(&s, i);
            if (!device_function(&s, head, i)) {
                blank(&s, head, end);
                blanked++;
            }
            head = i = end;
            break;
        }
        default:
            /* a class body or an initializer: kept, scanned past */
            i = match_brace(&s, i);
            break;
        }
    }
    free(s.pp);
    return blanked;
}
