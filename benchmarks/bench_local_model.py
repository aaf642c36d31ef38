"""Time one call to the local model (SmolLM2-135M-Instruct behind ``make model-server``).

Sends the first *N* requests recorded in ``data/recordings/04_smollm2_135m_grid.sqlite``, in
the order they were recorded (consecutive steps of the same episodes, as a recording sends
them), to the server on 127.0.0.1, and prints the median and worst seconds per call. Each
reply must equal the recorded one (greedy decoding, structured output): a server flag that
changes a reply would change the recordings, and the script says how many differ.

Usage: ``make model-server && python benchmarks/bench_local_model.py [-n 20] [--skip 0]``
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import time

from safetychip.experiments import LOCAL_GRID_CACHE
from safetychip.llm import local_model
from safetychip.paths import DATA_DIR


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=20, help="how many recorded requests to send")
    parser.add_argument("--skip", type=int, default=0, help="start after this many requests")
    args = parser.parse_args()
    with sqlite3.connect(DATA_DIR / LOCAL_GRID_CACHE) as db:
        rows = db.execute(
            "SELECT request, completion FROM completions ORDER BY rowid LIMIT ? OFFSET ?",
            (args.n, args.skip),
        ).fetchall()
    llm = local_model()
    seconds, differ = [], 0
    for request, completion in rows:
        asked, recorded = json.loads(request), json.loads(completion)
        start = time.perf_counter()
        reply = llm.complete(
            asked["messages"],
            temperature=asked["temperature"],
            stop=asked["stop"] or None,
            max_tokens=asked["max_tokens"],
            schema=asked.get("schema"),
        )
        seconds.append(time.perf_counter() - start)
        differ += reply.text != recorded["text"]
    print(
        f"{len(seconds)} calls: median {statistics.median(seconds):.2f} s, "
        f"worst {max(seconds):.2f} s, first {seconds[0]:.2f} s; "
        f"{differ} replies differ from the recording"
    )


if __name__ == "__main__":
    main()
