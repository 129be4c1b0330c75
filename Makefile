# AI Infra 图解 — two commands for a newcomer: `make run` and `make test`.
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
HOST    ?= 127.0.0.1
PORT    ?= 8000
STAMP   := $(VENV)/.installed
ASSETS  := static/vendor/.installed

.PHONY: setup run serve-prod test test-fast bench bench-smoke load nginx-demo clean

setup: $(STAMP) $(ASSETS)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund --ignore-scripts

$(ASSETS): node_modules/.package-lock.json scripts/assets.sh
	./scripts/assets.sh
	touch $(ASSETS)

run: setup
	$(BIN)/uvicorn app.main:app --host $(HOST) --port $(PORT)

# Production: several worker processes (see README "Deploying for a course")
serve-prod: setup
	$(BIN)/gunicorn app.main:app -k uvicorn.workers.UvicornWorker -w $${WORKERS:-2} -b $(HOST):$(PORT)

test: setup
	$(BIN)/python -m pytest -q -p no:cacheprovider $(PYTEST_ARGS)

test-fast: setup
	$(BIN)/python -m pytest -q -p no:cacheprovider -m "not browser" $(PYTEST_ARGS)

bench: setup
	$(BIN)/python bench/bench.py

bench-smoke: setup
	$(BIN)/python bench/bench.py --smoke

load: setup
	$(BIN)/python bench/load.py --clients 200 --seconds 60

nginx-demo: setup
	./deploy/nginx-demo.sh 2 5

clean:
	rm -rf $(VENV) node_modules static/vendor
