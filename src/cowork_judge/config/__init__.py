"""Configuration, its own room (issue 38): every setting the judge reads (`judge_config`), what each
changes in a stored result (`effects`), the agentic backends table (`backends`) and the panel and
prices (`panel`). `lint`, `install`, `batch` and `agentic` import it without importing the run."""
