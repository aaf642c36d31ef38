"""The vocabulary a scene's name names, across environments: what the translation data's
``scene`` column, ``safetychip translate --scene`` and the benchmarks mean by a scene.

The translator takes the vocabulary it is given (:meth:`safetychip.translate.Vocabulary.of`
reads an environment, a loaded scene or a vocabulary file); this is where a *name* becomes
one, since only here are both the environments and the translator at hand.

Examples
--------
>>> scene_vocabulary("apartment_2").name, scene_vocabulary("spot_demo").name
('apartment_2', 'spot_demo')
>>> scene_vocabulary("apartment_9")
Traceback (most recent call last):
...
safetychip.errors.DataFileError: apartment_9: no such scene or vocabulary file; known \
scenes: apartment_1, apartment_2, spot_demo
"""

from __future__ import annotations

from pathlib import Path

from ..envs import load_scene
from ..envs.virtualhome import SCENE_DIR
from ..errors import DataFileError
from ..translate import Vocabulary

__all__ = ["scene_vocabulary"]


def scene_vocabulary(spec: str) -> Vocabulary:
    """The vocabulary *spec* names: a VirtualHome scene by name or JSON file, ``"spot_demo"``
    (the names the Spot demo's constraints mention), or a text file with one name per line.

    Raises
    ------
    DataFileError
        If *spec* names no scene and no file (the message lists the known scenes).
    """
    path = Path(spec)
    if spec != "spot_demo" and (path.suffix == ".json" or (SCENE_DIR / f"{spec}.json").is_file()):
        return Vocabulary.of(load_scene(spec))
    if spec == "spot_demo" or path.is_file():
        return Vocabulary.of(spec)
    known = sorted(p.stem for p in SCENE_DIR.glob("*.json"))
    raise DataFileError(
        spec, f"no such scene or vocabulary file; known scenes: {', '.join([*known, 'spot_demo'])}"
    )
