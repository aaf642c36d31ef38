"""``python -m safetychip``: the command line (see :mod:`safetychip.cli`)."""

from .cli import main

__all__: list[str] = []

if __name__ == "__main__":
    raise SystemExit(main())
