"""The nodes of the m3_agent system: one table for bringup.py and launch/m3_agent.launch.py.

ROS-free (no rclpy import), so the launch file and the launch-free runner can both read it. Both take the same
arguments: a namespace, node names (``key=name``) and a params file. A params file's node sections are keyed by
the table's node names, which rcl matches only for nodes of that name in the root namespace; with a namespace or
another name, :func:`params_doc` re-keys them to the fully qualified names (as nav2's RewrittenYaml does).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from m3_agent_ros.params import ControlParams, MemorizationParams

PACKAGE = "m3_agent"  # the ROS package (interfaces, share/m3_agent/config, launch)


@dataclass(frozen=True)
class NodeSpec:
    key: str  # short name for --only / the launch argument `only`
    node_name: str  # ROS node name (also the params-file section)
    module: str  # run as `python -m <module> --ros-args ...`
    params: tuple[str, ...]  # parameters the node declares
    description: str
    lifecycle: bool = False  # a rclpy LifecycleNode (autostart parameter configures+activates it)

    @property
    def executable(self) -> str:
        """`ros2 run m3_agent <executable>` (nodes/, installed under lib/m3_agent)."""
        return self.module.rsplit(".", 1)[-1]

    def argv(
        self, params_file: str | Path | None = None, python: str = sys.executable, ros_args: Sequence[str] = (),
        namespace: str = "", node_name: str | None = None,
    ) -> list[str]:
        """Command line running this node as its own process (``node_name``: instead of the table's)."""
        cmd = [python, "-m", self.module, "--ros-args", "-r", f"__node:={node_name or self.node_name}"]
        if namespace and namespace != "/":
            cmd += ["-r", f"__ns:={namespace}"]
        if params_file is not None:
            cmd += ["--params-file", str(params_file)]
        return cmd + list(ros_args)


NODES: tuple[NodeSpec, ...] = (
    NodeSpec(
        key="memorization",
        node_name="m3_agent_memorization",
        module="m3_agent_ros.memorization_node",
        params=MemorizationParams.names(),
        description="turns camera + audio topics into memories in the store",
        lifecycle=True,
    ),
    NodeSpec(
        key="control",
        node_name="m3_agent_control",
        module="m3_agent_ros.control_node",
        params=ControlParams.names(),
        description="answers m3_agent/srv/Query from the memory store",
        lifecycle=True,
    ),
)


_NAME_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def normalize_namespace(namespace: str) -> str:
    """'robot1' or '/robot1/' -> '/robot1'; '' -> '' (root). ValueError for a name ROS would refuse."""
    parts = [p for p in namespace.strip().split("/") if p]
    bad = [p for p in parts if not _NAME_TOKEN.fullmatch(p)]
    if bad:
        raise ValueError(f"namespace {namespace!r}: {bad[0]!r} is not a valid ROS name token "
                         "(letters, digits, underscores; not starting with a digit)")
    return "/" + "/".join(parts) if parts else ""


def parse_names(items: Iterable[str] | None, nodes: Sequence[NodeSpec] = ()) -> dict[str, str]:
    """``["control=ctl", ...]`` (or comma lists) -> {table key: node name}; ValueError naming what is wrong."""
    nodes = nodes or NODES
    by_name = {n.key: n.key for n in nodes} | {n.node_name: n.key for n in nodes}
    out: dict[str, str] = {}
    for item in (w.strip() for it in (items or ()) for w in it.split(",") if w.strip()):
        key, sep, name = item.partition("=")
        if not sep or key.strip() not in by_name:
            raise ValueError(f"node name {item!r}: expected KEY=NAME with KEY one of {', '.join(n.key for n in nodes)}")
        if not _NAME_TOKEN.fullmatch(name.strip()):
            raise ValueError(f"node name {name.strip()!r} is not a valid ROS node name")
        out[by_name[key.strip()]] = name.strip()
    return out


def fully_qualified(namespace: str, node_name: str) -> str:
    return f"{normalize_namespace(namespace)}/{node_name}"


def params_doc(doc: Mapping[str, Any], namespace: str = "", names: Mapping[str, str] | None = None,
               nodes: Sequence[NodeSpec] = ()) -> dict[str, Any]:
    """A params file's content with the table's node sections re-keyed to the fully qualified names the nodes get
    (``names``: table key -> node name); ``/**`` and sections of other nodes are kept as they are."""
    nodes = nodes or NODES
    names = names or {}
    section_of = {n.node_name: fully_qualified(namespace, names.get(n.key, n.node_name)) for n in nodes}
    out: dict[str, Any] = {}
    for key, section in doc.items():
        out[section_of.get(str(key).lstrip("/"), key) if str(key).count("/") <= 1 else key] = section
    return out


def select(only: Iterable[str] | None = None, nodes: Sequence[NodeSpec] = NODES) -> list[NodeSpec]:
    """The table rows named in ``only`` (keys or node names, comma lists allowed); all when empty."""
    wanted = [w.strip() for item in (only or ()) for w in item.split(",") if w.strip()]
    if not wanted:
        return list(nodes)
    by_name = {n.key: n for n in nodes} | {n.node_name: n for n in nodes}
    unknown = [w for w in wanted if w not in by_name]
    if unknown:
        raise ValueError(f"unknown node(s) {', '.join(unknown)}; known: {', '.join(n.key for n in nodes)}")
    return [n for n in nodes if n in {by_name[w] for w in wanted}]


def control_params(params_file: str | Path) -> ControlParams:
    """The control node's parameters in a params file (its section over ``/**``, the defaults for the rest)."""
    doc = yaml.safe_load(Path(params_file).read_text()) or {}
    section: dict = {}
    for key in ("/**", next(n.node_name for n in NODES if n.key == "control")):
        section.update((doc.get(key) or {}).get("ros__parameters") or {})
    return ControlParams(**{k: v for k, v in section.items() if k in ControlParams.names()})
