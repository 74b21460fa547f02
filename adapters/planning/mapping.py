"""The one mapping from the libraries' typed results to the contract's schemas."""

from __future__ import annotations

import pandas as pd

from adapters.planning.catalogs import _dims
from adapters.planning.schemas import (
    CatalogContainer,
    CatalogThermalProfile,
    ContainerMetrics,
    MetricObject,
)
from packing import metrics as lib_metrics
from thermal.catalog import containers_frame, profiles_frame
from thermal.modes import ALL_MODES


def _mode_rank(mode: str) -> int:
    return ALL_MODES.index(mode) if mode in ALL_MODES else len(ALL_MODES)


def catalog_containers() -> list[CatalogContainer]:
    """The thermal box catalog as the contract lists it (``GET /api/v1/catalog/containers``).

    Returns
    -------
    list of CatalogContainer
        In catalog order; each box's profiles ordered by mode (as the mode enum lists them),
        then coolant. Dimensions are [length, height, width] in mm, hold times in h at
        +30 °C.
    """
    profiles = profiles_frame()
    by_slug: dict[str, list[CatalogThermalProfile]] = {}
    ordered = profiles.assign(_rank=profiles["mode"].map(_mode_rank)).sort_values(
        ["container_slug", "_rank", "coolant"], kind="stable"
    )
    for p in ordered.itertuples(index=False):
        by_slug.setdefault(str(p.container_slug), []).append(
            CatalogThermalProfile(
                mode=str(p.mode),
                coolant=str(p.coolant),
                holdHoursAtRefAmbient=float(p.hold_hours_at_ref_ambient),
            )
        )
    out: list[CatalogContainer] = []
    for row in containers_frame().itertuples(index=False):
        payload = None if pd.isna(row.max_payload_kg) else float(row.max_payload_kg)
        out.append(
            CatalogContainer(
                slug=str(row.slug),
                title=str(row.title),
                outerMm=[float(v) for v in _dims(row, "outer")],
                innerWithCoolingMm=[float(v) for v in _dims(row, "inner")],
                volumeWithCoolingL=float(row.volume_with_cooling_l),
                maxPayloadKg=payload,
                loadingSide=str(row.loading_side),
                thermalProfiles=by_slug.get(str(row.slug), []),
            )
        )
    return out


def _metric(m: lib_metrics.Metric) -> MetricObject:
    return MetricObject(used=m.used, max=m.max, percent=m.percent)


def container_metrics(m: lib_metrics.ContainerMetrics) -> ContainerMetrics:
    """The library's container metrics as the contract's ContainerMetrics."""
    cog = None if m.center_of_gravity_mm is None else list(m.center_of_gravity_mm)
    return ContainerMetrics(
        volumeUtilization=m.volume_utilization,
        lossRatio=m.loss_ratio,
        weightUtilization=m.weight_utilization,
        itemCount=m.item_count,
        volumeM3=_metric(m.volume_m3),
        floorLengthCm=_metric(m.floor_length_cm),
        widthCm=_metric(m.width_cm),
        heightCm=_metric(m.height_cm),
        floorAreaM2=_metric(m.floor_area_m2),
        massKg=_metric(m.mass_kg),
        centerOfGravityMm=cog,
        cogOffset=m.cog_offset,
        cogHeightRatio=m.cog_height_ratio,
        rotationsUsed=m.rotations_used,
    )
