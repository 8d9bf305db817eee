"""``paperzoo llm``: serve a backend over HTTP, list backends, chat from the shell."""

from __future__ import annotations

import json

import click

from paperzoo.errors import ConfigError


@click.group()
def llm() -> None:
    """Language-model backends: serve, list, chat."""


@llm.command()
@click.option("--backend", "spec", default="scripted:echo", show_default=True,
              help="Backend to serve, e.g. transformers:smollm2.")  # fmt: skip
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to bind.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
@click.option("--model-name", help="Model id reported to clients (default: the backend's model).")
@click.option("--api-key", envvar="PAPERZOO_LLM_API_KEY", help="Require this bearer key.")
@click.option("--quiet", is_flag=True, help="Do not log requests.")
def serve(spec: str, host: str, port: int, model_name: str | None, api_key: str | None, quiet: bool) -> None:
    """Serve a backend over an OpenAI-compatible API (POST /v1/chat/completions)."""
    from paperzoo_llm.registry import get_backend
    from paperzoo_llm.server import LLMServer

    server = LLMServer(get_backend(spec), host=host, port=port, model_name=model_name, api_key=api_key,
                       verbose=not quiet)  # fmt: skip
    click.echo(f"Serving {spec} at {server.url} (model {server.model_name!r}); Ctrl-C stops.", err=True)
    click.echo(f"  OpenAIBackend({server.model_name!r}, base_url={server.url!r})", err=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        click.echo("stopped", err=True)


@llm.command(name="backends")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_backends(as_json: bool) -> None:
    """List the registered backends."""
    from paperzoo_llm.registry import backends

    specs = list(backends())
    if as_json:
        click.echo(
            json.dumps([{"name": s.name, "plugin": s.plugin, "summary": s.summary} for s in specs], indent=2)
        )
        return
    for s in specs:
        click.echo(f"{s.name:14} {s.summary}  [{s.plugin}]")


@llm.command()
@click.argument("spec")
@click.argument("prompt")
@click.option("--system", help="A system message.")
@click.option("-n", "n", type=int, default=1, show_default=True, help="Completions.")
@click.option("--temperature", type=float, default=0.0, show_default=True)
@click.option("--max-tokens", type=int, default=128, show_default=True)
@click.option("--seed", type=int)
@click.option("--base-url", help="For openai: the server URL (default $OPENAI_BASE_URL).")
@click.option("--json", "as_json", is_flag=True, help="Print the whole response as JSON.")
def chat(
    spec: str,
    prompt: str,
    system: str | None,
    n: int,
    temperature: float,
    max_tokens: int,
    seed: int | None,
    base_url: str | None,
    as_json: bool,
) -> None:
    """Send PROMPT to the backend SPEC (e.g. transformers:smollm2) and print the answer."""
    from paperzoo_llm.registry import get_backend

    options = {"base_url": base_url} if base_url else {}
    if base_url and not spec.startswith("openai"):
        raise ConfigError("--base-url is an option of the openai backend only", hint="write openai:MODEL")
    backend = get_backend(spec, **options)
    messages = ([{"role": "system", "content": system}] if system else []) + [
        {"role": "user", "content": prompt}
    ]
    response = backend.chat(messages, n=n, temperature=temperature, max_tokens=max_tokens, seed=seed)
    if as_json:
        click.echo(json.dumps({**response.to_dict(), "cached": response.cached}, indent=2))
        return
    for completion in response.completions:
        click.echo(completion.text)
    usage = response.usage
    click.echo(
        f"[{response.model}: {usage.prompt_tokens} prompt + {usage.completion_tokens} completion tokens, "
        f"{response.latency_s:.2f} s]",
        err=True,
    )
