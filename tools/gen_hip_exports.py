#!/usr/bin/env python3
"""Generate the proxy's export table from the installed HIP headers.

Inputs: the HIP headers (declarations and exact signatures), the real
libamdhip64 (export names, version nodes, SONAME) and the hand-written
sources (functions marked HW_EXPORT).  Outputs, written deterministically
into --out: exports.c (stubs + lookup table), exports.map (ld version
script), STATUS.md (implemented and stub functions by family) and
symbols.txt (the record that lets later runs without the real
library keep the same version nodes).  See docs/exports.md.
"""

import argparse
import fnmatch
import os
import re
import shlex
import shutil
import subprocess
import sys

# Headers whose declarations are exported API.  The C pass sees everything
# they include; the C++ pass only supplies signatures for mangled exports.
# hip_deprecated.h (HIP 6+) declares the R0000 ABI of versioned calls.
# hip_runtime_prof.h declares the profiler hooks the library exports with C
# linkage; it needs <stdbool.h> and <stdint.h> first.
C_HEADERS = ["hip/hip_runtime_api.h", "hip/hip_deprecated.h", "hip/hiprtc.h",
             "hip/hip_gl_interop.h", "hip/amd_detail/hip_runtime_prof.h"]
CXX_HEADERS = ["hip/hip_runtime_api.h", "hip/hip_ext.h"]

# Exports of the real library that no header declares (the compiler emits
# calls to the registration functions; the rest are internal).  ABI facts:
# pointer types the C headers do not define are spelled void *.
BUILTIN_DECLS = {
    "__hipRegisterFatBinary": ("void **", ["const void *data"]),
    "__hipUnregisterFatBinary": ("void", ["void **modules"]),
    "__hipRegisterFunction": ("void", [
        "void **modules", "const void *hostFunction", "char *deviceFunction",
        "const char *deviceName", "unsigned int threadLimit", "void *tid",
        "void *bid", "dim3 *blockDim", "dim3 *gridDim", "int *wSize"]),
    "__hipRegisterVar": ("void", [
        "void **modules", "void *var", "char *hostVar", "char *deviceVar",
        "int ext", "size_t size", "int constant", "int global"]),
    "__hipRegisterManagedVar": ("void", [
        "void *hipModule", "void **pointer", "void *init_value",
        "const char *name", "size_t size", "unsigned int align"]),
    "__hipRegisterSurface": ("void", [
        "void **modules", "void *var", "char *hostVar", "char *deviceVar",
        "int type", "int ext"]),
    "__hipRegisterTexture": ("void", [
        "void **modules", "void *var", "char *hostVar", "char *deviceVar",
        "int type", "int norm", "int ext"]),
    "__hipGetPCH": ("void", ["const char **pch", "unsigned int *size"]),
    # The callback takes (activity_domain_t, uint32_t, void *); only its
    # pointer crosses the ABI.
    "hipRegisterTracerCallback": ("void", ["const void *function"]),
    "amd_dbgapi_get_build_name": ("const char *", []),
    "amd_dbgapi_get_git_hash": ("const char *", []),
    "amd_dbgapi_get_build_id": ("size_t", []),
    "__gnu_f2h_ieee": ("uint16_t", ["float f"]),
    "__gnu_h2f_ieee": ("float", ["uint16_t h"]),
    "hip_impl::hipLaunchKernelGGLImpl": ("void", [
        "uintptr_t function_address", "const dim3 *numBlocks",
        "const dim3 *dimBlocks", "uint32_t sharedMemBytes",
        "hipStream_t stream", "void **kernarg"]),
}

C_KEYWORD_TYPES = {"void", "char", "short", "int", "long", "float", "double",
                   "signed", "unsigned", "_Bool", "bool"}
QUALIFIERS = {"const", "volatile", "struct", "enum", "union", "restrict",
              "__restrict", "__restrict__"}


class Decl:
    def __init__(self, ret, name, params, variadic, cxx, ns=""):
        self.ret = ret          # return type text
        self.name = name        # unqualified name
        self.params = params    # list of (text, name or None)
        self.variadic = variadic
        self.cxx = cxx          # True: C++ linkage (mangled symbol)
        self.ns = ns            # enclosing namespace, "a::b" or ""

    @property
    def qualname(self):
        return self.ns + "::" + self.name if self.ns else self.name


def die(msg):
    sys.stderr.write("gen_hip_exports: error: %s\n" % msg)
    sys.exit(1)


# ---------------------------------------------------------------- headers

TOKEN_RE = re.compile(r'''
    (?P<ws>\s+) |
    (?P<comment>//[^\n]*|/\*.*?\*/) |
    (?P<str>"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*') |
    (?P<id>[A-Za-z_]\w*) |
    (?P<num>\.?\d[\w.]*) |
    (?P<punct>::|->|\.\.\.|&&|\|\||<<|>>|.)
''', re.S | re.X)


def preprocess(cpp, include, header, lang):
    """Run the preprocessor with -fdirectives-only: conditionals and
    includes are resolved (so C++-only sections vanish in the C pass) but
    macros such as DEPRECATED(...) stay unexpanded, keeping signatures as
    the header spells them.  Returns [(file, text)] chunks."""
    cmd = shlex.split(cpp) + ["-E", "-fdirectives-only", "-x", lang,
                              "-D__HIP_PLATFORM_AMD__", "-I", include,
                              os.path.join(include, header)]
    try:
        out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE,
                             universal_newlines=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        die("preprocessing %s failed (%s); gcc's cpp is needed, set --cpp"
            % (header, e))
    hipdir = os.path.realpath(os.path.join(include, "hip")) + os.sep
    chunks, cur, keep = [], [], False
    curfile, directive, defines = None, None, []
    for line in out.split("\n"):
        if directive is not None:          # continuation of a directive
            directive += " " + line.rstrip("\\")
            if not line.endswith("\\"):
                defines.append(directive)
                directive = None
            continue
        m = re.match(r'#\s*(\d+)\s+"([^"]*)"', line)
        if m:
            if cur and keep:
                chunks.append((curfile, "\n".join(cur)))
            cur = []
            curfile = os.path.realpath(m.group(2))
            keep = curfile.startswith(hipdir)
            continue
        if line.lstrip().startswith("#"):
            if line.endswith("\\"):
                directive = line.rstrip("\\")
            else:
                defines.append(line)
            continue
        if keep:
            cur.append(line)
    if cur and keep:
        chunks.append((curfile, "\n".join(cur)))
    return chunks, decoration_macros(defines), api_renames(defines)


def api_renames(directives):
    """ROCm 6+ versions some API by macro (#define hipGetDeviceProperties
    hipGetDevicePropertiesR0600): {declared name: symbol name}."""
    ren = {}
    for d in directives:
        m = re.match(r"\s*#\s*define\s+(hip\w+)\s+(hip\w+)\s*$", d)
        if m and m.group(1) != m.group(2):
            ren[m.group(1)] = m.group(2)
    return ren


def decoration_macros(directives):
    """Macros that expand to attributes, nothing or a default argument
    (HIP_PUBLIC_API, DEPRECATED(msg), __host__, __dparm(x)):
    {name: takes_args}.  They are dropped when
    parsing but stay in the header text the stubs are checked against."""
    defs = {}
    for d in directives:
        m = re.match(r"\s*#\s*define\s+(\w+)(\([^)]*\))?\s*(.*)$", d)
        if m:
            defs[m.group(1)] = (m.group(2) is not None, m.group(3).strip())
    decor = {}
    changed = True
    while changed:                          # macros built from macros
        changed = False
        for name, (fn, body) in defs.items():
            if name in decor:
                continue
            first = re.match(r"\s*(\w+|\[\[)?", body).group(1)
            if body == "" or body.startswith("=") or first in ("__attribute__", "__declspec", "[[") \
                    or first in decor:
                decor[name] = fn
                changed = True
    return decor


def tokenize(text):
    toks = []
    for m in TOKEN_RE.finditer(text):
        kind = m.lastgroup
        if kind in ("ws", "comment"):
            continue
        toks.append(m.group())
    return toks


def statements(toks):
    """Split tokens into top-level declarations.  Yields (tokens, linkage_c,
    namespace).  extern "C" / namespace blocks are transparent; other brace
    bodies are folded into a '{}' token; function definitions end there."""
    stack = []          # entries: ('C'|'CXX'|'ns', name)
    cur = []
    i, n = 0, len(toks)

    def ctx():
        link_c = False
        ns = []
        for kind, name in stack:
            if kind == "C":
                link_c = True
            elif kind == "CXX":
                link_c = False
            elif kind == "ns":
                ns.append(name)
        return link_c, "::".join(x for x in ns if x)

    while i < n:
        t = toks[i]
        if t == "{":
            if cur[-2:] in (["extern", '"C"'], ["extern", '"C++"']):
                stack.append(("C" if cur[-1] == '"C"' else "CXX", ""))
                cur = []
                i += 1
                continue
            if cur and (cur[0] == "namespace" or cur[:2] == ["inline", "namespace"]):
                name = cur[-1] if cur[-1] != "namespace" else ""
                stack.append(("ns", name))
                cur = []
                i += 1
                continue
            depth, j = 1, i + 1
            while j < n and depth:
                if toks[j] == "{":
                    depth += 1
                elif toks[j] == "}":
                    depth -= 1
                j += 1
            i = j
            if is_function_head(cur):
                cur = []        # a definition (inline/static/template): not API
            else:
                cur.append("{}")
            continue
        if t == "}":
            if stack:
                stack.pop()
            cur = []
        elif t == ";":
            if cur:
                link_c, ns = ctx()
                yield cur, link_c, ns
            cur = []
        else:
            cur.append(t)
        i += 1


def is_function_head(toks):
    """Does a '{' after toks open a function body (not an initializer or
    a struct/enum body)?  Default arguments put '=' inside the parens."""
    depth, top = 0, []
    for t in toks:
        if t == "(":
            depth += 1
        elif t == ")":
            depth -= 1
        elif depth == 0:
            top.append(t)
    if not toks or "=" in top:
        return False
    first = [t for t in toks if t not in ("typedef", "extern", '"C"')][:1]
    if first and first[0] in ("struct", "union", "enum", "class"):
        return False
    return "(" in toks


def skip_balanced(toks, i):
    """toks[i] is '(' (or '<'); return index after the matching close."""
    open_, close = toks[i], {"(": ")", "<": ">", "[": "]"}[toks[i]]
    depth = 0
    while i < len(toks):
        if toks[i] == open_:
            depth += 1
        elif toks[i] == close:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return i


def strip_decorations(toks, decor):
    """Remove attributes, declspecs and decoration macros wherever they
    appear."""
    out, i = [], 0
    while i < len(toks):
        t = toks[i]
        if t in ("__attribute__", "__declspec", "alignas", "_Alignas") or t in decor:
            i += 1
            if i < len(toks) and toks[i] == "(" and decor.get(t, True):
                i = skip_balanced(toks, i)
            continue
        if t == "[" and toks[i + 1:i + 2] == ["["]:   # [[nodiscard]] etc.
            i = skip_balanced(toks, i)
            continue
        out.append(t)
        i += 1
    return out


def join_tokens(toks):
    """Tokens back to C text in the usual style: 'const char *name'."""
    s = ""
    for t in toks:
        word = re.match(r'\w|"', t) is not None
        if s and ((word and re.search(r'[\w"*&]$', s) and not re.search(r"[*&]$", s))
                  or (word and s.endswith("const")) or s.endswith(",")
                  or (t in ("*", "&") and re.search(r"[\w)]$", s))):
            s += " "
        s += t
    return s


def parse_param(toks, cxx):
    """Return (text, name) for one parameter; name None when unnamed."""
    # Drop a default argument (C++ only, '= value').
    depth = 0
    for k, t in enumerate(toks):
        if t in "(<[":
            depth += 1
        elif t in ")>]":
            depth -= 1
        elif t == "=" and depth == 0:
            toks = toks[:k]
            break
    if cxx:
        toks = [t for k, t in enumerate(toks)
                if not (t == "std" and toks[k + 1:k + 2] == ["::"])
                and not (t == "::" and k > 0 and toks[k - 1] == "std")]
        toks = ["*" if t == "&" else t for t in toks]
    if "(" in toks:                          # function pointer: (*name)
        k = toks.index("(")
        if toks[k + 1:k + 2] == ["*"]:
            if toks[k + 2] == ")":
                return toks, None
            return toks, toks[k + 2]
        return toks, None
    core = toks
    if "[" in toks:
        core = toks[:toks.index("[")]
    last = core[-1] if core else ""
    before = [t for t in core[:-1] if t not in QUALIFIERS]
    if re.match(r"^[A-Za-z_]\w*$", last) and last not in C_KEYWORD_TYPES \
            and last not in QUALIFIERS and before:
        return toks, last
    return toks, None


def parse_decl(toks, link_c, ns, cxx_pass, decor):
    """Turn a statement into a Decl, or None when it is not a plain
    function declaration (typedefs, templates, variables, definitions)."""
    cxx = cxx_pass and not link_c
    # Attributes may come first: DEPRECATED(...) HIP_PUBLIC_API extern "C" ...
    toks = strip_decorations(toks, decor)
    if toks[:2] == ["extern", '"C"']:
        toks, cxx = toks[2:], False
    if not toks or toks[0] in ("typedef", "template", "using", "friend",
                               "static_assert", "_Static_assert", "namespace"):
        return None
    if any(t in ("static", "inline", "__inline__", "__forceinline__",
                 "constexpr", "operator", "{}", "__device__", "__global__",
                 "typedef", "template") for t in toks):
        return None
    toks = [t for t in toks if t not in ("extern", "__host__")]
    if "(" not in toks:
        return None
    p = toks.index("(")
    if p < 2 or not re.match(r"^[A-Za-z_]\w*$", toks[p - 1]):
        return None
    name, ret = toks[p - 1], toks[:p - 1]
    if ret[-1] == "::" or name in C_KEYWORD_TYPES:
        return None
    if any(t in ("=", "<", ">") for t in ret):
        return None
    end = skip_balanced(toks, p)
    tail = toks[end:]
    if tail and tail not in (["noexcept"], ["const"], ["throw", "(", ")"]):
        return None
    inner = toks[p + 1:end - 1]
    params, variadic, cur, depth = [], False, [], 0
    for t in inner + [","]:
        if t in "(<[":
            depth += 1
        elif t in ")>]":
            depth -= 1
        if t == "," and depth == 0:
            if cur == ["..."]:
                variadic = True
            elif cur and cur != ["void"]:
                params.append(parse_param(cur, cxx))
            cur = []
        else:
            cur.append(t)
    if cxx:
        ret = ["*" if t == "&" else t for t in ret
               if t != "std" and t != "::"]
    return Decl(join_tokens(ret), name,
                [(join_tokens(pt), pn) for pt, pn in params], variadic, cxx, ns)


def collect_decls(cpp, include):
    """C-linkage declarations by symbol name, C++ ones by qualified name,
    and the names that macros redirect to other symbols."""
    c_decls, cxx_decls, shadowed = {}, {}, {}
    for lang, headers in (("c", C_HEADERS), ("c++", CXX_HEADERS)):
        for h in headers:
            if not os.path.exists(os.path.join(include, h)):
                continue
            # Tokenise the kept files as one stream: an extern "C" block
            # opened in one header often encloses included ones.
            toks = []
            chunks, decor, renames = preprocess(cpp, include, h, lang)
            for _, text in chunks:
                toks.extend(tokenize(text))
            for st, link_c, ns in statements(toks):
                d = parse_decl(st, link_c, ns, lang == "c++", decor)
                if d is None:
                    continue
                if not d.cxx and d.name in renames:
                    shadowed[d.name] = renames[d.name]
                    d.name = renames[d.name]
                d.hidden_from_c = lang == "c++"
                if not d.cxx:
                    # The C pass runs first and its spelling wins; the C++
                    # pass only adds extern "C" API hidden from C.
                    c_decls.setdefault(d.name, d)
                else:
                    cxx_decls.setdefault(d.qualname, []).append(d)
    return c_decls, cxx_decls, shadowed


def hip_version(include):
    path = os.path.join(include, "hip", "hip_version.h")
    v = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"#define\s+HIP_VERSION_(MAJOR|MINOR|PATCH)\s+(\d+)", line)
            if m:
                v[m.group(1)] = m.group(2)
    return "%s.%s.%s" % (v.get("MAJOR", "?"), v.get("MINOR", "?"), v.get("PATCH", "?"))


# ------------------------------------------------------------ real library

def read_real_lib(path, objdump):
    """Return (soname, [nodes oldest first], {symbol: node})."""
    def run(flag):
        try:
            return subprocess.run([objdump, flag, path], check=True,
                                  stdout=subprocess.PIPE, universal_newlines=True,
                                  stderr=subprocess.PIPE).stdout
        except (OSError, subprocess.CalledProcessError) as e:
            die("%s %s %s failed: %s" % (objdump, flag, path, e))
    priv = run("-p")
    m = re.search(r"^\s*SONAME\s+(\S+)", priv, re.M)
    soname = m.group(1) if m else os.path.basename(path)
    nodes, parents, in_defs = [], {}, False
    for line in priv.split("\n"):
        if line.startswith("Version definitions:"):
            in_defs = True
            continue
        if in_defs:
            m = re.match(r"^(\d+)\s+(0x[0-9a-f]+)\s+0x[0-9a-f]+\s+(\S+)", line)
            if m:
                if int(m.group(2), 16) & 1:      # VER_FLG_BASE: the SONAME
                    last = None
                else:
                    nodes.append(m.group(3))
                    last = m.group(3)
                continue
            m = re.match(r"^\s+(\S+)\s*$", line)
            if m and last:
                parents[last] = m.group(1)
                continue
            if line.strip() == "" and nodes:
                break
    # Keep the chain order the library declares; check it is a chain.
    for k, node in enumerate(nodes[1:], 1):
        if parents.get(node) != nodes[k - 1]:
            die("version node %s does not inherit %s" % (node, nodes[k - 1]))
    syms = {}
    for line in run("-T").split("\n"):
        m = re.match(r"^[0-9a-f]+\s+(.{7})\s+(\S+)\s+[0-9a-f]+\s+(\(?[^\s()]+\)?)\s+(\S+)\s*$", line)
        if not m:
            continue
        flags, section, ver, name = m.groups()
        ver = ver.strip("()")
        if section == "*UND*" or ver not in nodes:
            continue
        if name == ver and section == "*ABS*":   # the node's own marker
            continue
        if "F" not in flags:
            die("real library exports non-function %s; not supported" % name)
        syms[name] = ver
    return soname, nodes, syms


def read_symbols_txt(path):
    """The committed record: soname, node chain and per-symbol node/origin."""
    soname, nodes, syms = None, [], {}
    if not os.path.exists(path):
        return soname, nodes, syms
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("# soname "):
                soname = line.split()[2]
            elif line.startswith("# nodes "):
                nodes = line.split()[2:]
            elif line and not line.startswith("#"):
                name, node, _kind, origin = line.split()
                syms[name] = (node, origin)
    return soname, nodes, syms


def read_real_map(path):
    """The real library's linker version script (clr's hip_hcc.map.in), for
    HIP versions whose library is not installed here: [nodes oldest first],
    {symbol: node}, [(node, C++ name pattern)].  Each node must inherit the
    one before it, as in the library."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        die("cannot read %s: %s" % (path, e))
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"#[^\n]*", " ", text)
    toks = re.findall(r'"[^"]*"|[{};:]|[^\s{};:"]+', text)
    nodes, syms, cxx, parents = [], {}, [], {}
    i, n = 0, len(toks)
    while i < n:
        node = toks[i]
        if i + 1 >= n or toks[i + 1] != "{":
            die("%s: expected a version node at %r" % (path, node))
        i += 2
        section, lang = "global", None
        while i < n and toks[i] != "}":
            t = toks[i]
            if t == "extern" and i + 2 < n and toks[i + 2] == "{":
                lang = toks[i + 1].strip('"')
                i += 3
                while i < n and toks[i] != "}":
                    if toks[i] != ";" and section == "global":
                        if lang == "C++":
                            cxx.append((node, toks[i]))
                        else:
                            syms.setdefault(toks[i], node)
                    i += 1
                i += 1                      # the inner "}"
                continue
            if i + 1 < n and toks[i + 1] == ":":
                section = t
                i += 2
                continue
            if t != ";" and section == "global":
                syms.setdefault(t, node)
            i += 1
        i += 1                              # the node's "}"
        parent = None
        if i < n and toks[i] != ";":
            parent = toks[i]
            i += 1
        if i >= n or toks[i] != ";":
            die("%s: missing ';' after node %s" % (path, node))
        i += 1
        nodes.append(node)
        parents[node] = parent
    if not nodes:
        die("no version nodes in %s" % path)
    for k, node in enumerate(nodes[1:], 1):
        if parents.get(node) != nodes[k - 1]:
            die("version node %s does not inherit %s in %s" % (node, nodes[k - 1], path))
    return nodes, syms, cxx


def read_undeclared(path):
    """Names a version script gave that no header declares (see generate)."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        for line in f:
            if line.startswith("# undeclared "):
                return line.split()[2:]
    return []


# ----------------------------------------------------------------- sources

def active_lines(text, major):
    """Blank the lines that `#if HIP_VERSION_MAJOR <op> N` blocks exclude
    for this header major (with #elif/#else/#endif); any other condition
    counts as true for both branches, so HW_EXPORT sources stay simple."""
    out, stack = [], []          # stack: [this branch on, any branch taken, known]
    for line in text.split("\n"):
        d = re.match(r"\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)", line)
        if d:
            kw, cond = d.group(1), d.group(2)
            m = re.match(r"\s*HIP_VERSION_MAJOR\s*(>=|<=|==|!=|>|<)\s*(\d+)\s*$", cond)
            val = None
            if m and kw in ("if", "elif"):
                val = eval("%d %s %s" % (major, m.group(1), m.group(2)))
            if kw in ("if", "ifdef", "ifndef"):
                stack.append([val is not False, val is True, val is not None])
            elif kw == "elif" and stack:
                top = stack[-1]
                top[0] = (not top[1]) and val is not False if top[2] else True
                top[1] = top[1] or val is True
            elif kw == "else" and stack:
                top = stack[-1]
                top[0] = not top[1] if top[2] else True
            elif kw == "endif" and stack:
                stack.pop()
            out.append("")
            continue
        out.append(line if all(t[0] for t in stack) else "")
    return "\n".join(out)


def scan_impl(impl_dir, out_dir, major):
    """Names of functions defined with HW_EXPORT under impl_dir."""
    names = {}
    out_real = os.path.realpath(out_dir)
    for root, dirs, files in os.walk(impl_dir):
        dirs[:] = sorted(d for d in dirs
                         if not os.path.realpath(os.path.join(root, d)).startswith(out_real)
                         and d != "generated")
        for fn in sorted(files):
            if not fn.endswith(".c"):
                continue
            path = os.path.join(root, fn)
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group()), text, flags=re.S)
            text = re.sub(r"//[^\n]*", "", text)
            text = active_lines(text, major)
            for m in re.finditer(r"^[ \t]*HW_EXPORT\b([^;{(]*)\(", text, re.M):
                ids = re.findall(r"[A-Za-z_]\w*", m.group(1))
                if ids:
                    names.setdefault(ids[-1], os.path.relpath(path, impl_dir))
    return names


# ------------------------------------------------------------------ output

def demangle_name(sym):
    """Qualified function name of a simple Itanium-mangled symbol
    (_Z<len><name>... or _ZN<len><ns>...<len><name>E...); None otherwise."""
    if not sym.startswith("_Z"):
        return None
    s = sym[2:]
    parts, nested = [], s.startswith("N")
    if nested:
        s = s[1:]
    while True:
        m = re.match(r"(\d+)", s)
        if not m:
            break
        n = int(m.group(1))
        s = s[len(m.group(1)):]
        parts.append(s[:n])
        s = s[n:]
        if not nested:
            break
    if not parts:
        return None
    return "::".join(parts)


def params_text(d):
    ps = []
    for k, (text, name) in enumerate(d.params):
        if name is None:
            name = "hw_arg%d" % k
            if "(*)" in text.replace(" ", ""):
                text = re.sub(r"\(\s*\*\s*\)", "(*%s)" % name, text, count=1)
            elif "[" in text:
                i = text.index("[")
                text = text[:i].rstrip() + " " + name + text[i:]
            else:
                text = text + ("" if text.endswith("*") else " ") + name
        ps.append((text, name))
    return ps


def signature(d, cname, ps):
    args = ", ".join(t for t, _ in ps)
    if d.variadic:
        args = args + ", ..." if args else "..."
    if not args:
        args = "void"
    ret = d.ret
    sep = "" if ret.endswith("*") else " "
    return "%s%s%s(%s)" % (ret, sep, cname, args)


def stub_body(d, label):
    ret = re.sub(r"\s+", " ", d.ret.strip())
    call = 'hw_api_unsupported("%s")' % label
    if ret == "hipError_t":
        return ["    return %s;" % call]
    if ret == "hiprtcResult":
        return ["    (void)%s;" % call, "    return HIPRTC_ERROR_INTERNAL_ERROR;"]
    if ret == "void":
        return ["    (void)%s;" % call]
    if re.match(r"^const char ?\*$", ret):
        return ["    (void)%s;" % call,
                '    return "%s is not supported by hipwire";' % label]
    return ["    %s hw_r;" % ret,
            "    (void)%s;" % call,
            "    memset(&hw_r, 0, sizeof(hw_r));",
            "    return hw_r;"]


def builtin_decl(name):
    ret, params = BUILTIN_DECLS[name]
    toks = [(p, p.split()[-1].lstrip("*")) for p in params]
    ns, _, base = name.rpartition("::")
    return Decl(ret, base, toks, False, False, ns)


def generate(args):
    include = args.hip_include
    version = hip_version(include)
    c_decls, cxx_decls, shadowed = collect_decls(args.cpp, include)
    if not c_decls:
        die("no declarations found under %s" % include)
    major = int(version.split(".")[0])
    impl = scan_impl(args.impl_dir, args.out, major)

    sym_path = args.symbols_in or os.path.join(args.out, "symbols.txt")
    undeclared = []       # real exports no header declares (map input only)
    if args.real_lib and args.real_lib != "none":
        if not os.path.exists(args.real_lib):
            die("no such library: %s (pass --real-lib none to reuse symbols.txt)" % args.real_lib)
        soname, nodes, real = read_real_lib(args.real_lib, args.objdump)
    elif args.real_map:
        nodes, real, cxx_patterns = read_real_map(args.real_map)
        soname = args.soname or "libamdhip64.so.%d" % major
        # Glob patterns in the C section match declared names.
        for pat in [n for n in real if any(ch in n for ch in "*?[")]:
            node = real.pop(pat)
            for name in c_decls:
                if fnmatch.fnmatchcase(name, pat):
                    real.setdefault(name, node)
        # A version script may name what the library does not define
        # (internal or retired functions): without a declaration there is
        # no signature to export, so those are left out and recorded.
        for name in sorted(real):
            if name not in c_decls and name not in impl and name not in BUILTIN_DECLS \
                    and name not in shadowed:
                undeclared.append(name)
                del real[name]
        # C++ patterns name mangled exports; these headers' C++ declarations
        # would need mangling, which this generator does not do.
        for node, pat in cxx_patterns:
            hits = [q for q in cxx_decls if fnmatch.fnmatchcase(q, pat)]
            if hits:
                die("the map exports C++ %s (%s); mangling is not supported" % (pat, hits))
    else:
        soname, nodes, rec = read_symbols_txt(sym_path)
        if not nodes:
            die("--real-lib none needs a committed %s with version nodes" % sym_path)
        real = {n: v for n, (v, origin) in rec.items() if origin == "lib"}
        undeclared = read_undeclared(sym_path)
    if not nodes:
        die("the real library defines no version nodes")
    newest = nodes[-1]

    # name -> (node, origin, decl or None, kind)
    exports = {}
    for name, node in real.items():
        exports[name] = [node, "lib"]
    for name in c_decls:
        exports.setdefault(name, [newest, "header"])
    for name in impl:
        exports.setdefault(name, [newest, "hipwire"])

    lines = []
    emit = lines.append
    emit("/* Generated by tools/gen_hip_exports.py from the HIP %s headers and" % version)
    emit(" * the %s exports; do not edit.  Regenerate: see docs/exports.md. */" % soname)
    emit("#include <stdbool.h>")
    emit("#include <stdint.h>")
    emit("#include <string.h>")
    for h in C_HEADERS:
        if os.path.exists(os.path.join(include, h)):
            emit("#include <%s>" % h)
    emit("")
    emit('#include "../exports.h"')
    emit('#include "../../api_unsupported.h"')
    emit("")
    emit("/* Stubs keep the headers' parameter lists and the table takes the")
    emit(" * address of deprecated functions too. */")
    emit('#pragma GCC diagnostic ignored "-Wunused-parameter"')
    emit('#pragma GCC diagnostic ignored "-Wdeprecated-declarations"')
    emit("")

    table = {}            # symbol -> C expression of its address
    kinds = {}
    protos, bodies = [], []

    # Plain C names: hand implementation, or a stub with the header signature.
    for name in sorted(exports):
        if name.startswith("_Z"):
            continue
        d = c_decls.get(name)
        if name in shadowed:
            # A macro turns this name into another symbol in C, so define
            # it under an asm label.  The real library keeps the old name as
            # the old ABI, <name>R0000; forward to that when the headers
            # declare it, else stub with the replacement's signature (the
            # old ABI differs only in pointed-to struct layouts).
            cname = "hw_shadowed_" + name
            d = c_decls.get(shadowed[name])
            old = c_decls.get(name + "R0000")
            if name in impl:
                die("%s is a macro for %s in these headers: implement the versioned names"
                    % (name, shadowed[name]))
            if old is not None and name + "R0000" in exports:
                ps = params_text(old)
                kinds[name] = "impl" if name + "R0000" in impl else "stub"
                protos.append('%s __asm__("%s");' % (signature(old, cname, ps), name))
                bodies.append("HW_EXPORT " + signature(old, cname, ps))
                bodies.extend(["{", "    return %sR0000(%s);" % (name, ", ".join(n for _, n in ps)),
                               "}", ""])
            elif d is None:
                die("no declaration for %s's replacement %s" % (name, shadowed[name]))
            else:
                kinds[name] = "stub"
                ps = params_text(d)
                protos.append('%s __asm__("%s");' % (signature(d, cname, ps), name))
                bodies.append("HW_EXPORT " + signature(d, cname, ps))
                bodies.extend(["{"] + stub_body(d, name) + ["}", ""])
            table[name] = cname
            continue
        if name in impl:
            kinds[name] = "impl"
            if d is not None and getattr(d, "hidden_from_c", False):
                # extern "C" in a C++-only header: exports.c cannot see it.
                protos.append(signature(d, name, params_text(d)) + ";")
            elif d is None:
                if name in BUILTIN_DECLS:
                    d = builtin_decl(name)
                else:
                    d = next((x for x in cxx_decls.get(name, [])), None)
                if d is not None:
                    protos.append(signature(d, name, params_text(d)) + ";")
                else:
                    protos.append("void %s(void);" % name)
            table[name] = name
            continue
        if d is None and name in BUILTIN_DECLS:
            d = builtin_decl(name)
            protos.append(signature(d, name, params_text(d)) + ";")
        if d is None:
            die("%s is exported by the real library but declared nowhere; "
                "add it to BUILTIN_DECLS" % name)
        kinds[name] = "stub"
        ps = params_text(d)
        bodies.append("HW_EXPORT " + signature(d, name, ps))
        bodies.append("{")
        bodies.extend(stub_body(d, name))
        bodies.append("}")
        bodies.append("")
        table[name] = name

    # C++ exports: C definitions under the mangled name, forwarding to the
    # hand-written C function of the same name when there is one.
    for sym in sorted(n for n in exports if n.startswith("_Z")):
        qual = demangle_name(sym)
        if qual is None:
            die("cannot read mangled name %s" % sym)
        cands = cxx_decls.get(qual, [])
        if len(cands) > 1:
            # Overloads: the real library has one; prefer the widest.
            cands = sorted(cands, key=lambda x: -len(x.params))
        d = cands[0] if cands else None
        if d is None and qual in BUILTIN_DECLS:
            d = builtin_decl(qual)
        if d is None:
            die("no declaration for C++ export %s (%s); add it to BUILTIN_DECLS" % (sym, qual))
        cname = "hw_cxx_" + sym
        ps = params_text(d)
        protos.append("%s __asm__(\"%s\");" % (signature(d, cname, ps), sym))
        base = qual.rpartition("::")[2]
        bodies.append("HW_EXPORT " + signature(d, cname, ps))
        bodies.append("{")
        if base in impl and "::" not in qual:
            kinds[sym] = "impl"
            call = "%s(%s)" % (base, ", ".join(n for _, n in ps))
            if base not in c_decls and not any(p.startswith(signature(d, base, ps)) for p in protos):
                protos.append(signature(d, base, ps) + ";")
            bodies.append(("    %s;" if d.ret == "void" else "    return %s;") % call)
        else:
            kinds[sym] = "stub"
            bodies.extend(stub_body(d, qual))
        bodies.append("}")
        bodies.append("")
        table[sym] = cname

    if protos:
        emit("/* Declared by no C header: C++-only or compiler-internal API. */")
        lines.extend(protos)
        emit("")
    lines.extend(bodies)

    emit("/* Every export, sorted by name for bsearch. */")
    emit("const struct hw_export hw_export_table[] = {")
    for name in sorted(table):
        emit('    {"%s", "%s", (hw_export_fn)%s},' % (name, exports[name][0], table[name]))
    emit("};")
    emit("const size_t hw_export_count = sizeof(hw_export_table) / sizeof(hw_export_table[0]);")

    # Version script: each node lists its symbols, inherits the previous.
    vmap = ["/* Generated by tools/gen_hip_exports.py; do not edit. */"]
    for k, node in enumerate(nodes):
        names = sorted(n for n in exports if exports[n][0] == node)
        vmap.append("%s {" % node)
        if names:
            vmap.append("  global:")
            vmap.extend("    %s;" % n for n in names)
        if k == 0:
            vmap.append("  local:")
            vmap.append("    *;")
        vmap.append("}%s;" % (" " + nodes[k - 1] if k else ""))
    syms = ["# Generated by tools/gen_hip_exports.py; do not edit.",
            "# HIP headers %s" % version,
            "# soname %s" % soname,
            "# nodes %s" % " ".join(nodes)]
    if undeclared:
        syms.append("# undeclared %s" % " ".join(undeclared))
    syms.append("# name node impl|stub origin(lib|header|hipwire)")
    for name in sorted(exports):
        node, origin = exports[name]
        syms.append("%s %s %s %s" % (name, node, kinds[name], origin))

    status = status_page(exports, kinds, version, soname)

    os.makedirs(args.out, exist_ok=True)
    for fn, body in (("exports.c", lines), ("exports.map", vmap), ("symbols.txt", syms),
                     ("STATUS.md", status)):
        tmp = os.path.join(args.out, fn + ".tmp")
        with open(tmp, "w", newline="\n") as f:
            f.write("\n".join(body) + "\n")
        os.replace(tmp, os.path.join(args.out, fn))
    n_impl = sum(1 for k in kinds.values() if k == "impl")
    sys.stderr.write("gen_hip_exports: %d exports (%d impl, %d stub) in %s\n"
                     % (len(kinds), n_impl, len(kinds) - n_impl, args.out))


# Families for the status page, first match wins (prefixes of C names;
# hipGraphics before hipGraph).
STATUS_FAMILIES = [
    ("IPC and interop", ("hipIpc", "hipImportExternal", "hipDestroyExternal",
                         "hipExternalMemory", "hipSignalExternal", "hipWaitExternal",
                         "hipGraphics", "hipGL")),
    ("Graphs and capture", ("hipGraph", "hipStreamBeginCapture", "hipStreamEndCapture",
                            "hipStreamIsCapturing", "hipStreamGetCaptureInfo",
                            "hipStreamUpdateCapture", "hipThreadExchangeStreamCaptureMode",
                            "hipUserObject")),
    ("Textures and surfaces", ("hipTex", "hipBindTexture", "hipUnbindTexture",
                               "hipCreateTextureObject", "hipDestroyTextureObject",
                               "hipGetTexture", "hipCreateSurfaceObject",
                               "hipDestroySurfaceObject", "hipModuleGetTexRef",
                               "hipBindTextureToMipmappedArray", "__hipRegisterSurface",
                               "__hipRegisterTexture")),
    ("Arrays", ("hipArray", "hipMallocArray", "hipMalloc3DArray", "hipFreeArray",
                "hipMipmapped", "hipMallocMipmapped", "hipFreeMipmapped",
                "hipGetMipmapped", "hipCreateChannelDesc", "hipGetChannelDesc")),
    ("Memory pools", ("hipMemPool", "hipMallocFromPool", "hipMallocAsync", "hipFreeAsync",
                      "hipDeviceGetDefaultMemPool", "hipDeviceGetMemPool",
                      "hipDeviceSetMemPool")),
    ("Virtual memory", ("hipMemAddress", "hipMemCreate", "hipMemRelease", "hipMemMap",
                        "hipMemUnmap", "hipMemSetAccess", "hipMemGetAccess",
                        "hipMemGetAllocation", "hipMemRetainAllocationHandle",
                        "hipMemExportToShareableHandle", "hipMemImportFromShareableHandle")),
    ("Managed memory", ("hipMallocManaged", "hipMemAdvise", "hipMemPrefetch", "hipMemRange",
                        "hipStreamAttachMemAsync", "__hipRegisterManagedVar")),
    ("Contexts", ("hipCtx", "hipDevicePrimaryCtx")),
    ("Run-time compilation", ("hiprtc",)),
    ("Tools and callbacks", ("hipRegisterActivity", "hipRemoveActivity", "hipEnableActivity",
                             "hipInitActivity", "hipRegisterApi", "hipRemoveApi",
                             "hipProfiler", "hipApiName", "hipGetCmdName", "hipKernelNameRef",
                             "amd_dbgapi", "__hipGetPCH")),
    ("Memory and copies", ("hipMem", "hipMalloc", "hipFree", "hipHost", "hipExtMalloc",
                           "hipPointer", "hipDrvPointer", "hipDrvMemcpy")),
    ("Modules and launches", ("hipModule", "hipLaunch", "hipExtLaunch", "hipFunc",
                              "hipConfigureCall", "hipSetupArgument", "hipOccupancy",
                              "hipExtModule", "__hip", "hipGetSymbol", "hipHccModule")),
    ("Streams and events", ("hipStream", "hipEvent", "hipExtStream", "hipGetStreamDeviceId")),
    ("Devices and errors", ("hipDevice", "hipGetDevice", "hipSetDevice", "hipChooseDevice",
                            "hipInit", "hipDriver", "hipRuntime", "hipGetError",
                            "hipGetLastError", "hipPeekAtLastError", "hipExtGetLink",
                            "hipGetProcAddress")),
    ("hipwire extensions", ("hipwire_",)),
    ("Half-float helpers", ("__gnu_",)),
]


def status_page(exports, kinds, version, soname):
    """STATUS.md: which exports are implemented and which are stubs, by
    family, so what is real is visible without reading the sources."""
    def family(name):
        base = name
        if name.startswith("_Z"):  # C++ overloads: the name inside the mangling
            m = re.match(r"_Z(?:N\d+\w+?)?(\d+)(\w+)", name)
            if m:
                base = m.group(2)[:int(m.group(1))]
        for fam, prefixes in STATUS_FAMILIES:
            if base.startswith(prefixes):
                return fam
        return "Other"
    groups = {}
    for name in sorted(exports):
        groups.setdefault(family(name), []).append(name)
    n_impl = sum(1 for k in kinds.values() if k == "impl")
    out = ["<!-- Generated by tools/gen_hip_exports.py; do not edit. -->",
           "# HIP API status: %s (HIP headers %s)" % (soname, version),
           "",
           "%d exports: %d implemented, %d stubs. A stub returns `hipErrorNotSupported` (or"
           % (len(kinds), n_impl, len(kinds) - n_impl),
           "its type's failure value) and says so once on stderr (docs/client.md).",
           "",
           "| family | implemented | stubs |",
           "|---|---|---|"]
    order = [f for f, _ in STATUS_FAMILIES] + ["Other"]
    for fam in order:
        names = groups.get(fam, [])
        if names:
            impl = sum(1 for n in names if kinds[n] == "impl")
            out.append("| %s | %d | %d |" % (fam, impl, len(names) - impl))
    for fam in order:
        stubs = [n for n in groups.get(fam, []) if kinds[n] != "impl"]
        if stubs:
            out += ["", "## Stubs: %s" % fam, ""]
            out += ["- `%s`" % n for n in stubs]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hip-include", required=True,
                    help="directory holding hip/hip_runtime_api.h")
    ap.add_argument("--real-lib", default="none",
                    help="the real libamdhip64.so.N, or 'none' to reuse symbols.txt")
    ap.add_argument("--real-map",
                    help="the real library's version script (clr hipamd/src/hip_hcc.map.in), "
                         "used instead of --real-lib when that library is not installed")
    ap.add_argument("--soname", help="SONAME with --real-map (default libamdhip64.so.<major>)")
    ap.add_argument("--impl-dir", required=True,
                    help="sources scanned for HW_EXPORT definitions")
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--symbols-in",
                    help="symbols.txt to reuse with --real-lib none "
                         "(default: the one in --out)")
    ap.add_argument("--cpp", default=os.environ.get("HW_CPP", "cpp"),
                    help="GNU preprocessor command (needs -fdirectives-only)")
    ap.add_argument("--objdump", default=os.environ.get("OBJDUMP", "objdump"))
    args = ap.parse_args()
    if shutil.which(shlex.split(args.cpp)[0]) is None:
        die("preprocessor %s not found" % args.cpp)
    generate(args)


if __name__ == "__main__":
    main()
