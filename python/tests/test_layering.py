"""The Python package's layers (DEVELOPERS.md, "Python layers"), read from
the source with `ast` (every import statement, also inside functions, and
``importlib.import_module``/``__import__`` of a constant name):

* no module of ``wifitcp`` imports ``bench`` (the benchmarks import the
  package, never the reverse) or changes ``sys.path``;
* nothing under ``wifitcp/models/`` imports ``wifitcp.cli``;
* only the CLI's entry points (``__main__``, ``cli``, ``completion``) import
  ``wifitcp.cli``.

The checker is tested on a small package written for the purpose, so that
each rule is seen to fail."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import REPO

PACKAGE = REPO / "python" / "wifitcp"
CLI = "wifitcp.cli"
CLI_ENTRY_POINTS = {"wifitcp.__main__", "wifitcp.cli", "wifitcp.completion"}


def module_name(path: Path, root: Path) -> str:
    """``wifitcp.models.bianchi`` for ``<root>/wifitcp/models/bianchi.py``."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported(path: Path, root: Path) -> set:
    """Every module name ``path`` imports, absolute; ``from X import y``
    counts as importing both ``X`` and ``X.y`` (y may be a module)."""
    name = module_name(path, root)
    is_pkg = path.name == "__init__.py"
    package = name if is_pkg else name.rpartition(".")[0]
    out: set = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Call):
            f = node.func
            fname = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
            if fname in ("import_module", "__import__") and node.args \
                    and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                target = node.args[0].value
                if target.startswith("."):  # import_module(".x", package)
                    target = package + target
                out.add(target)
    return out


def changes_sys_path(path: Path) -> bool:
    """``sys.path.insert/append/extend/...`` or an assignment to ``sys.path``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) \
                and node.value.attr == "path" and isinstance(node.value.value, ast.Name) \
                and node.value.value.id == "sys" and node.attr in (
                    "insert", "append", "extend", "remove", "pop", "clear", "__setitem__"):
            return True
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                t = t.value if isinstance(t, ast.Subscript) else t
                if isinstance(t, ast.Attribute) and t.attr == "path" \
                        and isinstance(t.value, ast.Name) and t.value.id == "sys":
                    return True
    return False


def violations(package_dir: Path) -> list:
    """Every broken rule, one line each, for the package at ``package_dir``."""
    root = package_dir.parent
    out = []
    for path in sorted(package_dir.rglob("*.py")):
        mod = module_name(path, root)
        names = imported(path, root)
        where = path.relative_to(root)
        bench = sorted(n for n in names if n == "bench" or n.startswith("bench."))
        for n in bench:
            if n.rpartition(".")[0] not in bench:  # `from bench import x`: once
                out.append(f"{where}: imports {n} (the package never imports bench/)")
        if any(n == CLI or n.startswith(CLI + ".") for n in names):
            if mod == "wifitcp.models" or mod.startswith("wifitcp.models."):
                out.append(f"{where}: a model imports {CLI}")
            elif mod not in CLI_ENTRY_POINTS:
                out.append(f"{where}: imports {CLI} (only {', '.join(sorted(CLI_ENTRY_POINTS))} may)")
        if changes_sys_path(path):
            out.append(f"{where}: changes sys.path")
    return out


# -- the package itself -------------------------------------------------------

def test_the_package_keeps_its_layers():
    files = list(PACKAGE.rglob("*.py"))
    # the checker saw the package (a wrong path would make the test vacuous)
    assert len(files) > 30 and PACKAGE / "models" / "bianchi.py" in files
    assert PACKAGE / "repro" / "p001_keceli.py" in files
    found = violations(PACKAGE)
    assert not found, "layering broken:\n" + "\n".join(found)


def test_the_checker_resolves_the_package_own_imports():
    root = PACKAGE.parent
    assert "wifitcp.cli" in imported(PACKAGE / "__main__.py", root)
    assert "wifitcp.cli" in imported(PACKAGE / "completion.py", root)
    assert "wifitcp.campaign" in imported(PACKAGE / "reportpage.py", root)
    assert "wifitcp.models.pokhrel" in imported(PACKAGE / "models" / "overlay.py", root)
    assert "wifitcp.scenario" in imported(PACKAGE / "models" / "bianchi.py", root)


# -- the checker fails where it should ------------------------------------------

def _package(tmp_path: Path, files: dict) -> Path:
    pkg = tmp_path / "wifitcp"
    for rel, text in {"__init__.py": "", "cli.py": "def main(): pass\n",
                      "__main__.py": "from .cli import main\n",
                      "completion.py": "def f():\n    from .cli import main\n",
                      "models/__init__.py": "", **files}.items():
        p = pkg / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return pkg


def test_a_clean_package_passes(tmp_path):
    assert violations(_package(tmp_path, {"models/m.py": "from . import n\n",
                                          "report.py": "from .models import m\n"})) == []


def test_importing_bench_fails(tmp_path):
    for i, text in enumerate(("import bench.models\n", "from bench import campaign\n",
                              "def f():\n    from bench.models import grid\n",
                              "import importlib\nimportlib.import_module('bench.campaign')\n")):
        got = violations(_package(tmp_path / str(i), {"report.py": text}))
        assert got and all(g.startswith("wifitcp/report.py: imports bench") for g in got), text


def test_changing_sys_path_fails(tmp_path):
    for i, text in enumerate(("import sys\nsys.path.insert(0, 'bench')\n",
                              "import sys\nsys.path.append('/x')\n", "import sys\nsys.path = []\n",
                              "import sys\nsys.path += ['bench']\n")):
        assert violations(_package(tmp_path / str(i), {"report.py": text})) == \
            ["wifitcp/report.py: changes sys.path"], text


def test_a_model_importing_the_cli_fails(tmp_path):
    for i, text in enumerate(("from ..cli import main\n", "from .. import cli\n",
                              "import wifitcp.cli\n", "def f():\n    from wifitcp.cli import main\n")):
        got = violations(_package(tmp_path / str(i), {"models/m.py": text}))
        assert got and all(g.startswith("wifitcp/models/m.py: a model imports wifitcp.cli")
                           for g in got), text


def test_a_module_importing_the_cli_fails(tmp_path):
    for i, text in enumerate(("from .cli import main\n", "from . import cli\n",
                              "def build():\n    from .cli import run_campaign\n",
                              "import importlib\nimportlib.import_module('wifitcp.cli')\n")):
        got = violations(_package(tmp_path / str(i), {"reportpage.py": text}))
        assert got and all(g.startswith("wifitcp/reportpage.py: imports wifitcp.cli")
                           for g in got), text
    got = violations(_package(tmp_path / "repro", {"repro/__init__.py": "",
                                                   "repro/p.py": "from ..cli import main\n"}))
    assert got and all(g.startswith("wifitcp/repro/p.py: imports wifitcp.cli") for g in got)
