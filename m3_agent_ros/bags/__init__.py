"""Rosbag2 tools built on the pure-python `rosbags` library (no rclpy needed): video -> bag conversion,
questions, reading. Replay through DDS lives in m3_agent_ros.replay."""
