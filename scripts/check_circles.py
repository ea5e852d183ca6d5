#!/usr/bin/env python3
"""Files of one crate that import each other, directly or around a circle.

    scripts/check_circles.py [CRATE_SRC_DIR...]   (default: every crate's src/)

A file imports another when it names an item through the other's module
path: `crate::a::b`, `super::b`, `self::b`, or a `use` of them. A module's
own submodules and its ancestors are left out (a parent declares its
children and re-exports them; a child may use its parent's types): a
circle is between files neither of which contains the other. Prints every
circle (a strongly connected group of two or more files) and exits 1 when
there is one, 0 when there is none.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def crate_dirs():
    out = []
    for dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = [d for d in dirnames if d not in ("target", ".git", ".venv", "fuzz", "node_modules")]
        if "Cargo.toml" in filenames and os.path.isdir(os.path.join(dirpath, "src")):
            out.append(os.path.join(dirpath, "src"))
    return sorted(out)


def module_of(src, path):
    """('a', 'b') for src/a/b.rs or src/a/b/mod.rs; () for lib.rs/main.rs."""
    rel = os.path.relpath(path, src)[:-3].split(os.sep)
    if rel[-1] == "mod":
        rel = rel[:-1]
    if rel in (["lib"], ["main"]):
        return ()
    return tuple(rel)


COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
STRING = re.compile(r'"(?:\\.|[^"\\])*"')
PATH = re.compile(r"\b(crate|super|self)((?:::\w+)+)")
USE_GROUP = re.compile(r"\buse\s+(crate|super|self)((?:::\w+)*)::\{([^;]*)\}\s*;", re.S)


def references(text):
    """(anchor, [segments]) for every crate/super/self path in the text."""
    text = STRING.sub('""', COMMENT.sub("", text))
    out = []
    for m in PATH.finditer(text):
        out.append((m.group(1), [s for s in m.group(2).split("::") if s]))
    for m in USE_GROUP.finditer(text):
        base = [s for s in m.group(2).split("::") if s]
        for item in re.split(r"[,{}\s]+", m.group(3)):
            item = item.split(" as ")[0].strip()
            if item and re.fullmatch(r"\w+", item) and item != "self":
                out.append((m.group(1), base + [item]))
    return out


def resolve(mod, anchor, segs, modules):
    """The longest module prefix the path names, or None."""
    if anchor == "crate":
        base = ()
    elif anchor == "self":
        base = mod
    else:
        base = mod[:-1]
        while segs and segs[0] == "super":
            base, segs = base[:-1], segs[1:]
    best = None
    cur = base
    if cur in modules:
        best = cur
    for s in segs:
        cur = cur + (s,)
        if cur in modules:
            best = cur
        else:
            break
    return best


def circles(src):
    files = {}
    for dirpath, _, filenames in os.walk(src):
        for f in filenames:
            if f.endswith(".rs"):
                p = os.path.join(dirpath, f)
                files[module_of(src, p)] = p
    modules = set(files)
    edges = {m: set() for m in modules}
    for m, p in files.items():
        with open(p, encoding="utf-8") as fh:
            text = fh.read()
        for anchor, segs in references(text):
            t = resolve(m, anchor, segs, modules)
            if t is None or t == m or t[: len(m)] == m or m[: len(t)] == t:
                continue
            edges[m].add(t)
    # Tarjan's strongly connected components.
    index, low, on, stack, out, n = {}, {}, set(), [], [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(modules):
        if v not in index:
            visit(v)
    return [[os.path.relpath(files[m], ROOT) for m in comp] for comp in out], edges, files


def main():
    dirs = sys.argv[1:] or crate_dirs()
    found = 0
    for src in dirs:
        comps, edges, files = circles(src)
        for comp in comps:
            found += 1
            print("circle: " + " <-> ".join(comp))
    if found:
        print(f"{found} circle(s)")
        return 1
    print(f"no circles in {len(dirs)} crate(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
