"""``python -m safetychip.cli``: the command line without the console script.

Example:
    ``python -m safetychip.cli translate "never enter the kitchen" --scene apartment_1``
"""

from . import main

__all__: list[str] = []

if __name__ == "__main__":
    raise SystemExit(main())
