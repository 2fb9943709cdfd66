"""Settings: file, then environment, then flags; typos and wrong types are errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from openwop_tui.config import Config, ConfigError, load_config


def test_flags_beat_environment_beat_file(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('host = "http://file"\nworkflow = "from.file"\naudio = false\n')
    env = {"OPENWOP_BASE_URL": "http://env", "OPENWOP_API_KEY": "k-env"}
    config = load_config({"host": "http://flag"}, env, path)
    assert config.host == "http://flag"
    assert config.api_key == "k-env"
    assert config.workflow == "from.file"
    assert config.audio is False


def test_defaults_without_file_or_environment(tmp_path: Path) -> None:
    config = load_config({}, {"XDG_CONFIG_HOME": str(tmp_path)})
    assert config == Config()
    assert config.host is None  # the embedded demo host


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('hots = "x"\n', "unknown setting 'hots'"),
        ("audio = 1\n", "audio must be true or false"),
        ('images = "sixel9"\n', "images must be one of"),
        ("max_asset_bytes = -5\n", "max_asset_bytes must be a positive integer"),
        ('demo_pace = "fast"\n', "demo_pace must be a number"),
        ("host = [\n", "cannot read"),
    ],
)
def test_bad_files_say_what_is_wrong(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message):
        load_config({}, {}, path)


def test_missing_explicit_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_config({}, {}, tmp_path / "nope.toml")


def test_the_key_never_shows_in_repr() -> None:
    assert "s3cret" not in repr(Config(api_key="s3cret"))


@pytest.mark.parametrize("host", ["localhost:8080", "ftp://example.com", "http://"])
def test_a_host_that_is_not_an_http_url_is_an_error(host: str) -> None:
    with pytest.raises(ConfigError, match="host must be an http:// or https:// URL"):
        load_config({"host": host}, {})
