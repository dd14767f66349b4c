# teamleduc: two set-up commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
TL     := $(VENV)/bin/teamleduc
STAMP  := $(VENV)/.installed

PRESET ?= team-leduc
DATA   ?= data

.PHONY: install run test bench clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	$(PY) -m teamleduc.warmup
	touch $(STAMP)

install: $(STAMP)

## the main job end to end on defaults
run: install
	$(TL) info --preset $(PRESET)
	$(TL) infosets --preset $(PRESET) --out $(DATA)

test: install
	$(PY) -m pytest tests

bench: install
	$(PY) -m benchmarks

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
