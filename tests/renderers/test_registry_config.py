"""The config's ``[renderers] override`` list, and the commands telling the user on stderr what
renderer plugins did (one line each, no traceback)."""

from __future__ import annotations

from pathlib import Path

import pytest
from registry_support import BROKEN_PLUGIN, IMAGE_PLUGIN, install_plugin

from openwop_tui.cli import output
from openwop_tui.config import Config, ConfigError, load_config


def _config(tmp_path: Path, text: str) -> Config:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return load_config({}, environ={}, path=path)


def test_the_override_list_is_read_from_the_renderers_table(tmp_path: Path) -> None:
    config = _config(tmp_path, '[renderers]\noverride = ["image", "audio", "image"]\n')
    assert config.renderer_override == ("image", "audio")
    assert Config().renderer_override == ()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[renderers]\noverride = "image"\n', "renderers.override must be a list"),
        ("[renderers]\noverride = [1]\n", "must list display names"),
        ('[renderers]\nreplace = ["image"]\n', "unknown setting renderers.replace"),
        ('renderers = "image"\n', "[renderers] must be a table"),
    ],
)
def test_a_wrong_override_setting_says_what_is_wrong(
    tmp_path: Path, text: str, message: str
) -> None:
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        _config(tmp_path, text)


def test_commands_print_each_plugin_notice_once_on_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    install_plugin(
        tmp_path, monkeypatch, dist="acme-image", entry="acme", module="acme_image_cli",
        source=IMAGE_PLUGIN,
    )  # fmt: skip
    (tmp_path / "other").mkdir()
    install_plugin(
        tmp_path / "other", monkeypatch, dist="acme-broken", entry="broken",
        module="acme_broken_cli", source=BROKEN_PLUGIN,
    )  # fmt: skip
    monkeypatch.setattr(output, "_registries", {})
    registry = output.renderer_registry(Config())
    assert output.renderer_registry(Config()) is registry  # loaded once
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert lines == [
        "openwop-tui: renderer plugin 'acme' wants to replace the built-in 'image' renderer: "
        'refused; allow it with [renderers] override = ["image"] in the config',
        "openwop-tui: renderer plugin 'broken' failed to load (ModuleNotFoundError: No module "
        "named 'a_module_that_is_not_installed_anywhere'); it is not used",
    ]
    # With the override in the config: replaced, and said.
    replaced = output.renderer_registry(Config(renderer_override=("image",)))
    assert replaced.origin("image") == "plugin acme"
    assert "replaces the built-in 'image' renderer" in capsys.readouterr().err
