#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""The layering rule: no circle of files across folders, and none inside
kmod/ or lib/analysis/trace.

A file depends on another when it #includes it (a project header, found
beside it or under the tree's include folders) or when its code (function
bodies, initialisers, macros) names a global function that the other, a .c
file, defines (a call, or its address taken).
Files of one folder (lib/core, lib/os, lib/hosts/X, lib/analysis/X, kmod,
tools/X, include) form one node of the folder graph; each strongly connected
part of that graph with two folders or more is a circle, printed with the
file dependencies that close it. Inside kmod/ and lib/analysis/trace the same
is checked file by file.

usage: layering.py SOURCE_ROOT     exit 0: no circle; 1: circles (printed)
"""
import os
import re
import sys

# Where the code lives: tests/ and examples/ use the layers and may use
# all of them; nothing of the layers may use them.
SCANNED = ("include", "lib", "kmod", "tools")
# Folders checked file by file as well.
FILE_LEVEL = ("kmod", "lib/analysis/trace")

TOKEN = re.compile(r"[A-Za-z_]\w*")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "do", "else",
            "case", "goto", "typeof", "__typeof__", "defined", "_Static_assert",
            "static_assert", "__attribute__", "asm", "__asm__"}


def folder_of(rel):
    """The folder node of a file: lib/hosts/X and lib/analysis/X by their
    third part, other lib/X by their second, tools/X by its second (files
    directly in tools/ are "tools"), kmod and include whole."""
    parts = rel.split("/")
    if parts[0] == "lib" and len(parts) > 3 and parts[1] in ("hosts", "analysis"):
        return "/".join(parts[:3])
    if parts[0] in ("lib", "tools") and len(parts) > 2:
        return "/".join(parts[:2])
    return parts[0]


def strip_comments_and_strings(text):
    """The text with comments, string and character literals blanked out
    (newlines kept, so that line numbers stay)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * max(0, j - i - 2) + (c if j - i >= 2 else ""))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def directive_end(code, i):
    """Where the preprocessor line at @i ends (continuations included), or
    None if code[i] does not begin one."""
    if code[i] != "#" or code[code.rfind("\n", 0, i) + 1:i].strip():
        return None
    j = i
    while j < len(code) and code[j] != "\n":
        j += 2 if code.startswith("\\\n", j) else 1
    return j


def definitions(code):
    """The functions @code (comments and strings stripped) defines at file
    scope: (name, global, body) for each identifier followed by a
    parenthesised list and a `{` at brace depth 0; global unless `static`,
    body the text between its braces."""
    found = []
    depth = 0
    stmt_start = 0   # where the current file-scope declaration began
    open_at, current = 0, None
    i, n = 0, len(code)
    while i < n:
        c = code[i]
        end = directive_end(code, i)
        if end is not None:   # a preprocessor line: not a declaration's part
            i = end
            if depth == 0:
                stmt_start = i
            continue
        if c == "{":
            if depth == 0:
                current = None
                head = code[stmt_start:i]
                m = re.search(r"([A-Za-z_]\w*)\s*\(((?:[^()]|\([^()]*\))*)\)\s*"
                              r"(?:__\w+(?:\s*\(\([^)]*\)\))?\s*)*$", head)
                if m and m.group(1) not in KEYWORDS:
                    before = head[:m.start()]
                    words = TOKEN.findall(before)
                    if words and "=" not in before and words[-1] != "struct" \
                            and "typedef" not in words:
                        current = (m.group(1), "static" not in words)
                open_at = i
            depth += 1
        elif c == "}":
            depth = max(0, depth - 1)
            if depth == 0:
                if current:
                    found.append((current[0], current[1], code[open_at + 1:i]))
                current = None
                stmt_start = i + 1
        elif c == ";" and depth == 0:
            stmt_start = i + 1
        i += 1
    return found


def uses_outside_functions(code):
    """The text of @code's file-scope initialisers (`= ...;` at brace depth
    0, such as a table of function pointers) and of its macro bodies."""
    parts = []
    depth = 0
    start = None
    i, n = 0, len(code)
    while i < n:
        c = code[i]
        end = directive_end(code, i)
        if end is not None:
            m = re.match(r"#\s*define\s+\w+(\([^)]*\))?", code[i:end])
            if m:
                parts.append(code[i + m.end():end])
            i = end
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth = max(0, depth - 1)
        elif c == "=" and depth == 0 and start is None:
            start = i
        elif c == ";" and depth == 0 and start is not None:
            parts.append(code[start:i])
            start = None
        i += 1
    return "\n".join(parts)


def global_definitions(code):
    return [name for name, is_global, _ in definitions(code) if is_global]


def referenced_names(code):
    """Identifiers @code names, other than as a member (after . or ->)."""
    names = set()
    for m in TOKEN.finditer(code):
        before = code[max(0, m.start() - 2):m.start()].rstrip()
        if before.endswith(".") or before.endswith("->"):
            continue
        names.add(m.group(0))
    return names


def scan(root):
    files = {}
    for top in SCANNED:
        for d, subdirs, names in os.walk(os.path.join(root, top)):
            subdirs.sort()
            for name in sorted(names):
                if name.endswith((".c", ".h")):
                    path = os.path.join(d, name)
                    rel = os.path.relpath(path, root).replace(os.sep, "/")
                    with open(path, encoding="utf-8", errors="replace") as f:
                        files[rel] = f.read()
    return files


def resolve_include(rel, spelled, headers):
    """The project file an #include names, or None (a system header)."""
    here = os.path.dirname(rel)
    cand = os.path.normpath(os.path.join(here, spelled)).replace(os.sep, "/")
    if cand in headers:
        return cand
    for base in ("include", "lib/os", "lib/os/kernel/include"):
        cand = base + "/" + spelled
        if cand in headers:
            return cand
    # Elsewhere on an include path the build gives (-I lib/core ...): the
    # one project header of that path, if only one has it.
    tails = [h for h in headers if h.endswith("/" + spelled)]
    return tails[0] if len(tails) == 1 else None


def build_graph(files):
    headers = set(files)
    code = {rel: strip_comments_and_strings(text) for rel, text in files.items()}
    edges = {rel: {} for rel in files}   # file -> {file: why}

    for rel, text in files.items():
        for m in INCLUDE.finditer(text):
            if m.group(1) == "<" and not m.group(2).startswith("superpass/"):
                continue   # a system header (lib/os/kernel/include stands in for some in the kernel)
            target = resolve_include(rel, m.group(2), headers)
            if target and target != rel:
                edges[rel].setdefault(target, "#include %s" % m.group(2))

    defined = {}   # function -> [.c files defining it]
    for rel in files:
        if rel.endswith(".c"):
            for name in global_definitions(code[rel]):
                if name != "main":
                    defined.setdefault(name, []).append(rel)
    for rel in files:
        # What a file uses: the names in its functions' bodies (a header's
        # are inline), its initialisers and its macros; not those of its
        # declarations (a prototype, a struct member).
        own = set(global_definitions(code[rel])) if rel.endswith(".c") else set()
        used = referenced_names(uses_outside_functions(code[rel]))
        for _, _, body in definitions(code[rel]):
            used |= referenced_names(body)
        for name in sorted(used & defined.keys()):
            if name in own:
                continue
            targets = defined[name]
            # One name defined for several builds (lib/os/posix and
            # lib/os/kernel): the caller's own folder's if it has one.
            same = [t for t in targets if folder_of(t) == folder_of(rel)]
            for target in same or targets:
                if target != rel:
                    edges[rel].setdefault(target, "uses %s()" % name)
    return edges


def strongly_connected(nodes, succ):
    """Tarjan's strongly connected components, each a sorted list."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        work = [(v, iter(sorted(succ.get(v, ()))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(succ.get(w, ())))))
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == node:
                            break
                    out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def report_folders(edges):
    fsucc = {}
    witness = {}
    for src, dsts in edges.items():
        for dst, why in dsts.items():
            a, b = folder_of(src), folder_of(dst)
            if a != b:
                fsucc.setdefault(a, set()).add(b)
                witness.setdefault((a, b), []).append((src, dst, why))
    nodes = {folder_of(f) for f in edges}
    circles = [c for c in strongly_connected(nodes, fsucc) if len(c) > 1]
    for comp in circles:
        print("circle of folders: " + " <-> ".join(comp))
        for a in comp:
            for b in comp:
                for src, dst, why in sorted(witness.get((a, b), [])):
                    print("  %s -> %s  (%s)" % (src, dst, why))
    return len(circles)


def report_files(edges, folder):
    inside = {f for f in edges if f == folder or f.startswith(folder + "/")}
    succ = {f: {d for d in edges[f] if d in inside} for f in inside}
    circles = [c for c in strongly_connected(inside, succ) if len(c) > 1]
    for comp in circles:
        print("circle of files in %s: %s" % (folder, " <-> ".join(comp)))
        for src in comp:
            for dst in sorted(succ[src] & set(comp)):
                print("  %s -> %s  (%s)" % (src, dst, edges[src][dst]))
    return len(circles)


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    edges = build_graph(scan(argv[1]))
    n = report_folders(edges)
    for folder in FILE_LEVEL:
        n += report_files(edges, folder)
    if n:
        print("layering: %d circle(s)" % n)
        return 1
    print("layering: no circle across %d folders of %d files" %
          (len({folder_of(f) for f in edges}), len(edges)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
