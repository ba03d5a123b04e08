"""An HTTP client service: the shapes real Python code has.

def not_a_function(): a docstring hides code.
"""
from __future__ import annotations

import asyncio
import logging, os.path as osp
from dataclasses import dataclass, field
from typing import (
    Any,
    Callable,
)

try:
    import ujson as json
except ImportError:  # pragma: no cover
    import json

__all__ = ["Client", "retry"]
log = logging.getLogger(__name__)
DEFAULT_TIMEOUT: float = 30.0
MAX_RETRIES = 3; BACKOFF = 0.5
_registry: dict[str, type] = {}


def retry(times: int = MAX_RETRIES) -> Callable:
    def wrap(fn):
        async def inner(*args, **kwargs):
            for attempt in range(times):
                try:
                    return await fn(*args, **kwargs)
                except OSError:
                    await asyncio.sleep(BACKOFF * 2 ** attempt)
        return inner
    return wrap


@dataclass(frozen=True)
class Config:
    """Settings."""
    base_url: str
    timeout: float = DEFAULT_TIMEOUT
    headers: dict[str, str] = field(default_factory=dict)

    class Meta:
        ordering = ["base_url"]

        def nested_method(self):
            pass

    @property
    def host(self) -> str:
        return self.base_url.split("/")[2]

    @staticmethod
    def parse(text: str) -> "Config":
        data = json.loads(text)
        return Config(**data)


class Client(object):
    instances = 0

    def __init__(self, config: Config) -> None:
        self.config = config
        Client.instances += 1

    @retry(times=5)
    async def get(self, path: str) -> dict[str, Any]:
        url = f"{self.config.base_url}/{path.lstrip('/')}"
        log.debug(f"GET {url!r:>{40}} {'{'}")
        return {}

    async def close(self):
        ...

    if os.environ.get("DEBUG"):
        def debug(self):
            return vars(self)

    def __repr__(self):
        return (
            f"Client({self.config!r}, "
            f"instances={Client.instances})"
        )


def main(argv: list[str] | None = None) -> int:
    match argv:
        case [cmd, *rest]:
            print(cmd, rest)
        case _:
            pass
    return 0


async def serve(): await asyncio.sleep(0)

lambda_handler = lambda event, ctx: main()
path = osp.join("a", \
    "b")

if __name__ == "__main__":
    raise SystemExit(main())
