# railyard: two commands for a fresh machine with Python 3.11 and make.
#   make run    - the main job on the default example
#   make test   - the test suite
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
EXAMPLE ?= blueprints/examples/p5-capacity-block.yaml

.PHONY: run test validate bench catalog catalog-check clean

$(VENV)/.installed: requirements.txt requirements-dev.txt policies/requirements.txt constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt -c constraints.txt
	touch $@

run: $(VENV)/.installed
	$(PY) -m railyard validate $(EXAMPLE)

test: $(VENV)/.installed
	$(PY) -m pytest -q

validate: $(VENV)/.installed
	@for f in blueprints/examples/*.yaml; do $(PY) -m railyard validate $$f > /dev/null && echo "ok   $$f" || { echo "FAIL $$f"; exit 1; }; done

catalog: $(VENV)/.installed
	$(PY) -m blueprints.catalog.generate --source moto

catalog-check: $(VENV)/.installed
	$(PY) -m blueprints.catalog.generate --source moto --check

clean:
	rm -rf $(VENV) .pytest_cache
