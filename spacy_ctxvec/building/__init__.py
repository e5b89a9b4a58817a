"""How a lexicon is built: corpus reading, counting Docs into shards, checkpoints, and
the local and Ray engines. The data it builds lives in spacy_ctxvec.lexicon."""
