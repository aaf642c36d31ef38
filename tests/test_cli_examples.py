"""Every command of the command line on its sample input under ``data/examples/``, as the
README and ``data/examples/README.md`` show them: the samples stay valid, and the commands
answer them as documented."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "data" / "examples"


def safetychip(*argv: str, stdin: str | None = None, expect: int = 0) -> list[dict]:
    """Run ``safetychip ARGV`` as a shell would (from the repository's root); its JSON lines."""
    env = {**os.environ, "MPLBACKEND": "Agg"}
    env.pop("OPENAI_API_KEY", None)
    done = subprocess.run(
        [sys.executable, "-m", "safetychip.cli", *argv], input=stdin, capture_output=True,
        text=True, cwd=ROOT, env=env, timeout=600,
    )  # fmt: skip
    assert done.returncode == expect, f"safetychip {' '.join(argv)}: {done.stderr}"
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def test_every_command_has_a_sample_in_the_examples_readme():
    """The commands of ``safetychip --help`` all appear in data/examples/README.md."""
    done = subprocess.run([sys.executable, "-m", "safetychip.cli", "--help"], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)  # fmt: skip
    commands = set(re.findall(r"^\s{4}(\w+)\s", done.stdout, flags=re.M))
    assert {"check", "monitor", "explain", "translate", "memory", "experiment"} <= commands
    readme = (EXAMPLES / "README.md").read_text(encoding="utf-8")
    shown = set(re.findall(r"^safetychip (\w+)", readme, flags=re.M))
    assert commands <= shown, f"no sample for {sorted(commands - shown)}"
    for name in re.findall(r"(?:data/examples|notebooks/labs)/[\w./]+\.\w+", readme):
        assert (ROOT / name).is_file(), name


def test_check_one_trace_and_a_batch():
    [answer] = safetychip("check", '!"is_grabbed(book)" W "agent_at(statue)"', "--trace",
                          "data/examples/trace.json")  # fmt: skip
    assert answer["holds"] is True
    answers = safetychip("check", "--input", "data/examples/formulas.jsonl")
    assert [a["holds"] for a in answers] == [True, False, True]


def test_monitor_a_safe_and_an_unsafe_trace():
    safe = safetychip("monitor", "data/examples/constraints.json", "data/examples/trace.json")
    assert [v["status"] for v in safe] == ["safe"] * 5 and safe[-1]["step"] == "DONE"
    unsafe = safetychip("monitor", "data/examples/constraints.json",
                        "data/examples/trace_unsafe.json", expect=1)  # fmt: skip
    assert unsafe[1]["status"] == "violation" and unsafe[1]["violated"] == ["statue_first"]


def test_explain_the_recorded_rollout():
    [answer] = safetychip("explain", "data/examples/rollout.json")
    assert answer["action"] == "grab book" and answer["verdict"]["violated"] == ["statue_first"]


def test_automaton_and_reproduce_list():
    [dfa] = safetychip("automaton", "G(a -> F b)")
    assert dfa["states"] == [0, 1, 2] and dfa["accepting"] == [1]
    done = subprocess.run([sys.executable, "-m", "safetychip.cli", "reproduce", "--list"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)  # fmt: skip
    assert done.returncode == 0 and "spot_demo_automata" in done.stdout


def test_translate_a_sentence_a_batch_and_a_vocabulary_file():
    [one] = safetychip("translate", "never pick up the phone", "--scene", "apartment_1")
    assert one["formula"] == 'G!"is_grabbed(phone)"'
    lines = (EXAMPLES / "sentences.jsonl").read_text()
    batch = safetychip("translate", "--scene", "apartment_1", stdin=lines)
    assert [b["line"] for b in batch] == [1, 2, 3] and all("formula" in b for b in batch)
    [named] = safetychip("translate", "don't enter the kitchen before the bathroom",
                         "--vocabulary", "data/examples/vocabulary.txt")  # fmt: skip
    assert "agent_at(kitchen)" in named["formula"] and "agent_at(bathroom)" in named["formula"]


def test_memory_check_with_the_sample_scene_and_commands(tmp_path):
    db = str(tmp_path / "memory.db")
    safetychip("memory", "add", "--seeds", "--db", db)
    [vase] = safetychip("memory", "check", "push the glass vase", "--scene",
                        "data/examples/scene.json", "--db", db)  # fmt: skip
    assert vase["blocked"] is True
    batch = safetychip("memory", "check", "--db", db,
                       stdin=(EXAMPLES / "commands.jsonl").read_text())  # fmt: skip
    assert [b["line"] for b in batch] == [1, 2, 3] and batch[1]["blocked"] is False


@pytest.mark.filterwarnings("ignore")
def test_experiment_on_the_sample_task(tmp_path):
    [summary] = safetychip("experiment", "--tasks", "data/examples/tasks.jsonl", "--agents",
                           "base", "chip", "--constraints", "1..2", "--reprompts", "explain",
                           "--out", str(tmp_path), "--no-progress")  # fmt: skip
    assert summary["stand_in"] is True and summary["cells"] > 0
    assert (tmp_path / "experiment_results.csv").is_file()


def test_labs_writes_a_student_version(tmp_path):
    target = tmp_path / "01_ltl_basics.ipynb"
    done = subprocess.run(
        [sys.executable, "-m", "safetychip.cli", "labs", "student",
         "notebooks/labs/instructor/01_ltl_basics.ipynb", str(target)],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(target.read_text())["cells"]
