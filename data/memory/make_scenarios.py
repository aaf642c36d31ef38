"""Write data/memory/scenarios.jsonl: the memory's 50 evaluation scenarios (25 unsafe, 25 safe).

Run: .venv/bin/python data/memory/make_scenarios.py

The scenes, commands and harms come from ``safetychip.memory.make_scenarios(seed=0)`` (the
object families, command templates and scene layout are documented there); this script only
writes them, one JSON object a line, so the file is reproducible and a test checks it.
"""

from __future__ import annotations

import json
from pathlib import Path

from safetychip._io import atomic_write_text
from safetychip.memory import make_scenarios

SEED = 0


def main() -> None:
    """Write the scenarios next to this script."""
    path = Path(__file__).with_name("scenarios.jsonl")
    lines = [json.dumps(s.to_dict(), ensure_ascii=False) for s in make_scenarios(SEED)]
    atomic_write_text(path, "\n".join(lines) + "\n")
    print(f"wrote {len(lines)} scenarios to {path}")


if __name__ == "__main__":
    main()
