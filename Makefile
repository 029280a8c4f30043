# The course site: `make` builds it, `make test` tests it. Both set themselves up.
SHELL := /bin/bash
.DEFAULT_GOAL := site

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8000


.PHONY: site book page venv vendor browser test lint notebooks serve bench bench-notebooks clean

site: book ## build the site into _build/html

venv: $(VENV)/.installed

$(VENV)/.installed: requirements.txt requirements-nodeps.txt code/pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps -r requirements-nodeps.txt
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e code
	$(PY) -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $@

MATH_JS := tools/math-js/node_modules/mathjax-full/package.json

CSS_JS := tools/css-js/node_modules/purgecss/package.json

vendor: .vendor/.installed $(MATH_JS) $(CSS_JS)

# MathJax for the build only: tools/math-js/tex_to_svg.js draws every formula as SVG.
$(MATH_JS): tools/math-js/package.json tools/math-js/package-lock.json
	npm ci --prefix tools/math-js --no-audit --no-fund --loglevel=error
	touch $@

# PurgeCSS for the build only: tools/css-js/purge_css.js drops theme CSS no page can use.
$(CSS_JS): tools/css-js/package.json tools/css-js/package-lock.json
	npm ci --prefix tools/css-js --no-audit --no-fund --loglevel=error
	touch $@

.vendor/.installed: js-requirements.txt
	rm -rf .vendor && mkdir -p .vendor/tarballs
	cd .vendor/tarballs && npm pack --silent $$(grep -v '^#' ../../js-requirements.txt) >/dev/null
	mkdir -p .vendor/requirejs .vendor/html-manager .vendor/axe-core
	tar -xzf .vendor/tarballs/requirejs-*.tgz -C .vendor/requirejs --strip-components=1
	tar -xzf .vendor/tarballs/jupyter-widgets-html-manager-*.tgz -C .vendor/html-manager --strip-components=1
	for bundle in basic cartesian gl3d; do mkdir -p .vendor/plotly-$$bundle && \
	  tar -xzf .vendor/tarballs/plotly.js-$$bundle-dist-min-*.tgz -C .vendor/plotly-$$bundle --strip-components=1; done
	tar -xzf .vendor/tarballs/axe-core-*.tgz -C .vendor/axe-core --strip-components=1
	rm -rf .vendor/tarballs
	touch $@

book: venv vendor ## build the whole book (re-executes pages whose code or package changed)
	$(PY) tools/build_book.py

page: venv vendor ## build one page into _build/pages/NAME/_build/html: make page PAGE=book/lessons/04_sinusoidal_positions.md
	@test -n "$(PAGE)" || { echo "usage: make page PAGE=book/lessons/NN_name.md"; exit 2; }
	$(PY) tools/build_book.py --page $(PAGE)

CHROMIUM ?= /usr/bin/chromium

browser: ## Debian's Chromium for the browser tests (installed with apt-get when missing)
	@test -x $(CHROMIUM) || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium; \
	  else echo "The browser tests need Chromium at $(CHROMIUM): sudo apt-get install chromium"; exit 1; fi; }

test: venv vendor browser ## lint, package tests, full build, browser tests
	$(MAKE) lint
	$(PY) -m pytest tests/package -q
	$(MAKE) book
	$(PY) -m pytest tests/site -q

lint: venv ## ruff, and the workflow linters
	$(VENV)/bin/ruff check code tests tools _ext
	$(VENV)/bin/actionlint .github/workflows/*.yml
	$(VENV)/bin/zizmor --offline .github/workflows

notebooks: venv vendor ## regenerate the .ipynb beside each page (run after editing a page; builds the book for its numbers)
	$(PY) tools/sync_notebooks.py --setup-cells
	$(MAKE) book
	$(PY) tools/sync_notebooks.py

serve: ## serve the built site on http://127.0.0.1:$(PORT)
	$(PY) -m http.server $(PORT) --bind 127.0.0.1 --directory _build/html

LIGHTHOUSE := tools/bench-js/node_modules/lighthouse/cli/index.js
BENCH_ARGS := $(if $(PAGES),--pages $(PAGES)) $(if $(RUNS),--runs $(RUNS))

$(LIGHTHOUSE): tools/bench-js/package.json tools/bench-js/package-lock.json
	PUPPETEER_SKIP_DOWNLOAD=1 npm ci --prefix tools/bench-js --no-audit --no-fund --loglevel=error
	touch $@

bench: venv vendor browser $(LIGHTHOUSE) ## cold and no-change build times; Lighthouse per page (PAGES=..., RUNS=3)
	CHROME_PATH=$(CHROMIUM) $(PY) tools/bench.py $(BENCH_ARGS) $(BENCH_FLAGS)

bench-notebooks: venv ## every twin 10 times with plain `jupyter nbconvert --execute`; fails on a hang (RUNS=..., NOTEBOOKS=...)
	$(PY) tools/bench_notebooks.py $(if $(RUNS),--runs $(RUNS)) $(NOTEBOOKS)

clean: ## remove build output (keeps .venv and .vendor)
	rm -rf _build
