# Sourced by setup.sh, ros_env.sh and test.sh: what M3_ROS_DISTRO picks (default: the distro scripts/ros_env.sh
# sourced in this shell, else kilted).
#   kilted  ROS 2 Kilted on Python 3.11, venv ~/.venvs/m3_agent,        colcon build/ install/ log/
#   jazzy   ROS 2 Jazzy  on Python 3.12, venv ~/.venvs/m3_agent_jazzy,  colcon build-jazzy/ install-jazzy/ log-jazzy/
#   none    no ROS, Python 3.10 (Humble's), venv ~/.venvs/m3_agent_py310: the ROS-free code and tests only
# Sets m3_distro, m3_pyver, m3_venv ($M3_VENV wins), m3_req_ros, m3_constraints, m3_build_base, m3_install_base,
# m3_log_base (relative to the repo root; empty for none). $PYTHON, if set, is the interpreter for a new venv.
m3_distro=${M3_ROS_DISTRO:-${M3_ACTIVE_DISTRO:-kilted}}   # (unset: the distro this shell has sourced, if any)
m3_build_base="" m3_install_base="" m3_log_base="" m3_req_ros=""
case "$m3_distro" in
  kilted) m3_pyver=3.11 m3_venv_default=m3_agent m3_constraints=constraints.txt m3_req_ros=requirements-kilted.txt
          m3_build_base=build m3_install_base=install m3_log_base=log ;;
  jazzy)  m3_pyver=3.12 m3_venv_default=m3_agent_jazzy m3_constraints=constraints-jazzy.txt
          m3_req_ros=requirements-jazzy.txt m3_build_base=build-jazzy m3_install_base=install-jazzy m3_log_base=log-jazzy ;;
  none)   m3_pyver=3.10 m3_venv_default=m3_agent_py310 m3_constraints=constraints-py310.txt ;;
  *) echo "M3_ROS_DISTRO=$m3_distro: expected kilted, jazzy or none" >&2; return 1 ;;
esac
# One distro per shell: another's workspace sourced before (scripts/ros_env.sh) stays on LD_LIBRARY_PATH / PYTHONPATH
# and is loaded first, e.g. a Python 3.12 (Jazzy) process dlopen()ing Kilted's interfaces built for 3.11 aborts with
# no message; a build or a test run from such a shell would mix the two
if [ -n "${M3_ACTIVE_DISTRO:-}" ] && [ "$M3_ACTIVE_DISTRO" != "$m3_distro" ]; then
  echo "M3_ROS_DISTRO=$m3_distro: this shell has the $M3_ACTIVE_DISTRO workspace sourced (scripts/ros_env.sh); run" \
    "it from a new shell" >&2
  return 1
fi
m3_venv=${M3_VENV:-$HOME/.venvs/$m3_venv_default}
unset m3_venv_default

m3_python() {  # the interpreter for a new venv: $PYTHON, else python3.X (PATH, then pyenv's newest) that runs
  local p
  if [ -n "${PYTHON:-}" ]; then echo "$PYTHON"; return; fi
  for p in "python$m3_pyver" $(ls -d "$HOME"/.pyenv/versions/"$m3_pyver".*/bin/"python$m3_pyver" 2>/dev/null | sort -V -r); do
    # a pyenv shim is on PATH for every installed version but runs only the selected ones
    if "$p" -c 'import sys' >/dev/null 2>&1; then command -v "$p"; return; fi
  done
  if [ "$m3_distro" = kilted ]; then echo python3; return; fi  # as before: the cp311 wheels will say if it is not 3.11
  echo "no python$m3_pyver found for M3_ROS_DISTRO=$m3_distro (set PYTHON=...)" >&2
  return 1
}

m3_venv_whole() {  # $1 is a venv that works: python runs, bin/activate and pip are there
  [ -x "$1/bin/python" ] && [ -f "$1/bin/activate" ] && "$1/bin/python" -m pip --version >/dev/null 2>&1
}

m3_venv_make() {  # make the venv $1 unless it is whole; one whose creation was cut off (killed during ensurepip:
  # bin/python but no bin/activate or pip) is made again. Returns 1, saying why, if that cannot be done.
  local venv=$1
  if [ -e "$venv" ] && ! m3_venv_whole "$venv"; then
    [ -f "$venv/pyvenv.cfg" ] || { echo "setup: $venv exists and is not a venv (no pyvenv.cfg): move it away" >&2; return 1; }
    echo "setup: $venv is incomplete (its creation was cut off): making it again"
    rm -rf "$venv"
  fi
  [ -e "$venv" ] || "$(m3_python)" -m venv "$venv" || { echo "setup: python -m venv $venv failed" >&2; return 1; }
  m3_venv_whole "$venv" || { echo "setup: $venv was made but does not work (no pip?)" >&2; return 1; }
}
