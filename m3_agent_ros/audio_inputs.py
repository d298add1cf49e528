"""The audio message types the memorization node can subscribe to (parameter ``audio_msg_type``), imported lazily.

``m3_agent/AudioChunk`` is the project's own. The others come from the optional ROS package ``audio_common_msgs``,
which exists in two unrelated versions under the same name (a robot has one of them installed):

* audio_common 4.x (github.com/mgonzs13/audio_common, audio_common_msgs 4.0.x): ``AudioStamped`` (header + Audio
  with typed sample arrays and an AudioInfo of its own) -> ``audio_common_msgs/AudioStamped``;
* the ros-drivers/audio_common ROS 2 port (branch ros2, audio_common_msgs 0.3.x): ``AudioData`` (``uint8[] data``)
  or ``AudioDataStamped`` on the audio topic and ``AudioInfo`` (sample_format, coding_format, ...) on
  ``audio_info_topic`` -> ``audio_common_msgs/AudioData`` or ``audio_common_msgs/AudioDataStamped``.

:func:`load_audio_types` imports the package only when asked for it and checks that the installed version has the
fields the node reads and that its type support loads, so a missing or mismatched package fails the node's
configure with a message saying what to do, instead of an exception at activation.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from m3_agent_ros.params import AUDIO_MSG_TYPES

INSTALL_HINT = ("install it (ROS 2 binary: ros-$ROS_DISTRO-audio-common-msgs, or build the audio_common_msgs package "
                "of the robot's audio driver) and source its setup.bash before starting the node, or set "
                "audio_msg_type m3_agent/AudioChunk")


@dataclass(frozen=True)
class AudioTypes:
    name: str            # the audio_msg_type value
    data: Any            # message class on audio_topic
    info: Any = None     # AudioInfo class on audio_info_topic (ros-drivers types), else None
    stamped: bool = True  # the data message has a header (else: stamped with the node's clock at arrival)

    @property
    def typed(self) -> bool:
        """audio_common 4.x AudioStamped (typed arrays + PortAudio format)."""
        return self.name == "audio_common_msgs/AudioStamped"


def _fields(cls: Any) -> dict[str, str]:
    return dict(cls.get_fields_and_field_types()) if cls is not None else {}


def _type_support(cls: Any, name: str) -> None:
    """Load the C type support now (rclpy would only at create_subscription): a clear error at configure."""
    why = ""
    if cls._TYPE_SUPPORT is None:
        try:
            cls.__import_type_support__()
        except Exception as e:  # rosidl's UnsupportedTypeSupport (not an ImportError), OSError, ...
            why = f" ({type(e).__name__}: {e}; {e.__cause__ or e.__context__ or ''})"
    if cls._TYPE_SUPPORT is None:
        raise ValueError(f"audio_msg_type {name}: the python module of audio_common_msgs imports but its type support "
                         f"library does not load{why}: is its install's lib/ on LD_LIBRARY_PATH? Source its "
                         "setup.bash before starting the node")


def load_audio_types(name: str) -> AudioTypes:
    """The message classes for ``audio_msg_type`` ``name``; ValueError saying what is wrong and what to do."""
    if name not in AUDIO_MSG_TYPES:
        raise ValueError(f"unknown audio_msg_type {name!r}: {', '.join(AUDIO_MSG_TYPES)}")
    if name == "m3_agent/AudioChunk":
        from m3_agent.msg import AudioChunk

        return AudioTypes(name, AudioChunk)
    package, type_name = name.split("/")
    try:
        mod = importlib.import_module(f"{package}.msg")
    except ImportError as e:
        raise ValueError(f"audio_msg_type {name} needs the ROS package {package}, which is not installed here "
                         f"({type(e).__name__}: {e}): {INSTALL_HINT}") from e
    data_fields = _fields(getattr(mod, "AudioData", None))
    info_fields = _fields(getattr(mod, "AudioInfo", None))
    if type_name == "AudioStamped":
        cls = getattr(mod, "AudioStamped", None)
        if cls is None or "float32_data" not in data_fields or "format" not in info_fields:
            raise ValueError(f"audio_msg_type {name}: the installed {package} is not audio_common 4.x's (no "
                             "AudioStamped with typed AudioData arrays); its AudioData has "
                             f"{sorted(data_fields) or 'no fields'}: for the ros-drivers audio_common port use "
                             "audio_msg_type audio_common_msgs/AudioData (or AudioDataStamped) with audio_info_topic")
        _type_support(cls, name)
        return AudioTypes(name, cls)
    if "data" not in data_fields or "sample_format" not in info_fields:
        raise ValueError(f"audio_msg_type {name}: the installed {package}'s AudioData has no `data` bytes (fields "
                         f"{sorted(data_fields) or 'none'}) or its AudioInfo no sample_format: this is audio_common "
                         "4.x, whose microphone publishes AudioStamped: use audio_msg_type "
                         "audio_common_msgs/AudioStamped")
    cls = getattr(mod, type_name, None)
    if cls is None or (type_name == "AudioDataStamped" and "header" not in _fields(cls)):
        raise ValueError(f"audio_msg_type {name}: the installed {package} has no {type_name} with a header")
    _type_support(cls, name)
    _type_support(mod.AudioInfo, name)
    return AudioTypes(name, cls, info=mod.AudioInfo, stamped=type_name == "AudioDataStamped")
