"""The memory browser: a small web app to see, correct and delete what the robot remembers.

    m3-memory serve memory.db [--port 8765] [--write-token-file FILE]      (or m3-browser, the same command)

Pages: people (faces, a voice sample, first/last seen, how often heard; name, merge, split, forget), timeline (clips
with their memories, who appeared and spoke), search (ranked memories or clips with scores, time bound) and ask (a
question through the real control loop, with its rounds, tool calls, retrieved memories and answer). Read-only
unless started with a write token. Starlette + Jinja2 templates served by uvicorn; no JavaScript build.

It lives in m3_control because the ask page runs the control loop; m3_memory's CLI starts it by name only.
"""

from .app import BrowserSettings
from .server import create_app

__all__ = ["BrowserSettings", "create_app"]
