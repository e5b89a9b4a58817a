"""Pure numpy numerics: no spaCy imports in this package."""
