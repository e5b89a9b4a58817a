"""Speed and memory benchmarks for spacy-ctxvec (scripts, not tests): run benchmarks/speed/run_all.py."""
