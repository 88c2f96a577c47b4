# railyard: two commands for a fresh machine with Python 3.11 and make.
#   make run    - the main job on the default example
#   make test   - the checks (make check: ruff lint and format, mypy, zizmor) and the test suite
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
EXAMPLE ?= blueprints/examples/p5-capacity-block.yaml

.PHONY: run test fuzz mutate check browser screenshots validate bench bench-quick catalog catalog-check clean

$(VENV)/.installed: requirements.txt requirements-dev.txt policies/requirements.txt constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt -c constraints.txt
	touch $@

# The `railyard` command in the virtualenv, as the README's commands use it: the checkout installed in place
# (editable, offline, with the setuptools the dev requirements pin), so the command runs the code as it is edited.
$(VENV)/bin/railyard: $(VENV)/.installed pyproject.toml
	$(PY) -m pip install --quiet --disable-pip-version-check --no-index --no-deps --no-build-isolation --editable .
	touch $@

# The main job: validate, compile under Pulumi mocks, and police the resources, all offline.
run: $(VENV)/bin/railyard
	$(PY) -m railyard preview $(EXAMPLE) --policies

# Lint, format, types and the workflow audit: what `make test` runs first, and what pre-commit runs on each commit.
check: $(VENV)/.installed
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy
	$(VENV)/bin/zizmor --offline --min-severity high .github/workflows

# The report tests load every example's page in a real headless Chromium: Debian's package, installed once.
browser:
	@command -v chromium >/dev/null 2>&1 || command -v "$$RAILYARD_CHROMIUM" >/dev/null 2>&1 || { \
	  echo "installing Debian's chromium for the report's browser tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

# On every core (pytest-xdist), with bytecode cached as on a user's machine: the workers and the CLI subprocesses the
# tests start then compile railyard's modules once, not each. `make fuzz` runs the properties longer.
test: check browser
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -q -n auto --dist worksteal

# The property suites (mutated examples, schema-generated documents, day-2 changes) with ten times their examples.
fuzz: $(VENV)/.installed
	env -u PYTHONDONTWRITEBYTECODE RAILYARD_FUZZ_SCALE=10 $(PY) -m pytest -q -n auto --dist worksteal \
	  tests/blueprints/test_fuzz.py tests/blueprints/test_schema_fuzz.py tests/change/test_day2.py

# Mutation testing (mutmut) of the modules where verdicts are made, each against the tests that exercise it; not part of
# `make test` (about 2 hours on these 2 cores). Scores per module in build/mutate/*.json and docs/testing.md.
mutate: $(VENV)/.installed
	nice -n 15 $(PY) -m tests.mutate $(MODULES)

# Every example's HTML report and a screenshot of it, under build/reports.
screenshots: $(VENV)/.installed browser
	$(PY) -m railyard.html_report.screenshots build/reports

validate: $(VENV)/.installed
	@for f in $(filter-out blueprints/examples/insecure.yaml,$(wildcard blueprints/examples/*.yaml)); do $(PY) -m railyard validate $$f > /dev/null && echo "ok   $$f" || { echo "FAIL $$f"; exit 1; }; done

# The goal ratios: cold validate and cold preview (bench.coldstart), many small pools (bench.topology --shape many-small and
# many-mixed).
bench: $(VENV)/.installed
	$(PY) -m bench.coldstart
	$(PY) -m bench.topology --shape many-small --sizes 131072 --repeats 3
	$(PY) -m bench.topology --shape many-mixed --sizes 131072 --repeats 5
	$(PY) -m bench.topology --sizes 1024,16384,131072,1048576 --repeats 5
	$(PY) -m bench.preview
	$(PY) -m bench.policies
	$(PY) -m bench.plan

bench-quick: $(VENV)/.installed
	$(PY) -m bench.topology --sizes 1024,16384,131072 --repeats 3

catalog: $(VENV)/.installed
	$(PY) -m blueprints.catalog.generate --source moto
	$(PY) -m blueprints.catalog.regions
	$(PY) -m blueprints.catalog.system_types

catalog-check: $(VENV)/.installed
	$(PY) -m blueprints.catalog.generate --source moto --check
	$(PY) -m blueprints.catalog.regions --check
	$(PY) -m blueprints.catalog.system_types --check

clean:
	rm -rf $(VENV) .pytest_cache
