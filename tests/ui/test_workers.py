"""Work for Textual's workers is made only when a worker starts (`openwop_tui.ui.workers`)."""

from __future__ import annotations

import gc

from textual.app import App

from openwop_tui.ui.workers import Deferred


async def test_a_worker_replaced_before_it_starts_leaves_no_unawaited_coroutine() -> None:
    # A burst of render requests for one item: each new worker of the group cancels the last
    # before it ran. With the coroutine made up front, each cancelled one was dropped
    # unawaited ("coroutine ... was never awaited": an error under this suite's warnings).
    drawn: list[int] = []

    async def draw(n: int) -> None:
        drawn.append(n)

    app: App[None] = App()
    async with app.run_test():
        workers = [
            app.run_worker(Deferred(lambda n=n: draw(n)), group="render", exclusive=True)
            for n in range(5)
        ]
        await workers[-1].wait()
    gc.collect()  # a dropped coroutine warns when it is collected
    assert drawn == [4]  # only the last request was drawn; the others were never made


async def test_deferred_work_is_awaited_as_the_coroutine_would_be() -> None:
    async def answer() -> None:
        raise LookupError("from the work")

    try:
        await Deferred(answer)
    except LookupError as error:
        assert str(error) == "from the work"
    else:
        raise AssertionError("the work's error was lost")
