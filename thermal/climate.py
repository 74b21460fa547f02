"""Cities and their climate: name matching and monthly mean temperatures.

City matching (docs/thermal.md#city-matching) is case-, accent- and punctuation-insensitive on the city key,
its names and its aliases (other languages and scripts, common spellings, IATA city and
airport codes). A name several cities share resolves by the kind of match first (key, name,
IATA city code, IATA airport code, curated spelling, GeoNames alternate name), then by
population; ``"Name, Country"`` (country name, ISO code or key suffix) narrows the choice,
e.g. ``"San Juan, AR"``.

Monthly means are the climate normals of ``data/cities.csv`` (see ``data/README.md``).
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from typing import Any, overload

import numpy as np
import pandas as pd

from data import MONTH_COLUMNS, load_table
from thermal.errors import UnknownCityError

#: Rank of each alias kind when a name matches several cities (lower wins).
ALIAS_KIND_RANK: dict[str, int] = {
    "key": 0,
    "name": 1,
    "iata-city": 2,
    "iata-airport": 3,
    "manual": 4,
    "geonames": 5,
}


def normalize_name(text: str) -> str:
    """Case-, accent- and punctuation-insensitive form of a name.

    Unicode compatibility decomposition, combining marks dropped, case folded, ``ё`` read as
    ``е``, every run of non-word characters made one space.

    Parameters
    ----------
    text : str
        A city name, alias, IATA code or key in any script.

    Returns
    -------
    str
        E.g. ``"Санкт-Петербург"`` -> ``"санкт петербург"``, ``"Zürich"`` -> ``"zurich"``.
    """
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    folded = stripped.casefold().replace("ё", "е")
    return " ".join(re.sub(r"[^\w]+", " ", folded).replace("_", " ").split())


@dataclass(frozen=True, slots=True)
class CityMatch:
    """A city found for a name.

    Attributes
    ----------
    key : str
        City key, e.g. ``"moscow-ru"``.
    name : str
        City name of the catalog.
    matched_alias : str
        The alias that matched.
    kind : str
        Kind of that alias (see :data:`ALIAS_KIND_RANK`).
    """

    key: str
    name: str
    matched_alias: str
    kind: str


def cities() -> pd.DataFrame:
    """The city table indexed by key.

    Returns
    -------
    pandas.DataFrame
        ``name``, ``country``, ``country_code``, ``region``, ``latitude`` and ``longitude``
        [°], ``timezone``, ``population``, ``geonameid`` and the monthly means ``jan`` ..
        ``dec`` [°C] (NaN for the cargo hubs without climate data).
    """
    return _cities().copy()


@cache
def _cities() -> pd.DataFrame:
    return load_table("cities").set_index("key", drop=False)


@cache
def _alias_index() -> dict[str, list[tuple[int, int, str, str, str]]]:
    """normalised alias -> candidates (kind rank, −population, key, alias, kind), best first."""
    table = _cities()
    population = table["population"].fillna(0).astype("int64").to_dict()
    index: dict[str, list[tuple[int, int, str, str, str]]] = {}

    def add(alias: str, key: str, kind: str) -> None:
        norm = normalize_name(alias)
        if norm:
            index.setdefault(norm, []).append(
                (ALIAS_KIND_RANK[kind], -population[key], key, alias, kind)
            )

    for key in table.index:
        add(key, key, "key")
    aliases = load_table("city_aliases")
    for key, alias, kind in aliases.itertuples(index=False):
        add(alias, key, kind)
    for norm, candidates in index.items():
        best: dict[str, tuple[int, int, str, str, str]] = {}
        for cand in sorted(candidates):
            best.setdefault(cand[2], cand)
        index[norm] = sorted(best.values())
    return index


@cache
def _country_forms() -> dict[str, set[str]]:
    """City key -> normalised forms of its country (name, ISO code)."""
    table = _cities()
    return {
        key: {normalize_name(country), normalize_name(code)}
        for key, country, code in zip(
            table.index, table["country"], table["country_code"], strict=True
        )
    }


def match_city(text: str) -> CityMatch | None:
    """The catalog city a caller means by ``text``, or None.

    Parameters
    ----------
    text : str
        A name in any script or spelling, an IATA city or airport code, a city key, or any
        of these followed by ``", <country>"`` (country name or ISO code).

    Returns
    -------
    CityMatch or None
        None when nothing matches.

    Examples
    --------
    >>> match_city("Москва").key
    'moscow-ru'
    >>> match_city("LED").key
    'saint-petersburg-ru'
    """
    index = _alias_index()
    norm = normalize_name(text)
    candidates = index.get(norm)
    country_filter: str | None = None
    if candidates is None and "," in text:
        head, _, tail = text.rpartition(",")
        candidates = index.get(normalize_name(head))
        country_filter = normalize_name(tail)
    if not candidates:
        return None
    if country_filter is not None:
        forms = _country_forms()
        candidates = [c for c in candidates if country_filter in forms[c[2]]]
        if not candidates:
            return None
    _, _, key, alias, kind = candidates[0]
    return CityMatch(key=key, name=str(_cities().at[key, "name"]), matched_alias=alias, kind=kind)


def find_city(text: str) -> CityMatch:
    """Like :func:`match_city`, raising :class:`~thermal.errors.UnknownCityError` on no match."""
    found = match_city(text)
    if found is None:
        raise UnknownCityError(text)
    return found


def is_known_city(key: str) -> bool:
    """True when ``key`` is a city key of the catalog."""
    return key in _cities().index


def has_climate(key: str) -> bool:
    """True when the catalog city ``key`` has monthly means for all twelve months."""
    if key not in _cities().index:
        return False
    return bool(_cities().loc[key, list(MONTH_COLUMNS)].notna().all())


@overload
def monthly_mean_c(city_key: str, month: int) -> float: ...
@overload
def monthly_mean_c(city_key: str | pd.Series, month: pd.Series) -> pd.Series: ...
@overload
def monthly_mean_c(city_key: pd.Series, month: int | pd.Series) -> pd.Series: ...
def monthly_mean_c(city_key: str | pd.Series, month: int | pd.Series) -> float | pd.Series:
    """Monthly mean air temperature (climate normal) of a city.

    Parameters
    ----------
    city_key : str or pandas.Series of str
        City key(s) of the catalog.
    month : int or pandas.Series of int
        Month 1 (January) to 12 (December); broadcast against ``city_key``.

    Returns
    -------
    float or pandas.Series of float
        Mean air temperature [°C]; NaN for a city without climate data or an unknown key.

    Raises
    ------
    ValueError
        A month outside 1..12.

    Examples
    --------
    >>> monthly_mean_c("moscow-ru", 7)
    19.2
    """
    table = _cities()
    months = np.asarray(month)
    if months.size and (np.any(months < 1) or np.any(months > 12)):
        raise ValueError(f"month must be in 1..12 (got {month!r})")
    grid = table.loc[:, list(MONTH_COLUMNS)]
    if isinstance(city_key, pd.Series) or isinstance(month, pd.Series):
        keys = pd.Series(city_key) if not isinstance(city_key, pd.Series) else city_key
        mons = month if isinstance(month, pd.Series) else pd.Series(month, index=keys.index)
        if not isinstance(city_key, pd.Series):
            keys = pd.Series(city_key, index=mons.index)
        values = [
            _cell(grid, k, MONTH_COLUMNS[int(m) - 1]) if k in grid.index else np.nan
            for k, m in zip(keys, mons, strict=True)
        ]
        return pd.Series(values, index=keys.index, dtype="float64", name="monthly_mean_c")
    if city_key not in grid.index:
        return float("nan")
    return _cell(grid, city_key, MONTH_COLUMNS[int(month) - 1])


def _cell(frame: pd.DataFrame, row: str, column: str) -> float:
    """One numeric cell of a table."""
    value: Any = frame.at[row, column]
    return float(value)


def city_coordinates(key: str) -> tuple[float, float] | None:
    """Latitude and longitude of a catalog city [°], or None when unknown."""
    if key not in _cities().index:
        return None
    lat = _cell(_cities(), key, "latitude")
    lon = _cell(_cities(), key, "longitude")
    if math.isnan(lat) or math.isnan(lon):
        return None
    return lat, lon


#: Mean Earth radius [km] (IUGG), for great-circle distances.
EARTH_RADIUS_KM: float = 6371.0088

#: How far a city may borrow the climate normals of its nearest neighbour [km].
NEAREST_CLIMATE_KM: float = 300.0


def great_circle_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle distance between two points [km] (haversine formula).

    Parameters
    ----------
    lat1, lon1, lat2, lon2 : float
        Latitudes and longitudes [°].
    """
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_RADIUS_KM * math.asin(min(1.0, math.sqrt(h)))


def intermediate_point(
    lat1: float, lon1: float, lat2: float, lon2: float, fraction: float
) -> tuple[float, float]:
    """The point at ``fraction`` (0..1) of the way along the great circle [°].

    Spherical linear interpolation of the two points' unit vectors.
    """
    p1, l1, p2, l2 = map(math.radians, (lat1, lon1, lat2, lon2))
    a = np.array([math.cos(p1) * math.cos(l1), math.cos(p1) * math.sin(l1), math.sin(p1)])
    b = np.array([math.cos(p2) * math.cos(l2), math.cos(p2) * math.sin(l2), math.sin(p2)])
    omega = math.acos(float(np.clip(a @ b, -1.0, 1.0)))
    if omega < 1e-12:
        return lat1, lon1
    v = (math.sin((1 - fraction) * omega) * a + math.sin(fraction * omega) * b) / math.sin(omega)
    return math.degrees(math.asin(float(v[2]))), math.degrees(math.atan2(float(v[1]), float(v[0])))


@cache
def _climate_points() -> tuple[list[str], np.ndarray]:
    """Keys and (latitude, longitude) in radians of every city with monthly normals."""
    table = _cities()
    has = table[list(MONTH_COLUMNS)].notna().all(axis=1) & table["latitude"].notna()
    rows = table.loc[has]
    coords = np.radians(rows[["latitude", "longitude"]].to_numpy(dtype="float64"))
    return [str(k) for k in rows.index], coords


def nearest_climate_city(
    lat: float, lon: float, *, max_km: float | None = None
) -> tuple[str, float] | None:
    """The city with monthly normals nearest to a point, and its distance [km].

    Parameters
    ----------
    lat, lon : float
        The point [°].
    max_km : float or None
        Farthest distance accepted [km]; None: any.

    Returns
    -------
    tuple of (str, float) or None
        City key and great-circle distance [km]; None when none lies within ``max_km``.
    """
    keys, coords = _climate_points()
    p, lam = math.radians(lat), math.radians(lon)
    h = (
        np.sin((coords[:, 0] - p) / 2) ** 2
        + np.cos(p) * np.cos(coords[:, 0]) * np.sin((coords[:, 1] - lam) / 2) ** 2
    )
    km = 2 * EARTH_RADIUS_KM * np.arcsin(np.sqrt(np.clip(h, 0.0, 1.0)))
    i = int(np.argmin(km))
    if max_km is not None and km[i] > max_km:
        return None
    return keys[i], float(km[i])


def climate_city(key: str, *, max_km: float = NEAREST_CLIMATE_KM) -> tuple[str, float] | None:
    """Whose monthly normals a catalog city uses, and how far away it is [km].

    A city with normals uses its own (distance 0). One without uses the nearest city that has
    them, within ``max_km`` (great-circle); None beyond that, or for a city without
    coordinates.
    """
    if has_climate(key):
        return key, 0.0
    coords = city_coordinates(key)
    if coords is None:
        return None
    return nearest_climate_city(*coords, max_km=max_km)


def city_name(key: str) -> str:
    """The display name of a catalog city (the key itself for a city the catalog lacks)."""
    return str(_cities().at[key, "name"]) if key in _cities().index else key
