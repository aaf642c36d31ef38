"""``safetychip memory``: check commands against an episodic safety memory, and grow it.

Registered in :data:`safetychip.cli.COMMAND_MODULES`; the memory is imported in ``run``.

Examples
--------
>>> import os, tempfile
>>> from safetychip.cli import main
>>> db = os.path.join(tempfile.mkdtemp(), "memory.db")
>>> main(["memory", "add", "push the vase off the table", "--harm", "breakage", "--db", db])
... # doctest: +ELLIPSIS
{"added": [{"command": "push the vase off the table", ...}], "episodes": 1, ...}
0
>>> main(["memory", "check", "push the vase off the table", "--db", db])  # doctest: +ELLIPSIS
{"blocked": true, "command": "push the vase off the table", "by": "episode", ...}
0
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from typing import Any

from .._io import load_json, read_json
from ._common import (
    EXIT_INPUT,
    EXIT_OK,
    STDIN,
    Command,
    InputError,
    dump,
    error,
    file_error,
    json_type,
    prefix,
)

__all__ = ["COMMANDS"]

#: The embedders ``--embedder`` offers: the word stand-in needs nothing, MiniLM needs the
#: ``embeddings`` extra.
EMBEDDERS = ("words", "minilm")


def _common(p: argparse.ArgumentParser, *, scene: bool = True) -> None:
    p.add_argument("--db", required=True, metavar="FILE",
                   help="the memory: an SQLite file, or a postgresql:// URL")  # fmt: skip
    p.add_argument("--embedder", choices=EMBEDDERS, default="words",
                   help="how commands are encoded: 'words', a deterministic offline stand-in "
                   "(the default), or 'minilm' (all-MiniLM-L6-v2, the embeddings extra); a "
                   "memory is read with the embedder that wrote it")  # fmt: skip
    if scene:
        p.add_argument("--scene", metavar="SCENE.json",
                       help='the scene graph: {"objects": [{"id", "class", "attributes"}], '
                       '"relations": [[subject, relation, object]]}, or an AI2-THOR-style '
                       "scene file (data/thor/scenes/*.json)")  # fmt: skip
        p.add_argument("--frames", metavar="FRAMES.json|auto",
                       help="what the command does, as action frames: a JSON list of "
                       '{"verb", "object", "affordances", "target", "target_affordances", '
                       '"effects"}; or auto: read the command into frames in the '
                       "AI2-THOR-style --scene (its verbs, objects and effect model)")  # fmt: skip


def _configure(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    check = sub.add_parser(
        "check", help="whether a command is blocked (batch: JSON lines on stdin)"
    )
    check.add_argument("command", nargs="?", default=STDIN, metavar="COMMAND",
                       help="the command; omit it or give '-' for batch mode: each stdin line "
                       'is a JSON string or {"command": ..., "scene": {...}}')  # fmt: skip
    check.add_argument("--include-archived", action="store_true",
                       help="archived episodes count too")  # fmt: skip
    _common(check)
    add = sub.add_parser("add", help="store an unsafe or a harmless episode (or the seed "
                         "violations)")  # fmt: skip
    add.add_argument("command", nargs="?", metavar="COMMAND", help="the command that ran")
    add.add_argument("--harm", help="the harm it caused: a harm of the taxonomy (breakage, fire, "
                     "electric_shock, explosion, poisoning, slip, water_damage, "
                     "furniture_damage, injury, appliance_misuse, collision, cut, burn, crush, "
                     "spill) or a free-text name of one ('electrocution')")  # fmt: skip
    add.add_argument("--harmless", action="store_true",
                     help="instead of --harm: the command ran without harm (evidence a check "
                     "weighs against the harmful episodes)")  # fmt: skip
    add.add_argument("--source", default="sensor", help="who detected it: sensor (default), "
                     "person or model; it sets the confidence")  # fmt: skip
    add.add_argument("--seeds", action="store_true",
                     help="instead of COMMAND, add the ten seed violations")  # fmt: skip
    _common(add)
    consolidate = sub.add_parser("consolidate", help="write rules for clusters of episodes")
    _common(consolidate, scene=False)
    backup = sub.add_parser("backup", help="write a copy of the memory to a new file, safely "
                            "(also while a writer runs)")  # fmt: skip
    backup.add_argument("target", metavar="OUT", help="the copy: a new file, or an earlier "
                        "backup to replace")  # fmt: skip
    _common(backup, scene=False)
    override = sub.add_parser("override", help="a person overrides the block of a command")
    override.add_argument("command", metavar="COMMAND", help="the blocked command that was fine")
    _common(override)


def _memory(args: argparse.Namespace, *, create: bool = False, readonly: bool = False) -> Any:
    """The memory of ``--db``; *readonly* never writes it (nor creates or migrates it)."""
    from ..memory import EpisodicMemory, WordEmbedder, open_store

    url = args.db.startswith(("postgresql://", "postgres://"))
    if not create and not url and not os.path.exists(args.db):
        raise InputError(f"{args.db}: no such memory file; create it with "
                         "`safetychip memory add ... --db FILE`")  # fmt: skip
    if args.embedder == "minilm":
        from ..llm import MiniLMEmbedder

        embedder: Any = MiniLMEmbedder()
    else:
        embedder = WordEmbedder()
    store = open_store(args.db, readonly=readonly)
    try:
        return EpisodicMemory(store, embedder=embedder)
    except BaseException:
        store.close()
        raise


def _scene(path: str | None) -> Any:
    return _room(path)[0]


def _room(path: str | None) -> tuple[Any, Any]:
    """The scene graph of ``--scene`` *path*, and its environment when it is an
    AI2-THOR-style room (else None)."""
    if path is None:
        return None, None
    return _room_of(load_json(path, file_error), path)


def _scene_of(data: Any, where: str) -> Any:
    return _room_of(data, where)[0]


def _room_of(data: Any, where: str) -> tuple[Any, Any]:
    from ..memory import SceneGraph

    if not isinstance(data, dict):
        raise InputError(f'{where}: a scene must be an object {{"objects": [...]}}, got '
                         f"{json_type(data)}")  # fmt: skip
    from ..envs.thor import SCENE_FORMAT, ThorEnv, load_thor_scene

    env = None
    if data.get("format") == SCENE_FORMAT:  # an AI2-THOR-style room, as it starts
        try:
            env = ThorEnv(load_thor_scene(data))
        except ValueError as err:
            raise InputError(f"{where}: {err}") from None
        env.reset()
        data = env.memory_scene()
    try:
        return SceneGraph.from_dict(data), env
    except ValueError as err:
        raise InputError(f"{where}: {err}") from None


def _frames(source: Any, command: str, env: Any, where: str) -> Any:
    """The action frames of *command*: read from *source* (a list of frames, or a
    ``--frames`` file name), or by the room's environment *env* when *source* is
    ``"auto"``; None without a source."""
    from ..errors import ActionError, ActionFrameError
    from ..memory._episode import check_frames

    if source is None:
        return None
    if source == "auto":
        if env is None:
            raise InputError("--frames auto reads the command in an AI2-THOR-style room: give "
                             "--scene data/thor/scenes/NAME.json")  # fmt: skip
        try:
            return check_frames(env.action_frames(command), "frames")
        except ActionError as err:
            raise InputError(f"{prefix(command)}: {err}") from None
    data = load_json(source, file_error) if isinstance(source, str) else source
    try:
        return check_frames(data, "frames")
    except ActionFrameError as err:
        raise InputError(f"{where}: {err}") from None


def _embedder(memory: Any) -> dict[str, Any]:
    from ..memory import WordEmbedder

    return {"name": memory.embedder.name, "stand_in": isinstance(memory.embedder, WordEmbedder)}


def _check(args: argparse.Namespace) -> int:
    default, env = _room(args.scene)
    with _memory(args, readonly=True) as memory:
        if args.command != STDIN:
            frames = _frames(args.frames, args.command, env, str(args.frames))
            decision = memory.check(args.command, default, frames=frames,
                                    include_archived=args.include_archived)  # fmt: skip
            dump({**decision.to_dict(), "embedder": _embedder(memory)})
            return EXIT_OK
        failed = 0
        for n, line in enumerate(sys.stdin, 1):
            if not line.strip():
                continue
            try:
                command, scene, given = _batch_line(line, n, default)
                frames = _frames(args.frames if given is None else given, command, env,
                                 f"<stdin>:{n}")  # fmt: skip
                decision = memory.check(command, scene, frames=frames,
                                        include_archived=args.include_archived)  # fmt: skip
            except ValueError as err:
                failed += 1
                dump({"line": n, "error": str(err)})
                error("memory", f"<stdin>:{n}: {err}")
                continue
            dump({"line": n, **decision.to_dict(), "embedder": _embedder(memory)})
    return EXIT_INPUT if failed else EXIT_OK


def _batch_line(line: str, n: int, default: Any) -> tuple[str, Any, Any]:
    """The command, scene and frames of batch line *n* (the ``--scene`` one when it has no
    scene; None for frames it does not give)."""
    record = read_json(line, "", InputError)
    if isinstance(record, str):
        return record, default, None
    if not isinstance(record, dict) or "command" not in record:
        raise InputError('a line must be a JSON string or {"command": ..., "scene": {...}, '
                         f'"frames": [...]}}, got {json_type(record)}')  # fmt: skip
    scene = record.get("scene")
    scene = default if scene is None else _scene_of(scene, f"<stdin>:{n}")
    return record["command"], scene, record.get("frames")


def _add(args: argparse.Namespace) -> int:
    from ..memory import Episode, SceneGraph

    if args.seeds == (args.command is not None):
        raise InputError("give either COMMAND (with --harm or --harmless) or --seeds")
    if not args.seeds and (args.harm is None) == (not args.harmless):
        raise InputError(f"{prefix(args.command)}: --harm is required (a harm such as breakage, "
                         "fire or electric_shock), or --harmless, not both")  # fmt: skip
    # The input is checked before the memory is opened, or created.
    episodes = []
    if not args.seeds:
        scene, env = _room(args.scene)
        frames = _frames(args.frames, args.command, env, str(args.frames))
        episodes = [Episode(args.command, scene or SceneGraph(), args.harm, source=args.source,
                            frames=frames or ())]  # fmt: skip
    new = not args.db.startswith(("postgresql://", "postgres://")) and not os.path.exists(args.db)
    try:
        with _memory(args, create=True) as memory:
            added = memory.seed() if args.seeds else [memory.add(e) for e in episodes]
            dump({"added": [e.to_dict() for e in added], **_counts(memory),
                  "embedder": _embedder(memory)})  # fmt: skip
    except BaseException:
        if new:  # a memory this call created and could not fill is not left behind
            for leftover in (args.db, f"{args.db}-wal", f"{args.db}-shm"):
                with contextlib.suppress(FileNotFoundError):
                    os.remove(leftover)
        raise
    return EXIT_OK


def _consolidate(args: argparse.Namespace) -> int:
    with _memory(args) as memory:
        rules = memory.consolidate()
        dump({"rules": [r.to_dict() for r in rules], **_counts(memory),
              "embedder": _embedder(memory)})  # fmt: skip
    return EXIT_OK


def _counts(memory: Any) -> dict[str, int]:
    """How many episodes *memory* holds, live and archived, and its capacity: an episode
    archived beyond capacity blocks nothing unless checked with --include-archived."""
    return {"episodes": len(memory.episodes), "live": len(memory.live),
            "archived": memory.archived, "capacity": memory.config.capacity}  # fmt: skip


def _backup(args: argparse.Namespace) -> int:
    from ..errors import MemoryStoreError
    from ..memory import SQLiteStore

    if os.path.exists(args.target):
        if os.path.exists(args.db) and os.path.samefile(args.db, args.target):
            raise InputError(f"{args.target}: is the memory itself; pass another file")
        try:
            SQLiteStore(args.target, readonly=True).close()
        except MemoryStoreError:
            raise InputError(f"{args.target}: exists and is not a memory file; refusing to "
                             "overwrite it: pass a new file or an earlier "
                             "backup") from None  # fmt: skip
    with _memory(args, readonly=True) as memory:
        path = memory.store.backup(args.target)
        dump({"backup": str(path), "episodes": len(memory.episodes), "rules": len(memory.rules),
              "interactions": memory.interactions})  # fmt: skip
    return EXIT_OK


def _override(args: argparse.Namespace) -> int:
    scene, env = _room(args.scene)
    frames = _frames(args.frames, args.command, env, str(args.frames))
    with _memory(args) as memory:
        decision = memory.check(args.command, scene, frames=frames)
        if not decision.blocked:
            raise InputError(f"{prefix(args.command)} is not blocked by {memory.store.path}: "
                             "only a block can be overridden (run `safetychip memory check` "
                             "first)")  # fmt: skip
        changed = memory.override(decision, scene, frames=frames or ())
        dump({"decision": decision.to_dict(), "changed": [c.to_dict() for c in changed],
              "embedder": _embedder(memory)})  # fmt: skip
    return EXIT_OK


_ACTIONS = {"check": _check, "add": _add, "consolidate": _consolidate, "override": _override,
            "backup": _backup}  # fmt: skip


def _run(args: argparse.Namespace) -> int:
    return _ACTIONS[args.action](args)


_EPILOG = """\
Each action prints one JSON object ("embedder" says which embedder encoded the commands, and
"stand_in": true for the deterministic word stand-in). check prints the decision: blocked,
by ("episode" or "rule"), the nearest harmful episode, the nearest harmless one it was
weighed against, the best rule, the scores (text, scene, episodic, harmless, rule), the
reason and the safe alternative; batch mode prints one per line, with "line", and
{"line": N, "error": ...} for a bad line. add prints the stored episodes, consolidate the
rules written (both with the counts of episodes, live and archived, and the capacity: an
episode archived beyond it blocks nothing unless checked with --include-archived), override
the decision and what changed (with the harmless episode it stores), backup the copy and
what it holds. With --frames (a file, a batch line's "frames", or auto: read in the
AI2-THOR-style --scene), episodes keep what was done (verb, object and target with their
affordances, state changes) and checks match rules over affordances ("broken × breakable").

Back a memory file up with `memory backup`, never by copying the file: while a writer runs
(or after one was killed) the last episodes are in its -wal file, which a copy of the file
alone misses. check and backup only read the memory: they never create or change a file.

exit status: 0 done (whether or not the command is blocked); 2 bad input (batch: a line
failed), a missing or unusable memory, an override of a command that is not blocked, or a
backup to a file that is not a memory

examples:
  safetychip memory add --seeds --db memory.db
  safetychip memory add "pour water on the lit laptop" --harm electrocution --db memory.db
  safetychip memory add "pour water into the bowl" --harmless --db memory.db
  safetychip memory check "push the glass vase" --scene kitchen.json --db memory.db
  safetychip memory check "throw the mug at the counter top" --frames auto \\
      --scene data/thor/scenes/FloorPlan1.json --db memory.db
  safetychip memory add "throw the bowl" --harm breakage --frames throw.json --db memory.db
  printf '"push the vase"\\n{"command": "walk"}\\n' | safetychip memory check --db memory.db
  safetychip memory override "push the wooden chair" --scene room.json --db memory.db
  safetychip memory backup memory-backup.db --db memory.db
"""

COMMANDS = (
    Command(
        "memory",
        "episodic safety memory: check commands, add episodes, consolidate, override (JSON)",
        _configure,
        _run,
        epilog=_EPILOG,
        description="Check commands against the unsafe episodes and rules of an episodic\n"
        "safety memory (an SQLite file or a postgresql:// URL), and grow it: add episodes,\n"
        "consolidate them into rules, record a person's override of a block, back it up.",
    ),
)
