"""Alembic environment and revisions of the service's schema."""
