"""Speed and memory benchmarks: run_all.py writes benchmarks/speed/RESULTS.md and docs/benchmark-results.md."""
