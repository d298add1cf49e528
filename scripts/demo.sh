#!/usr/bin/env bash
# The README's "run the main job" command: set-up if needed, then replay the bundled bag (rosbags/demo) through
# the real memorization and control nodes on the embedded CPU default, ask its questions over the Query service,
# and print answers and the score table (report in demo_out/). Extra arguments go to m3_agent_ros.demo.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${M3_ROS_DISTRO:-${M3_ACTIVE_DISTRO:-kilted}}" != none ] || { echo "demo: needs ROS (M3_ROS_DISTRO=kilted or jazzy)" >&2; exit 1; }
bash scripts/setup.sh
# shellcheck disable=SC1091
. scripts/ros_env.sh
export ROS_DOMAIN_ID="${ROS_DOMAIN_ID:-$(( (RANDOM % 101) + 1 ))}"
exec python -m m3_agent_ros.demo "$@"
