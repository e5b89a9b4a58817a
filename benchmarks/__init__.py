"""Speed and memory benchmarks for spacy-ctxvec (scripts, not tests): run benchmarks/run_all.py."""
