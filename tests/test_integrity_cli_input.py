"""Bad input gets the same clear error in every command slot that reads a file (issue 45,
class 6), and no command destroys a user's notebook (class 7)."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest

from safetychip.cli import main
from safetychip.memory import Episode, EpisodicMemory, WordEmbedder

LABS = Path(__file__).resolve().parent.parent / "notebooks" / "labs"
DEEP = "[" * 100_000 + "]" * 100_000


@pytest.fixture
def memory_db(tmp_path):
    path = tmp_path / "memory.db"
    with EpisodicMemory(path, embedder=WordEmbedder()) as memory:
        memory.add(Episode("push the vase"))
    return str(path)


# Each slot: the arguments, with FILE where the bad file goes, and whether it is JSON lines.
SLOTS = {
    "translate --scene": (["translate", "never grab the phone", "--scene", "FILE"], False),
    "translate --evaluate": (["translate", "--evaluate", "FILE"], True),
    "experiment --tasks": (
        ["experiment", "--tasks", "FILE", "--results", "RESULTS", "--out", "OUT_DIR"],
        True,
    ),  # fmt: skip
    "experiment --results": (["experiment", "--results", "FILE", "--out", "OUT_DIR"], True),
    "memory check --scene": (
        ["memory", "check", "push the vase", "--scene", "FILE", "--db", "DB"],
        False,
    ),  # fmt: skip
    "memory add --scene": (
        ["memory", "add", "push the vase", "--harm", "breakage", "--scene", "FILE", "--db", "DB"],
        False,
    ),  # fmt: skip
    "labs student": (["labs", "student", "FILE", "OUT"], False),
}


def _run(tmp_path, memory_db, slot, content):
    argv, lines = SLOTS[slot]
    path = tmp_path / ("bad.jsonl" if lines else "bad.json")
    path.write_bytes(content + (b"\n" if lines else b""))
    names = {"FILE": str(path), "DB": memory_db, "RESULTS": str(tmp_path / "r.jsonl"),
             "OUT": str(tmp_path / "out.ipynb"), "OUT_DIR": str(tmp_path / "out")}  # fmt: skip
    return main([names.get(a, a) for a in argv]), str(path)


@pytest.mark.parametrize("slot", SLOTS)
def test_json_nested_too_deeply_is_bad_input_naming_the_file(tmp_path, memory_db, capsys, slot):
    status, path = _run(tmp_path, memory_db, slot, DEEP.encode())
    err = capsys.readouterr().err
    assert status == 2, err
    assert path in err and "nested too deeply" in err and "internal error" not in err
    assert not (tmp_path / "out.ipynb").exists() and not (tmp_path / "out").exists()


@pytest.mark.parametrize("slot", SLOTS)
def test_a_file_that_is_not_utf8_names_the_file_and_the_byte(tmp_path, memory_db, capsys, slot):
    status, path = _run(tmp_path, memory_db, slot, b'{"sentence": "\xd8\xff"}')
    err = capsys.readouterr().err
    assert status == 2, err
    assert path in err and "not UTF-8 text (byte 0xd8 at offset 14)" in err


@pytest.mark.parametrize(
    ("argv", "stdin"),
    [(["translate", "--scene", "apartment_1"], DEEP + "\n"),
     (["memory", "check", "--db", "DB"], DEEP + "\n"),
     (["check"], DEEP + "\n")],
)  # fmt: skip
def test_deep_json_on_stdin_is_a_bad_line(monkeypatch, memory_db, capsys, argv, stdin):
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    assert main([memory_db if a == "DB" else a for a in argv]) == 2
    err = capsys.readouterr().err
    assert "nested too deeply" in err and "internal error" not in err


def test_a_results_line_with_its_newline_that_is_not_json_is_never_cut_off(tmp_path, capsys):
    results = tmp_path / "r.jsonl"
    results.write_text(DEEP + "\n")
    assert main(["experiment", "--results", str(results), "--out", str(tmp_path / "out")]) == 2
    assert "only the last line may be broken" in capsys.readouterr().err
    assert results.read_text() == DEEP + "\n"


@pytest.fixture
def instructor(tmp_path):
    source = tmp_path / "instructor.ipynb"
    shutil.copy(LABS / "instructor" / "01_ltl_basics.ipynb", source)
    return source


def test_labs_student_refuses_to_overwrite_its_source(instructor, capsys):
    before = instructor.read_bytes()
    assert main(["labs", "student", str(instructor), str(instructor)]) == 2
    assert "is the instructor's notebook" in capsys.readouterr().err
    assert instructor.read_bytes() == before


def test_labs_student_refuses_a_link_to_its_source(instructor, tmp_path, capsys):
    before = instructor.read_bytes()
    link = tmp_path / "link.ipynb"
    link.symlink_to(instructor)
    assert main(["labs", "student", str(instructor), str(link)]) == 2
    assert "is the instructor's notebook" in capsys.readouterr().err
    assert instructor.read_bytes() == before


def test_labs_student_with_the_arguments_swapped_keeps_the_solutions(instructor, tmp_path,
                                                                    capsys):  # fmt: skip
    student = tmp_path / "student.ipynb"
    assert main(["labs", "student", str(instructor), str(student)]) == 0
    capsys.readouterr()
    before = instructor.read_bytes()
    assert main(["labs", "student", str(student), str(instructor)]) == 2
    assert "solution cells (an instructor's notebook); refusing" in capsys.readouterr().err
    assert instructor.read_bytes() == before


def test_labs_student_overwrites_an_earlier_student_version(instructor, tmp_path):
    student = tmp_path / "student.ipynb"
    student.write_text("old")
    assert main(["labs", "student", str(instructor), str(student)]) == 0
    assert main(["labs", "student", str(instructor), str(student)]) == 0
    assert '"solution"' not in student.read_text()
