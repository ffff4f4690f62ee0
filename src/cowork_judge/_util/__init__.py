"""The house's utilities, below every room but the core: files (`fsutil`: atomic writes, scratch
folders, plain names), child processes (`procs`), threads (`threads`) and asyncio helpers (`aio`).
Nothing here knows a rubric, a verdict or a reward."""
