"""The work behind each command that writes a pipeline: check the paths, load, build or
fit, save through spacy_ctxvec.outputs. A command parses its options, calls one
function here and prints the result."""
