"""A callback that stops a run the way Ctrl-C does (SIGINT to its own process), after a given
optimiser step; the reliability tests add it to recipes by class path."""
import os
import signal

import pytorch_lightning as pl


class InterruptAt(pl.Callback):
    def __init__(self, step: int, signum: int = int(signal.SIGINT)) -> None:
        self.step, self.signum = step, signum

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        if trainer.global_step >= self.step:
            os.kill(os.getpid(), self.signum)
