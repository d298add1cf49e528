#!/usr/bin/env bash
# The README's test command (and CI's, through .ci/run): set-up if needed, lint, then the whole test suite
# against the real colcon build. Extra arguments go to pytest as one run (e.g. `bash scripts/test.sh -k store`).
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
# M3_TEST_MARKS: a pytest marker expression that selects the tests (.ci/run: "ros and not once" on Jazzy)
marks="${M3_TEST_MARKS:-}"
[ "$M3_ACTIVE_DISTRO" = none ] && marks="${marks:+($marks) and }not ros"
pytest=(python -m pytest -q -p no:cacheprovider --durations=15)
if [ $# -gt 0 ]; then   # a developer's own selection: one run as asked
  "${pytest[@]}" ${marks:+-m "$marks"} "$@" tests
  exit
fi
# The whole selection in two runs: the tests that start no DDS participants on every core (pytest-xdist, one
# worker per test file: a file's fixtures are built once), then those marked `ros` one at a time (nodes over DDS
# with deadlines, each wanting the machine's cores). pytest exits 5 when a run selects no test.
cores=$(nproc)
workers="${M3_TEST_WORKERS:-$(( cores < 4 ? cores : 4 ))}"   # each worker loads its own models: at most 4
rc=0
"${pytest[@]}" -m "${marks:+($marks) and }not ros" -n "$workers" --dist loadfile tests || { r=$?; [ $r = 5 ] || rc=$r; }
if [ "$M3_ACTIVE_DISTRO" != none ]; then
  "${pytest[@]}" -m "${marks:+($marks) and }ros" tests || { r=$?; [ $r = 5 ] || rc=$r; }
fi
exit $rc
