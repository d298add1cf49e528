#!/usr/bin/env bash
# The README's test command (and CI's, through .ci/run): set-up if needed, lint, then the whole test suite
# against the real colcon build. Extra arguments go to pytest (e.g. `bash scripts/test.sh -k store`).
# M3_ROS_DISTRO picks the distro (scripts/distro.sh): kilted (default), jazzy, or none (Python 3.10 without ROS:
# the tests marked `ros` are deselected).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# shellcheck disable=SC1091
. scripts/ros_env.sh
# DDS stays on loopback (ros_env.sh: the shipped profile, see m3_agent_ros/dds_env.py) with a per-run random
# domain (tests/conftest.py also enforces both).
export ROS_DOMAIN_ID="${ROS_DOMAIN_ID:-$(( (RANDOM % 101) + 1 ))}"
ruff check .
select=()
[ "${M3_ROS_DISTRO:-kilted}" = none ] && select=(-m "not ros")
# the slowest tests are listed at the end: where a slow CI machine spends its time shows in its log
python -m pytest -q -p no:cacheprovider --durations=15 "${select[@]}" "$@" tests
