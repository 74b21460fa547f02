"""Thermal planning of cold-chain shipments (docs/thermal.md).

Modules by what they compute: :mod:`thermal.modes` (set points), :mod:`thermal.climate`
(city matching, monthly normals), :mod:`thermal.weather` (forecast providers),
:mod:`thermal.routes` (transit time, route maps, location types), :mod:`thermal.ambient`
(ambient per segment and its source), :mod:`thermal.degree_hours` (loads and capacities),
:mod:`thermal.eligibility` (containers against the load), :mod:`thermal.thermal_filter` (all
of it for one mode) and :mod:`thermal.catalog` (the container catalog).
"""
