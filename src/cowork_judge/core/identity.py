"""Who judged a run (`RunIdentity`): versions, backend, model, metric id — a document with no
dependency on the scoring core, so the configuration can build it without importing the fold."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from cowork_judge.core.version import ABI, __version__


class RunIdentity(BaseModel):
    """Who judged: package and contract versions, backend, model, metric id (SPEC §12)."""

    model_config = ConfigDict(frozen=True)

    metric_id: str = Field(description="JUDGE_METRIC_ID.")
    requested_version: str | None = Field(description="COWORK_JUDGE_VERSION as test.sh saw it.")
    version_source: str = Field(description="injection / placeholder / package.")
    judge_backend: str = Field(description="JUDGE_BACKEND.")
    judge_model: str = Field(description=(
        "The model asked: JUDGE_MODEL; with JUDGE_PANEL the one judge's model, or 'panel:<model>+<model>…' in panel order."))
    version: str = Field(__version__, description="Installed cowork-judge version.")
    abi: int = Field(ABI, description="Engine ↔ workflow contract version.")


__all__ = ["RunIdentity"]
