"""Run a CLI's ``main`` with ``--help`` (and each subcommand's ``--help``) and report, as JSON on the last line of
stdout, every argparse option, positional and subcommand that has no help text. Used by tests/test_cli_help.py.

    python tests/cli_help_probe.py MODULE:FUNCTION
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import sys
from typing import Any


def _run(fn: Any, prog: str, argv: list[str]) -> int:
    sys.argv = [prog, *argv]
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            rc = fn()
    except SystemExit as e:
        rc = e.code
    return int(rc or 0) if not isinstance(rc, str) else 1


def _undocumented(parser: argparse.ArgumentParser) -> list[str]:
    missing = []
    for a in parser._actions:
        if isinstance(a, (argparse._HelpAction, argparse._VersionAction)):
            continue
        if isinstance(a, argparse._SubParsersAction):
            helped = {c.dest for c in a._choices_actions if c.help}
            missing += [f"{parser.prog}: subcommand {name}" for name in a.choices if name not in helped]
        elif a.help is None or not str(a.help).strip():  # argparse.SUPPRESS: deliberately hidden (an alias)
            missing.append(f"{parser.prog}: {'/'.join(a.option_strings) or a.dest}")
    return missing


def main() -> int:
    module, func = sys.argv[1].split(":")
    made: list[argparse.ArgumentParser] = []
    original = argparse.ArgumentParser.__init__

    def recording_init(self: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        made.append(self)

    argparse.ArgumentParser.__init__ = recording_init  # type: ignore[method-assign]
    fn = getattr(importlib.import_module(module), func)
    report: dict[str, Any] = {"rc": _run(fn, module, ["--help"]), "subcommands": {}, "missing": []}
    top = [p for p in made if p.add_help]
    report["description"] = bool(top and (top[0].description or "").strip())
    parsers = list(made)
    for p in parsers:
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction) and p is top[0]:
                for name in a.choices:
                    report["subcommands"][name] = _run(fn, module, [name, "--help"])
    seen: set[int] = set()
    for p in made:  # every parser built along the way (top level, subcommands, parents)
        if id(p) not in seen:
            seen.add(id(p))
            report["missing"] += _undocumented(p)
    report["missing"] = sorted(set(report["missing"]))
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
