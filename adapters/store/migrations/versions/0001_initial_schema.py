"""Initial schema: organisations, API keys, plans, share links, SKU catalog, quotas, journal.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "journal_entry",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("method", sqlmodel.sql.sqltypes.AutoString(length=10), nullable=False),
        sa.Column("route", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("key_id", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=True),
        sa.Column("organisation_id", sa.Integer(), nullable=True),
        sa.Column("status", sa.Integer(), nullable=False),
        sa.Column("duration_ms", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("journal_entry", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_journal_entry_at"), ["at"], unique=False)
        batch_op.create_index(batch_op.f("ix_journal_entry_key_id"), ["key_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_journal_entry_organisation_id"), ["organisation_id"], unique=False
        )

    op.create_table(
        "organisation",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("organisation", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_organisation_name"), ["name"], unique=True)

    op.create_table(
        "api_key",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("organisation_id", sa.Integer(), nullable=False),
        sa.Column("prefix", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("digest", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("scopes", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("sandbox", sa.Boolean(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("revoked_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["organisation_id"],
            ["organisation.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("api_key", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_api_key_digest"), ["digest"], unique=True)
        batch_op.create_index(
            batch_op.f("ix_api_key_organisation_id"), ["organisation_id"], unique=False
        )

    op.create_table(
        "cargo_item",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("organisation_id", sa.Integer(), nullable=False),
        sa.Column("sku", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("data_json", sa.Text(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("updated_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["organisation_id"],
            ["organisation.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("organisation_id", "sku", name="uq_cargo_item_org_sku"),
    )
    with op.batch_alter_table("cargo_item", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_cargo_item_organisation_id"), ["organisation_id"], unique=False
        )

    op.create_table(
        "plan",
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("plan_id", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("organisation_id", sa.Integer(), nullable=False),
        sa.Column("external_ref", sqlmodel.sql.sqltypes.AutoString(length=120), nullable=True),
        sa.Column("source", sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("input_json", sa.Text(), nullable=False),
        sa.Column("result_json", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["organisation_id"],
            ["organisation.id"],
        ),
        sa.PrimaryKeyConstraint("seq"),
    )
    with op.batch_alter_table("plan", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_plan_external_ref"), ["external_ref"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_plan_organisation_id"), ["organisation_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_plan_plan_id"), ["plan_id"], unique=True)

    op.create_table(
        "quota_usage",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("organisation_id", sa.Integer(), nullable=False),
        sa.Column("period", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("used", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["organisation_id"],
            ["organisation.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("organisation_id", "period", name="uq_quota_org_period"),
    )
    with op.batch_alter_table("quota_usage", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_quota_usage_organisation_id"), ["organisation_id"], unique=False
        )

    op.create_table(
        "share_link",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("organisation_id", sa.Integer(), nullable=False),
        sa.Column("plan_id", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("token_digest", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("expires_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["organisation_id"],
            ["organisation.id"],
        ),
        sa.ForeignKeyConstraint(
            ["plan_id"],
            ["plan.plan_id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("share_link", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_share_link_organisation_id"), ["organisation_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_share_link_plan_id"), ["plan_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_share_link_token_digest"), ["token_digest"], unique=True
        )


def downgrade() -> None:
    with op.batch_alter_table("share_link", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_share_link_token_digest"))
        batch_op.drop_index(batch_op.f("ix_share_link_plan_id"))
        batch_op.drop_index(batch_op.f("ix_share_link_organisation_id"))

    op.drop_table("share_link")
    with op.batch_alter_table("quota_usage", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_quota_usage_organisation_id"))

    op.drop_table("quota_usage")
    with op.batch_alter_table("plan", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_plan_plan_id"))
        batch_op.drop_index(batch_op.f("ix_plan_organisation_id"))
        batch_op.drop_index(batch_op.f("ix_plan_external_ref"))

    op.drop_table("plan")
    with op.batch_alter_table("cargo_item", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_cargo_item_organisation_id"))

    op.drop_table("cargo_item")
    with op.batch_alter_table("api_key", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_api_key_organisation_id"))
        batch_op.drop_index(batch_op.f("ix_api_key_digest"))

    op.drop_table("api_key")
    with op.batch_alter_table("organisation", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_organisation_name"))

    op.drop_table("organisation")
    with op.batch_alter_table("journal_entry", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_journal_entry_organisation_id"))
        batch_op.drop_index(batch_op.f("ix_journal_entry_key_id"))
        batch_op.drop_index(batch_op.f("ix_journal_entry_at"))

    op.drop_table("journal_entry")
