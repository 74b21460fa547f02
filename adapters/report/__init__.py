"""Reports of stored plans: PDF (summary tables, or tables and 3D diagrams)."""

from adapters.report.pdf import render_pdf

__all__ = ["render_pdf"]
