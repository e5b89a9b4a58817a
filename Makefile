# Two commands for a newcomer:  `make demo` (main job, offline default)  and  `make test`.
PYTHON ?= python3
export HF_HUB_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false
# Installs the tested versions (constraints.txt); `make install CONSTRAINTS=` installs without those pins.
CONSTRAINTS ?= constraints.txt

.PHONY: install demo test lint

install:
	$(PYTHON) -m pip install -q "torch==2.13.0"
	$(PYTHON) -m pip install -q -e ".[test]" $(if $(CONSTRAINTS),-c $(CONSTRAINTS))

demo: install
	$(PYTHON) -m spacy_ctxvec compare "I have a apple" "I have a pen" --word a
	$(PYTHON) -m spacy_ctxvec compare "I want to eat an apple" "I want to buy an Apple phone" --word apple
	$(PYTHON) -m spacy_ctxvec compare "We sat on the river bank" "The bank approved my loan" --word bank
	$(PYTHON) -m spacy_ctxvec compare "The bank approved my loan" "I paid the money into the bank" --word bank
	$(PYTHON) -m spacy_ctxvec plot word apple --sentences project_data/seed_sentences.txt -o plots/seed_apple.png --overwrite

test: install lint
	$(PYTHON) -m pytest -q

# Lint, format check and types (configured in pyproject.toml); `make test` runs them first.
lint:
	$(PYTHON) -m ruff check .
	$(PYTHON) -m ruff format --check .
	$(PYTHON) -m mypy
