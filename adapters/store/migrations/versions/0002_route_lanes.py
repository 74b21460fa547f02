"""Organisation lanes: an organisation's own route between two catalog cities.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "route_lane",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("organisation_id", sa.Integer(), nullable=False),
        sa.Column("origin_key", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("destination_key", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("data_json", sa.Text(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("updated_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["organisation_id"], ["organisation.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint(
            "organisation_id", "origin_key", "destination_key", name="uq_route_lane_org_pair"
        ),
    )
    with op.batch_alter_table("route_lane", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_route_lane_organisation_id"), ["organisation_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("route_lane", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_route_lane_organisation_id"))
    op.drop_table("route_lane")
