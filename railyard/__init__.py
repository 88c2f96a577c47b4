"""railyard's orchestration: the pipeline (load -> check -> compile -> police) and the CLI."""

# The package version (`railyard --version`, and `pip install .` reads it from here).
__version__ = "0.2.0"
