# Turns IN into a C file OUT defining hw_web_index[] and hw_web_index_len.
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" n)
math(EXPR len "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE ${OUT} "const char hw_web_index[] = {${bytes}0};\nconst unsigned long hw_web_index_len = ${len};\n")
