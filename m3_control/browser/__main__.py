"""``python -m m3_control.browser DB ...``: the memory browser (see cli.py)."""

import sys

from .cli import main

sys.exit(main(prog="python -m m3_control.browser"))
