"""Settings of the REST service, from environment variables.

``DATABASE_URL`` and ``REDIS_URL`` are read as they are; every other setting is
``PACKPLAN_`` + its upper-case name, e.g. ``PACKPLAN_COMPUTE_WORKERS=4``.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Limits, quotas, pool size and budgets of the service, with their defaults."""

    # an empty variable (``PACKPLAN_COMPUTE_WORKERS=``, as compose files leave them) is unset
    model_config = SettingsConfigDict(
        env_prefix="PACKPLAN_", extra="ignore", frozen=True, env_ignore_empty=True
    )

    database_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("DATABASE_URL", "database_url"),
        description="SQLAlchemy/PostgreSQL URL; unset: SQLite at sqlite_path.",
    )
    sqlite_path: str = Field(default="var/packplan.sqlite3", description="SQLite file when no URL.")
    redis_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("REDIS_URL", "redis_url"),
        description="Shared rate-limit counters; unset: counted in memory per process.",
    )

    rate_sandbox_per_minute: int = Field(default=10, ge=1, description="Computes per sandbox key.")
    rate_production_per_minute: int = Field(
        default=120, ge=1, description="Computes per production key."
    )
    quota_sandbox_per_day: int = Field(default=200, ge=0, description="Per organisation, UTC day.")
    quota_production_per_month: int = Field(
        default=20_000, ge=0, description="Per organisation, UTC calendar month."
    )

    compute_workers: int = Field(default=2, ge=1, description="Worker processes computing plans.")
    compute_queue: int = Field(default=4, ge=0, description="Computes waiting for a worker.")
    compute_time_limit_s: float = Field(
        default=20.0, gt=0, description="Time budget of one computation [s]."
    )
    work_units_per_second: int | None = Field(
        default=None,
        ge=5_000_000,
        le=500_000_000,
        description="Work units one second of a planning budget buys (``packplan calibrate`` "
        "measures this machine's, with which a budget means CPU seconds here); unset: the "
        "default rate of the reference machine (93,000,000). Bounded to 5,000,000-500,000,000 "
        "(about 1/20 and 5 times the default): beyond, where a slip of digits lands, a "
        "budget would run into the safety nets or plan greedily. Equal settings "
        "give equal plans.",
    )
    compute_grace_s: float = Field(
        default=10.0,
        ge=0,
        description="Extra wait past 5 × the budget (the request's own wall-clock net is at 3 ×) "
        "before a worker is replaced [s].",
    )
    busy_retry_after_s: int = Field(default=5, ge=1, description="Retry-After of a 503 [s].")

    render_workers: int = Field(default=1, ge=1, description="Worker processes rendering PDFs.")
    render_queue: int = Field(default=2, ge=0, description="Renders waiting for a worker.")
    render_time_limit_s: float = Field(
        default=30.0, gt=0, description="Time limit of one PDF render [s]."
    )

    max_body_bytes: int = Field(default=1_048_576, ge=1024, description="Largest compute body.")
    cors_origins: str = Field(default="*", description="Comma-separated allowed origins, or *.")
    public_url: str | None = Field(
        default=None, description="Base URL of share links; unset: the URL the request came to."
    )
    allowed_hosts: str | None = Field(
        default=None,
        description="Comma-separated Host names the service answers (``*`` any, ``*.example.org``"
        " a domain); unset: localhost, 127.0.0.1, [::1] and the host of public_url.",
    )
    journal_flush_s: float = Field(default=0.5, gt=0, description="Journal write interval [s].")

    def host_names(self) -> tuple[str, ...]:
        """The allowed ``Host`` names, lower case, without ports."""
        if self.allowed_hosts and self.allowed_hosts.strip():
            names = [h.strip() for h in self.allowed_hosts.split(",")]
        else:
            names = list(LOOPBACK_HOSTS)
            if self.public_url:
                host = urlsplit(self.public_url).hostname
                if host:
                    names.append(f"[{host}]" if ":" in host else host)
        return tuple(dict.fromkeys(n.lower() for n in names if n))


#: The names of this machine that the service answers by default.
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")
