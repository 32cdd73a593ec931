/* docs/protocol.md lists every opcode of the spec under its pinned number. */
#include <stdio.h>
#include <string.h>

#include "hipr.h"
#include "testutil.h"

int main(int argc, char **argv)
{
    CHECK(argc == 2);
    FILE *f = fopen(argv[1], "r");
    CHECK(f != NULL);
    static char doc[1 << 20];
    size_t n = fread(doc, 1, sizeof doc - 1, f);
    fclose(f);
    doc[n] = '\0';
    for (size_t i = 0; i < hipr_op_count(); i++) {
        const struct hipr_op_info *op = hipr_op_at(i);
        char row[128];
        snprintf(row, sizeof row, "| `0x%04x` | %s |", op->opcode, op->name);
        if (!strstr(doc, row)) {
            fprintf(stderr, "docs/protocol.md has no row \"%s\"\n", row);
            return 1;
        }
    }
    printf("docs/protocol.md lists all %zu opcodes\n", hipr_op_count());
    return 0;
}
