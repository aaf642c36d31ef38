"""The translator's LLM path recorded with SmolLM2-135M-Instruct over
``data/translation/utterances.jsonl`` replays offline, without llama-cpp-python, the GGUF
file or any server, and scores what ``data/translation/README.md`` says it scores; every
translated row is labelled with the model's name."""

from __future__ import annotations

import json
import re

from _sealed import run_sealed

from safetychip.llm import LOCAL_MODEL
from safetychip.paths import DATA_DIR

RECORDING = DATA_DIR / "recordings" / "01_smollm2_135m_translation.sqlite"

OFFLINE = """
import json
from safetychip.experiments import scene_vocabulary
from safetychip.llm import CachedModel, local_model
from safetychip.translate import Translator, evaluate

model = CachedModel(local_model(), sys.argv[1], mode="replay")
result = evaluate(lambda scene: Translator(scene_vocabulary(scene), model=model,
                                          offline_readers=False))
print(json.dumps({"translator": result.translator, "stand_in": result.stand_in,
                  "rows": result.rows}))
"""


def test_the_recorded_translation_evaluation_replays_offline_with_the_documented_score():
    assert RECORDING.is_file(), "the recording is not committed"
    done = run_sealed(OFFLINE, str(RECORDING), timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    rows = result["rows"]
    assert len(rows) == len(
        (DATA_DIR / "translation" / "utterances.jsonl").read_text().splitlines()
    )
    assert not any(r["error"] == "ReplayMissError" for r in rows), "re-record: a reply is missing"
    right = sum(r["correct"] for r in rows)
    refused = sum(r["error"] is not None for r in rows)
    wrong = len(rows) - right - refused
    readme = (DATA_DIR / "translation" / "README.md").read_text()
    claim = re.search(r"(\d+) right, (\d+) refused, (\d+) silently wrong \(SmolLM2", readme)
    assert claim, "data/translation/README.md states the recorded score"
    assert (right, refused, wrong) == tuple(map(int, claim.groups()))
    assert result["translator"] == LOCAL_MODEL and result["stand_in"] is False
    answered = [r for r in rows if r["error"] is None]
    assert all(r["translator"] == LOCAL_MODEL for r in answered)
    unread = [r for r in rows if r["error"] == "TranslationReplyError"]
    assert all(r["message"].startswith(f"{LOCAL_MODEL} gave no") for r in unread)
