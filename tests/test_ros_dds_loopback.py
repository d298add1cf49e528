"""DDS stays on loopback, and a node name can't be started twice.

1. A real node process, discovered and matched with this test's participant: every inet socket it holds
   (UDP/TCP/raw, v4/v6, read from /proc/<pid>/fd and /proc/<pid>/net/*, no `ss` needed) is bound to a loopback
   address. With ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST, rmw_fastrtps adds a UDP transport of its own that
   binds send sockets on 0.0.0.0 and on every interface's address: that is what this catches.
2. m3_agent_ros/node_guard.py: a second node under a running node's fully qualified name logs FATAL and exits
   with EXIT_NAME_TAKEN within its discovery window; the first one keeps running and serving.
"""

from __future__ import annotations

import ipaddress
import os
import struct
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from m3_agent_ros import node_guard

from .ros_helpers import NodeProcess, RosTestNode, ros_env, start_module, wait_for_service, wait_until

# ------------------------------------------------------------------------------------------ sockets of a process
_INET_TABLES = ("udp", "udp6", "tcp", "tcp6", "udplite", "udplite6", "raw", "raw6")
_TCP_LISTEN = "0A"


@dataclass(frozen=True)
class InetSocket:
    table: str  # udp, tcp6, ...
    address: str
    port: int
    state: str  # the kernel's hex state (TCP: 0A = LISTEN)

    @property
    def loopback(self) -> bool:
        ip = ipaddress.ip_address(self.address)
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        return ip.is_loopback

    def __str__(self) -> str:
        return f"{self.table} {self.address}:{self.port}"


def _decode_address(hex_addr: str) -> str:
    """/proc/net/* prints an address as 32-bit words, each in host byte order."""
    raw = bytes.fromhex(hex_addr)
    packed = b"".join(struct.pack("=I", int.from_bytes(raw[i:i + 4], "big")) for i in range(0, len(raw), 4))
    return str(ipaddress.ip_address(packed))


def socket_inodes(pid: int) -> set[int]:
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:  # closed meanwhile
            continue
        if target.startswith("socket:["):
            inodes.add(int(target[len("socket:["):-1]))
    return inodes


def inet_sockets(pid: int) -> tuple[list[InetSocket], int]:
    """The inet sockets among ``pid``'s open file descriptors (in its network namespace), and how many of its
    sockets are of another family (unix, netlink, ...)."""
    inodes = socket_inodes(pid)
    found: list[InetSocket] = []
    for table in _INET_TABLES:
        path = Path(f"/proc/{pid}/net/{table}")
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            cols = line.split()
            if len(cols) > 9 and int(cols[9]) in inodes:
                addr, port = cols[1].split(":")
                found.append(InetSocket(table, _decode_address(addr), int(port, 16), cols[3]))
                inodes.discard(int(cols[9]))
    return found, len(inodes)


# ------------------------------------------------------------------------------------------ helpers
def _memorization(tmp_path: Path, tag: str, node_name: str | None = None, log: str = "node.log",
                  guard_window: float | None = None, discovery_range: str | None = None) -> NodeProcess:
    args = ["--ros-args", "-p", f"db_path:={tmp_path / f'{tag}.db'}", "-p", "face_backend:=none",
            "-p", "voice_backend:=none", "-p", f"compressed_topic:=/{tag}/image/compressed",
            "-p", f"image_topic:=/{tag}/image", "-p", f"audio_topic:=/{tag}/audio"]
    if node_name:
        args += ["-r", f"__node:={node_name}"]
    extra = {} if guard_window is None else {node_guard.WINDOW_ENV: str(guard_window)}
    env = ros_env(extra)
    if discovery_range:   # what the shell may say; the node itself applies the profile (m3_agent_ros/dds_env.py)
        env["ROS_AUTOMATIC_DISCOVERY_RANGE"] = discovery_range
    return start_module("m3_agent_ros.memorization_node", args, tmp_path / log, env=env)


def _on_graph(ros: RosTestNode, fqn: str) -> int:
    ros.executor.spin_once(timeout_sec=0.05)
    return node_guard.count_on_graph(ros.node, fqn)


# ------------------------------------------------------------------------------------------ tests
def test_socket_listing_reads_the_kernel_tables() -> None:
    """The checker itself, on sockets of this process: it finds them, and tells 0.0.0.0 from 127.0.0.1."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as lo, \
            socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as anyaddr:
        lo.bind(("127.0.0.1", 0))
        anyaddr.bind(("0.0.0.0", 0))
        socks = {(s.table, s.port): s for s in inet_sockets(os.getpid())[0]}
        mine_lo = socks[("udp", lo.getsockname()[1])]
        mine_any = socks[("udp", anyaddr.getsockname()[1])]
    assert (mine_lo.address, mine_lo.loopback) == ("127.0.0.1", True)
    assert (mine_any.address, mine_any.loopback) == ("0.0.0.0", False)
    assert InetSocket("udp6", "::1", 1, "07").loopback and InetSocket("udp6", "::ffff:127.0.0.1", 1, "07").loopback
    assert not InetSocket("udp6", "::", 1, "07").loopback


def test_node_guard_window_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(node_guard.WINDOW_ENV, raising=False)
    assert node_guard.window_s() == node_guard.WINDOW_S
    monkeypatch.setenv(node_guard.WINDOW_ENV, "0.5")
    assert node_guard.window_s() == 0.5
    for bad in ("-1", "soon", "nan"):
        monkeypatch.setenv(node_guard.WINDOW_ENV, bad)
        with pytest.raises(ValueError, match=node_guard.WINDOW_ENV):
            node_guard.window_s()
    assert node_guard.fully_qualified("n", "/") == "/n"
    assert node_guard.fully_qualified("n", "/robot") == "/robot/n"


@pytest.mark.ros
@pytest.mark.parametrize("discovery_range", [None, "LOCALHOST"])
def test_a_running_node_binds_dds_sockets_on_loopback_only(tmp_path: Path, discovery_range: str | None) -> None:
    from sensor_msgs.msg import CompressedImage
    from std_srvs.srv import Trigger

    assert Path(os.environ["FASTDDS_DEFAULT_PROFILES_FILE"]).name == "fastdds_localhost.xml"  # conftest's
    proc = _memorization(tmp_path, "loopback_check", node_name="m3_loopback_check", discovery_range=discovery_range)
    ros = RosTestNode("loopback_check_client")
    try:
        flush = ros.node.create_client(Trigger, "/m3_loopback_check/flush")
        wait_for_service(flush, timeout_sec=30, proc=proc)  # discovered and active
        pub = ros.node.create_publisher(CompressedImage, "/loopback_check/image/compressed", 10)
        wait_until(lambda: (ros.executor.spin_once(timeout_sec=0.05), pub.get_subscription_count() > 0)[1],
                   timeout=20, what="the node's subscription to match", on_fail=proc.describe)
        # matched both ways: the node has opened its senders towards this participant as well
        socks, other = inet_sockets(proc.pid)
        assert proc.alive(), proc.describe()
    finally:
        ros.close()
        proc.stop(timeout=20)
    udp = [s for s in socks if s.table.startswith("udp")]
    assert len(udp) >= 3, f"expected DDS's UDP sockets (discovery, data, send), found {socks}"  # not vacuous
    off_loopback = [str(s) for s in socks if not s.loopback]
    assert not off_loopback, (
        f"DDS sockets off loopback: {off_loopback} (all inet sockets: {[str(s) for s in socks]}, {other} other); "
        "with config/fastdds_localhost.xml use ROS_AUTOMATIC_DISCOVERY_RANGE=SYSTEM_DEFAULT, not LOCALHOST")
    assert not [str(s) for s in socks if s.table.startswith("tcp") and s.state == _TCP_LISTEN]
    if discovery_range == "LOCALHOST":
        assert "replaced by SYSTEM_DEFAULT" in proc.output()   # said, not silently changed


@pytest.mark.ros
def test_second_node_with_the_same_name_refuses_to_start(tmp_path: Path) -> None:
    """With the default window (the suite's is shorter, see conftest.py): a second node under a running node's
    name exits (FATAL, EXIT_NAME_TAKEN) before configuring anything; the first keeps serving. A node killed with
    SIGKILL (its entry still on other participants' graphs until its lease runs out) does not block its own
    restart: a newcomer only learns about live participants."""
    from std_srvs.srv import Trigger

    name = "m3_dup_guard_check"
    fqn = f"/{name}"
    first = _memorization(tmp_path, "first", node_name=name, log="first.log")
    second: NodeProcess | None = None
    third: NodeProcess | None = None
    ros = RosTestNode("dup_guard_client")
    try:
        flush = ros.node.create_client(Trigger, f"{fqn}/flush")
        wait_for_service(flush, timeout_sec=30, proc=first)  # active: past its own guard window
        # node names travel apart from the service endpoints (ros_discovery_info): they may come a little later
        wait_until(lambda: _on_graph(ros, fqn) == 1, timeout=15, what="the first node on the graph")

        t0 = time.monotonic()
        second = _memorization(tmp_path, "second", node_name=name, log="second.log", guard_window=node_guard.WINDOW_S)
        wait_until(lambda: not second.alive(), timeout=node_guard.WINDOW_S + 25,
                   what="the second node to refuse to start", on_fail=second.describe)
        took = time.monotonic() - t0
        assert second.wait(timeout=1) == node_guard.EXIT_NAME_TAKEN, second.describe()
        out = second.output()
        assert "FATAL" in out and f"another node named {fqn} is already running" in out, out
        assert not (tmp_path / "second.db").exists()  # refused before configure: never opened its store

        assert first.alive(), first.describe()
        wait_until(lambda: _on_graph(ros, fqn) == 1, timeout=15, what="the refused node to leave the graph")
        assert ros.call(flush, Trigger.Request(), timeout_sec=30, proc=first).success
        print(f"second node refused {took:.2f} s after its process started")

        first.proc.kill()  # SIGKILL: no goodbye to the graph
        first.wait(timeout=10)
        third = _memorization(tmp_path, "third", node_name=name, log="third.log", guard_window=node_guard.WINDOW_S)
        # past its guard: configured (its store exists) and still running
        wait_until(lambda: (tmp_path / "third.db").exists() or not third.alive(), timeout=30,
                   what="the third node to configure", on_fail=third.describe)
        assert third.alive() and "FATAL" not in third.output(), third.describe()
    finally:
        ros.close()
        for proc in (second, first):
            if proc is not None:
                proc.stop(timeout=10)
        rc = third.stop(timeout=20) if third is not None else None
    assert rc == 0, third.describe() if third is not None else "the third node never started"
