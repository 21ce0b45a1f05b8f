"""The providers pi speaks to natively (endpoint, key variables), the key variables litellm reads
for the others, and which model a key alone picks. Read by :mod:`agent_core.providers.models`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

Api = Literal["openai-completions", "openai-responses", "anthropic-messages", "litellm"]
Transport = Literal["auto", "native", "litellm"]
TRANSPORTS: Final[tuple[Transport, ...]] = ("auto", "native", "litellm")
DEFAULT_MAX_TOKENS_CAP: Final = 32_000
"""Cap on ``max_tokens`` when the caller gives none and the API requires one (Anthropic)."""


@dataclass(frozen=True)
class NativeProvider:
    """How pi reaches one provider natively."""

    api: Api
    base_url: str
    key_envs: tuple[str, ...] = ()
    base_env: str | None = None
    litellm_known: bool = True  # False: route through litellm as "openai/<name>" + api_base


OPENAI: Final = "openai-completions"
ANTHROPIC: Final = "anthropic-messages"
RESPONSES: Final = "openai-responses"
NATIVE: Final[dict[str, NativeProvider]] = {
    "openai": NativeProvider(
        OPENAI, "https://api.openai.com/v1", ("OPENAI_API_KEY",), "OPENAI_BASE_URL"
    ),
    "anthropic": NativeProvider(ANTHROPIC, "https://api.anthropic.com", ("ANTHROPIC_API_KEY",)),
    "openrouter": NativeProvider(OPENAI, "https://openrouter.ai/api/v1", ("OPENROUTER_API_KEY",)),
    "groq": NativeProvider(OPENAI, "https://api.groq.com/openai/v1", ("GROQ_API_KEY",)),
    "deepseek": NativeProvider(OPENAI, "https://api.deepseek.com/v1", ("DEEPSEEK_API_KEY",)),
    "xai": NativeProvider(OPENAI, "https://api.x.ai/v1", ("XAI_API_KEY",)),
    "together_ai": NativeProvider(
        OPENAI, "https://api.together.xyz/v1", ("TOGETHER_API_KEY", "TOGETHERAI_API_KEY")
    ),
    # Local servers: no key needed.
    "ollama": NativeProvider(OPENAI, "http://127.0.0.1:11434/v1", (), "OLLAMA_BASE_URL", False),
    "lmstudio": NativeProvider(OPENAI, "http://127.0.0.1:1234/v1", (), "LMSTUDIO_BASE_URL", False),
    "lm_studio": NativeProvider(OPENAI, "http://127.0.0.1:1234/v1", (), "LMSTUDIO_BASE_URL", False),
    "llamacpp": NativeProvider(OPENAI, "http://127.0.0.1:8080/v1", (), "LLAMACPP_BASE_URL", False),
    "vllm": NativeProvider(OPENAI, "http://127.0.0.1:8000/v1", (), "VLLM_BASE_URL", False),
}

# Env vars litellm reads for providers we do not speak natively (named in error messages).
LITELLM_KEY_ENVS: Final[dict[str, str]] = {
    "gemini": "GEMINI_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "cohere": "COHERE_API_KEY",
    "azure": "AZURE_API_KEY",
    "bedrock": "AWS_ACCESS_KEY_ID",
    "vertex_ai": "GOOGLE_APPLICATION_CREDENTIALS",
    "fireworks_ai": "FIREWORKS_AI_API_KEY",
    "perplexity": "PERPLEXITYAI_API_KEY",
}

# Which model to pick when only a key is known (first match wins).
DEFAULTS_BY_KEY: Final[tuple[tuple[str, str], ...]] = (
    ("ANTHROPIC_API_KEY", "anthropic/claude-sonnet-4-5"),
    ("OPENAI_API_KEY", "openai/gpt-5"),
    ("OPENROUTER_API_KEY", "openrouter/anthropic/claude-sonnet-4.5"),
    ("GEMINI_API_KEY", "gemini/gemini-2.5-flash"),
    ("XAI_API_KEY", "xai/grok-4"),
    ("DEEPSEEK_API_KEY", "deepseek/deepseek-chat"),
    ("GROQ_API_KEY", "groq/llama-3.3-70b-versatile"),
    ("MISTRAL_API_KEY", "mistral/mistral-large-latest"),
)
