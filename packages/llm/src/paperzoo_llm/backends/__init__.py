"""The built-in backends: ``openai`` (HTTP), ``transformers`` (in process), ``scripted`` (tests)."""
