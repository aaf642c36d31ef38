"""``safetychip explain``: an agent query on a recorded rollout, as JSON.

Registered in :data:`safetychip.cli.COMMAND_MODULES`; heavy imports happen in ``run``.
"""

from __future__ import annotations

import argparse
import json
import sys

from ._common import EXIT_OK, Command, add_model_arguments, model_from_args

__all__ = ["COMMANDS"]


def _configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("rollout", metavar="ROLLOUT.json", help="the recorded rollout")
    p.add_argument(
        "--step",
        type=int,
        metavar="N",
        help="explain step N (1 = the first action); default: the first violation",
    )
    p.add_argument(
        "--prompt",
        action="store_true",
        help="also print the paper's agent-query prompt for a language model",
    )
    add_model_arguments(p)
    p.add_argument("--indent", type=int, metavar="N", help="indent the JSON by N spaces")


def _run(args: argparse.Namespace) -> int:
    from ..explain import ask_agent_query, explain_rollout
    from ..shield import TraceRecord

    model = model_from_args(args)
    query = explain_rollout(TraceRecord.load(args.rollout), step=args.step, source=args.rollout)
    out = query.to_dict()
    if args.prompt or model is not None:
        out["prompt"] = [m._asdict() for m in query.messages()]
    if model is not None:
        out["llm"] = ask_agent_query(
            model, query.constraints, query.valid, (query.action, list(query.verdict.state_changes))
        ).to_dict()
    sys.stdout.write(json.dumps(out, indent=args.indent, ensure_ascii=False) + "\n")
    return EXIT_OK


_EPILOG = """\
ROLLOUT.json is one object: "constraints" (as for `safetychip monitor`), optional
"invariants", "initial" (the state before the first action: an object atom -> true/false or
a list of true atoms) and "steps", each {"action": "...", "states": [state, ...]} with the
proposition states the action produced or would have produced. The monitor is replayed:
safe steps are committed, and the first violation (or --step N) is explained.

Output: step, action, verdict (status, reason, violated, state_changes), explanation (the
deterministic agent query: text, violated, owed, remedy) and valid (the committed steps with
their Safe: lines); with --prompt, the paper's prompt; with --model, the model's answer in
"llm" (stand_in is true if an offline stand-in answered).

exit status: 0 explained; 2 bad input, or no violation to explain

example:
  safetychip explain rollout.json --prompt | jq -r .explanation.text
"""


COMMANDS = (
    Command(
        "explain",
        "why a recorded rollout's action was refused (agent query, JSON)",
        _configure,
        _run,
        epilog=_EPILOG,
        description="Replay a recorded rollout through the constraint monitor and explain a\n"
        "refused action: which constraint, which propositions changed, what is still owed,\n"
        "and what would make the action allowed.",
    ),
)
