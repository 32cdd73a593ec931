/* docs/protocol.md lists every opcode of the spec under its pinned number,
 * and shows each opcode's state (HIPR_OP_STATES) as the spec has it.
 * `protocol_doc_test --print-states` writes that table's rows. */
#include <stdio.h>
#include <string.h>

#include "hipr.h"
#include "testutil.h"

/* One "Opcode states" row, exactly as docs/protocol.md has it. */
static void state_row(size_t i, char *row, size_t len)
{
    const struct hipr_op_info *op = hipr_op_at(i);
    const struct hipr_op_state *st = hipr_op_state_at(i);
    snprintf(row, len, "| `0x%04x` | %s | %s | %s | %s | %s | %s |", op->opcode, op->name,
             hipr_where_name(st->where), hipr_state_name(st->state[HIPR_BACKEND_CPU]),
             hipr_state_name(st->state[HIPR_BACKEND_CUDA]),
             hipr_state_name(st->state[HIPR_BACKEND_HIP]), st->note);
}

int main(int argc, char **argv)
{
    char row[512];
    if (argc == 2 && strcmp(argv[1], "--print-states") == 0) {
        for (size_t i = 0; i < hipr_op_count(); i++) {
            state_row(i, row, sizeof row);
            puts(row);
        }
        return 0;
    }
    CHECK(argc == 2);
    FILE *f = fopen(argv[1], "r");
    CHECK(f != NULL);
    static char doc[1 << 20];
    size_t n = fread(doc, 1, sizeof doc - 1, f);
    fclose(f);
    doc[n] = '\0';
    for (size_t i = 0; i < hipr_op_count(); i++) {
        const struct hipr_op_info *op = hipr_op_at(i);
        snprintf(row, sizeof row, "| `0x%04x` | %s | %s |", op->opcode, op->name,
                 op->kind == HIPR_KIND_SYNC ? "SYNC" : "ASYNC");
        if (!strstr(doc, row)) {
            fprintf(stderr, "docs/protocol.md has no row \"%s\"\n", row);
            return 1;
        }
        const struct hipr_op_state *st = hipr_op_state_at(i);
        CHECK(st != NULL && st->where != 0);
        for (int b = 0; b < HIPR_BACKEND_COUNT; b++)
            CHECK(st->state[b] != 0);
        /* A row of the states table ends the line it starts. */
        state_row(i, row, sizeof row);
        const char *at = strstr(doc, row);
        if (!at || (at[strlen(row)] != '\n' && at[strlen(row)] != '\0') ||
            (at != doc && at[-1] != '\n')) {
            fprintf(stderr,
                    "docs/protocol.md (\"Opcode states\") has no line \"%s\": "
                    "`protocol_doc_test --print-states` writes the rows\n",
                    row);
            return 1;
        }
    }
    printf("docs/protocol.md lists all %zu opcodes and their states\n", hipr_op_count());
    return 0;
}
