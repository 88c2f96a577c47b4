"""railyard's orchestration: the pipeline (load -> check -> compile -> police) and the CLI."""
