"""Training tools over the engine: a PettingZoo AEC environment (``training.aec``), a Gymnasium single-agent
wrapper that seats ladder bots in-process (``training.gym_env``), an OpenSpiel game of the duel
(``training.spiel``) and the fixed action space they share (``training.actions``). Needs the ``rl`` extra:
``python3 -m pip install -e '.[rl]'``; the engine, sandbox and arena import nothing of it. docs/training.md.
"""
