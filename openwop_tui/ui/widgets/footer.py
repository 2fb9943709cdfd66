"""Textual's footer, its keys changed in place rather than made again.

Textual's `Footer` composes itself again whenever the screen's bindings may have changed: a
run starting or ending (Esc cancels it, or not), the transcript's focus moving to an item with
other keys (Save, Play, Copy…), a panel opened. Each time it removes every `FooterKey` and makes
new ones, about 180 objects a key (its styles, the virtual nodes of its two component classes,
caches, locks, a message queue), all in reference cycles. The app freezes what lives as long as
the chat after each run (`openwop_tui.ui.heap`), so those old keys, frozen while they were on
screen, waited as garbage for the collector's next full pass: five keys a short turn, most of
the garbage a session of quick turns held (issue 26: 130,000 objects waiting after 200 turns,
four in ten of the frozen heap).

`SteadyFooter` shows the same keys the same way (they are Textual's own `FooterKey` widgets,
made and styled as `Footer.compose` makes them) but keeps the ones it made: a change of keys
shows each key in the widget that showed its action before, hides the ones no longer needed and
shows them again when the keys come back, so a key widget is made only where none can show
it. A key appearing among the others (a run's Esc) leaves them as they were: not redrawn, and
not measured again for a layout the key typed next would wait for. Where the order of the keys
changed, they are shown in the widgets in order. Where Textual would group keys or add the
command palette's key, it composes as Textual does.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

__all__ = ["Shown", "SteadyFooter", "shown_keys"]


@dataclass(frozen=True, slots=True)
class Shown:
    """One key as the footer shows it."""

    key: str
    display: str
    description: str
    action: str
    enabled: bool
    tooltip: str


class SteadyFooter(Footer):
    """A `Footer` that updates its keys in place (see the module's docstring)."""

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return  # (as Textual's: filled when told the bindings are ready)
        shown = shown_keys(self)
        if shown is None:
            yield from super().compose()
            return
        yield from (self._made(key) for key in shown)

    def bindings_changed(self, screen: Screen[object]) -> None:
        # Textual's own checks, then `_show` where it would compose again.
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self._show)

    def shown(self) -> list[FooterKey]:
        """The key widgets on show now (hidden ones wait to be used again)."""
        return [key for key in self.query(FooterKey).results() if key.display]

    async def _show(self) -> None:
        """Show the keys on offer now in the key widgets already made: by action where the
        order allows (`_by_action`), else by position (`_by_position`); a widget is made only
        for a key none can show. Textual's recompose where it groups keys."""
        if not self.is_attached:
            return
        shown = shown_keys(self)
        keys = list(self.query_children(FooterKey).results())
        if shown is None or len(keys) != len(self.children):
            await self.recompose()  # (grouped keys, or a footer Textual composed: its own way)
            return
        if not self._by_action(keys, shown):
            self._by_position(keys, shown)

    def _by_action(self, keys: list[FooterKey], shown: list[Shown]) -> bool:
        """Show each key in the widget that showed its action before, where the keys on offer
        keep the order of those widgets (a run's Esc appearing among the others): the others
        are left as they are, neither changed nor laid out again; whether it could."""
        where: dict[str, int] = {}
        for n, widget in enumerate(keys):  # (a widget on show first, where two had an action)
            if widget.action not in where or (
                widget.display and not keys[where[widget.action]].display
            ):
                where[widget.action] = n
        found = [where.get(key.action) for key in shown]
        present = [n for n in found if n is not None]
        if present != sorted(present):
            return False
        kept = set(present)
        for n, widget in enumerate(keys):
            if n not in kept:
                widget.display = False
        for index, (key, at) in enumerate(zip(shown, found, strict=True)):
            if at is not None:
                _update(keys[at], key)
                continue
            # A key not shown before: made, and put before the next one that was.
            later = next((keys[m] for m in found[index + 1 :] if m is not None), None)
            if later is None:
                self.mount(self._made(key))
            else:
                self.mount(self._made(key), before=later)
        return True

    def _by_position(self, keys: list[FooterKey], shown: list[Shown]) -> None:
        """Show the keys in the widgets in order (the order of the keys on offer changed),
        hiding those left over and making more if there are more keys than widgets."""
        for widget, key in zip(keys, shown, strict=False):
            _update(widget, key)
        for widget in keys[len(shown) :]:
            widget.display = False
        if len(shown) > len(keys):
            self.mount_all(self._made(key) for key in shown[len(keys) :])

    def _made(self, key: Shown) -> FooterKey:
        """A key widget as `Footer.compose` makes it."""
        widget = FooterKey(
            key.key,
            key.display,
            key.description,
            key.action,
            disabled=not key.enabled,
            tooltip=key.tooltip,
        )
        return widget.data_bind(compact=Footer.compact)


def shown_keys(footer: Footer) -> list[Shown] | None:
    """The keys `Footer.compose` would show on ``footer``'s screen now, in its order (the first
    binding of each action shown); ``None`` where it would group keys or add the command
    palette's key, which are left to Textual."""
    if footer.show_command_palette and footer.app.ENABLE_COMMAND_PALETTE:
        return None
    first: dict[str, Shown] = {}
    for _node, binding, enabled, tooltip in footer.screen.active_bindings.values():
        if not binding.show:
            continue
        if binding.group is not None:
            return None
        if binding.action not in first:
            display = footer.app.get_key_display(binding)
            shown = Shown(
                binding.key, display, binding.description, binding.action, enabled, tooltip
            )
            first[binding.action] = shown
    return list(first.values())


def _update(widget: FooterKey, key: Shown) -> None:
    """``widget`` shows ``key``: refreshed (and laid out again, its width is its text's) only if
    it showed something else or was hidden."""
    now = Shown(
        widget.key,
        widget.key_display,
        widget.description,
        widget.action,
        not widget._disabled,
        widget.tooltip if isinstance(widget.tooltip, str) else "",
    )
    if now == key and widget.display:
        return
    widget.key = key.key
    widget.key_display = key.display
    widget.description = key.description
    widget.action = key.action
    widget._disabled = not key.enabled
    widget.set_class(not key.enabled, "-disabled")
    widget.tooltip = key.tooltip or None
    widget.display = True
    widget.refresh(layout=True)
