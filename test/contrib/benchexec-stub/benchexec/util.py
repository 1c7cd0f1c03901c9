from typing import NamedTuple, Optional


class ProcessExitCode(NamedTuple):
    raw: int
    value: Optional[int]
    signal: Optional[int]
