"""The lexicon's data: type statistics, the occurrence sample, sense inventories, the
polysemy probe and their storage (.npy + JSON). How it is built: spacy_ctxvec.building."""
