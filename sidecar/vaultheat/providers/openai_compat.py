"""Remote models over the OpenAI-compatible HTTP API (LM Studio, Ollama's /v1, llama.cpp, OpenAI).

This is the only provider that talks to a network, and only to the ``base_url`` the user set.
Configuration wins over the environment: ``OPENAI_BASE_URL`` is used only while ``base_url`` is
still the default, ``OPENAI_API_KEY`` only when ``api_key_env`` is empty. The key is read from the
environment at construction, sent as a bearer header and never logged, repr'd or put in errors.

Retries: connection errors, timeouts, 408/429 and 5xx are retried with exponential backoff
(``Retry-After`` honoured up to a cap); any other 4xx fails at once with the server's message,
because repeating a bad request cannot help.

Prefix presets (e5 / nomic-embed / bge, see ``providers.local.resolve_prefixes``) apply here too
when both prefixes are empty: ``nomic-embed-text`` served by Ollama needs them just the same.

``count_tokens`` cannot see the remote tokenizer, so it estimates ``ceil(len(text) / 3.5)``:
conservative for English and code (BPE tokenizers average about 4 characters per token), so
chunks stay inside ``max_tokens``; text in scripts with fewer characters per token (CJK) needs a
smaller ``chunking.max_tokens``.
"""

from __future__ import annotations

import logging
import math
import os
import threading
import time
from collections.abc import Sequence
from typing import Any

import httpx
import numpy as np

from vaultheat.config import EmbeddingSettings, ExpansionSettings
from vaultheat.errors import ProviderError
from vaultheat.providers.local import resolve_prefixes

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = EmbeddingSettings().base_url
DEFAULT_MAX_INPUT_TOKENS = 512
CHARS_PER_TOKEN = 3.5
RETRY_STATUS = frozenset({408, 429})
MAX_BACKOFF_S = 30.0
PROBE_TEXT = "dimension probe"


def resolve_base_url(configured: str) -> str:
    """``OPENAI_BASE_URL`` replaces the default base URL, never an explicitly configured one."""
    env = os.environ.get("OPENAI_BASE_URL", "").strip()
    url = env if configured == DEFAULT_BASE_URL and env else configured
    return url.rstrip("/")


def resolve_api_key(api_key_env: str) -> str | None:
    """The key from the variable named by ``api_key_env``; ``OPENAI_API_KEY`` when that is empty."""
    if api_key_env:
        key = os.environ.get(api_key_env, "").strip()
        if not key:
            log.warning("api_key_env names %s but that environment variable is empty", api_key_env)
        return key or None
    return os.environ.get("OPENAI_API_KEY", "").strip() or None


def estimate_tokens(text: str) -> int:
    """Conservative token estimate for a tokenizer we cannot see: ceil(chars / 3.5)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def normalize_rows(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm (zero rows stay zero), as float32."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return (matrix / np.where(norms == 0.0, 1.0, norms)).astype(np.float32)


def server_message(response: httpx.Response) -> str:
    """The error text a server put in its body ({"error": {"message"}} or plain text)."""
    try:
        body = response.json()
    except ValueError:
        return response.text.strip()[:500] or response.reason_phrase
    if isinstance(body, dict):
        err = body.get("error", body.get("message", body.get("detail")))
        if isinstance(err, dict):
            err = err.get("message", err)
        if err is not None:
            return str(err)[:500]
    return str(body)[:500]


class JsonClient:
    """POST JSON with retries; the shared transport of the embedder and the generator."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        *,
        timeout_s: float,
        retries: int,
        backoff_s: float = 0.5,
    ) -> None:
        self.base_url = base_url
        self.retries = max(0, retries)
        self.backoff_s = backoff_s
        self._timeout = httpx.Timeout(timeout_s)
        self._headers = {"Content-Type": "application/json"}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        self._client: httpx.Client | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"JsonClient(base_url={self.base_url!r})"

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None

    def _http(self) -> httpx.Client:
        with self._lock:
            if self._client is None:
                self._client = httpx.Client(timeout=self._timeout, headers=self._headers)
            return self._client

    def post(self, path: str, payload: dict[str, Any]) -> Any:
        url = f"{self.base_url}/{path.lstrip('/')}"
        last = ""
        for attempt in range(self.retries + 1):
            delay = self.backoff_s * (2**attempt)
            try:
                response = self._http().post(url, json=payload)
            except httpx.TimeoutException as exc:
                last = f"timed out ({type(exc).__name__})"
            except httpx.TransportError as exc:
                last = f"connection failed ({type(exc).__name__}: {exc})"
            else:
                status = response.status_code
                if status < 400:
                    try:
                        return response.json()
                    except ValueError as exc:
                        raise ProviderError(
                            f"{url} answered with invalid JSON", url=url, status=status
                        ) from exc
                message = server_message(response)
                if status not in RETRY_STATUS and status < 500:
                    raise ProviderError(
                        f"{url} rejected the request (HTTP {status}): {message}",
                        url=url,
                        status=status,
                    )
                last = f"HTTP {status}: {message}"
                delay = max(delay, retry_after_s(response))
            if attempt < self.retries:
                log.warning("%s: %s; retry %d/%d", url, last, attempt + 1, self.retries)
                time.sleep(min(delay, MAX_BACKOFF_S))
        raise ProviderError(
            f"{url} failed after {self.retries + 1} attempts: {last}",
            url=url,
            attempts=self.retries + 1,
        )


def retry_after_s(response: httpx.Response) -> float:
    value = response.headers.get("Retry-After", "")
    try:
        return max(0.0, float(value))
    except ValueError:
        return 0.0


class OpenAIEmbedder:
    """Embedder over POST {base_url}/embeddings; vectors are L2-normalized here."""

    def __init__(self, settings: EmbeddingSettings, *, backoff_s: float = 0.5) -> None:
        if not settings.model:
            raise ProviderError("embeddings.model is empty: name the remote embedding model")
        self.settings = settings
        self.base_url = resolve_base_url(settings.base_url)
        self._query_prefix, self._document_prefix = resolve_prefixes(
            settings.model, settings.query_prefix, settings.document_prefix
        )
        self._client = JsonClient(
            self.base_url,
            resolve_api_key(settings.api_key_env),
            timeout_s=settings.timeout_s,
            retries=settings.retries,
            backoff_s=backoff_s,
        )
        self._dimension: int | None = None

    def __repr__(self) -> str:
        return f"OpenAIEmbedder(model={self.name!r}, base_url={self.base_url!r})"

    def close(self) -> None:
        self._client.close()

    @property
    def name(self) -> str:
        return self.settings.model

    @property
    def fingerprint(self) -> str:
        return (
            f"openai:{self.base_url}|{self.settings.model}"
            f"|q={self._query_prefix!r}|d={self._document_prefix!r}|norm=l2"
        )

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self._embed([PROBE_TEXT])
        assert self._dimension is not None
        return self._dimension

    @property
    def max_tokens(self) -> int:
        return self.settings.max_input_tokens or DEFAULT_MAX_INPUT_TOKENS

    def count_tokens(self, text: str) -> int:
        return estimate_tokens(text)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """(n, dim) float32; no request for an empty list (shape (0, dim) once dim is known)."""
        if not texts:
            return np.zeros((0, self._dimension or 0), dtype=np.float32)
        size = max(1, self.settings.batch_size)
        prefixed = [self._document_prefix + t for t in texts]
        parts = [self._embed(prefixed[i : i + size]) for i in range(0, len(prefixed), size)]
        return np.vstack(parts)

    def embed_query(self, text: str) -> np.ndarray:
        return self._embed([self._query_prefix + text])[0]

    def _embed(self, batch: list[str]) -> np.ndarray:
        body = self._client.post("embeddings", {"model": self.settings.model, "input": batch})
        matrix = parse_embeddings(body, len(batch))
        if self._dimension is None:
            self._dimension = matrix.shape[1]
        elif matrix.shape[1] != self._dimension:
            raise ProviderError(
                f"embedding dimension changed from {self._dimension} to {matrix.shape[1]}",
                model=self.name,
            )
        return normalize_rows(matrix)


def parse_embeddings(body: Any, expected: int) -> np.ndarray:
    """{"data": [{"embedding": [...], "index": i}, ...]} -> (expected, dim) in input order."""
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, list) or len(data) != expected:
        got = len(data) if isinstance(data, list) else "no data"
        raise ProviderError(f"embeddings response has {got} items, expected {expected}")
    try:
        items = sorted(enumerate(data), key=lambda p: int(p[1].get("index", p[0])))
        rows = [item["embedding"] for _, item in items]
        matrix = np.asarray(rows, dtype=np.float32)
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise ProviderError(f"malformed embeddings response: {exc}") from exc
    if matrix.ndim != 2 or matrix.shape[1] == 0:
        raise ProviderError("malformed embeddings response: vectors of unequal or zero length")
    if not np.all(np.isfinite(matrix)):
        raise ProviderError("embeddings response contains NaN or infinite values")
    return matrix


class OpenAIGenerator:
    """Generator over POST {base_url}/chat/completions; returns the first choice's content."""

    def __init__(
        self,
        settings: ExpansionSettings,
        *,
        retries: int = 2,
        temperature: float = 0.3,
        backoff_s: float = 0.5,
    ) -> None:
        if not settings.model:
            raise ProviderError("expansion.model is empty: name the chat model")
        self.settings = settings
        self.base_url = resolve_base_url(settings.base_url)
        self.temperature = temperature
        self._client = JsonClient(
            self.base_url,
            resolve_api_key(settings.api_key_env),
            timeout_s=settings.timeout_s,
            retries=retries,
            backoff_s=backoff_s,
        )

    def __repr__(self) -> str:
        return f"OpenAIGenerator(model={self.settings.model!r}, base_url={self.base_url!r})"

    def close(self) -> None:
        self._client.close()

    def generate(self, prompt: str, *, max_tokens: int = 1024) -> str:
        payload = {
            "model": self.settings.model,
            "messages": [{"role": "user", "content": prompt}],
            "max_tokens": max_tokens,
            "temperature": self.temperature,
        }
        body = self._client.post("chat/completions", payload)
        try:
            content = body["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError) as exc:
            raise ProviderError(f"malformed chat completion response: {exc!r}") from exc
        if not isinstance(content, str):
            raise ProviderError("chat completion has no text content", model=self.settings.model)
        return content
