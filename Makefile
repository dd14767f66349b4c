# teamleduc: two set-up commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
TL     := $(VENV)/bin/teamleduc
STAMP  := $(VENV)/.installed
# the tests also check against OpenSpiel, RLCard, PettingZoo's classic games and gym-kuhn-poker
TEST_STAMP := $(VENV)/.installed-crosscheck

PRESET ?= team-leduc
DATA   ?= data
OUT    ?= out
# seconds for the solver in `make run` (export included); raise it for a smaller gap
TIME   ?= 300

.PHONY: install run test lint format bench clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	$(PY) -m teamleduc.warmup
	touch $(STAMP)

install: $(STAMP)

## the main job end to end on defaults: files, solve, validate, grade, gap
run: install
	$(TL) info --preset $(PRESET)
	$(TL) infosets --preset $(PRESET) --out $(DATA)/$(PRESET) --overwrite
	$(TL) solve --preset $(PRESET) --time-limit $(TIME) --out $(OUT)/solution --overwrite
	$(TL) validate $(OUT)/solution/submission --preset $(PRESET) --seats all
	$(TL) grade $(OUT)/solution/submission --baselines all --preset $(PRESET) --out $(OUT)/grading --overwrite
	$(TL) exploitability $(OUT)/solution/submission --preset $(PRESET)

$(TEST_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -e '.[dev,crosscheck]'
	touch $(TEST_STAMP)

test: install $(TEST_STAMP)
	$(PY) -m pytest tests

## ruff: lint and format check (configured in pyproject.toml); `make format` rewrites
lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: install
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench: install
	$(PY) -m benchmarks

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
