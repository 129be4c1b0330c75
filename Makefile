# AI Infra 图解 — two commands for a newcomer: `make run` and `make test`.
# The venv's interpreter: python3 on PATH (PY=… picks another); a venv stays until `make clean`.
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
HOST    ?= 127.0.0.1
PORT    ?= 8000
STAMP   := $(VENV)/.installed
# Bytecode is cached (__pycache__, ignored by git) even where the environment says not to: without it
# every test worker rewrites every test module's asserts (~9 s of collection each) and every server
# the tests start compiles the app again
unexport PYTHONDONTWRITEBYTECODE
ASSETS  := static/vendor/.installed

.PHONY: setup run serve-prod lint words-report test test-full test-fast golden bench bench-smoke load nginx-demo live-bench live-fault clean

setup: $(STAMP) $(ASSETS)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund --ignore-scripts

# static sources too: an edited app.js is compressed again (until then it is served uncompressed,
# never stale: CachedStatic skips a compressed copy older than its file)
$(ASSETS): node_modules/.package-lock.json scripts/assets.sh scripts/precompress.py $(STAMP) \
           $(wildcard static/*.js static/*.css)
	./scripts/assets.sh
	$(BIN)/python scripts/precompress.py static
	touch $(ASSETS)

# The server's own limits (app/live/serving.py): headers within 10 s and 16 KB, bodies within 30 s,
# idle keep-alive closed after 5 s; X-Forwarded-For believed only from AIINFRA_TRUSTED_PROXIES
SERVE   := --http app.live.serving:GuardedHttpTools --timeout-keep-alive 5 --forwarded-allow-ips "$${AIINFRA_TRUSTED_PROXIES:-127.0.0.1}"

run: setup
	$(BIN)/uvicorn --factory app.main:create_app --host $(HOST) --port $(PORT) $(SERVE)

# Production: several worker processes (see README "Deploying for a course"); several workers need
# AIINFRA_REDIS_URL for the live class (deploy/gunicorn.conf.py refuses otherwise); the same server
# limits as `make run` (deploy/gunicorn.conf.py: the guarded worker)
serve-prod: setup
	HOST=$(HOST) PORT=$(PORT) $(BIN)/gunicorn 'app.main:create_app()' -c deploy/gunicorn.conf.py

lint: setup
	$(BIN)/ruff format --check app tests bench scripts
	$(BIN)/ruff check app tests bench scripts
	$(BIN)/mypy

# The whole check: lint (ruff), types (mypy), then every test on two processes (xdist), in a shuffled
# order (pytest-randomly; the run ends with its seed: PYTEST_ARGS=--randomly-seed=N repeats an order,
# PYTEST_ARGS="-p no:randomly" keeps the file order). Grids that repeat one check over every card run on a
# sample (tests/sampling.py); test-full runs them whole too (.ci/run runs both).
# lint (mypy: ~15 s from a clean clone, incremental after; .mypy_cache) and the words report run side by side,
# each one's output kept together (-O); the engine tests' mypy runs start from that cache (tests/engine/conftest.py).
# Last, alone: the tests that measure a speed a reader feels (marked alone: the drag), with nothing
# beside them on the machine (--alone runs only those; every other run leaves them out).
test: setup
	$(MAKE) --no-print-directory -j2 -O lint words-report
	$(BIN)/python -m pytest -q -p no:cacheprovider -n $${TEST_WORKERS:-2} $(PYTEST_ARGS)
	$(BIN)/python -m pytest -q -p no:cacheprovider --alone tests/browser

words-report: setup
	$(BIN)/python scripts/words_check.py en --report

test-full: lint
	$(BIN)/python -m pytest -q -p no:cacheprovider -n $${TEST_WORKERS:-2} --full $(PYTEST_ARGS)

test-fast: setup
	$(BIN)/python -m pytest -q -p no:cacheprovider -n $${TEST_WORKERS:-2} -m "not browser" $(PYTEST_ARGS)

# The golden record of served bytes (tests/golden/): rewrite it after a deliberate change, then read its diff
golden: setup
	$(BIN)/python -m tests.web.golden

# A new card that renders at once (scripts/new_card.py, docs/adding-cards.md): make card ID=kv-per-request SECTION=1.2;
# parameters, outputs and book values come from its entry in the card catalog when it has one
CARD_CATALOG ?= ../shared/catalog
.PHONY: card
card:
	@test -n "$(ID)" -a -n "$(SECTION)" || { echo "usage: make card ID=<card-id> SECTION=<1.2> [CARD_CATALOG=<dir>]"; exit 2; }
	$(PY) scripts/new_card.py $(ID) $(SECTION) --catalog $(CARD_CATALOG)

bench: setup
	$(BIN)/python bench/bench.py

bench-smoke: setup
	$(BIN)/python bench/bench.py --smoke

load: setup
	$(BIN)/python bench/load.py --clients 200 --seconds 60

nginx-demo: setup
	./deploy/nginx-demo.sh 2 5

# Live class: 500 SSE followers + 100 answers/s for 60 s against serve-prod (2 workers + Redis), beside an
# abuse mix (answer stuffing with invented identities, a join flood, a class flood)
live-bench: setup
	$(BIN)/python bench/live.py

# Live class fault demo: two instances behind nginx with Redis; one is killed mid-class
live-fault: setup
	$(BIN)/python bench/live_fault.py

clean:
	rm -rf $(VENV) node_modules static/vendor
