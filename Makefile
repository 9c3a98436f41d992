# Entry points of the kit.  `make test` and `make demo` set everything up on a fresh machine.
PYTHON     ?= python3
VENV       ?= .venv
# The CPU wheel by default; a GPU box overrides it (pip arguments allowed), e.g.
#   make install TORCH_SPEC="torch==2.13.0 --index-url <a CUDA wheel index>"
TORCH_SPEC ?= torch==2.13.0
# TensorFlow for the TensorFlow assignments (pyproject.toml's `tensorflow` extra pins the same); a GPU box:
#   make install TF_SPEC="tensorflow[and-cuda]==2.21.0"
TF_SPEC    ?= tensorflow-cpu==2.21.0
JOBS       ?= 2
# Test processes of `make test` for the tests that share the host (pytest -n; a file's tests stay in one
# process, with its module's graded batch); the `serial` ones run after them, one at a time.
TEST_JOBS  ?= 3
PY         := $(VENV)/bin/python
STAMP      := $(VENV)/.installed
DEMO_STAMP := $(VENV)/.demo-installed

.PHONY: install lint test check demo student check-student check-solutions check-curriculum check-secrets dist bench clean

install: $(STAMP)

# What `make demo` runs, alone (grading a PyTorch class, its feedback pages, report and exports): the CPU torch,
# the kit with what notebooks import and what instructors' commands need (`grader`, `instructor` extras) and
# bubblewrap.  No TensorFlow, Triton, Dask, test tools or Chromium: `make install` adds them, for `make test`.
$(DEMO_STAMP): pyproject.toml scripts/install-system-deps
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q $(TORCH_SPEC)
	$(PY) -m pip install -q -e ".[grader,instructor]"
	sh scripts/install-system-deps bubblewrap
	touch $(DEMO_STAMP)

$(STAMP): $(DEMO_STAMP) pyproject.toml scripts/install-system-deps
	$(PY) -m pip install -q $(TF_SPEC) "ml_dtypes>=0.5.1,<0.7"  # pyproject.toml's `tensorflow` extra says why
	$(PY) -m pip install -q -e ".[course,instructor,cluster,lms,interop,dev]"
	sh scripts/install-system-deps
	# TensorFlow's framework headers precompiled for the kit's build of a tf02b kernel (about 30 s, 400 MB under
	# $(VENV)/share): a compile takes a third of the time.  Without it (no g++ yet) the kit compiles them each time.
	TF_CPP_MIN_LOG_LEVEL=3 $(PY) assignments/tf02b_kernels/probes.py || echo "tf02b's precompiled header was not built"
	touch $(STAMP)

# The kit's own Python, read without running it: the oldest Python it supports, the layers, lint, format, types.
LINTED := autograder tests bench scripts
lint: install
	$(VENV)/bin/vermin -t=3.10- --no-tips --violations --quiet autograder tests setup.py
	$(VENV)/bin/lint-imports   # the layers of docs/architecture.md: no import of a later layer, no cycle
	$(PY) -m ruff check $(LINTED)
	$(PY) -m ruff format --check $(LINTED)
	$(PY) -m mypy   # the package ([tool.mypy] in pyproject.toml)

# Each phase names its slowest steps (--durations): where CI's 30 minutes go, in its own log.
test: install check-student lint
	$(PY) -m autograder check-solutions --jobs $(JOBS)
	$(PY) -m pytest -q -m "not deep and not serial" -n $(TEST_JOBS) --dist loadfile --durations=25
	$(PY) -m pytest -q -m "not deep and serial" --durations=15

# The exhaustive tier (tests/tiers.py): every assignment where `make test` takes one PyTorch and one
# TensorFlow assignment, and every mutant of the curriculum.  After changing an assignment or the student package.
check: test
	$(PY) -m pytest -q -m deep

# The curriculum alone, mutants included: after changing an assignment's hidden tests or its mutant list.
check-curriculum: install
	$(PY) -m pytest -q tests/curriculum

check-student: install
	$(PY) -m autograder release --check

check-solutions: install
	$(PY) -m autograder check-solutions --jobs $(JOBS)

# Each course secret draws other hidden inputs, and a test's verdict must not depend on the draw
# (docs/writing-tests.md, which gives the times): every master and alternative solution under 12 secrets,
# then the whole curriculum (mutants and stubs too) and the attacks on points for how under 4 more.
SECRETS ?= 1 2 3 4
# Points for how (docs/writing-tests.md): the attacks that fake them earn no more than honest work under each secret too.
HOW_ATTACKS := tests/attacks/test_kernel_evidence.py tests/attacks/test_loop_evidence.py
check-secrets: install
	$(PY) tests/curriculum/sweep_secrets.py --secrets 12
	for s in $(SECRETS); do AUTOGRADER_SECRET="check-secrets-$$s" $(PY) -m pytest -q tests/curriculum $(HOW_ATTACKS) || exit 1; done

student: install
	$(PY) -m autograder release

demo: $(DEMO_STAMP)
	$(PY) -m autograder grade 01_tensors examples/submissions/01_tensors --out results --jobs $(JOBS) --roster examples/roster.csv
	$(PY) -m autograder feedback 01_tensors --out results
	$(PY) -m autograder report 01_tensors --out results --roster examples/roster.csv
	$(PY) -m autograder export 01_tensors --out results --format canvas --roster examples/roster.csv --new-assignment
	$(PY) -m autograder export 01_tensors --out results --format moodle --roster examples/roster.csv

# The student package (README "For students"): a wheel with each assignment's public checks, no hidden tests.
# Built with what building needs only (setuptools, in pip's isolated build environment), not `make install`.
dist:
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	rm -rf dist build
	$(PY) -m pip wheel -q --no-deps --wheel-dir dist .

bench: install
	$(PY) bench/run.py $(BENCH_ARGS)  # e.g. BENCH_ARGS='--assignments 01_tensors --copies 2'

clean:
	rm -rf results bench/out .pytest_cache dist build
