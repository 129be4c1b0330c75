"""Every setting of a deployment, read once from ``AIINFRA_*`` environment variables (pydantic-settings)
and handed to ``create_app(settings)``. Nothing else in the app reads the environment; tests build their
apps from their own ``Settings(...)``."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Annotated, Literal

from fastapi import Depends, Request
from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

ROOT = Path(__file__).resolve().parent.parent


class Settings(BaseSettings):
    """A deployment's settings. Each field is the environment variable ``AIINFRA_<NAME>``."""

    model_config = SettingsConfigDict(env_prefix="AIINFRA_", frozen=True, extra="ignore")

    live_db: Path = Field(ROOT / "var" / "live.db", description="SQLite file of the live class (one process)")
    redis_url: str = Field("", description="redis://host:port/db: the live class's store and fan-out across processes")
    live_keepalive_s: float = Field(15.0, gt=0, description="seconds between SSE keep-alive comments")
    edge_mb: int = Field(48, ge=0, description="the HTTP cache in front of the app, MB (10⁶ B) per process; 0 = off")
    solutions: Literal["on", "off"] = Field("on", description="off: no exercise shows or reveals its solutions")
    warm: bool = Field(True, description="render every card once at start-up (templates compiled before readers)")
    reload: bool = Field(False, description="re-read templates when they change (development)")
    bench: bool = Field(False, description="mount /bench/ceiling, the bench's same-stack row")
    secret: SecretStr | None = Field(
        None,
        min_length=32,
        description="key (≥ 32 characters) that signs the live class's participant credentials and hashes client "
        "addresses; unset: one is generated once and kept in the live store, so it holds across workers and restarts",
    )
    trusted_proxies: str = Field(
        "127.0.0.1",
        description="comma-separated addresses or networks (CIDR) of the proxies whose X-Forwarded-For names the "
        "client (the rightmost address not in this list, as uvicorn's --forwarded-allow-ips); every other peer is "
        "the client itself. * (or 0.0.0.0/0, ::/0) is refused: a client could name itself",
    )

    @field_validator("live_db", mode="before")
    @classmethod
    def _blank_db_is_default(cls, v: object) -> object:
        """``AIINFRA_LIVE_DB=`` (blank) means the default file, as an unset variable does."""
        return ROOT / "var" / "live.db" if v in ("", None) else v

    @field_validator("secret", mode="before")
    @classmethod
    def _blank_secret_is_unset(cls, v: object) -> object:
        """``AIINFRA_SECRET=`` (blank) means no configured secret, as an unset variable does."""
        return None if v in ("", None) else v

    @field_validator("trusted_proxies")
    @classmethod
    def _proxies_parse(cls, v: str) -> str:
        """Every entry must be an address or a network (a typo must not silently trust nobody), and none may
        trust every peer: ``*`` would believe the address a client writes itself (docs/live-class.md)."""
        import ipaddress

        for item in (x.strip() for x in v.split(",")):
            if item and (item == "*" or ipaddress.ip_network(item, strict=False).prefixlen == 0):
                raise ValueError(
                    f"“{item}” would trust every peer as a proxy, so any client could name itself in "
                    "X-Forwarded-For; list the proxy's own address or network (e.g. 127.0.0.1 or 10.0.0.0/8)"
                )
        return v


@cache
def from_environment() -> Settings:
    """The settings of this process's environment (read once)."""
    return Settings()


async def settings_of(request: Request) -> Settings:
    """The settings of the app serving ``request`` (set by ``create_app``)."""
    return request.app.state.settings


SettingsDep = Annotated[Settings, Depends(settings_of)]
