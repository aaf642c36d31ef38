"""Without the ``gym`` extra, ``safetychip.gym`` says how to install it (never a bare
ImportError), and the rest of the library does not need it."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(code: str) -> subprocess.CompletedProcess[str]:
    # a None entry in sys.modules makes every import of that module fail, as when absent
    blocked = "import sys\nsys.modules['gymnasium'] = None\nsys.modules['minigrid'] = None\n"
    return subprocess.run([sys.executable, "-c", blocked + textwrap.dedent(code)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)  # fmt: skip


def test_importing_the_gym_package_without_gymnasium_gives_the_install_hint():
    done = _run("""
        from safetychip.errors import MissingDependencyError
        try:
            import safetychip.gym
        except MissingDependencyError as exc:
            print(exc)
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "this feature needs 'gymnasium': pip install 'safetychip[gym]'"


def test_the_shield_and_the_monitor_work_without_gymnasium():
    done = _run("""
        import numpy as np
        from safetychip.monitor import BatchMonitor, Monitor
        from safetychip.shield import Shield
        print(BatchMonitor(Monitor(['G !"a"']), 2).reset(np.zeros((2, 1), bool)).tolist())
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[True, True]"
