# Source me from bash:  . scripts/ros_env.sh    (M3_ROS_DISTRO=jazzy . scripts/ros_env.sh for Jazzy)
# Activates the venv and the colcon workspace of M3_ROS_DISTRO (scripts/distro.sh; none: the venv only). Must
# happen BEFORE python starts: the generated typesupport libraries are dlopen()ed through LD_LIBRARY_PATH, which
# a running interpreter can't change.
_m3_root="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/.." && pwd)"
. "$_m3_root/scripts/distro.sh" || return 1
export M3_ACTIVE_DISTRO="$m3_distro"   # (one distro per shell: scripts/distro.sh refuses another after it)
. "$m3_venv/bin/activate"
if [ -n "$m3_install_base" ]; then
  case "$-" in *u*) _m3_u=1; set +u;; *) _m3_u=;; esac   # colcon setup scripts break under `set -u`
  . "$_m3_root/$m3_install_base/setup.sh"
  [ -n "$_m3_u" ] && set -u
  export AMENT_PREFIX_PATH="$AMENT_PREFIX_PATH:$VIRTUAL_ENV"
  # where the tests find this distro's colcon build (tests/ros_helpers.py)
  export M3_COLCON_BUILD_BASE="$_m3_root/$m3_build_base" M3_COLCON_INSTALL_BASE="$_m3_root/$m3_install_base"
else
  unset M3_COLCON_BUILD_BASE M3_COLCON_INSTALL_BASE
fi
export ROS_LOG_DIR="${ROS_LOG_DIR:-${TMPDIR:-/tmp}/m3_agent_ros_log}"
# Keep DDS on this host and use big SHM segments for raw images. The shipped profile discovers over 127.0.0.1 only
# and binds every socket there, so with it the discovery range is SYSTEM_DEFAULT (the profile rules): LOCALHOST
# (or ROS_LOCALHOST_ONLY=1) would make rmw_fastrtps add its own UDP transport, bound on 0.0.0.0 and every interface.
# Fast DDS 2.x (Jazzy) reads the same profile under its old name only; 3.x (Kilted) warns when that is set.
export FASTDDS_DEFAULT_PROFILES_FILE="${FASTDDS_DEFAULT_PROFILES_FILE:-${FASTRTPS_DEFAULT_PROFILES_FILE:-$_m3_root/config/fastdds_localhost.xml}}"
if [ "$m3_distro" = jazzy ]; then
  export FASTRTPS_DEFAULT_PROFILES_FILE="$FASTDDS_DEFAULT_PROFILES_FILE"
else
  unset FASTRTPS_DEFAULT_PROFILES_FILE
fi
if [ "$FASTDDS_DEFAULT_PROFILES_FILE" -ef "$_m3_root/config/fastdds_localhost.xml" ]; then
  export ROS_AUTOMATIC_DISCOVERY_RANGE=SYSTEM_DEFAULT
  unset ROS_LOCALHOST_ONLY
else  # another profile: at least no multicast discovery on real interfaces
  export ROS_AUTOMATIC_DISCOVERY_RANGE="${ROS_AUTOMATIC_DISCOVERY_RANGE:-LOCALHOST}"
fi
unset _m3_root _m3_u m3_distro m3_pyver m3_venv m3_req_ros m3_constraints m3_build_base \
  m3_install_base m3_log_base
unset -f m3_python m3_venv_whole m3_venv_make
