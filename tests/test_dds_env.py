"""Which name the Fast DDS profile goes under: Fast DDS 2.x (Humble / Iron / Jazzy) reads only
FASTRTPS_DEFAULT_PROFILES_FILE; 3.x (Kilted) reads FASTDDS_DEFAULT_PROFILES_FILE and warns at every participant
when the old name is set too."""

from __future__ import annotations

import pytest

from m3_agent_ros import dds_env


@pytest.mark.parametrize("distro, old_name", [("jazzy", True), ("humble", True), ("kilted", False), ("rolling", False)])
def test_the_profile_goes_under_the_name_the_distros_fast_dds_reads(distro, old_name):
    env = {"ROS_DISTRO": distro, "FASTDDS_DEFAULT_PROFILES_FILE": "/robot/profile.xml",
           "FASTRTPS_DEFAULT_PROFILES_FILE": "/robot/profile.xml"}
    dds_env.apply(env)
    assert env["FASTDDS_DEFAULT_PROFILES_FILE"] == "/robot/profile.xml"
    assert ("FASTRTPS_DEFAULT_PROFILES_FILE" in env) == old_name


def test_a_jazzy_users_own_profile_under_the_old_name_is_kept():
    env = {"ROS_DISTRO": "jazzy", "FASTRTPS_DEFAULT_PROFILES_FILE": "/robot/old.xml"}
    dds_env.apply(env)
    assert env["FASTDDS_DEFAULT_PROFILES_FILE"] == env["FASTRTPS_DEFAULT_PROFILES_FILE"] == "/robot/old.xml"


def test_another_value_under_the_old_name_is_left_alone_on_fast_dds_3():
    env = {"ROS_DISTRO": "kilted", "FASTDDS_DEFAULT_PROFILES_FILE": "/a.xml",
           "FASTRTPS_DEFAULT_PROFILES_FILE": "/b.xml"}
    dds_env.apply(env)
    assert env["FASTRTPS_DEFAULT_PROFILES_FILE"] == "/b.xml"


def test_without_a_distro_the_installed_wheels_tell():
    from importlib.metadata import PackageNotFoundError, version

    def installed(name: str) -> bool:
        try:
            version(name)
            return True
        except PackageNotFoundError:
            return False

    if not (installed("ros-fastrtps") or installed("ros-fastdds")):
        pytest.skip("no ROS wheels here")
    assert dds_env.fast_dds_2({}) == installed("ros-fastrtps")
