"""Adapters around the packing and thermal libraries: REST API, store, reports, CLI."""
