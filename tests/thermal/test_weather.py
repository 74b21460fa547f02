"""Weather providers: the protocol and the daily-mean forecast table."""

from __future__ import annotations

import datetime as dt

import pandas as pd
import pytest
from numpy.testing import assert_allclose

from thermal.weather import DailyMeanForecast, WeatherProvider

UTC = dt.UTC


def _at(day: int, hour: int = 0) -> dt.datetime:
    return dt.datetime(2025, 3, day, hour, tzinfo=UTC)


@pytest.fixture
def forecast() -> DailyMeanForecast:
    return DailyMeanForecast(
        {("moscow-ru", dt.date(2025, 3, 1)): 2.0, ("moscow-ru", dt.date(2025, 3, 2)): 8.0}
    )


def test_is_a_weather_provider(forecast):
    assert isinstance(forecast, WeatherProvider)


def test_hour_weighted_mean_over_days(forecast):
    # 18 h on 1 March at 2 °C and 6 h on 2 March at 8 °C
    value = forecast.mean_temperature_c("moscow-ru", 55.7, 37.6, _at(1, 6), _at(2, 6))
    assert_allclose(value, (18 * 2.0 + 6 * 8.0) / 24, rtol=1e-12)
    assert forecast.mean_temperature_c("moscow-ru", None, None, _at(1, 3), _at(1, 9)) == 2.0


def test_spans_it_does_not_cover_give_none(forecast):
    assert forecast.mean_temperature_c("moscow-ru", None, None, _at(2, 12), _at(3, 12)) is None
    assert forecast.mean_temperature_c("kazan-ru", None, None, _at(1), _at(1, 5)) is None


def test_dataframe_source():
    frame = pd.DataFrame({"city_key": ["cairo-eg"], "date": ["2025-03-01"], "mean_c": [21.5]})
    provider = DailyMeanForecast(frame)
    assert provider.mean_temperature_c("cairo-eg", None, None, _at(1, 1), _at(1, 2)) == 21.5
    with pytest.raises(ValueError, match="missing"):
        DailyMeanForecast(frame.drop(columns="mean_c")).mean_temperature_c(
            "cairo-eg", None, None, _at(1), _at(1, 1)
        )


def test_empty_span_is_an_error(forecast):
    with pytest.raises(ValueError, match="end must be after start"):
        forecast.mean_temperature_c("moscow-ru", None, None, _at(1, 5), _at(1, 5))
