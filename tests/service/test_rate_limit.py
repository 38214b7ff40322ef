"""The service's per-key rate limit (arena/service/app.py ``RateLimit``): many live keys are swept rarely, not at
every event past the threshold (each sweep reads every key), and keys whose events expired are forgotten."""
from __future__ import annotations

import pytest

from arena.service.app import RateLimit


def test_many_live_keys_are_swept_rarely_and_expired_ones_are_forgotten(monkeypatch: pytest.MonkeyPatch) -> None:
    limit = RateLimit(2, 60.0)
    sweeps: list[float] = []
    real = limit.sweep

    def counted(now: float) -> None:
        sweeps.append(now)
        real(now)

    monkeypatch.setattr(limit, "sweep", counted)
    keys = 3 * RateLimit.SWEEP
    assert all(limit.wait(f"address {k}", 1.0) == 0.0 for k in range(keys))  # all within one window: all live
    assert len(limit.events) == keys and len(sweeps) == 2  # past SWEEP keys, then past twice as many: not 8,192
    assert limit.wait("address 0", 2.0) == 0.0 and limit.wait("address 0", 3.0) > 0  # 2 a window, still counted
    limit.sweep(100.0)  # the window has passed for every key but none
    assert list(limit.events) == [] and limit.sweep_at == RateLimit.SWEEP
