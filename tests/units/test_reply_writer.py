"""The reply writer's backpressure once its client is gone.

Guards a race seen once in a full run (`test_a_client_that_floods_then_leaves_frees_its_connection`
held its slot past 30 s): the writer stopped on a lost connection, then the read loop, still
reading the flood the socket had buffered, added the request that filled the pipeline, which
cleared `room` after the writer's last `room.set()`; the read loop then waited for room forever
and the departed client kept its connection slot. Through a real socket the order cannot be
forced, so the socket's write is a function that fails as a lost connection does.
"""

from __future__ import annotations

import asyncio

from wyoming.error import Error
from wyoming.event import Event

from wyoming_pocket_tts.protocol.replies import MAX_PENDING_REQUESTS, Reply, ReplyWriter


def test_a_stopped_writer_never_leaves_the_reader_waiting_for_room() -> None:
    async def scenario() -> bool:
        async def lost(_event: Event) -> None:
            raise ConnectionResetError("Connection lost")

        writer = ReplyWriter(lost, lambda: None)
        writer.add(Reply(None, notice=Error(text="first")))
        await asyncio.wait_for(writer.task, 5)  # it stopped: the client is gone
        for number in range(MAX_PENDING_REQUESTS):  # what the reader had buffered
            writer.add(Reply(None, notice=Error(text=str(number))))
        try:
            await asyncio.wait_for(writer.room.wait(), 1)
        except asyncio.TimeoutError:
            return False
        return True

    assert asyncio.run(scenario()), "the read loop would wait for room that never comes"
