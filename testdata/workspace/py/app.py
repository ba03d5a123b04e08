"""Python part of the fixture tree."""
import os
from typing import List

LIMIT = 10


class Greeter:
    """Greets people."""

    def __init__(self, name: str) -> None:
        self.name = name

    def greet(self, who: str) -> str:
        return f"{self.name} greets {who}"  # needle


def helper(items: List[str]) -> int:
    greeter = Greeter("py")
    greeter.greet("x")
    return len(items) + LIMIT


async def fetch() -> None:
    pass
