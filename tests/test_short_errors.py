"""``%load_ext safetychip`` shows the library's errors short in a kernel (issue 42): the class
name and message with a pointer to ``%tb``, no traceback; ``%tb`` still prints the full one;
other errors keep theirs; and a cell that raises one of ours still fails a run."""

from __future__ import annotations

import nbformat
import pytest

from safetychip._short_errors import short_error
from safetychip.errors import FormulaSyntaxError

nbclient = pytest.importorskip("nbclient")

RAISES = {"tags": ["raises-exception"]}


def _errors(cell) -> list[dict]:
    return [o for o in cell.outputs if o["output_type"] == "error"]


@pytest.fixture(scope="module")
def ran():
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("%load_ext safetychip\nimport safetychip as sc"),
        nbformat.v4.new_code_cell("sc.parse('G (a &')", metadata=RAISES),
        nbformat.v4.new_code_cell("%tb"),
        nbformat.v4.new_code_cell("1 / 0", metadata=RAISES),
        nbformat.v4.new_code_cell("sc.parse('G (a &')"),
        nbformat.v4.new_code_cell("'not reached'"),
    ])  # fmt: skip
    with pytest.raises(nbclient.exceptions.CellExecutionError) as failed:
        nbclient.NotebookClient(nb, timeout=120).execute()
    return nb, str(failed.value)


def test_one_of_our_errors_shows_its_message_not_a_traceback(ran):
    nb, _ = ran
    (error,) = _errors(nb.cells[1])
    assert error["ename"] == "FormulaSyntaxError"
    assert error["evalue"].startswith("cannot parse Spot formula")
    (shown,) = error["traceback"]
    assert "Traceback" not in shown and "File " not in shown and "----> " not in shown
    assert "%tb shows the full traceback" in shown and "  G (a &\n" in shown


def test_tb_prints_the_full_traceback_of_our_error(ran):
    nb, _ = ran
    (error,) = _errors(nb.cells[2])
    text = "\n".join(error["traceback"])
    assert error["ename"] == "FormulaSyntaxError" and "Traceback" in text and "parse" in text


def test_other_errors_keep_their_traceback(ran):
    nb, _ = ran
    (error,) = _errors(nb.cells[3])
    assert error["ename"] == "ZeroDivisionError"
    assert "Traceback" in "\n".join(error["traceback"])


def test_a_cell_raising_our_error_still_fails_the_run(ran):
    nb, message = ran
    assert "FormulaSyntaxError" in message and "%tb shows the full traceback" in message
    assert nb.cells[5].get("execution_count") is None  # the run stopped at the error


def test_short_error_names_the_class_and_where_it_lives():
    text = short_error(FormulaSyntaxError("(", 0, "an operand"))
    first, *_, last = text.splitlines()
    assert first.startswith("FormulaSyntaxError: ")
    assert last == "(safetychip.errors.FormulaSyntaxError; %tb shows the full traceback)"


def test_the_slice_explorer_shows_our_error_short_and_its_button_does_not_raise(
    monkeypatch, capsys
):
    pytest.importorskip("ipywidgets")
    from safetychip.errors import LLMConnectionError
    from safetychip.experiments import _explorer

    def unreachable(*args, **kwargs):
        raise LLMConnectionError("no server at http://127.0.0.1:9/v1: start it (make model-server)")

    monkeypatch.setattr(_explorer, "run_grid", unreachable)
    explorer = _explorer.SliceExplorer(agents=("chip",), ks=(1, 1))
    explorer.run_button.click()  # shown, not raised: a click has no cell to show it in
    shown = capsys.readouterr().err
    assert shown.startswith("LLMConnectionError: no server") and "%tb" in shown
    assert "Traceback" not in shown and not explorer.run_button.disabled
    with pytest.raises(LLMConnectionError):
        explorer.run()  # called from a cell: raised (and shown short there by the extension)


def test_a_question_panel_click_shows_our_error_short(monkeypatch):
    pytest.importorskip("ipywidgets")
    from safetychip.envs import PropositionEnv
    from safetychip.errors import MonitorError
    from safetychip.monitor import CandidateMonitor, CandidateSet
    from safetychip.shield import QuestionPanel, Shield

    s = CandidateSet.parse(['G !"is_open(fridge)"', 'F !"is_open(fridge)"'],
                           "don't leave the fridge open", name="fridge")  # fmt: skip
    shield = Shield.of(PropositionEnv(["is_open(fridge)"]), CandidateMonitor([s]))
    shield.reset()
    shield.propose("set is_open(fridge)")
    panel = QuestionPanel(shield)
    box = panel.widget

    def finished(action):
        raise MonitorError("the episode is over: reset() before proposing")

    monkeypatch.setattr(shield, "propose", finished)
    box.children[1].children[0].click()  # Yes: not raised, shown in the panel
    shown = box.children[-1].value
    assert shown.startswith("<pre>MonitorError: the episode is over") and "%tb" in shown
    assert panel.error is not None and "Traceback" not in panel.error
