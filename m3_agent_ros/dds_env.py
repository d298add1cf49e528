"""Loopback-only DDS for every process this project starts (nodes, replay, demo, benchmarks, tests).

The shipped Fast DDS profile (config/fastdds_localhost.xml; FASTDDS_DEFAULT_PROFILES_FILE, mirrored into
FASTRTPS_DEFAULT_PROFILES_FILE on Fast DDS 2.x, the only name that of ROS 2 Jazzy reads; 3.x warns about it)
discovers over 127.0.0.1 only and binds every socket there. It must rule discovery alone: with
``ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST`` (or ROS_LOCALHOST_ONLY=1) rmw_fastrtps adds a UDP transport of its own
after reading the profile, bound on 0.0.0.0 and on every interface (tests/test_ros_dds_loopback.py shows it with
the process's sockets). So with the shipped profile
the range is SYSTEM_DEFAULT, which leaves transports and peers to the profile — still localhost only. With another
profile (a robot's own network setup) LOCALHOST remains the default, as the user's profile may use real interfaces.

Call :func:`apply` before rclpy is initialised (a running participant keeps its transports).
"""

from __future__ import annotations

import os
import random
from collections.abc import MutableMapping
from pathlib import Path

PROFILE_NAME = "fastdds_localhost.xml"


def shipped_profile() -> Path | None:
    """The shipped profile: in the source tree, or in the installed package's share directory."""
    here = Path(__file__).resolve().parents[1] / "config" / PROFILE_NAME
    if here.is_file():
        return here
    try:
        from ament_index_python.packages import get_package_share_directory

        share = Path(get_package_share_directory("m3_agent")) / "config" / PROFILE_NAME
        return share if share.is_file() else None
    except Exception:
        return None


FAST_DDS_2_DISTROS = frozenset({"humble", "iron", "jazzy"})


def fast_dds_2(env: MutableMapping[str, str]) -> bool:
    """Whether this ROS 2 runs Fast DDS 2.x (reads FASTRTPS_DEFAULT_PROFILES_FILE only): by $ROS_DISTRO (set by
    /opt/ros/<distro>/setup.bash), else by the installed ROS wheels (ros-fastrtps is 2.x, ros-fastdds 3.x); True
    when neither tells (both names then, the newer one merely warns)."""
    distro = env.get("ROS_DISTRO", "").strip().lower()
    if distro:
        return distro in FAST_DDS_2_DISTROS
    from importlib.metadata import PackageNotFoundError, version

    for dist, old in (("ros-fastrtps", True), ("ros-fastdds", False)):
        try:
            version(dist)
            return old
        except PackageNotFoundError:
            continue
    return True


def uses_shipped_profile(env: MutableMapping[str, str]) -> bool:
    prof, shipped = env.get("FASTDDS_DEFAULT_PROFILES_FILE"), shipped_profile()
    if not prof or shipped is None:
        return False
    try:
        return Path(prof).resolve().samefile(shipped)
    except OSError:
        return False


def apply(env: MutableMapping[str, str] | None = None, random_domain: bool = False) -> str | None:
    """Make ``env`` (default: this process's) loopback-only DDS; returns a note when a setting was changed.

    Without a profile set, the shipped one is used. ``random_domain``: pick a ROS_DOMAIN_ID in 1..101 unless one
    is set (scripts and tests, so that parallel runs don't see each other)."""
    env = os.environ if env is None else env
    note = None
    shipped = shipped_profile()
    if not env.get("FASTDDS_DEFAULT_PROFILES_FILE"):
        # a Jazzy user's own profile may be set under Fast DDS 2.x's name only
        picked = env.get("FASTRTPS_DEFAULT_PROFILES_FILE") or (str(shipped) if shipped is not None else "")
        if picked:
            env["FASTDDS_DEFAULT_PROFILES_FILE"] = picked
    if env.get("FASTDDS_DEFAULT_PROFILES_FILE"):
        if fast_dds_2(env):   # Fast DDS 2.x (ROS 2 Jazzy) reads only the old name
            env["FASTRTPS_DEFAULT_PROFILES_FILE"] = env["FASTDDS_DEFAULT_PROFILES_FILE"]
        elif env.get("FASTRTPS_DEFAULT_PROFILES_FILE") == env["FASTDDS_DEFAULT_PROFILES_FILE"]:
            del env["FASTRTPS_DEFAULT_PROFILES_FILE"]   # 3.x reads the new name and warns about the old one
    if uses_shipped_profile(env):
        asked = env.get("ROS_AUTOMATIC_DISCOVERY_RANGE")
        if asked not in (None, "", "SYSTEM_DEFAULT") or env.get("ROS_LOCALHOST_ONLY"):
            note = (f"ROS_AUTOMATIC_DISCOVERY_RANGE={env.get('ROS_AUTOMATIC_DISCOVERY_RANGE')} replaced by "
                    f"SYSTEM_DEFAULT: the shipped profile {PROFILE_NAME} keeps discovery and every socket on "
                    "127.0.0.1 (LOCALHOST would add a UDP transport bound on all interfaces)")
        env["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "SYSTEM_DEFAULT"
        env.pop("ROS_LOCALHOST_ONLY", None)
    else:
        env.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    if random_domain and not env.get("ROS_DOMAIN_ID"):
        env["ROS_DOMAIN_ID"] = str(random.randint(1, 101))
    return note
