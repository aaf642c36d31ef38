"""``python -m safetychip``: the command line, for anyone without the console script on PATH.

This is the one library-level module allowed to import :mod:`safetychip.cli` (it is the entry
point, as the ``safetychip`` console script is); nothing imports it.

Example:
    ``python -m safetychip translate "never pick up the phone" --scene apartment_1``
"""

from safetychip.cli import main

__all__: list[str] = []

if __name__ == "__main__":
    raise SystemExit(main())
