# The README's two commands. Each creates .venv on first use and installs what it needs.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: reproduce test lint benchmarks clean

$(STAMP): pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[all,dev]"
	# The virtualhome wheel pins ancient dependencies: install it alone, and never import its
	# top-level package (safetychip.envs imports evolving_graph directly).
	$(PY) -m pip install --quiet --no-deps virtualhome==2.3.0
	@if $(PY) -m pip list 2>/dev/null | grep -qi '^nvidia-'; then \
	  echo "error: CUDA packages were installed; use the CPU wheel: pip install torch==2.13.0" >&2; exit 1; fi
	$(PY) -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $(STAMP)

reproduce: $(STAMP)
	$(PY) -m safetychip reproduce

test: $(STAMP)
	$(PY) -m ruff check safetychip tests benchmarks
	$(PY) -m ruff format --check safetychip tests benchmarks
	$(PY) -m mypy
	MPLBACKEND=Agg $(PY) -m pytest -q --nbval --nbval-sanitize-with notebooks/sanitize.cfg \
	  tests safetychip notebooks

benchmarks: $(STAMP)
	for f in benchmarks/bench_*.py; do $(PY) $$f || exit 1; done

lint: $(STAMP)
	$(PY) -m ruff check safetychip tests benchmarks
	$(PY) -m mypy
	$(PY) -m ruff format --check safetychip tests benchmarks

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache
