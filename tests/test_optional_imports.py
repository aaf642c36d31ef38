"""Every optional dependency, missing at run time, gives its install hint (never a traceback,
never "internal error").

Each case runs in a fresh interpreter whose imports of the blocked modules fail as on a
minimal install (an import hook raises ``ModuleNotFoundError``), then uses the feature that
needs them, from Python or from the command line.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Blocked modules are found (so ``importlib.util.find_spec`` sees a plain module, not the
# installed package) but fail to load, as an absent one fails to import.
_BLOCK = """
import importlib.abc, importlib.machinery, sys
BLOCKED = {blocked!r}
class _Missing(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            return importlib.machinery.ModuleSpec(name, self)
        return None
    def create_module(self, spec):
        return None
    def exec_module(self, module):
        raise ModuleNotFoundError(f"No module named {{module.__name__!r}}", name=module.__name__)
sys.meta_path.insert(0, _Missing())
"""

# (modules blocked, Python using the feature, the hint it must print)
PYTHON_CASES = {
    "pandas (experiments)": (
        ["pandas"],
        "from safetychip.experiments import grid_cells, run_grid\n"
        "run_grid(grid_cells(suites=['four_room'], ks=[1], agents=['base'])[:1])",
        "pip install 'safetychip[experiments]'",
    ),
    "ray (experiments)": (
        ["ray"],
        "from safetychip.experiments import run_cells\n"
        "run_cells(lambda cell: cell, [{'id': 'a'}], executor='ray')",
        "pip install 'safetychip[experiments]'",
    ),
    "ipywidgets: the review widget (notebooks)": (
        ["ipywidgets"],
        "from safetychip.translate import ReviewWidget\nReviewWidget('G !\"is_grabbed(phone)\"')",
        "pip install 'safetychip[notebooks]'",
    ),
    "ipywidgets: the slice explorer (notebooks)": (
        ["ipywidgets"],
        "from safetychip.experiments import SliceExplorer\nSliceExplorer()",
        "pip install 'safetychip[notebooks]'",
    ),
    "openai (llm)": (
        ["openai"],
        "from safetychip.llm import OpenAIChatModel, OpenAIEndpoint\n"
        "OpenAIChatModel('m', OpenAIEndpoint('http://127.0.0.1:9/v1', api_key='k'))"
        ".complete([{'role': 'user', 'content': 'hi'}])",
        "pip install 'safetychip[llm]'",
    ),
    "sentence-transformers (embeddings)": (
        ["sentence_transformers", "torch", "onnxruntime", "onnx", "transformers", "tokenizers"],
        "from safetychip.llm import MiniLMEmbedder\nMiniLMEmbedder().encode(['a phone'])",
        "pip install 'safetychip[embeddings]'",
    ),
    "vaderSentiment (affect)": (
        ["vaderSentiment"],
        "from safetychip.observer import Affect, Candidate, ObserverState\n"
        "Affect().measure(Candidate('how lovely'), ObserverState())",
        "pip install 'safetychip[affect]'",
    ),
    "psycopg (memory-postgres)": (
        ["psycopg"],
        "from safetychip.memory import PostgresStore\n"
        "PostgresStore('postgresql://127.0.0.1:9/none')",
        "pip install 'safetychip[memory-postgres]'",
    ),
    "bosdyn-client (spot-robot)": (
        ["bosdyn"],
        "from safetychip.envs.spot import BosdynBackend\n"
        "BosdynBackend('127.0.0.1', username='u', password='p').start(['a'])",
        "pip install 'safetychip[spot-robot]'",
    ),
    "virtualhome": (
        ["virtualhome", "evolving_graph"],
        "import safetychip as sc\nsc.VirtualHomeEnv('apartment_1')",
        "pip install --no-deps virtualhome==2.3.0",
    ),
    "spot (conda)": (
        ["spot"],
        "from safetychip.automata import spot_dfa\nfrom safetychip.ltl import parse\n"
        "spot_dfa(parse('F a'))",
        "environment.yml",
    ),
}


def _run(blocked: list[str], code: str) -> subprocess.CompletedProcess[str]:
    script = _BLOCK.format(blocked=set(blocked)) + textwrap.dedent(code)
    env = {**os.environ, "MPLBACKEND": "Agg"}
    env.pop("OPENAI_API_KEY", None)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=300)  # fmt: skip


def test_the_hook_blocks_an_installed_module():
    done = _run(["json"], "import json")
    assert done.returncode == 1 and "ModuleNotFoundError: No module named 'json'" in done.stderr


@pytest.mark.parametrize("case", sorted(PYTHON_CASES))
def test_a_missing_optional_dependency_names_its_install_command(case):
    blocked, code, hint = PYTHON_CASES[case]
    done = _run(blocked, code)
    assert done.returncode != 0, f"{case}: ran without {blocked}"
    last = done.stderr.strip().splitlines()[-1]
    assert "MissingDependencyError" in last and hint in last, done.stderr[-2000:]


def test_safetychip_experiment_without_pandas_gives_the_hint_not_an_internal_error():
    done = _run(
        ["pandas"],
        """
        import sys
        from safetychip.cli import main
        sys.exit(main(["experiment", "--tasks", "data/examples/tasks.jsonl", "--agents", "base",
                       "--constraints", "1", "--no-progress", "--out", "/nonexistent/never"]))
    """,
    )
    assert done.returncode == 2, done.stderr
    assert "pip install 'safetychip[experiments]'" in done.stderr
    assert "internal error" not in done.stderr
