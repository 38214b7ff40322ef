"""The code that runs inside a bot's process: the runner, in parts (``RUNNER_PARTS`` in sandbox/boot.py).

The referee never imports these modules: boot.py reads their files and sends them into the sandbox on the
runner's first stdin line, where they run in one namespace and import nothing of ours. Only the tests
import them, to hold the runner to the values of the referee's side.
"""
