"""The import graph of the three packages: no loops, and the layers point one way (m3_memory <- m3_control <-
m3_agent_ros).

Every import counts, at module level or inside a function (a lazy import is still a dependency); only imports
under ``if TYPE_CHECKING:`` are left out. Factories that import the implementations live beside the interfaces
(``backends/factory.py``, ``answerers.py``, ``writing/factory.py``, ``browser/server.py``), not inside them.
No SQL runs outside the store package (``m3_memory/store/``): everything else goes through its API.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("m3_memory", "m3_control", "m3_agent_ros")


def _modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for f in (ROOT / pkg).rglob("*.py"):
            name = ".".join(f.relative_to(ROOT).with_suffix("").parts)
            out[name.removesuffix(".__init__")] = f
    return out


def _type_checking_only(tree: ast.AST) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip |= {id(n) for b in node.body for n in ast.walk(b)}
    return skip


def import_graph() -> dict[str, set[str]]:
    mods = _modules()

    def known(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        tree = ast.parse(path.read_text(), str(path))
        skip = _type_checking_only(tree)
        deps: set[str] = set()
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.Import):
                deps |= {m for a in node.names if (m := known(a.name))}
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                    base = base[: len(base) - (node.level - 1)]
                    src = ".".join(base + ([node.module] if node.module else []))
                else:
                    src = node.module or ""
                for a in node.names:   # "from . import x" imports the module x, not only the package
                    m = known(f"{src}.{a.name}") if f"{src}.{a.name}" in mods else known(src)
                    if m:
                        deps.add(m)
        deps.discard(name)
        graph[name] = deps
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
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

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_loops():
    graph = import_graph()
    assert len(graph) > 100
    loops = cycles(graph)
    detail = ["; ".join(f"{v} -> {sorted(graph[v] & set(c))}" for v in c) for c in loops]
    assert not loops, "import loops:\n" + "\n".join(detail)


def test_the_layers_point_one_way():
    """m3_memory imports nothing above it (not even by name: its CLI finds ``serve`` through an entry point) and
    m3_control nothing of the ROS layer."""
    graph = import_graph()
    up = {v: sorted(d for d in deps if d.split(".")[0] != "m3_memory")
          for v, deps in graph.items() if v.startswith("m3_memory")}
    assert not {v: d for v, d in up.items() if d}, up
    ros = {v: sorted(d for d in deps if d.startswith("m3_agent_ros"))
           for v, deps in graph.items() if v.startswith("m3_control")}
    assert not {v: d for v, d in ros.items() if d}, ros
    for path in (ROOT / "m3_memory").rglob("*.py"):
        tree = ast.parse(path.read_text())
        docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                      if isinstance(n, ast.Module | ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef)
                      and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        named = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
                 and id(n) not in docstrings and n.value.startswith(("m3_control", "m3_agent_ros"))]
        assert not named, f"{path.relative_to(ROOT)} names {named}"


def test_the_checker_finds_a_loop():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


# SQL against the store's connection: a statement, or reaching for the connection itself
_SQL_USE = re.compile(r"\.(?:execute|executemany|executescript)\(|\.conn\b|\bsqlite3\.connect\(")


def sql_outside_the_store() -> list[str]:
    """``file:line: code`` for every SQL use in the three packages outside ``m3_memory/store/`` (the one place a
    second storage engine has to reimplement)."""
    store = ROOT / "m3_memory" / "store"
    out = []
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            if store in path.parents:
                continue
            for i, line in enumerate(path.read_text().splitlines(), 1):
                code = line.split("#", 1)[0]
                if _SQL_USE.search(code):
                    out.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    return out


def test_no_sql_outside_the_store_package():
    found = sql_outside_the_store()
    assert not found, "SQL outside m3_memory/store/:\n" + "\n".join(found)


def test_the_sql_check_finds_sql(tmp_path, monkeypatch):
    fake = tmp_path / "m3_control"
    fake.mkdir()
    (fake / "x.py").write_text('rows = store.conn.execute("SELECT 1")\n# store.conn in a comment is fine\n')
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    monkeypatch.setattr(sys.modules[__name__], "PACKAGES", ("m3_control",))
    assert sql_outside_the_store() == ['m3_control/x.py:1: rows = store.conn.execute("SELECT 1")']


def test_modules_stay_small():
    """No module of the three packages over 600 lines; the memorization node (messages in, parameters, timers,
    publishers; the pipeline is m3_memory/ingest/) at most 250."""
    sizes = {str(p.relative_to(ROOT)): len(p.read_text().splitlines())
             for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}
    assert len(sizes) > 100
    assert not {p: n for p, n in sizes.items() if n > 600}
    assert sizes["m3_agent_ros/memorization_node.py"] <= 250


_FIRST_IMPORTS = r"""
import importlib, sys, traceback
mods = sys.argv[1:]
base = set(sys.modules)
bad = []
for name in mods:
    try:
        importlib.import_module(name)
    except Exception:
        bad.append(name + ": " + traceback.format_exc().strip().splitlines()[-1])
    for k in [k for k in sys.modules if k not in base and k.split(".")[0] in ("m3_memory", "m3_control")]:
        del sys.modules[k]
print("\n".join(bad))
"""


def test_every_module_imports_first():
    """Each module of the two ROS-free packages imported first, in a fresh package state: a loop through a package's
    ``__init__`` (which the graph above does not model) shows up as a partially initialized module here."""
    import subprocess

    names = sorted(n for n in _modules() if n.startswith(("m3_memory", "m3_control")) and not n.endswith("__main__"))
    out = subprocess.run([sys.executable, "-c", _FIRST_IMPORTS, *names], capture_output=True, text=True, cwd=ROOT,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert not out.stdout.strip(), out.stdout
