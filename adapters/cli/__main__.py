"""``python -m adapters.cli COMMAND``: the ``packplan`` command without its entry point."""

from adapters.cli import main

raise SystemExit(main())
