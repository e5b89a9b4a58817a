"""Quality benchmarks and research probes: polysemy scores, senses, WiC (logs in SENSES.md, POLYSEMY.md)."""
