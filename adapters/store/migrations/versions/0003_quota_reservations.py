"""Quota reservations: computations counted whose request has not finished yet.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "quota_reservation",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("organisation_id", sa.Integer(), nullable=False),
        sa.Column("period", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("owner", sqlmodel.sql.sqltypes.AutoString(length=300), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["organisation_id"], ["organisation.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("quota_reservation", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_quota_reservation_organisation_id"), ["organisation_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("quota_reservation", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_quota_reservation_organisation_id"))
    op.drop_table("quota_reservation")
