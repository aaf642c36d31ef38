"""Bad input gets the same clear error in every command slot that reads a file (issue 45,
class 6), and no command destroys a user's notebook (class 7)."""

from __future__ import annotations

import io
import json
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
    "explain": (["explain", "FILE"], False),
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


LONG = "G a & " * 20_000 + "b)"  # a formula of 120 KB that does not parse


@pytest.mark.parametrize(
    "argv",
    [["check", LONG, "--trace", "TRACE"], ["automaton", LONG],
     ["experiment", "--constraints", "x" * 100_000]],
)  # fmt: skip
def test_a_huge_input_is_quoted_by_a_short_prefix(tmp_path, capsys, argv):
    trace = tmp_path / "trace.json"
    trace.write_text("[[]]")
    assert main([str(trace) if a == "TRACE" else a for a in argv]) == 2
    err = capsys.readouterr().err
    assert len(err) < 1_000, err[:300]


@pytest.mark.parametrize(
    "argv",
    [["labs", "student", str(LABS / "instructor" / "01_ltl_basics.ipynb"), "OUT"],
     ["memory", "backup", "OUT", "--db", "DB"],
     ["experiment", "--suite", "four_room", "--agents", "base", "--constraints", "1",
      "--out", "OUT"]],
    ids=["labs", "memory backup", "experiment"],
)  # fmt: skip
def test_a_write_failure_says_cannot_write_and_names_the_file(tmp_path, memory_db, capsys,
                                                              argv):  # fmt: skip
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    out = blocker / "out"  # a folder inside a file: it can never be made
    status = main([str(out) if a == "OUT" else memory_db if a == "DB" else a for a in argv])
    err = capsys.readouterr().err
    assert status == 2, err
    assert "cannot write" in err and str(out) in err and "cannot read" not in err


@pytest.mark.parametrize("name", ["zzz_unknown", "is_grabbed(phonee)", "is_grabbed(book"])
def test_monitor_gives_one_status_to_a_trace_naming_an_unknown_proposition(tmp_path, capsys,
                                                                           name):  # fmt: skip
    constraints, trace = tmp_path / "c.json", tmp_path / "t.json"
    constraints.write_text('["G !\\"is_grabbed(phone)\\"", "G !\\"is_grabbed(book)\\""]')
    trace.write_text(json.dumps([[], [name]]))
    assert main(["monitor", str(constraints), str(trace)]) == 2
    err = capsys.readouterr().err
    assert str(trace) in err and "position 1" in err


@pytest.mark.parametrize(
    ("content", "says"),
    [(b"phone\nbook_shelf\xd8\n", "not UTF-8 text (byte 0xd8 at offset 16)"),
     (b"phone\n" + b"[" * 100_000 + b"\n", "is not a name such as")],
)  # fmt: skip
def test_a_bad_vocabulary_file_is_named_and_quoted_short(tmp_path, capsys, content, says):
    path = tmp_path / "names.txt"
    path.write_bytes(content)
    assert main(["translate", "never grab the phone", "--vocabulary", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and says in err and len(err) < 1_000
