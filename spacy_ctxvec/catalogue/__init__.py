"""The message texts of the error catalogue, by code range; spacy_ctxvec.errors puts them
together as ``Errors`` (use that, never these classes directly)."""
