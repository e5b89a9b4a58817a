"""The typer app that every command module registers on."""
import typer

app = typer.Typer(
    name="spacy-ctxvec",
    help="Static and contextual token vectors in spaCy pipelines.",
    no_args_is_help=True,
    add_completion=False,
)
