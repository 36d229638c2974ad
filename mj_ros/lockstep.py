"""Lockstep: one batch of `lockstep_steps` steps per command message, for a test harness.

The handshake (README, "Lockstep"; examples/lockstep_client.py):
  1. The node starts (or is switched to lockstep) and publishes its state: /clock, /joint_states
     and the sensors at the current sim time. Until the first command it does not step; every
     subscriber of /joint_states that matches meanwhile is sent the current state again, so a
     harness that starts after the node still gets it.
  2. Each command message (~/joint_commands, ~/ctrl or ~/joint_trajectory) is one batch: the node
     applies it, takes `lockstep_steps` steps (publishing the streams at their rates in
     between), publishes the state of the batch's last step (every stream once, whatever its
     rate) and then `~/lockstep_done` (std_msgs/UInt64: the engine steps
     taken since start). Commands are applied one batch each, in the order they arrived.
  3. A harness sends a command, waits for `~/lockstep_done`, reads the state it received just
     before, decides the next command.
No command is lost silently: the node queues up to QUEUE_DEPTH commands (the command
subscriptions keep that many in lockstep mode); beyond it a command is rejected with a
(throttled, counted) warning. Commands the transport lost before they reached the node (a
publisher's queue overflowing) are reported by the middleware's message-lost event (DDS
SAMPLE_LOST), counted in /diagnostics (dropped_commands) and warned about as well.
"""
from __future__ import annotations

import collections
from typing import Callable

from rclpy.qos import QoSProfile, ReliabilityPolicy
from std_msgs.msg import UInt64

QUEUE_DEPTH = 1000  # commands waiting for their batch; also the subscriptions' depth in lockstep


class Lockstep:
    """The command queue and the batch-done signal of one node."""

    def __init__(self, node, steps: int, warn: Callable[[str, str], None]):
        self.steps = int(steps)
        self._warn = warn
        self._queue: collections.deque = collections.deque()
        self._credit = 0      # steps left in the current batch
        self.batches = 0      # batches finished
        self.rejected = 0     # commands rejected (queue full)
        self.lost = 0         # commands the transport lost (sequence-number gaps)
        self._done_msg = UInt64()
        self.done_pub = node.create_publisher(
            UInt64, "~/lockstep_done",
            QoSProfile(depth=QUEUE_DEPTH, reliability=ReliabilityPolicy.RELIABLE))

    # -- commands in ------------------------------------------------------------------------------
    def lost_in_transport(self, kind: str, n: int) -> None:
        """`n` commands the middleware reports lost before they reached the node (its
        message-lost event): they cannot be queued, but they are not lost silently."""
        self.lost += n
        self._warn("lockstep_lost", f"lockstep: {n} {kind} message(s) lost before they reached "
                                    f"the node (the publisher's queue overflowed: give it a "
                                    f"depth >= the commands in flight); {self.lost} lost in all")

    def offer(self, kind: str, apply: Callable[[], None]) -> bool:
        """Queue a validated command for its batch; False (and a warning) when the queue is
        full."""
        if len(self._queue) >= QUEUE_DEPTH:
            self.rejected += 1
            self._warn("lockstep_full", f"lockstep: {kind} rejected, {QUEUE_DEPTH} commands "
                                        f"already wait for their batch; {self.rejected} "
                                        f"rejected in all")
            return False
        self._queue.append(apply)
        return True

    def flush(self) -> None:
        """Leaving lockstep: apply what waits, in order (the last one stays in force)."""
        while self._queue:
            self._queue.popleft()()
        self._credit = 0

    # -- the loop ---------------------------------------------------------------------------------
    def ready(self) -> bool:
        """True when a step is due: a batch is running, or the next command starts one."""
        if self._credit > 0:
            return True
        if not self._queue:
            return False
        self._queue.popleft()()
        self._credit = self.steps
        return True

    @property
    def last_step(self) -> bool:
        """The next step ends the batch (publish every stream after it, then `done`)."""
        return self._credit <= 1

    def stepped(self) -> None:
        self._credit -= 1

    def done(self, steps_total: int) -> None:
        self.batches += 1
        self._done_msg.data = int(steps_total)
        self.done_pub.publish(self._done_msg)

    @property
    def waiting(self) -> int:
        return len(self._queue)
