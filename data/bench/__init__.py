"""Benchmark instances shipped with the package (a few public problems per set).

Read them through :func:`data.bench_text` (the loader of every file here) or, as packing
instances, :func:`packing.instances.load_shipped`. Sources and licence notes:
``data/README.md``.
"""
