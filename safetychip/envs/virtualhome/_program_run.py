"""Run a VirtualHome program line by line, monitored or not, and say where and why it stops.

A program runs in a :class:`VirtualHomeEnv` in ``mode="literal"``: each line is one script
line sent as it is, and produces one proposition state. Like VirtualHome's executor, the
run stops at the first line the executor refuses (or that names an id the scene lacks, or a
class other than that node's: a refused step too, never an exception); with a monitor it
also stops at the first line whose proposition states the monitor judges unsafe, or whose
preview fails (nothing to judge): that line does not run. A line whose states turn out other
than previewed and break a constraint stops the run after it, and a specification that
cannot be met stops it before the first line.

Examples
--------
>>> from safetychip.envs.virtualhome import OFFICIAL_GRAPH, PROGRAM_DIR
>>> from safetychip.monitor import Monitor
>>> run = run_program(PROGRAM_DIR / "watch_tv.txt", OFFICIAL_GRAPH)
>>> run.executable, len(run.steps)
(True, 6)
>>> watched = run_program(PROGRAM_DIR / "watch_tv.txt", OFFICIAL_GRAPH,
...                       monitor=Monitor(["G !agent_sitting_on(couch)"]))
>>> watched.stopped_at, watched.reason
(5, 'the monitor refused it: c1 (G!"agent_sitting_on(couch)") would be violated')
"""

from __future__ import annotations

import html
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from safetychip.envs._base import PropositionState
from safetychip.envs.virtualhome._env import VirtualHomeEnv
from safetychip.envs.virtualhome._program import PreparedProgram, Program, prepare_program
from safetychip.errors import ActionError
from safetychip.monitor import Monitor, Verdict

__all__ = ["ProgramRun", "ProgramStep", "run_program"]


@dataclass(frozen=True)
class ProgramStep:
    """One line of a program run.

    Attributes
    ----------
    number : int
        The line's position in the program, from 1.
    line : str
        The line as written (script-local ids).
    script : str
        The line sent to the executor (graph ids).
    outcome : str
        ``"executed"``, ``"refused"`` (the executor's preconditions failed, or the line
        names an object the scene does not have under that name or id) or ``"unsafe"``
        (the monitor's verdict; the line did not run).
    reason : str
        Why a line was refused or judged unsafe, as a sentence; empty when executed.
    states : tuple of dict
        The proposition states the line produced (or would have produced, when unsafe).
    """

    number: int
    line: str
    script: str
    outcome: str
    reason: str = ""
    states: tuple[PropositionState, ...] = ()


@dataclass(frozen=True)
class ProgramRun:
    """What running a program did: its steps and, if it stopped early, where and why.

    Attributes
    ----------
    prepared : PreparedProgram
    steps : tuple of ProgramStep
        Every line that ran, then the line it stopped at (if any).
    initial : dict
        The proposition state before the first line.
    stopped_at : int or None
        The number of the line the run stopped at (0: before the first line, when the
        specification cannot be met); None when every line ran.
    reason : str
        Why it stopped; empty when every line ran.
    """

    prepared: PreparedProgram
    steps: tuple[ProgramStep, ...]
    initial: PropositionState
    stopped_at: int | None = None
    reason: str = ""

    @property
    def executable(self) -> bool:
        """Whether every line ran."""
        return self.stopped_at is None

    @property
    def trace(self) -> list[PropositionState]:
        """The proposition states of the lines that ran, after the initial one."""
        executed = [s for s in self.steps if s.outcome == "executed"]
        return [self.initial, *(state for step in executed for state in step.states)]

    def __str__(self) -> str:
        head = f"{self.prepared.program.title or self.prepared.program.source}: "
        if self.executable:
            head += f"all {len(self.steps)} lines ran"
        else:
            head += f"stopped at line {self.stopped_at}: {self.reason}"
        rows = [f"{s.number:>3} {s.outcome:<9} {s.line}" + (f"  ({s.reason})" if s.reason else "")
                for s in self.steps]  # fmt: skip
        return "\n".join([head, *rows])

    def __repr__(self) -> str:
        where = "ran" if self.executable else f"stopped at line {self.stopped_at}"
        return f"<ProgramRun {self.prepared.program.title!r}: {len(self.steps)} steps, {where}>"

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td>{s.number}</td><td>{s.outcome}</td><td><code>{html.escape(s.line)}</code>"
            f"</td><td>{html.escape(s.reason)}</td></tr>"
            for s in self.steps
        )
        head = html.escape(str(self).splitlines()[0])
        return f"<p>{head}</p><table><tr><th>#</th><th>outcome</th><th>line</th>" \
               f"<th>reason</th></tr>{rows}</table>"  # fmt: skip


def run_program(
    program: PreparedProgram | Program | str | os.PathLike[str],
    graph: Mapping[str, Any] | str | os.PathLike[str] | None = None,
    *,
    monitor: Monitor | None = None,
    propositions: Iterable[str] = (),
    properties: Mapping[str, Sequence[str]] | None = None,
    start: str | None = None,
) -> ProgramRun:
    """Run *program* line by line on *graph* (see the module).

    Parameters
    ----------
    program : PreparedProgram, Program or path
        A prepared program runs on its own scene; otherwise it is prepared on *graph* with
        :func:`prepare_program` (*properties* and *start* are passed on).
    graph : dict or path, optional
        A graph in the official TrimmedTestScene format; needed unless *program* is prepared.
    monitor : Monitor, optional
        Judges each line before it runs; reset by the run.
    propositions : iterable of str
        More propositions to record in each step's states.

    Raises
    ------
    ValueError
        If *program* is not prepared and no *graph* is given.
    PropositionError
        If a proposition is not one of the scene's.
    """
    if not isinstance(program, PreparedProgram):
        if graph is None:
            raise ValueError("run_program needs a graph to prepare the program on")
        program = prepare_program(graph, program, properties=properties, start=start)
    atoms = tuple(dict.fromkeys([*(monitor.atoms if monitor else ()), *propositions]))
    env = VirtualHomeEnv(program.scene, mode="literal").track(atoms)
    _, info = env.reset()
    initial = info["states"][0]
    steps: list[ProgramStep] = []

    def stop(at: int, reason: str) -> ProgramRun:
        return ProgramRun(program, tuple(steps), initial, at, reason)

    if monitor is not None:
        start_verdict = monitor.reset(initial)
        if not start_verdict.safe:
            return stop(0, f"the monitor aborted: {start_verdict.reason}")
    for number, (line, script) in enumerate(zip(program.program.lines, program.lines), 1):
        try:
            env.parse(script)
        except ActionError as exc:  # a line the scene cannot read is refused, like the executor's
            steps.append(ProgramStep(number, line, script, "refused", str(exc)))
            return stop(number, str(exc))
        if monitor is not None:
            ahead = env.lookahead(script, atoms)
            if ahead.error is not None:  # nothing to judge: the line does not run
                reason = (f"its preview failed ({ahead.error}), so the monitor cannot judge "
                          "it and it does not run")  # fmt: skip
                steps.append(ProgramStep(number, line, script, "refused", reason))
                return stop(number, reason)
            verdict = monitor.check(ahead.states)
            if not verdict.safe:
                reason = f"the monitor refused it: {_refusal(monitor, verdict)}"
                steps.append(
                    ProgramStep(number, line, script, "unsafe", reason, tuple(ahead.states))
                )
                return stop(number, reason)
        *_, info = env.step(script)
        if info["error"] is not None:
            steps.append(ProgramStep(number, line, script, "refused", info["error"]))
            return stop(number, info["error"])
        steps.append(ProgramStep(number, line, script, "executed", "", tuple(info["states"])))
        if monitor is not None:
            late = monitor.commit(info["states"])
            if not late.safe:  # what ran is not what was judged: stop before anything else
                return stop(number, f"what the line did is not what the monitor admitted: "
                                    f"{_refusal(monitor, late)}")  # fmt: skip
    return ProgramRun(program, tuple(steps), initial)


def _refusal(monitor: Monitor, verdict: Verdict) -> str:
    """The constraints a refusal names, else its reason (an undecided verdict names none)."""
    names = verdict.violated
    parts = [
        f"{c.name} ({c.sentence or c.formula})" for c in monitor.constraints if c.name in names
    ]
    return ", ".join(parts) + " would be violated" if parts else verdict.reason
