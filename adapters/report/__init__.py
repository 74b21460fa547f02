"""Reports of plans: figures (plotly), the PDF (summary tables, or tables and figures), and
``show`` for notebooks."""

from adapters.report.notebook import show
from adapters.report.pdf import render_pdf

__all__ = ["render_pdf", "show"]
