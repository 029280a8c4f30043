# The course site: `make` builds it, `make test` tests it. Both set themselves up.
SHELL := /bin/bash
.DEFAULT_GOAL := site

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8000

# Python keeps what it compiles (__pycache__, which git ignores), and pytest its rewritten test
# modules: where PYTHONDONTWRITEBYTECODE=1 is set, as on many CI images, every process compiled
# them again (the package tests took 78-88 s on two workers here, against 72-80 s without it).
unexport PYTHONDONTWRITEBYTECODE


.PHONY: site book page venv lock sync vendor browser test check check-package check-page lint notebooks serve bench clean

site: book ## build the site into _build/html

venv: $(VENV)/.installed

# PyTorch for this machine: the CUDA build when an NVIDIA GPU answers `nvidia-smi -L`, else the
# CPU build (no CUDA libraries). Choose with `make TORCH=cuda` or `make TORCH=cpu` (in a new .venv).
TORCH ?= $(if $(shell nvidia-smi -L 2>/dev/null | grep '^GPU'),cuda,cpu)
LOCK := $(if $(filter cuda,$(TORCH)),requirements-cuda.txt,requirements.txt)
# The CPU build's wheels. When this index does not answer, pip's own sources (pip.conf, e.g. a
# find-links folder that holds torch-X+cpu) must have it.
TORCH_CPU_INDEX ?= https://download.pytorch.org/whl/cpu

# pip compiles every installed module (74 s of the lock file's 161 s here). Keep it: without it,
# the first build's processes would each compile torch at once (--no-compile: the pages took
# 45 % more CPU where PYTHONDONTWRITEBYTECODE=1 kept nothing).
$(VENV)/.installed: $(LOCK) requirements-nodeps.txt code/pyproject.toml _ext/pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@cpu_index=""; if [ "$(TORCH)" = cpu ]; then \
	  if $(PYTHON) -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1] + "/torch/", timeout=20)' \
	      $(TORCH_CPU_INDEX) 2>/dev/null; then cpu_index="--extra-index-url $(TORCH_CPU_INDEX)"; \
	  else echo "make: $(TORCH_CPU_INDEX) does not answer; PyTorch's CPU build must come from pip's own sources"; fi; \
	fi; set -x; $(PY) -m pip install --quiet --require-hashes $$cpu_index -r $(LOCK)
	$(PY) -m pip install --quiet --require-hashes --no-deps -r requirements-nodeps.txt
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e code
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e _ext  # MyST-NB's MIME renderers (entry points)
	$(PY) -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $@

# Recompile the lock files from requirements.in with pip-compile (pip-tools), every file's hash
# included. TORCH_CPU_SOURCE= (empty) when the CPU index is out of reach and pip.conf holds the
# CPU wheel. The CUDA lock sees PyPI only, so that its torch is PyPI's with its CUDA libraries.
TORCH_CPU_SOURCE ?= --extra-index-url $(TORCH_CPU_INDEX)
PIP_COMPILE := CUSTOM_COMPILE_COMMAND="make lock" $(VENV)/bin/pip-compile --quiet --generate-hashes \
	--strip-extras --allow-unsafe --no-emit-index-url --no-emit-find-links

lock: venv ## recompile requirements.txt, requirements-cuda.txt and requirements-nodeps.txt
	$(PIP_COMPILE) $(TORCH_CPU_SOURCE) --output-file requirements.txt requirements.in
	env -u PIP_FIND_LINKS -u PIP_EXTRA_INDEX_URL PIP_CONFIG_FILE=/dev/null \
	  $(PIP_COMPILE) --upgrade-package torch --output-file requirements-cuda.txt requirements.in
	rm -rf .lock-nodeps && $(PY) -m pip download --quiet --no-deps --dest .lock-nodeps -r requirements-nodeps.in
	{ echo "# Compiled by make lock from requirements-nodeps.in (pip download --no-deps, pip hash)."; \
	  grep -v '^#' requirements-nodeps.in | grep . | while read -r pin; do \
	    echo "$$pin \\"; $(PY) -m pip hash .lock-nodeps/$$(echo "$${pin%%==*}" | tr - _)-* | sed -n 's/^--hash/    --hash/p'; done; \
	} > requirements-nodeps.txt
	rm -rf .lock-nodeps

MATH_JS := tools/math-js/node_modules/mathjax-full/package.json

CSS_JS := tools/css-js/node_modules/purgecss/package.json

vendor: .vendor/.installed $(MATH_JS) $(CSS_JS)

# MathJax for the build only: tools/math-js/tex_to_svg.js draws every formula as SVG.
$(MATH_JS): tools/math-js/package.json tools/math-js/package-lock.json
	npm ci --prefix tools/math-js --no-audit --no-fund --loglevel=error
	touch $@

# PostCSS and PurgeCSS for the build only: tools/css-js/bundle_css.js makes the one stylesheet.
$(CSS_JS): tools/css-js/package.json tools/css-js/package-lock.json
	npm ci --prefix tools/css-js --no-audit --no-fund --loglevel=error
	touch $@

.vendor/.installed: js-requirements.txt
	rm -rf .vendor && mkdir -p .vendor/tarballs
	cd .vendor/tarballs && npm pack --silent $$(grep -v '^#' ../../js-requirements.txt) >/dev/null
	mkdir -p .vendor/axe-core
	for bundle in basic cartesian gl3d; do mkdir -p .vendor/plotly-$$bundle && \
	  tar -xzf .vendor/tarballs/plotly.js-$$bundle-dist-min-*.tgz -C .vendor/plotly-$$bundle --strip-components=1; done
	tar -xzf .vendor/tarballs/axe-core-*.tgz -C .vendor/axe-core --strip-components=1
	rm -rf .vendor/tarballs
	touch $@

sync: venv ## write _config.yml's repository address into the set-up cells and CITATION.cff
	$(PY) tools/sync_repository.py

book: venv vendor sync ## build the whole book (re-executes pages whose code or package changed)
	$(PY) tools/build_book.py

page: venv vendor sync ## build one page into _build/pages/NAME/_build/html: make page PAGE=book/lessons/04_sinusoidal_positions.md
	@test -n "$(PAGE)" || { echo "usage: make page PAGE=book/lessons/NN_name.md"; exit 2; }
	$(PY) tools/build_book.py --page $(PAGE)

# The browser tests drive Debian's headless Chromium (package chromium-headless-shell: the
# same engine as Debian's chromium without the desktop browser around it; a test file runs in
# 0.72-0.90 of the time), and the whole browser for the three tests of what the shell does
# otherwise than a reader's Chromium (tests/site/conftest.py); on a machine for which Debian
# has no headless shell, every test runs in the whole browser. `make bench` measures with
# Lighthouse in the whole browser.
CHROMIUM ?= /usr/bin/chromium-headless-shell
WHOLE_CHROMIUM ?= /usr/bin/chromium
APT_INSTALL = DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends

browser: ## Debian's Chromium, whole and headless, for the browser tests (apt-get installs what is missing)
	@if ! test -x $(WHOLE_CHROMIUM) || ! test -x $(CHROMIUM); then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -q || exit 1; \
	    test -x $(WHOLE_CHROMIUM) || $(APT_INSTALL) chromium || exit 1; \
	    test -x $(CHROMIUM) || $(APT_INSTALL) chromium-headless-shell \
	      || echo "make browser: no chromium-headless-shell here; the browser tests run in the whole browser"; \
	  elif ! test -x $(WHOLE_CHROMIUM); then \
	    echo "The browser tests need Debian's Chromium: sudo apt-get install chromium chromium-headless-shell"; exit 1; \
	  else echo "make browser: the browser tests run faster in the headless shell: sudo apt-get install chromium-headless-shell"; \
	  fi; \
	fi

# Tests run on every core (pytest-xdist); a test file's tests stay on one worker, so a file's
# browser page or tiny book is set up once (each notebook twin's tests are a unit of their own,
# so more cores share the longest file), and the units go out in the order tests/conftest.py
# gives them (longest first). PARALLEL= runs them one after another.
PARALLEL ?= -n auto --dist loadfile --no-loadscope-reorder

test: venv vendor browser ## lint, package tests, full build, browser tests
	$(MAKE) lint
	$(PY) -m pytest tests/package -q $(PARALLEL)
	$(MAKE) book
	$(PY) -m pytest tests/site -q $(PARALLEL) --durations=10

CHECK_PAGE ?= book/lessons/02_one_hot.md

# The package tests and the page's build run side by side (each one's output is printed
# whole when it ends): the build is mostly one process, and the tests leave a core idle while
# their workers start and at their end.
check: venv vendor ## the inner loop: lint, package tests but those that retrain a lesson, one quick page (CHECK_PAGE=...)
	$(MAKE) lint
	$(MAKE) --jobs=2 --output-sync=target check-package check-page

check-package: venv
	$(PY) -m pytest tests/package -q $(PARALLEL) -m "not retrains"

check-page: venv vendor
	$(PY) tools/build_book.py --page $(CHECK_PAGE)

lint: venv ## ruff, and the workflow linters
	$(VENV)/bin/ruff check code tests tools _ext
	$(VENV)/bin/actionlint .github/workflows/*.yml
	$(VENV)/bin/zizmor --offline .github/workflows .github/dependabot.yml

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
	CHROME_PATH=$(WHOLE_CHROMIUM) $(PY) tools/bench.py $(BENCH_ARGS) $(BENCH_FLAGS)

clean: ## remove build output (keeps .venv and .vendor)
	rm -rf _build
