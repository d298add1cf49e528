"""Perception: faces and voices found in clips, embedded, matched to the memory graph. No ROS imports."""
